//go:build integration

package main

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/plimsoll/plimsoll/localkafka"
	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"
)

// verdictOf reads the verdict of a run written to dir.
func verdictOf(t *testing.T, dir string) (state, bottleneck string, criteria []string, text string) {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(dir, "result.json"))
	if err != nil {
		t.Fatal(err)
	}
	var r struct {
		Verdict struct {
			State      string `json:"state"`
			Bottleneck string `json:"bottleneck"`
			Reasons    []struct {
				Criterion string `json:"criterion"`
				Text      string `json:"text"`
			} `json:"reasons"`
		} `json:"verdict"`
	}
	if err := json.Unmarshal(data, &r); err != nil {
		t.Fatal(err)
	}
	for _, x := range r.Verdict.Reasons {
		criteria = append(criteria, x.Criterion)
		text += x.Criterion + ": " + x.Text + "\n"
	}
	return r.Verdict.State, r.Verdict.Bottleneck, criteria, text
}

func TestVerdictLowRateOK(t *testing.T) {
	up(t)
	out := t.TempDir()
	// Default criteria: a late timer on the busy 2-core host, without plimsoll waiting for a CPU,
	// must not make this run client-bound.
	_, stderr, code := plimsoll(t, "run", "--cluster-dir", clusterDir, "--rate", "300", "--message-size", "1000",
		"--duration", "15s", "--warmup", "10s", "--out", out)
	state, _, _, why := verdictOf(t, out)
	if code != 0 || state != "ok" {
		t.Errorf("a low rate: exit %d, verdict %s\n%s%s", code, state, why, stderr)
	}
}

func TestVerdictFarAboveCapacity(t *testing.T) {
	up(t)
	out := t.TempDir()
	_, stderr, code := plimsoll(t, "run", "--cluster-dir", clusterDir, "--rate", "200000", "--message-size", "1000",
		"--producers", "2", "--duration", "8s", "--warmup", "3s", "--out", out, "--drain-timeout", "10s")
	state, bottleneck, _, why := verdictOf(t, out)
	if code != ExitOverloaded || state != "overloaded" {
		t.Fatalf("200 MB/s on a 2-core host: exit %d, verdict %s\n%s%s", code, state, why, stderr)
	}
	named := false
	for _, r := range []string{"cpu", "network", "request handlers", "disk", "memory"} {
		named = named || strings.Contains(bottleneck, r)
	}
	if !named {
		t.Errorf("bottleneck %q names no resource", bottleneck)
	}
}

func TestVerdictPausedFollower(t *testing.T) {
	c := up(t)
	out := t.TempDir()
	// Not the active KRaft controller: pausing it stalled produce for the whole 30 s pause with
	// no isr reason (p99 29.9 s on a clean clone, 29.6 s once before), as stopping it did in
	// TestFaultsUnderLoad: the leaders' AlterPartition requests to a paused controller hang,
	// presumably until the controller channel's 30 s socket timeout (docs/faults.md).
	victim := notController(t, clusterDir, c.Brokers[2].ID, c.Brokers[1].ID)
	done := make(chan struct{})
	const prefix = "plimsoll-it-paused-"
	go func() {
		defer close(done)
		// Pause only once the run has settled its topic (one acknowledged record in every
		// partition), so the pause falls in the warm-up. Paused before the topic exists, the
		// broker is fenced and the partitions are created without it; paused while the run
		// settles, the settling step waits out its 20 s bound and the window mostly follows the
		// resume, with the ISR already whole again (seen in CI: no isr reason, p99 29.8 s).
		if !waitSettled(c, prefix, time.Minute) {
			t.Error("the run's topic was not settled within a minute")
			return
		}
		time.Sleep(time.Second) // into the warm-up
		if err := c.Pause(victim); err != nil {
			t.Error(err)
			return
		}
		time.Sleep(30 * time.Second)
		if err := c.Resume(victim); err != nil {
			t.Error(err)
		}
	}()
	_, stderr, code := plimsoll(t, "run", "--cluster-dir", clusterDir, "--rate", "300", "--message-size", "1000",
		"--duration", "25s", "--warmup", "5s", "--out", out, "--drain-timeout", "10s", "--topic-prefix", prefix)
	<-done
	state, _, criteria, why := verdictOf(t, out)
	isr := false
	for _, c := range criteria {
		isr = isr || c == "isr"
	}
	if state != "overloaded" || !isr || code != ExitOverloaded {
		t.Errorf("paused follower: exit %d, verdict %s, want an isr reason\n%s%s", code, state, why, stderr)
	}
	// Let the follower rejoin before other tests run: every partition of the cluster (the
	// internal topics included) has its full ISR again.
	if !waitFullISR(c, time.Minute) {
		t.Error("the paused follower did not rejoin every ISR within a minute")
	}
}

