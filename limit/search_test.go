package limit

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/plimsoll/plimsoll/results"
	"github.com/plimsoll/plimsoll/units"
	"github.com/plimsoll/plimsoll/verdict"
)

// checkPoints asserts what Search promises for each size against the simulated cluster's truth.
func checkPoints(t *testing.T, sim *simCluster, o Options, points []results.Boundary) {
	t.Helper()
	n, _, err := o.normalize()
	if err != nil {
		t.Fatal(err)
	}
	if len(points) != len(n.Sizes) {
		t.Fatalf("%d points for %d sizes", len(points), len(n.Sizes))
	}
	for i, p := range points {
		size := n.Sizes[i]
		L, bottleneck := sim.limit(size)
		calls := sim.callsFor(size)
		if p.Size != size || p.Trials != len(calls) {
			t.Errorf("size %d: point %+v, %d trials ran", size, p, len(calls))
		}
		if !sameRate(p.Ceiling.SafeBytesPerSec, p.Ceiling.SafeRate*float64(size)) {
			t.Errorf("size %d: SafeBytesPerSec %v != %v x %d", size, p.Ceiling.SafeBytesPerSec, p.Ceiling.SafeRate, size)
		}
		// The safe and unsafe rates are rates of real, not client-bound, trials.
		for _, c := range calls {
			if c.out.ClientBound() && (sameRate(c.rate, p.Ceiling.SafeRate) || sameRate(c.rate, p.Ceiling.UnsafeRate)) {
				t.Errorf("size %d: client-bound trial at %v taken as a bound: %+v", size, c.rate, p)
			}
		}
		if p.Ceiling.SafeRate > 0 && !hasCall(calls, p.Ceiling.SafeRate, OK) || p.Ceiling.UnsafeRate > 0 && !hasCall(calls, p.Ceiling.UnsafeRate, Overloaded) {
			t.Errorf("size %d: %+v does not match the trials run", size, p)
		}
		// Points carry rates to 9 significant digits: 5e-9 relative at worst, each.
		const slack = 1 + 1e-8
		tol := n.Tolerance + 2e-8
		switch {
		case L < n.MinRate && !(sim.genCap > 0 && sim.genCap < n.MinRate):
			if p.Ceiling.SafeRate != 0 || p.Ceiling.UnsafeRate != n.MinRate || !strings.Contains(p.Note, "MinRate") {
				t.Errorf("size %d, limit %v below MinRate: %+v", size, L, p)
			}
		case p.Ceiling.ClientBound:
			// Only when the generator's limit is below the cluster's, or too close to it to tell
			// apart; the safe rate is then within the tolerance of the generator's limit.
			// (Below MinRate nothing can be told apart.)
			reachable := sim.genCap >= n.MinRate
			if sim.genCap == 0 || p.Ceiling.SafeRate > math.Min(L, sim.genCap)*slack || !strings.Contains(p.Note, "more producers") || p.Ceiling.Found() ||
				reachable && (sim.genCap >= L*(1+tol) || p.Ceiling.SafeRate*(1+tol) < math.Min(sim.genCap, n.MaxRate)) {
				t.Errorf("size %d, generator limit %v, cluster limit %v: %+v", size, sim.genCap, L, p)
			}
		case sim.genCap > 0 && sim.genCap < math.Min(L, n.MaxRate):
			t.Errorf("size %d: generator limit %v below the cluster's %v, yet not client-bound: %+v", size, sim.genCap, L, p)
		case L >= n.MaxRate:
			if p.Ceiling.SafeRate != n.MaxRate || p.Ceiling.UnsafeRate != 0 || !strings.Contains(p.Note, "MaxRate") {
				t.Errorf("size %d, limit %v above MaxRate: %+v", size, L, p)
			}
		default:
			if !p.Ceiling.Found() || !(p.Ceiling.SafeRate <= L*slack && L < p.Ceiling.UnsafeRate*slack) {
				t.Errorf("size %d: true limit %v not in [%v, %v): %+v", size, L, p.Ceiling.SafeRate, p.Ceiling.UnsafeRate, p)
			}
			if w := (p.Ceiling.UnsafeRate - p.Ceiling.SafeRate) / p.Ceiling.SafeRate; w > tol {
				t.Errorf("size %d: bracket width %v > tolerance %v", size, w, n.Tolerance)
			}
			if bottleneck != "" && p.Ceiling.Bottleneck != bottleneck || p.Note != "" {
				t.Errorf("size %d: bottleneck %q note %q, want %q and no note", size, p.Ceiling.Bottleneck, p.Note, bottleneck)
			}
		}
		checkBound(t, size, calls, n)
	}
}

