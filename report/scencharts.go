package report

import (
	"image/color"
	"math"

	"github.com/plimsoll/plimsoll/results"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// colArticle draws an article's series: dashed, apart from ours and the model's.
var colArticle = color.RGBA{R: 0x8e, G: 0x44, B: 0xad, A: 0xff}

// scenarioChart draws one chart of a scenario: measured series solid with their points (in
// turn the blues, then red and orange), the model's and the host's limits grey, an article's dashed in purple and
// labelled with its source; points with a note are ringed in red. Log axes where the chart
// asks, which leave out the points they cannot place (zero or below).
func scenarioChart(c results.Chart) *plot.Plot {
	p := newPlot()
	p.Title.Text, p.X.Label.Text, p.Y.Label.Text = c.Title, c.X, c.Y
	measured := []color.RGBA{colSafe, colUnsafe, colClient, colCeiling, cpuColours[1], cpuColours[3]}
	var xs, ys []float64
	var noted plotter.XYs
	n := 0
	for _, s := range c.Series {
		var xy plotter.XYs
		for _, pt := range s.Points {
			if (c.LogX && !(pt.X > 0)) || (c.LogY && !(pt.Y > 0)) || math.IsNaN(pt.X+pt.Y) || math.IsInf(pt.X+pt.Y, 0) {
				continue
			}
			xy = append(xy, plotter.XY{X: pt.X, Y: pt.Y})
			xs, ys = append(xs, pt.X), append(ys, pt.Y)
			if pt.Note != "" {
				noted = append(noted, plotter.XY{X: pt.X, Y: pt.Y})
			}
		}
		if len(xy) == 0 {
			continue
		}
		switch s.Kind {
		case results.SeriesModel, results.SeriesLimit:
			l := line(xy, colModel, 1.5, false)
			p.Add(l)
			p.Legend.Add(seriesLabel(s), l)
		case results.SeriesArticle:
			l, g := line(xy, colArticle, 1.5, true), scatter(xy, draw.SquareGlyph{}, colArticle, 3)
			p.Add(l, g)
			p.Legend.Add(seriesLabel(s), l, g)
		default:
			col := measured[n%len(measured)]
			n++
			l, g := line(xy, col, 2, false), scatter(xy, draw.CircleGlyph{}, col, 3.5)
			p.Add(l, g)
			p.Legend.Add(seriesLabel(s), l, g)
		}
	}
	if len(noted) > 0 {
		g := scatter(noted, draw.RingGlyph{}, colUnsafe, 7)
		p.Add(g)
		p.Legend.Add("a note at this point (see below)", g)
	}
	scenAxis(&p.X, xs, c.LogX, true, 1)
	if len(c.XNames) > 0 {
		p.X.Min, p.X.Max = -0.5, float64(len(c.XNames))-0.5
		p.X.Tick.Marker = nameTicks(c.XNames)
	}
	scenAxis(&p.Y, ys, c.LogY, false, 1.4) // room above for the legend
	p.Legend.Top = true
	p.Legend.Padding = vg.Points(2)
	return p
}

// scenAxis sets an axis over vs: log and padded, or linear with room above (top, a factor of
// the span). A linear x axis whose values sit far from 0 (100 and 108 bytes) spans them alone;
// otherwise, and always for y, it starts at 0 (or the lowest value when below 0).
func scenAxis(a *plot.Axis, vs []float64, log, isX bool, top float64) {
	if log {
		lo, hi := bounds(vs, 1, 10)
		a.Scale = plot.LogScale{}
		a.Min, a.Max = lo/1.6, hi*1.6*top
		a.Tick.Marker = logTicks{}
		return
	}
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, v := range vs {
		lo, hi = math.Min(lo, v), math.Max(hi, v)
	}
	if len(vs) == 0 {
		lo, hi = 0, 1
	}
	span := hi - lo
	if !isX || lo <= span {
		lo = math.Min(lo, 0)
		span = hi - lo
	}
	if span <= 0 {
		span = math.Max(math.Abs(hi), 1)
	}
	pad := 0.08 * span
	if lo == 0 || !isX {
		a.Min = lo
	} else {
		a.Min = lo - pad
	}
	a.Max = hi + pad + (top-1)*span
	a.Tick.Marker = compactTicks{}
}

// nameTicks labels the categories of an x axis at 0, 1, 2, ...
type nameTicks []string

func (n nameTicks) Ticks(_, _ float64) []plot.Tick {
	ts := make([]plot.Tick, len(n))
	for i, name := range n {
		ts[i] = plot.Tick{Value: float64(i), Label: name}
	}
	return ts
}
