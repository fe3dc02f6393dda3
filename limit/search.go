package limit

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strings"
)

// ErrOutcome is wrapped when a Trialer returns an Outcome with an unknown State.
var ErrOutcome = errors.New("trial outcome has an unknown state")

// Search finds, for each of o.Sizes in order, the highest rate the cluster sustains and the
// lowest it does not, by asking t for trials one at a time.
//
// For one size it starts at r0 (Options.Start, else derived; clamped to [MinRate, MaxRate]):
//
//  1. Bracket: while only ok trials are known, multiply the rate by Growth (capped at MaxRate);
//     while none is, divide it (floored at MinRate). This ends with an ok rate lo and a rate
//     hi above it that was overloaded or client-bound, hi/lo <= Growth, or at a bound of the
//     space.
//  2. Bisect: try sqrt(lo x hi), the midpoint in log space, and replace lo or hi with it, until
//     (hi - lo)/lo <= Tolerance.
//
// Trial bound. Without retries, the trials for one size number at most B + K where
//
//	B = 1 + ceil(log_Growth(MaxRate/r0))   when the first trial is ok (the rate rises),
//	B = 1 + ceil(log_Growth(r0/MinRate))   when it is not (the rate falls),
//
// counts the bracket trials (all of them when the bracket runs into MaxRate or MinRate, fewer
// when it closes first), and, with [lo0, hi0] the first bracket,
//
//	K = ceil(log2(ln(hi0/lo0) / ln(1+Tolerance)))  <=  ceil(log2(((hi0-lo0)/lo0) / Tolerance))
//
// counts the bisection trials (exactly K, as each halves ln(hi/lo)); since hi0/lo0 <= Growth,
// K <= ceil(log2(ln(Growth)/ln(1+Tolerance))): 4 for the defaults. The "range" of the usual
// statement is the bracket's relative width (hi0-lo0)/lo0. See BracketBound and BisectBound.
// A trial that is invalid for a reason other than client-bound is retried once at the same rate
// and adds one trial; if the retry is invalid too, the size ends there.
//
// Client-bound trials never become the safe or the unsafe point. A client-bound trial at rate r
// means "unknown at r": the search never asks for r or more again for that size. It still
// bisects below r, where it either finds an overloaded rate (the cluster's limit was below the
// generator's after all, and the point is a normal one) or closes in on the generator's own
// limit: then the point is ClientBound, SafeRate (the highest ok rate) is only a lower bound of
// the cluster's limit, and Note says how to give the generator more room. Before any ok rate is
// known, a client-bound trial lowers the rate like an overloaded one.
//
// Without Start, a size starts from the previous size's safe rate at equal bytes/s (safe x
// prevSize/size), or at DefaultStartBPS bytes/s when no earlier size found one.
//
// With Store set, every finished trial is appended to it before the next starts, and a
// "boundary" record follows each finished size. With Resume, whenever the search needs a trial
// that the Store already holds (same size, same rate within 1e-8 relative; a retry takes the
// second such trial), it reuses the stored outcome instead of calling t. Because the search is
// deterministic, a resumed search runs exactly the trials the interrupted one had left.
//
// Search returns the points of the sizes it finished. It stops at the first error: a bad option
// (*OptionError), a results file it may not resume (*MismatchError, ErrStoreInUse), a failed
// trial or ctx's cancellation (wrapped as is, so errors.Is(err, context.Canceled) works).
func Search(ctx context.Context, t Trialer, o Options) ([]Point, error) {
	o, starts, err := o.normalize()
	if err != nil {
		return nil, err
	}
	st, err := openStore(o, starts)
	if err != nil {
		return nil, err
	}
	defer st.close()
	s := &search{t: t, o: o, st: st, finished: make([]int, 0, len(o.Sizes))}
	var points []Point
	for i, size := range o.Sizes {
		s.sizeIndex = i
		r0 := DefaultStartBPS / float64(size)
		switch {
		case starts != nil:
			r0 = starts[i]
		case len(points) > 0:
			for j := len(points) - 1; j >= 0; j-- {
				if points[j].SafeRate > 0 {
					r0 = points[j].SafeRate * float64(points[j].Size) / float64(size)
					break
				}
			}
		}
		p, err := s.size(ctx, size, math.Min(math.Max(r0, o.MinRate), o.MaxRate))
		if err != nil {
			return points, err
		}
		if err := st.boundary(p); err != nil {
			return points, err
		}
		points = append(points, p)
		s.finished = append(s.finished, p.Trials)
	}
	if err := st.close(); err != nil {
		return points, fmt.Errorf("limit: %w", err)
	}
	return points, nil
}

