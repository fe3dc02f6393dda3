package report

import (
	"fmt"
	"image/color"
	"math"
	"slices"

	"github.com/plimsoll/plimsoll/loadgen"
	"github.com/plimsoll/plimsoll/loadgen/hdr"
	"github.com/plimsoll/plimsoll/results"
	"github.com/plimsoll/plimsoll/units"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg/draw"
)

// The arms' colours: A in blue, B in purple, on every paired chart.
var (
	colArmA = colSafe
	colArmB = color.RGBA{R: 0x8e, G: 0x3b, B: 0xa8, A: 0xff}
)

// abSide is one arm's repetitions as a chart draws them.
type abSide struct {
	name string
	col  color.Color
}

var abSides = [2]abSide{{"A", colArmA}, {"B", colArmB}}

// rateSeriesChart draws each repetition's produced rate in every measured second, A and B in
// their colours. It returns nil when no repetition has a measured second.
func rateSeriesChart(sides [2][]*results.Trial) *plot.Plot {
	p := newPlot()
	p.Title.Text = "Produced rate, second by second (measured window)"
	p.X.Label.Text = "seconds since the producers started"
	p.Y.Label.Text = "messages/s"
	var ys []float64
	for i, s := range abSides {
		for j, t := range sides[i] {
			var xy plotter.XYs
			for sec := range t.Timeline.All() {
				if sec.Phase == loadgen.PhaseMeasure {
					xy = append(xy, plotter.XY{X: sec.T, Y: sec.ProducedMsgsPerSec})
					ys = append(ys, sec.ProducedMsgsPerSec)
				}
			}
			if len(xy) == 0 {
				continue
			}
			l := line(xy, s.col, 1.2, false)
			p.Add(l)
			if j == 0 {
				p.Legend.Add(s.name+" ("+units.Plural(len(sides[i]), "run")+")", l)
			}
		}
	}
	if len(ys) == 0 {
		return nil
	}
	setY(p, ys, false)
	p.X.Tick.Marker = compactTicks{}
	p.Legend.Top = true
	return p
}

// abQuantiles are the quantiles a latency distribution is drawn at, as far as its count
// supports them.
var abQuantiles = []float64{0.5, 0.75, 0.9, 0.95, 0.99, 0.995, 0.999, 0.9995, 0.9999, 0.99999}

// latencyDistChart draws each side's latency against percentile, from the side's histograms
// merged (percentiles are never averaged): publish solid, end-to-end dashed. It returns nil
// when neither side has a histogram.
func latencyDistChart(sides [2][]*results.Trial) *plot.Plot {
	p := newPlot()
	p.Title.Text = "Latency distribution (each arm's repetitions merged)"
	p.X.Label.Text = "percentile"
	p.Y.Label.Text = "latency, ms"
	kinds := []struct {
		name   string
		hist   func(loadgen.Histograms) *hdr.Hist
		dashed bool
	}{
		{"publish", func(h loadgen.Histograms) *hdr.Hist { return h.Publish }, false},
		{"end-to-end", func(h loadgen.Histograms) *hdr.Hist { return h.EndToEnd }, true},
	}
	var xs, ys []float64
	for _, k := range kinds {
		for i, s := range abSides {
			xy := quantileCurve(mergedHist(sides[i], k.hist))
			if len(xy) == 0 {
				continue
			}
			for _, pt := range xy {
				xs, ys = append(xs, pt.X), append(ys, pt.Y)
			}
			l := line(xy, s.col, 1.5, k.dashed)
			g := scatter(xy, draw.CircleGlyph{}, s.col, 2)
			p.Add(l, g)
			p.Legend.Add(s.name+" "+k.name, l, g)
		}
	}
	if len(ys) == 0 {
		return nil
	}
	p.X.Min, p.X.Max = percentileX(0.5)-0.15, slices.Max(xs)+0.15
	p.X.Tick.Marker = percentileTicks{}
	setY(p, ys, spread(ys) > 10)
	p.Legend.Top = true
	p.Legend.Left = true
	return p
}

// mergedHist merges one histogram of every trial; nil when none has it.
func mergedHist(ts []*results.Trial, get func(loadgen.Histograms) *hdr.Hist) *hdr.Hist {
	var m *hdr.Hist
	for _, t := range ts {
		h := get(t.Histograms)
		if h == nil || h.Count() == 0 {
			continue
		}
		if m == nil {
			m = hdr.New()
		}
		m.Merge(h)
	}
	return m
}

// quantileCurve is h's latency (ms) at each quantile its count supports, against percentileX.
func quantileCurve(h *hdr.Hist) plotter.XYs {
	if h == nil {
		return nil
	}
	var xy plotter.XYs
	for _, q := range abQuantiles {
		if float64(h.Count())*(1-q) < 1 {
			break
		}
		xy = append(xy, plotter.XY{X: percentileX(q), Y: float64(h.QuantileMicros(q)) / 1000})
	}
	return xy
}

// percentileX places quantile q on the percentile axis: -log10(1-q), so that 90, 99 and 99.9
// lie one apart.
func percentileX(q float64) float64 { return -math.Log10(1 - q) }

// percentileTicks labels the percentile axis at 50, 90, 99, 99.9, ...
type percentileTicks struct{}

func (percentileTicks) Ticks(lo, hi float64) []plot.Tick {
	var ts []plot.Tick
	for _, t := range []struct {
		q     float64
		label string
	}{{0.5, "50"}, {0.9, "90"}, {0.99, "99"}, {0.999, "99.9"}, {0.9999, "99.99"}, {0.99999, "99.999"}} {
		if x := percentileX(t.q); x >= lo && x <= hi {
			ts = append(ts, plot.Tick{Value: x, Label: t.label})
		}
	}
	return ts
}

// boundaryABChart draws each search's safe rate per message size (the SLO limit's when it has
// one, else the ceiling's), A and B in their colours. It returns nil without a safe rate.
func boundaryABChart(sides [2][]*results.SearchFile) *plot.Plot {
	p := newPlot()
	p.Title.Text = "Boundary: messages/s sustained against message size, A vs B"
	p.Y.Label.Text = "safe messages/s"
	var xs, ys []float64
	for i, s := range abSides {
		for j, sf := range sides[i] {
			var xy plotter.XYs
			for _, pt := range newView(sf).Points {
				if pt.SafeRate > 0 {
					xy = append(xy, plotter.XY{X: float64(pt.Size), Y: pt.SafeRate})
					xs, ys = append(xs, float64(pt.Size)), append(ys, pt.SafeRate)
				}
			}
			if len(xy) == 0 {
				continue
			}
			l := line(xy, s.col, 1.5, false)
			g := scatter(xy, draw.CircleGlyph{}, s.col, 2.5)
			p.Add(l, g)
			if j == 0 {
				p.Legend.Add(s.name+" ("+searches(len(sides[i]))+")", l, g)
			}
		}
	}
	if len(ys) == 0 {
		return nil
	}
	setLogX(p, xs)
	setY(p, ys, spread(ys) > 10)
	p.Legend.Top = true
	return p
}

// searches counts limit searches: "1 limit search", "2 limit searches".
func searches(n int) string {
	if n == 1 {
		return "1 limit search"
	}
	return fmt.Sprintf("%d limit searches", n)
}
