package compare

import "math"

// Unit is a figure's unit.
type Unit string

// The units of the figures.
const (
	UnitMsgsPerSec  Unit = "msgs/s"
	UnitMs          Unit = "ms"
	UnitCPUPerMsg   Unit = "core-seconds/msg" // CPU time per message
	UnitBytesPerMsg Unit = "bytes/msg"
	UnitPct         Unit = "%"
)

// Basis is what a figure's test and interval were computed over.
type Basis string

// The bases of a test.
const (
	// BasisRepetitions: one value per repetition; each side had at least two.
	BasisRepetitions Basis = "repetitions"
	// BasisSeconds: the measured window's seconds of every repetition, pooled per side, when
	// a side had a single repetition. Seconds of one run are not independent, so the p-value
	// overstates the evidence; docs/compare.md says more.
	BasisSeconds Basis = "seconds"
	// BasisNone: too few values for any test.
	BasisNone Basis = "none"
)

// Word is a verdict.
type Word string

// The verdicts. Rates, limits and latencies are speed: faster or slower. CPU and bytes per
// message and utilisation are cost: better (less) or worse (more).
const (
	Faster Word = "faster"
	Slower Word = "slower"
	Better Word = "better"
	Worse  Word = "worse"
	Same   Word = "no significant difference"
)

// Figure is one figure of both sides and what the statistics say of it.
type Figure struct {
	Name    string `json:"name"`              // e.g. "produced", "publish latency p99", "CPU per message"
	Subject string `json:"subject,omitempty"` // what it is of: "broker 1", "broker 2 network in"
	Size    int    `json:"size,omitempty"`    // a search's message size, bytes
	Unit    Unit   `json:"unit"`
	// HigherIsBetter: a rate or a limit; latency and costs are better lower.
	HigherIsBetter bool `json:"higher_is_better"`
	// Speed: the verdict is faster or slower (else better or worse).
	Speed bool `json:"speed"`
	// Throughput: a rate or limit; the overall verdict rests on these and on latency tested
	// over repetitions (Decides).
	Throughput bool `json:"throughput"`
	// ClientBound: a search of either side found the load generator, not the cluster, the
	// limit at this size, so that side's safe rate is only a lower bound of the limit. The
	// overall verdict leaves such a figure out.
	ClientBound bool    `json:"client_bound,omitempty"`
	A           float64 `json:"a"`
	B           float64 `json:"b"`
	// Change is B/A − 1; nil when A is 0.
	Change *float64 `json:"change,omitempty"`
	// CI is the confidence interval of the change at level 1 − alpha; nil when the samples
	// are too few for one.
	CI    *Interval `json:"ci,omitempty"`
	Basis Basis     `json:"basis"`
	N1    int       `json:"n_a"` // values tested on each side
	N2    int       `json:"n_b"`
	U     *float64  `json:"u,omitempty"`
	P     *float64  `json:"p,omitempty"`
	// Needed is the repetitions per side with which the test could reach alpha at all, when
	// the samples it had could not; 0 otherwise.
	Needed  int  `json:"needed_per_side,omitempty"`
	Verdict Word `json:"verdict"`
}

// Options are the comparison's settings.
type Options struct {
	Alpha     float64 // significance level of the tests; the interval's level is 1 − Alpha
	Threshold float64 // the smallest |change| that counts as a difference, e.g. 0.05
	Force     bool    // compare different workloads, listing the differences
}

// DefaultOptions are the command's defaults.
var DefaultOptions = Options{Alpha: 0.05, Threshold: 0.05}

// samples are a figure's values on one side: one per repetition, and the seconds when the
// figure has them.
type samples struct {
	reps, seconds []float64
}

// Decides reports whether f counts in the overall verdict: a rate or a limit that is not
// client-bound (a client-bound limit's safe rate is only a lower bound), or a latency percentile
// tested over repetitions. At a fixed target rate that both sides keep up with, latency is the
// only speed that can differ; one run's seconds are not independent, so latency tested over them
// (one run a side) keeps its own verdict but does not decide.
func (f Figure) Decides() bool {
	if f.ClientBound || !f.Speed {
		return false
	}
	return f.Throughput || f.Basis == BasisRepetitions
}

// judge fills f's change, test, interval and verdict from its samples; f.A and f.B are set.
func (f *Figure) judge(a, b samples, o Options) {
	if f.A != 0 {
		f.Change = ptr(f.B/f.A - 1)
	}
	x, y := a.reps, b.reps
	f.Basis = BasisRepetitions
	if len(x) < 2 || len(y) < 2 {
		x, y, f.Basis = a.seconds, b.seconds, BasisSeconds
		if len(x) < 2 || len(y) < 2 {
			x, y, f.Basis = nil, nil, BasisNone
		}
	}
	f.N1, f.N2, f.Verdict = len(x), len(y), Same
	if f.Basis == BasisNone || MinP(len(x), len(y)) >= o.Alpha {
		f.Needed = Needed(o.Alpha)
	}
	if f.Basis == BasisNone {
		return
	}
	t, err := MannWhitney(x, y)
	if err != nil {
		return
	}
	f.U, f.P = ptr(t.U), ptr(t.P)
	if ci, ok := ShiftCI(x, y, o.Alpha); ok && f.A != 0 {
		f.CI = &Interval{Lo: ci.Lo / f.A, Hi: ci.Hi / f.A}
	}
	if t.P < o.Alpha && f.Change != nil && math.Abs(*f.Change) >= o.Threshold {
		f.Verdict = f.word(*f.Change > 0 == f.HigherIsBetter)
	}
}

// word is the verdict for a change that is an improvement (good) or not.
func (f *Figure) word(good bool) Word {
	switch {
	case f.Speed && good:
		return Faster
	case f.Speed:
		return Slower
	case good:
		return Better
	default:
		return Worse
	}
}

func ptr[T any](v T) *T { return &v }
