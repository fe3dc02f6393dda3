package limit

import (
	"context"
	"math"
	"testing"

	"github.com/plimsoll/plimsoll/results"
	"github.com/plimsoll/plimsoll/verdict"
)

// sloLimit is the simulated cluster's true SLO limit at size, msgs/s.
func (c *simCluster) sloLimit(size int) float64 {
	l, _ := c.limit(size)
	if c.sloCap > 0 {
		l = math.Min(l, c.sloCap/float64(size+c.overhead))
	}
	return l
}

// checkLimit asserts that a limit brackets the true rate within the tolerance, on trials judged
// as it says.
func checkLimit(t *testing.T, name string, l results.Limit, truth, tol float64, calls []call, judge func(*results.Trial) verdict.State) {
	t.Helper()
	const slack = 1 + 1e-8
	if !l.Found() || !(l.SafeRate <= truth*slack && truth < l.UnsafeRate*slack) || (l.UnsafeRate-l.SafeRate)/l.SafeRate > tol+2e-8 {
		t.Errorf("%s: true limit %v not bracketed within %v by [%v, %v)", name, truth, tol, l.SafeRate, l.UnsafeRate)
	}
	ok, over := false, false
	for _, c := range calls {
		ok = ok || sameRate(c.rate, l.SafeRate) && judge(c.out) == verdict.OK
		over = over || sameRate(c.rate, l.UnsafeRate) && judge(c.out) == verdict.Overloaded
	}
	if !ok || !over {
		t.Errorf("%s: [%v, %v) does not rest on an ok and an overloaded trial", name, l.SafeRate, l.UnsafeRate)
	}
}

func ceilingJudge(t *results.Trial) verdict.State { return t.Verdict.Ceiling }
func sloJudge(t *results.Trial) verdict.State     { return t.Verdict.State }

// TestSearchTwoLimits: with a latency SLO below the ceiling, one search brackets both, each by
// its own judgement, and the trials that missed only the SLO count for both.
func TestSearchTwoLimits(t *testing.T) {
	sim := simCluster{bytesCap: 5e6, overhead: 70, sloCap: 3.5e6}
	o := Options{Sizes: []int{100, 1000, 10000}, SLO: true}
	points, err := Search(context.Background(), &sim, o)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range points {
		calls := sim.callsFor(p.Size)
		ceil, _ := sim.limit(p.Size)
		checkLimit(t, "ceiling", p.Ceiling, ceil, DefaultTolerance, calls, ceilingJudge)
		if p.SLO == nil {
			t.Fatalf("%d B: no SLO limit with SLO set", p.Size)
		}
		checkLimit(t, "SLO", *p.SLO, sim.sloLimit(p.Size), DefaultTolerance, calls, sloJudge)
		if p.Safe() != *p.SLO || p.RestsOn() != results.LimitSLO || len(p.NonMonotonic) != 0 || p.Note != "" {
			t.Errorf("%d B: %+v", p.Size, p)
		}
		n, _, _ := o.normalize()
		if len(calls) > n.worstCase() {
			t.Errorf("%d B: %d trials, more than the bound %d", p.Size, len(calls), n.worstCase())
		}
	}
	// Without SLO the same cluster has one limit, the ceiling.
	sim2 := simCluster{bytesCap: 5e6, overhead: 70, sloCap: 3.5e6}
	points, err = Search(context.Background(), &sim2, Options{Sizes: []int{1000}})
	if err != nil {
		t.Fatal(err)
	}
	if points[0].SLO != nil || points[0].RestsOn() != results.LimitCeiling {
		t.Errorf("without SLO: %+v", points[0])
	}
}

// TestSearchPredicted: a start near each limit, a first step of 1 + tolerance: few trials a size.
func TestSearchPredicted(t *testing.T) {
	sim := simCluster{bytesCap: 5e6, overhead: 70, sloCap: 3.5e6}
	o := Options{Sizes: []int{100, 1000, 10000}, SLO: true, FirstStep: 1.05,
		Start:    func(size int) float64 { l, _ := sim.limit(size); return 0.98 * l },
		StartSLO: func(size int) float64 { return 1.03 * sim.sloLimit(size) }}
	points, err := Search(context.Background(), &sim, o)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range points {
		calls := sim.callsFor(p.Size)
		checkLimit(t, "SLO", *p.SLO, sim.sloLimit(p.Size), DefaultTolerance, calls, sloJudge)
		if len(calls) > 4 {
			var rates []float64
			for _, c := range calls {
				rates = append(rates, c.rate)
			}
			t.Errorf("%d B: %d trials for two predicted limits (%v), want at most 4", p.Size, len(calls), rates)
		}
	}
}

