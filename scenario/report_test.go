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
// package's GoldenRuns), as text against its golden file and as a self-contained page whose
// charts' captions say what their grey and dashed lines are.
func TestReportGolden(t *testing.T) {
	for _, tc := range []struct {
		name    string
		charts  int
		caption string
	}{
		{"consumer-fanout", 2, "prediction in grey"}, {"consumer-fanout-limit", 1, "prediction in grey"},
		{"partitions-throughput", 4, "figure dashed in purple"}, {"partition-creation", 2, "Measured series solid"},
		{"reassignment", 1, "figure dashed in purple"}, {"max-partitions", 1, "limits as grey lines"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res, paths := scenario.GoldenRuns[tc.name](t)
			checkReport(t, tc.name, &res, tc.charts, paths)
			var page bytes.Buffer
			if err := report.WriteScenarioHTML(&page, &res); err != nil || !strings.Contains(page.String(), tc.caption) {
				t.Errorf("%s's page (%v) lacks the caption %q", tc.name, err, tc.caption)
			}
		})
	}
	if len(scenario.GoldenRuns) != 6 {
		t.Errorf("%d golden runs, want the 6 above", len(scenario.GoldenRuns))
	}
}
