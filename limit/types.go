package limit

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/plimsoll/plimsoll/results"
	"github.com/plimsoll/plimsoll/verdict"
)

// Request is a trial the search asks for: size-byte messages at rate messages/s, held longer than
// a trial when Hold is set (a confirmation of a safe rate).
type Request struct {
	Size int
	Rate float64
	Hold bool
}

// Trialer runs one real trial, for as long as its own configuration says, and returns its record
// with the verdict. An error means the trial could not be run at all (the cluster is
// unreachable, ctx was cancelled) and stops the search; a trial that ran but measured nothing
// useful is a record whose verdict is invalid.
type Trialer interface {
	Trial(ctx context.Context, req Request) (*results.Trial, error)
}

// TrialerFunc adapts a function to a Trialer.
type TrialerFunc func(ctx context.Context, req Request) (*results.Trial, error)

// Trial calls f.
func (f TrialerFunc) Trial(ctx context.Context, req Request) (*results.Trial, error) {
	return f(ctx, req)
}

// CritTrialFailed is the criterion of the verdict given to a trial that could not run (its
// set-up failed, a broker was gone): it says nothing about the rate, so the search retries it.
const CritTrialFailed = "trial-failed"

// failed is the record of a trial that could not run.
func failed(err error) *results.Trial {
	return &results.Trial{Verdict: verdict.Verdict{State: verdict.Invalid,
		Reasons: []verdict.Reason{{Criterion: CritTrialFailed, Text: err.Error()}}}}
}

// outcome is what the search reads of a trial's record.
type outcome struct {
	state       verdict.State // by every criterion: the SLO limit's judgement
	ceiling     verdict.State // without the latency SLO: the ceiling's
	clientBound bool
	bottleneck  string
	reasons     string
	// linkOverhead is the trial's link overhead (results.Trial.LinkOverhead); hasLink is false
	// without one.
	linkOverhead float64
	hasLink      bool
}

func outcomeOf(t *results.Trial) outcome {
	o := outcome{state: t.Verdict.State, ceiling: t.Verdict.Ceiling, clientBound: t.ClientBound(), bottleneck: t.Verdict.Bottleneck, reasons: "no reason given"}
	if o.ceiling == "" { // a record from before verdicts had a ceiling: it had no other judgement
		o.ceiling = o.state
	}
	if t.LinkOverhead != nil {
		o.linkOverhead, o.hasLink = *t.LinkOverhead, true
	}
	var rs []string
	for _, r := range t.Verdict.Reasons {
		rs = append(rs, r.Criterion+": "+r.Text)
	}
	if len(rs) > 0 {
		o.reasons = strings.Join(rs, "; ")
	}
	return o
}

// Progress is reported twice per trial: when it starts (Done false) and when it finished (Done
// true, Trial set). A trial reused on resume is reported once, finished, with Reused set.
type Progress struct {
	Trial     int     // 1-based number of this trial in the whole search
	About     int     // estimated number of trials of the whole search; it changes as the search learns
	Size      int     // bytes per message
	SizeIndex int     // 0-based index of Size in Options.Sizes
	Sizes     int     // len(Options.Sizes)
	Rate      float64 // messages/s
	Phase     results.Phase
	Limit     string // the limit the trial serves: results.LimitCeiling or LimitSLO
	Hold      bool   // a confirmation, held longer than a trial
	Attempt   int
	Done      bool
	Result    *results.Trial // when Done
	Reused    bool           // when Done: the trial was read from Store (resume); none ran
	// Verdicts so far, this trial included when Done. Client-bound trials count as Invalid.
	OK, Overloaded, Invalid int
}

// ErrOutcome is wrapped when a Trialer returns a verdict with an unknown state.
var ErrOutcome = errors.New("trial verdict has an unknown state")

func checkState(s verdict.State) error {
	switch s {
	case verdict.OK, verdict.Overloaded, verdict.Invalid:
		return nil
	}
	return fmt.Errorf("%w %q (want ok, overloaded or invalid)", ErrOutcome, s)
}
