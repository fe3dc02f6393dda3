package report

import (
	"bytes"
	"errors"
	"fmt"
	"github.com/plimsoll/plimsoll/loadgen"
	"github.com/plimsoll/plimsoll/results"
	"github.com/plimsoll/plimsoll/units"
	"image/color"
	"io"
	"math"
	"regexp"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
	"gonum.org/v1/plot/vg/vgsvg"
)

// Colours: measured in blue, overloaded in red, client-bound in orange, the model in grey.
var (
	colSafe     = color.RGBA{R: 0x1f, G: 0x5f, B: 0xa8, A: 0xff}
	colBand     = color.RGBA{R: 0xd4, G: 0xe3, B: 0xf4, A: 0xff}
	colUnsafe   = color.RGBA{R: 0xd0, G: 0x5a, B: 0x4e, A: 0xff}
	colClient   = color.RGBA{R: 0xe0, G: 0x8a, B: 0x00, A: 0xff}
	colModel    = color.RGBA{R: 0x55, G: 0x55, B: 0x55, A: 0xff}
	colCeiling  = color.RGBA{R: 0x2e, G: 0x8b, B: 0x57, A: 0xff}
	colSLOModel = color.RGBA{R: 0x99, G: 0x99, B: 0x99, A: 0xff}
	colGrid     = color.RGBA{R: 0xe6, G: 0xe6, B: 0xe6, A: 0xff}
	percentiles = []struct {
		name string
		col  color.RGBA
		get  func(loadgen.Percentiles) float64
	}{
		{"p50", color.RGBA{R: 0x2e, G: 0x8b, B: 0x57, A: 0xff}, func(p loadgen.Percentiles) float64 { return p.P50 }},
		{"p99", color.RGBA{R: 0x1f, G: 0x5f, B: 0xa8, A: 0xff}, func(p loadgen.Percentiles) float64 { return p.P99 }},
		{"p99.9", color.RGBA{R: 0xd0, G: 0x5a, B: 0x4e, A: 0xff}, func(p loadgen.Percentiles) float64 { return p.P999 }},
	}
	// cpuColours: brokers take the blues in turn, plimsoll (the generator) is always orange.
	cpuColours = []color.RGBA{
		{R: 0x1f, G: 0x5f, B: 0xa8, A: 0xff}, {R: 0x5b, G: 0x8f, B: 0xd0, A: 0xff},
		{R: 0x9c, G: 0xbf, B: 0xe8, A: 0xff}, {R: 0x3a, G: 0x4a, B: 0x6b, A: 0xff},
		{R: 0x7a, G: 0x8a, B: 0xa8, A: 0xff}, {R: 0xb8, G: 0xc4, B: 0xd8, A: 0xff},
	}
)

// Chart sizes in points (1/72 inch): wide enough for a laptop screen, scaled down by CSS.
const (
	chartW = 7.5 * vg.Inch
	chartH = 4.2 * vg.Inch
)

// ErrChart is wrapped when gonum/plot fails to draw a chart.
var ErrChart = errors.New("drawing a chart")

// quantity is the y axis of a boundary chart.
type quantity int

const (
	msgsPerSec quantity = iota
	bytesPerSec
)

// boundaryChart draws the measured boundary (safe points, the band up to the overloaded points,
// client-bound points apart) and the model's prediction against message size on a log x axis.
func boundaryChart(v *view, q quantity) *plot.Plot {
	p := newPlot()
	if q == bytesPerSec {
		p.Title.Text = "Boundary: MB/s sustained against message size"
		p.Y.Label.Text = "MB/s (payload)"
	} else {
		p.Title.Text = "Boundary: messages/s sustained against message size"
		p.Y.Label.Text = "messages/s"
	}
	addBand(p, v, q)
	s := boundarySeries(v, q)
	s.add(p, hasStatus(v, statusFound), len(s.ceiling) > 0)
	setLogX(p, s.xs)
	setY(p, s.ys, q == msgsPerSec && spread(s.ys) > 10)
	if len(s.xs) == 0 {
		p.Title.Text += " (no point measured)"
	}
	p.Legend.Top = true
	p.Legend.Left = q == bytesPerSec // MB/s rises with size, messages/s falls: keep clear of the line
	if p.Legend.Left {
		p.Legend.XOffs = vg.Points(12)
	}
	return p
}

