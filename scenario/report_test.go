package scenario_test

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"

	goldenfile "github.com/plimsoll/plimsoll/internal/golden"
	"github.com/plimsoll/plimsoll/internal/offline"
	"github.com/plimsoll/plimsoll/report"
	"github.com/plimsoll/plimsoll/results"
	"github.com/plimsoll/plimsoll/scenario"
)

// checkReport renders a scenario's record as the report does: its text, with paths replaced,
// against testdata/NAME.txt (-update rewrites it), and its page, which must load nothing from
// outside itself and draw charts charts.
func checkReport(t *testing.T, name string, res *results.Scenario, charts int, paths *strings.Replacer) {
	t.Helper()
	var text, page bytes.Buffer
	if err := report.ScenarioText(&text, res); err != nil {
		t.Fatal(err)
	}
	goldenfile.Check(t, filepath.Join("testdata", name+".txt"), []byte(paths.Replace(text.String())))
	if err := report.WriteScenarioHTML(&page, res); err != nil {
		t.Fatal(err)
	}
	if bad := offline.ExternalRefs(page.String()); len(bad) > 0 {
		t.Errorf("%s's page reaches outside itself: %q", name, bad)
	}
	if n := strings.Count(page.String(), "<svg"); n != charts || len(res.Charts) != charts {
		t.Errorf("%s's page draws %d charts of the record's %d, want %d", name, n, len(res.Charts), charts)
	}
}

// TestReportGolden: the report of each scenario whose runs the package's own tests make (the
// package's GoldenRuns), as text against its golden file and as a self-contained page.
func TestReportGolden(t *testing.T) {
	for _, tc := range []struct {
		name   string
		charts int
	}{
		{"consumer-fanout", 2}, {"consumer-fanout-limit", 1}, {"partitions-throughput", 4},
		{"partition-creation", 2}, {"reassignment", 1}, {"max-partitions", 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res, paths := scenario.GoldenRuns[tc.name](t)
			checkReport(t, tc.name, &res, tc.charts, paths)
		})
	}
	if len(scenario.GoldenRuns) != 6 {
		t.Errorf("%d golden runs, want the 6 above", len(scenario.GoldenRuns))
	}
}
