package report

import (
	"bytes"
	_ "embed"
	"fmt"
	"html/template"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/plimsoll/plimsoll/omb"
	"github.com/plimsoll/plimsoll/units"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg/draw"
)

//go:embed omb.html.tmpl
var ombText string

var ombTmpl = template.Must(template.Must(pageTmpl.Clone()).New("omb").Parse(ombText))

// ombPage is what the OMB template shows, every figure formatted.
type ombPage struct {
	Title, Path string
	Missing     string
	Workload    []kv
	Rates       []kv
	Latency     [][]string // rows: the figure, then avg, p50 ... max
	Header      []string
	Charts      []chartView
}

// ombMissing is what an OMB file cannot give, said on its page, in its text and by compare.
const ombMissing = "Imported from an OpenMessaging Benchmark result file: the figures are OMB's as it wrote them, " +
	"not measured by plimsoll. The file has no USE table, no verdict, no per-second timeline and no " +
	"histograms: only 10-second windows and the aggregates of the whole test."

// ombLatencyHeader are the columns of the aggregate latency table.
var ombLatencyHeader = []string{"latency", "avg", "p50", "p75", "p95", "p99", "p99.9", "p99.99", "max"}

// ombLatencyRows are the aggregates of OMB's file: publish and end-to-end latency in ms, publish
// delay in µs, as OMB writes them.
func ombLatencyRows(r *omb.Result) [][]string {
	row := func(name, unit string, v ...float64) []string {
		out := []string{name + " (" + unit + ")"}
		for _, x := range v {
			out = append(out, units.Ms(x))
		}
		return out
	}
	i := func(v int64) float64 { return float64(v) }
	return [][]string{
		row("publish", "ms", r.AggregatedPublishLatencyAvg, r.AggregatedPublishLatency50pct, r.AggregatedPublishLatency75pct,
			r.AggregatedPublishLatency95pct, r.AggregatedPublishLatency99pct, r.AggregatedPublishLatency999pct,
			r.AggregatedPublishLatency9999pct, r.AggregatedPublishLatencyMax),
		row("end-to-end", "ms", r.AggregatedEndToEndLatencyAvg, r.AggregatedEndToEndLatency50pct, r.AggregatedEndToEndLatency75pct,
			r.AggregatedEndToEndLatency95pct, r.AggregatedEndToEndLatency99pct, r.AggregatedEndToEndLatency999pct,
			r.AggregatedEndToEndLatency9999pct, r.AggregatedEndToEndLatencyMax),
		row("publish delay", "µs", r.AggregatedPublishDelayLatencyAvg, i(r.AggregatedPublishDelayLatency50pct),
			i(r.AggregatedPublishDelayLatency75pct), i(r.AggregatedPublishDelayLatency95pct), i(r.AggregatedPublishDelayLatency99pct),
			i(r.AggregatedPublishDelayLatency999pct), i(r.AggregatedPublishDelayLatency9999pct), i(r.AggregatedPublishDelayLatencyMax)),
	}
}

func ombWorkload(path string, r *omb.Result) []kv {
	return []kv{{Key: "file", Value: path}, {Key: "workload", Value: r.Workload}, {Key: "driver", Value: r.Driver},
		{Key: "message size", Value: units.FormatBytes(float64(r.MessageSize))},
		{Key: "topics × partitions", Value: fmt.Sprintf("%d × %d", r.Topics, r.Partitions)},
		{Key: "producers / consumers per topic", Value: fmt.Sprintf("%d / %d", r.ProducersPerTopic, r.ConsumersPerTopic)},
		{Key: "test", Value: fmt.Sprintf("%s of %d s", units.Plural(len(r.PublishRate), "window"), omb.WindowSeconds)}}
}

func ombRates(r *omb.Result) []kv {
	msgs := func(v float64) string { return units.Count(v) + " msgs/s" }
	return []kv{{Key: "publish rate (mean of the windows)", Value: msgs(r.MeanPublishRate())},
		{Key: "consume rate (mean of the windows)", Value: msgs(r.MeanConsumeRate())},
		{Key: "publish errors (mean of the windows)", Value: units.Short(r.MeanPublishErrorRate()) + " /s"}}
}

// WriteOMBHTML writes an OMB result file, read from path, as one self-contained page: marked as
// imported, its workload, its rates and latency aggregates, and charts of its 10-second series
// and its latency quantiles.
func WriteOMBHTML(w io.Writer, path string, r *omb.Result) error {
	pg := &ombPage{Title: "OMB result: " + r.Workload + " (" + r.Driver + ")", Path: path, Missing: ombMissing,
		Workload: ombWorkload(path, r), Rates: ombRates(r), Header: ombLatencyHeader, Latency: ombLatencyRows(r)}
	for _, c := range []struct {
		label, caption string
		plot           *plot.Plot
	}{
		{"rates per window", "Publish and consume rate of each 10-second window, as OMB measured them.", ombRateChart(r)},
		{"latency per window", "p50 and p99 of each 10-second window: publish solid, end-to-end dashed.", ombLatencySeriesChart(r)},
		{"latency quantiles", "The whole test's latency against percentile, from the file's quantile maps: publish solid, end-to-end dashed.", ombQuantileChart(r)},
	} {
		if c.plot == nil {
			continue
		}
		s, err := svg(c.plot, chartW, chartH, c.label)
		if err != nil {
			return err
		}
		pg.Charts = append(pg.Charts, chartView{SVG: template.HTML(s), Caption: c.caption})
	}
	return renderPage(w, ombTmpl, pg)
}

