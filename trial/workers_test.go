package trial

import (
	"cmp"
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/plimsoll/plimsoll/fault"
	"github.com/plimsoll/plimsoll/fleet"
	"github.com/plimsoll/plimsoll/fleet/fleettest"
	"github.com/plimsoll/plimsoll/loadgen"
	"github.com/plimsoll/plimsoll/target"
	"github.com/plimsoll/plimsoll/verdict"
	"github.com/twmb/franz-go/pkg/kfake"
)

var testLimits = fleet.Limits{Join: 10 * time.Second, Silence: 2 * time.Second, Lag: 4, Find: 5 * time.Second, Poll: 50 * time.Millisecond, Beat: 200 * time.Millisecond}

// inProcessWorkers starts plan's workers as goroutines against c (fleettest.StartWorkers), each
// stopping its run once its coordinator is gone; silent names a worker whose reports stop a
// second and a half into its run (as if killed), interrupted one whose run is interrupted then
// (as SIGINT interrupts `plimsoll worker`) and which leaves as the command does (-1: none).
// wait returns each worker's outcome.
func inProcessWorkers(ctx context.Context, c *kfake.Cluster, silent, interrupted int) (opened func(fleet.Plan) error, wait func() []fleettest.Outcome) {
	var started func() []fleettest.Outcome
	opened = func(p fleet.Plan) error {
		started = fleettest.StartWorkers(ctx, c, p, testLimits, shareRun(c, silent, interrupted, p.Start.Add(1500*time.Millisecond)))
		return nil
	}
	wait = func() []fleettest.Outcome {
		if started == nil {
			return nil
		}
		return started()
	}
	return opened, wait
}

// shareRun runs a worker's share until its coordinator is gone, as `plimsoll worker` does; of
// worker silent, no report is heard from at on, as if it were killed; worker interrupted's run
// is interrupted at at, and it flushes its reports and leaves, as the command does on SIGINT.
func shareRun(c *kfake.Cluster, silent, interrupted int, at time.Time) fleettest.RunFunc {
	tgt := target.Target{Bootstrap: c.ListenAddrs()}
	return func(ctx context.Context, i int, w *fleet.Worker, opts loadgen.Options) (*loadgen.Result, error) {
		rctx, stop := untilGone(ctx, w)
		defer stop()
		if i == silent {
			opts.Feed = silencedAt(opts.Feed, at)
		}
		if i != interrupted {
			return loadgen.Run(rctx, w.Plan.Spec, tgt, opts)
		}
		rctx, cancel := context.WithDeadline(rctx, at)
		defer cancel()
		res, err := loadgen.Run(rctx, w.Plan.Spec, tgt, opts)
		return res, errors.Join(err, w.Flush(ctx), w.Leave(ctx, "interrupted by SIGINT"))
	}
}

// workerResults fails t for a worker that did not join, or whose run failed when none was made
// to fail (failing: the silent or interrupted worker, -1 for none), and returns the workers'
// results.
func workerResults(t *testing.T, outs []fleettest.Outcome, failing int) []*loadgen.Result {
	t.Helper()
	res := make([]*loadgen.Result, len(outs))
	for i, o := range outs {
		if o.Join != nil || (o.Run != nil && failing < 0) {
			t.Errorf("worker %d: %v", i, cmp.Or(o.Join, o.Run))
		}
		res[i] = o.Result
	}
	return res
}

// silencedAt passes f's reports on until the given time, then none.
func silencedAt(f loadgen.Feed, at time.Time) loadgen.Feed {
	return loadgen.Feed{
		Second: func(s loadgen.FeedSecond) {
			if time.Now().Before(at) {
				f.Second(s)
			}
		},
		Final: func(loadgen.FeedFinal) {},
	}
}

// untilGone is ctx cancelled once w's coordinator is gone, as `plimsoll worker` stops its run.
func untilGone(ctx context.Context, w *fleet.Worker) (context.Context, context.CancelFunc) {
	rctx, cancel := context.WithCancel(ctx)
	go func() {
		for rctx.Err() == nil && w.Err() == nil {
			time.Sleep(testLimits.Poll)
		}
		cancel()
	}()
	return rctx, cancel
}