// TestSearchConfirm: the SLO limit's safe rate is held once more; a hold that fails is a
// contradiction, reported, and the search goes below it and holds again.
func TestSearchConfirm(t *testing.T) {
	t.Run("holds", func(t *testing.T) {
		sim := simCluster{bytesCap: 5e6, overhead: 70, sloCap: 3.5e6}
		points, err := Search(context.Background(), &sim, Options{Sizes: []int{1000}, SLO: true, Confirm: true})
		if err != nil {
			t.Fatal(err)
		}
		p := points[0]
		calls := sim.callsFor(1000)
		last := calls[len(calls)-1]
		if !p.SLO.Confirmed || p.Ceiling.Confirmed || !last.hold || !sameRate(last.rate, p.SLO.SafeRate) || len(p.NonMonotonic) != 0 {
			t.Errorf("point %+v, last trial %+v", p, last)
		}
	})
	t.Run("fails, then holds below", func(t *testing.T) {
		sim := simCluster{bytesCap: 5e6, overhead: 70, sloCap: 3.5e6, holdCap: 0.97}
		points, err := Search(context.Background(), &sim, Options{Sizes: []int{1000}, SLO: true, Confirm: true})
		if err != nil {
			t.Fatal(err)
		}
		p := points[0]
		truth := sim.sloLimit(1000)
		holds := 0
		for _, c := range sim.callsFor(1000) {
			if c.hold {
				holds++
			}
		}
		if !p.SLO.Confirmed || p.SLO.SafeRate > 0.97*truth || holds != 2 {
			t.Errorf("after a failed hold: %+v (truth %v, %d holds)", p.SLO, truth, holds)
		}
		if len(p.NonMonotonic) != 1 || p.NonMonotonic[0].Limit != results.LimitSLO || p.NonMonotonic[0].OKRate != p.NonMonotonic[0].OverRate {
			t.Errorf("the failed hold is not reported as a contradiction at its rate: %+v", p.NonMonotonic)
		}
	})
}

// TestSearchNonMonotonic: an ok verdict above an overloaded one is listed, and the bracket
// trusts the overloaded trial.
func TestSearchNonMonotonic(t *testing.T) {
	sim := simCluster{bytesCap: 5e6, overhead: 70}
	// The first trial at 4,000 msgs/s of 1 KB (4.3 MB/s, below the 5 MB/s cap) fails once: a
	// flaky overloaded verdict below rates that are ok.
	flip := TrialerFunc(func(ctx context.Context, req Request) (*results.Trial, error) {
		tr, err := sim.Trial(ctx, req)
		if len(sim.calls) == 1 {
			tr = simTrial(Overloaded, false, req.Rate, "network", "a passing stall")
			sim.calls[0].out = tr
		}
		return tr, err
	})
	points, err := Search(context.Background(), flip, Options{Sizes: []int{1000}, Start: func(int) float64 { return 2000 }})
	if err != nil {
		t.Fatal(err)
	}
	p := points[0]
	if p.Ceiling.UnsafeRate != 2000 || p.Ceiling.SafeRate >= 2000 {
		t.Errorf("the bracket should trust the overloaded trial at 2,000 msgs/s: %+v", p.Ceiling)
	}
	for _, c := range p.NonMonotonic {
		if c.OverRate != 2000 || c.OKRate < 2000 {
			t.Errorf("contradiction %+v", c)
		}
	}
}

// TestSearchLinkOverhead: each size's boundary records the median link overhead of its trials
// the ceiling judged ok (an overloaded link's retransmits leave it out), and the model's
// prediction is asked for with it.
func TestSearchLinkOverhead(t *testing.T) {
	n := map[int]int{}
	sim := simCluster{bytesCap: 5e6, overhead: 70, linkOverhead: func(size int, ok bool) float64 {
		n[size]++
		if !ok {
			return 0.9
		}
		return 1000/float64(size) + 0.001*float64(n[size]%3) // 0, 0.001, 0.002 in turn
	}}
	asked := map[int]float64{}
	o := Options{Sizes: []int{100, 1000}, Predict: func(size int, lo float64) *results.Prediction {
		asked[size] = lo
		return &results.Prediction{MsgsPerSec: 1, FramedMsgsPerSec: 1 / (1 + lo)}
	}}
	points, err := Search(context.Background(), &sim, o)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range points {
		base := 1000 / float64(p.Size)
		if p.LinkOverhead < base || p.LinkOverhead > base+0.002 {
			t.Errorf("%d B: link overhead %v, want the median of the ok trials' %v to %v", p.Size, p.LinkOverhead, base, base+0.002)
		}
		if asked[p.Size] != p.LinkOverhead || p.Model == nil || p.Model.Ceiling() != 1/(1+p.LinkOverhead) {
			t.Errorf("%d B: the prediction was asked with %v, the boundary has %v (model %+v)", p.Size, asked[p.Size], p.LinkOverhead, p.Model)
		}
	}
	sim.linkOverhead = nil
	points, err = Search(context.Background(), &sim, Options{Sizes: []int{1000}})
	if err != nil || points[0].LinkOverhead != 0 {
		t.Errorf("without links: %v, %+v", err, points[0])
	}
}

// TestSearchReframe: from the second size on, the start is Start's prediction corrected for the
// link overhead measured at the size before; the first size starts where Start says.
func TestSearchReframe(t *testing.T) {
	sim := simCluster{bytesCap: 5e6, overhead: 70, linkOverhead: func(size int, ok bool) float64 { return 0.25 }}
	var reframed []float64
	o := Options{Sizes: []int{100, 1000},
		Start: func(size int) float64 { return 5e6 / float64(size+70) },
		Reframe: func(size int, lo float64) float64 {
			reframed = append(reframed, lo)
			return 5e6 / float64(size+70) / (1 + lo)
		}}
	if _, err := Search(context.Background(), &sim, o); err != nil {
		t.Fatal(err)
	}
	first := func(size int) float64 { return sim.callsFor(size)[0].rate }
	if !sameRate(first(100), 5e6/170) || !sameRate(first(1000), 5e6/1070/1.25) || len(reframed) != 1 || reframed[0] != 0.25 {
		t.Errorf("first rates %v and %v, reframed with %v; want 5e6/170, then 5e6/1070/1.25 with 0.25", first(100), first(1000), reframed)
	}
}
