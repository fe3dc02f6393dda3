package report

import (
	"encoding/json"
	"io"
	"strings"

	"github.com/plimsoll/plimsoll/results"
	"github.com/plimsoll/plimsoll/scenario"
)

// ScenarioList writes `plimsoll scenario list`: each scenario's name, title and what it does,
// the articles it repeats and its parameters with their short and full values.
func ScenarioList(w io.Writer, all []scenario.Scenario) error {
	tp := &textWriter{}
	for i, s := range all {
		if i > 0 {
			tp.b.WriteString("\n")
		}
		tp.b.WriteString(s.Name + ": " + s.Title + "\n")
		if s.Doc != "" {
			tp.para("  ", s.Doc)
		}
		for _, src := range s.Sources {
			tp.para("  repeats ", src.Seed+": "+src.Title+" ("+src.Hardware+")")
		}
		if len(s.Params) == 0 {
			continue
		}
		t := &textTable{}
		t.head("  parameter", "short", "full", "what it is")
		for _, p := range s.Params {
			t.row("  "+p.Name, p.Short, p.Full, p.Doc)
		}
		t.write(&tp.b)
	}
	if len(all) == 0 {
		tp.b.WriteString("No scenario is registered.\n")
	}
	_, err := io.WriteString(w, tp.b.String())
	return err
}

// ScenarioInfo is one scenario in `plimsoll scenario list --json`.
type ScenarioInfo struct {
	Name    string           `json:"name"`
	Title   string           `json:"title"`
	Doc     string           `json:"doc"`
	Sources []results.Source `json:"sources"`
	Params  []ScenarioParam  `json:"params"`
}

// ScenarioParam is one parameter with its value in each mode.
type ScenarioParam struct {
	Name  string `json:"name"`
	Short string `json:"short"`
	Full  string `json:"full"`
	Doc   string `json:"doc"`
}

// ScenarioListJSON writes the scenarios as one JSON object, {"scenarios": [ScenarioInfo...]}.
func ScenarioListJSON(w io.Writer, all []scenario.Scenario) error {
	out := make([]ScenarioInfo, 0, len(all))
	for _, s := range all {
		info := ScenarioInfo{Name: s.Name, Title: s.Title, Doc: strings.TrimSpace(s.Doc), Sources: s.Sources, Params: []ScenarioParam{}}
		if info.Sources == nil {
			info.Sources = []results.Source{}
		}
		for _, p := range s.Params {
			info.Params = append(info.Params, ScenarioParam(p))
		}
		out = append(out, info)
	}
	return writeJSON(w, struct {
		Scenarios []ScenarioInfo `json:"scenarios"`
	}{out})
}

// ScenarioJSON writes a scenario's record as `scenario run --json` prints it: the record as
// stored in results.jsonl, indented.
func ScenarioJSON(w io.Writer, s *results.Scenario) error { return writeJSON(w, s) }

func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}
