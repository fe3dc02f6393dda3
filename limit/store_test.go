package limit

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"

	goldenfile "github.com/plimsoll/plimsoll/internal/golden"

	"github.com/plimsoll/plimsoll/results"
)

// searchConfig is a search's configuration as the tests store it: acks differs in its command.
func searchConfig(acks string) *results.Config {
	return &results.Config{Command: "plimsoll limit --producer-prop acks=" + acks, KafkaVersion: "4.1.0", Brokers: 3,
		ReplicationFactor: 3, Partitions: 30}
}

// resumeCases are clusters whose searches are interrupted and resumed.
var resumeCases = []struct {
	name string
	sim  simCluster
	o    Options
}{
	{name: "network bound", sim: simCluster{bytesCap: 5e6, overhead: 70}},
	{name: "client-bound sizes", sim: simCluster{bytesCap: 100e6, overhead: 70, genCap: 30000}},
	{name: "with a retry", sim: simCluster{bytesCap: 5e6, overhead: 70, flaky: map[[2]int]int{{100, 10000}: 1, {1000, 2000}: 1}}},
	{name: "broken rate and model start", sim: simCluster{bytesCap: 5e6, overhead: 70, flaky: map[[2]int]int{{1000, 4000}: 2}},
		o: Options{Sizes: []int{100, 1000, 4000}, Start: func(size int) float64 { return 4e6 / float64(size) }}},
	{name: "two limits, a hold that fails", sim: simCluster{bytesCap: 5e6, overhead: 70, sloCap: 3.5e6, holdCap: 0.97},
		o: Options{SLO: true, Confirm: true, FirstStep: 1.1}},
}

// TestResume interrupts a search after every possible number of trials and resumes it: the
// Trialer runs exactly the trials of an uninterrupted search, and the boundary is the same.
func TestResume(t *testing.T) {
	for _, tc := range resumeCases {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			clean := tc.sim
			o := tc.o
			o.Store = filepath.Join(dir, "clean.jsonl")
			want, err := Search(context.Background(), &clean, o)
			if err != nil {
				t.Fatal(err)
			}
			n := len(clean.calls)
			for k := 1; k < n; k++ {
				sim := tc.sim // one cluster across both runs: a rate that failed once stays failed once
				ctx, cancel := context.WithCancel(context.Background())
				stopAfterK := TrialerFunc(func(ctx context.Context, req Request) (*results.Trial, error) {
					out, err := sim.Trial(ctx, req)
					if len(sim.calls) == k {
						cancel()
					}
					return out, err
				})
				o := tc.o
				o.Store = filepath.Join(dir, fmt.Sprintf("k%d.jsonl", k))
				if _, err := Search(ctx, stopAfterK, o); !errors.Is(err, context.Canceled) || len(sim.calls) != k {
					t.Fatalf("k=%d: first run: %v after %d trials", k, err, len(sim.calls))
				}
				reused := 0
				o.Resume = true
				o.Progress = func(p Progress) {
					if p.Reused {
						reused++
					}
				}
				got, err := Search(context.Background(), &sim, o)
				if err != nil {
					t.Fatalf("k=%d: resume: %v", k, err)
				}
				if len(sim.calls) != n || reused != k {
					t.Errorf("k=%d: %d trials in all (%d reused), want %d (%d reused)", k, len(sim.calls), reused, n, k)
				}
				if !reflect.DeepEqual(got, want) {
					t.Errorf("k=%d: resumed boundary differs:\n got %+v\nwant %+v", k, got, want)
				}
				checkStore(t, o.Store, n, len(want))
			}
		})
	}
}

