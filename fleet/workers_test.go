package fleet_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/plimsoll/plimsoll/fleet"
	"github.com/plimsoll/plimsoll/fleet/fleettest"
	"github.com/plimsoll/plimsoll/loadgen"
	"github.com/plimsoll/plimsoll/target"
	"github.com/twmb/franz-go/pkg/kgo"
)

// TestWorkersRunShares is the whole path of a run with workers on kfake, but for the command
// around it: the coordinator opens the run and creates the workload's topics, two workers join,
// each runs its share (Worker.RunOptions) and publishes what it feeds as it comes, and the
// coordinator's Collect merges their seconds and finals into the sum of the workers' results,
// none lost or duplicated. The plan's start lies beyond the silence limit after the joins: no
// worker is silent before it.
func TestWorkersRunShares(t *testing.T) {
	if testing.Short() {
		t.Skip("runs loadgen for several seconds")
	}
	c := fleettest.Cluster(t)
	base := []kgo.Opt{kgo.SeedBrokers(c.ListenAddrs()...)}
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	limits := fleet.Limits{Join: 10 * time.Second, Silence: 5 * time.Second, Lag: 4, Find: 5 * time.Second, Poll: 50 * time.Millisecond, Beat: 200 * time.Millisecond}
	p := fleet.Plan{RunID: "20261127t050000-ab34", Version: "test", Workers: 2, Spec: fleet.ShareRunSpec(3), Start: time.Now().Add(8 * time.Second)}
	co := fleettest.Open(t, ctx, c, p, limits)

	results := make([]*loadgen.Result, p.Workers)
	errs := make([]error, p.Workers)
	var wg sync.WaitGroup
	for i := range p.Workers {
		wg.Go(func() {
			w, err := fleet.Join(ctx, base, fleet.Joining{RunID: p.RunID, Index: i, Version: p.Version, Host: "test"}, fleet.WallClock, limits)
			if err != nil {
				errs[i] = err
				return
			}
			defer w.Close()
			opts := w.RunOptions()
			opts.DrainTimeout = 10 * time.Second
			results[i], errs[i] = loadgen.Run(ctx, w.Plan.Spec, target.Target{Bootstrap: c.ListenAddrs()}, opts)
			if err := w.Flush(ctx); err != nil && errs[i] == nil {
				errs[i] = err
			}
		})
	}
	if err := co.AwaitJoins(ctx); err != nil {
		t.Fatal(err)
	}
	var mergedSent int64
	asm := fleet.NewAssembly(p)
	merged, err := co.Collect(ctx, func(m fleet.MergedSecond) { mergedSent += m.Tally.Sent; asm.Add(m) })
	wg.Wait()
	if err != nil {
		t.Fatal(err)
	}
	var sum loadgen.Counts
	var sent int64
	for i, res := range results {
		if errs[i] != nil {
			t.Fatalf("worker %d: %v", i, errs[i])
		}
		fleet.AddCounts(&sum, res.Counts)
		sent += res.Counts.Sent + res.ExcludedCounts.Sent
	}
	whole := fleet.Intended(p.Spec, 0, p.Spec.Producers, int64(p.Spec.Warmup), int64(p.Spec.Warmup+p.Spec.Duration))
	if merged.Counts != sum || sum.Sent+sum.Unsent != whole || sum.Lost != 0 || sum.Duplicated != 0 || sum.Consumed != 2*sum.Acked {
		t.Errorf("merged %+v, the workers' sum %+v; want them equal, the whole's %d intended, none lost or duplicated", merged.Counts, sum, whole)
	}
	if mergedSent != sent {
		t.Errorf("the merged seconds sent %d, the workers %d", mergedSent, sent)
	}
	res := asm.Result(merged, c.ListenAddrs())
	var rowsSent float64
	for row := range res.Timeline.All() {
		rowsSent += row.SentMsgsPerSec
	}
	if res.Counts != sum || int64(rowsSent) != sent || res.Latency.Publish != merged.Publish.Percentiles() || len(res.Groups) != len(merged.Groups) {
		t.Errorf("assembled result: counts %+v (want %+v), timeline sent %v (want %d), latency %+v", res.Counts, sum, rowsSent, sent, res.Latency.Publish)
	}
	for _, g := range merged.Groups {
		if g.Producers != (fleet.Range{0, 3}) || g.Measured.Consumed != sum.Acked || !g.CaughtUp || g.Foreign != 0 {
			t.Errorf("merged group %+v", g)
		}
	}
	if err := co.Close(ctx); err != nil {
		t.Fatal(err)
	}
}
