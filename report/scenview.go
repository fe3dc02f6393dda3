package report

import (
	"fmt"
	"sort"
	"strings"

	"github.com/plimsoll/plimsoll/results"
	"github.com/plimsoll/plimsoll/units"
)

// scenView is a scenario's record as the text and the page show it, every figure formatted.
type scenView struct {
	Title, Name, Mode, When, Took string
	Interrupted                   bool
	Findings                      []findingRow
	HasModel, HasArticle          bool
	Footnotes                     []string // the articles' notes, numbered as the findings cite them
	Sources                       []results.Source
	Params, Config                []kv
	Commands                      []commandRow
	Failures                      []string
}

// findingRow is one finding: ours, the model's and the article's, each with its unit.
type findingRow struct {
	Name, Ours, Model, Ratio, Article, Note, Text string
}

// commandRow is one plimsoll command the scenario ran.
type commandRow struct {
	Line, Dir, Exit string
}

// ScenarioValue formats a scenario's figure in its unit (results.Finding's units); an unknown
// unit is written after three significant digits.
func ScenarioValue(v float64, unit string) string {
	switch unit {
	case "msgs/s":
		return count(v) + " msgs/s"
	case "B/s":
		return units.FormatRate(v)
	case "s":
		return units.Short(v) + " s"
	case "ms":
		return units.Ms(v) + " ms"
	case "partitions":
		return count(v) + " partitions"
	case "count":
		return count(v)
	case "yes/no":
		if v != 0 {
			return "yes"
		}
		return "no"
	case "ratio":
		return units.Sig(v, 4)
	case "%":
		return units.Short(v) + "%"
	}
	return strings.TrimSpace(units.Short(v) + " " + unit)
}

// count is a count or a rate: to the unit from 100 up, else without trailing zeros.
func count(v float64) string {
	if v >= 100 {
		return units.Count(v)
	}
	return units.Short(v)
}

func newScenView(s *results.Scenario) *scenView {
	v := &scenView{Title: s.Title, Name: s.Name, Mode: s.Mode, When: when(s.Started), Interrupted: s.Interrupted,
		Sources: s.Sources, Params: sortedKV(s.Params), Config: sortedKV(s.Config), Failures: s.Failures}
	if v.Title == "" {
		v.Title = s.Name
	}
	if !s.Started.IsZero() && s.Finished.After(s.Started) {
		v.Took = units.Duration(s.Finished.Sub(s.Started))
	}
	for _, f := range s.Findings {
		v.Findings = append(v.Findings, v.finding(f))
	}
	for _, c := range s.Commands {
		v.Commands = append(v.Commands, commandRow{Line: "plimsoll " + strings.Join(c.Args, " "), Dir: c.Dir, Exit: fmt.Sprint(c.Exit)})
	}
	return v
}

// finding formats f, numbering its article's note as a footnote.
func (v *scenView) finding(f results.Finding) findingRow {
	r := findingRow{Name: f.Name, Ours: ScenarioValue(f.Value, f.Unit), Text: f.Text}
	if f.Model != nil {
		v.HasModel = true
		r.Model = ScenarioValue(*f.Model, f.Unit)
		if *f.Model != 0 {
			r.Ratio = units.Sig(f.Value / *f.Model, 3)
		}
	}
	if f.Article != nil {
		v.HasArticle = true
		r.Article = ScenarioValue(*f.Article, f.Unit)
		if f.ArticleNote != "" {
			r.Note = v.footnote(f.ArticleNote)
		}
	}
	return r
}

// footnote numbers an article's note, the same note once: "[n]".
func (v *scenView) footnote(note string) string {
	for i, f := range v.Footnotes {
		if strings.HasSuffix(f, "] "+note) {
			return fmt.Sprintf("[%d]", i+1)
		}
	}
	n := fmt.Sprintf("[%d]", len(v.Footnotes)+1)
	v.Footnotes = append(v.Footnotes, n+" "+note)
	return n
}

// sortedKV is a map's entries by key.
func sortedKV(m map[string]string) []kv {
	out := make([]kv, 0, len(m))
	for k, val := range m {
		out = append(out, kv{Key: k, Value: val})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Key < out[j].Key })
	return out
}

// headline says what ran, how and how it went.
func (v *scenView) headline() string {
	s := fmt.Sprintf("Scenario %s, %s mode, run at %s", v.Name, v.Mode, v.When)
	if v.Took != "" {
		s += ", took " + v.Took
	}
	switch {
	case v.Interrupted:
		s += "; interrupted before it finished: the figures cover what ran"
	case len(v.Failures) > 0:
		s += "; " + units.Plural(len(v.Failures), "step") + " failed (below)"
	}
	return s + "."
}