// checkStore asserts a finished search's file: one header, each trial once, one boundary per size.
func checkStore(t *testing.T, path string, trials, sizes int) {
	t.Helper()
	recs, warns, err := results.Load(path)
	if err != nil || len(warns) != 0 {
		t.Fatalf("%s: %v %v", path, err, warns)
	}
	h := len(results.Filter(recs, results.KindSearch))
	tr, err := results.DecodeAll[results.Trial](recs, results.KindTrial)
	if err != nil {
		t.Fatal(err)
	}
	b := len(results.Filter(recs, results.KindBoundary))
	if h != 1 || len(tr) != trials || b != sizes {
		t.Errorf("%s: %d headers, %d trials, %d boundaries; want 1, %d, %d", path, h, len(tr), b, trials, sizes)
	}
	for i, x := range tr {
		if x.Step == nil || x.Step.Seq != i+1 {
			t.Errorf("%s: trial %d has step %+v", path, i+1, x.Step)
		}
	}
}

// TestResumeTorn: a kill during a trial (the Trialer returns ctx's error: nothing stored) and
// during the write of its record (a torn last line) costs that one trial, nothing else.
func TestResumeTorn(t *testing.T) {
	clean := simCluster{bytesCap: 5e6, overhead: 70}
	want, err := Search(context.Background(), &clean, Options{})
	if err != nil {
		t.Fatal(err)
	}
	sim := simCluster{bytesCap: 5e6, overhead: 70}
	store := filepath.Join(t.TempDir(), "results.jsonl")
	ctx, cancel := context.WithCancel(context.Background())
	killed := TrialerFunc(func(ctx context.Context, req Request) (*results.Trial, error) {
		if len(sim.calls) == 7 {
			cancel()
			sim.calls = append(sim.calls, call{req.Size, req.Rate, req.Hold, nil}) // it ran, its result is lost
			return nil, ctx.Err()
		}
		return sim.Trial(ctx, req)
	})
	if _, err := Search(ctx, killed, Options{Store: store}); !errors.Is(err, context.Canceled) {
		t.Fatalf("first run: %v", err)
	}
	f, err := os.OpenFile(store, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString(`{"kind":"trial","schema":2,"time":"2025-`) // the torn write
	f.Close()
	var logs []string
	got, err := Search(context.Background(), &sim, Options{Store: store, Resume: true,
		Logf: func(format string, args ...any) { logs = append(logs, fmt.Sprintf(format, args...)) }})
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, want) || len(sim.calls) != len(clean.calls)+1 {
		t.Errorf("%d trials (want %d), boundary %+v, want %+v", len(sim.calls), len(clean.calls)+1, got, want)
	}
	if len(logs) != 2 || !strings.Contains(logs[0], "torn last line") || !strings.Contains(logs[1], "cut a torn last line") {
		t.Errorf("warnings: %q", logs)
	}
	checkStore(t, store, len(clean.calls), 3)
}

// TestResumeDone: resuming a finished search runs nothing and adds no records.
func TestResumeDone(t *testing.T) {
	store := filepath.Join(t.TempDir(), "results.jsonl")
	sim := simCluster{bytesCap: 5e6, overhead: 70}
	want, err := Search(context.Background(), &sim, Options{Store: store})
	if err != nil {
		t.Fatal(err)
	}
	before, _ := os.ReadFile(store)
	idle := TrialerFunc(func(context.Context, Request) (*results.Trial, error) {
		return nil, errors.New("no trial should run")
	})
	got, err := Search(context.Background(), idle, Options{Store: store, Resume: true})
	if err != nil || !reflect.DeepEqual(got, want) {
		t.Fatalf("%v\n got %+v\nwant %+v", err, got, want)
	}
	if after, _ := os.ReadFile(store); !bytes.Equal(before, after) {
		t.Error("resuming a finished search changed the file")
	}
}