// checkBound asserts the trial bound of Search's doc comment, computed here from the trials
// the simulated cluster saw.
func checkBound(t *testing.T, size int, calls []call, o Options) {
	t.Helper()
	if len(calls) == 0 {
		t.Errorf("size %d: no trials", size)
		return
	}
	r0, g := calls[0].rate, o.Growth
	bracketMax := 1 + int(math.Ceil(math.Log(math.Max(o.MaxRate/r0, r0/o.MinRate))/math.Log(g)-1e-9))
	lo, hi, bracket := 0.0, 0.0, len(calls)
	for j, c := range calls {
		switch {
		case c.out.ClientBound() && (hi == 0 || c.rate < hi):
			hi = c.rate // not ok: the search bisects below it
		case c.out.ClientBound():
		case c.out.Verdict.State == OK:
			lo = math.Max(lo, c.rate)
		case c.out.Verdict.State == Overloaded && (hi == 0 || c.rate < hi):
			hi = c.rate
		}
		if lo > 0 && hi > 0 {
			bracket = j + 1
			break
		}
	}
	if bracket > bracketMax {
		t.Errorf("size %d: %d bracket trials, bound %d (start %v)", size, bracket, bracketMax, r0)
	}
	if lo > 0 && hi > 0 {
		if hi/lo > g*(1+1e-12) {
			t.Errorf("size %d: first bracket [%v, %v] wider than Growth %v", size, lo, hi, g)
		}
		bisect := len(calls) - bracket
		if bound := int(math.Ceil(math.Log2((hi - lo) / lo / o.Tolerance))); bisect > max(bound, 0) {
			t.Errorf("size %d: %d bisection trials > ceil(log2(range/tolerance)) = %d for [%v, %v]", size, bisect, bound, lo, hi)
		}
	}
	total := bracketMax + max(0, int(math.Ceil(math.Log2((g-1)/o.Tolerance))))
	if len(calls) > total {
		t.Errorf("size %d: %d trials > bound %d", size, len(calls), total)
	}
}

func hasCall(calls []call, rate float64, s verdict.State) bool {
	return slices.ContainsFunc(calls, func(c call) bool { return sameRate(c.rate, rate) && c.out.Verdict.State == s && !c.out.ClientBound() })
}

