package limit

import (
	"context"
	"fmt"
	"math"

	"github.com/plimsoll/plimsoll/results"
	"github.com/plimsoll/plimsoll/units"
	"github.com/plimsoll/plimsoll/verdict"
)

// Search finds, for each of o.Sizes in order, the two limits of the cluster: the throughput
// ceiling (the highest rate ok by every criterion but the latency SLO) and, when o.SLO is set,
// the SLO limit (ok by every criterion), each as the highest ok rate and the lowest overloaded
// one within o.Tolerance. It asks t for trials one at a time; every trial is judged on both.
//
// For one size:
//
//  1. The ceiling. From its start r0 (Options.Start, else derived; clamped to [MinRate,
//     MaxRate]) the rate steps up while every trial is ok and down while none is, each step
//     the square of the last (FirstStep, FirstStep², FirstStep⁴, ... never more than Growth),
//     until an ok rate lo and an overloaded rate hi bracket the ceiling. Then it bisects,
//     trying sqrt(lo x hi), until (hi - lo)/lo <= Tolerance.
//  2. The SLO limit, the same way, starting from StartSLO when that lies inside what the
//     trials so far allow, else stepping down from the lowest rate that missed the SLO. The
//     ceiling's trials count for it too: a trial that missed only the SLO is ok for the
//     ceiling and overloaded for the SLO.
//  3. With Confirm, the safe rate of the limit a safe load rests on (the SLO limit when there
//     is one) is held for longer (a trial with Hold set). If it holds, it is Confirmed. If not,
//     that rate is overloaded for the limit, the two trials are reported as NonMonotonic, and
//     the search bisects below it and confirms again, at most MaxHolds times.
//
// The brackets are always drawn from every trial of the size: a limit's unsafe rate is the
// lowest rate overloaded by its judgement, its safe rate the highest ok rate below that. An ok
// trial at or above an overloaded one contradicts the assumption that overload is monotonic
// in the rate; the pair is listed in the point's NonMonotonic, never averaged away.
//
// A trial that is invalid for a reason other than client-bound is retried once at the same
// rate; if the retry is invalid too, the size ends there. A client-bound trial at rate r means
// "unknown at r" for both limits: no rate at or above r is asked for again, and a limit whose
// bracket would need one is ClientBound, its safe rate only a lower bound. MaxTrialsPerSize
// caps a size that keeps flapping.
//
// With Store set, every finished trial is appended to it before the next starts, and a
// "boundary" record follows each finished size. With Resume, whenever the search needs a trial
// that the Store already holds (same size, rate within 1e-8 relative, same hold; a retry takes
// the second such trial), it reuses the stored record instead of calling t. Because the search
// is deterministic, a resumed search runs exactly the trials the interrupted one had left.
//
// Search returns the points of the sizes it finished. It stops at the first error: a bad option
// (*OptionError), a results file it may not resume (*MismatchError, ErrStoreInUse), a failed
// trial or ctx's cancellation (wrapped as is, so errors.Is(err, context.Canceled) works).
func Search(ctx context.Context, t Trialer, o Options) ([]results.Boundary, error) {
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
	var points []results.Boundary
	for i, size := range o.Sizes {
		s.sizeIndex = i
		r0 := startRate(o, starts, i, size, points)
		if o.Reframe != nil && starts != nil && i > 0 && points[i-1].LinkOverhead > 0 {
			if r := o.Reframe(size, points[i-1].LinkOverhead); r > 0 && !math.IsInf(r, 0) {
				r0 = math.Min(math.Max(r, o.MinRate), o.MaxRate)
			}
		}
		p, err := s.size(ctx, size, r0)
		if err != nil {
			return points, err
		}
		if o.Predict != nil {
			p.Model = o.Predict(size, p.LinkOverhead)
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

// startRate is the first rate for the size at index i: Start's, else the last safe rate found
// at equal bytes/s, else DefaultStartBPS; clamped to [MinRate, MaxRate].
func startRate(o Options, starts []float64, i, size int, points []results.Boundary) float64 {
	r0 := DefaultStartBPS / float64(size)
	switch {
	case starts != nil:
		r0 = starts[i]
	case len(points) > 0:
		for j := len(points) - 1; j >= 0; j-- {
			if c := points[j].Ceiling; c.SafeRate > 0 {
				r0 = c.SafeRate * float64(points[j].Size) / float64(size)
				break
			}
		}
	}
	return math.Min(math.Max(r0, o.MinRate), o.MaxRate)
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

func (s *search) size(ctx context.Context, size int, r0 float64) (results.Boundary, error) {
	z := newSizeState(size, r0, s.o)
	for {
		if z.trials() >= s.o.MaxTrialsPerSize {
			return z.point(fmt.Sprintf("stopped after %d trials (MaxTrialsPerSize) before the brackets were within tolerance; the cluster may be flapping between verdicts",
				z.trials())), nil
		}
		req, note, done := z.next()
		if done {
			return z.point(note), nil
		}
		out, err := s.run(ctx, z, req, 1)
		if err != nil {
			return results.Boundary{}, err
		}
		if out.state == verdict.Invalid && !out.clientBound {
			// A failed trial may be bad luck: once more at the same rate.
			if out, err = s.run(ctx, z, req, 2); err != nil {
				return results.Boundary{}, err
			}
			if out.state == verdict.Invalid && !out.clientBound {
				return z.point(fmt.Sprintf("the trial at %s msgs/s was invalid twice (%s), so the search for this size stopped there",
					units.Sig(req.Rate, 3), out.reasons)), nil
			}
		}
	}
}

// run gets the outcome of one trial, from the store on resume or from the Trialer, stores it,
// adds it to the size's trials and reports progress.
func (s *search) run(ctx context.Context, z *sizeState, req request, attempt int) (outcome, error) {
	if err := ctx.Err(); err != nil {
		return outcome{}, fmt.Errorf("limit: search interrupted before trial %d: %w", s.seq+1, err)
	}
	s.seq++
	step := results.Step{Seq: s.seq, Size: z.size, Rate: req.Rate, Phase: req.phase, Limit: req.limit, Hold: req.Hold, Attempt: attempt}
	pr := Progress{Trial: s.seq, About: s.about(z), Size: z.size, SizeIndex: s.sizeIndex, Sizes: len(s.o.Sizes),
		Rate: req.Rate, Phase: req.phase, Limit: req.limit, Hold: req.Hold, Attempt: attempt}
	t, reused := s.st.reuse(z.size, req.Rate, req.Hold)
	if !reused {
		s.progress(pr)
		var err error
		if t, err = s.trial(ctx, step, req.Request); err != nil {
			return outcome{}, err
		}
	}
	out := outcomeOf(t)
	z.add(s.seq, req, attempt, out)
	s.count(out)
	pr.Done, pr.Result, pr.Reused = true, t, reused
	pr.OK, pr.Overloaded, pr.Invalid = s.counts[0], s.counts[1], s.counts[2]
	s.progress(pr)
	return out, nil
}

// trial runs the trial of step and stores its record.
func (s *search) trial(ctx context.Context, step results.Step, req Request) (*results.Trial, error) {
	t, err := s.t.Trial(ctx, req)
	if err != nil {
		return nil, fmt.Errorf("limit: trial %d (%d-byte messages at %s msgs/s): %w", step.Seq, step.Size, units.Sig(step.Rate, 3), err)
	}
	if err := checkState(t.Verdict.State); err != nil {
		return nil, fmt.Errorf("limit: trial %d: %w", step.Seq, err)
	}
	t.Step = &step
	if err := s.st.trial(t); err != nil {
		return nil, err
	}
	return t, nil
}

func (s *search) count(out outcome) {
	switch {
	case out.clientBound || out.state == verdict.Invalid:
		s.counts[2]++
	case out.state == verdict.OK:
		s.counts[0]++
	default:
		s.counts[1]++
	}
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
// the current size still needs at least, and a typical count for each size to come.
func (s *search) about(z *sizeState) int {
	n := 0
	for _, t := range s.finished {
		n += t
	}
	perSize := s.o.typicalPerSize()
	// z.trials() already counts the trials before this one; rest covers this one.
	n += max(z.trials()+z.rest(), z.trials()+1)
	return n + perSize*(len(s.o.Sizes)-1-s.sizeIndex)
}

// typicalPerSize is a typical count of trials for a size: for each limit one step each way and
// a full bisection, and a hold.
func (o Options) typicalPerSize() int {
	n := 2 + BisectBound(1, o.Growth, o.Tolerance)
	if o.SLO {
		n *= 2
	}
	if o.Confirm {
		n++
	}
	return n
}
