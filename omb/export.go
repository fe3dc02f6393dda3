package omb

import (
	"errors"
	"fmt"
	"math"

	"github.com/plimsoll/plimsoll/loadgen"
	"github.com/plimsoll/plimsoll/loadgen/hdr"
	"github.com/plimsoll/plimsoll/results"
)

// Interval log tags, as loadgen writes them.
const (
	tagPublish  = "publish"
	tagEndToEnd = "end_to_end"
	tagSchedule = "schedule_delay"
)

// ErrTooShort: the measured window holds no whole 10-second window, so OMB's series would be
// empty.
var ErrTooShort = errors.New("measured window shorter than one 10-second window")

// ErrNoTimeline: the trial has no timeline (a record built by hand, or cut short).
var ErrNoTimeline = errors.New("no per-second timeline")

// Names are the workload and driver names an exported file carries (OMB's charts group files
// by workload and label each line with its driver).
type Names struct {
	Workload, Driver string
}

// DefaultNames names a trial as an OMB file would: the workload's own name when it came from a
// file that had one, else its shape; the driver as plimsoll with the trial's Kafka version.
func DefaultNames(t *results.Trial) Names {
	s := t.Config.Spec
	n := Names{Workload: s.Name, Driver: "plimsoll"}
	if n.Workload == "" {
		rate := "max-rate" // 0: as fast as the producers go
		if s.Rate > 0 {
			rate = fmt.Sprintf("%.0fmsgs", s.Rate)
		}
		n.Workload = fmt.Sprintf("%d-topic-%d-partitions-%db-%s", topics(t), t.Config.Partitions, s.MessageSize, rate)
	}
	if t.KafkaVersion != "" {
		n.Driver += " kafka " + t.KafkaVersion
	}
	return n
}

// Coverage says what part of the measured window the series cover: OMB's windows are all 10
// seconds long, so a remainder shorter than that is in the aggregates but in no window.
type Coverage struct {
	Windows         int     // 10-second windows in the series
	MeasuredSeconds float64 // the trial's measured window
	LeftOutSeconds  float64 // at its end, in no window
	// Aggregates: "histograms" when the aggregates come from the trial's merged histograms
	// (every message intended in the window), "intervals" when from the windows' one-second
	// histograms (a record written before it kept its histograms).
	Aggregates string
}

// Export builds the OMB result of trial t from its one-second interval histograms (read from
// its histograms.hlog with hdr.ReadIntervalLog).
func Export(t *results.Trial, intervals []hdr.LoggedInterval, n Names) (*Result, Coverage, error) {
	if t.Timeline.Len() == 0 {
		return nil, Coverage{}, ErrNoTimeline
	}
	nWin := int(math.Floor(t.Window.MeasuredSeconds+0.5)) / WindowSeconds
	cov := Coverage{Windows: nWin, MeasuredSeconds: t.Window.MeasuredSeconds,
		LeftOutSeconds: max(0, t.Window.MeasuredSeconds-float64(nWin*WindowSeconds))}
	if nWin == 0 {
		return nil, cov, fmt.Errorf("%w: %.1f s measured; OMB's series need a run with --duration 10s or more", ErrTooShort, t.Window.MeasuredSeconds)
	}
	r := header(t, n)
	wins := windowsOf(t, intervals, nWin)
	for _, w := range wins {
		r.addWindow(w)
	}
	agg := aggregates{pub: t.Histograms.Publish, e2e: t.Histograms.EndToEnd, sched: t.Histograms.ScheduleDelay}
	cov.Aggregates = "histograms"
	if agg.pub == nil || agg.e2e == nil || agg.sched == nil {
		agg, cov.Aggregates = mergedWindows(wins), "intervals"
	}
	r.setAggregates(agg)
	return r, cov, nil
}

func topics(t *results.Trial) int {
	if n := len(t.Config.Topics); n > 0 {
		return n
	}
	return t.Config.Spec.Topics
}

