package limit

import (
	"errors"
	"fmt"
	"math"
	"slices"

	"github.com/plimsoll/plimsoll/results"
)

// Defaults of Options.
const (
	DefaultTolerance = 0.05
	DefaultGrowth    = 2.0
	DefaultMinRate   = 1.0  // messages/s
	DefaultMaxRate   = 1e7  // messages/s: far above what one generator host drives
	DefaultStartBPS  = 1e6  // bytes/s the first size starts at without Start: 1 MB/s
	defaultRetries   = 4    // room for retries in the default MaxTrialsPerSize
	defaultMaxHolds  = 2    // confirmations per size
	minTolerance     = 1e-4 // below this, trial-to-trial noise is larger than the bracket
	logSlack         = 1e-9 // float rounding forgiven in step counts
	minGrowth        = 1.1  // smaller bracket steps cost many trials for little
	minRate          = 1e-3 // msgs/s: bounds that keep step counts small and finite
	maxRate          = 1e9
)

// DefaultSizes are the message sizes searched when Options.Sizes is empty, bytes.
var DefaultSizes = []int{100, 1000, 10000}

// Options configure Search. The zero value of a field selects its default.
type Options struct {
	// Sizes are the message sizes to search, bytes per message, in the order searched; default
	// DefaultSizes. Each must be positive and appear once.
	Sizes []int
	// Tolerance is the relative width at which a bracket is narrow enough:
	// (unsafe - safe) / safe <= Tolerance. Default 0.05 (5%); between 0.0001 and 1.
	Tolerance float64
	// Start returns the first rate, messages/s, to try for a size: the model's prediction. When
	// nil, a size starts from the previous size's safe rate at equal bytes/s (safe x prevSize /
	// size), and the first size (or one after sizes without a safe rate) at DefaultStartBPS
	// bytes/s. Start is called once per size when Search begins; it must return a positive
	// finite rate and the same rates on a resume. Rates are clamped to [MinRate, MaxRate].
	Start func(size int) float64
	// MinRate and MaxRate bound the rates the search asks for, messages/s; defaults 1 and
	// 10,000,000, allowed from 0.001 to 1,000,000,000. MaxRate is typically what the load
	// generator can drive.
	MinRate, MaxRate float64
	// Growth is the largest factor between bracket steps; default 2, from 1.1 to 1000.
	Growth float64
	// FirstStep is the factor of a limit's first bracket step; each further step in the same
	// direction squares it, up to Growth. Default Growth (every step the same); set it near
	// 1 + Tolerance when Start is a good prediction, so that a start within the tolerance of the
	// limit brackets it in two trials. From 1 + Tolerance/2 to Growth.
	FirstStep float64
	// SLO makes the search find the SLO limit (the verdict's State) besides the throughput
	// ceiling (its Ceiling): set it when the criteria have a latency objective.
	SLO bool
	// StartSLO, when set, predicts the SLO limit of a size, msgs/s (0: no prediction); the
	// search tries it first once only rates above it are known to miss the SLO. It is called
	// once per size when the size begins, and must give the same rates on a resume.
	StartSLO func(size int) float64
	// Reframe, when set with Start, corrects a size's start for the link overhead measured at
	// the size before it (Boundary.LinkOverhead; Start's prediction counts none): it returns the
	// rate to start from, msgs/s, or 0 to keep Start's. It must give the same rates on a resume.
	Reframe func(size int, linkOverhead float64) float64
	// Confirm holds the safe rate a safe load rests on (the SLO limit's with SLO, else the
	// ceiling's) for longer before the size is done (a Request with Hold), at most MaxHolds
	// times a size (default 2).
	Confirm  bool
	MaxHolds int
	// MaxTrialsPerSize caps the trials for one size, a safety net against a flapping cluster.
	// Default: the worst-case bound for these options (see Search) plus 4 retries.
	MaxTrialsPerSize int
	// Store is the results file (results.jsonl); every finished trial is appended as it
	// finishes, with a "search" header first and a "boundary" record per finished size. Empty:
	// nothing is stored.
	Store string
	// Resume reuses the finished trials in Store instead of running them again. The options
	// (and Config) must equal those in the Store's header.
	Resume bool
	// Config is the rest of the configuration (workload, criteria, cluster, ...), stored in the
	// header so the results are self-describing; a resume requires it unchanged.
	Config *results.Config
	// Predict, when set, gives the model's prediction for a size, stored with its boundary, with
	// the link overhead measured in the size's trials (0: none measured).
	Predict func(size int, linkOverhead float64) *results.Prediction
	// Progress, when set, is called when each trial starts and when it finishes.
	Progress func(Progress)
	// Logf, when set, receives warnings (e.g. a torn last line skipped on resume).
	Logf func(format string, args ...any)
}