func TestSearchBoundary(t *testing.T) {
	tests := []struct {
		name string
		sim  simCluster
		o    Options
		// start, when set, is a Start made from the true limit: the model's prediction off by
		// this factor.
		start float64
	}{
		{name: "network bound, defaults", sim: simCluster{bytesCap: 5e6, overhead: 70}},
		{name: "model within 10%", sim: simCluster{bytesCap: 5e6, overhead: 70}, start: 1.1},
		{name: "model 30% low", sim: simCluster{bytesCap: 5e6, overhead: 70}, start: 0.7},
		{name: "model exactly right", sim: simCluster{bytesCap: 5e6, overhead: 70}, start: 1},
		{name: "message bound small sizes", sim: simCluster{bytesCap: 50e6, overhead: 70, msgsCap: 20000}},
		{name: "tight tolerance, growth 3", sim: simCluster{bytesCap: 120e6, overhead: 9}, o: Options{Tolerance: 0.01, Growth: 3}},
		{name: "loose tolerance, growth 1.5", sim: simCluster{bytesCap: 7e6, overhead: 30}, o: Options{Tolerance: 0.5, Growth: 1.5}},
		{name: "tolerance 1", sim: simCluster{bytesCap: 7e6}, o: Options{Tolerance: 1}},
		{name: "start far too low", sim: simCluster{bytesCap: 9e7, overhead: 70}, o: Options{MaxRate: 1e6, Start: func(int) float64 { return 2 }}},
		{name: "start at MaxRate", sim: simCluster{bytesCap: 9e7, overhead: 70}, o: Options{MaxRate: 1e6, Start: func(int) float64 { return 1e6 }}},
		{name: "start above MaxRate is clamped", sim: simCluster{bytesCap: 9e7}, o: Options{MaxRate: 1e6, Start: func(int) float64 { return 5e7 }}},
		{name: "client-bound small sizes", sim: simCluster{bytesCap: 100e6, overhead: 70, genCap: 30000}},
		{name: "client-bound, start above the generator", sim: simCluster{bytesCap: 100e6, overhead: 70, genCap: 30000},
			o: Options{Start: func(int) float64 { return 1e5 }}},
		{name: "client-bound, start above both", sim: simCluster{bytesCap: 1e6, genCap: 30000},
			o: Options{Sizes: []int{10, 100}, Start: func(int) float64 { return 1e6 }}},
		{name: "limit above MaxRate", sim: simCluster{bytesCap: 2e7, overhead: 70}, o: Options{MaxRate: 5000}},
		{name: "limit below MinRate", sim: simCluster{bytesCap: 5e6, overhead: 70}, o: Options{MinRate: 1000}},
		{name: "many sizes", sim: simCluster{bytesCap: 3e7, overhead: 70, msgsCap: 150000}, o: Options{Sizes: []int{64, 512, 4096, 65536, 1 << 20}}},
		{name: "sizes in falling order", sim: simCluster{bytesCap: 3e7, overhead: 70}, o: Options{Sizes: []int{10000, 1000, 100}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sim := tt.sim
			o := tt.o
			if tt.start > 0 {
				o.Start = func(size int) float64 { l, _ := sim.limit(size); return l * tt.start }
			}
			points, err := Search(context.Background(), &sim, o)
			if err != nil {
				t.Fatal(err)
			}
			checkPoints(t, &sim, o, points)
			for _, p := range points {
				t.Log(p)
			}
		})
	}
}

// TestSearchSweep checks the promises over many random clusters and options.
func TestSearchSweep(t *testing.T) {
	rng := rand.New(rand.NewPCG(6, 42))
	for i := range 300 {
		sim := simCluster{
			bytesCap: math.Pow(10, 5+4*rng.Float64()),
			overhead: rng.IntN(100),
		}
		if rng.IntN(3) == 0 {
			sim.msgsCap = math.Pow(10, 3+3*rng.Float64())
		}
		if rng.IntN(4) == 0 {
			sim.genCap = math.Pow(10, 3+3*rng.Float64())
		}
		o := Options{
			Tolerance: []float64{0.01, 0.02, 0.05, 0.1, 0.25}[rng.IntN(5)],
			Growth:    []float64{1.5, 2, 3, 4}[rng.IntN(4)],
			MinRate:   []float64{0, 10}[rng.IntN(2)],
			MaxRate:   []float64{0, 1e6, 2e5}[rng.IntN(3)],
			Sizes:     []int{1 + rng.IntN(200), 200 + rng.IntN(2000), 2000 + rng.IntN(100000)},
		}
		if rng.IntN(2) == 0 {
			f := math.Pow(10, 2*rng.Float64()-1) // model off by up to 10x either way
			o.Start = func(size int) float64 { l, _ := sim.limit(size); return l * f }
		}
		points, err := Search(context.Background(), &sim, o)
		if err != nil {
			t.Fatalf("case %d: %v", i, err)
		}
		checkPoints(t, &sim, o, points)
		if t.Failed() {
			t.Fatalf("case %d: sim %+v options %+v", i, sim, o)
		}
	}
}