func TestResumeMismatch(t *testing.T) {
	store := filepath.Join(t.TempDir(), "results.jsonl")
	base := Options{Sizes: []int{100, 1000}, Store: store, Config: searchConfig("all"),
		Start: func(size int) float64 { return 2e6 / float64(size) }}
	sim := simCluster{bytesCap: 5e6}
	if _, err := Search(context.Background(), &sim, base); err != nil {
		t.Fatal(err)
	}
	if _, err := Search(context.Background(), &sim, base); !errors.Is(err, ErrStoreInUse) || !strings.Contains(err.Error(), "resume it") {
		t.Errorf("second search on the same file: %v, want ErrStoreInUse", err)
	}
	tests := []struct {
		option string
		change func(*Options)
	}{
		{"Sizes", func(o *Options) { o.Sizes = []int{100, 1000, 10000} }},
		{"Tolerance", func(o *Options) { o.Tolerance = 0.1 }},
		{"MinRate", func(o *Options) { o.MinRate = 10 }},
		{"MaxRate", func(o *Options) { o.MaxRate = 5e5 }},
		{"Growth", func(o *Options) { o.Growth = 3 }},
		{"MaxTrialsPerSize", func(o *Options) { o.MaxTrialsPerSize = 12 }},
		{"Start", func(o *Options) { o.Start = nil }},
		{"Start(1000)", func(o *Options) {
			o.Start = func(size int) float64 { return map[int]float64{100: 2e4, 1000: 3e3}[size] }
		}},
		{"Config.command", func(o *Options) { o.Config = searchConfig("1") }},
		{"Config.kafka_version", func(o *Options) {
			o.Config = searchConfig("all")
			o.Config.KafkaVersion = "3.9.1"
		}},
		{"Config.producer", func(o *Options) {
			o.Config = searchConfig("all")
			o.Config.Producer = results.ProducerLean
		}},
		{"Config", func(o *Options) { o.Config = nil }},
	}
	for _, tt := range tests {
		t.Run(tt.option, func(t *testing.T) {
			o := base
			o.Resume = true
			tt.change(&o)
			_, err := Search(context.Background(), &sim, o)
			var me *MismatchError
			if !errors.As(err, &me) || me.Option != tt.option || !errors.Is(err, ErrResumeMismatch) {
				t.Fatalf("err = %v, want a mismatch in %s", err, tt.option)
			}
			if !strings.Contains(err.Error(), store) || !strings.Contains(err.Error(), "same options") {
				t.Errorf("message %q should name the file and the fix", err)
			}
		})
	}
	// The same options, the Config built anew, resume fine.
	o := base
	o.Resume = true
	o.Config = searchConfig("all")
	if _, err := Search(context.Background(), &sim, o); err != nil {
		t.Errorf("equal options: %v", err)
	}
}

func TestResumeNothing(t *testing.T) {
	var logs []string
	store := filepath.Join(t.TempDir(), "out", "results.jsonl")
	sim := simCluster{bytesCap: 5e6}
	_, err := Search(context.Background(), &sim, Options{Store: store, Resume: true,
		Logf: func(f string, a ...any) { logs = append(logs, fmt.Sprintf(f, a...)) }})
	if err != nil || len(logs) != 1 || !strings.Contains(logs[0], "no search to resume") {
		t.Errorf("%v, logs %q", err, logs)
	}
	checkStore(t, store, len(sim.calls), 3)
}

func TestResumeCorruptStore(t *testing.T) {
	store := filepath.Join(t.TempDir(), "results.jsonl")
	sim := simCluster{bytesCap: 5e6}
	if _, err := Search(context.Background(), &sim, Options{Store: store}); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(store)
	lines := bytes.SplitAfter(data, []byte("\n"))
	lines[3] = []byte("{not json\n")
	os.WriteFile(store, bytes.Join(lines, nil), 0o644)
	_, err := Search(context.Background(), &sim, Options{Store: store, Resume: true})
	var le *results.LineError
	if !errors.As(err, &le) || le.Line != 4 {
		t.Errorf("err = %v, want a LineError at line 4", err)
	}
}

