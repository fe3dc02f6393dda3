package report

import (
	"bytes"
	"path/filepath"
	"testing"

	"github.com/plimsoll/plimsoll/compare"
	goldenfile "github.com/plimsoll/plimsoll/internal/golden"
)

func f64(v float64) *float64 { return &v }

// slowerRuns is a comparison of two runs a side where B is 10% slower: every kind of cell
// (an interval, none, no test, repetitions needed), the cause and a forced difference.
func slowerRuns() *compare.Comparison {
	rate := func(name string, a, b float64) compare.Figure {
		return compare.Figure{Name: name, Unit: compare.UnitMsgsPerSec, HigherIsBetter: true, Speed: true, Throughput: true,
			A: a, B: b, Change: f64(b/a - 1), CI: &compare.Interval{Lo: -0.121, Hi: -0.081}, Basis: compare.BasisRepetitions,
			N1: 5, N2: 5, U: f64(25), P: f64(0.0079), Verdict: compare.Slower}
	}
	cpu := compare.Figure{Name: "CPU per message", Subject: "broker 2", Unit: compare.UnitCPUPerMsg, A: 40e-6, B: 50e-6,
		Change: f64(0.25), CI: &compare.Interval{Lo: 0.2, Hi: 0.3}, Basis: compare.BasisRepetitions, N1: 5, N2: 5,
		U: f64(0), P: f64(0.0079), Verdict: compare.Worse}
	bytesPer := compare.Figure{Name: "broker traffic per message", Unit: compare.UnitBytesPerMsg, A: 5500, B: 5940,
		Change: f64(0.08), Basis: compare.BasisRepetitions, N1: 5, N2: 5, U: f64(10), P: f64(0.69), Verdict: compare.Same}
	return &compare.Comparison{
		Kind: compare.KindRun, A: []string{"a/1", "a/2", "a/3", "a/4", "a/5"}, B: []string{"b/1", "b/2", "b/3", "b/4", "b/5"},
		Alpha: 0.05, Threshold: 0.05,
		Figures: []compare.Figure{
			rate("produced", 10000, 9000), rate("consumed", 10000, 9010),
			{Name: "publish latency p99", Unit: compare.UnitMs, Speed: true, A: 5.2, B: 5.9, Change: f64(5.9/5.2 - 1),
				CI: &compare.Interval{Lo: 0.05, Hi: 0.2}, Basis: compare.BasisRepetitions, N1: 5, N2: 5, U: f64(2), P: f64(0.032), Verdict: compare.Slower},
			cpu, bytesPer,
			{Name: "utilisation", Subject: "broker 2 network in", Unit: compare.UnitPct, A: 91, B: 98, Change: f64(98.0/91 - 1),
				CI: &compare.Interval{Lo: 0.04, Hi: 0.1}, Basis: compare.BasisRepetitions, N1: 5, N2: 5, U: f64(0), P: f64(0.0079), Verdict: compare.Worse},
		},
		Cause: compare.Cause{
			Moves: []compare.Move{{Entity: "broker 2", Resource: "network in", Metric: "wire bytes in ÷ NIC", A: 91, B: 98,
				BAtARate: f64(98 * 10000 / 9000.0), Points: 98*10000/9000.0 - 91, Headroom: (98*10000/9000.0 - 91) / 9},
				{Entity: "broker 1", Resource: "memory", Metric: "heap used ÷ max", A: 40, B: 46, Points: 6, Headroom: 0.1}},
			Evidence: []compare.Figure{cpu, bytesPer},
		},
		Verdict:     compare.Slower,
		Notes:       []compare.Note{{Location: "b/3", What: compare.NoteInvalid, Detail: "client-bound"}},
		Differences: []compare.Difference{{Setting: "spec.producer-props.linger.ms", A: "5", B: "", Where: "A vs B"}},
	}
}

// oneSearchEach is a comparison of one limit search a side: no test can be made.
func oneSearchEach() *compare.Comparison {
	lim := func(name string, size int, a, b float64) compare.Figure {
		return compare.Figure{Name: name, Size: size, Unit: compare.UnitMsgsPerSec, HigherIsBetter: true, Speed: true,
			Throughput: true, A: a, B: b, Change: f64(b/a - 1), Basis: compare.BasisNone, Needed: 4, Verdict: compare.Same}
	}
	c := &compare.Comparison{Kind: compare.KindSearch, A: []string{"limit-a"}, B: []string{"limit-b"}, Alpha: 0.05, Threshold: 0.05,
		Figures: []compare.Figure{lim("ceiling safe rate", 100, 52000, 51000), lim("SLO safe rate", 100, 40000, 30000),
			lim("ceiling safe rate", 1024, 21000, 20500)},
		Cause:   compare.Cause{Bottlenecks: []compare.Bottleneck{{Size: 100, Limit: "slo", A: []string{"broker 2 request handlers"}, B: []string{"broker 1 cpu", "broker 3 cpu"}}}},
		Verdict: compare.Same}
	c.Figures[2].ClientBound = true
	return c
}

func TestCompareGolden(t *testing.T) {
	for _, c := range []struct {
		name string
		c    *compare.Comparison
	}{{"compare-runs-slower", slowerRuns()}, {"compare-searches-one-each", oneSearchEach()}} {
		var text, js bytes.Buffer
		if err := Compare(&text, c.c); err != nil {
			t.Fatal(err)
		}
		if err := CompareJSON(&js, c.c); err != nil {
			t.Fatal(err)
		}
		goldenfile.Check(t, filepath.Join("testdata", "golden", c.name+".txt"), text.Bytes())
		goldenfile.Check(t, filepath.Join("testdata", "golden", c.name+".json"), js.Bytes())
	}
}