// TestSearchSteps pins one search worked out by hand: limit 15,000 msgs/s, start 10,000,
// growth 2, tolerance 5%.
func TestSearchSteps(t *testing.T) {
	sim := simCluster{bytesCap: 1.5e6}
	points, err := Search(context.Background(), &sim, Options{Sizes: []int{100}, Start: func(int) float64 { return 10000 }})
	if err != nil {
		t.Fatal(err)
	}
	want := []struct {
		rate  float64
		state verdict.State
	}{
		{10000, OK}, {20000, Overloaded}, // bracket: 2 trials
		{14142.1356, OK}, {16817.9283, Overloaded}, {15422.1083, Overloaded}, {14768.2615, OK}, // bisect: ceil(log2(ln 2/ln 1.05)) = 4
	}
	if len(sim.calls) != len(want) {
		t.Fatalf("%d trials, want %d: %+v", len(sim.calls), len(want), sim.calls)
	}
	for i, w := range want {
		if c := sim.calls[i]; math.Abs(c.rate-w.rate) > 1e-4 || c.out.Verdict.State != w.state {
			t.Errorf("trial %d: %v %s, want %v %s", i+1, c.rate, c.out.Verdict.State, w.rate, w.state)
		}
	}
	p := points[0]
	if units.Sig(p.Ceiling.SafeRate, 3) != "14,800" || units.Sig(p.Ceiling.UnsafeRate, 3) != "15,400" || p.Trials != 6 || p.Ceiling.Bottleneck != "network" {
		t.Errorf("point %+v", p)
	}
	// The bound does not know the direction in advance: down from 10,000 to MinRate 1 takes
	// ceil(log2(10000)) = 14 steps, more than the 10 up to 10,000,000.
	if got := BracketBound(10000, DefaultMinRate, DefaultMaxRate, 2, 2) + BisectBound(10000, 20000, 0.05); got != 1+14+4 {
		t.Errorf("bound = %d, want 19", got)
	}
}

// TestSearchStartDerived: without Start, the first size starts at 1 MB/s and each next one at
// the previous safe rate converted at equal bytes/s.
func TestSearchStartDerived(t *testing.T) {
	sim := simCluster{bytesCap: 3e6, overhead: 50}
	points, err := Search(context.Background(), &sim, Options{Sizes: []int{100, 1000, 250}})
	if err != nil {
		t.Fatal(err)
	}
	starts := []float64{1e6 / 100, points[0].Ceiling.SafeRate * 100 / 1000, points[1].Ceiling.SafeRate * 1000 / 250}
	for i, size := range []int{100, 1000, 250} {
		if got := sim.callsFor(size)[0].rate; math.Abs(got-starts[i]) > 1e-9*starts[i] {
			t.Errorf("size %d started at %v, want %v", size, got, starts[i])
		}
	}
}

func TestSearchRetry(t *testing.T) {
	base := simCluster{bytesCap: 5e6, overhead: 70}
	clean := base
	want, err := Search(context.Background(), &clean, Options{})
	if err != nil {
		t.Fatal(err)
	}
	second := clean.callsFor(1000)[1] // fail the second trial of size 1000

	t.Run("once: retried, same answer", func(t *testing.T) {
		sim := base
		sim.flaky = map[[2]int]int{{1000, int(math.Round(second.rate))}: 1}
		got, err := Search(context.Background(), &sim, Options{})
		if err != nil {
			t.Fatal(err)
		}
		if len(sim.calls) != len(clean.calls)+1 {
			t.Errorf("%d trials, want %d (one retry)", len(sim.calls), len(clean.calls)+1)
		}
		if got[1].Trials != want[1].Trials+1 {
			t.Errorf("size 1000 counted %d trials, want %d", got[1].Trials, want[1].Trials+1)
		}
		got[1].Trials = want[1].Trials
		if !reflect.DeepEqual(got, want) {
			t.Errorf("retry changed the boundary:\n%+v\n%+v", got, want)
		}
	})
	t.Run("twice: size stops, next goes on", func(t *testing.T) {
		sim := base
		sim.flaky = map[[2]int]int{{1000, int(math.Round(second.rate))}: 2}
		got, err := Search(context.Background(), &sim, Options{})
		if err != nil {
			t.Fatal(err)
		}
		p := got[1]
		if p.Trials != 3 || !strings.Contains(p.Note, "invalid twice") || !strings.Contains(p.Note, "broker connection reset") || p.Ceiling.Found() {
			t.Errorf("size 1000: %+v", p)
		}
		if !got[2].Ceiling.Found() {
			t.Errorf("size 10000 after a broken size: %+v", got[2])
		}
	})
}

