//go:build integration

package main

import (
	"fmt"
	"math"
	"path/filepath"
	"strings"
	"testing"

	"github.com/plimsoll/plimsoll/results"
)

// TestScenarioPartitionsThroughput runs partitions-throughput's short mode on the shared cluster:
// one run as fast as 4 producers go (lz4, 64 KiB batches, linger 5 ms, no consumers) per 1 and 8
// leader partitions per broker (3 and 24 partitions at rf 2). Each chart has its points, every
// point a rate and a p99, and the findings name where throughput peaked and how it moved with
// leader partitions per broker: up, as 000 found, where the brokers set the rates. Three runs on
// this 2-core host measured the rate at 8 over the rate at 1 leader partitions per broker at
// 1.19 and 1.46 with the short mode's sizes, 1.97 with 256 KiB buffers and 32 KiB batches; six
// more pairs, all on a host 98-100% busy, 0.77-1.06 (and CI one at 0.93, judged ok and
// overloaded): there the shared CPU, not the brokers' appends, set both rates.
func TestScenarioPartitionsThroughput(t *testing.T) {
	up(t)
	res, out := scenloadExecute(t, "partitions-throughput", clusterDir)
	perBroker := scenloadSeries(t, res, "Sustained rate against leader partitions per broker", 0)
	p99 := scenloadSeries(t, res, "p99 publish latency against leader partitions per broker", 0)
	total := scenloadSeries(t, res, "Sustained rate against total partitions", 0)
	if len(perBroker) != 2 || len(p99) != 2 || len(total) != 2 || perBroker[0].X != 1 || perBroker[1].X != 8 || total[1].X != 24 {
		t.Fatalf("points %+v, %+v, %+v: want 1 and 8 leader partitions per broker, 3 and 24 in all", perBroker, p99, total)
	}
	saturated := false
	for i := range perBroker {
		trial, err := results.LoadTrialDir(filepath.Join(out, fmt.Sprintf("partitions-%.0f", total[i].X)))
		if err != nil {
			t.Fatal(err)
		}
		busy, _ := trial.USE.HostCPU()
		saturated = saturated || trial.HostSaturated()
		t.Logf("%g leader partitions per broker: %.0f msgs/s per broker, p99 %.1f ms %s, host %.0f%% busy", perBroker[i].X, perBroker[i].Y, p99[i].Y, perBroker[i].Note, busy.Utilisation.Mean)
		if perBroker[i].Y <= 0 || p99[i].Y <= 0 || math.Abs(total[i].Y-perBroker[i].Y*3) > 0.01 {
			t.Errorf("point %d: rate %.0f per broker (%.0f in all), p99 %.1f ms: want both measured", i, perBroker[i].Y, total[i].Y, p99[i].Y)
		}
	}
	names := map[string]bool{}
	for _, f := range res.Findings {
		names[f.Name] = true
	}
	if !names["throughput peaks at"] || !names["rate at 8 / at 1 leader partitions per broker"] {
		t.Errorf("findings %v: want where throughput peaks and the rate's move with leader partitions per broker", names)
	}
	// The rise is the brokers' (000's per-partition append serialisation): it can be asked of runs
	// the cluster bound. On a quiet clean clone both runs went as fast as the generator could
	// (35,333 and 31,019 msgs/s, judged invalid: the client host's CPU bound) and 8 leader
	// partitions per broker carried 0.88 of 1's; there, and wherever the shared host's CPU was
	// saturated, the finding must say the ratio is not the brokers'.
	if perBroker[0].Note == "invalid" || perBroker[1].Note == "invalid" || saturated {
		if f := findingNamed(res, "rate at 8 / at 1 leader partitions per broker"); f == nil || !strings.Contains(f.Text, "says nothing of the brokers'") {
			t.Errorf("a run judged invalid or on a saturated host (%v), and the finding %+v does not say the ratio is not the brokers'", saturated, f)
		}
		return
	}
	if perBroker[1].Y <= perBroker[0].Y {
		t.Errorf("%.0f msgs/s per broker with 8 leader partitions per broker, %.0f with 1: want it to rise, as 000 found", perBroker[1].Y, perBroker[0].Y)
	}
}

// findingNamed is the record's finding called name, or nil.
func findingNamed(res results.Scenario, name string) *results.Finding {
	for i := range res.Findings {
		if res.Findings[i].Name == name {
			return &res.Findings[i]
		}
	}
	return nil
}