// header fills the workload's description.
func header(t *results.Trial, n Names) *Result {
	s := t.Config.Spec
	r := &Result{Workload: n.Workload, Driver: n.Driver, MessageSize: int64(s.MessageSize), Topics: topics(t),
		Partitions: t.Config.Partitions, ConsumersPerTopic: s.ConsumersPerGroup}
	if r.Partitions == 0 {
		r.Partitions = s.PartitionsPerTopic
	}
	if r.Topics > 0 {
		r.ProducersPerTopic = s.Producers / r.Topics
	}
	if s.ConsumerGroups == 0 {
		r.ConsumersPerTopic = 0
	}
	// OMB writes empty lists and maps, never null.
	r.AggregatedPublishLatencyQuantiles, r.AggregatedPublishDelayLatencyQuantiles,
		r.AggregatedEndToEndLatencyQuantiles = Quantiles{}, Quantiles{}, Quantiles{}
	return r
}

// window is one 10-second window: its counts over its seconds and its merged histograms.
type window struct {
	seconds                 float64 // summed lengths of its seconds
	acked, consumed, failed float64
	backlog                 int64 // at its last second
	lastSecond              int
	aggregates              // its merged one-second histograms
}

type aggregates struct{ pub, e2e, sched *hdr.Hist }

// windowsOf gathers the measured window's seconds into nWin windows of 10. Second j (1-based)
// of the window is the timeline's entry ending j seconds after the window's start, and the
// interval histograms ending then; rates are summed as counts (rate x the second's length).
func windowsOf(t *results.Trial, intervals []hdr.LoggedInterval, nWin int) []*window {
	wins := make([]*window, nWin)
	for i := range wins {
		wins[i] = &window{aggregates: aggregates{pub: hdr.New(), e2e: hdr.New(), sched: hdr.New()}}
	}
	at := func(j int) *window {
		if j < 1 || j > nWin*WindowSeconds {
			return nil
		}
		return wins[(j-1)/WindowSeconds]
	}
	m0 := t.Window.WarmupSeconds + t.Window.BacklogSeconds // the window's start, seconds since the producers'
	prev := 0.0
	for s := range t.Timeline.All() {
		dt := s.T - prev
		prev = s.T
		j := int(math.Round(s.T - m0))
		if w := at(j); w != nil {
			w.addSecond(s, dt, j)
		}
	}
	startMs := t.Window.Start.UnixMilli()
	for _, iv := range intervals {
		w := at(int(math.Round(float64(iv.EndMs-startMs) / 1000)))
		if w == nil {
			continue
		}
		switch iv.Tag {
		case tagPublish:
			w.pub.Merge(iv.Hist)
		case tagEndToEnd:
			w.e2e.Merge(iv.Hist)
		case tagSchedule:
			w.sched.Merge(iv.Hist)
		}
	}
	return wins
}

func (w *window) addSecond(s loadgen.Second, dt float64, j int) {
	w.seconds += dt
	w.acked += s.ProducedMsgsPerSec * dt
	w.consumed += s.ConsumedMsgsPerSec * dt
	w.failed += float64(s.Failed)
	if j >= w.lastSecond {
		w.backlog, w.lastSecond = s.BacklogMsgs, j
	}
}

func mergedWindows(wins []*window) aggregates {
	a := aggregates{pub: hdr.New(), e2e: hdr.New(), sched: hdr.New()}
	for _, w := range wins {
		a.pub.Merge(w.pub)
		a.e2e.Merge(w.e2e)
		a.sched.Merge(w.sched)
	}
	return a
}

// Percentiles of OMB's series and aggregates, in percent.
var pcts = [6]float64{50, 75, 95, 99, 99.9, 99.99}

// stats are a histogram's figures in OMB's order: mean, the percentiles of pcts, max; in µs.
type stats struct {
	mean float64
	at   [6]int64
	max  int64
}

func statsOf(h *hdr.Hist) stats {
	var s stats
	if h == nil || h.Count() == 0 {
		return s
	}
	s.mean = h.Percentiles().Mean * 1000
	for i, p := range pcts {
		s.at[i] = h.QuantileMicros(p / 100)
	}
	s.max = h.MaxNs() / 1000
	return s
}

func ms(us int64) float64 { return float64(us) / 1000 }