// search holds what spans sizes: counters for Progress and the store.
type search struct {
	t         Trialer
	o         Options
	st        *store
	sizeIndex int
	finished  []int // trials used by each finished size
	seq       int   // trials so far, all sizes
	counts    [3]int
}

// sizeState is the search for one size.
type sizeState struct {
	size       int
	lo, hi, cb float64 // highest ok, lowest overloaded, lowest client-bound rate; 0 = none yet
	loOut      Outcome
	hiOut      Outcome
	cbOut      Outcome
	trials     int
}

// upper is the lowest rate known not to be ok: overloaded or client-bound; 0 when none.
func (z *sizeState) upper() float64 {
	if z.hidden() {
		return z.cb
	}
	return z.hi
}

// bracketed reports whether the bracket phase is over: an ok rate and one above it that is not.
func (z *sizeState) bracketed() bool { return z.lo > 0 && z.upper() > 0 }

// hidden reports whether a client-bound trial lies below every overloaded one, so the cluster's
// limit may be where the generator cannot reach.
func (z *sizeState) hidden() bool { return z.cb > 0 && (z.hi == 0 || z.cb < z.hi) }

func (s *search) size(ctx context.Context, size int, r0 float64) (Point, error) {
	z := &sizeState{size: size}
	rate, attempt := r0, 1
	for {
		if z.trials >= s.o.MaxTrialsPerSize {
			return z.point(fmt.Sprintf("stopped after %d trials (MaxTrialsPerSize) before the bracket was within tolerance; the cluster may be flapping between verdicts",
				z.trials)), nil
		}
		out, err := s.run(ctx, z, rate, attempt)
		if err != nil {
			return Point{}, err
		}
		if out.State == Invalid && !out.ClientBound {
			if attempt == 1 { // a failed trial may be bad luck: once more at the same rate
				attempt = 2
				continue
			}
			return z.point(fmt.Sprintf("the trial at %s msgs/s was invalid twice (%s), so the search for this size stopped there",
				FormatRate(rate), reasons(out))), nil
		}
		attempt = 1
		switch {
		case out.ClientBound:
			z.cb, z.cbOut = rate, out
		case out.State == OK:
			z.lo, z.loOut = rate, out
		default:
			z.hi, z.hiOut = rate, out
		}
		next, note, done := s.next(z)
		if done {
			return z.point(note), nil
		}
		rate = next
	}
}

// next decides the rate of the next trial, or that the size is done (with a note when the
// bracket is not a tight one).
func (s *search) next(z *sizeState) (float64, string, bool) {
	o := s.o
	switch upper := z.upper(); {
	case z.lo > 0 && upper > 0:
		// Bisect [lo, upper]. When upper is client-bound, this searches below the rate the
		// generator failed at: it finds an overloaded rate there (the cluster's limit after all)
		// or closes in on the generator's own limit, which then bounds the answer from below.
		if BisectBound(z.lo, upper, o.Tolerance) == 0 {
			if z.hidden() {
				return 0, s.clientNote(z), true
			}
			return 0, "", true
		}
		return math.Sqrt(z.lo * upper), "", false
	case z.lo > 0: // only ok so far: raise
		if reaches(z.lo, o.MaxRate, o.Growth) {
			return 0, fmt.Sprintf("ok at MaxRate (%s msgs/s), the most this search may ask for: the limit is higher; raise MaxRate if the load generator can drive more",
				FormatRate(o.MaxRate)), true
		}
		next := z.lo * o.Growth
		if reaches(next, o.MaxRate, o.Growth) {
			next = o.MaxRate
		}
		return next, "", false
	default: // only overloaded or client-bound so far: lower
		if reaches(o.MinRate, upper, o.Growth) {
			if !z.hidden() {
				return 0, fmt.Sprintf("overloaded even at MinRate (%s msgs/s): the limit is lower; lower MinRate or check the cluster's health",
					FormatRate(o.MinRate)), true
			}
			return 0, fmt.Sprintf("the load generator could not drive even MinRate (%s msgs/s) (client-bound: %s); %s",
				FormatRate(o.MinRate), reasons(z.cbOut), moreRoom), true
		}
		next := upper / o.Growth
		if reaches(o.MinRate, next, o.Growth) {
			next = o.MinRate
		}
		return next, "", false
	}
}

const moreRoom = "give the generator more room: more producers, more cores, or run plimsoll on another host than the brokers"

