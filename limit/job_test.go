package limit

import (
	"context"
	"errors"
	"math"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/plimsoll/plimsoll/results"
	"github.com/plimsoll/plimsoll/target"
	"github.com/plimsoll/plimsoll/trial"
	"github.com/plimsoll/plimsoll/workload"
	"github.com/twmb/franz-go/pkg/kfake"
)

// fakeWhere is a kfake cluster of n brokers as a job's cluster (client logic only, never a figure).
func fakeWhere(t *testing.T, n int) *trial.Where {
	t.Helper()
	c, err := kfake.NewCluster(kfake.NumBrokers(n))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	return &trial.Where{Target: target.Target{Bootstrap: c.ListenAddrs()}, NIC: 2e6}
}

func TestJobRefusesBeforeAnyTrial(t *testing.T) {
	where := fakeWhere(t, 3)
	used := t.TempDir()
	if err := os.WriteFile(filepath.Join(used, StoreName), []byte{}, 0o644); err != nil {
		t.Fatal(err)
	}
	spec := workload.Default()
	rf4 := spec.Clone()
	rf4.ReplicationFactor = 4
	tests := []struct {
		name string
		job  Job
		want error
	}{
		{"a search already there", Job{Out: used}, ErrStoreInUse},
		{"nothing to resume", Job{Out: filepath.Join(t.TempDir(), "new"), Resume: true}, ErrNothingToResume},
		{"every broker down", Job{Out: t.TempDir(), BrokersDown: 3}, ErrBrokersDown},
		{"replication above the brokers", Job{Out: t.TempDir(), Base: trial.Config{Spec: rf4}}, workload.ErrInvalid},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.job.Where = where
			if tt.job.Base.Spec.Topics == 0 {
				tt.job.Base.Spec = spec
			}
			_, err := Run(context.Background(), tt.job)
			if !errors.Is(err, tt.want) {
				t.Fatalf("Run = %v, want %v", err, tt.want)
			}
			if _, err := os.Stat(filepath.Join(tt.job.Out, "trials")); !os.IsNotExist(err) {
				t.Errorf("a refused job left %s/trials", tt.job.Out)
			}
		})
	}
}

