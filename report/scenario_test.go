package report

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/plimsoll/plimsoll/results"
	"github.com/plimsoll/plimsoll/scenario"
)

func ptr(v float64) *float64 { return &v }

// handScenario is a scenario's record made by hand: three charts (one on log axes, with a note
// at a point; one of categories; one linear with the model's line and an article's series), findings beside the
// model's and the article's, a failure, the commands run and a source.
func handScenario() *results.Scenario {
	at := time.Date(2026, 11, 26, 8, 0, 0, 0, time.UTC)
	return &results.Scenario{
		Name: "demo", Title: "A demonstration scenario", Mode: "short", Started: at, Finished: at.Add(95 * time.Second),
		Params:   map[string]string{"sizes": "100,108", "repeat": "2"},
		Config:   map[string]string{"kafka": "4.1.0", "nic": "16 Mbit/s"},
		Commands: []results.ScenarioCommand{{Args: []string{"limit", "--message-sizes", "100,108", "--out", "/out/limit-1"}, Dir: "limit-1", Exit: 0}, {Args: []string{"model", "--json"}, Exit: 2}},
		Charts: []results.Chart{
			{Title: "Creation time against partitions", X: "partitions", Y: "seconds per 1,000", LogX: true, LogY: true, Series: []results.Series{
				{Name: "KRaft", Kind: results.SeriesMeasured, Points: []results.Point{{X: 1000, Y: 2.5}, {X: 2000, Y: 3.1}, {X: 4000, Y: 9, Note: "timed out"}, {X: 0, Y: 1}}},
				{Name: "ZooKeeper", Kind: results.SeriesMeasured, Points: []results.Point{{X: 1000, Y: 5}, {X: 2000, Y: 8.5}}},
			}},
			{Title: "CPU per message by listener", X: "listener", Y: "µs", XNames: []string{"PLAINTEXT", "SSL"}, Series: []results.Series{
				{Name: "all brokers", Kind: results.SeriesMeasured, Points: []results.Point{{X: 0, Y: 603}, {X: 1, Y: 617}}},
			}},
			{Title: "Sustained rate against message size", X: "bytes per message", Y: "msgs/s", Series: []results.Series{
				{Name: "measured", Kind: results.SeriesMeasured, Points: []results.Point{{X: 100, Y: 17339}, {X: 108, Y: 16357}}},
				{Name: "model", Kind: results.SeriesModel, Points: []results.Point{{X: 100, Y: 18200}, {X: 108, Y: 17000}}},
				{Name: "Heroku", Kind: results.SeriesArticle, Source: "001, the 8-byte case", Points: []results.Point{{X: 100, Y: 15000}, {X: 108, Y: 14000}}},
			}},
		},
		Findings: []results.Finding{
			{Name: "100 B boundary", Value: 17339, Unit: "msgs/s", Model: ptr(18200), Text: "where the links bind"},
			{Name: "108/100 rate ratio", Value: 0.9433, Unit: "ratio", Model: ptr(0.9322), Article: ptr(0.93), ArticleNote: "001: m4-class brokers, 1 Gbit/s"},
			{Name: "creation of 1,000 partitions", Value: 2.5, Unit: "s"},
			{Name: "network in", Value: 1.9e6, Unit: "B/s"},
		},
		Failures: []string{"increment 4000: timed out after 30 s"},
		Sources:  []results.Source{{Seed: "001", Title: "Heroku: 8 bytes per record", Hardware: "AWS m4.2xlarge brokers"}},
	}
}

func TestScenarioGolden(t *testing.T) {
	var html, text bytes.Buffer
	if err := WriteScenarioHTML(&html, handScenario()); err != nil {
		t.Fatal(err)
	}
	if err := ScenarioText(&text, handScenario()); err != nil {
		t.Fatal(err)
	}
	golden(t, "scenario.html", html.Bytes())
	golden(t, "scenario.txt", text.Bytes())
	if bad := externalRefs(html.String()); len(bad) > 0 {
		t.Errorf("the scenario page reaches outside itself: %v", bad)
	}
	page := html.String()
	for _, want := range []string{"001, the 8-byte case", "stroke-dasharray", "timed out", "AWS m4.2xlarge brokers", "17,339 msgs/s", "0.9322"} {
		if !strings.Contains(page, want) {
			t.Errorf("the page lacks %q", want)
		}
	}
	if n := strings.Count(page, "<svg"); n != 3 {
		t.Errorf("%d charts on the page, want 3", n)
	}
}

func TestScenarioNothingMeasured(t *testing.T) {
	var text bytes.Buffer
	if err := ScenarioText(&text, &results.Scenario{Name: "empty", Mode: "full", Interrupted: true}); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"Nothing was measured", "interrupted"} {
		if !strings.Contains(text.String(), want) {
			t.Errorf("text lacks %q:\n%s", want, text.String())
		}
	}
	var html bytes.Buffer
	if err := WriteScenarioHTML(&html, &results.Scenario{Name: "empty"}); err != nil {
		t.Fatal(err)
	}
}

func TestScenarioDir(t *testing.T) {
	dir := t.TempDir()
	if ScenarioDir(dir) {
		t.Fatal("an empty directory taken for a scenario's")
	}
	s := handScenario()
	if err := results.Append(filepath.Join(dir, results.ScenarioFile), results.KindScenario, s.Name, s); err != nil {
		t.Fatal(err)
	}
	if !ScenarioDir(dir) {
		t.Fatal("a scenario's directory not recognised")
	}
	if err := WriteScenarioDir(dir, s); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, htmlFile)); err != nil {
		t.Fatal(err)
	}
}

func TestScenarioValue(t *testing.T) {
	for _, tc := range []struct {
		v    float64
		unit string
		want string
	}{
		{17339.4, "msgs/s", "17,339 msgs/s"}, {0.93217, "ratio", "0.9322"}, {2.5, "s", "2.5 s"}, {12.34, "ms", "12.3 ms"},
		{10000, "partitions", "10,000 partitions"}, {5, "count", "5"}, {1, "yes/no", "yes"}, {0, "yes/no", "no"}, {95.25, "%", "95.3%"}, {1.9e6, "B/s", "1.90 MB/s"},
		{1.234, "cores", "1.23 cores"}, {7, "", "7"},
	} {
		if got := ScenarioValue(tc.v, tc.unit); got != tc.want {
			t.Errorf("ScenarioValue(%v, %q) = %q, want %q", tc.v, tc.unit, got, tc.want)
		}
	}
}

func TestScenarioList(t *testing.T) {
	all := []scenario.Scenario{{Name: "demo", Title: "A demonstration", Doc: "It demonstrates.",
		Sources: []results.Source{{Seed: "001", Title: "Heroku", Hardware: "m4"}},
		Params:  []scenario.Param{{Name: "sizes", Short: "100,108", Full: "100,108", Doc: "message sizes"}}}}
	var text, js bytes.Buffer
	if err := ScenarioList(&text, all); err != nil {
		t.Fatal(err)
	}
	if err := ScenarioListJSON(&js, all); err != nil {
		t.Fatal(err)
	}
	golden(t, "scenario-list.txt", text.Bytes())
	golden(t, "scenario-list.json", js.Bytes())
}
