package limit

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/plimsoll/plimsoll/results"
	"github.com/plimsoll/plimsoll/units"
	"github.com/plimsoll/plimsoll/verdict"
	"gonum.org/v1/gonum/stat"
)

// request is a trial the search asks for, with the limit and phase it serves.
type request struct {
	Request
	phase results.Phase
	limit string
	dir   int // +1 a bracket step up, -1 down, 0 otherwise
}

// tried is one finished trial of a size.
type tried struct {
	seq     int
	req     request
	attempt int
	out     outcome
}

// sizeState is the search for one size: every trial so far, from which both limits are drawn.
type sizeState struct {
	size     int
	o        Options
	r0       float64 // the ceiling's start
	sloStart float64 // the SLO limit's predicted rate; 0: none
	tried    []tried
}

func newSizeState(size int, r0 float64, o Options) *sizeState {
	z := &sizeState{size: size, o: o, r0: r0}
	if o.SLO && o.StartSLO != nil {
		if r := o.StartSLO(size); r > 0 && !math.IsInf(r, 0) {
			z.sloStart = math.Min(math.Max(r, o.MinRate), o.MaxRate)
		}
	}
	return z
}

func (z *sizeState) trials() int { return len(z.tried) }

func (z *sizeState) add(seq int, req request, attempt int, out outcome) {
	z.tried = append(z.tried, tried{seq: seq, req: req, attempt: attempt, out: out})
}

// holds counts the confirmations run so far.
func (z *sizeState) holds() int {
	n := 0
	for _, t := range z.tried {
		if t.req.Hold {
			n++
		}
	}
	return n
}

// limitView is one limit as the trials of the size show it.
type limitView struct {
	name          string
	lo, hi, cb    float64 // highest ok below hi, lowest overloaded, lowest client-bound; 0: none
	loT, hiT, cbT *tried
	contradicted  []results.Contradiction
	confirmed     bool // a hold at lo was ok
}

// upper is the lowest rate known not to be ok: overloaded or client-bound; 0 when none.
func (v *limitView) upper() float64 {
	if v.hidden() {
		return v.cb
	}
	return v.hi
}

// hidden reports whether a client-bound trial lies below every overloaded one, so the limit may
// be where the generator cannot reach.
func (v *limitView) hidden() bool { return v.cb > 0 && (v.hi == 0 || v.cb < v.hi) }

func (v *limitView) bracketed() bool { return v.lo > 0 && v.upper() > 0 }

// view draws one limit from the trials: the ceiling is judged by the verdict's Ceiling, the SLO
// limit by its State.
func (z *sizeState) view(name string) *limitView {
	v := &limitView{name: name}
	judge := func(t *tried) verdict.State {
		if name == results.LimitCeiling {
			return t.out.ceiling
		}
		return t.out.state
	}
	for i := range z.tried {
		t := &z.tried[i]
		switch {
		case t.out.clientBound:
			if v.cb == 0 || t.req.Rate < v.cb {
				v.cb, v.cbT = t.req.Rate, t
			}
		case judge(t) == verdict.Overloaded && (v.hi == 0 || t.req.Rate < v.hi):
			v.hi, v.hiT = t.req.Rate, t
		}
	}
	for i := range z.tried {
		t := &z.tried[i]
		if t.out.clientBound || judge(t) != verdict.OK {
			continue
		}
		if v.hi > 0 && t.req.Rate >= v.hi {
			v.contradicted = append(v.contradicted, results.Contradiction{Limit: name, OK: t.seq, OKRate: storedRate(t.req.Rate),
				Overloaded: v.hiT.seq, OverRate: storedRate(v.hi)})
			continue
		}
		if t.req.Rate > v.lo {
			v.lo, v.loT = t.req.Rate, t
		}
	}
	for _, t := range z.tried {
		if t.req.Hold && sameRate(t.req.Rate, v.lo) && !t.out.clientBound && judge(&t) == verdict.OK {
			v.confirmed = true
		}
	}
	return v
}

// steps counts the bracket steps already asked for this limit in direction dir (0: its start).
func (z *sizeState) steps(name string, dir int) int {
	n := 0
	for _, t := range z.tried {
		if t.req.limit == name && t.req.dir == dir && t.attempt == 1 {
			n++
		}
	}
	return n
}

