package report

import (
	"bytes"
	_ "embed"
	"fmt"
	"html/template"
	"image/color"
	"io"
	"slices"

	"github.com/plimsoll/plimsoll/limit"
	"github.com/plimsoll/plimsoll/loadgen"
	"github.com/plimsoll/plimsoll/results"
	"github.com/plimsoll/plimsoll/units"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
)

// Live is what the live page of a running limit search shows.
type Live struct {
	// Search is the results file as it stands: the trials and boundary points so far; nil
	// before the search has written its header.
	Search *results.SearchFile
	// Trial is the trial under way (or the last one, when Done); nil before the first.
	Trial *limit.Progress
	// Seconds are the running trial's seconds so far, from its load generator.
	Seconds []loadgen.Second
	// Total is a trial's expected length in seconds (warm-up and window), 0 if unknown.
	Total float64
}

//go:embed live.html.tmpl
var liveText string

// liveTmpl shares the report's style, figure and tables with the page the search ends with.
var liveTmpl = template.Must(template.Must(pageTmpl.Clone()).New("live").Parse(liveText))

// livePage is what the live template shows.
type livePage struct {
	*page
	Status      string
	RateChart   *chartView
	LatChart    *chartView
	SecondsSeen int // points of the rate chart, for scripts and tests
}

// WriteLivePage writes the whole live page: the report's style, the body of LiveBody and a few
// lines of inline script that fetch live.json (relative to the page) every second and put its
// html in place, and, once its done is true, replace the document with the report. It loads
// nothing else: no file, no network asset.
func WriteLivePage(w io.Writer, l Live) error {
	body, err := liveBody(l)
	if err != nil {
		return err
	}
	return renderPage(w, liveTmpl, struct {
		Title string
		Body  template.HTML
	}{"plimsoll limit (live)", body})
}

// WriteLiveBody writes the part of the live page that changes: the running trial's per-second
// rate and latency charts, the boundary so far (a size still being searched shows its brackets
// so far) and the trials table.
func WriteLiveBody(w io.Writer, l Live) error {
	body, err := liveBody(l)
	if err != nil {
		return err
	}
	_, err = io.WriteString(w, string(body))
	return err
}

func liveBody(l Live) (template.HTML, error) {
	lp, err := newLivePage(l)
	if err != nil {
		return "", err
	}
	var b bytes.Buffer
	if err := liveTmpl.ExecuteTemplate(&b, "live-body", lp); err != nil {
		return "", fmt.Errorf("report: rendering the live page: %w", err)
	}
	return template.HTML(b.String()), nil // the template escaped every value
}

func newLivePage(l Live) (*livePage, error) {
	sf := l.Search
	if sf == nil {
		sf = &results.SearchFile{}
	}
	if err := Validate(sf); err != nil {
		return nil, err
	}
	all, searching := withSearching(sf)
	v := newView(all)
	pg, err := newPage(v)
	if err != nil {
		return nil, err
	}
	for i, p := range v.Points {
		if searching[p.Size] {
			pg.Rows[i].Status, pg.Rows[i].Class = "searching", "searching"
		}
	}
	lp := &livePage{page: pg, Status: liveStatus(l), SecondsSeen: len(l.Seconds)}
	for _, c := range []struct {
		label, caption string
		plot           *plot.Plot
		to             **chartView
	}{
		{"this trial's rate", "Messages per second, each second of the running trial: the target (dashed), produced (acknowledged) and consumed.", rateChart(l.Seconds), &lp.RateChart},
		{"this trial's latency", "Publish and end-to-end latency of each second of the running trial, counted from each message's intended send time.", secondLatencyChart(l.Seconds), &lp.LatChart},
	} {
		if c.plot == nil {
			continue
		}
		s, err := svg(c.plot, chartW, chartH*0.8, c.label)
		if err != nil {
			return nil, err
		}
		*c.to = &chartView{SVG: template.HTML(s), Caption: c.caption}
	}
	return lp, nil
}

// liveStatus is the line above the charts: which trial runs, and how far it is.
func liveStatus(l Live) string {
	p := l.Trial
	if p == nil {
		return "Starting: no trial has begun yet."
	}
	s := fmt.Sprintf("Trial %d of about %d: %s messages at %s msgs/s (%s)", p.Trial, p.About, units.Size(p.Size), units.Count(p.Rate), p.Phase)
	switch {
	case p.Done && p.Result != nil:
		return s + ", finished: " + string(p.Result.Verdict.State) + "."
	case len(l.Seconds) > 0 && l.Total > 0:
		last := l.Seconds[len(l.Seconds)-1]
		return s + fmt.Sprintf(", %s, second %s of %s.", last.Phase, units.Trim(last.T), units.Trim(l.Total))
	}
	return s + ", starting."
}

