package limit

import (
	"math"
	"path/filepath"
	"testing"

	"github.com/plimsoll/plimsoll/results"
	"github.com/plimsoll/plimsoll/verdict"
	"github.com/plimsoll/plimsoll/workload"
)

// TestSLOPredictor: a size's SLO limit is predicted from the sizes before it, at the share of
// the model's ceiling where their p99 crossed the SLO, and the prediction stays the one made
// before the size was measured.
func TestSLOPredictor(t *testing.T) {
	cfg := results.Config{Spec: workload.Default(), Brokers: 3, ReplicationFactor: 3, Partitions: 30, NICBytesPerSec: 2e6,
		Criteria: verdict.Criteria{PublishP99SLOMs: 1000}}
	store := filepath.Join(t.TempDir(), StoreName)
	if err := results.Append(store, results.KindSearch, "", results.Search{Sizes: []int{100, 1000}, Config: &cfg}); err != nil {
		t.Fatal(err)
	}
	ceil100 := Predict(cfg, 100).MsgsPerSec
	for i, x := range []struct{ load, p99 float64 }{{0.6, 100}, {0.7, 500}, {0.8, 2000}} {
		tr := results.Trial{Step: &results.Step{Seq: i + 1, Size: 100, Rate: x.load * ceil100}, Verdict: verdict.Verdict{State: verdict.OK, Ceiling: verdict.OK}}
		tr.Latency.Publish.P99 = x.p99
		if err := results.Append(store, results.KindTrial, "", tr); err != nil {
			t.Fatal(err)
		}
	}
	p := &sloPredictor{store: store, cfg: cfg, sizes: []int{100, 1000}, made: map[int]float64{}}
	if r := p.predict(100); r != 0 {
		t.Errorf("the first size has nothing to go on, yet predicted %v", r)
	}
	// log p99 from 500 ms at 0.7 to 2,000 ms at 0.8 reaches 1,000 ms at 0.75.
	want := 0.75 * Predict(cfg, 1000).MsgsPerSec
	if got := p.predict(1000); math.Abs(got-want) > 1e-9*want {
		t.Errorf("predicted %v msgs/s at 1 KB, want %v", got, want)
	}
	// Trials of 1 KB appended later do not change the prediction made before them.
	tr := results.Trial{Step: &results.Step{Seq: 4, Size: 1000, Rate: 10}, Verdict: verdict.Verdict{State: verdict.Overloaded}}
	tr.Latency.Publish.P99 = 5000
	if err := results.Append(store, results.KindTrial, "", tr); err != nil {
		t.Fatal(err)
	}
	if got := p.predict(1000); math.Abs(got-want) > 1e-9*want {
		t.Errorf("the prediction moved to %v after the size was measured", got)
	}
}
