package compare

import (
	"encoding/json"
	"errors"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"testing"

	"github.com/plimsoll/plimsoll/loadgen"
	"github.com/plimsoll/plimsoll/model"
	"github.com/plimsoll/plimsoll/probe"
	"github.com/plimsoll/plimsoll/results"
	"github.com/plimsoll/plimsoll/use"
	"github.com/plimsoll/plimsoll/verdict"
)

func figure(t *testing.T, c *Comparison, name, subject string) Figure {
	t.Helper()
	for _, f := range c.Figures {
		if f.Name == name && f.Subject == subject {
			return f
		}
	}
	t.Fatalf("no figure %q %q", name, subject)
	return Figure{}
}

func TestVerdicts(t *testing.T) {
	base := run{speed: 1, noise: 0.01, seed: 1, seconds: 30}
	shifted := func(speed float64, seed uint64) run { r := base; r.speed, r.seed = speed, seed; return r }
	quiet := base
	quiet.noise = 0.002
	quietShift := quiet
	quietShift.speed, quietShift.seed = 0.98, 2
	for _, c := range []struct {
		name      string
		a, b      []*results.Trial
		overall   Word
		produced  Word
		basis     Basis
		ciExcl0   bool // the produced rate's interval excludes 0
		needed    int  // the produced rate's repetitions needed
		latencyP5 Word // publish latency p50
	}{
		{"identical", runs(base, 5), runs(base, 5), Same, Same, BasisRepetitions, false, 0, Same},
		{"10% slower", runs(base, 5), runs(shifted(0.9, 2), 5), Slower, Slower, BasisRepetitions, true, 0, Slower},
		{"10% faster", runs(base, 5), runs(shifted(1/0.9, 2), 5), Faster, Faster, BasisRepetitions, true, 0, Faster},
		{"2% slower: below the threshold", runs(quiet, 8), runs(quietShift, 8), Same, Same, BasisRepetitions, true, 0, Same},
		{"two each: too few", runs(base, 2), runs(shifted(0.9, 2), 2), Same, Same, BasisRepetitions, false, 4, Same},
		{"one each: seconds", runs(base, 1), runs(shifted(0.9, 2), 1), Slower, Slower, BasisSeconds, true, 0, Slower},
	} {
		t.Run(c.name, func(t *testing.T) {
			cmp, err := Compare(side("a", c.a), side("b", c.b), DefaultOptions)
			if err != nil {
				t.Fatal(err)
			}
			p := figure(t, cmp, "produced", "")
			if cmp.Verdict != c.overall || p.Verdict != c.produced || p.Basis != c.basis || p.Needed != c.needed {
				t.Errorf("overall %q, produced %q basis %s needed %d; want %q, %q, %s, %d", cmp.Verdict, p.Verdict, p.Basis, p.Needed,
					c.overall, c.produced, c.basis, c.needed)
			}
			if excl := p.CI != nil && (p.CI.Lo > 0 || p.CI.Hi < 0); excl != c.ciExcl0 {
				t.Errorf("produced interval %+v: excludes 0 %v, want %v", p.CI, excl, c.ciExcl0)
			}
			if l := figure(t, cmp, "publish latency p50", ""); l.Verdict != c.latencyP5 {
				t.Errorf("publish latency p50 %q (change %v), want %q", l.Verdict, *l.Change, c.latencyP5)
			}
		})
	}
}

// TestCause: a slower B shows broker 2's network in closer to its NIC and broker 2's CPU per
// message up.
func TestCause(t *testing.T) {
	a := runs(run{speed: 1, noise: 0.01, seed: 1, seconds: 10}, 5)
	b := runs(run{speed: 0.8, noise: 0.01, seed: 2, seconds: 10}, 5)
	c, err := Compare(side("a", a), side("b", b), DefaultOptions)
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Cause.Moves) != 1 || c.Cause.Moves[0].Entity != "broker 2" || c.Cause.Moves[0].Resource != "network in" ||
		c.Cause.Moves[0].Points < 20 || c.Cause.Moves[0].Metric != "wire bytes in ÷ NIC" {
		t.Errorf("moves %+v, want broker 2 network in up by more than 20 points", c.Cause.Moves)
	}
	var names []string
	for _, f := range c.Cause.Evidence {
		names = append(names, f.Name+" "+f.Subject)
	}
	if len(names) != 2 || names[0] != "CPU per message broker 2" || names[1] != "broker traffic per message " {
		t.Errorf("evidence %q, want broker 2's CPU and the traffic per message", names)
	}
}