// TestProgress: two reports per trial, numbered in order, counts adding up, an estimate that
// never falls below the trial at hand.
func TestProgress(t *testing.T) {
	var ps []Progress
	sim := simCluster{bytesCap: 5e6, overhead: 70, genCap: 40000}
	points, err := Search(context.Background(), &sim, Options{Progress: func(p Progress) { ps = append(ps, p) }})
	if err != nil {
		t.Fatal(err)
	}
	if len(ps) != 2*len(sim.calls) {
		t.Fatalf("%d reports for %d trials", len(ps), len(sim.calls))
	}
	for i, p := range ps {
		n := i/2 + 1
		if p.Trial != n || p.Done != (i%2 == 1) || p.About < p.Trial || p.Sizes != 3 || p.Rate != sim.calls[n-1].rate {
			t.Errorf("report %d: %+v", i, p)
		}
		if p.Done && p.OK+p.Overloaded+p.Invalid != n {
			t.Errorf("report %d: counts %d+%d+%d != %d", i, p.OK, p.Overloaded, p.Invalid, n)
		}
	}
	last := ps[len(ps)-1]
	if last.About != last.Trial || last.SizeIndex != 2 {
		t.Errorf("last report %+v: the estimate should have converged", last)
	}
	total := 0
	for _, p := range points {
		total += p.Trials
	}
	if total != last.Trial {
		t.Errorf("points count %d trials, progress %d", total, last.Trial)
	}
}

// TestGoldenStore pins the results file of a small search: a retried trial, a client-bound
// trial, a bracket and a bisection. Times are masked.
func TestGoldenStore(t *testing.T) {
	store := filepath.Join(t.TempDir(), "results.jsonl")
	sim := simCluster{bytesCap: 2e6, overhead: 70, genCap: 12000, flaky: map[[2]int]int{{100, 10000}: 1}}
	o := Options{Sizes: []int{100, 1000}, Store: store, Config: searchConfig("all")}
	if _, err := Search(context.Background(), &sim, o); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(store)
	if err != nil {
		t.Fatal(err)
	}
	got := regexp.MustCompile(`"time":"[^"]+"`).ReplaceAll(data, []byte(`"time":"2025-03-01T12:00:00Z"`))
	golden := filepath.Join("testdata", "search.golden.jsonl")
	goldenfile.Check(t, golden, got)
	want := got
	// The golden file is itself a search that resumes to the same answer without a trial.
	copyPath := filepath.Join(t.TempDir(), "results.jsonl")
	os.WriteFile(copyPath, want, 0o644)
	o.Store, o.Resume = copyPath, true
	idle := TrialerFunc(func(context.Context, Request) (*results.Trial, error) { return nil, errors.New("ran a trial") })
	if _, err := Search(context.Background(), idle, o); err != nil {
		t.Error(err)
	}
}

// FuzzResume: whatever the results file holds, a resume returns an error or a boundary that
// keeps the search's promises; it never panics or loops.
func FuzzResume(f *testing.F) {
	golden, err := os.ReadFile(filepath.Join("testdata", "search.golden.jsonl"))
	if err != nil {
		f.Fatal(err)
	}
	f.Add(golden)
	f.Add(golden[:len(golden)/2])
	f.Add(bytes.Replace(golden, []byte(`"state":"ok"`), []byte(`"state":"fine"`), 1))
	f.Add(bytes.Replace(golden, []byte(`"state":"overloaded"`), []byte(`"state":"ok"`), -1))
	f.Fuzz(func(t *testing.T, data []byte) {
		store := filepath.Join(t.TempDir(), "results.jsonl")
		if err := os.WriteFile(store, data, 0o644); err != nil {
			t.Fatal(err)
		}
		sim := simCluster{bytesCap: 2e6, overhead: 70, genCap: 12000}
		o := Options{Sizes: []int{100, 1000}, Store: store, Resume: true,
			Config: searchConfig("all")}
		points, err := Search(context.Background(), &sim, o)
		if err != nil {
			return
		}
		if len(points) != 2 {
			t.Fatalf("%d points", len(points))
		}
		for _, p := range points {
			if p.Trials > 33 || p.Ceiling.SafeRate < 0 || p.Ceiling.UnsafeRate < 0 || p.Ceiling.UnsafeRate > 0 && p.Ceiling.UnsafeRate <= p.Ceiling.SafeRate && !p.Ceiling.ClientBound {
				t.Fatalf("point %+v", p)
			}
		}
	})
}