func TestSearchMaxTrials(t *testing.T) {
	sim := simCluster{bytesCap: 5e6}
	points, err := Search(context.Background(), &sim, Options{Sizes: []int{100}, MaxTrialsPerSize: 3, Start: func(int) float64 { return 10 }})
	if err != nil {
		t.Fatal(err)
	}
	if len(sim.calls) != 3 || points[0].Trials != 3 || !strings.Contains(points[0].Note, "MaxTrialsPerSize") {
		t.Errorf("%d trials, point %+v", len(sim.calls), points[0])
	}
}

func TestSearchErrors(t *testing.T) {
	boom := errors.New("cluster unreachable")
	sim := simCluster{bytesCap: 5e6}
	failing := TrialerFunc(func(ctx context.Context, req Request) (*results.Trial, error) {
		if req.Size == 1000 {
			return nil, boom
		}
		return sim.Trial(ctx, req)
	})
	points, err := Search(context.Background(), failing, Options{})
	if !errors.Is(err, boom) || !strings.Contains(err.Error(), "1000-byte") || len(points) != 1 {
		t.Errorf("err = %v, %d points; want the trial error and the first size's point", err, len(points))
	}

	bad := TrialerFunc(func(context.Context, Request) (*results.Trial, error) {
		return &results.Trial{Verdict: verdict.Verdict{State: "maybe"}}, nil
	})
	if _, err := Search(context.Background(), bad, Options{}); !errors.Is(err, ErrOutcome) {
		t.Errorf("unknown state: %v", err)
	}

	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Search(ctx, &sim, Options{}); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: %v", err)
	}
}

func TestOptionsValidate(t *testing.T) {
	nan := math.NaN()
	tests := []struct {
		option string
		o      Options
		msg    string
	}{
		{"Sizes", Options{Sizes: []int{100, 0}}, "positive"},
		{"Sizes", Options{Sizes: []int{100, 1000, 100}}, "twice"},
		{"Tolerance", Options{Tolerance: 5}, "0.05 means 5%"},
		{"Tolerance", Options{Tolerance: -0.1}, "fraction"},
		{"Tolerance", Options{Tolerance: 1e-6}, "fraction"},
		{"Tolerance", Options{Tolerance: nan}, "fraction"},
		{"Growth", Options{Growth: 1}, "between 1.1 and 1000"},
		{"Growth", Options{Growth: 1.0000000000000002}, "between 1.1 and 1000"},
		{"Growth", Options{Growth: 0.5}, "between 1.1 and 1000"},
		{"MinRate", Options{MinRate: -1}, "positive"},
		{"MinRate", Options{MinRate: 1e-300}, "positive"},
		{"MinRate", Options{MinRate: math.Inf(1)}, "positive"},
		{"MaxRate", Options{MinRate: 100, MaxRate: 50}, "above MinRate"},
		{"MaxRate", Options{MaxRate: math.Inf(1)}, "at most"},
		{"MaxRate", Options{MaxRate: nan}, "at most"},
		{"MaxTrialsPerSize", Options{MaxTrialsPerSize: -1}, "negative"},
		{"Resume", Options{Resume: true}, "needs Store"},
		{"Start", Options{Start: func(int) float64 { return 0 }}, "positive finite"},
		{"Start", Options{Start: func(int) float64 { return nan }}, "size 100 bytes"},
	}
	for _, tt := range tests {
		t.Run(tt.option+"/"+tt.msg, func(t *testing.T) {
			_, err := Search(context.Background(), &simCluster{bytesCap: 1e6}, tt.o)
			var oe *OptionError
			if !errors.As(err, &oe) || oe.Option != tt.option || !errors.Is(err, ErrOptions) || !strings.Contains(err.Error(), tt.msg) {
				t.Errorf("err = %v, want an OptionError for %s containing %q", err, tt.option, tt.msg)
			}
		})
	}
	n, _, err := Options{}.normalize()
	if err != nil {
		t.Fatal(err)
	}
	// 1 + ceil(log2(1e7)) + 4 + 4 retries.
	if !slices.Equal(n.Sizes, DefaultSizes) || n.Tolerance != 0.05 || n.Growth != 2 || n.MinRate != 1 || n.MaxRate != 1e7 || n.MaxTrialsPerSize != 1+24+4+4 {
		t.Errorf("defaults: %+v", n)
	}
}

