package report

import (
	"encoding/json"
	"math/rand/v2"
	"os"
	"path/filepath"
	"time"

	"github.com/plimsoll/plimsoll/arms"
	"github.com/plimsoll/plimsoll/compare"
	"github.com/plimsoll/plimsoll/loadgen"
	"github.com/plimsoll/plimsoll/loadgen/hdr"
	"github.com/plimsoll/plimsoll/probe"
	"github.com/plimsoll/plimsoll/results"
	"github.com/plimsoll/plimsoll/use"
	"github.com/plimsoll/plimsoll/verdict"
	"github.com/plimsoll/plimsoll/workload"
)

// abRunDir is the synthetic A/B experiment of runs the tests read: four repetitions a side
// (the fewest the U test can tell apart), B about 10% slower with longer latency, written by
// writeABRunDir under -update.
const abRunDir = "testdata/ab-run"

// abRun is one synthetic repetition: its speed (0.9: 10% slower, latency 1/0.9 longer) and
// the seed of its noise.
func abRun(speed float64, seed uint64) *results.Trial {
	rng := rand.New(rand.NewPCG(seed, 11))
	jit := func() float64 { return 1 + 0.02*(2*rng.Float64()-1) }
	rate := 5000 * speed * jit()
	t := &results.Trial{KafkaVersion: "4.1.0"}
	spec := workload.Default()
	spec.Rate, spec.MessageSize = 5000, 512
	t.Config = loadgen.Config{Spec: spec, Brokers: 3, Topics: []string{"t"}, Partitions: 6, ReplicationFactor: 3}
	t.ProducedMsgsPerSec, t.ConsumedMsgsPerSec, t.TargetMsgsPerSec = rate, rate, 5000
	t.Window = loadgen.Window{Start: time.Date(2026, 11, 25, 12, 0, 0, 0, time.UTC), MeasuredSeconds: 8}
	pub, e2e := hdr.New(), hdr.New()
	for range 1500 {
		ns := 2e6 / speed * (1 + 0.6*rng.ExpFloat64())
		pub.Record(int64(ns))
		e2e.Record(int64(1.6 * ns * jit()))
	}
	t.Histograms = loadgen.Histograms{Publish: pub, EndToEnd: e2e}
	t.Latency.Publish, t.Latency.EndToEnd = pub.Percentiles(), e2e.Percentiles()
	var rows []loadgen.Second
	for i := range 10 {
		phase := loadgen.PhaseMeasure
		if i < 2 {
			phase = loadgen.PhaseWarmup
		}
		v := rate * jit()
		rows = append(rows, loadgen.Second{T: float64(i + 1), Phase: phase, ProducedMsgsPerSec: v, ConsumedMsgsPerSec: v,
			Publish: loadgen.SecondLatency{P50: 2 / speed * jit(), P99: 6 / speed * jit(), Count: 100}})
	}
	t.Timeline = loadgen.TimelineOf(rows...)
	t.CPU = map[string]float64{"plimsoll": 0.4, "broker 1": 0.3 / speed * jit()}
	t.USE = &use.Table{Rows: []use.Row{{Entity: "broker 1", Resource: "cpu",
		Utilisation: use.Cell{Metric: "JVM share of the host's cores", Unit: use.UnitPct, Mean: probe.Num(30 / speed * jit()), Max: probe.Num(40), Samples: 8}}}}
	t.Verdict = verdict.Verdict{State: verdict.OK, Reasons: []verdict.Reason{}}
	return t
}

// writeABRunDir writes the synthetic experiment as the A/B driver would: the repetitions'
// directories in interleaved order, manifest.json and compare.json.
func writeABRunDir(dir string) error {
	armB, err := arms.Parse("--b", "producer:linger.ms=20")
	if err != nil {
		return err
	}
	m := arms.Manifest{Command: "plimsoll compare --a '' --b producer:linger.ms=20 --repeat 4 --out ab -- run --rate 5000",
		Mode: "run", B: armB, ASpec: "defaults", BSpec: armB.String(), Repeat: 4, Order: arms.Order(4)}
	start := time.Date(2026, 11, 25, 12, 0, 0, 0, time.UTC)
	for i := range m.Order {
		st := &m.Order[i]
		st.KafkaVersion, st.Java, st.JavaMajor = "4.1.0", "java", 17
		st.Started = start.Add(time.Duration(i) * time.Minute)
		st.Finished = st.Started.Add(50 * time.Second)
	}
	speed := map[string]float64{"a": 1, "b": 0.9}
	var a, b []string
	for i, st := range m.Order {
		loc := filepath.Join(dir, st.Dir)
		if err := results.WriteTrialDir(loc, abRun(speed[st.Arm], uint64(i+1))); err != nil {
			return err
		}
		if st.Arm == "a" {
			a = append(a, loc)
		} else {
			b = append(b, loc)
		}
	}
	if err := m.Write(dir); err != nil {
		return err
	}
	sa, err := compare.Load(a)
	if err != nil {
		return err
	}
	sb, err := compare.Load(b)
	if err != nil {
		return err
	}
	o := compare.DefaultOptions
	o.Force = true // the arms differ on the client side on purpose
	c, err := compare.Compare(sa, sb, o)
	if err != nil {
		return err
	}
	f, err := os.Create(filepath.Join(dir, ABCompareFile))
	if err != nil {
		return err
	}
	defer f.Close()
	return CompareJSON(f, c)
}

func writeJSONFile(path string, v any) error {
	data, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, append(data, '\n'), 0o644)
}

// abSearch is a limit search whose safe rate at each size is rate(size), its bottleneck at
// 10 KB neck.
func abSearch(rate func(size int) float64, neck string) *results.SearchFile {
	sf := &results.SearchFile{Header: results.Search{Sizes: []int{100, 1000, 10000}}}
	for _, size := range sf.Header.Sizes {
		r, b := rate(size), "cpu (host)"
		if size == 10000 {
			b = neck
		}
		sf.Points = append(sf.Points, results.Boundary{Size: size, Trials: 4, Ceiling: results.Limit{SafeRate: r, UnsafeRate: r * 1.08,
			SafeBytesPerSec: r * float64(size), Bottleneck: b}})
	}
	return sf
}

// abLimitResults is an A/B experiment of limit searches, in memory: two a side, B's limit
// 20% lower at 10 KB.
func abLimitResults() (*ABResults, error) {
	side := func(k float64, neck string, locs ...string) compare.Side {
		s := compare.Side{Kind: compare.KindSearch, Locations: locs}
		for i := range locs {
			j := 1 + 0.01*float64(i)
			s.Searches = append(s.Searches, abSearch(func(size int) float64 {
				if size == 10000 {
					return 600 * k * j
				}
				return 6e6 / float64(size) * j
			}, neck))
		}
		return s
	}
	a, b := side(1, "cpu (host)", "ab/a-1", "ab/a-2"), side(0.8, "disk write on broker 2", "ab/b-1", "ab/b-2")
	c, err := compare.Compare(a, b, compare.DefaultOptions)
	if err != nil {
		return nil, err
	}
	m := arms.Manifest{Mode: "limit", ASpec: "kafka=3.9.1", BSpec: "kafka=4.1.0",
		Order: arms.Order(2)}
	return &ABResults{Dir: "ab", Manifest: m, Comparison: c, A: a, B: b}, nil
}