// y is a rate of size-byte messages on the chart's axis: messages/s, or MB/s of payload.
func (q quantity) y(msgs float64, size int) float64 {
	if q == bytesPerSec {
		return msgs * float64(size) / 1e6
	}
	return msgs
}

// addBand shades where the limit lies: between safe and overloaded, for consecutive found
// points, with a light bar at every found point so that a single size shows it too.
func addBand(p *plot.Plot, v *view, q quantity) {
	var run, upper plotter.XYs
	flush := func() {
		if len(run) >= 2 {
			ring := append(plotter.XYs{}, run...)
			for i := len(upper) - 1; i >= 0; i-- {
				ring = append(ring, upper[i])
			}
			if poly, err := plotter.NewPolygon(ring); err == nil {
				poly.Color = colBand
				poly.LineStyle.Width = 0
				p.Add(poly)
			}
		}
		run, upper = nil, nil
	}
	for _, pt := range v.Points {
		if pt.Status != statusFound {
			flush()
			continue
		}
		x := float64(pt.Size)
		run = append(run, plotter.XY{X: x, Y: q.y(pt.SafeRate, pt.Size)})
		upper = append(upper, plotter.XY{X: x, Y: q.y(pt.UnsafeRate, pt.Size)})
		if bar, err := plotter.NewLine(plotter.XYs{run[len(run)-1], upper[len(upper)-1]}); err == nil {
			bar.LineStyle = draw.LineStyle{Color: colBand, Width: vg.Points(6)}
			p.Add(bar)
		}
	}
	flush()
}

// series are the points of a boundary chart, and everything drawn for the axis ranges.
type series struct {
	safe, found, client, unsafe, model plotter.XYs
	ceiling, sloModel                  plotter.XYs // with a latency SLO: the ceiling, and the SLO predicted
	xs, ys                             []float64
}

func (s *series) note(xy plotter.XY) {
	if xy.X > 0 && xy.Y > 0 {
		s.xs, s.ys = append(s.xs, xy.X), append(s.ys, xy.Y)
	}
}

func boundarySeries(v *view, q quantity) *series {
	s := &series{}
	for _, pt := range v.Points {
		x := float64(pt.Size)
		if pt.SafeRate > 0 {
			xy := plotter.XY{X: x, Y: q.y(pt.SafeRate, pt.Size)}
			s.safe = append(s.safe, xy)
			if pt.Status == statusClientBound {
				s.client = append(s.client, xy)
			} else {
				s.found = append(s.found, xy)
			}
			s.note(xy)
		}
		if pt.UnsafeRate > 0 {
			xy := plotter.XY{X: x, Y: q.y(pt.UnsafeRate, pt.Size)}
			s.unsafe = append(s.unsafe, xy)
			s.note(xy)
		}
	}
	for _, pt := range v.Points {
		if c := pt.Ceiling; c != nil && c.SafeRate > 0 {
			xy := plotter.XY{X: float64(pt.Size), Y: q.y(c.SafeRate, pt.Size)}
			s.ceiling = append(s.ceiling, xy)
			s.note(xy)
		}
	}
	for _, m := range v.ModelPts {
		if m.MsgsPerSec > 0 {
			xy := plotter.XY{X: float64(m.SizeBytes), Y: q.y(m.MsgsPerSec, m.SizeBytes)}
			s.model = append(s.model, xy)
			s.note(xy)
		}
		if m.SLOMsgsPerSec > 0 {
			xy := plotter.XY{X: float64(m.SizeBytes), Y: q.y(m.SLOMsgsPerSec, m.SizeBytes)}
			s.sloModel = append(s.sloModel, xy)
			s.note(xy)
		}
	}
	return s
}

