package trial

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/plimsoll/plimsoll/fleet"
	"github.com/plimsoll/plimsoll/loadgen"
	"github.com/plimsoll/plimsoll/target"
	"github.com/plimsoll/plimsoll/verdict"
	"github.com/plimsoll/plimsoll/workload"
	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"
)

// workersSpec is a small workload 2 workers can share.
func workersSpec() workload.Spec {
	s := workload.Default()
	s.Topics, s.PartitionsPerTopic, s.ReplicationFactor = 1, 2, 1
	s.Producers, s.Rate, s.MessageSize = 2, 400, 100
	s.ConsumerGroups, s.ConsumersPerGroup = 1, 2
	s.Warmup, s.Duration = 400*time.Millisecond, 1200*time.Millisecond
	s.ConsumerProps.Set("heartbeat.interval.ms", "100")
	return s
}

var testLimits = fleet.Limits{Join: 10 * time.Second, Silence: 2 * time.Second, Lag: 4, Find: 5 * time.Second, Poll: 50 * time.Millisecond, Beat: 200 * time.Millisecond}

// inProcessWorkers starts plan's workers as goroutines; silent names a worker whose reports stop
// a second and a half into its run (as if killed), interrupted one whose run is interrupted
// then (as SIGINT interrupts `plimsoll worker`) and which leaves as the command does (-1:
// none). wait returns each worker's result.
func inProcessWorkers(t *testing.T, ctx context.Context, tgt target.Target, silent, interrupted int) (func(fleet.Plan) error, func() []*loadgen.Result) {
	var wg sync.WaitGroup
	var results []*loadgen.Result
	opened := func(p fleet.Plan) error {
		results = make([]*loadgen.Result, p.Workers)
		for i := range p.Workers {
			wg.Go(func() {
				w, err := fleet.Join(ctx, []kgo.Opt{kgo.SeedBrokers(tgt.Bootstrap...)}, fleet.Joining{RunID: p.RunID, Index: i, Version: "test", Host: "test"}, fleet.WallClock, testLimits)
				if err != nil {
					t.Errorf("worker %d: %v", i, err)
					return
				}
				defer w.Close()
				opts := w.RunOptions()
				opts.DrainTimeout = 10 * time.Second
				rctx, stop := untilGone(ctx, w)
				defer stop()
				if i == silent { // a second and a half into its run, nothing more of it is heard, as if killed
					opts.Feed = silencedAt(opts.Feed, p.Start.Add(1500*time.Millisecond))
				}
				if i == interrupted {
					var cancel context.CancelFunc
					rctx, cancel = context.WithDeadline(rctx, p.Start.Add(1500*time.Millisecond))
					defer cancel()
				}
				res, err := loadgen.Run(rctx, w.Plan.Spec, tgt, opts)
				results[i] = res
				switch {
				case i == interrupted:
					if err := w.Leave(ctx, "interrupted by SIGINT"); err != nil {
						t.Errorf("worker %d leaving: %v", i, err)
					}
				case err != nil && w.Err() == nil: // a worker whose coordinator ended the run stops with an error
					t.Errorf("worker %d: %v", i, err)
				case err == nil: // as the command: a run the coordinator ended publishes nothing more
					_ = w.Flush(ctx)
				}
			})
		}
		return nil
	}
	return opened, func() []*loadgen.Result { wg.Wait(); return results }
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
// counts, none lost or duplicated, and an ok verdict; one whose worker 1 dies mid-run, or is
// interrupted mid-run and leaves, is invalid with a worker-lost reason naming it (and the
// interruption). None leaves a topic or group.
func TestRunWorkers(t *testing.T) {
	if testing.Short() {
		t.Skip("runs loadgen for several seconds")
	}
	c, err := kfake.NewCluster(kfake.NumBrokers(1))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	tgt := target.Target{Bootstrap: c.ListenAddrs()}
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	for _, tc := range []struct {
		name                string
		silent, interrupted int
		reason              string // in the worker-lost reason
	}{
		{"all report", -1, -1, ""},
		{"worker 1 silent", 1, -1, "worker 1"},
		{"worker 1 interrupted", -1, 1, "worker 1 left the run after its second 2: interrupted by SIGINT"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			opened, wait := inProcessWorkers(t, ctx, tgt, tc.silent, tc.interrupted)
			cfg := Config{Spec: workersSpec(), Target: tgt, NoProbe: true, Criteria: verdict.DefaultCriteria(), KafkaVersion: "test"}
			tr, err := RunWorkers(ctx, cfg, Workers{N: 2, Version: "test", Limits: testLimits, Lead: 4 * time.Second, Opened: opened})
			res := wait()
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
			}
			noneLeft(t, c)
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
	c, err := kfake.NewCluster(kfake.NumBrokers(1))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	tgt := target.Target{Bootstrap: c.ListenAddrs()}
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	opened, wait := inProcessWorkers(t, ctx, tgt, -1, -1)
	cctx, interrupt := context.WithCancelCause(ctx)
	defer interrupt(nil)
	sigint := errors.New("interrupted by SIGINT")
	openedThenInterrupt := func(p fleet.Plan) error { // 2.5 s into the run: the warm-up's 0.4 s and 2.1 s of its window
		time.AfterFunc(time.Until(p.Start.Add(2500*time.Millisecond)), func() { interrupt(sigint) })
		return opened(p)
	}
	spec := workersSpec()
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
	noneLeft(t, c)
}

// noneLeft fails when the cluster holds any topic or group.
func noneLeft(t *testing.T, c *kfake.Cluster) {
	t.Helper()
	cl, err := kgo.NewClient(kgo.SeedBrokers(c.ListenAddrs()...), kgo.MetadataMinAge(10*time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	adm := kadm.NewClient(cl)
	ts, err := adm.ListTopics(context.Background())
	if err != nil || len(ts) > 0 {
		t.Errorf("topics left: %v (%v)", ts.Names(), err)
	}
	gs, err := adm.ListGroups(context.Background())
	if err != nil || len(gs) > 0 {
		t.Errorf("groups left: %v (%v)", gs.Groups(), err)
	}
}
