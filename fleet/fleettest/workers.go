package fleettest

import (
	"cmp"
	"context"
	"sync"
	"time"

	"github.com/plimsoll/plimsoll/fleet"
	"github.com/plimsoll/plimsoll/loadgen"
	"github.com/plimsoll/plimsoll/target"
	"github.com/twmb/franz-go/pkg/kfake"
)

// Outcome is what one in-process worker came to: its run's result and the errors, if any, of
// its join, its run and its flush of the reports.
type Outcome struct {
	Result           *loadgen.Result
	Join, Run, Flush error
}

// Err is the first of o's errors: its join's, else its run's, else its flush's.
func (o Outcome) Err() error { return cmp.Or(o.Join, o.Run, o.Flush) }

// RunFunc runs worker i's share with opts (its RunOptions, a 10 s drain) and returns what
// loadgen.Run returns; a test's own may change the context or the options first.
type RunFunc func(ctx context.Context, i int, w *fleet.Worker, opts loadgen.Options) (*loadgen.Result, error)

// StartWorkers starts p's workers as goroutines against c: each joins the run, runs its share
// with run (nil: loadgen.Run against c) and flushes its reports, unless its run failed with its
// coordinator gone, as `plimsoll worker` does (work). wait waits for all of them and
// returns each one's outcome.
func StartWorkers(ctx context.Context, c *kfake.Cluster, p fleet.Plan, limits fleet.Limits, run RunFunc) (wait func() []Outcome) {
	if run == nil {
		tgt := target.Target{Bootstrap: c.ListenAddrs()}
		run = func(ctx context.Context, _ int, w *fleet.Worker, opts loadgen.Options) (*loadgen.Result, error) {
			return loadgen.Run(ctx, w.Plan.Spec, tgt, opts)
		}
	}
	outs := make([]Outcome, p.Workers)
	var wg sync.WaitGroup
	for i := range p.Workers {
		wg.Go(func() { outs[i] = work(ctx, c, p, i, limits, run) })
	}
	return func() []Outcome { wg.Wait(); return outs }
}

// work is worker i's part: it joins, runs its share and flushes. A run that failed with the
// coordinator gone is not flushed, as `plimsoll worker` does not flush it: the coordinator has
// deleted the results topic, and franz-go keeps records for a deleted topic until its unknown
// topic retries (4) at the metadata's minimum age (5 s) have passed, 20 s; Close drops them.
func work(ctx context.Context, c *kfake.Cluster, p fleet.Plan, i int, limits fleet.Limits, run RunFunc) (o Outcome) {
	j := fleet.Joining{RunID: p.RunID, Index: i, Version: p.Version, Host: "test"}
	w, err := fleet.Join(ctx, seeds(c), j, fleet.WallClock, limits)
	if err != nil {
		o.Join = err
		return o
	}
	defer w.Close()
	opts := w.RunOptions()
	opts.DrainTimeout = 10 * time.Second
	o.Result, o.Run = run(ctx, i, w, opts)
	if o.Run != nil && w.Err() != nil {
		return o
	}
	o.Flush = w.Flush(ctx)
	return o
}
