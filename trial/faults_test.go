package trial

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/plimsoll/plimsoll/fault"
	"github.com/plimsoll/plimsoll/results"
	"github.com/plimsoll/plimsoll/target"
	"github.com/plimsoll/plimsoll/verdict"
	"github.com/plimsoll/plimsoll/workload"
	"github.com/twmb/franz-go/pkg/kfake"
)

// recorder is a fault.Target that notes when each action came.
type recorder struct {
	mu  sync.Mutex
	log []string
	at  []time.Time
}

func (r *recorder) note(s string) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.log, r.at = append(r.log, s), append(r.at, time.Now())
	return nil
}
func (r *recorder) Kill(int32) error                                    { return r.note("kill") }
func (r *recorder) Restart(context.Context, int32, time.Duration) error { return r.note("restart") }
func (r *recorder) Pause(int32) error                                   { return r.note("pause") }
func (r *recorder) Resume(int32) error                                  { return r.note("resume") }
func (r *recorder) Cut(int32) error                                     { return r.note("cut") }
func (r *recorder) Reconnect(int32) error                               { return r.note("reconnect") }

// TestRunWithFaults: a trial against kfake (client logic only) executes its plan at its time
// after the measured window's start, watches the ISR (kfake's is always full), records the
// window in the trial, marks the timeline and judges the run on loss and recovery.
func TestRunWithFaults(t *testing.T) {
	c, err := kfake.NewCluster(kfake.NumBrokers(3))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	spec := workload.Default()
	spec.PartitionsPerTopic, spec.ReplicationFactor, spec.Rate, spec.MessageSize = 3, 1, 500, 100
	// Four measured seconds, not three: the fault begins on a second's boundary (the window's
	// start + 1 s) and lasts just over 1 s (the stop's own time), so by sub-millisecond jitter
	// it overlaps two or three of the timeline's seconds; in a 3 s window it once overlapped all
	// three (began 1.5007 s and ended 2.507 s after the producers started, the seconds' edges
	// just after both), leaving no second outside it to compare with (a clean clone's make
	// test). The fourth is outside it whatever the jitter.
	spec.Warmup, spec.Duration = 500*time.Millisecond, 4*time.Second
	spec.ConsumerProps.Set("heartbeat.interval.ms", "100")
	sp, _ := fault.Parse("stop 2 at 1s for 1s")
	rec := &recorder{}
	res, err := Run(context.Background(), Config{Spec: spec, Target: target.Target{Bootstrap: c.ListenAddrs()}, NoProbe: true,
		Criteria: verdict.DefaultCriteria(), Faults: []fault.Spec{sp}, FaultTarget: rec})
	if err != nil {
		t.Fatal(err)
	}
	if len(rec.log) != 2 || rec.log[0] != "pause" || rec.log[1] != "resume" {
		t.Fatalf("actions %q, want pause, resume", rec.log)
	}
	if late := rec.at[0].Sub(res.Window.Start.Add(time.Second)); late < 0 || late > 200*time.Millisecond {
		t.Errorf("paused %v after the window's start + 1 s", late)
	}
	if len(res.Faults) != 1 {
		t.Fatalf("%d fault windows", len(res.Faults))
	}
	w := res.Faults[0]
	if w.Error != "" || w.RecoverySeconds == nil || *w.RecoverySeconds > 1 || w.During.Seconds == 0 || w.Outside.Seconds == 0 {
		t.Errorf("window %+v", w)
	}
	if markedSeconds(res) == 0 {
		t.Error("no second of the timeline marks the fault")
	}
	if res.Verdict.State != verdict.OK && res.Verdict.State != verdict.Invalid ||
		!strings.Contains(strings.Join(res.Verdict.Skipped, "\n"), "planned faults") {
		t.Errorf("verdict %s: %+v, skipped %q; want it judged as a fault run", res.Verdict.State, res.Verdict.Reasons, res.Verdict.Skipped)
	}
}

// markedSeconds counts the seconds of tr's timeline that mark a fault.
func markedSeconds(tr *results.Trial) int {
	n := 0
	for s := range tr.Timeline.All() {
		if s.Fault != "" {
			n++
		}
	}
	return n
}