// step is the factor of the next bracket step for a limit: FirstStep, then its square, its
// fourth power, ..., never more than Growth.
func (z *sizeState) step(name string, dir int) float64 {
	k := z.steps(name, dir)
	return math.Min(z.o.Growth, math.Pow(z.o.FirstStep, math.Pow(2, float64(k))))
}

// next decides the next trial, or that the size is done, with a note when a bracket is not a
// tight one.
func (z *sizeState) next() (request, string, bool) {
	var notes []string
	c := z.view(results.LimitCeiling)
	if req, note, done := z.nextFor(c, z.r0); !done {
		return req, "", false
	} else if note != "" {
		notes = append(notes, note)
	}
	if z.o.SLO {
		s := z.view(results.LimitSLO)
		if req, note, done := z.nextFor(s, z.sloStart); !done {
			return req, "", false
		} else if note != "" {
			notes = append(notes, "SLO limit: "+note)
		}
	}
	if req, ok := z.confirm(); ok {
		return req, "", false
	}
	return request{}, strings.Join(notes, "; "), true
}

// confirm is the hold of the safe rate a safe load rests on, when one is due.
func (z *sizeState) confirm() (request, bool) {
	if !z.o.Confirm || z.holds() >= z.o.MaxHolds {
		return request{}, false
	}
	name := results.LimitCeiling
	if z.o.SLO {
		name = results.LimitSLO
	}
	v := z.view(name)
	if v.lo <= 0 || v.confirmed {
		return request{}, false
	}
	return request{Request: Request{Size: z.size, Rate: v.lo, Hold: true}, phase: results.PhaseConfirm, limit: name}, true
}

// nextFor is the next trial for one limit, or that the limit is done (with a note when its
// bracket is not a tight one). start is its first rate when nothing is known of it yet, or a
// prediction to try first when only rates above it are known not to be ok; 0: none.
func (z *sizeState) nextFor(v *limitView, start float64) (request, string, bool) {
	o := z.o
	req := func(rate float64, phase results.Phase, dir int) (request, string, bool) {
		return request{Request: Request{Size: z.size, Rate: rate}, phase: phase, limit: v.name, dir: dir}, "", false
	}
	switch upper := v.upper(); {
	case v.lo > 0 && upper > 0:
		// Bisect [lo, upper]. When upper is client-bound, this searches below the rate the
		// generator failed at: it finds an overloaded rate there (the limit after all) or closes
		// in on the generator's own limit, which then bounds the answer from below.
		if BisectBound(v.lo, upper, o.Tolerance) == 0 {
			if v.hidden() {
				return request{}, z.clientNote(v), true
			}
			return request{}, "", true
		}
		return req(math.Sqrt(v.lo*upper), results.PhaseBisect, 0)
	case v.lo > 0: // only ok so far: raise
		if reaches(v.lo, o.MaxRate, o.Growth) {
			return request{}, fmt.Sprintf("ok at MaxRate (%s msgs/s), the most this search may ask for: the limit is higher; raise MaxRate if the load generator can drive more",
				units.Sig(o.MaxRate, 3)), true
		}
		next := v.lo * z.step(v.name, +1)
		if reaches(next, o.MaxRate, o.Growth) {
			next = o.MaxRate
		}
		return req(next, results.PhaseBracket, +1)
	case upper > 0: // only overloaded or client-bound so far: lower
		if reaches(o.MinRate, upper, o.Growth) {
			if !v.hidden() {
				return request{}, fmt.Sprintf("overloaded even at MinRate (%s msgs/s): the limit is lower; lower MinRate or check the cluster's health",
					units.Sig(o.MinRate, 3)), true
			}
			return request{}, fmt.Sprintf("the load generator could not drive even MinRate (%s msgs/s) (client-bound: %s); %s",
				units.Sig(o.MinRate, 3), v.cbT.out.reasons, moreRoom), true
		}
		if start > 0 && start < upper && z.steps(v.name, 0) == 0 {
			return req(start, results.PhaseBracket, 0)
		}
		next := upper / z.step(v.name, -1)
		if reaches(o.MinRate, next, o.Growth) {
			next = o.MinRate
		}
		return req(next, results.PhaseBracket, -1)
	default: // nothing known of this limit yet
		return req(start, results.PhaseBracket, 0)
	}
}