// ErrOptions is wrapped by every error about a bad option.
var ErrOptions = errors.New("invalid limit options")

// OptionError is a bad option: its name (the Options field) and how to fix it.
type OptionError struct {
	Option string
	Msg    string
}

func (e *OptionError) Error() string { return "limit: " + e.Option + ": " + e.Msg }

// Unwrap lets errors.Is find ErrOptions.
func (e *OptionError) Unwrap() error { return ErrOptions }

func optErr(option, format string, args ...any) error {
	return &OptionError{Option: option, Msg: fmt.Sprintf(format, args...)}
}

// Check validates o's sizes, steps and rates as Search will, without calling Start: for
// refusing bad options before anything is started. Errors are *OptionError.
func (o Options) Check() error {
	_, err := o.defaulted()
	return err
}

// defaulted returns o with the defaults of its sizes, steps and rates filled in and checked.
func (o Options) defaulted() (Options, error) {
	for _, step := range []func(*Options) error{(*Options).normalizeSizes, (*Options).normalizeSteps, (*Options).normalizeRates} {
		if err := step(&o); err != nil {
			return o, err
		}
	}
	return o, nil
}

// normalize returns o with defaults filled in and the first rate of each size taken from Start,
// or an *OptionError.
func (o Options) normalize() (Options, []float64, error) {
	o, err := o.defaulted()
	if err != nil {
		return o, nil, err
	}
	if o.Resume && o.Store == "" {
		return o, nil, optErr("Resume", "needs Store, the results file to resume from")
	}
	starts, err := o.starts()
	return o, starts, err
}

// normalizeSizes defaults and checks Sizes.
func (o *Options) normalizeSizes() error {
	if len(o.Sizes) == 0 {
		o.Sizes = slices.Clone(DefaultSizes)
	}
	for i, s := range o.Sizes {
		if s <= 0 {
			return optErr("Sizes", "size %d is %d bytes; sizes must be positive byte counts, e.g. 100,1000,10000", i+1, s)
		}
		if slices.Index(o.Sizes, s) < i {
			return optErr("Sizes", "size %d bytes is listed twice; list each size once", s)
		}
	}
	return nil
}

// normalizeSteps defaults and checks the search's step factors and its trial budget.
func (o *Options) normalizeSteps() error {
	if o.Tolerance == 0 {
		o.Tolerance = DefaultTolerance
	}
	if !(o.Tolerance >= minTolerance && o.Tolerance <= 1) {
		return optErr("Tolerance", "%v is out of range: it is a fraction between %v and 1 (0.05 means 5%%)", o.Tolerance, minTolerance)
	}
	if o.Growth == 0 {
		o.Growth = DefaultGrowth
	}
	if !(o.Growth >= minGrowth && o.Growth <= 1000) {
		return optErr("Growth", "%v must be between %v and 1000: it is the factor between bracket steps (default 2); smaller steps waste trials", o.Growth, minGrowth)
	}
	if o.FirstStep == 0 {
		if o.Growth < 1+o.Tolerance/2 {
			return optErr("Growth", "%v must be at least 1 + half the tolerance (%v): a bracket step narrower than the tolerance's half wastes trials", o.Growth, 1+o.Tolerance/2)
		}
		o.FirstStep = o.Growth
	}
	if !(o.FirstStep >= 1+o.Tolerance/2 && o.FirstStep <= o.Growth) {
		return optErr("FirstStep", "%v must be between 1 + Tolerance/2 (%v) and Growth (%v): it is the first bracket step's factor", o.FirstStep, 1+o.Tolerance/2, o.Growth)
	}
	if o.MaxHolds == 0 {
		o.MaxHolds = defaultMaxHolds
	}
	if o.MaxHolds < 0 {
		return optErr("MaxHolds", "%d must not be negative (0 selects the default, %d)", o.MaxHolds, defaultMaxHolds)
	}
	return nil
}

