package probe

import (
	"math"
	"testing"
)

// TestMergeSched: a window's p99 comes from all its latencies, never from its seconds' p99s.
func TestMergeSched(t *testing.T) {
	buckets := []float64{0, 1e-6, 1e-3, 0.1, math.Inf(1)}
	// Second 1: 90 fast latencies and 10 of about 50 ms; second 2: 1,000 fast ones.
	a := schedHist{counts: []uint64{90, 0, 10, 0}, buckets: buckets}.sparse()
	b := schedHist{counts: []uint64{1000, 0, 0, 0}, buckets: buckets}.sparse()
	if pa, pb := a.Quantile(0.99), b.Quantile(0.99); pa != 0.1 || pb != 1e-6 {
		t.Fatalf("seconds' p99: %v and %v", pa, pb)
	}
	m := MergeSched(a, b, nil)
	// 1,100 latencies, 10 slow (0.9%): the window's p99 is fast. The mean of the seconds' p99s
	// would say 50 ms.
	if got := m.Quantile(0.99); got != 1e-6 {
		t.Errorf("merged p99 = %v, want 1e-6", got)
	}
	if got := m.Quantile(0.995); got != 0.1 {
		t.Errorf("merged p99.5 = %v, want the slow bucket's bound 0.1", got)
	}
	if len(m.Buckets) != 2 || m.Buckets[0].N != 1090 || m.Buckets[1].N != 10 {
		t.Errorf("merged %+v", m.Buckets)
	}
	open := schedHist{counts: []uint64{0, 0, 0, 3}, buckets: buckets}.sparse()
	if got := open.Quantile(0.5); got != 0.1 || open.Buckets[0].Hi != 0.1 {
		t.Errorf("the open last bucket: %+v, p50 %v", open.Buckets, got)
	}
	if got := (SchedHist{}).Quantile(0.99); got.OK() {
		t.Errorf("empty histogram quantile %v", got)
	}
}

// TestSchedMeter: each Read is the runtime's histogram less the previous reading; the baseline,
// an idle interval and a histogram that does not line up measure nothing (nil), never zero.
func TestSchedMeter(t *testing.T) {
	buckets := []float64{0, 1e-6, 1e-3, 0.1, math.Inf(1)}
	readings := []schedHist{
		{counts: []uint64{5, 1, 0, 0}, buckets: buckets},
		{counts: []uint64{95, 1, 10, 0}, buckets: buckets},
		{counts: []uint64{95, 1, 10, 0}, buckets: buckets},
		{counts: []uint64{1, 2}, buckets: buckets[:3]},
		{counts: []uint64{3, 2}, buckets: buckets[:3]},
	}
	i := 0
	m := &SchedMeter{read: func() schedHist { i++; return readings[i-1] }}
	if h := m.Read(); h != nil {
		t.Fatalf("baseline measured %+v", h)
	}
	h := m.Read()
	if h == nil || len(h.Buckets) != 2 || h.Buckets[0] != (SchedBucket{Lo: 0, Hi: 1e-6, N: 90}) || h.Buckets[1] != (SchedBucket{Lo: 1e-3, Hi: 0.1, N: 10}) {
		t.Fatalf("second reading %+v", h)
	}
	if h := m.Read(); h != nil {
		t.Errorf("an idle interval measured %+v", h)
	}
	if h := m.Read(); h != nil {
		t.Errorf("histograms of other buckets measured %+v", h)
	}
	if h := m.Read(); h == nil || h.Buckets[0].N != 2 {
		t.Errorf("after a new baseline: %+v", h)
	}
	if h := NewSchedMeter(); h.Read() != nil {
		t.Error("the runtime's baseline measured something")
	}
}