func TestLatencyMergesHistograms(t *testing.T) {
	a := runs(run{speed: 1, noise: 0.01, seed: 1, seconds: 5}, 3)
	c, err := Compare(side("a", a), side("b", a), DefaultOptions)
	if err != nil {
		t.Fatal(err)
	}
	m := a[0].Histograms.Publish
	for _, tr := range a[1:] {
		m.Merge(tr.Histograms.Publish)
	}
	want := float64(m.QuantileMicros(0.999)) / 1000
	if f := figure(t, c, "publish latency p99.9", ""); f.A != want || f.B != want {
		t.Errorf("p99.9 A %v B %v, want the merged histogram's %v", f.A, f.B, want)
	}
}

func TestLoadAndRefuse(t *testing.T) {
	dir := t.TempDir()
	ra := writeRuns(t, filepath.Join(dir, "a"), runs(run{speed: 1, seconds: 5, seed: 1}, 2))
	other := run{speed: 1, seconds: 5, seed: 3}.trial()
	other.Config.Spec.MessageSize = 100
	rb := writeRuns(t, filepath.Join(dir, "b"), []*results.Trial{other})
	search := writeSearch(t, filepath.Join(dir, "s"), map[int]float64{1024: 5000})
	empty := filepath.Join(dir, "empty")
	if err := os.Mkdir(empty, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name string
		locs []string
		want error
	}{
		{"missing", []string{filepath.Join(dir, "nope")}, ErrMissing},
		{"neither", []string{empty}, ErrNotKnown},
		{"mixed", []string{ra[0], search}, ErrMixed},
	} {
		if _, err := Load(c.locs); !errors.Is(err, c.want) {
			t.Errorf("%s: %v, want %v", c.name, err, c.want)
		}
	}
	a, err := Load(ra)
	if err != nil {
		t.Fatal(err)
	}
	b, err := Load(rb)
	if err != nil {
		t.Fatal(err)
	}
	s, err := Load([]string{search})
	if err != nil || s.Kind != KindSearch {
		t.Fatalf("search: %v, %v", s.Kind, err)
	}
	if _, err := Compare(a, s, DefaultOptions); !errors.Is(err, ErrKinds) {
		t.Errorf("runs vs search: %v, want ErrKinds", err)
	}
	var we *WorkloadError
	if _, err := Compare(a, b, DefaultOptions); !errors.As(err, &we) || len(we.Diffs) != 1 || we.Diffs[0].Setting != "spec.message-size" {
		t.Errorf("different sizes: %v, want one difference, spec.message-size", err)
	}
	forced := DefaultOptions
	forced.Force = true
	if c, err := Compare(a, b, forced); err != nil || len(c.Differences) != 1 {
		t.Errorf("forced: %v, %+v", err, c)
	}
}

func TestLoadNotes(t *testing.T) {
	bad := run{speed: 1, seconds: 5, seed: 1}.trial()
	bad.Interrupted = true
	bad.Verdict = verdict.Verdict{State: verdict.Invalid, Reasons: []verdict.Reason{{Criterion: verdict.CritClientBound}}}
	dirs := writeRuns(t, t.TempDir(), []*results.Trial{run{speed: 1, seconds: 5, seed: 2}.trial(), bad})
	s, err := Load(dirs)
	if err != nil {
		t.Fatal(err)
	}
	want := []Note{{Location: dirs[1], What: NoteInterrupted}, {Location: dirs[1], What: NoteInvalid, Detail: verdict.CritClientBound}}
	if !reflect.DeepEqual(s.Notes, want) {
		t.Errorf("notes %+v, want %+v", s.Notes, want)
	}
	c, err := Compare(s, s, DefaultOptions)
	if err != nil || len(c.Notes) != 4 {
		t.Errorf("comparison notes %+v (%v), want both sides' two", c.Notes, err)
	}
}

