//go:build integration

package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/plimsoll/plimsoll/localkafka"
	"github.com/plimsoll/plimsoll/results"
)

// TestFaultsUnderLoad kills one broker of the shared cluster and restarts it, then stops another
// and resumes it, each during a short run with acks=all, idempotence, rf 3 and
// min.insync.replicas 2: nothing acknowledged may be lost or written twice, and result.json
// must hold the fault's window with the time until the ISR was full again. The shared cluster
// has replica.lag.time.max.ms=5000, so an 8 s fault takes its broker out of the ISR.
func TestFaultsUnderLoad(t *testing.T) {
	c := up(t)
	if !waitFullISR(c, time.Minute) {
		t.Fatal("the shared cluster's ISR was not full before the faults")
	}
	defer healthy(t, c)
	// Both outlast broker.session.timeout.ms (9 s), so the controller fences the broker and the
	// ISR shrinks whatever the leaders' timing: an 8 s stop once left it whole.
	for _, spec := range []string{"kill 2 at 5s for 10s", "stop 3 at 5s for 12s"} {
		t.Run(spec[:4], func(t *testing.T) { faultCheck(t, clusterDir, spec, "25s") })
	}
}

// healthy fails the test unless every broker of c runs and every partition has its full ISR,
// as the tests after it expect.
func healthy(t *testing.T, c *localkafka.State) {
	t.Helper()
	c, err := localkafka.Open(c.Dir) // a restarted broker has a new pid
	if err != nil {
		t.Fatal(err)
	}
	for _, b := range c.Status().Brokers {
		if !b.Alive {
			t.Errorf("broker %d is %s after the faults", b.ID, b.State)
		}
	}
	if !waitFullISR(c, time.Minute) {
		t.Error("the ISR was not full again within a minute of the faults")
	}
}

// faultCheck runs 300 msgs/s of 1 KB with spec on the cluster in dir and checks the ledger and
// the fault's window.
func faultCheck(t *testing.T, dir, spec, duration string) *results.Trial {
	t.Helper()
	out := t.TempDir()
	start := time.Now()
	stdout, stderr, code := plimsoll(t, "run", "--cluster-dir", dir, "--rate", "300", "--message-size", "1000",
		"--duration", duration, "--warmup", "5s", "--drain-timeout", "20s", "--replication-factor", "3",
		"--min-insync-replicas", "2", "--producer-prop", "acks=all", "--producer-prop", "enable.idempotence=true",
		"--fault", spec, "--out", out)
	data, err := os.ReadFile(filepath.Join(out, "result.json"))
	if err != nil {
		t.Fatalf("%s: exit %d, no result.json: %v\n%s", spec, code, err, stderr)
	}
	var r results.Trial
	if err := json.Unmarshal(data, &r); err != nil {
		t.Fatal(err)
	}
	t.Logf("%s: exit %d after %.0f s\n%s", spec, code, time.Since(start).Seconds(), stdout)
	if c := r.Counts; c.Lost != 0 || c.Duplicated != 0 || c.Acked == 0 {
		t.Errorf("%s: acked %d, lost %d, duplicated %d (redelivered %d); want none lost or duplicated", spec, c.Acked, c.Lost, c.Duplicated, c.Redelivered)
	}
	if len(r.Faults) != 1 {
		t.Fatalf("%s: %d fault windows in result.json, want 1", spec, len(r.Faults))
	}
	w := r.Faults[0]
	if w.Spec != spec || w.Error != "" || w.Began.IsZero() || !w.Ended.After(w.Began) || w.RecoverySeconds == nil || w.During.Seconds == 0 || w.ISRWholeAtEnd {
		t.Errorf("%s: fault window %+v; want it executed, with its seconds and its ISR recovery", spec, w)
	}
	for _, reason := range r.Verdict.Reasons {
		if reason.Criterion == "fault-loss" || reason.Criterion == "fault-recovery" {
			t.Errorf("%s: verdict %s: %s", spec, r.Verdict.State, reason.Text)
		}
	}
	if code != 0 && code != ExitInvalid {
		t.Errorf("%s: exit %d, verdict %s\n%s", spec, code, r.Verdict.State, stderr)
	}
	return &r
}
