package compare

import (
	"errors"
	"fmt"
	"math"
	"strconv"

	"github.com/plimsoll/plimsoll/omb"
	"github.com/plimsoll/plimsoll/units"
)

// KindOMB is a side of OpenMessaging Benchmark result files, or a comparison with one such side.
const KindOMB Kind = "omb"

// BasisWindows: a figure tested over the 10-second windows of an OMB file and of a run cut into
// OMB's windows, a single repetition a side. Like seconds, the windows of one run are not
// independent.
const BasisWindows Basis = "10-second windows"

// The notes of a comparison with an OMB side.
const (
	// NoteOMB: the location is an OMB file; its figures are OMB's 10-second windows and
	// aggregates, with no histogram, USE table, CPU or traffic.
	NoteOMB = "omb"
	// NoteExported: the run was cut into OMB's 10-second windows to be compared with an OMB
	// file; Detail says how many and what was left out of them.
	NoteExported = "exported"
)

// ErrOMBSearch: an OMB file compared with limit searches.
var ErrOMBSearch = errors.New("an OMB result file compares with runs or OMB files, not with limit searches")

// compareOMB compares sides of which at least one holds OMB files: the figures both can give,
// the run sides cut into OMB's 10-second windows so that like is compared with like.
func compareOMB(a, b Side, o Options) (*Comparison, error) {
	ra, na, err := a.asOMB()
	if err != nil {
		return nil, err
	}
	rb, nb, err := b.asOMB()
	if err != nil {
		return nil, err
	}
	c := &Comparison{Kind: KindOMB, A: a.Locations, B: b.Locations, Alpha: o.Alpha, Threshold: o.Threshold,
		Notes: append(append(append(a.Notes, na...), b.Notes...), nb...)}
	if d := ombDifferences(ra, rb); len(d) > 0 {
		if !o.Force {
			return nil, &WorkloadError{Diffs: d}
		}
		c.Differences = d
	}
	c.Figures = ombFigures(ra, rb, o)
	c.Verdict = overall(c.Figures)
	return c, nil
}

// asOMB is the side as OMB results: its files, or its runs exported to OMB's windows.
func (s Side) asOMB() ([]*omb.Result, []Note, error) {
	switch s.Kind {
	case KindOMB:
		return s.OMB, nil, nil
	case KindSearch:
		return nil, nil, ErrOMBSearch
	}
	var out []*omb.Result
	var notes []Note
	for i, t := range s.Runs {
		loc := s.Locations[i]
		ivs, err := omb.ReadLog(loc)
		if err != nil {
			return nil, nil, err
		}
		r, cov, err := omb.Export(t, ivs, omb.DefaultNames(t))
		if err != nil {
			return nil, nil, fmt.Errorf("%s: %w", loc, err)
		}
		out = append(out, r)
		detail := units.Plural(cov.Windows, "window") + " of 10 s"
		if cov.LeftOutSeconds >= 0.5 {
			detail += "; the last " + units.Trim(math.Round(cov.LeftOutSeconds)) + " s in none"
		}
		notes = append(notes, Note{Location: loc, What: NoteExported, Detail: detail})
	}
	return out, notes, nil
}

// ombDifferences are the workload settings an OMB file records that differ. OMB's file records
// no target rate and no client properties: those cannot be checked.
func ombDifferences(a, b []*omb.Result) []Difference {
	shape := func(r *omb.Result) [][2]string {
		i := func(v int) string { return strconv.Itoa(v) }
		return [][2]string{{"messageSize", strconv.FormatInt(r.MessageSize, 10)}, {"topics", i(r.Topics)},
			{"partitions", i(r.Partitions)}, {"producersPerTopic", i(r.ProducersPerTopic)}, {"consumersPerTopic", i(r.ConsumersPerTopic)}}
	}
	var out []Difference
	if len(a) == 0 || len(b) == 0 {
		return nil
	}
	ref := shape(a[0])
	for j, r := range append(append([]*omb.Result{}, a[1:]...), b...) {
		where := "A vs B"
		if j < len(a)-1 {
			where = "A repetitions"
		}
		for k, kv := range shape(r) {
			if kv[1] != ref[k][1] {
				out = append(out, Difference{Setting: kv[0], A: ref[k][1], B: kv[1], Where: where})
			}
		}
	}
	return out
}