func TestSearches(t *testing.T) {
	dir := t.TempDir()
	var a, b []string
	for i := range 4 {
		j := float64(i) * 10
		a = append(a, writeSearch(t, filepath.Join(dir, "a", string(rune('0'+i))), map[int]float64{100: 50000 + j, 1024: 20000 + j}))
		b = append(b, writeSearch(t, filepath.Join(dir, "b", string(rune('0'+i))), map[int]float64{100: 50000 + j, 1024: 16000 + j}))
	}
	sa, sb, c := loadCompare(t, a, b)
	if len(c.Figures) != 2 || c.Figures[0].Verdict != Same || c.Figures[1].Verdict != Slower || c.Verdict != Slower {
		t.Errorf("figures %+v verdict %q, want 100 B the same, 1 KiB slower", c.Figures, c.Verdict)
	}
	one, err := Compare(Side{Kind: KindSearch, Locations: a[:1], Searches: sa.Searches[:1]},
		Side{Kind: KindSearch, Locations: b[:1], Searches: sb.Searches[:1]}, DefaultOptions)
	if err != nil {
		t.Fatal(err)
	}
	if f := one.Figures[1]; f.Basis != BasisNone || f.Needed != 4 || f.Verdict != Same || f.P != nil {
		t.Errorf("one search a side: %+v, want no test, 4 needed", f)
	}
}

// TestSearchCause: the bottleneck that changed is the cause; a client-bound limit keeps its
// figure's verdict but not the overall one.
func TestSearchCause(t *testing.T) {
	dir := t.TempDir()
	var a, b []string
	for i := range 4 {
		r := 20000 + float64(i)*10
		a = append(a, writeBoundaries(t, filepath.Join(dir, "a", string(rune('0'+i))), []results.Boundary{
			{Size: 1024, Ceiling: results.Limit{SafeRate: r, UnsafeRate: r * 1.05, Bottleneck: "broker 1 network in"}}}))
		b = append(b, writeBoundaries(t, filepath.Join(dir, "b", string(rune('0'+i))), []results.Boundary{
			{Size: 1024, Ceiling: results.Limit{SafeRate: r * 0.8, UnsafeRate: r * 0.85, Bottleneck: "client", ClientBound: i == 0}}}))
	}
	_, _, c := loadCompare(t, a, b)
	f := c.Figures[0]
	if f.Verdict != Slower || !f.ClientBound || c.Verdict != Same {
		t.Errorf("figure %q client-bound %v, overall %q: want slower, client-bound, no overall difference", f.Verdict, f.ClientBound, c.Verdict)
	}
	want := Bottleneck{Size: 1024, Limit: results.LimitCeiling, A: []string{"broker 1 network in"}, B: []string{"client"}}
	if len(c.Cause.Bottlenecks) != 1 || !reflect.DeepEqual(c.Cause.Bottlenecks[0], want) {
		t.Errorf("bottlenecks %+v, want %+v", c.Cause.Bottlenecks, want)
	}
}

func TestOptionsCheck(t *testing.T) {
	for _, o := range []Options{{Alpha: 0, Threshold: 0.05}, {Alpha: 1, Threshold: 0.05}, {Alpha: 0.05, Threshold: -1}} {
		if o.Check() == nil {
			t.Errorf("%+v accepted", o)
		}
	}
	if err := DefaultOptions.Check(); err != nil {
		t.Error(err)
	}
}

