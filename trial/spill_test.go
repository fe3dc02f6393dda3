package trial

import (
	"bytes"
	"encoding/json"
	"maps"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"testing"
	"time"

	"github.com/plimsoll/plimsoll/internal/memtest"
	"github.com/plimsoll/plimsoll/loadgen"
	"github.com/plimsoll/plimsoll/probe"
	"github.com/plimsoll/plimsoll/results"
	"github.com/plimsoll/plimsoll/verdict"
)

// recorded is a series the probe recorded on the real local cluster (probe/testdata).
func recorded(t testing.TB, name string) *probe.Series {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "probe", "testdata", name+".json"))
	if err != nil {
		t.Fatal(err)
	}
	var s probe.Series
	if err := json.Unmarshal(data, &s); err != nil {
		t.Fatal(err)
	}
	return &s
}

// spilled is s recorded again through Series.Add with sp, as a trial's probe records it.
func spilled(t testing.TB, s *probe.Series, sp probe.Spill) *probe.Series {
	t.Helper()
	out := *s
	out.Samples = nil
	for _, x := range s.Samples {
		if err := out.Add(x, sp); err != nil {
			t.Fatal(err)
		}
	}
	t.Cleanup(func() { out.Close() })
	return &out
}

// TestJudgeSpilled: the recorded series judged from memory and from a spill (all but 4 samples
// in the file) give the same record, byte for byte (USE table, verdict, CPU, traffic, link
// overhead), and the same trial directory (result.json, probe.json).
func TestJudgeSpilled(t *testing.T) {
	for _, name := range []string{"series-traffic", "series-pause"} {
		t.Run(name, func(t *testing.T) {
			mem := recorded(t, name)
			lr := &loadgen.Result{RunID: "r1", TargetMsgsPerSec: 1000, ProducedMsgsPerSec: 1000}
			from, to := mem.Span()
			lr.Window.Start, lr.Window.MeasuredSeconds = from.Add(3*time.Second), to.Sub(from).Seconds()-6
			lr.Config.NumCPU, lr.Config.GOMAXPROCS, lr.Config.ReplicationFactor, lr.Client.CPUShare = 2, 2, 3, 0.3
			strict := verdict.DefaultCriteria()
			strict.MaxISRShare, strict.MinReplicated, strict.MinHandlerIdle = 0, 0.999, 0.99
			for _, crit := range []verdict.Criteria{verdict.DefaultCriteria(), strict} {
				cfg := Config{Criteria: crit}
				want := judge(lr, mem, cfg, "4.1.0", nil)
				got := judge(lr, spilled(t, mem, probe.Spill{Dir: t.TempDir(), Keep: 4}), cfg, "4.1.0", nil)
				if !got.Series.Spilled() || got.USE == nil {
					t.Fatalf("spilled %v, USE table %v: the test needs a spilled series with a table", got.Series.Spilled(), got.USE)
				}
				sameDir(t, got, want)
			}
		})
	}
}

// sameDir writes both trials' directories and wants them byte for byte the same.
func sameDir(t *testing.T, got, want *results.Trial) {
	t.Helper()
	gd, wd := t.TempDir(), t.TempDir()
	if err := results.WriteTrialDir(gd, got); err != nil {
		t.Fatal(err)
	}
	if err := results.WriteTrialDir(wd, want); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{results.ResultFile, results.ProbeFile} {
		g, _ := os.ReadFile(filepath.Join(gd, f))
		w, _ := os.ReadFile(filepath.Join(wd, f))
		if len(w) == 0 || !bytes.Equal(g, w) {
			t.Errorf("%s from the spilled series (%d bytes) differs from the one from memory (%d bytes)", f, len(g), len(w))
		}
	}
}

