package compare

import (
	"cmp"
	"errors"
	"fmt"
	"math"
	"slices"

	"github.com/plimsoll/plimsoll/results"
)

// ErrKinds: one side holds runs, the other limit searches.
var ErrKinds = errors.New("sides A and B are of different kinds")

// Comparison is everything compare found: the figures, the cause and the verdict.
type Comparison struct {
	Kind      Kind     `json:"kind"`
	A         []string `json:"a"` // each side's locations: its repetitions
	B         []string `json:"b"`
	Alpha     float64  `json:"alpha"`
	Threshold float64  `json:"threshold"`
	Figures   []Figure `json:"figures"`
	Cause     Cause    `json:"cause"`
	// Verdict is the overall verdict over the figures that decide it (Figure.Decides: rates,
	// limits, and latency percentiles tested over repetitions): Slower when any of them is
	// significantly and practically worse; else Faster when any is significantly and
	// practically better; else Same.
	Verdict Word `json:"verdict"`
	// Notes are what weakens some repetitions' figures (interrupted, invalid, a torn results
	// file), both sides'.
	Notes []Note `json:"notes,omitempty"`
	// Differences are the workload differences --force let through.
	Differences []Difference `json:"workload_differences,omitempty"`
}

// Cause is why B differs: what came closer to its limit, and the costs per message that moved.
type Cause struct {
	// Moves are the USE resources that came at least MinMove points closer to their limit,
	// ranked by the share of their headroom B used up (Move.Headroom).
	Moves []Move `json:"use_moves,omitempty"`
	// Bottlenecks are, for limit searches, the limits whose bottleneck (the resource that gave
	// out at the unsafe rate) differs between the sides.
	Bottlenecks []Bottleneck `json:"bottlenecks,omitempty"`
	// Evidence are the figures of cost (CPU and bytes per message, utilisation left out) whose
	// change reached the threshold, whatever their significance, or was significant, however
	// small: 8 bytes more per message is a few percent, and all the Heroku regression needed.
	Evidence []Figure `json:"evidence,omitempty"`
}

// Move is one USE resource's utilisation on each side: the mean of the repetitions' means, %.
type Move struct {
	Entity   string  `json:"entity"`
	Resource string  `json:"resource"`
	Metric   string  `json:"metric"` // how the utilisation is measured, e.g. "wire bytes in ÷ NIC"
	A        float64 `json:"a"`
	B        float64 `json:"b"`
	// BAtARate is B's utilisation scaled to A's produced rate (B × A's rate ÷ B's rate), for a
	// resource whose use grows with the rate (all but memory), when the sides' mean produced
	// rates differ by at least MinRateDiff: a B that could not keep up used less of a resource
	// per second than the same load would have needed. Nil otherwise.
	BAtARate *float64 `json:"b_at_a_rate,omitempty"`
	// Points is how much closer B came to the resource's limit: (BAtARate, else B) − A.
	Points float64 `json:"points"`
	// Headroom is the share of A's headroom (100 − A points, at least MinHeadroom) that B used
	// up, the ranking key: 5 points are most of the headroom of a link at 95% and little of a
	// CPU at 30%. Above 1, B needs more than the resource has.
	Headroom float64 `json:"headroom_used"`
}

// Bottleneck is one limit of one message size whose bottlenecks differ: the distinct ones each
// side's searches named.
type Bottleneck struct {
	Size  int      `json:"size"`
	Limit string   `json:"limit"` // results.LimitCeiling or results.LimitSLO
	A     []string `json:"a"`
	B     []string `json:"b"`
}

// MinMove is the smallest rise of utilisation, in percentage points, that Cause lists.
const MinMove = 1.0

// MinHeadroom is the least headroom, in points, a Move's share is taken of: a resource A used
// fully (100%, or above it, as a busy link's measure can read) still ranks by how far B went
// past it, and the share stays finite (JSON has no infinity).
const MinHeadroom = 1.0

// MinRateDiff is the smallest difference of the sides' mean produced rates, as a share of A's,
// at which Move scales B's utilisation to A's rate; below it the sides ran the same load.
const MinRateDiff = 0.005

// Check validates the options, naming the flag and the fix.
func (o Options) Check() error {
	if !(o.Alpha > 0 && o.Alpha < 1) {
		return fmt.Errorf("--alpha %v: the significance level must be between 0 and 1 (exclusive), e.g. 0.05", o.Alpha)
	}
	if !(o.Threshold >= 0) {
		return fmt.Errorf("--threshold %v: the practical threshold is a fraction of A, at least 0, e.g. 0.05 for 5%%", o.Threshold)
	}
	return nil
}