// add draws the series with their legend entries; band says the band is drawn too, slo that
// the safe points are the SLO limit's.
func (s *series) add(p *plot.Plot, band, slo bool) {
	okName, overName := "sustained (ok)", "overloaded"
	if slo {
		okName, overName = "within the SLO (ok)", "SLO missed"
	}
	if len(s.model) > 0 {
		l := line(s.model, colModel, 1.5, true)
		p.Add(l)
		p.Legend.Add("model: throughput ceiling", l)
	}
	if len(s.sloModel) > 0 {
		g := scatter(s.sloModel, draw.CrossGlyph{}, colSLOModel, 4)
		p.Add(g)
		p.Legend.Add("model: predicted SLO limit", g)
	}
	if len(s.ceiling) > 0 {
		g := scatter(s.ceiling, draw.RingGlyph{}, colCeiling, 4.5)
		p.Add(line(s.ceiling, colCeiling, 1, false), g)
		p.Legend.Add("ceiling (no latency SLO)", g)
	}
	if len(s.safe) > 1 {
		p.Add(line(s.safe, colSafe, 2, false))
	}
	if len(s.found) > 0 {
		g := scatter(s.found, draw.CircleGlyph{}, colSafe, 4)
		p.Add(g)
		if len(s.safe) > 1 {
			p.Legend.Add(okName, line(s.safe, colSafe, 2, false), g)
		} else {
			p.Legend.Add(okName, g)
		}
	}
	if len(s.unsafe) > 0 {
		g := scatter(s.unsafe, draw.PyramidGlyph{}, colUnsafe, 4.5)
		p.Add(g)
		p.Legend.Add(overName, g)
		if band {
			p.Legend.Add("the limit lies in between", swatch{colBand})
		}
	}
	if len(s.client) > 0 {
		g := scatter(s.client, draw.BoxGlyph{}, colClient, 4.5)
		p.Add(g)
		p.Legend.Add("client-bound: a lower bound", g)
	}
}

func hasStatus(v *view, s string) bool {
	for _, p := range v.Points {
		if p.Status == s {
			return true
		}
	}
	return false
}

// latencyChart draws, for the trial at each size's safe rate, the publish and end-to-end p50,
// p99 and p99.9 against message size. It returns nil when no such trial has latencies.
func latencyChart(v *view) *plot.Plot {
	p := newPlot()
	p.Title.Text = "Latency at the boundary (the trial at each size's safe rate)"
	p.Y.Label.Text = "latency, ms"
	var xs, ys []float64
	for i, k := range latencyKinds[:2] { // publish (solid) and end-to-end (dashed)
		for _, pc := range percentiles {
			var xy plotter.XYs
			for _, pt := range v.Points {
				if pt.SafeTrial == nil {
					continue
				}
				if val := pc.get(k.get(pt.SafeTrial.Latency)); val > 0 {
					xy = append(xy, plotter.XY{X: float64(pt.Size), Y: val})
					xs, ys = append(xs, float64(pt.Size)), append(ys, val)
				}
			}
			if len(xy) == 0 {
				continue
			}
			l := line(xy, pc.col, 1.5, i == 1)
			g := scatter(xy, draw.CircleGlyph{}, pc.col, 2.5)
			p.Add(l, g)
			p.Legend.Add(k.name+" "+pc.name, l, g)
		}
	}
	if len(ys) == 0 {
		return nil
	}
	setLogX(p, xs)
	setY(p, ys, spread(ys) > 10)
	p.Legend.Top = true
	p.Legend.Left = true
	return p
}