// TestRunWorkers: a trial whose load two workers generate on kfake has the workers' summed
// counts, none lost or duplicated, and an ok verdict, also when its partitions are left to the
// cluster's size (0: the run's default, which the plan's check once met before sizing and
// refused); one whose worker 1 dies mid-run, or is interrupted mid-run and leaves, is invalid
// with a worker-lost reason naming it (and the interruption). None leaves a topic or group.
func TestRunWorkers(t *testing.T) {
	if testing.Short() {
		t.Skip("runs loadgen for several seconds")
	}
	c := fleettest.Cluster(t)
	tgt := target.Target{Bootstrap: c.ListenAddrs()}
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	for _, tc := range []struct {
		name                string
		silent, interrupted int
		partitions          int
		reason              string // in the worker-lost reason
	}{
		{"all report, partitions left to the cluster", -1, -1, 0, ""},
		{"worker 1 silent", 1, -1, 2, "worker 1"},
		{"worker 1 interrupted", -1, 1, 2, "worker 1 left the run after its second 2: interrupted by SIGINT"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			opened, wait := inProcessWorkers(ctx, c, tc.silent, tc.interrupted)
			spec := fleettest.Spec()
			spec.PartitionsPerTopic = tc.partitions
			cfg := Config{Spec: spec, Target: tgt, NoProbe: true, Criteria: verdict.DefaultCriteria(), KafkaVersion: "test"}
			tr, err := RunWorkers(ctx, cfg, Workers{N: 2, Version: "test", Limits: testLimits, Lead: 4 * time.Second, Opened: opened})
			res := workerResults(t, wait(), max(tc.silent, tc.interrupted))
			if err != nil {
				t.Fatal(err)
			}
			defer tr.Close()
			if tc.reason != "" {
				v := tr.Verdict
				if v.State != verdict.Invalid || len(v.Reasons) == 0 || v.Reasons[0].Criterion != verdict.CritWorkerLost || !strings.Contains(v.Reasons[0].Text, tc.reason) {
					t.Errorf("verdict %+v; want invalid, worker-lost saying %q", v, tc.reason)
				}
			} else {
				var sent, acked int64
				for _, r := range res {
					sent, acked = sent+r.Counts.Sent, acked+r.Counts.Acked
				}
				n := tr.Counts
				if n.Sent != sent || n.Acked != acked || n.Consumed != acked || n.Lost != 0 || n.Duplicated != 0 || tr.Verdict.State == verdict.Invalid {
					t.Errorf("trial counts %+v, verdict %+v; the workers sent %d, acknowledged %d", n, tr.Verdict, sent, acked)
				}
				if len(tr.Workers) != 2 || tr.Workers[0].Worker != 0 || tr.Workers[1].GOMAXPROCS == 0 {
					t.Errorf("the trial records the workers' processes %+v, want both workers'", tr.Workers)
				}
			}
			fleettest.NoneLeft(t, c)
		})
	}
}

// TestRunWorkersInterrupted: a coordinator interrupted mid-window (its context cancelled, as
// SIGINT cancels it) keeps what finished, as Run does: the trial of the seconds merged so far
// (their counts, rates and latencies), marked interrupted, its verdict invalid with the interruption its first reason, an error
// wrapping loadgen.ErrInterrupted; its workers stop and no topic or group is left.
func TestRunWorkersInterrupted(t *testing.T) {
	if testing.Short() {
		t.Skip("runs loadgen for several seconds")
	}
	c := fleettest.Cluster(t)
	tgt := target.Target{Bootstrap: c.ListenAddrs()}
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	opened, wait := inProcessWorkers(ctx, c, -1, -1)
	cctx, interrupt := context.WithCancelCause(ctx)
	defer interrupt(nil)
	sigint := errors.New("interrupted by SIGINT")
	openedThenInterrupt := func(p fleet.Plan) error { // 2.5 s into the run: the warm-up's 0.4 s and 2.1 s of its window
		time.AfterFunc(time.Until(p.Start.Add(2500*time.Millisecond)), func() { interrupt(sigint) })
		return opened(p)
	}
	spec := fleettest.Spec()
	spec.Duration = 5 * time.Second
	cfg := Config{Spec: spec, Target: tgt, NoProbe: true, Criteria: verdict.DefaultCriteria(), KafkaVersion: "test"}
	tr, err := RunWorkers(cctx, cfg, Workers{N: 2, Version: "test", Limits: testLimits, Lead: 4 * time.Second, Opened: openedThenInterrupt})
	wait()
	if !errors.Is(err, loadgen.ErrInterrupted) || !strings.Contains(err.Error(), "interrupted by SIGINT") || tr == nil {
		t.Fatalf("trial %v, err %v; want the partial trial and ErrInterrupted naming the signal", tr, err)
	}
	defer tr.Close()
	v := tr.Verdict
	if !tr.Interrupted || tr.Window.MeasuredSeconds < 1 || tr.Window.MeasuredSeconds > 3 || tr.Timeline.Len() < 2 {
		t.Errorf("interrupted %v, window %+v, %d timeline rows; want marked, 1-3 s measured, the rows merged", tr.Interrupted, tr.Window, tr.Timeline.Len())
	}
	if tr.Counts.Sent == 0 || tr.ProducedMsgsPerSec == 0 || tr.Histograms.Publish.Count() == 0 {
		t.Errorf("counts %+v, produced %v msgs/s, %d publish latencies; want the measured seconds' figures", tr.Counts, tr.ProducedMsgsPerSec, tr.Histograms.Publish.Count())
	}
	if v.State != verdict.Invalid || len(v.Reasons) == 0 || v.Reasons[0].Criterion != verdict.CritInterrupted {
		t.Errorf("verdict %+v; want invalid, interrupted first", v)
	}
	fleettest.NoneLeft(t, c)
}

