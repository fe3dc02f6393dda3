//go:build integration

package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/plimsoll/plimsoll/results"
)

// TestLeanProducerNoLoss runs the ledger's checks on plimsoll's own produce path
// (--lean-producer): a modest idempotent acks=all run with nothing lost, duplicated or failed
// and everything consumed; and a broker of the shared cluster killed and restarted mid-run
// (TestFaultsUnderLoad's kill) with nothing acknowledged lost or written twice.
func TestLeanProducerNoLoss(t *testing.T) {
	up(t)
	t.Run("modest", func(t *testing.T) {
		out := t.TempDir()
		stdout, stderr, code := plimsoll(t, "run", "--cluster-dir", clusterDir, "--rate", "1000", "--message-size", "512",
			"--duration", "15s", "--warmup", "10s", "--producer-prop", "acks=all", "--producer-prop", "enable.idempotence=true",
			"--topic-prefix", "plimsoll-it-lean-", "--out", out, "--slo-p99", "0", "--lean-producer")
		if code != 0 && code != ExitOverloaded && code != ExitInvalid {
			t.Fatalf("run: exit %d\n%s\n%s", code, stdout, stderr)
		}
		data, err := os.ReadFile(filepath.Join(out, "result.json"))
		if err != nil {
			t.Fatal(err)
		}
		var r results.Trial
		if err := json.Unmarshal(data, &r); err != nil {
			t.Fatal(err)
		}
		t.Logf("counts %+v", r.Counts)
		if d := r.ProducedMsgsPerSec/r.TargetMsgsPerSec - 1; d < -0.03 || d > 0.03 {
			t.Errorf("produced %.1f msgs/s, more than 3%% from the 1000 targeted", r.ProducedMsgsPerSec)
		}
		if r.Counts.Lost != 0 || r.Counts.Duplicated != 0 || r.Counts.Failed != 0 || r.Counts.OutOfOrder != 0 {
			t.Errorf("with acks=all and idempotence: counts %+v", r.Counts)
		}
		if r.Counts.Acked < 14000 || r.Counts.Consumed < r.Counts.Acked {
			t.Errorf("counts %+v: expected ~15000 acked and all consumed", r.Counts)
		}
		lr := readResult(t, out)
		if e2e := lr.LatencyMs["end_to_end"]; e2e["p50"] <= 0 || e2e["max"] < e2e["p99"] {
			t.Errorf("end-to-end latency not recorded: %v", e2e)
		}
		if pub := lr.LatencyMs["publish"]; pub["p50"] <= 0 {
			t.Errorf("publish latency not recorded: %v", pub)
		}
	})
	t.Run("kill", func(t *testing.T) {
		victim, prefix := coordinatorVictim(t, clusterDir, 2, 3, 1)
		r := faultCheck(t, clusterDir, fmt.Sprintf("kill %d at 5s for 10s", victim), "25s", "--topic-prefix", prefix, "--lean-producer")
		if r.Counts.OutOfOrder != 0 {
			t.Errorf("counts %+v: records out of order on the lean path with idempotence", r.Counts)
		}
	})
}
