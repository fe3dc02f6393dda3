package compare

import (
	"math/rand/v2"
	"path/filepath"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/plimsoll/plimsoll/loadgen"
	"github.com/plimsoll/plimsoll/loadgen/hdr"
	"github.com/plimsoll/plimsoll/model"
	"github.com/plimsoll/plimsoll/probe"
	"github.com/plimsoll/plimsoll/results"
	"github.com/plimsoll/plimsoll/use"
	"github.com/plimsoll/plimsoll/workload"
)

// run describes a synthetic run: its rate and latency scaled by speed (0.9: 10% slower, its
// latency 1/0.9 longer), with noise of the given relative size, drawn from seed.
type run struct {
	speed, noise float64
	seed         uint64
	seconds      int // measured seconds in the timeline
}

// trial builds the run's record: rates, histograms, a timeline, broker CPU, traffic and a USE
// table. As the run slows, broker 2's CPU per message, its bytes in per message and its
// network in rise; broker 1's CPU per message stays.
func (r run) trial() *results.Trial {
	rng := rand.New(rand.NewPCG(r.seed, 7))
	jit := func() float64 { return 1 + r.noise*(2*rng.Float64()-1) }
	rate := 10000 * r.speed * jit()
	t := &results.Trial{KafkaVersion: "4.1.0"}
	spec := workload.Default()
	spec.Rate, spec.MessageSize = 10000, 1024
	t.Config = loadgen.Config{Spec: spec, Brokers: 3, Topics: []string{"t"}, Partitions: 6, ReplicationFactor: 3}
	t.ProducedMsgsPerSec, t.ConsumedMsgsPerSec, t.TargetMsgsPerSec = rate, rate, 10000
	t.Window = loadgen.Window{Start: time.Date(2026, 11, 25, 12, 0, 0, 0, time.UTC), MeasuredSeconds: float64(r.seconds)}
	pub, e2e := hdr.New(), hdr.New()
	for range 2000 {
		base := 2e6 / r.speed * (1 + 0.5*rng.ExpFloat64()) // ns
		pub.Record(int64(base * jit()))
		e2e.Record(int64(1.5 * base * jit()))
	}
	t.Histograms = loadgen.Histograms{Publish: pub, EndToEnd: e2e}
	t.Latency.Publish, t.Latency.EndToEnd = pub.Percentiles(), e2e.Percentiles()
	var rows []loadgen.Second
	for i := range r.seconds {
		v := rate * jit()
		rows = append(rows, loadgen.Second{T: float64(i + 1), Phase: loadgen.PhaseMeasure,
			ProducedMsgsPerSec: v, ConsumedMsgsPerSec: v,
			Publish: loadgen.SecondLatency{P50: 2 / r.speed * jit(), P99: 5 / r.speed * jit(), Count: 100}})
	}
	t.Timeline = loadgen.TimelineOf(rows...)
	t.CPU = map[string]float64{"plimsoll": 0.5, "broker 1": 0.4 * r.speed * jit(), "broker 2": 0.4 * jit()}
	t.Traffic = []model.Measured{{Broker: 1, ProduceIn: rate * 1100, ReplicationOut: rate * 2200},
		{Broker: 2, ProduceIn: rate * 1100 / (r.speed * r.speed * r.speed), ConsumeOut: rate * 1100}}
	pct := func(v float64, metric string) use.Cell {
		return use.Cell{Metric: metric, Unit: use.UnitPct, Mean: probe.Num(v), Max: probe.Num(v), Samples: 10}
	}
	t.USE = &use.Table{Rows: []use.Row{
		{Entity: "broker 1", Resource: "cpu", Utilisation: pct(20*r.speed*jit(), "JVM share of the host's cores")},
		{Entity: "broker 2", Resource: "network in", Utilisation: pct(90/r.speed*jit(), "wire bytes in ÷ NIC")},
		{Entity: "broker 2", Resource: "disk", Utilisation: use.Cell{Unit: use.UnitPct, Missing: use.NoDiskCapacity}},
	}}
	return t
}

// runs builds n repetitions of r, each with its own seed.
func runs(r run, n int) []*results.Trial {
	var out []*results.Trial
	for i := range n {
		x := r
		x.seed = r.seed*100 + uint64(i)
		out = append(out, x.trial())
	}
	return out
}

// side makes a Side of runs without files.
func side(name string, ts []*results.Trial) Side {
	s := Side{Kind: KindRun, Runs: ts}
	for i := range ts {
		s.Locations = append(s.Locations, name+strconv.Itoa(i+1))
	}
	return s
}

// writeRuns writes the trials as run directories and returns them.
func writeRuns(t *testing.T, dir string, ts []*results.Trial) []string {
	t.Helper()
	var out []string
	for i, tr := range ts {
		d := filepath.Join(dir, strconv.Itoa(i+1))
		if err := results.WriteTrialDir(d, tr); err != nil {
			t.Fatal(err)
		}
		out = append(out, d)
	}
	return out
}

// writeSearch writes a limit search's results.jsonl with one boundary per size, its ceiling
// at the rate given.
func writeSearch(t *testing.T, dir string, rates map[int]float64) string {
	t.Helper()
	var bs []results.Boundary
	for s, r := range rates {
		bs = append(bs, results.Boundary{Size: s, Ceiling: results.Limit{SafeRate: r, UnsafeRate: r * 1.1}})
	}
	slices.SortFunc(bs, func(x, y results.Boundary) int { return x.Size - y.Size })
	return writeBoundaries(t, dir, bs)
}

// writeBoundaries writes a limit search's results.jsonl with these boundaries.
func writeBoundaries(t *testing.T, dir string, bs []results.Boundary) string {
	t.Helper()
	w, err := results.Open(filepath.Join(dir, SearchFile))
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	var sizes []int
	for _, b := range bs {
		sizes = append(sizes, b.Size)
	}
	if err := w.Append(results.KindSearch, "", results.Search{Sizes: sizes}); err != nil {
		t.Fatal(err)
	}
	for _, b := range bs {
		if err := w.Append(results.KindBoundary, "", b); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}
