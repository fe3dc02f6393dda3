package report

import (
	"bytes"
	_ "embed"
	"fmt"
	"html/template"
	"io"
	"os"
	"path/filepath"
	"slices"

	"github.com/plimsoll/plimsoll/results"
)

//go:embed scenario.html.tmpl
var scenText string

// scenTmpl shares the limit report's style and figure templates.
var scenTmpl = template.Must(template.Must(pageTmpl.Clone()).New("scenario").Parse(scenText))

// scenPage is what the scenario template shows.
type scenPage struct {
	*scenView
	Headline string
	Charts   []chartView
	Notes    []string // the notes at chart points
}

// WriteScenarioHTML writes a scenario's record as one self-contained HTML page: what ran, the
// findings beside the model's and the article's, the charts, the sources with their hardware,
// the configuration, the commands run and the failures.
func WriteScenarioHTML(w io.Writer, s *results.Scenario) error {
	v := newScenView(s)
	pg := &scenPage{scenView: v, Headline: v.headline()}
	for _, c := range s.Charts {
		svgText, err := svg(scenarioChart(c), chartW, chartH, c.Title)
		if err != nil {
			return err
		}
		// gonum's SVG canvas escapes all text it draws, so the markup is safe to inline.
		pg.Charts = append(pg.Charts, chartView{SVG: template.HTML(svgText), Caption: chartCaption(c)})
		for _, se := range c.Series {
			for _, pt := range se.Points {
				if pt.Note != "" {
					pg.Notes = append(pg.Notes, fmt.Sprintf("%s, %s at %s: %s", c.Title, se.Name, ScenarioValue(pt.X, ""), pt.Note))
				}
			}
		}
	}
	return renderPage(w, scenTmpl, pg)
}

// chartCaption says what the lines of a chart are.
func chartCaption(c results.Chart) string {
	s := "Measured series solid with their points"
	for _, k := range []struct{ kind, says string }{
		{results.SeriesModel, "; the model's prediction in grey"},
		{results.SeriesLimit, "; the host's limits as grey lines"},
		{results.SeriesArticle, "; the article's figure dashed in purple (its hardware differs: see the sources)"},
	} {
		if slices.ContainsFunc(c.Series, func(se results.Series) bool { return se.Kind == k.kind }) {
			s += k.says
		}
	}
	if c.LogX || c.LogY {
		s += "; log scale"
	}
	return s + "."
}

// WriteScenarioDir writes a scenario's page into dir as index.html, through a temporary file.
func WriteScenarioDir(dir string, s *results.Scenario) error {
	var b bytes.Buffer
	if err := WriteScenarioHTML(&b, s); err != nil {
		return err
	}
	return writeFile(filepath.Join(dir, htmlFile), b.Bytes())
}

// ScenarioDir reports whether dir holds a scenario's record (results.jsonl of
// plimsoll scenario run), without reading it whole.
func ScenarioDir(dir string) bool {
	_, err := os.Stat(filepath.Join(dir, results.ScenarioFile))
	if err != nil {
		return false
	}
	_, lerr := results.LoadScenario(dir)
	return lerr == nil
}