// cpuChart stacks each process's CPU (cores) per boundary size, with the host's cores as a
// dashed line when known. It returns nil without CPU figures.
func cpuChart(v *view) *plot.Plot {
	t := v.cpu()
	if t == nil {
		return nil
	}
	p := newPlot()
	p.Title.Text = "How the CPU was shared"
	p.Y.Label.Text = "cores"
	p.X.Label.Text = ""
	names := make([]string, len(t.Columns))
	for i, c := range t.Columns {
		names[i] = cpuColumn(c)
	}
	p.NominalX(names...)
	width := vg.Points(min(60, 400/float64(len(t.Columns))))
	var below *plotter.BarChart
	broker := 0
	for _, r := range t.Rows {
		vals := make(plotter.Values, len(r.Cores))
		for j, c := range r.Cores {
			vals[j] = nanZero(c)
		}
		b, err := plotter.NewBarChart(vals, width)
		if err != nil {
			continue
		}
		if isGenerator(r.Who) {
			b.Color = colClient
		} else {
			b.Color = cpuColours[broker%len(cpuColours)]
			broker++
		}
		b.LineStyle.Width = 0
		if below != nil {
			b.StackOn(below)
		}
		below = b
		p.Add(b)
		p.Legend.Add(r.Who, b)
	}
	top := 0.0
	for _, c := range t.Total {
		top = math.Max(top, nanZero(c))
	}
	if v.HostCores > 0 {
		l := line(plotter.XYs{{X: -0.5, Y: v.HostCores}, {X: float64(len(t.Columns)) - 0.5, Y: v.HostCores}}, colModel, 1, true)
		p.Add(l)
		p.Legend.Add("host cores", l)
		top = math.Max(top, v.HostCores)
	}
	p.Y.Min, p.Y.Max = 0, math.Max(top*1.35, 0.1) // room above for the legend
	p.X.Min, p.X.Max = -0.5, float64(len(t.Columns))-0.5
	p.Y.Tick.Marker = compactTicks{}
	p.Legend.Top = true
	return p
}

// isGenerator tells the load generator's row from a broker's.
func isGenerator(who string) bool {
	w := strings.ToLower(who)
	return strings.Contains(w, "plimsoll") || strings.Contains(w, "generator") || strings.Contains(w, "client")
}

func newPlot() *plot.Plot {
	p := plot.New()
	// Sans-serif, set per plot: plot.DefaultFont is gonum's global and not ours to change.
	sans := func(f *font.Font, size vg.Length) {
		f.Typeface, f.Variant, f.Size = "Liberation", "Sans", size
	}
	sans(&p.Title.TextStyle.Font, 13)
	p.Title.Padding = vg.Points(6)
	for _, a := range []*plot.Axis{&p.X, &p.Y} {
		sans(&a.Label.TextStyle.Font, 11)
		sans(&a.Tick.Label.Font, 10)
	}
	sans(&p.Legend.TextStyle.Font, 10)
	p.X.Label.Text = "message size (bytes, log scale)"
	p.Add(&plotter.Grid{Vertical: draw.LineStyle{Color: colGrid, Width: vg.Points(0.5)},
		Horizontal: draw.LineStyle{Color: colGrid, Width: vg.Points(0.5)}})
	p.Legend.Padding = vg.Points(2)
	p.Legend.ThumbnailWidth = vg.Points(24)
	return p
}

func line(xy plotter.XYs, c color.Color, w float64, dashed bool) *plotter.Line {
	l := &plotter.Line{XYs: xy, LineStyle: draw.LineStyle{Color: c, Width: vg.Points(w)}}
	if dashed {
		l.LineStyle.Dashes = []vg.Length{vg.Points(6), vg.Points(3)}
	}
	return l
}

func scatter(xy plotter.XYs, shape draw.GlyphDrawer, c color.Color, r float64) *plotter.Scatter {
	return &plotter.Scatter{XYs: xy, GlyphStyle: draw.GlyphStyle{Color: c, Radius: vg.Points(r), Shape: shape}}
}

// swatch is a legend thumbnail filled with one colour (the band has no plotter of its own).
type swatch struct{ c color.Color }

func (s swatch) Thumbnail(c *draw.Canvas) {
	c.FillPolygon(s.c, []vg.Point{
		{X: c.Min.X, Y: c.Min.Y}, {X: c.Max.X, Y: c.Min.Y}, {X: c.Max.X, Y: c.Max.Y}, {X: c.Min.X, Y: c.Max.Y},
	})
}

// spread is max/min of the positive values (1 without any).
func spread(vs []float64) float64 {
	lo, hi := math.Inf(1), 0.0
	for _, v := range vs {
		if v > 0 {
			lo, hi = math.Min(lo, v), math.Max(hi, v)
		}
	}
	if hi == 0 {
		return 1
	}
	return hi / lo
}

