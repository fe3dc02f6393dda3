package trial

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/plimsoll/plimsoll/fleet"
	"github.com/plimsoll/plimsoll/fleet/fleettest"
	"github.com/plimsoll/plimsoll/loadgen"
	"github.com/plimsoll/plimsoll/target"
	"github.com/plimsoll/plimsoll/verdict"
	"github.com/twmb/franz-go/pkg/kgo"
)

var testLimits = fleet.Limits{Join: 10 * time.Second, Silence: 2 * time.Second, Lag: 4, Find: 5 * time.Second, Poll: 50 * time.Millisecond, Beat: 200 * time.Millisecond}

// inProcessWorkers starts plan's workers as goroutines; silent names a worker whose reports stop
// a second and a half into its run (as if killed). wait returns each worker's result.
func inProcessWorkers(t *testing.T, ctx context.Context, tgt target.Target, silent int) (func(fleet.Plan) error, func() []*loadgen.Result) {
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
				res, err := loadgen.Run(rctx, w.Plan.Spec, tgt, opts)
				if err != nil && silent < 0 {
					t.Errorf("worker %d: %v", i, err)
				}
				results[i] = res
				_ = w.Flush(ctx)
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
// counts, none lost or duplicated, and an ok verdict; one whose worker 1 dies mid-run
// is invalid with a worker-lost reason naming it. Neither leaves a topic or group.
func TestRunWorkers(t *testing.T) {
	if testing.Short() {
		t.Skip("runs loadgen for several seconds")
	}
	c := fleettest.Cluster(t)
	tgt := target.Target{Bootstrap: c.ListenAddrs()}
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	for _, tc := range []struct {
		name   string
		silent int
	}{{"all report", -1}, {"worker 1 silent", 1}} {
		t.Run(tc.name, func(t *testing.T) {
			opened, wait := inProcessWorkers(t, ctx, tgt, tc.silent)
			cfg := Config{Spec: fleettest.Spec(), Target: tgt, NoProbe: true, Criteria: verdict.DefaultCriteria(), KafkaVersion: "test"}
			tr, err := RunWorkers(ctx, cfg, Workers{N: 2, Version: "test", Limits: testLimits, Lead: 4 * time.Second, Opened: opened})
			res := wait()
			if err != nil {
				t.Fatal(err)
			}
			defer tr.Close()
			if tc.silent >= 0 {
				v := tr.Verdict
				if v.State != verdict.Invalid || len(v.Reasons) == 0 || v.Reasons[0].Criterion != verdict.CritWorkerLost || !strings.Contains(v.Reasons[0].Text, "worker 1") {
					t.Errorf("verdict %+v; want invalid, worker-lost naming worker 1", v)
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
			fleettest.NoneLeft(t, c)
		})
	}
}