// ombFigure is one figure an OMB result gives: its value for a repetition and its windows.
type ombFigure struct {
	fig     Figure
	rep     func(*omb.Result) float64
	windows func(*omb.Result) []float64
}

// ombSources are the figures an OMB file and a plimsoll run share: the publish and consume
// rates, publish and end-to-end latency at p50, p99 and p99.9.
func ombSources() []ombFigure {
	rate := func(name string, rep func(*omb.Result) float64, w func(*omb.Result) []float64) ombFigure {
		return ombFigure{fig: Figure{Name: name, Unit: UnitMsgsPerSec, HigherIsBetter: true, Speed: true, Throughput: true}, rep: rep, windows: w}
	}
	lat := func(name string, rep func(*omb.Result) float64, w func(*omb.Result) []float64) ombFigure {
		return ombFigure{fig: Figure{Name: name, Unit: UnitMs, Speed: true}, rep: rep, windows: w}
	}
	return []ombFigure{
		rate("publish rate", (*omb.Result).MeanPublishRate, func(r *omb.Result) []float64 { return r.PublishRate }),
		rate("consume rate", (*omb.Result).MeanConsumeRate, func(r *omb.Result) []float64 { return r.ConsumeRate }),
		lat("publish latency p50", func(r *omb.Result) float64 { return r.AggregatedPublishLatency50pct }, func(r *omb.Result) []float64 { return r.PublishLatency50pct }),
		lat("publish latency p99", func(r *omb.Result) float64 { return r.AggregatedPublishLatency99pct }, func(r *omb.Result) []float64 { return r.PublishLatency99pct }),
		lat("publish latency p99.9", func(r *omb.Result) float64 { return r.AggregatedPublishLatency999pct }, func(r *omb.Result) []float64 { return r.PublishLatency999pct }),
		lat("end-to-end latency p50", func(r *omb.Result) float64 { return r.AggregatedEndToEndLatency50pct }, func(r *omb.Result) []float64 { return r.EndToEndLatency50pct }),
		lat("end-to-end latency p99", func(r *omb.Result) float64 { return r.AggregatedEndToEndLatency99pct }, func(r *omb.Result) []float64 { return r.EndToEndLatency99pct }),
		lat("end-to-end latency p99.9", func(r *omb.Result) float64 { return r.AggregatedEndToEndLatency999pct }, func(r *omb.Result) []float64 { return r.EndToEndLatency999pct }),
	}
}

// ombFigures compares the shared figures. A side's figure is the median of its repetitions
// (an OMB file has no histogram to merge); the test runs over the repetitions, or with one a
// side over the 10-second windows. A figure neither side's files hold (a test with no
// consumers: end-to-end latency empty) is left out.
func ombFigures(a, b []*omb.Result, o Options) []Figure {
	var out []Figure
	for _, src := range ombSources() {
		sa, sb := src.samples(a), src.samples(b)
		if len(sa.reps) == 0 || len(sb.reps) == 0 {
			continue
		}
		f := src.fig
		f.A, f.B = median(sa.reps), median(sb.reps)
		f.judge(sa, sb, o)
		if f.Basis == BasisSeconds {
			f.Basis = BasisWindows
		}
		out = append(out, f)
	}
	return out
}

func (src ombFigure) samples(rs []*omb.Result) samples {
	var s samples
	for _, r := range rs {
		w := src.windows(r)
		if len(w) == 0 {
			continue
		}
		s.reps = append(s.reps, src.rep(r))
		s.seconds = append(s.seconds, w...)
	}
	return s
}