// WriteOMBFile writes the page of the OMB file at path to htmlPath, through a temporary file.
func WriteOMBFile(htmlPath, path string, r *omb.Result) error {
	var b bytes.Buffer
	if err := WriteOMBHTML(&b, path, r); err != nil {
		return err
	}
	return writeFile(htmlPath, b.Bytes())
}

// OMBText writes an OMB result file as text: what it is, its workload, rates and latency.
func OMBText(w io.Writer, path string, r *omb.Result) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, ombMissing)
	fmt.Fprintln(tw)
	for _, x := range append(ombWorkload(path, r), ombRates(r)...) {
		fmt.Fprintf(tw, "%s\t%s\n", x.Key, x.Value)
	}
	fmt.Fprintln(tw)
	fmt.Fprintln(tw, strings.Join(ombLatencyHeader, "\t"))
	for _, row := range ombLatencyRows(r) {
		fmt.Fprintln(tw, strings.Join(row, "\t"))
	}
	return tw.Flush()
}

// windowXY is a series against the end of its windows, seconds.
func windowXY(s []float64) plotter.XYs {
	xy := make(plotter.XYs, len(s))
	for i, v := range s {
		xy[i] = plotter.XY{X: float64((i + 1) * omb.WindowSeconds), Y: v}
	}
	return xy
}

func ombRateChart(r *omb.Result) *plot.Plot {
	if len(r.PublishRate) == 0 {
		return nil
	}
	p := newPlot()
	p.Title.Text = "Rates per 10-second window"
	p.X.Label.Text = "seconds into the test"
	p.Y.Label.Text = "messages/s"
	var ys []float64
	for _, s := range []struct {
		name  string
		v     []float64
		glyph draw.GlyphDrawer
	}{{"publish", r.PublishRate, draw.CircleGlyph{}}, {"consume", r.ConsumeRate, draw.SquareGlyph{}}} {
		if len(s.v) == 0 {
			continue
		}
		col := colSafe
		if s.name == "consume" {
			col = colCeiling
		}
		l, g := line(windowXY(s.v), col, 1.5, false), scatter(windowXY(s.v), s.glyph, col, 2.5)
		p.Add(l, g)
		p.Legend.Add(s.name, l, g)
		ys = append(ys, s.v...)
	}
	setY(p, ys, false)
	p.X.Tick.Marker = compactTicks{}
	p.Legend.Top = true
	return p
}

func ombLatencySeriesChart(r *omb.Result) *plot.Plot {
	p := newPlot()
	p.Title.Text = "Latency per 10-second window"
	p.X.Label.Text = "seconds into the test"
	p.Y.Label.Text = "latency, ms"
	var ys []float64
	for _, s := range []struct {
		name   string
		v      []float64
		dashed bool
	}{{"publish p50", r.PublishLatency50pct, false}, {"publish p99", r.PublishLatency99pct, false},
		{"end-to-end p50", r.EndToEndLatency50pct, true}, {"end-to-end p99", r.EndToEndLatency99pct, true}} {
		if len(s.v) == 0 {
			continue
		}
		col := colSafe
		if strings.HasSuffix(s.name, "p99") {
			col = colUnsafe
		}
		l := line(windowXY(s.v), col, 1.5, s.dashed)
		p.Add(l)
		p.Legend.Add(s.name, l)
		ys = append(ys, s.v...)
	}
	if len(ys) == 0 {
		return nil
	}
	setY(p, ys, spread(ys) > 10)
	p.X.Tick.Marker = compactTicks{}
	p.Legend.Top = true
	return p
}

func ombQuantileChart(r *omb.Result) *plot.Plot {
	p := newPlot()
	p.Title.Text = "Latency distribution (the whole test)"
	p.X.Label.Text = "percentile"
	p.Y.Label.Text = "latency, ms"
	var xs, ys []float64
	for _, s := range []struct {
		name   string
		q      omb.Quantiles
		dashed bool
	}{{"publish", r.AggregatedPublishLatencyQuantiles, false}, {"end-to-end", r.AggregatedEndToEndLatencyQuantiles, true}} {
		var xy plotter.XYs
		for _, x := range s.q {
			if x.Percentile >= 50 && x.Percentile <= 99.999 {
				xy = append(xy, plotter.XY{X: percentileX(x.Percentile / 100), Y: x.Value})
				xs, ys = append(xs, xy[len(xy)-1].X), append(ys, x.Value)
			}
		}
		if len(xy) == 0 {
			continue
		}
		l := line(xy, colSafe, 1.5, s.dashed)
		p.Add(l)
		p.Legend.Add(s.name, l)
	}
	if len(ys) == 0 {
		return nil
	}
	p.X.Min, p.X.Max = percentileX(0.5)-0.15, max(xs[len(xs)-1], percentileX(0.99))+0.15
	p.X.Tick.Marker = percentileTicks{}
	setY(p, ys, spread(ys) > 10)
	p.Legend.Top = true
	p.Legend.Left = true
	return p
}