func TestBounds(t *testing.T) {
	tests := []struct {
		name string
		got  int
		want int
	}{
		{"bisect 2x at 5%", BisectBound(1, 2, 0.05), 4},   // ln2/ln1.05 = 14.2 -> 16 = 2^4
		{"bisect 2x at 1%", BisectBound(1, 2, 0.01), 7},   // 69.7 -> 128
		{"bisect 3x at 1%", BisectBound(10, 30, 0.01), 7}, // 110.4 -> 128
		{"bisect already narrow", BisectBound(100, 104, 0.05), 0},
		{"bisect exactly tolerance", BisectBound(100, 105, 0.05), 0},
		{"bisect empty", BisectBound(100, 100, 0.05), 0},
		{"bracket up 8x", BracketBound(1000, 1000, 8000, 2, 2), 1 + 3},
		{"bracket down 9x", BracketBound(900, 100, 1000, 3, 3), 1 + 2},
		{"bracket at a bound", BracketBound(1000, 1000, 1000.5, 2, 2), 1 + 1},
	}
	for _, tt := range tests {
		if tt.got != tt.want {
			t.Errorf("%s: %d, want %d", tt.name, tt.got, tt.want)
		}
	}
}

func FuzzSearch(f *testing.F) {
	f.Add(5e6, 70, 0.0, 0.0, 0.05, 2.0, 0.0)
	f.Add(1e8, 9, 2e4, 3e4, 0.01, 3.0, 1e5)
	f.Add(1e5, 0, 0.0, 500.0, 0.3, 1.2, 2.0)
	f.Fuzz(func(t *testing.T, bytesCap float64, overhead int, msgsCap, genCap, tol, growth, start float64) {
		o := Options{Tolerance: tol, Growth: growth, Sizes: []int{100, 1000, 10000}}
		if start != 0 {
			o.Start = func(int) float64 { return start }
		}
		if _, _, err := o.normalize(); err != nil || !(bytesCap >= 1 && bytesCap < 1e12) || overhead < 0 || overhead > 1e4 ||
			!(msgsCap >= 0 && msgsCap < 1e9) || !(genCap >= 0 && genCap < 1e9) {
			t.Skip()
		}
		sim := simCluster{bytesCap: bytesCap, overhead: overhead, msgsCap: msgsCap, genCap: genCap}
		points, err := Search(context.Background(), &sim, o)
		if err != nil {
			t.Fatal(err)
		}
		checkPoints(t, &sim, o, points)
	})
}

func BenchmarkSearch(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		sim := simCluster{bytesCap: 5e6, overhead: 70}
		if _, err := Search(context.Background(), &sim, Options{}); err != nil {
			b.Fatal(err)
		}
	}
}
