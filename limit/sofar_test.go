package limit

import (
	"testing"

	"github.com/plimsoll/plimsoll/results"
	"github.com/plimsoll/plimsoll/verdict"
)

// st is a stored trial of a search, for SoFar.
type st struct {
	seq, size   int
	rate        float64
	state       verdict.State
	clientBound bool
}

func stored(ts ...st) []results.Trial {
	var out []results.Trial
	for _, s := range ts {
		t := results.Trial{Step: &results.Step{Seq: s.seq, Size: s.size, Rate: s.rate, Attempt: 1, Limit: results.LimitCeiling}}
		t.Verdict.State, t.Verdict.Ceiling = s.state, s.state
		if s.clientBound {
			t.Verdict.Reasons = []verdict.Reason{{Criterion: verdict.CritClientBound, Text: "the generator fell behind"}}
		}
		out = append(out, t)
	}
	return out
}

func TestSoFar(t *testing.T) {
	for _, c := range []struct {
		name         string
		trials       []st
		safe, unsafe float64
		clientBound  bool
		n            int
	}{
		{"ok only", []st{{1, 100, 10, verdict.OK, false}, {2, 100, 20, verdict.OK, false}}, 20, 0, false, 2},
		{"bracketed", []st{{1, 100, 10, verdict.OK, false}, {2, 100, 40, verdict.Overloaded, false},
			{3, 100, 20, verdict.Overloaded, false}, {4, 100, 15, verdict.OK, false}}, 15, 20, false, 4},
		{"ok above overloaded is not safe", []st{{1, 100, 30, verdict.OK, false}, {2, 100, 20, verdict.Overloaded, false},
			{3, 100, 10, verdict.OK, false}}, 10, 20, false, 3},
		{"invalid counted, not judged", []st{{1, 100, 10, verdict.OK, false}, {2, 100, 20, verdict.Invalid, false}}, 10, 0, false, 2},
		{"client-bound with nothing overloaded hides the limit", []st{{1, 100, 10, verdict.OK, false},
			{2, 100, 20, verdict.Invalid, true}}, 10, 0, true, 2},
		// The live page's own bracket showed [10, 40) here: a search reports no such bracket.
		{"client-bound below the overloaded rate hides the limit", []st{{1, 100, 10, verdict.OK, false},
			{2, 100, 20, verdict.Invalid, true}, {3, 100, 40, verdict.Overloaded, false}}, 10, 40, true, 3},
		{"other sizes ignored", []st{{1, 1000, 10, verdict.OK, false}, {2, 100, 5, verdict.OK, false}}, 5, 0, false, 1},
	} {
		t.Run(c.name, func(t *testing.T) {
			for _, slo := range []bool{false, true} {
				b := SoFar(stored(c.trials...), 100, slo)
				l := b.Ceiling
				if l.SafeRate != c.safe || l.UnsafeRate != c.unsafe || l.ClientBound != c.clientBound || b.Trials != c.n || l.SafeBytesPerSec != c.safe*100 {
					t.Errorf("got safe %v unsafe %v client-bound %v (%v B/s) in %d trials, want %v, %v, %v in %d",
						l.SafeRate, l.UnsafeRate, l.ClientBound, l.SafeBytesPerSec, b.Trials, c.safe, c.unsafe, c.clientBound, c.n)
				}
				if (b.SLO != nil) != slo || slo && (b.SLO.SafeRate != l.SafeRate || b.SLO.UnsafeRate != l.UnsafeRate) {
					t.Errorf("SLO limit %+v with slo %v, want the ceiling's brackets or none", b.SLO, slo)
				}
			}
		})
	}
}

// TestSoFarSLO: a trial that missed the latency SLO but kept up is ok for the ceiling and
// overloaded for the SLO limit.
func TestSoFarSLO(t *testing.T) {
	ts := stored(st{1, 100, 10, verdict.OK, false}, st{2, 100, 20, verdict.Overloaded, false}, st{3, 100, 40, verdict.Overloaded, false})
	ts[1].Verdict.Ceiling = verdict.OK
	b := SoFar(ts, 100, true)
	if b.Ceiling.SafeRate != 20 || b.Ceiling.UnsafeRate != 40 || b.SLO == nil || b.SLO.SafeRate != 10 || b.SLO.UnsafeRate != 20 {
		t.Errorf("ceiling %+v, SLO %+v; want [20, 40) and [10, 20)", b.Ceiling, b.SLO)
	}
}