// setLogX sets a log message-size axis padded around the sizes, which must be positive.
func setLogX(p *plot.Plot, xs []float64) {
	lo, hi := bounds(xs, 100, 10000)
	p.X.Scale = plot.LogScale{}
	p.X.Min, p.X.Max = lo/1.6, hi*1.6
	p.X.Tick.Marker = sizeTicks{}
}

// setY sets the y axis: log and padded, or linear from 0 with room above for the legend.
func setY(p *plot.Plot, ys []float64, log bool) {
	lo, hi := bounds(ys, 1, 10)
	if log {
		p.Y.Scale = plot.LogScale{}
		p.Y.Min, p.Y.Max = lo/2, hi*4 // the legend sits in the top decade
		p.Y.Tick.Marker = logTicks{}
		return
	}
	p.Y.Min, p.Y.Max = 0, hi*1.6
	p.Y.Tick.Marker = compactTicks{}
}

// bounds returns the smallest and largest positive value, or the defaults without one.
func bounds(vs []float64, defLo, defHi float64) (float64, float64) {
	lo, hi := math.Inf(1), 0.0
	for _, v := range vs {
		if v > 0 {
			lo, hi = math.Min(lo, v), math.Max(hi, v)
		}
	}
	if hi == 0 {
		return defLo, defHi
	}
	return lo, hi
}

// sizeTicks marks message sizes: 1, 2, 5 x 10^k labelled ("100 B", "1 KB") when the axis spans
// under three decades, powers of ten labelled and the rest as minor ticks beyond.
type sizeTicks struct{}

func (sizeTicks) Ticks(lo, hi float64) []plot.Tick {
	dense, narrow := hi/lo < 1000, hi/lo < 10
	return decadeTicks(lo, hi, func(v float64, mult int) string {
		if mult == 1 || narrow || dense && (mult == 2 || mult == 5) {
			return units.Size(int(math.Round(v)))
		}
		return ""
	})
}

// logTicks marks a log axis of counts or rates with compact labels ("10k", "1M").
type logTicks struct{}

func (logTicks) Ticks(lo, hi float64) []plot.Tick {
	dense := hi/lo < 100
	return decadeTicks(lo, hi, func(v float64, mult int) string {
		if mult == 1 || dense && (mult == 2 || mult == 5) {
			return units.Compact(v)
		}
		return ""
	})
}

// decadeTicks returns a tick at every m x 10^k (m = 1..9) within [lo, hi], labelled by label.
func decadeTicks(lo, hi float64, label func(v float64, mult int) string) []plot.Tick {
	var ts []plot.Tick
	if !(lo > 0) || !(hi > lo) || math.IsInf(hi, 0) {
		return ts
	}
	for e := math.Floor(math.Log10(lo)); e <= math.Ceil(math.Log10(hi)); e++ {
		base := math.Pow(10, e)
		for m := 1; m <= 9; m++ {
			v := base * float64(m)
			if v >= lo*(1-1e-9) && v <= hi*(1+1e-9) {
				ts = append(ts, plot.Tick{Value: v, Label: label(v, m)})
			}
		}
	}
	return ts
}

// compactTicks marks a linear axis every 1, 2 or 5 x 10^k, four to six labels from lo to hi,
// with compact labels ("1.5k"); gonum's default ticks label as few as two on short ranges.
type compactTicks struct{}

func (compactTicks) Ticks(lo, hi float64) []plot.Tick {
	var ts []plot.Tick
	if !(hi > lo) || math.IsInf(hi-lo, 0) {
		return ts
	}
	raw := (hi - lo) / 6
	mag := math.Pow(10, math.Floor(math.Log10(raw)))
	step := 10 * mag
	for _, m := range []float64{1, 2, 5} {
		if m*mag >= raw {
			step = m * mag
			break
		}
	}
	if !(step > 0) || (hi-lo)/step > 100 {
		return ts // a range too small for float arithmetic: no ticks rather than a loop
	}
	for i := math.Ceil(lo / step); i*step <= hi*(1+1e-12); i++ {
		v := i * step
		if math.Abs(v) < step*1e-9 {
			v = 0 // no "-0" from rounding
		}
		ts = append(ts, plot.Tick{Value: v, Label: units.Compact(v)})
	}
	return ts
}

