package limit

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"strconv"
)

// State is a trial's verdict, as the verdict package names it.
type State string

// The verdict's states.
const (
	OK         State = "ok"         // the cluster kept up at this rate
	Overloaded State = "overloaded" // the cluster did not keep up: the limit is below this rate
	Invalid    State = "invalid"    // the trial says nothing about the cluster (client-bound, failed)
)

// Outcome is what a Trialer reports for one trial.
type Outcome struct {
	State State `json:"state"`
	// Reasons are the verdict's reasons, one per criterion that decided it.
	Reasons []string `json:"reasons,omitempty"`
	// Bottleneck is the resource the verdict found busiest (for an overloaded trial, the one
	// that gave out), e.g. "cpu on broker 2"; free text for the output.
	Bottleneck string `json:"bottleneck,omitempty"`
	// ClientBound says the load generator could not produce the asked rate (it fell behind its
	// schedule). Such a trial is treated as client-bound whatever its State.
	ClientBound bool `json:"client_bound,omitempty"`
	// Achieved is the rate the generator reached, messages/s.
	Achieved float64 `json:"achieved,omitempty"`
	// Data is the full trial result, stored with the trial and opaque to the search.
	Data json.RawMessage `json:"data,omitempty"`
}

// Trialer runs one real trial: size-byte messages at rate messages/s, for as long as its own
// configuration says, and returns the verdict. An error means the trial could not be run at all
// (the cluster is unreachable, ctx was cancelled) and stops the search; a trial that ran but
// measured nothing useful is an Outcome with State Invalid.
type Trialer interface {
	Trial(ctx context.Context, size int, rate float64) (Outcome, error)
}

// TrialerFunc adapts a function to a Trialer.
type TrialerFunc func(ctx context.Context, size int, rate float64) (Outcome, error)

// Trial calls f.
func (f TrialerFunc) Trial(ctx context.Context, size int, rate float64) (Outcome, error) {
	return f(ctx, size, rate)
}

// Phase is the step of the search a trial belongs to.
type Phase string

// Phases of the search for one size.
const (
	PhaseBracket Phase = "bracket" // stepping by Growth until an ok and an overloaded rate are known
	PhaseBisect  Phase = "bisect"  // halving the bracket (in log space) until it is within Tolerance
)

// Trial is one trial as the search ran it and as it is stored (kind "trial").
type Trial struct {
	Seq     int     `json:"seq"`     // 1-based position in the whole search
	Size    int     `json:"size"`    // bytes per message
	Rate    float64 `json:"rate"`    // messages/s asked for
	Phase   Phase   `json:"phase"`   // bracket or bisect
	Attempt int     `json:"attempt"` // 1, or 2 for the retry of an invalid trial
	Outcome Outcome `json:"outcome"`
}

// Point is the search's answer for one message size (stored as kind "boundary").
type Point struct {
	Size int `json:"size"` // bytes per message
	// SafeRate is the highest rate, messages/s, whose trial was ok; 0 when none was.
	SafeRate float64 `json:"safe_rate"`
	// UnsafeRate is the lowest rate, messages/s, whose trial was overloaded; 0 when none was.
	// When both are found and ClientBound is false, (UnsafeRate-SafeRate)/SafeRate <= Tolerance
	// and the cluster's limit lies in [SafeRate, UnsafeRate).
	UnsafeRate float64 `json:"unsafe_rate"`
	// SafeBytesPerSec is SafeRate x Size: message payload bytes, without Kafka's framing.
	// Rates here are stored to 9 significant digits, as the trials' rates in the results file.
	SafeBytesPerSec float64 `json:"safe_bytes_per_sec"`
	// Bottleneck is the resource that gave out at UnsafeRate, or, without an unsafe point, the
	// busiest one at SafeRate.
	Bottleneck string `json:"bottleneck,omitempty"`
	// Trials counts the trials this size used, retries and trials reused on resume included.
	Trials int `json:"trials"`
	// ClientBound says a trial above SafeRate was client-bound, so the search could not learn
	// where the cluster's limit is; SafeRate is then only a lower bound of it.
	ClientBound bool `json:"client_bound,omitempty"`
	// Note says, for people, why the search stopped when it did not find a tight bracket and
	// what to change.
	Note string `json:"note,omitempty"`
}

// Found reports whether the point brackets the cluster's limit: an ok and an overloaded rate,
// neither limited by the load generator.
func (p Point) Found() bool { return p.SafeRate > 0 && p.UnsafeRate > 0 && !p.ClientBound }

// String renders the point for people, rates to 3 significant digits.
func (p Point) String() string {
	s := fmt.Sprintf("%d B: safe %s msgs/s (%s MB/s)", p.Size, FormatRate(p.SafeRate), FormatRate(p.SafeBytesPerSec/1e6))
	if p.UnsafeRate > 0 {
		s += ", overloaded at " + FormatRate(p.UnsafeRate) + " msgs/s"
	}
	if p.Bottleneck != "" {
		s += ", bottleneck " + p.Bottleneck
	}
	if p.ClientBound {
		s += ", client-bound"
	}
	return s + fmt.Sprintf(", %d trials", p.Trials)
}

// Progress is reported twice per trial: when it starts (Done false) and when it finished (Done
// true, Outcome set). A trial reused on resume is reported once, finished, with Reused set.
type Progress struct {
	Trial     int     // 1-based number of this trial in the whole search
	About     int     // estimated number of trials of the whole search; it changes as the search learns
	Size      int     // bytes per message
	SizeIndex int     // 0-based index of Size in Options.Sizes
	Sizes     int     // len(Options.Sizes)
	Rate      float64 // messages/s
	Phase     Phase
	Attempt   int
	Done      bool
	Outcome   Outcome // when Done
	Reused    bool    // when Done: the outcome was read from Store (resume); no trial ran
	// Verdicts so far, this trial included when Done. Client-bound trials count as Invalid.
	OK, Overloaded, Invalid int
}

// FormatRate renders a rate (or any positive quantity) to 3 significant digits without an
// exponent: 15422.7 -> "15400", 0.012345 -> "0.0123". It is for output only; the search and the
// results file keep full precision.
func FormatRate(v float64) string {
	if v == 0 || math.IsNaN(v) || math.IsInf(v, 0) {
		return strconv.FormatFloat(v, 'f', -1, 64)
	}
	mag := math.Floor(math.Log10(math.Abs(v)))
	r := math.Round(v*math.Pow(10, 2-mag)) / math.Pow(10, 2-mag)
	if math.Abs(r) >= math.Pow(10, mag+1) { // 99.96 rounds up to 100: one digit fewer after the point
		mag++
	}
	if mag >= 2 {
		return strconv.FormatFloat(r, 'f', 0, 64)
	}
	return strconv.FormatFloat(r, 'f', int(2-mag), 64)
}
