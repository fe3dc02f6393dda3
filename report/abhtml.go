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
	"strings"

	"github.com/plimsoll/plimsoll/compare"
	"github.com/plimsoll/plimsoll/results"
	"github.com/plimsoll/plimsoll/units"
	"gonum.org/v1/plot"
)

//go:embed ab.html.tmpl
var abText string

// abTmpl shares the limit report's style and figure templates.
var abTmpl = template.Must(template.Must(pageTmpl.Clone()).New("ab").Parse(abText))

// abPage is what the A/B template shows, every figure already formatted.
type abPage struct {
	Title, Dir, Command string
	Headline, Class     string // the verdict, and its colour
	Others              []string
	NoiseCheck          bool
	Header              []kv
	Notes, Differences  []string
	CILevel             string
	Alpha, Threshold    string
	Rows                []abRow
	ClientBound         bool
	Cause               []string
	Charts              []chartView
}

// abRow is one figure of the statistics table, as the text of plimsoll compare has it.
type abRow struct {
	Figure, A, B, Change, P, Verdict, Class string
}

// WriteABHTML writes the report of an A/B experiment as one self-contained HTML page: the
// experiment, the statistics table, the cause and the paired charts.
func WriteABHTML(w io.Writer, r *ABResults) error {
	pg, err := newABPage(r)
	if err != nil {
		return err
	}
	return renderPage(w, abTmpl, pg)
}

// WriteABDir writes the report of the A/B experiment r into r.Dir as index.html, through a
// temporary file.
func WriteABDir(r *ABResults) error {
	var b bytes.Buffer
	if err := WriteABHTML(&b, r); err != nil {
		return err
	}
	if err := os.MkdirAll(r.Dir, 0o755); err != nil {
		return fmt.Errorf("report: %w", err)
	}
	return writeFile(filepath.Join(r.Dir, htmlFile), b.Bytes())
}

// newABPage formats r for the template and draws its charts.
func newABPage(r *ABResults) (*abPage, error) {
	c, m := r.Comparison, r.Manifest
	lines := strings.Split(compareSummary(c), "\n")
	pg := &abPage{Title: "plimsoll A/B: " + armName(m.ASpec) + " vs " + armName(m.BSpec), Dir: r.Dir, Command: m.Command,
		Headline: lines[0], Others: lines[1:], Class: verdictClass(c.Verdict), NoiseCheck: m.NoiseCheck,
		Header: abHeader(r), CILevel: units.Percent(1 - c.Alpha), Alpha: units.Short(c.Alpha),
		Threshold: units.Percent(c.Threshold), Cause: causeLines(c)}
	for _, n := range c.Notes {
		pg.Notes = append(pg.Notes, noteLine(n))
	}
	for _, d := range c.Differences {
		pg.Differences = append(pg.Differences, fmt.Sprintf("%s: %s: %s vs %s", d.Where, d.Setting, orUnset(d.A), orUnset(d.B)))
	}
	for _, f := range c.Figures {
		pg.Rows = append(pg.Rows, abRow{Figure: figureLabel(f), A: figureValue(f, f.A), B: figureValue(f, f.B),
			Change: changeCell(f), P: pCell(f), Verdict: string(f.Verdict), Class: verdictClass(f.Verdict)})
	}
	pg.ClientBound = slices.ContainsFunc(c.Figures, func(f compare.Figure) bool { return f.ClientBound })
	charts, err := abCharts(r)
	pg.Charts = charts
	return pg, err
}

// armName is an arm's spec for a title: "defaults" when empty.
func armName(spec string) string {
	if strings.TrimSpace(spec) == "" {
		return "defaults"
	}
	return spec
}

// verdictClass is the CSS class of a verdict word.
func verdictClass(w compare.Word) string {
	if w == compare.Same {
		return "same"
	}
	return string(w)
}

// abHeader is the experiment's table: the arms, how and in what order they ran, where the
// results are; what ABHeader writes as text.
func abHeader(r *ABResults) []kv {
	m := r.Manifest
	mode := "plimsoll " + m.Mode
	if m.Mode == "limit" {
		mode += " (a limit search)"
	}
	where := "a fresh local cluster per arm and repetition"
	if m.Remote {
		where = "the cluster given by --bootstrap (client-side arms only)"
	}
	var order []string
	for _, st := range m.Order {
		s := st.Dir
		if st.Error != "" {
			s += " (" + st.Error + ")"
		}
		order = append(order, s)
	}
	return []kv{{Key: "arm A", Value: armName(m.ASpec)}, {Key: "arm B", Value: armName(m.BSpec)},
		{Key: "each repetition", Value: mode}, {Key: "ran on", Value: where},
		{Key: "repetitions", Value: fmt.Sprintf("A %d, B %d", r.A.Reps(), r.B.Reps())},
		{Key: "order", Value: strings.Join(order, " ")}, {Key: "results in", Value: r.Dir}}
}

// abCharts draws the paired charts: for runs the per-second produced rates and the latency
// distributions, for limit searches the boundaries.
func abCharts(r *ABResults) ([]chartView, error) {
	type chart struct {
		label, caption string
		plot           *plot.Plot
	}
	var charts []chart
	add := func(label, caption string, p *plot.Plot) {
		if p != nil { // nil: nothing to draw
			charts = append(charts, chart{label, caption, p})
		}
	}
	if r.A.Kind == compare.KindSearch {
		add("boundary A vs B", "Each search's safe rate per message size (the SLO limit's when the search had a latency objective, else the ceiling's): arm A in blue, arm B in purple, one line per repetition.",
			boundaryABChart([2][]*results.SearchFile{r.A.Searches, r.B.Searches}))
	} else {
		runs := [2][]*results.Trial{r.A.Runs, r.B.Runs}
		add("produced rate per second", "The rate the producers had acknowledged in each second of the measured window, one line per repetition: arm A in blue, arm B in purple.",
			rateSeriesChart(runs))
		add("latency distribution", "Latency against percentile, from each arm's HDR histograms merged over its repetitions (percentiles are never averaged), counted from each message's intended send time: publish solid, end-to-end dashed.",
			latencyDistChart(runs))
	}
	var out []chartView
	for _, c := range charts {
		s, err := svg(c.plot, chartW, chartH, c.label)
		if err != nil {
			return nil, err
		}
		// gonum's SVG canvas escapes all text it draws, so the markup is safe to inline.
		out = append(out, chartView{SVG: template.HTML(s), Caption: c.caption})
	}
	return out, nil
}

// ABText writes the A/B experiment as the driver printed it: its header, the comparison and,
// for an A/A check, the noise floor.
func ABText(w io.Writer, r *ABResults) error {
	m := r.Manifest
	var order []string
	for _, st := range m.Order {
		order = append(order, st.Dir)
	}
	ABHeader(w, ABExperiment{A: armName(m.ASpec), B: armName(m.BSpec), NoiseCheck: m.NoiseCheck, Remote: m.Remote,
		Mode: m.Mode, Order: order, Out: r.Dir})
	if err := Compare(w, r.Comparison); err != nil || !m.NoiseCheck {
		return err
	}
	return NoiseFloor(w, r.Comparison)
}