// withSearching adds to a search's points one for each size that has trials but no boundary
// point yet: its brackets so far, drawn by limit's own rules (limit.SoFar), and the set of those
// sizes.
func withSearching(sf *results.SearchFile) (*results.SearchFile, map[int]bool) {
	out := *sf
	out.Points = slices.Clone(sf.Points)
	done := map[int]bool{}
	for _, p := range sf.Points {
		done[p.Size] = true
	}
	searching := map[int]bool{}
	for i := range sf.Trials {
		t := &sf.Trials[i]
		if t.Step == nil || done[t.Step.Size] || searching[t.Step.Size] {
			continue
		}
		searching[t.Step.Size] = true
		out.Points = append(out.Points, limit.SoFar(sf.Trials, t.Step.Size, sf.Header.SLO))
	}
	return &out, searching
}

// rateChart draws the running trial's target, produced and consumed messages/s per second.
func rateChart(secs []loadgen.Second) *plot.Plot {
	if len(secs) == 0 {
		return nil
	}
	p := newPlot()
	p.Title.Text = "This trial: messages/s, each second"
	p.X.Label.Text = "seconds since the producers started"
	p.Y.Label.Text = "messages/s"
	var ys []float64
	for _, s := range []struct {
		name   string
		get    func(loadgen.Second) float64
		col    color.Color
		dashed bool
	}{
		{"target", func(s loadgen.Second) float64 { return s.TargetMsgsPerSec }, colModel, true},
		{"produced", func(s loadgen.Second) float64 { return s.ProducedMsgsPerSec }, colSafe, false},
		{"consumed", func(s loadgen.Second) float64 { return s.ConsumedMsgsPerSec }, colCeiling, false},
	} {
		xy := make(plotter.XYs, len(secs))
		for i, sec := range secs {
			xy[i] = plotter.XY{X: sec.T, Y: s.get(sec)}
			ys = append(ys, xy[i].Y)
		}
		l := line(xy, s.col, 1.5, s.dashed)
		p.Add(l)
		p.Legend.Add(s.name, l)
	}
	setSecondsX(p, secs)
	setY(p, ys, false)
	p.Legend.Top = true
	return p
}

// secondLatencyChart draws the running trial's publish and end-to-end p50 and p99 per second, on
// a log axis when they spread over more than a decade.
func secondLatencyChart(secs []loadgen.Second) *plot.Plot {
	p := newPlot()
	p.Title.Text = "This trial: latency, each second"
	p.X.Label.Text = "seconds since the producers started"
	p.Y.Label.Text = "latency, ms"
	var ys []float64
	for i, k := range []struct {
		name string
		get  func(loadgen.Second) loadgen.SecondLatency
	}{
		{"publish", func(s loadgen.Second) loadgen.SecondLatency { return s.Publish }},
		{"end-to-end", func(s loadgen.Second) loadgen.SecondLatency { return s.EndToEnd }},
	} {
		for _, pc := range percentiles[:2] { // p50 and p99
			var xy plotter.XYs
			for _, sec := range secs {
				q := k.get(sec)
				v := q.P50
				if pc.name == "p99" {
					v = q.P99
				}
				if q.Count > 0 && v > 0 {
					xy = append(xy, plotter.XY{X: sec.T, Y: v})
					ys = append(ys, v)
				}
			}
			if len(xy) == 0 {
				continue
			}
			l := line(xy, pc.col, 1.5, i == 1)
			p.Add(l)
			p.Legend.Add(k.name+" "+pc.name, l)
		}
	}
	if len(ys) == 0 {
		return nil
	}
	setSecondsX(p, secs)
	setY(p, ys, spread(ys) > 10)
	p.Legend.Top = true
	p.Legend.Left = true
	return p
}

// setSecondsX sets a linear x axis of seconds from 0 to the last second drawn.
func setSecondsX(p *plot.Plot, secs []loadgen.Second) {
	p.X.Min, p.X.Max = 0, max(secs[len(secs)-1].T, 1)
	p.X.Tick.Marker = compactTicks{}
}