// TestCauseAtARate: the Heroku shape. B carries 3.6% more bytes per message, so at one target
// rate its links fill and it produces 3% less; their utilisation reads 95% on both sides, but
// B's scaled to A's rate is 98%: most of the link's headroom, which ranks it above a larger
// rise of heap use with far more headroom left. The bytes per message, under the threshold but
// significant over four repetitions a side, are evidence.
func TestCauseAtARate(t *testing.T) {
	mk := func(rate, netIn, heap, bytesPer float64, seed uint64) *results.Trial {
		tr := run{speed: 1, seed: seed, seconds: 5}.trial()
		tr.ProducedMsgsPerSec = rate
		tr.Traffic = []model.Measured{{Broker: 1, ProduceIn: rate * bytesPer}}
		tr.LinkOverhead = ptr(0.1)
		pct := func(v float64, metric string) use.Cell {
			return use.Cell{Metric: metric, Unit: use.UnitPct, Mean: probe.Num(v), Max: probe.Num(v), Samples: 10}
		}
		tr.USE = &use.Table{Rows: []use.Row{
			{Entity: "broker 2", Resource: "network in", Utilisation: pct(netIn, "wire bytes in ÷ NIC")},
			{Entity: "broker 1", Resource: "memory", Utilisation: pct(heap, "heap used ÷ max")}}}
		return tr
	}
	var a, b []*results.Trial
	for i := range 4 {
		d := float64(i) / 10
		a = append(a, mk(16500-d, 95+d, 40+d, 550+d, uint64(i+1)))
		b = append(b, mk(16000-d, 95-d, 46+d, 570+d, uint64(i+11)))
	}
	c, err := Compare(side("a", a), side("b", b), DefaultOptions)
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Cause.Moves) != 2 {
		t.Fatalf("moves %+v, want network in and memory", c.Cause.Moves)
	}
	net, heap := c.Cause.Moves[0], c.Cause.Moves[1]
	if net.Resource != "network in" || net.BAtARate == nil || math.Abs(*net.BAtARate-94.85*16499.85/15999.85) > 0.01 ||
		math.Abs(net.Headroom-net.Points/(100-net.A)) > 1e-9 || net.Headroom < 0.5 {
		t.Errorf("first move %+v, want broker 2 network in at about 98%% at A's rate, most of its headroom", net)
	}
	if heap.Resource != "memory" || heap.BAtARate != nil || math.Abs(heap.Points-6) > 0.01 || heap.Headroom > 0.11 {
		t.Errorf("second move %+v, want memory up 6 points, not scaled to the rate", heap)
	}
	var wire *Figure
	for i, f := range c.Cause.Evidence {
		if f.Name == "wire bytes per message" {
			wire = &c.Cause.Evidence[i]
		}
	}
	if wire == nil || math.Abs(*wire.Change-20.0/550) > 0.001 || *wire.P >= 0.05 || wire.Verdict != Same {
		t.Errorf("wire bytes per message %+v in evidence %+v: want +3.6%%, p < 0.05, below the threshold", wire, c.Cause.Evidence)
	}
}

// TestVerdictLatencyDecides: at one target rate that both sides keep up with, B's latency 25%
// longer over five repetitions a side makes B slower overall; over one run a side the latency
// figure, tested over seconds, still says slower but does not decide.
func TestVerdictLatencyDecides(t *testing.T) {
	keepUp := func(ts []*results.Trial) []*results.Trial {
		for _, tr := range ts {
			tr.ProducedMsgsPerSec, tr.ConsumedMsgsPerSec = 10000, 10000
			tr.Timeline.Edit(func(s *loadgen.Second) { s.ProducedMsgsPerSec, s.ConsumedMsgsPerSec = 10000, 10000 })
		}
		return ts
	}
	base := run{speed: 1, noise: 0.01, seed: 1, seconds: 30}
	slow := run{speed: 0.8, noise: 0.01, seed: 2, seconds: 30}
	for _, c := range []struct {
		name    string
		n       int
		overall Word
		basis   Basis
	}{
		{"five runs a side", 5, Slower, BasisRepetitions},
		{"one run a side", 1, Same, BasisSeconds},
	} {
		t.Run(c.name, func(t *testing.T) {
			cmp, err := Compare(side("a", keepUp(runs(base, c.n))), side("b", keepUp(runs(slow, c.n))), DefaultOptions)
			if err != nil {
				t.Fatal(err)
			}
			l, p := figure(t, cmp, "publish latency p99", ""), figure(t, cmp, "produced", "")
			if cmp.Verdict != c.overall || l.Verdict != Slower || l.Basis != c.basis || p.Verdict != Same {
				t.Errorf("overall %q, latency p99 %q over %s, produced %q; want %q, slower over %s, %q",
					cmp.Verdict, l.Verdict, l.Basis, p.Verdict, c.overall, c.basis, Same)
			}
		})
	}
}