// normalizeRates defaults and checks the rate range, then the trial budget it implies.
func (o *Options) normalizeRates() error {
	if o.MinRate == 0 {
		o.MinRate = DefaultMinRate
	}
	if o.MaxRate == 0 {
		o.MaxRate = DefaultMaxRate
	}
	if !(o.MinRate >= minRate && o.MinRate < maxRate) {
		return optErr("MinRate", "%v must be a positive number of messages/s, from %v to %v", o.MinRate, minRate, maxRate)
	}
	if !(o.MaxRate > o.MinRate && o.MaxRate <= maxRate) {
		return optErr("MaxRate", "%v must be a number of messages/s above MinRate (%v) and at most %v", o.MaxRate, o.MinRate, maxRate)
	}
	if o.MaxTrialsPerSize < 0 {
		return optErr("MaxTrialsPerSize", "%d must not be negative (0 selects the default)", o.MaxTrialsPerSize)
	}
	if o.MaxTrialsPerSize == 0 {
		o.MaxTrialsPerSize = o.worstCase() + defaultRetries
	}
	return nil
}

// starts asks Start for each size's first rate, or returns nil without it.
func (o Options) starts() ([]float64, error) {
	if o.Start == nil {
		return nil, nil
	}
	starts := make([]float64, len(o.Sizes))
	for i, s := range o.Sizes {
		r := o.Start(s)
		if !(r > 0) || math.IsInf(r, 0) {
			return nil, optErr("Start", "returned %v msgs/s for size %d bytes; it must return a positive finite rate", r, s)
		}
		starts[i] = r
	}
	return starts, nil
}

// BracketBound is the most trials the bracket phase of one limit can take when it starts at
// start: 1 + the steps to cover max/start when it raises the rate, 1 + the steps to cover
// start/min when it lowers it; the larger of the two, as the direction is not known in advance.
// Steps go by first, first², first⁴, ... up to growth.
func BracketBound(start, minRate, maxRate, first, growth float64) int {
	up := stepsToCover(maxRate/start, first, growth)
	down := stepsToCover(start/minRate, first, growth)
	return 1 + max(up, down)
}

// BisectBound is the most trials bisection takes to narrow a bracket [lo, hi] until
// (hi-lo)/lo <= tol: ceil(log2(ln(hi/lo) / ln(1+tol))), and never more than
// ceil(log2(((hi-lo)/lo) / tol)).
// Search uses the same expression to decide when to stop, so the bound holds exactly; it
// forgives float rounding of about 1e-9 relative, as ceilLog does.
func BisectBound(lo, hi, tol float64) int {
	if !(hi > lo) {
		return 0
	}
	return ceilLog(math.Log2(math.Log(hi/lo) / math.Log1p(tol)))
}

// stepsToCover is the number of bracket steps (first, first², ..., at most growth each) whose
// product reaches ratio.
func stepsToCover(ratio, first, growth float64) int {
	n := 0
	covered := 0.0 // ln of the product so far
	for k := 0; (math.Log(ratio)-covered)/math.Log(growth) > logSlack; k++ {
		covered += math.Min(math.Log(growth), math.Log(first)*math.Pow(2, float64(k)))
		n++
	}
	return n
}

// reaches reports whether a bracket step to next has got to limit (next >= limit when raising),
// with the slack of ceilLog, so that a step landing a rounding error short counts as there.
func reaches(next, limit, growth float64) bool {
	return math.Log(limit/next)/math.Log(growth) <= logSlack
}

// ceilLog is ceil(x) for a logarithm x, forgiving float error just above an integer (so that
// log2(8) = 3.0000000000000004 counts as 3). Search snaps its steps with the same slack (see
// reaches), so its trial counts agree with the bounds computed here.
func ceilLog(x float64) int {
	if x <= 0 {
		return 0
	}
	return int(math.Ceil(x - logSlack))
}

// worstCase is the trial bound for one size whose start may be anywhere in the span of rates:
// for each limit a full bracket and a bisection of the last step, and each hold with a bisection
// below a hold that failed.
func (o Options) worstCase() int {
	perLimit := 1 + stepsToCover(o.MaxRate/o.MinRate, o.FirstStep, o.Growth) + BisectBound(1, o.Growth, o.Tolerance)
	n := perLimit
	if o.SLO {
		n += perLimit
	}
	if o.Confirm {
		n += o.MaxHolds * (1 + BisectBound(1, o.Growth, o.Tolerance))
	}
	return n
}