func (s *search) clientNote(z *sizeState) string {
	return fmt.Sprintf("the load generator could not drive %s msgs/s (client-bound: %s), so the cluster's limit for %d-byte messages is unknown above %s msgs/s; %s",
		FormatRate(z.cb), reasons(z.cbOut), z.size, FormatRate(z.lo), moreRoom)
}

func (out Outcome) check() error {
	switch out.State {
	case OK, Overloaded, Invalid:
		return nil
	}
	return fmt.Errorf("%w %q (want ok, overloaded or invalid)", ErrOutcome, out.State)
}

func reasons(out Outcome) string {
	if len(out.Reasons) == 0 {
		return "no reason given"
	}
	return strings.Join(out.Reasons, "; ")
}

func (z *sizeState) point(note string) Point {
	// Rates as stored with the trials (9 significant digits), so a point names its trials' rates.
	p := Point{Size: z.size, SafeRate: storedRate(z.lo), UnsafeRate: storedRate(z.hi), Trials: z.trials, Note: note}
	p.SafeBytesPerSec = storedRate(p.SafeRate * float64(z.size))
	p.ClientBound = z.hidden()
	switch {
	case z.hi > 0 && z.hiOut.Bottleneck != "":
		p.Bottleneck = z.hiOut.Bottleneck
	case p.ClientBound:
		p.Bottleneck = z.cbOut.Bottleneck
		if p.Bottleneck == "" {
			p.Bottleneck = "load generator"
		}
	case z.lo > 0:
		p.Bottleneck = z.loOut.Bottleneck
	}
	return p
}

// run gets the outcome of one trial, from the store on resume or from the Trialer, stores it,
// and reports progress.
func (s *search) run(ctx context.Context, z *sizeState, rate float64, attempt int) (Outcome, error) {
	if err := ctx.Err(); err != nil {
		return Outcome{}, fmt.Errorf("limit: search interrupted before trial %d: %w", s.seq+1, err)
	}
	s.seq++
	z.trials++
	phase := PhaseBracket
	if z.bracketed() {
		phase = PhaseBisect
	}
	pr := Progress{Trial: s.seq, About: s.about(z), Size: z.size, SizeIndex: s.sizeIndex, Sizes: len(s.o.Sizes),
		Rate: rate, Phase: phase, Attempt: attempt}
	out, reused := s.st.reuse(z.size, rate)
	if !reused {
		s.progress(pr)
		var err error
		out, err = s.t.Trial(ctx, z.size, rate)
		if err != nil {
			return Outcome{}, fmt.Errorf("limit: trial %d (%d-byte messages at %s msgs/s): %w", s.seq, z.size, FormatRate(rate), err)
		}
		if err := out.check(); err != nil {
			return Outcome{}, fmt.Errorf("limit: trial %d: %w", s.seq, err)
		}
		if err := s.st.trial(Trial{Seq: s.seq, Size: z.size, Rate: rate, Phase: phase, Attempt: attempt, Outcome: out}); err != nil {
			return Outcome{}, err
		}
	}
	switch {
	case out.ClientBound || out.State == Invalid:
		s.counts[2]++
	case out.State == OK:
		s.counts[0]++
	default:
		s.counts[1]++
	}
	pr.Done, pr.Outcome, pr.Reused = true, out, reused
	pr.OK, pr.Overloaded, pr.Invalid = s.counts[0], s.counts[1], s.counts[2]
	s.progress(pr)
	return out, nil
}

func (s *search) progress(p Progress) {
	if s.o.Progress == nil {
		return
	}
	if !p.Done {
		p.OK, p.Overloaded, p.Invalid = s.counts[0], s.counts[1], s.counts[2]
	}
	s.o.Progress(p)
}

// about estimates the trials of the whole search, this one included: those used so far, what
// the current size still needs at least, and a typical count for each size to come (one
// bracket step each way plus a full bisection).
func (s *search) about(z *sizeState) int {
	n := 0
	for _, t := range s.finished {
		n += t
	}
	perSize := 2 + BisectBound(1, s.o.Growth, s.o.Tolerance)
	rest := perSize
	switch {
	case z.bracketed():
		rest = BisectBound(z.lo, z.upper(), s.o.Tolerance)
	case z.lo > 0 || z.hi > 0:
		rest = 1 + BisectBound(1, s.o.Growth, s.o.Tolerance)
	}
	// z.trials already counts the trial about to run, which rest also covers.
	n += max(z.trials-1+rest, z.trials)
	return n + perSize*(len(s.o.Sizes)-1-s.sizeIndex)
}
