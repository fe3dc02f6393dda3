//go:build integration

package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/plimsoll/plimsoll/loadgen/produce"
	"github.com/plimsoll/plimsoll/results"
)

// TestLeanProducerNoLoss runs the ledger's checks on plimsoll's own produce path
// (--lean-producer): a modest idempotent acks=all run with nothing lost, duplicated or failed
// and everything consumed. A broker killed and restarted under it is TestFaultsUnderLoad/kill,
// which runs on this path.
func TestLeanProducerNoLoss(t *testing.T) {
	up(t)
	t.Run("modest", func(t *testing.T) {
		out := t.TempDir()
		stdout, stderr, code := plimsoll(t, "run", "--cluster-dir", clusterDir, "--rate", "1000", "--message-size", "512",
			"--duration", "10s", "--warmup", "3s", "--producer-prop", "acks=all", "--producer-prop", "enable.idempotence=true",
			"--topic-prefix", "plimsoll-it-lean-", "--out", out, "--slo-p99", "0", "--lean-producer")
		if code != 0 && code != ExitOverloaded && code != ExitInvalid {
			t.Fatalf("run: exit %d\n%s\n%s", code, stdout, stderr)
		}
		r := readTrial(t, out)
		t.Logf("counts %+v", r.Counts)
		if d := r.ProducedMsgsPerSec/r.TargetMsgsPerSec - 1; d < -0.03 || d > 0.03 {
			t.Errorf("produced %.1f msgs/s, more than 3%% from the 1000 targeted", r.ProducedMsgsPerSec)
		}
		if r.Counts.Lost != 0 || r.Counts.Duplicated != 0 || r.Counts.Failed != 0 || r.Counts.OutOfOrder != 0 {
			t.Errorf("with acks=all and idempotence: counts %+v", r.Counts)
		}
		if r.Counts.Acked < 9300 || r.Counts.Consumed < r.Counts.Acked {
			t.Errorf("counts %+v: expected ~10000 acked and all consumed", r.Counts)
		}
		lr := readResult(t, out)
		if e2e := lr.LatencyMs["end_to_end"]; e2e["p50"] <= 0 || e2e["max"] < e2e["p99"] {
			t.Errorf("end-to-end latency not recorded: %v", e2e)
		}
		if pub := lr.LatencyMs["publish"]; pub["p50"] <= 0 {
			t.Errorf("publish latency not recorded: %v", pub)
		}
	})
}

// leanShapedLinkCheck (TestNICVerdicts, on its cluster of 16 Mbit/s links): one idempotent
// acks=all producer on the lean path, asked for more than one broker's emulated link carries
// (3,000 msgs/s of 1 KB to one partition of replication 1), keeps more than one produce request
// in flight to the broker (the requests queue on the link, the window lets five go), and nothing
// acknowledged is lost, duplicated or out of order. It ran on a one-broker cluster of its own
// until that cluster's start (about 20 s) weighed on the suite's 30 minutes.
//
// Against TestProducerWindowBound's slow-acknowledging cluster (a follower fetch waiting 400
// ms) five requests in flight on one connection carry no more than one, since a broker handles
// one request of a connection at a time; the lean producer's sessions (more connections, each
// its own producer id) carry it there, checked by leanWindowCheck.
func leanShapedLinkCheck(t *testing.T, dir string) {
	out := t.TempDir()
	_, stderr, code := plimsoll(t, "run", "--cluster-dir", dir, "--rate", "3000", "--message-size", "1000",
		"--partitions", "1", "--replication-factor", "1", "--duration", "8s", "--warmup", "2s", "--drain-timeout", "20s",
		"--producer-prop", "acks=all", "--producer-prop", "enable.idempotence=true",
		"--out", out, "--lean-producer")
	if code != ExitOK && code != ExitInvalid && code != ExitOverloaded {
		t.Fatalf("run: exit %d\n%s", code, stderr)
	}
	r := readTrial(t, out)
	t.Logf("produced %.0f msgs/s; at most %d requests in flight to the broker in a session, %d sessions (window limit %d, at it %.0f%% of the window); counts %+v",
		r.ProducedMsgsPerSec, r.Client.LeanMaxInFlight, r.Client.LeanSessions, r.Client.WindowLimit, 100*r.Client.WindowShare, r.Counts)
	if r.Client.LeanMaxInFlight < 2 || r.Client.WindowLimit != 5*produce.MaxSessions {
		t.Errorf("at most %d request in flight to the broker (window limit %d): want more than 1, up to 5 per session, %d sessions", r.Client.LeanMaxInFlight, r.Client.WindowLimit, produce.MaxSessions)
	}
	if c := r.Counts; c.Lost != 0 || c.Duplicated != 0 || c.OutOfOrder != 0 || c.Acked == 0 {
		t.Errorf("counts %+v; want records acknowledged, none lost, duplicated or out of order", c)
	}
}

// readTrial reads the result.json a run wrote in out.
func readTrial(t *testing.T, out string) results.Trial {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(out, "result.json"))
	if err != nil {
		t.Fatal(err)
	}
	var r results.Trial
	if err := json.Unmarshal(data, &r); err != nil {
		t.Fatal(err)
	}
	return r
}
