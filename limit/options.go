package limit

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
)

// Defaults of Options.
const (
	DefaultTolerance = 0.05
	DefaultGrowth    = 2.0
	DefaultMinRate   = 1.0  // messages/s
	DefaultMaxRate   = 1e7  // messages/s: far above what one generator host drives
	DefaultStartBPS  = 1e6  // bytes/s the first size starts at without Start: 1 MB/s
	defaultRetries   = 4    // room for retries in the default MaxTrialsPerSize
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
	// Growth is the factor between bracket steps; default 2, from 1.1 to 1000.
	Growth float64
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
	// Config is the rest of the configuration (workload, criteria, trial duration, ...), stored
	// in the header so the results are self-describing; a resume requires it unchanged.
	Config json.RawMessage
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

// normalize returns o with defaults filled in and the first rate of each size taken from Start,
// or an *OptionError.
func (o Options) normalize() (Options, []float64, error) {
	if len(o.Sizes) == 0 {
		o.Sizes = slices.Clone(DefaultSizes)
	}
	for i, s := range o.Sizes {
		if s <= 0 {
			return o, nil, optErr("Sizes", "size %d is %d bytes; sizes must be positive byte counts, e.g. 100,1000,10000", i+1, s)
		}
		if slices.Index(o.Sizes, s) < i {
			return o, nil, optErr("Sizes", "size %d bytes is listed twice; list each size once", s)
		}
	}
	if o.Tolerance == 0 {
		o.Tolerance = DefaultTolerance
	}
	if !(o.Tolerance >= minTolerance && o.Tolerance <= 1) {
		return o, nil, optErr("Tolerance", "%v is out of range: it is a fraction between %v and 1 (0.05 means 5%%)", o.Tolerance, minTolerance)
	}
	if o.Growth == 0 {
		o.Growth = DefaultGrowth
	}
	if !(o.Growth >= minGrowth && o.Growth <= 1000) {
		return o, nil, optErr("Growth", "%v must be between %v and 1000: it is the factor between bracket steps (default 2); smaller steps waste trials", o.Growth, minGrowth)
	}
	if o.MinRate == 0 {
		o.MinRate = DefaultMinRate
	}
	if o.MaxRate == 0 {
		o.MaxRate = DefaultMaxRate
	}
	if !(o.MinRate >= minRate && o.MinRate < maxRate) {
		return o, nil, optErr("MinRate", "%v must be a positive number of messages/s, from %v to %v", o.MinRate, minRate, maxRate)
	}
	if !(o.MaxRate > o.MinRate && o.MaxRate <= maxRate) {
		return o, nil, optErr("MaxRate", "%v must be a number of messages/s above MinRate (%v) and at most %v", o.MaxRate, o.MinRate, maxRate)
	}
	if o.MaxTrialsPerSize < 0 {
		return o, nil, optErr("MaxTrialsPerSize", "%d must not be negative (0 selects the default)", o.MaxTrialsPerSize)
	}
	if o.MaxTrialsPerSize == 0 {
		o.MaxTrialsPerSize = worstCase(o.Growth, o.Tolerance, o.MaxRate/o.MinRate) + defaultRetries
	}
	if o.Resume && o.Store == "" {
		return o, nil, optErr("Resume", "needs Store, the results file to resume from")
	}
	if len(o.Config) > 0 && !json.Valid(o.Config) {
		return o, nil, optErr("Config", "is not valid JSON")
	}
	var starts []float64
	if o.Start != nil {
		starts = make([]float64, len(o.Sizes))
		for i, s := range o.Sizes {
			r := o.Start(s)
			if !(r > 0) || math.IsInf(r, 0) {
				return o, nil, optErr("Start", "returned %v msgs/s for size %d bytes; it must return a positive finite rate", r, s)
			}
			starts[i] = r
		}
	}
	return o, starts, nil
}

// BracketBound is the most trials the bracket phase of one size can take when it starts at
// start: 1 + ceil(log_growth(max/start)) when it raises the rate, 1 + ceil(log_growth(start/min))
// when it lowers it; the larger of the two, as the direction is not known in advance.
func BracketBound(start, minRate, maxRate, growth float64) int {
	up := stepsToCover(maxRate/start, growth)
	down := stepsToCover(start/minRate, growth)
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

// stepsToCover is the number of multiplications by growth needed to cover ratio: ceil(log_g(ratio)).
func stepsToCover(ratio, growth float64) int {
	if !(ratio > 1) {
		return 0
	}
	return ceilLog(math.Log(ratio) / math.Log(growth))
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

// worstCase is the trial bound for one size whose start may be anywhere in a span of rates.
func worstCase(growth, tol, span float64) int {
	return 1 + stepsToCover(span, growth) + BisectBound(1, growth, tol)
}