// TestCauseFullResource: a link A used fully still ranks by how far B went past it, with a
// finite share that the comparison's JSON can hold.
func TestCauseFullResource(t *testing.T) {
	mk := func(rate float64, seed uint64) *results.Trial {
		tr := run{speed: 1, seed: seed, seconds: 5}.trial()
		tr.ProducedMsgsPerSec = rate
		tr.USE = &use.Table{Rows: []use.Row{{Entity: "broker 2", Resource: "network in",
			Utilisation: use.Cell{Metric: "wire bytes in ÷ NIC", Unit: use.UnitPct, Mean: 100, Max: 100, Samples: 10}}}}
		return tr
	}
	c, err := Compare(side("a", []*results.Trial{mk(16500, 1), mk(16500, 2)}), side("b", []*results.Trial{mk(16000, 3), mk(16000, 4)}), DefaultOptions)
	if err != nil {
		t.Fatal(err)
	}
	want := 100*16500/16000.0 - 100
	if len(c.Cause.Moves) != 1 || math.Abs(c.Cause.Moves[0].Headroom-want/MinHeadroom) > 1e-9 {
		t.Fatalf("moves %+v, want network in with %.3f of its headroom", c.Cause.Moves, want)
	}
	if _, err := json.Marshal(c); err != nil {
		t.Errorf("the comparison does not encode: %v", err)
	}
}

// loadCompare loads the sides in a and b and compares them with the default options.
func loadCompare(t *testing.T, a, b []string) (Side, Side, *Comparison) {
	t.Helper()
	sa, err := Load(a)
	if err != nil {
		t.Fatal(err)
	}
	sb, err := Load(b)
	if err != nil {
		t.Fatal(err)
	}
	c, err := Compare(sa, sb, DefaultOptions)
	if err != nil {
		t.Fatal(err)
	}
	return sa, sb, c
}

// TestHostSharedNote: a run whose host spent more than MaxOtherShare of its cores on other
// processes than the brokers and plimsoll is noted; the figures are tls-cost's measured ones
// (2 cores: quiet repetitions -0.03 to 0.08 cores of other work, shared ones 0.23 to 0.98).
func TestHostSharedNote(t *testing.T) {
	for _, tc := range []struct {
		name       string
		host       float64 // the client host's busy cores
		cpu        map[string]float64
		numCPU     int
		wantDetail string // empty: no note
	}{
		{"quiet: 0.08 cores of other work", 0.78, map[string]float64{"broker 1": 0.55, "plimsoll": 0.15}, 2, ""},
		{"exactly the allowance", 0.80, map[string]float64{"broker 1": 0.55, "plimsoll": 0.15}, 2, ""},
		{"a compiler beside it", 1.66, map[string]float64{"broker 1": 0.80, "plimsoll": 0.18}, 2, "0.68 of the host's 2 cores over the window (0.1 allowed)"},
		{"a remote cluster: only plimsoll on the host", 0.90, map[string]float64{"plimsoll": 0.30}, 4, "0.60 of the host's 4 cores over the window (0.2 allowed)"},
		{"no process CPU recorded", 1.9, nil, 2, ""},
		{"no core count", 1.9, map[string]float64{"plimsoll": 0.1}, 0, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tr := run{speed: 1, seconds: 5, seed: 3}.trial()
			tr.CPU, tr.Config.NumCPU = tc.cpu, tc.numCPU
			tr.USE.Rows = append(tr.USE.Rows, use.Row{Entity: "client host", Resource: "cpu",
				Amount: use.Cell{Metric: "busy cores", Unit: use.UnitCores, Mean: probe.Num(tc.host), Max: probe.Num(tc.host), Samples: 10}})
			var s Side
			s.noteRun("r1", tr)
			var got string
			for _, n := range s.Notes {
				if n.What == NoteHostShared {
					got = n.Detail
				}
			}
			if got != tc.wantDetail {
				t.Errorf("note %q, want %q", got, tc.wantDetail)
			}
		})
	}
}

