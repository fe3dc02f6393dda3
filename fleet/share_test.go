package fleet

import (
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/plimsoll/plimsoll/workload"
)

func TestSplit(t *testing.T) {
	for _, tc := range []struct {
		total, n int
		want     []Range
	}{
		{7, 3, []Range{{0, 2}, {2, 4}, {4, 7}}},
		{12, 5, []Range{{0, 2}, {2, 4}, {4, 7}, {7, 9}, {9, 12}}},
		{3, 3, []Range{{0, 1}, {1, 2}, {2, 3}}},
		{5, 1, []Range{{0, 5}}},
		{1, 2, []Range{{0, 0}, {0, 1}}}, // Split allows it; CheckWorkers refuses such a plan
	} {
		for i, want := range tc.want {
			if got := Split(tc.total, tc.n, i); got != want {
				t.Errorf("Split(%d, %d, %d) = %v, want %v", tc.total, tc.n, i, got, want)
			}
		}
	}
}

// TestSharesCoverTheWhole: for every N a workload allows, up to 64, the shares' producers,
// partitions and consumers are disjoint, contiguous, cover each whole exactly and differ by
// at most one; the rates add up to the whole's.
func TestSharesCoverTheWhole(t *testing.T) {
	s := workload.Default()
	s.Producers, s.PartitionsPerTopic, s.ConsumerGroups, s.ConsumersPerGroup, s.Rate = 97, 128, 3, 64, 1_234_567.5
	for n := 1; n <= 64; n++ {
		var next [3]int
		var lo, hi [3]int
		lo = [3]int{math.MaxInt, math.MaxInt, math.MaxInt}
		rate := 0.0
		for i := range n {
			sh, err := ShareOf(s, n, i)
			if err != nil {
				t.Fatalf("N=%d, worker %d: %v", n, i, err)
			}
			for k, r := range [3]Range{sh.Producers, sh.Partitions, sh.Consumers} {
				if r.Lo != next[k] || r.Len() < 1 {
					t.Fatalf("N=%d, worker %d: range %d is %v, want it to start at %d and be non-empty", n, i, k, r, next[k])
				}
				next[k] = r.Hi
				lo[k], hi[k] = min(lo[k], r.Len()), max(hi[k], r.Len())
			}
			if want := s.Rate * float64(sh.Producers.Len()) / float64(s.Producers); sh.MsgsPerSec != want {
				t.Errorf("N=%d, worker %d: %v msgs/s, want %v", n, i, sh.MsgsPerSec, want)
			}
			rate += sh.MsgsPerSec
		}
		if next != [3]int{97, 128, 64} {
			t.Errorf("N=%d: the shares end at %v, want the wholes 97, 128, 64", n, next)
		}
		for k := range hi {
			if hi[k]-lo[k] > 1 {
				t.Errorf("N=%d: range %d's shares are %d to %d long", n, k, lo[k], hi[k])
			}
		}
		if math.Abs(rate-s.Rate) > s.Rate*1e-12 {
			t.Errorf("N=%d: rates add up to %v, want %v", n, rate, s.Rate)
		}
	}
}

func TestShareTable(t *testing.T) {
	s := testSpec() // 7 producers, 12 partitions per topic, 3 consumers per group, 10,000 msgs/s
	for _, tc := range []struct {
		n, i int
		want Share
	}{
		{1, 0, Share{Worker: 0, Producers: Range{0, 7}, Partitions: Range{0, 12}, Consumers: Range{0, 3}, MsgsPerSec: 10_000}},
		{2, 0, Share{Worker: 0, Producers: Range{0, 3}, Partitions: Range{0, 6}, Consumers: Range{0, 1}, MsgsPerSec: 30_000.0 / 7}},
		{2, 1, Share{Worker: 1, Producers: Range{3, 7}, Partitions: Range{6, 12}, Consumers: Range{1, 3}, MsgsPerSec: 40_000.0 / 7}},
		{3, 2, Share{Worker: 2, Producers: Range{4, 7}, Partitions: Range{8, 12}, Consumers: Range{2, 3}, MsgsPerSec: 30_000.0 / 7}},
	} {
		got, err := ShareOf(s, tc.n, tc.i)
		if err != nil || got != tc.want {
			t.Errorf("worker %d of %d: %+v (%v)\n want %+v", tc.i, tc.n, got, err, tc.want)
		}
	}
	noGroups := s
	noGroups.ConsumerGroups = 0
	if got, err := ShareOf(noGroups, 5, 4); err != nil || got.Consumers.Len() != 0 || got.Producers != (Range{5, 7}) {
		t.Errorf("without consumer groups, 5 workers: %+v (%v)", got, err)
	}
}

func TestCheckWorkersRefuses(t *testing.T) {
	s := testSpec()
	for _, tc := range []struct {
		n    int
		want string
	}{
		{0, "0 workers; use 1 or more"},
		{4, "4 workers with 3 consumers per group: every worker needs at least one (each consumes what it produced); use at most 3 workers, or consumers-per-group 4 or more"},
		{8, "8 workers with 7 producers"},
		{13, "13 workers with 7 producers"},
	} {
		err := CheckWorkers(s, tc.n)
		if !errors.Is(err, ErrPlan) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("N=%d: err = %v, want %q", tc.n, err, tc.want)
		}
	}
	few := s
	few.Producers, few.ConsumerGroups = 20, 0
	if err := CheckWorkers(few, 13); err == nil || !strings.Contains(err.Error(), "13 workers with 12 partitions per topic") {
		t.Errorf("N=13, 12 partitions: err = %v", err)
	}
	backlog := s
	backlog.BacklogBytes = 1 << 30
	if err := CheckWorkers(backlog, 1); !errors.Is(err, ErrPlan) || !strings.Contains(err.Error(), "backlog mode with workers") {
		t.Errorf("backlog mode: err = %v", err)
	}
	if _, err := ShareOf(s, 3, 3); !errors.Is(err, ErrPlan) || !strings.Contains(err.Error(), "worker index 3 is outside 0..2") {
		t.Errorf("index 3 of 3: err = %v", err)
	}
}
