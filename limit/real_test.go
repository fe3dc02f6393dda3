package limit

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/plimsoll/plimsoll/fleet"
	"github.com/plimsoll/plimsoll/loadgen"
	"github.com/plimsoll/plimsoll/results"
	"github.com/plimsoll/plimsoll/trial"
	"github.com/plimsoll/plimsoll/verdict"
	"github.com/plimsoll/plimsoll/workload"
	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"
)

// TestTrialBatchSizeIsRunsRule: the batch.size limit's model assumes for a size is the one the
// trial's producers run with, which is the one `plimsoll run` uses for that size: both come
// from kafkaprops.BatchSize, through the spec's resolution.
func TestTrialBatchSizeIsRunsRule(t *testing.T) {
	for _, set := range []string{"", "32768"} {
		spec := workload.Default()
		if set != "" {
			_ = spec.ProducerProps.Set("batch.size", set)
		}
		for _, size := range []int{100, 1000, 10000, 1000000} {
			trial := spec.Clone()
			trial.MessageSize = size
			c, err := trial.Clients()
			if err != nil {
				t.Fatalf("size %d: %v", size, err)
			}
			if got, want := modelMessage(spec, size).BatchSize, c.Producer.BatchSize; got != want {
				t.Errorf("batch.size %q, size %d: the model assumes %d, the trial runs with %d", set, size, got, want)
			}
			if rec := c.Effective().Producer.Props["batch.size"]; rec == "" {
				t.Errorf("size %d: the trial's record lacks batch.size", size)
			}
		}
	}
}

// TestTrialInterrupted: a trial interrupted in its window keeps what it measured in a directory
// of its own, marked interrupted and judged invalid, and leaves no topic behind; one interrupted
// before its window keeps nothing.
func TestTrialInterrupted(t *testing.T) {
	for _, tt := range []struct {
		name   string
		phase  string // cancel at the first second of this phase
		warmup time.Duration
		kept   bool
	}{
		{"in the window", loadgen.PhaseMeasure, time.Second, true},
		{"in the warm-up", loadgen.PhaseWarmup, 3 * time.Second, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			where := fakeWhere(t, 1)
			spec := workload.Default()
			spec.ReplicationFactor, spec.Warmup, spec.Duration = 1, tt.warmup, time.Minute
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			r := &Runner{Base: trial.Config{Spec: spec, Target: where.Target, NoProbe: true, KafkaVersion: "fake"},
				TrialsDir: filepath.Join(t.TempDir(), "trials"), SearchID: "lint"}
			r.Base.Load.Progress = func(s loadgen.Second) {
				if s.Phase == tt.phase {
					cancel()
				}
			}
			_, err := r.Trial(ctx, Request{Size: 100, Rate: 200})
			if !errors.Is(err, loadgen.ErrInterrupted) {
				t.Fatalf("err = %v, want ErrInterrupted", err)
			}
			var ie *InterruptedError
			if got := errors.As(err, &ie); got != tt.kept {
				t.Fatalf("kept = %v, want %v: %v", got, tt.kept, err)
			}
			noTopics(t, where)
			entries, _ := os.ReadDir(r.TrialsDir)
			if !tt.kept {
				if len(entries) != 0 {
					t.Errorf("an interruption before the window left %v", entries)
				}
				return
			}
			if filepath.Base(ie.Dir) != "1-100B-200-interrupted" {
				t.Errorf("kept in %s", ie.Dir)
			}
			got, err := results.LoadTrialDir(ie.Dir)
			if err != nil {
				t.Fatal(err)
			}
			if !got.Interrupted || got.Verdict.State != verdict.Invalid || got.Verdict.Reasons[0].Criterion != verdict.CritInterrupted {
				t.Errorf("interrupted %v, verdict %+v", got.Interrupted, got.Verdict)
			}
			if got.Window.MeasuredSeconds <= 0 || got.Window.MeasuredSeconds >= 60 {
				t.Errorf("measured %v s of a 60 s window", got.Window.MeasuredSeconds)
			}
		})
	}
}

// noTopics fails t when the cluster holds a topic or a group.
func noTopics(t *testing.T, w *trial.Where) {
	t.Helper()
	cl, err := kgo.NewClient(kgo.SeedBrokers(w.Target.Bootstrap...))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	adm := kadm.NewClient(cl)
	ts, err := adm.ListTopics(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	gs, err := adm.ListGroups(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if len(ts) > 0 || len(gs) > 0 {
		t.Errorf("left behind: topics %v, groups %v", ts.Names(), gs.Groups())
	}
}

// TestContinueNumbering: a resumed search's runner numbers its trials on from the directories
// an earlier process left, so no name repeats; files and foreign names are not trials.
func TestContinueNumbering(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "trials")
	r := &Runner{TrialsDir: dir}
	if err := r.ContinueNumbering(); err != nil || r.n.Load() != 0 {
		t.Fatalf("no trials directory: n %d, error %v; want 0, none", r.n.Load(), err)
	}
	for _, d := range []string{"1-100B-1000", "2-100B-2000", "12-100B-1500-hold", "13-100B-1600-interrupted", "notes"} {
		if err := os.MkdirAll(filepath.Join(dir, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(dir, "99-stray-file"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := r.ContinueNumbering(); err != nil {
		t.Fatal(err)
	}
	if got := r.dirName(r.n.Add(1), Request{Size: 100, Rate: 1000}); got != "14-100B-1000" {
		t.Errorf("the next trial's directory is %q, want 14-100B-1000", got)
	}
}

// TestRunnerRunsThroughRun: a Runner with Run runs each trial through it (as `limit
// --local-workers` spreads each over workers), with the trial's rate, size, run id and the
// prefix of that run id, which a run with workers needs (fleet.Prefix).
func TestRunnerRunsThroughRun(t *testing.T) {
	var got []trial.Config
	r := &Runner{SearchID: "abc-120000", Run: func(_ context.Context, cfg trial.Config) (*results.Trial, error) {
		got = append(got, cfg)
		return &results.Trial{}, nil
	}}
	for _, req := range []Request{{Size: 100, Rate: 500}, {Size: 1000, Rate: 50}} {
		if _, err := r.Trial(context.Background(), req); err != nil {
			t.Fatal(err)
		}
	}
	if len(got) != 2 || got[1].Spec.MessageSize != 1000 || got[1].Spec.Rate != 50 || got[1].Load.RunID != "abc-120000-t2" ||
		got[1].Load.TopicPrefix != fleet.Prefix(got[1].Load.RunID) {
		t.Errorf("trials run through Run: %+v", got)
	}
}

// TestRunnerStopsWithoutWorkers: a trial whose workers never joined, or refused the plan, ends
// the search with that error (the next trial's would fare no better); another failure to run is
// a failed trial, retried by the search.
func TestRunnerStopsWithoutWorkers(t *testing.T) {
	for _, tc := range []struct {
		err   error
		fatal bool
	}{{fmt.Errorf("%w: worker 1 of 2 never joined", fleet.ErrMissing), true}, {fleet.ErrRefused, true}, {errors.New("a broker went away"), false}} {
		r := &Runner{SearchID: "abc-120000", Run: func(context.Context, trial.Config) (*results.Trial, error) { return nil, tc.err }}
		tr, err := r.Trial(context.Background(), Request{Size: 100, Rate: 500})
		if tc.fatal && (!errors.Is(err, tc.err) || tr != nil) || !tc.fatal && (err != nil || tr == nil) {
			t.Errorf("%v: trial %v, error %v; want the search stopped %v", tc.err, tr, err, tc.fatal)
		}
	}
}