// TestCPUPerMessageLessJIT: a broker's CPU per message without its JIT compilers' share, only
// where the trial read them.
func TestCPUPerMessageLessJIT(t *testing.T) {
	rf := cpuPerMessageLessJIT("broker 1")
	tr := &results.Trial{CPU: map[string]float64{"broker 1": 0.7}, CompilerCPU: map[string]float64{"broker 1": 0.5}}
	tr.ProducedMsgsPerSec = 100
	if v, ok := rf.rep(tr); !ok || math.Abs(v-0.002) > 1e-12 {
		t.Errorf("0.7 cores, 0.5 of them compiling, at 100 msgs/s: %g (%v), want 0.002 core-seconds a message", v, ok)
	}
	tr.CompilerCPU = nil
	if v, ok := rf.rep(tr); ok {
		t.Errorf("without the compilers' CPU: %g, want no figure", v)
	}
}

// TestUserCPUPerMessageLessJIT: a broker's user CPU per message without its JIT compilers' user
// time, only where the trial read both; the system time counts in neither part.
func TestUserCPUPerMessageLessJIT(t *testing.T) {
	rf := userCPUPerMessageLessJIT("broker 1")
	for _, c := range []struct {
		name          string
		user, jitUser map[string]float64
		rate, want    float64 // want < 0: no figure
	}{
		{"user 0.5 cores, 0.2 of them compiling, at 100 msgs/s", map[string]float64{"broker 1": 0.5}, map[string]float64{"broker 1": 0.2}, 100, 0.003},
		{"no compiling", map[string]float64{"broker 1": 0.5}, map[string]float64{"broker 1": 0}, 200, 0.0025},
		{"a record from before user time was kept", nil, map[string]float64{"broker 1": 0.2}, 100, -1},
		{"the compilers' user time not read", map[string]float64{"broker 1": 0.5}, nil, 100, -1},
		{"another broker's only", map[string]float64{"broker 2": 0.5}, map[string]float64{"broker 2": 0.2}, 100, -1},
		{"nothing produced", map[string]float64{"broker 1": 0.5}, map[string]float64{"broker 1": 0.2}, 0, -1},
	} {
		t.Run(c.name, func(t *testing.T) {
			tr := &results.Trial{CPU: map[string]float64{"broker 1": 0.9}, SystemCPU: map[string]float64{"broker 1": 0.4},
				CompilerCPU: map[string]float64{"broker 1": 0.25}, UserCPU: c.user, CompilerUserCPU: c.jitUser}
			tr.ProducedMsgsPerSec = c.rate
			v, ok := rf.rep(tr)
			switch {
			case c.want < 0 && ok:
				t.Errorf("%g, want no figure", v)
			case c.want >= 0 && (!ok || math.Abs(v-c.want) > 1e-12):
				t.Errorf("%g (%v), want %g core-seconds a message", v, ok, c.want)
			}
		})
	}
}

// TestBrokerCPUFigures: each broker's three CPU-per-message figures side by side, in order; the
// user-time one only where both sides' runs kept user time apart.
func TestBrokerCPUFigures(t *testing.T) {
	trial := func(split bool) *results.Trial {
		tr := &results.Trial{CPU: map[string]float64{"broker 1": 0.9}, CompilerCPU: map[string]float64{"broker 1": 0.25}}
		if split {
			tr.UserCPU, tr.SystemCPU = map[string]float64{"broker 1": 0.5}, map[string]float64{"broker 1": 0.4}
			tr.CompilerUserCPU = map[string]float64{"broker 1": 0.2}
		}
		tr.ProducedMsgsPerSec = 100
		return tr
	}
	names := func(fs []Figure) []string {
		var out []string
		for _, f := range fs {
			if f.Subject == "broker 1" {
				out = append(out, f.Name)
			}
		}
		return out
	}
	for _, c := range []struct {
		name string
		a, b bool
		want []string
	}{
		{"both sides split", true, true, []string{"CPU per message", CPUPerMessageLessJIT, UserCPUPerMessageLessJIT}},
		{"one side recorded before the split", true, false, []string{"CPU per message", CPUPerMessageLessJIT}},
	} {
		t.Run(c.name, func(t *testing.T) {
			got := names(runFigures([]*results.Trial{trial(c.a)}, []*results.Trial{trial(c.b)}, Options{}))
			if !slices.Equal(got, c.want) {
				t.Errorf("broker 1's figures %q, want %q", got, c.want)
			}
		})
	}
}