// TestRunWorkersWithFaults: a trial whose load two workers generate runs its planned faults as
// a run in one process does: at their time from the window's start (the plan's start and
// warm-up), their windows in the trial with the ISR watched, the timeline marked; its plan
// carries the silence limit the faults need (faultSilence), so no worker is taken for lost.
func TestRunWorkersWithFaults(t *testing.T) {
	if testing.Short() {
		t.Skip("runs loadgen for several seconds")
	}
	c := fleettest.Cluster(t)
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	sp, err := fault.Parse("stop 2 at 1s for 1s")
	if err != nil {
		t.Fatal(err)
	}
	rec := &recorder{}
	var plan fleet.Plan
	opened, wait := inProcessWorkers(ctx, c, -1, -1)
	cfg := Config{Spec: fleettest.Spec(), Target: target.Target{Bootstrap: c.ListenAddrs()}, NoProbe: true, Criteria: verdict.DefaultCriteria(),
		KafkaVersion: "test", Faults: []fault.Spec{sp}, FaultTarget: rec}
	tr, err := RunWorkers(ctx, cfg, Workers{N: 2, Version: "test", Limits: testLimits, Lead: 4 * time.Second,
		Opened: func(p fleet.Plan) error { plan = p; return opened(p) }})
	workerResults(t, wait(), -1)
	if err != nil {
		t.Fatal(err)
	}
	defer tr.Close()
	if plan.Silence != time.Second+faultMargin {
		t.Errorf("the plan's silence limit %v, want the fault's 1 s and %v", plan.Silence, faultMargin)
	}
	if len(rec.log) != 2 || rec.log[0] != "pause" || rec.log[1] != "resume" {
		t.Fatalf("actions %q, want pause, resume", rec.log)
	}
	due := plan.Start.Add(plan.Spec.Warmup + time.Second)
	if late := rec.at[0].Sub(due); late < 0 || late > 200*time.Millisecond {
		t.Errorf("paused %v after the plan's start, warm-up and 1 s", late)
	}
	if len(tr.Faults) != 1 || tr.Faults[0].Error != "" || tr.Faults[0].RecoverySeconds == nil || tr.Faults[0].During.Seconds == 0 {
		t.Fatalf("fault windows %+v, want the one executed, with its recovery and its seconds", tr.Faults)
	}
	if markedSeconds(tr) == 0 {
		t.Error("no second of the merged timeline marks the fault")
	}
	for _, r := range tr.Verdict.Reasons {
		if r.Criterion == verdict.CritWorkerLost {
			t.Errorf("verdict %s: %s", tr.Verdict.State, r.Text)
		}
	}
	fleettest.NoneLeft(t, c)
}

// TestFaultSilence: a run with workers and faults keeps its bus's silence limit above its
// longest fault by faultMargin; one without faults, or without a cluster to apply them to,
// keeps the limits' own.
func TestFaultSilence(t *testing.T) {
	kill, _ := fault.Parse("kill 2 at 5s for 10s")
	stop, _ := fault.Parse("stop 3 at 20s for 30s")
	for _, c := range []struct {
		name   string
		faults []fault.Spec
		target fault.Target
		want   time.Duration
	}{
		{"no faults", nil, &recorder{}, 0},
		{"no cluster to apply them to", []fault.Spec{kill}, nil, 0},
		{"one", []fault.Spec{kill}, &recorder{}, 10*time.Second + faultMargin},
		{"the longest of two", []fault.Spec{kill, stop}, &recorder{}, 30*time.Second + faultMargin},
	} {
		if got := faultSilence(Config{Faults: c.faults, FaultTarget: c.target}); got != c.want {
			t.Errorf("%s: %v, want %v", c.name, got, c.want)
		}
	}
}
