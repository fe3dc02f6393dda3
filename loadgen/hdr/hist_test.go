package hdr

import (
	"math"
	"testing"
	"time"
)

func TestHistPercentiles(t *testing.T) {
	h := New()
	for i := 1; i <= 1000; i++ {
		h.Record(int64(i) * int64(time.Millisecond)) // 1..1000 ms
	}
	p := h.Percentiles()
	for _, tc := range []struct {
		name      string
		got, want float64
	}{{"p50", p.P50, 500}, {"p90", p.P90, 900}, {"p99", p.P99, 990}, {"p999", p.P999, 999}, {"max", p.Max, 1000}} {
		if math.Abs(tc.got-tc.want) > tc.want*0.001+0.001 {
			t.Errorf("%s = %v ms, want %v within 0.1%%", tc.name, tc.got, tc.want)
		}
	}
	if p.Count != 1000 || p.Overflow != 0 {
		t.Errorf("count %d overflow %d", p.Count, p.Overflow)
	}
}

func TestHistOverflowIsCountedNotClamped(t *testing.T) {
	h := New()
	for range 90 {
		h.Record(int64(time.Millisecond))
	}
	for range 10 {
		h.Record(int64(2 * time.Hour)) // beyond the trackable hour
	}
	p := h.Percentiles()
	if p.Count != 100 || p.Overflow != 10 {
		t.Fatalf("count %d overflow %d, want 100 and 10", p.Count, p.Overflow)
	}
	if p.Max != float64(2*time.Hour/time.Millisecond) {
		t.Errorf("max %v ms, want the exact 2 h", p.Max)
	}
	// p99 and p99.9 fall among the overflowed values: reported as the max seen, never clamped
	// to the hour.
	if p.P99 != p.Max || p.P999 != p.Max {
		t.Errorf("p99 %v p99.9 %v, want %v", p.P99, p.P999, p.Max)
	}
	if p.P50 > 1.01 || p.P90 > 1.01 {
		t.Errorf("p50 %v p90 %v, want ~1 ms", p.P50, p.P90)
	}
}

func TestHistMergeEqualsRecordingTogether(t *testing.T) {
	a, b, both := New(), New(), New()
	for i := range 5000 {
		v := int64(i%97) * int64(time.Millisecond)
		a.Record(v)
		both.Record(v)
	}
	for i := range 50 {
		v := int64(500+i) * int64(time.Millisecond) // a slow producer
		b.Record(v)
		both.Record(v)
	}
	b.Record(int64(3 * time.Hour))
	both.Record(int64(3 * time.Hour))
	m := New()
	m.Merge(a)
	m.Merge(b)
	if got, want := m.Percentiles(), both.Percentiles(); got != want {
		t.Errorf("merged %+v\n want %+v", got, want)
	}
	// Averaging the two p99s would be wrong: the merged p99 is the slow tail's share.
	avg := (a.Percentiles().P99 + b.Percentiles().P99) / 2
	if m.Percentiles().P99 == avg {
		t.Errorf("merged p99 equals the average of p99s (%v); the test data should tell them apart", avg)
	}
}

func TestHistNegativeAndReset(t *testing.T) {
	h := New()
	h.Record(-5)
	if h.Count() != 1 || h.QuantileMicros(1) != 0 {
		t.Errorf("negative value: count %d max %d", h.Count(), h.QuantileMicros(1))
	}
	h.Record(int64(5 * time.Hour))
	h.Reset()
	if h.Count() != 0 || h.Overflow() != 0 || h.MaxNs() != 0 {
		t.Errorf("after Reset: count %d overflow %d max %d", h.Count(), h.Overflow(), h.MaxNs())
	}
	if p := h.Percentiles(); p != (Percentiles{}) {
		t.Errorf("empty percentiles %+v", p)
	}
}

func BenchmarkHistRecord(b *testing.B) {
	h := New()
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		h.Record(int64(i%5000) * 1000)
	}
}

// TestHistCountsOverHours: the counts of a long run at a high rate (ten hours at 100,000 msgs/s:
// 3.6e9 values, beyond int32) stay exact through Merge, Encode and Decode, which is how the
// run's totals and its stored histograms carry them; a value above the trackable hour in the
// same run is counted in Overflow and bounds the max, never dropped.
func TestHistCountsOverHours(t *testing.T) {
	const perHour = 100_000 * 3600
	total := New()
	for range 10 {
		hour := New()
		if err := hour.h.RecordValues(2000, perHour); err != nil { // 2 ms, recorded in bulk
			t.Fatal(err)
		}
		total.Merge(hour)
	}
	total.Record(int64(90 * time.Minute))
	e, err := total.Encode()
	if err != nil {
		t.Fatal(err)
	}
	back, err := Decode(e)
	if err != nil {
		t.Fatal(err)
	}
	for _, h := range []*Hist{total, back} {
		if h.Count() != 10*perHour+1 || h.Overflow() != 1 || h.MaxNs() != int64(90*time.Minute) {
			t.Errorf("count %d, overflow %d, max %d ns; want %d, 1, %d", h.Count(), h.Overflow(), h.MaxNs(), int64(10*perHour+1), int64(90*time.Minute))
		}
		if q := h.QuantileMicros(0.5); q < 1999 || q > 2002 {
			t.Errorf("p50 %d µs, want 2000", q)
		}
	}
}