func (r *Result) addWindow(w *window) {
	rate := func(n float64) float64 {
		if w.seconds <= 0 {
			return 0
		}
		return n / w.seconds
	}
	r.PublishRate = append(r.PublishRate, rate(w.acked))
	r.PublishErrorRate = append(r.PublishErrorRate, rate(w.failed))
	r.ConsumeRate = append(r.ConsumeRate, rate(w.consumed))
	r.Backlog = append(r.Backlog, w.backlog)

	p := statsOf(w.pub)
	for i, l := range []*[]float64{&r.PublishLatency50pct, &r.PublishLatency75pct, &r.PublishLatency95pct,
		&r.PublishLatency99pct, &r.PublishLatency999pct, &r.PublishLatency9999pct} {
		*l = append(*l, ms(p.at[i]))
	}
	r.PublishLatencyAvg = append(r.PublishLatencyAvg, p.mean/1000)
	r.PublishLatencyMax = append(r.PublishLatencyMax, ms(p.max))

	d := statsOf(w.sched)
	for i, l := range []*[]int64{&r.PublishDelayLatency50pct, &r.PublishDelayLatency75pct, &r.PublishDelayLatency95pct,
		&r.PublishDelayLatency99pct, &r.PublishDelayLatency999pct, &r.PublishDelayLatency9999pct} {
		*l = append(*l, d.at[i])
	}
	r.PublishDelayLatencyAvg = append(r.PublishDelayLatencyAvg, d.mean)
	r.PublishDelayLatencyMax = append(r.PublishDelayLatencyMax, d.max)

	e := statsOf(w.e2e)
	for i, l := range []*[]float64{&r.EndToEndLatency50pct, &r.EndToEndLatency75pct, &r.EndToEndLatency95pct,
		&r.EndToEndLatency99pct, &r.EndToEndLatency999pct, &r.EndToEndLatency9999pct} {
		*l = append(*l, ms(e.at[i]))
	}
	r.EndToEndLatencyAvg = append(r.EndToEndLatencyAvg, e.mean/1000)
	r.EndToEndLatencyMax = append(r.EndToEndLatencyMax, ms(e.max))
}

func (r *Result) setAggregates(a aggregates) {
	p := statsOf(a.pub)
	r.AggregatedPublishLatencyAvg, r.AggregatedPublishLatencyMax = p.mean/1000, ms(p.max)
	r.AggregatedPublishLatency50pct, r.AggregatedPublishLatency75pct, r.AggregatedPublishLatency95pct = ms(p.at[0]), ms(p.at[1]), ms(p.at[2])
	r.AggregatedPublishLatency99pct, r.AggregatedPublishLatency999pct, r.AggregatedPublishLatency9999pct = ms(p.at[3]), ms(p.at[4]), ms(p.at[5])

	d := statsOf(a.sched)
	r.AggregatedPublishDelayLatencyAvg, r.AggregatedPublishDelayLatencyMax = d.mean, d.max
	r.AggregatedPublishDelayLatency50pct, r.AggregatedPublishDelayLatency75pct, r.AggregatedPublishDelayLatency95pct = d.at[0], d.at[1], d.at[2]
	r.AggregatedPublishDelayLatency99pct, r.AggregatedPublishDelayLatency999pct, r.AggregatedPublishDelayLatency9999pct = d.at[3], d.at[4], d.at[5]

	e := statsOf(a.e2e)
	r.AggregatedEndToEndLatencyAvg, r.AggregatedEndToEndLatencyMax = e.mean/1000, ms(e.max)
	r.AggregatedEndToEndLatency50pct, r.AggregatedEndToEndLatency75pct, r.AggregatedEndToEndLatency95pct = ms(e.at[0]), ms(e.at[1]), ms(e.at[2])
	r.AggregatedEndToEndLatency99pct, r.AggregatedEndToEndLatency999pct, r.AggregatedEndToEndLatency9999pct = ms(e.at[3]), ms(e.at[4]), ms(e.at[5])

	r.AggregatedPublishLatencyQuantiles = quantiles(a.pub, 1000)
	r.AggregatedPublishDelayLatencyQuantiles = quantiles(a.sched, 1)
	r.AggregatedEndToEndLatencyQuantiles = quantiles(a.e2e, 1000)
}

// quantiles is the distribution at OMB's percentile steps (HdrHistogram's percentile iteration
// with 100 ticks per half distance), values in µs divided by div.
func quantiles(h *hdr.Hist, div float64) Quantiles {
	out := Quantiles{}
	if h == nil || h.HDR().TotalCount() == 0 {
		return out
	}
	for _, b := range h.HDR().CumulativeDistributionWithTicks(100) {
		out = append(out, Quantile{Percentile: b.Quantile, Value: float64(b.ValueAt) / div})
	}
	return out
}
