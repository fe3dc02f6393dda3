//go:build integration

package main

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/plimsoll/plimsoll/results"
)

// scenloadExecute runs a scenario's short mode through the command line (runScenario) and fails
// the test on any failure it recorded.
func scenloadExecute(t *testing.T, name, dir string) (results.Scenario, string) {
	t.Helper()
	res, out := runScenario(t, name, dir, nil)
	for _, f := range res.Failures {
		t.Errorf("failure recorded: %s", f)
	}
	return res, out
}

// scenloadSeries is the points of the named series of the chart whose title starts with title.
func scenloadSeries(t *testing.T, res results.Scenario, title string, series int) []results.Point {
	t.Helper()
	for _, c := range res.Charts {
		if len(c.Title) >= len(title) && c.Title[:len(title)] == title && series < len(c.Series) {
			return c.Series[series].Points
		}
	}
	t.Fatalf("no chart %q with a series %d in %+v", title, series, res.Charts)
	return nil
}

// consumerFanoutCheck runs consumer-fanout's short mode on TestNICVerdicts' cluster (3 brokers
// behind 16 Mbit/s links): one run per 0, 2 and 4 consumer groups at 1.3 times the model's
// boundary. The rate the cluster carried falls as groups are added (network out binds from 2 on
// this shape), stays within the band measured below the model's line, and the busiest link is
// its inbound one without groups and its outbound one with 4. The run without groups, well above
// the links' capacity, is overloaded by the network with its traffic crossing the shaped links
// (linksCarryTheLoad).
func consumerFanoutCheck(t *testing.T, dir string) {
	res, outDir := scenloadExecute(t, "consumer-fanout", dir)
	none := filepath.Join(outDir, "groups-0")
	if state, bottleneck, _, why := verdictOf(t, none); state != "overloaded" || !strings.Contains(bottleneck, "network") {
		t.Errorf("0 groups at 1.3 times the model: verdict %s, bottleneck %q, want overloaded by the network\n%s", state, bottleneck, why)
	}
	linksCarryTheLoad(t, useOf(t, none))
	measured := scenloadSeries(t, res, "Sustainable rate", 0)
	line := scenloadSeries(t, res, "Sustainable rate", 1)
	if len(measured) != 3 {
		t.Fatalf("measured %+v: want 0, 2 and 4 groups", measured)
	}
	for i, pt := range measured {
		ratio := pt.Y / line[int(pt.X)].Y
		t.Logf("%g groups: carried %.0f msgs/s, model %.0f (%.3f of it), bottleneck %q", pt.X, pt.Y, line[int(pt.X)].Y, ratio, pt.Note)
		if ratio < fanoutBelow || ratio > fanoutAbove {
			t.Errorf("%g groups: %.0f msgs/s is %.3f of the model's %.0f, want %.2f to %.2f", pt.X, pt.Y, ratio, line[int(pt.X)].Y, fanoutBelow, fanoutAbove)
		}
		if i > 0 && pt.Y >= measured[i-1].Y {
			t.Errorf("%g groups carried %.0f msgs/s, %g carried %.0f: want it to fall as groups are added", pt.X, pt.Y, measured[i-1].X, measured[i-1].Y)
		}
	}
	in := scenloadSeries(t, res, "The busiest broker's link", 0)
	out := scenloadSeries(t, res, "The busiest broker's link", 1)
	t.Logf("busiest link in %v, out %v", in, out)
	if len(in) != 3 || in[0].Y <= out[0].Y || out[2].Y <= in[2].Y {
		t.Errorf("links in %+v, out %+v: want network in the busier without groups, network out with 4", in, out)
	}
	// Runs put the busiest link at 80-83% out and 59-62% in with 2 groups, 86-94% in and 59-67%
	// out without: out binds from 2 on, as the model has it.
	binds := "none"
	for _, f := range res.Findings {
		if f.Name == "network out binds from" && f.Model != nil {
			binds = fmt.Sprintf("%g, the model %g", f.Value, *f.Model)
		}
	}
	if binds != "2, the model 2" {
		t.Errorf("network out binds from: %s; want 2 groups, as the model says", binds)
	}
}

// The band of the carried rate around the model's line (MaxUtilization 1, no link framing).
// Measured on this 2-core host, 3 brokers behind 16 Mbit/s links, 1,000 B at 1.3 x the model,
// at 0, 2 and 4 groups: 0.834, 0.737, 0.763 (6 s windows), then with this test's 5 s windows
// 0.863, 0.671, 0.831; 0.938, 0.733, 0.717; 0.868, 0.683, 0.629; so 0.63-0.94 over 12 points,
// lowest on the busiest host: the links' framing (about 0.12 per record byte at 1 KB) and TCP
// sharing an overfull link take the rest. The floor leaves 0.08 below the lowest seen; the model
// with no framing is the links' whole rate, which nothing carried can exceed.
const (
	fanoutBelow = 0.55
	fanoutAbove = 1.0
)
