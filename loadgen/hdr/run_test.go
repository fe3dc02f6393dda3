package hdr

import (
	"math/rand/v2"
	"testing"
)

// TestBucketMatchesHDR: bucket's bounds are the library's: every value in [lo, hi) is
// equivalent to us, lo-1 and hi are not.
func TestBucketMatchesHDR(t *testing.T) {
	h := New().h
	vals := []int64{0, 1, 2, 2046, 2047, 2048, 2049, 4095, 4096, 4097, HighestMicros - 1, HighestMicros}
	for k := 11; k < 32; k++ {
		vals = append(vals, 1<<k-1, 1<<k, 1<<k+1, 3<<(k-1))
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for range 10000 {
		vals = append(vals, rng.Int64N(HighestMicros+1), rng.Int64N(100_000))
	}
	for _, us := range vals {
		if us > HighestMicros {
			continue
		}
		lo, hi := bucket(us)
		if lo > us || us >= hi || !h.ValuesAreEquivalent(us, lo) || !h.ValuesAreEquivalent(us, hi-1) {
			t.Fatalf("bucket(%d) = [%d, %d): not the values equivalent to it", us, lo, hi)
		}
		if lo > 0 && h.ValuesAreEquivalent(us, lo-1) {
			t.Fatalf("bucket(%d) = [%d, %d): %d is equivalent too", us, lo, hi, lo-1)
		}
		if hi <= HighestMicros && h.ValuesAreEquivalent(us, hi) {
			t.Fatalf("bucket(%d) = [%d, %d): %d is equivalent too", us, lo, hi, hi)
		}
	}
}

// TestRunRecordsAsHist: values recorded through a Run and flushed leave the Hist exactly as
// recording each one into a Hist does (counts, overflow, max), for runs of near values, jumps,
// negatives and values past the hour.
func TestRunRecordsAsHist(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	want, got := New(), New()
	r := NewRun(got)
	ns := int64(0)
	for i := range 200_000 {
		switch rng.IntN(100) {
		case 0:
			ns = rng.Int64N(2 * HighestMicros * 1000) // anywhere, overflow included
		case 1:
			ns = -rng.Int64N(1000)
		case 2:
			ns = rng.Int64N(3_000_000) // the exact microsecond buckets
		default:
			ns += rng.Int64N(2000) // a run of near values
		}
		want.Record(ns)
		r.Record(ns)
		if i%1000 == 999 {
			r.Flush()
			if !got.h.Equals(want.h) || got.Count() != want.Count() {
				t.Fatalf("after %d values: %d counted, want %d", i+1, got.Count(), want.Count())
			}
		}
	}
	r.Flush()
	if !got.h.Equals(want.h) || got.overflow != want.overflow || got.maxNs != want.maxNs || want.overflow == 0 {
		t.Errorf("count %d overflow %d max %d, want %d %d %d (overflow > 0)", got.Count(), got.overflow, got.maxNs, want.Count(), want.overflow, want.maxNs)
	}
	if got.Percentiles() != want.Percentiles() {
		t.Errorf("percentiles %+v, want %+v", got.Percentiles(), want.Percentiles())
	}
}

// TestRunRecordAllocatesNothing: a Run's Record and Flush do not allocate.
func TestRunRecordAllocatesNothing(t *testing.T) {
	r := NewRun(New())
	ns := int64(0)
	if a := testing.AllocsPerRun(1000, func() { ns += 997; r.Record(ns); r.Flush() }); a != 0 {
		t.Errorf("%.1f allocations per value, want 0", a)
	}
}

// BenchmarkRunRecord: BenchmarkHistRecord's values (every microsecond from 0 to 5 ms in turn)
// through a Run.
func BenchmarkRunRecord(b *testing.B) {
	r := NewRun(New())
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		r.Record(int64(i%5000) * 1000)
	}
	r.Flush()
}

// BenchmarkRunRecordFetch: a fetch's latencies through a Run, 1,000 records produced 500 ns
// apart and timed by one clock reading, about 1 s after they were produced, flushed per fetch.
func BenchmarkRunRecordFetch(b *testing.B) {
	r := NewRun(New())
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		r.Record(1e9 + int64(i%1000)*500)
		if i%1000 == 999 {
			r.Flush()
		}
	}
	r.Flush()
}

// BenchmarkHistRecordFetch: BenchmarkRunRecordFetch's values recorded one by one.
func BenchmarkHistRecordFetch(b *testing.B) {
	h := New()
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		h.Record(1e9 + int64(i%1000)*500)
	}
}