// TestTrialSoak: six simulated hours of one sample a second (copies of a real 3-broker run's
// samples, each with memory of its own) recorded with the spill a trial's probe uses, then the
// last two minutes judged (half of them spilled) as trial.Run judges its measured window: the series never holds
// more than its 60 latest samples, and the live heap is flat from the first hour to the sixth
// and after the judging. Held in memory instead, the first hour alone grows it by megabytes
// (BenchmarkSeriesGrowth in probe: 3.7 KB a sample).
func TestTrialSoak(t *testing.T) {
	rec := recorded(t, "series-traffic")
	const hours, keep = 6, 60
	base := rec.Samples[0].Start
	series := func(sp probe.Spill, secs int, mark func(sec int)) *probe.Series {
		s := &probe.Series{Interval: rec.Interval, Cores: rec.Cores, Local: rec.Local, HandlerPools: rec.HandlerPools}
		for sec := range secs {
			if err := s.Add(cloneSample(rec.Samples[sec%len(rec.Samples)], base.Add(time.Duration(sec)*time.Second)), sp); err != nil {
				t.Fatal(err)
			}
			mark(sec + 1)
		}
		return s
	}
	before := memtest.LiveHeap()
	inMemory := series(probe.Spill{}, 3600, func(int) {})
	if grown := memtest.LiveHeap() - before; grown < 5<<20 {
		t.Fatalf("an hour held in memory grew the heap by %d bytes: the copies share their memory, and the soak would show nothing", grown)
	}
	runtime.KeepAlive(inMemory)
	inMemory = nil
	var firstHour int64
	s := series(probe.Spill{Dir: t.TempDir(), Keep: keep}, hours*3600, func(sec int) {
		if sec == 3600 {
			firstHour = memtest.LiveHeap()
		}
	})
	defer s.Close()
	sixthHour := memtest.LiveHeap()
	lr := &loadgen.Result{RunID: "soak", TargetMsgsPerSec: 1000, ProducedMsgsPerSec: 1000}
	lr.Window.Start, lr.Window.MeasuredSeconds = base.Add((hours*3600-120)*time.Second), 120
	lr.Config.NumCPU, lr.Config.GOMAXPROCS, lr.Config.ReplicationFactor = 2, 2, 3
	tr := judge(lr, s, Config{Criteria: verdict.DefaultCriteria()}, "4.1.0", nil)
	judged := memtest.LiveHeap()
	if s.Len() != hours*3600 || len(s.Samples) != keep || tr.USE == nil || tr.USE.Samples < 115 || s.Err() != nil {
		t.Fatalf("%d samples, %d in memory (want %d of %d), USE %v, err %v", s.Len(), len(s.Samples), keep, hours*3600, tr.USE, s.Err())
	}
	t.Logf("live heap: %d B after the first hour, %d after the sixth, %d after judging", firstHour, sixthHour, judged)
	if sixthHour-firstHour > 1<<20 || judged-firstHour > 1<<20 {
		t.Errorf("the live heap grew %d bytes from the first hour to the sixth, %d to after judging", sixthHour-firstHour, judged-firstHour)
	}
}

// cloneSample copies x's host, broker and metadata parts at a new start: a sample with memory of
// its own, one second long.
func cloneSample(x probe.Sample, start time.Time) probe.Sample {
	x.Start, x.Time = start, start.Add(time.Second)
	if x.Host != nil {
		h := *x.Host
		h.Brokers = maps.Clone(h.Brokers)
		h.Net = slices.Clone(h.Net)
		x.Host = &h
	}
	brokers := make(map[int32]*probe.BrokerSample, len(x.Brokers))
	for id, b := range x.Brokers {
		c := *b
		brokers[id] = &c
	}
	x.Brokers = brokers
	if x.Meta != nil {
		m := *x.Meta
		x.Meta = &m
	}
	return x
}

// BenchmarkJudgeSpilled is what judging a measured window costs when its samples are spilled
// (all but the latest 60 read back from the file for each pass), per sample of the window: 15
// minutes of a real 3-broker run's samples.
// go test -run XXX -bench JudgeSpilled -benchtime 1x ./trial
func BenchmarkJudgeSpilled(b *testing.B) {
	rec := recorded(b, "series-traffic")
	const secs = 900
	base := rec.Samples[0].Start
	for _, keep := range []struct {
		name string
		sp   probe.Spill
	}{{"memory", probe.Spill{}}, {"spilled", probe.Spill{Dir: b.TempDir(), Keep: 60}}} {
		b.Run(keep.name, func(b *testing.B) {
			s := &probe.Series{Interval: rec.Interval, Cores: rec.Cores, Local: rec.Local, HandlerPools: rec.HandlerPools}
			defer s.Close()
			for sec := range secs {
				if err := s.Add(cloneSample(rec.Samples[sec%len(rec.Samples)], base.Add(time.Duration(sec)*time.Second)), keep.sp); err != nil {
					b.Fatal(err)
				}
			}
			lr := &loadgen.Result{RunID: "bench", TargetMsgsPerSec: 1000, ProducedMsgsPerSec: 1000}
			lr.Window.Start, lr.Window.MeasuredSeconds = base, secs
			lr.Config.NumCPU, lr.Config.GOMAXPROCS, lr.Config.ReplicationFactor = 2, 2, 3
			for b.Loop() {
				judge(lr, s, Config{Criteria: verdict.DefaultCriteria()}, "4.1.0", nil)
			}
			b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(b.N*secs), "µs/sample")
		})
	}
}
