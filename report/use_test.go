package report

import (
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/plimsoll/plimsoll/probe"
	"github.com/plimsoll/plimsoll/use"
)

// useGolden compares got with testdata/name; -update (the package's flag) rewrites it.
func useGolden(t *testing.T, name string, got string) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if f := flag.Lookup("update"); f != nil && f.Value.String() == "true" {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if got != string(want) {
		t.Errorf("%s differs from the golden file (go test -update rewrites it)\n--- got ---\n%s\n--- want ---\n%s", name, got, want)
	}
}

// TestUSEText renders the USE tables of the series the probe recorded on a real local cluster
// (package use's golden tables).
func TestUSEText(t *testing.T) {
	for _, name := range []string{"series-traffic", "series-pause"} {
		t.Run(name, func(t *testing.T) {
			b, err := os.ReadFile(filepath.Join("..", "use", "testdata", name+".use.json"))
			if err != nil {
				t.Fatal(err)
			}
			var tb use.Table
			if err := json.Unmarshal(b, &tb); err != nil {
				t.Fatal(err)
			}
			useGolden(t, "use-"+name+".txt", USEText(tb))
		})
	}
}

func TestCellText(t *testing.T) {
	cell := func(mean, mx float64, unit string) use.Cell {
		return use.Cell{Mean: probe.Num(mean), Max: probe.Num(mx), Unit: unit, Samples: 3}
	}
	blank := func(why use.Reason) use.Cell { return use.Cell{Mean: probe.Missing, Max: probe.Missing, Missing: why} }
	for _, c := range []struct {
		in   use.Cell
		want string
	}{
		{cell(12.345, 97.5, use.UnitPct), "12.3 / 97.5 %"},
		{cell(1.5e6, 2.25e7, use.UnitBps), "1.50 / 22.5 MB/s"},
		{cell(2.3e8, 2.4e8, use.UnitBytes), "230 / 240 MB"},
		{cell(0, 0.004, use.UnitCount), "0 / 0.004"},
		{cell(0.81, 1.2, use.UnitCores), "0.81 / 1.20 cores"},
		{cell(535, 1400, use.UnitMs), "535 / 1400 ms"},
		{use.Cell{Mean: 59400, Max: 113500, Unit: use.UnitBytes, Samples: 3, Drain: 500000}, "59.4 / 114 KB, 119 / 227 ms at the link's rate"},
		{use.Cell{Mean: 4.37, Max: 10, Unit: use.UnitPerS, Samples: 3, Parts: []use.Cell{cell(4, 9, use.UnitPerS), cell(0.375, 1, use.UnitPerS)}}, "4.37 / 10.0 /s (4.00 + 0.38)"},
		{use.Cell{Mean: 1, Max: 1, Unit: use.UnitPerS, Samples: 3, Parts: []use.Cell{cell(1, 1, use.UnitPerS), blank(use.NoData)}}, "1.00 / 1.00 /s (1.00 + -)"},
		{blank(""), "-"},
		{blank(use.NoData), "-"},
		{blank(use.NoNICCapacity), "(capacity unknown (--nic))"},
		{blank(use.NoDiskCapacity), "(capacity unknown (--disk-write))"},
		{blank(use.NoMetricsEndpoint), "(no metrics endpoint)"},
		{blank(use.NotObservableRemotely), "(not observable remotely)"},
		{blank(use.LoopbackNoCapacity), "(loopback has no capacity)"},
		{blank(use.NoInterface), "(no interface)"},
		{blank(use.NoDisk), "(no disk)"},
		// Tables stored by an older plimsoll hold sentences: shown as before.
		{blank("no data"), "-"},
		{blank("capacity unknown (--nic)"), "(capacity unknown (--nic))"},
	} {
		if got := CellText(c.in); got != c.want {
			t.Errorf("CellText(%+v) = %q, want %q", c.in, got, c.want)
		}
	}
}