// Compare compares side B with side A. Both must be of one kind and, unless o.Force, have run
// the same workload (a *WorkloadError lists the differences).
func Compare(a, b Side, o Options) (*Comparison, error) {
	if err := o.Check(); err != nil {
		return nil, err
	}
	if a.Kind == KindOMB || b.Kind == KindOMB {
		return compareOMB(a, b, o)
	}
	if a.Kind != b.Kind {
		return nil, fmt.Errorf("%w: A holds %s, B %s; compare runs with runs and limit searches with limit searches", ErrKinds, a.Kind.plural(), b.Kind.plural())
	}
	c := &Comparison{Kind: a.Kind, A: a.Locations, B: b.Locations, Alpha: o.Alpha, Threshold: o.Threshold,
		Notes: slices.Concat(a.Notes, b.Notes)}
	if d := Differences(a, b); len(d) > 0 {
		if !o.Force {
			return nil, &WorkloadError{Diffs: d}
		}
		c.Differences = d
	}
	if a.Kind == KindRun {
		c.Figures = runFigures(a.Runs, b.Runs, o)
		c.Cause.Moves = moves(a.Runs, b.Runs)
	} else {
		c.Figures, c.Cause.Bottlenecks = searchFigures(a.Searches, b.Searches, o)
	}
	for _, f := range c.Figures {
		if f.Unit != UnitPct && !f.Speed && f.Change != nil && (math.Abs(*f.Change) >= o.Threshold || significant(f, o)) {
			c.Cause.Evidence = append(c.Cause.Evidence, f)
		}
	}
	c.Verdict = overall(c.Figures)
	return c, nil
}

// significant reports whether f's test reached alpha.
func significant(f Figure, o Options) bool { return f.P != nil && *f.P < o.Alpha }

// overall is the rule of Comparison.Verdict.
func overall(figs []Figure) Word {
	v := Same
	for _, f := range figs {
		if !f.Decides() {
			continue
		}
		switch f.Verdict {
		case Slower:
			return Slower
		case Faster:
			v = Faster
		}
	}
	return v
}

// moves diffs the USE tables: each resource with a utilisation on both sides, the mean over
// each side's repetitions, scaled to A's rate where the rates differ (Move.BAtARate); those
// that came at least MinMove points closer to their limit, the most of their headroom used first.
func moves(a, b []*results.Trial) []Move {
	scale := rateScale(a, b)
	var out []Move
	for _, k := range utilisationRows(a, b) {
		ma, metric, okA := meanUtilisation(a, k)
		mb, _, okB := meanUtilisation(b, k)
		if !okA || !okB {
			continue
		}
		m := Move{Entity: k.entity, Resource: k.resource, Metric: metric, A: ma, B: mb, Points: mb - ma}
		if scale != 1 && k.resource != "memory" {
			m.BAtARate = ptr(mb * scale)
			m.Points = *m.BAtARate - ma
		}
		if m.Points < MinMove {
			continue
		}
		m.Headroom = m.Points / max(100-ma, MinHeadroom)
		out = append(out, m)
	}
	slices.SortStableFunc(out, func(x, y Move) int { return cmp.Compare(y.Headroom, x.Headroom) })
	return out
}

// rateScale is A's mean produced rate over B's, or 1 when they differ by less than MinRateDiff
// of A's or either is unknown.
func rateScale(a, b []*results.Trial) float64 {
	ra, rb := meanProduced(a), meanProduced(b)
	if ra <= 0 || rb <= 0 || math.Abs(rb-ra) < MinRateDiff*ra {
		return 1
	}
	return ra / rb
}

func meanProduced(ts []*results.Trial) float64 {
	var sum float64
	for _, t := range ts {
		sum += t.ProducedMsgsPerSec
	}
	return sum / float64(max(len(ts), 1))
}

func meanUtilisation(ts []*results.Trial, k rowKey) (mean float64, metric string, ok bool) {
	var sum float64
	n := 0
	for _, t := range ts {
		if c, ok := utilisationOf(t, k); ok {
			sum += float64(c.Mean)
			metric = c.Metric
			n++
		}
	}
	if n == 0 {
		return 0, "", false
	}
	return sum / float64(n), metric, true
}