func TestJobConfig(t *testing.T) {
	j := Job{Out: t.TempDir(), Where: fakeWhere(t, 3), BrokersDown: 1, Command: "plimsoll limit", Base: trial.Config{Spec: workload.Default(), KafkaVersion: "4.1.0"}}
	cfg, err := j.config(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Brokers != 3 || cfg.ReplicationFactor != 3 || cfg.Partitions != 30 || cfg.NICBytesPerSec != 2e6 ||
		cfg.BrokersDown != 1 || cfg.KafkaVersion != "4.1.0" || cfg.Command != "plimsoll limit" || cfg.HostCores == 0 || cfg.Producer != "" {
		t.Errorf("config = %+v", cfg)
	}
	// The produce path is part of what the boundary depends on: resume compares it.
	j.Base.Load.LeanProducer = true
	if cfg, err = j.config(context.Background()); err != nil || cfg.Producer != results.ProducerLean {
		t.Errorf("with the lean producer: producer %q, %v; want %q", cfg.Producer, err, results.ProducerLean)
	}
}

// TestFinishOnce: a finished search gets one recommendation, however often it is resumed.
func TestFinishOnce(t *testing.T) {
	store := filepath.Join(t.TempDir(), StoreName)
	sim := simCluster{bytesCap: 5e6, overhead: 70}
	cfg := results.Config{Brokers: 3, ReplicationFactor: 3, BrokersDown: 1}
	if _, err := Search(context.Background(), &sim, Options{Store: store, Config: &cfg}); err != nil {
		t.Fatal(err)
	}
	for range 2 {
		sf, err := finish(store, cfg)
		if err != nil || sf.Recommendation == nil {
			t.Fatalf("finish = %+v, %v", sf, err)
		}
	}
	recs, _, err := results.Load(store)
	if err != nil {
		t.Fatal(err)
	}
	if n := len(results.Filter(recs, results.KindRecommendation)); n != 1 {
		t.Errorf("%d recommendations, want 1", n)
	}
	sf, _ := results.LoadSearch(store)
	r := sf.Recommendation
	// The worst size sets it: 100 B, where the simulated 70 B of overhead per message leaves the
	// least payload of the 5 MB/s.
	if r.Size != 100 || r.Brokers != 3 || r.BrokersDown != 1 || !(r.PerBrokerBytesPerSec < r.MeasuredBytesPerSec/3) {
		t.Errorf("recommendation %+v", r)
	}
}

// Job.Check refuses what Run would refuse later, before anything starts, naming the option.
func TestJobCheck(t *testing.T) {
	cases := []struct {
		name   string
		j      Job
		option string // "" = ErrBrokersDown
	}{
		{"tolerance", Job{Search: Options{Tolerance: 2}}, "Tolerance"},
		{"growth under half the tolerance", Job{Search: Options{Tolerance: 0.5, Growth: 1.2}}, "Growth"},
		{"growth under the tolerance", Job{Search: Options{Tolerance: 0.5, Growth: 1.3}}, "Growth"},
		{"max under min", Job{Search: Options{MinRate: 100, MaxRate: 50}}, "MaxRate"},
		{"hold", Job{Hold: -time.Second}, "Hold"},
		{"brokers down", Job{BrokersDown: -1}, ""},
	}
	for _, tc := range cases {
		err := tc.j.Check()
		var oe *OptionError
		switch {
		case tc.option == "" && !errors.Is(err, ErrBrokersDown):
			t.Errorf("%s: %v, want ErrBrokersDown", tc.name, err)
		case tc.option != "" && (!errors.As(err, &oe) || oe.Option != tc.option):
			t.Errorf("%s: %v, want an OptionError for %s", tc.name, err, tc.option)
		}
	}
	if err := (Job{Search: Options{Tolerance: 0.5, Growth: 1.5}}).Check(); err != nil {
		t.Errorf("growth 1 + tolerance: %v", err)
	}
}

// TestJobStartRate: a start rate near the limit brackets it in two trials (the first step is the
// tolerance); later sizes start at its bytes/s, or at the model's prediction when there is one;
// a rate outside the search's rates is refused.
func TestJobStartRate(t *testing.T) {
	sim := &simCluster{bytesCap: 1.8e6, overhead: 10} // 100 B: limit 16,364 msgs/s
	o := Options{Sizes: []int{100, 108}, Tolerance: 0.01, Growth: 1.1}
	Job{StartRate: 16300}.startAt(&o, results.Config{})
	if o.FirstStep != 1.01 || o.Start(100) != 16300 || math.Abs(o.Start(108)-16300*100.0/108) > 1e-9 {
		t.Fatalf("first step %v, starts %v and %v: want 1.01, 16300 and its bytes/s at 108 B", o.FirstStep, o.Start(100), o.Start(108))
	}
	points, err := Search(context.Background(), sim, o)
	if err != nil || len(points) != 2 {
		t.Fatalf("%v, %d points", err, len(points))
	}
	if sim.calls[0].rate != 16300 || points[0].Trials != 2 {
		t.Errorf("first trial at %v msgs/s, %d trials for 100 B: want 16300 and 2", sim.calls[0].rate, points[0].Trials)
	}
	model := Options{Sizes: []int{100, 108}, Start: func(size int) float64 { return 1e6 / float64(size) }}
	Job{StartRate: 16300}.startAt(&model, results.Config{})
	if model.Start(100) != 16300 || model.Start(108) != 1e6/108.0 {
		t.Errorf("with the model: starts %v and %v, want 16300 and the model's 108 B", model.Start(100), model.Start(108))
	}
	for _, r := range []float64{-1, 0.5, 3e7} {
		var oe *OptionError
		if err := (Job{StartRate: r}).Check(); !errors.As(err, &oe) || oe.Option != "StartRate" {
			t.Errorf("StartRate %v: %v, want an OptionError naming StartRate", r, err)
		}
	}
}

// TestJobOpened: Opened hears the search's id before the first trial, whose run id is that id
// and the trial's number; an error from it ends the search before any trial.
func TestJobOpened(t *testing.T) {
	base := trial.Config{Spec: workload.Default(), KafkaVersion: "4.1.0"}
	var opened, ran string
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	j := Job{Out: t.TempDir(), Where: fakeWhere(t, 3), Base: base, NoHold: true,
		Opened: func(id string) error { opened = id; return nil },
		RunTrial: func(ctx context.Context, cfg trial.Config) (*results.Trial, error) {
			ran = cfg.Load.RunID
			cancel() // one trial is enough: the search stops as if interrupted
			return nil, context.Canceled
		}}
	if _, err := Run(ctx, j); err == nil {
		t.Fatal("an interrupted search returned no error")
	}
	if opened == "" || ran != opened+"-t1" {
		t.Errorf("opened %q, the first trial's run id %q; want the search's id and its -t1", opened, ran)
	}
	refused := errors.New("no search topic")
	j = Job{Out: t.TempDir(), Where: fakeWhere(t, 3), Base: base, NoHold: true,
		Opened: func(string) error { return refused },
		RunTrial: func(context.Context, trial.Config) (*results.Trial, error) {
			t.Error("a trial ran after Opened failed")
			return nil, refused
		}}
	if _, err := Run(context.Background(), j); !errors.Is(err, refused) {
		t.Errorf("Opened failing: %v, want its error", err)
	}
}