func TestVerdictClientBound(t *testing.T) {
	up(t)
	out := t.TempDir()
	prev := runtime.GOMAXPROCS(1)
	defer runtime.GOMAXPROCS(prev)
	// gzip at its highest level on incompressible payloads costs the client far more CPU than the
	// broker, so one Go scheduler thread cannot keep 100,000 1 KB messages a second (it needs
	// about 1.13 cores). It once asked 80,000, which one thread can keep on this 2-core host once
	// the brokers are warm: three runs one after another produced 63,053, 77,288 and 80,000
	// msgs/s, the last judged ok. On the host the brokers share, plimsoll gets 0.64-0.89 cores,
	// under ClientMaxCPU, its threads waiting 0.17-0.53 s per second for a CPU and its buffers
	// full (so not "behind its schedule with room"); only the Go scheduler's p99, at 21 or 25 ms
	// by its histogram's buckets, called it client-bound, in 3 runs of 4 here and not in CI. What
	// it wanted (CPU plus run-queue wait, 1.06-1.17) and what the target needs make it so now.
	_, stderr, code := plimsoll(t, "run", "--cluster-dir", clusterDir, "--rate", "100000", "--message-size", "1000",
		"--producers", "1", "--replication-factor", "1", "--consumer-groups", "0", "--producer-prop", "acks=1",
		"--producer-prop", "compression.type=gzip", "--producer-prop", "compression.gzip.level=9",
		"--duration", "10s", "--warmup", "3s", "--out", out, "--drain-timeout", "5s")
	state, _, criteria, why := verdictOf(t, out)
	client := false
	for _, c := range criteria {
		client = client || c == "client-bound"
	}
	if state != "invalid" || !client || code != ExitInvalid {
		t.Errorf("starved generator: exit %d, verdict %s, want invalid client-bound\n%s%s", code, state, why, stderr)
	}
}

