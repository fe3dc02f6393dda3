package fleet_test

import (
	"context"
	"os"
	"runtime"
	"testing"
	"time"

	"github.com/plimsoll/plimsoll/fleet"
	"github.com/plimsoll/plimsoll/fleet/fleettest"
	"github.com/plimsoll/plimsoll/loadgen"
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
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	limits := fleet.Limits{Join: 10 * time.Second, Silence: 5 * time.Second, Lag: 4, Find: 5 * time.Second, Poll: 50 * time.Millisecond, Beat: 200 * time.Millisecond}
	p := fleet.Plan{RunID: "20261127t050000-ab34", Version: "test", Workers: 2, Spec: fleet.ShareRunSpec(3), Start: time.Now().Add(8 * time.Second)}
	co := fleettest.Open(t, ctx, c, p, limits)
	wait := fleettest.StartWorkers(ctx, c, p, limits, nil)
	if err := co.AwaitJoins(ctx); err != nil {
		t.Fatal(err)
	}
	var mergedSent int64
	asm := fleet.NewAssembly(p)
	merged, err := co.Collect(ctx, func(m fleet.MergedSecond) { mergedSent += m.Tally.Sent; asm.Add(m) })
	outs := wait()
	if err != nil {
		t.Fatal(err)
	}
	sum, sent := sumOutcomes(t, outs)
	whole := fleet.Intended(p.Spec, 0, p.Spec.Producers, int64(p.Spec.Warmup), int64(p.Spec.Warmup+p.Spec.Duration))
	if merged.Counts != sum || sum.Sent+sum.Unsent != whole || sum.Lost != 0 || sum.Duplicated != 0 || sum.Consumed != 2*sum.Acked {
		t.Errorf("merged %+v, the workers' sum %+v; want them equal, the whole's %d intended, none lost or duplicated", merged.Counts, sum, whole)
	}
	if mergedSent != sent {
		t.Errorf("the merged seconds sent %d, the workers %d", mergedSent, sent)
	}
	res := asm.Result(merged, c.ListenAddrs())
	checkAssembled(t, res, merged, sum, sent)
	checkWorkerProcesses(t, res.Workers, p.Workers)
	for _, g := range merged.Groups {
		if g.Producers != (fleet.Range{0, 3}) || g.Measured.Consumed != sum.Acked || !g.CaughtUp || g.Foreign != 0 {
			t.Errorf("merged group %+v", g)
		}
	}
	if err := co.Close(ctx); err != nil {
		t.Fatal(err)
	}
}

// sumOutcomes is the sum of the workers' window counts and what they sent in all (window and
// excluded); it fails t at once on a worker's error.
func sumOutcomes(t *testing.T, outs []fleettest.Outcome) (sum loadgen.Counts, sent int64) {
	t.Helper()
	for i, o := range outs {
		if err := o.Err(); err != nil {
			t.Fatalf("worker %d: %v", i, err)
		}
		fleet.AddCounts(&sum, o.Result.Counts)
		sent += o.Result.Counts.Sent + o.Result.ExcludedCounts.Sent
	}
	return sum, sent
}

// checkAssembled checks the result assembled from the merged seconds and finals against the
// workers' sum: its counts, its timeline's sent messages, its publish latency and its groups.
func checkAssembled(t *testing.T, res *loadgen.Result, merged fleet.MergedFinal, sum loadgen.Counts, sent int64) {
	t.Helper()
	var rowsSent float64
	for row := range res.Timeline.All() {
		rowsSent += row.SentMsgsPerSec
	}
	if res.Counts != sum || int64(rowsSent) != sent || res.Latency.Publish != merged.Publish.Percentiles() || len(res.Groups) != len(merged.Groups) {
		t.Errorf("assembled result: counts %+v (want %+v), timeline sent %v (want %d), latency %+v", res.Counts, sum, rowsSent, sent, res.Latency.Publish)
	}
}

// checkWorkerProcesses: a Result assembled from n workers' reports records each worker's
// process with this process's cores and, where /proc can be read, its CPU over the window.
func checkWorkerProcesses(t *testing.T, ws []loadgen.WorkerProcess, n int) {
	t.Helper()
	if len(ws) != n {
		t.Fatalf("the result records %d workers' processes, want %d", len(ws), n)
	}
	_, err := os.Stat("/proc/self/stat")
	for i, w := range ws {
		if w.Worker != i || w.GOMAXPROCS != runtime.GOMAXPROCS(0) || w.NumCPU != runtime.NumCPU() {
			t.Errorf("worker %d's process %+v, want its index and this process's cores", i, w)
		}
		if err == nil && (w.CPU == nil || *w.CPU <= 0) {
			t.Errorf("worker %d's process: CPU %v over the window, want a measured figure", i, w.CPU)
		}
	}
}