var (
	svgProlog = regexp.MustCompile(`(?s)^<\?xml.*?\?>\s*(<!--.*?-->\s*)?`)
	svgSize   = regexp.MustCompile(`^<svg width="[^"]*" height="[^"]*"`)
	svgFamily = regexp.MustCompile(`font-family:([^;"]+);`)
)

// svg draws p as an SVG element for inlining: no XML prolog, sized by CSS through its viewBox,
// and fonts named with web-safe fallbacks, as the file embeds none (Liberation Sans, which
// gonum measures text with, has Arial's metrics).
//
// These are three edits of gonum's output, by regular expression, because vgsvg (v0.17) has no
// setting for any of them: it always writes the prolog and a fixed width and height, and names
// only the font it measured with. Its one font setting, EmbedFonts, embeds that font in every
// chart: measured on the boundary chart of the report's test fixture, 562 KB instead of 12 KB,
// for four charts a page.
func svg(p *plot.Plot, w, h vg.Length, label string) (out string, err error) {
	defer func() {
		if r := recover(); r != nil { // gonum/plot panics on data it cannot draw
			out, err = "", fmt.Errorf("report: %w %q: %v", ErrChart, label, r)
		}
	}()
	c := vgsvg.New(w, h)
	p.Draw(draw.New(c))
	var b bytes.Buffer
	if _, err := c.WriteTo(&b); err != nil {
		return "", fmt.Errorf("report: %w %q: %w", ErrChart, label, err)
	}
	s := svgProlog.ReplaceAllString(b.String(), "")
	s = svgSize.ReplaceAllString(s, `<svg class="chart" role="img" aria-label="`+htmlAttr(label)+`"`)
	s = svgFamily.ReplaceAllStringFunc(s, func(m string) string {
		fam := strings.TrimSpace(svgFamily.FindStringSubmatch(m)[1])
		return "font-family:'" + fam + "'," + fontFallback(fam) + ";"
	})
	return strings.TrimSpace(s), nil
}

// fontFallback lists the fonts with the Liberation family's metrics, then the generic family.
func fontFallback(family string) string {
	switch {
	case strings.Contains(family, "Mono"):
		return "'Courier New',monospace"
	case strings.Contains(family, "Serif"):
		return "'Times New Roman',Times,serif"
	}
	return "Arial,Helvetica,sans-serif"
}

func htmlAttr(s string) string {
	return strings.NewReplacer(`&`, "&amp;", `"`, "&quot;", `<`, "&lt;", `>`, "&gt;").Replace(s)
}

// BoundaryPNG draws the boundary charts (messages/s and MB/s against message size, side by
// side) as a PNG image of 1800 x 504 pixels.
func BoundaryPNG(w io.Writer, sf *results.SearchFile) error {
	if err := Validate(sf); err != nil {
		return err
	}
	return boundaryPNG(w, newView(sf))
}

func boundaryPNG(w io.Writer, v *view) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("report: %w \"boundary PNG\": %v", ErrChart, r)
		}
	}()
	const dpi = 120
	c := vgimg.NewWith(vgimg.UseWH(2*chartW, chartH), vgimg.UseDPI(dpi), vgimg.UseBackgroundColor(color.White))
	dc := draw.New(c)
	plots := [][]*plot.Plot{{boundaryChart(v, msgsPerSec), boundaryChart(v, bytesPerSec)}}
	tiles := draw.Tiles{Rows: 1, Cols: 2, PadX: vg.Points(18), PadLeft: vg.Points(6), PadRight: vg.Points(6), PadTop: vg.Points(6), PadBottom: vg.Points(6)}
	for i, p := range plots[0] {
		p.Draw(tiles.At(dc, i, 0)) // not plot.Align: it lines up the axes but staggers the titles
	}
	if _, err := (vgimg.PngCanvas{Canvas: c}).WriteTo(w); err != nil {
		return fmt.Errorf("report: writing the boundary PNG: %w", err)
	}
	return nil
}