// TestModelAgainstMeasured checks the traffic algebra on the real cluster: per-broker network in
// and out from Kafka's own metrics against plimsoll model. Each broker's traffic is linear in the
// replication factor and in the consumer groups, so four shapes pin it: producers alone (rf 1),
// replication alone (rf 3), and both with 2 groups at rf 2 and rf 3. (All six of rf 1-3 by 0 or 2
// groups ran in every suite until the suite outgrew its 30 minutes; rf 1 with groups and rf 2
// without add no term these four lack.)
func TestModelAgainstMeasured(t *testing.T) {
	up(t)
	for _, shape := range [][2]string{{"1", "0"}, {"3", "0"}, {"2", "2"}, {"3", "2"}} {
		rf, groups := shape[0], shape[1]
		t.Run("rf"+rf+"-groups"+groups, func(t *testing.T) {
			out := t.TempDir()
			// Keyed messages spread evenly over the partitions, as the model assumes; without
			// keys the sticky partitioner favours some brokers over a short window.
			_, stderr, code := plimsoll(t, "run", "--cluster-dir", clusterDir, "--rate", "1500", "--message-size", "1000",
				"--keys", "round-robin", "--replication-factor", rf, "--consumer-groups", groups, "--duration", "12s", "--warmup", "4s",
				"--out", out, "--slo-p99", "0", "--drain-timeout", "10s")
			if code != 0 && code != ExitOverloaded && code != ExitInvalid {
				t.Fatalf("run: exit %d\n%s", code, stderr)
			}
			stdout, stderr, code := plimsoll(t, "model", "--against", out, "--json")
			if code != 0 {
				t.Fatalf("model --against: exit %d\n%s", code, stderr)
			}
			var rep struct {
				Brokers   int     `json:"brokers"`
				RF        int     `json:"replication_factor"`
				Groups    int     `json:"consumer_groups"`
				MaxError  float64 `json:"max_error"`
				PerBroker []struct {
					Broker int32   `json:"broker"`
					In     float64 `json:"in_error"`
					Out    float64 `json:"out_error"`
				} `json:"per_broker"`
			}
			if err := json.Unmarshal([]byte(stdout), &rep); err != nil {
				t.Fatalf("%v\n%s", err, stdout)
			}
			if rep.Brokers != 3 || rep.RF != atoi(rf) || rep.Groups != atoi(groups) {
				t.Errorf("compared shape %+v", rep)
			}
			if rep.MaxError > 0.10 {
				t.Errorf("model and measurement differ by %.1f%% (> 10%%): %s", 100*rep.MaxError, stdout)
			}
		})
	}
}

func atoi(s string) int {
	n := 0
	for _, c := range s {
		n = 10*n + int(c-'0')
	}
	return n
}

// pollAdmin asks cond, with an admin client of c, every 200 ms until it holds or d has
// passed; each call has 5 s. It may run outside the test's goroutine, so it reports instead of
// failing the test.
func pollAdmin(c *localkafka.State, d time.Duration, cond func(context.Context, *kadm.Client) bool) bool {
	cl, err := kgo.NewClient(kgo.SeedBrokers(c.Target().Bootstrap...))
	if err != nil {
		return false
	}
	defer cl.Close()
	adm := kadm.NewClient(cl)
	for end := time.Now().Add(d); time.Now().Before(end); time.Sleep(200 * time.Millisecond) {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		ok := cond(ctx, adm)
		cancel()
		if ok {
			return true
		}
	}
	return false
}

// waitFullISR polls until every partition of every topic, internal ones included, has all its
// replicas in sync and the cluster lists all its brokers, or d has passed.
func waitFullISR(c *localkafka.State, d time.Duration) bool {
	return pollAdmin(c, d, func(ctx context.Context, adm *kadm.Client) bool {
		md, err := adm.Metadata(ctx)
		return err == nil && len(md.Brokers) == len(c.Brokers) && fullISR(md.Topics)
	})
}

func fullISR(td kadm.TopicDetails) bool {
	for _, t := range td {
		if t.Err != nil {
			return false
		}
		for _, p := range t.Partitions {
			if p.Err != nil || len(p.ISR) < len(p.Replicas) {
				return false
			}
		}
	}
	return true
}

// waitSettled polls until a topic starting with prefix exists and every one of its partitions
// holds at least one record (a run's settling records come first), for up to d.
func waitSettled(c *localkafka.State, prefix string, d time.Duration) bool {
	return pollAdmin(c, d, func(ctx context.Context, adm *kadm.Client) bool {
		td, err := adm.ListTopics(ctx)
		if err != nil {
			return false
		}
		var names []string
		for _, name := range td.Names() {
			if strings.HasPrefix(name, prefix) {
				names = append(names, name)
			}
		}
		if len(names) == 0 {
			return false
		}
		ends, err := adm.ListEndOffsets(ctx, names...)
		if err != nil || ends.Error() != nil {
			return false
		}
		n, settled := 0, true
		ends.Each(func(o kadm.ListedOffset) { n, settled = n+1, settled && o.Offset >= 1 })
		return n > 0 && settled
	})
}
