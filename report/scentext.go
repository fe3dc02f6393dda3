package report

import (
	"bufio"
	"fmt"
	"io"
	"strings"

	"github.com/plimsoll/plimsoll/results"
)

// ScenarioText writes a scenario's record for a terminal: what ran, the findings (ours, the
// model's and the article's side by side), each chart's series as numbers, the sources with
// their hardware, the parameters and configuration, the commands it ran and what failed.
func ScenarioText(w io.Writer, s *results.Scenario) error {
	v := newScenView(s)
	tp := &textWriter{}
	tp.b.WriteString(v.Title + "\n")
	tp.para("", v.headline())
	tp.scenFindings(v)
	tp.scenCharts(s.Charts)
	tp.scenSources(v.Sources)
	tp.kvs("Parameters", v.Params)
	tp.kvs("Configuration", v.Config)
	tp.scenCommands(v.Commands)
	if len(v.Failures) > 0 {
		tp.heading("Failures")
		for _, f := range v.Failures {
			tp.para("- ", f)
		}
	}
	bw := bufio.NewWriter(w)
	bw.WriteString(tp.b.String())
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("report: writing text: %w", err)
	}
	return nil
}

func (tp *textWriter) scenFindings(v *scenView) {
	tp.heading("Findings")
	if len(v.Findings) == 0 {
		tp.b.WriteString("Nothing was measured.\n")
		return
	}
	t := &textTable{}
	t.head("finding", "ours>")
	if v.HasModel {
		t.head("model>", "ours/model>")
	}
	if v.HasArticle {
		t.head("article>", "")
	}
	for _, r := range v.Findings {
		cells := []string{r.Name, r.Ours}
		if v.HasModel {
			cells = append(cells, r.Model, r.Ratio)
		}
		if v.HasArticle {
			cells = append(cells, r.Article, r.Note)
		}
		t.row(cells...)
	}
	t.write(&tp.b)
	for _, n := range v.Footnotes {
		tp.para("", n)
	}
	for _, r := range v.Findings {
		if r.Text != "" {
			tp.para("- ", r.Name+": "+r.Text)
		}
	}
}

// scenCharts writes each chart's series as their points, x then y.
func (tp *textWriter) scenCharts(charts []results.Chart) {
	for _, c := range charts {
		tp.heading(fmt.Sprintf("Chart: %s (%s against %s)", c.Title, c.Y, c.X))
		for _, s := range c.Series {
			var pts []string
			for _, p := range s.Points {
				pt := xName(c, p.X) + ": " + count(p.Y)
				if p.Note != "" {
					pt += " (" + p.Note + ")"
				}
				pts = append(pts, pt)
			}
			tp.para("  ", seriesLabel(s)+": "+strings.Join(pts, ", "))
		}
	}
}

// xName is a point's x as the text shows it: its category's name, or the number.
func xName(c results.Chart, x float64) string {
	if i := int(x); float64(i) == x && i >= 0 && i < len(c.XNames) {
		return c.XNames[i]
	}
	return count(x)
}

// seriesLabel names a series with its kind, and an article's with its source.
func seriesLabel(s results.Series) string {
	switch {
	case s.Kind == results.SeriesArticle && s.Source != "":
		return s.Name + " (article: " + s.Source + ")"
	case s.Kind != "" && s.Kind != results.SeriesMeasured && !strings.Contains(s.Name, s.Kind):
		return s.Name + " (" + s.Kind + ")"
	}
	return s.Name
}

func (tp *textWriter) scenSources(srcs []results.Source) {
	if len(srcs) == 0 {
		return
	}
	tp.heading("Sources")
	for _, s := range srcs {
		tp.para("- ", fmt.Sprintf("%s: %s. Hardware: %s", s.Seed, s.Title, s.Hardware))
	}
}

func (tp *textWriter) scenCommands(cmds []commandRow) {
	if len(cmds) == 0 {
		return
	}
	tp.heading("Commands run")
	t := &textTable{}
	t.head("exit>", "command")
	for _, c := range cmds {
		t.row(c.Exit, c.Line)
	}
	t.write(&tp.b)
}
