package results

import (
	"testing"

	"github.com/plimsoll/plimsoll/probe"
	"github.com/plimsoll/plimsoll/use"
	"github.com/plimsoll/plimsoll/verdict"
)

// TestHostSaturated: a local trial whose host's CPU was at least its verdict's HostBusy busy
// (mean over the window) ran on a saturated host; a remote one, one below, one without the
// criterion or without the row did not.
func TestHostSaturated(t *testing.T) {
	at := func(busyPct float64) *use.Table {
		return &use.Table{Rows: []use.Row{
			{Entity: "broker 1", Resource: "cpu", Utilisation: use.Cell{Mean: 99, Unit: use.UnitPct, Samples: 4}},
			{Entity: "client host", Resource: "cpu", Utilisation: use.Cell{Mean: probe.Num(busyPct), Unit: use.UnitPct, Samples: 4}},
		}}
	}
	for _, c := range []struct {
		name  string
		local bool
		table *use.Table
		busy  float64
		want  bool
	}{
		{"local, 99% of 90%", true, at(99), 0.9, true},
		{"local, exactly 90%", true, at(90), 0.9, true},
		{"local, 89%", true, at(89), 0.9, false},
		{"remote", false, at(99), 0.9, false},
		{"criterion off", true, at(99), 0, false},
		{"no table", true, nil, 0.9, false},
		{"no host row", true, &use.Table{Rows: at(99).Rows[:1]}, 0.9, false},
		{"blank host row", true, &use.Table{Rows: []use.Row{{Entity: "client host", Resource: "cpu", Utilisation: use.Cell{Unit: use.UnitPct}}}}, 0.9, false},
	} {
		tr := Trial{Cluster: Cluster{Local: c.local}, USE: c.table, Verdict: verdict.Verdict{Criteria: verdict.Criteria{HostBusy: c.busy}}}
		if got := tr.HostSaturated(); got != c.want {
			t.Errorf("%s: %v, want %v", c.name, got, c.want)
		}
	}
}