const moreRoom = "give the generator more room: more producers, more cores, or run plimsoll on another host than the brokers"

func (z *sizeState) clientNote(v *limitView) string {
	return fmt.Sprintf("the load generator could not drive %s msgs/s (client-bound: %s), so the cluster's limit for %d-byte messages is unknown above %s msgs/s; %s",
		units.Sig(v.cb, 3), v.cbT.out.reasons, z.size, units.Sig(v.lo, 3), moreRoom)
}

// rest estimates the trials the size still needs, the next one included.
func (z *sizeState) rest() int {
	n := 0
	names := []string{results.LimitCeiling}
	if z.o.SLO {
		names = append(names, results.LimitSLO)
	}
	for _, name := range names {
		v := z.view(name)
		switch {
		case v.bracketed():
			n += BisectBound(v.lo, v.upper(), z.o.Tolerance)
		default:
			n += 1 + BisectBound(1, z.o.Growth, z.o.Tolerance)
		}
	}
	if z.o.Confirm && z.holds() == 0 {
		n++
	}
	return max(n, 1)
}

// point is the size's answer: both limits as the trials show them.
func (z *sizeState) point(note string) results.Boundary {
	c := z.view(results.LimitCeiling)
	p := results.Boundary{Size: z.size, Ceiling: z.limit(c), Trials: len(z.tried), Note: note, NonMonotonic: c.contradicted,
		LinkOverhead: z.linkOverhead()}
	if z.o.SLO {
		s := z.view(results.LimitSLO)
		l := z.limit(s)
		p.SLO = &l
		p.NonMonotonic = append(p.NonMonotonic, s.contradicted...)
	}
	return p
}

func (z *sizeState) limit(v *limitView) results.Limit {
	// Rates as stored with the trials (9 significant digits), so a point names its trials' rates.
	l := results.Limit{SafeRate: storedRate(v.lo), UnsafeRate: storedRate(v.hi), ClientBound: v.hidden(), Confirmed: v.confirmed}
	l.SafeBytesPerSec = storedRate(l.SafeRate * float64(z.size))
	switch {
	case v.hiT != nil && v.hiT.out.bottleneck != "":
		l.Bottleneck = v.hiT.out.bottleneck
	case l.ClientBound:
		l.Bottleneck = v.cbT.out.bottleneck
		if l.Bottleneck == "" {
			l.Bottleneck = "load generator"
		}
	case v.loT != nil:
		l.Bottleneck = v.loT.out.bottleneck
	}
	return l
}

// linkOverhead is the median link overhead of the trials the ceiling judged ok, or of all the
// trials that measured one when none was ok; 0 when none did.
func (z *sizeState) linkOverhead() float64 {
	var ok, all []float64
	for _, t := range z.tried {
		if !t.out.hasLink {
			continue
		}
		all = append(all, t.out.linkOverhead)
		if t.out.ceiling == verdict.OK {
			ok = append(ok, t.out.linkOverhead)
		}
	}
	if len(ok) == 0 {
		ok = all
	}
	if len(ok) == 0 {
		return 0
	}
	slices.Sort(ok)
	return stat.Quantile(0.5, stat.Empirical, ok, nil)
}

// SoFar is the boundary point that one size's stored trials give so far, drawn by the rules the
// search's own points follow (a client-bound trial below every overloaded one hides the limit, an
// ok trial above an overloaded one is a contradiction, a held ok rate is confirmed), so that a
// size still being searched (the live page) is never shown a bracket the search would not report.
func SoFar(trials []results.Trial, size int, slo bool) results.Boundary {
	z := &sizeState{size: size, o: Options{SLO: slo}}
	for i := range trials {
		t := &trials[i]
		if t.Step == nil || t.Step.Size != size {
			continue
		}
		req := request{Request: Request{Size: size, Rate: t.Step.Rate, Hold: t.Step.Hold}, phase: t.Step.Phase, limit: t.Step.Limit}
		z.add(t.Step.Seq, req, t.Step.Attempt, outcomeOf(t))
	}
	return z.point("")
}
