package probe

import (
	"math"
	"runtime/metrics"
)

// schedHist is a copy of the Go runtime's cumulative goroutine scheduling latency histogram.
// The difference of two copies is the distribution over the interval between them: how long
// goroutines sat runnable before a P ran them, which grows when plimsoll is short of CPU.
type schedHist struct {
	counts  []uint64
	buckets []float64 // len(counts)+1 boundaries, seconds
}

const schedMetric = "/sched/latencies:seconds"

// readSched reads the runtime's histogram.
func readSched() schedHist {
	s := []metrics.Sample{{Name: schedMetric}}
	metrics.Read(s)
	if s[0].Value.Kind() != metrics.KindFloat64Histogram {
		return schedHist{}
	}
	h := s[0].Value.Float64Histogram()
	return schedHist{counts: append([]uint64(nil), h.Counts...), buckets: h.Buckets}
}

// sub returns h - prev, bucket by bucket; empty when the two do not line up.
func (h schedHist) sub(prev schedHist) schedHist {
	if len(h.counts) == 0 || len(prev.counts) != len(h.counts) {
		return schedHist{}
	}
	d := schedHist{counts: make([]uint64, len(h.counts)), buckets: h.buckets}
	for i, c := range h.counts {
		if c < prev.counts[i] {
			return schedHist{}
		}
		d.counts[i] = c - prev.counts[i]
	}
	return d
}

// quantile returns the upper bound of the bucket holding quantile q (the lower bound for the
// open last bucket); missing when the histogram is empty.
func (h schedHist) quantile(q float64) Num {
	var total uint64
	for _, c := range h.counts {
		total += c
	}
	if total == 0 || len(h.buckets) != len(h.counts)+1 {
		return Missing
	}
	rank := uint64(math.Ceil(q * float64(total)))
	var seen uint64
	for i, c := range h.counts {
		seen += c
		if seen >= rank {
			hi := h.buckets[i+1]
			if math.IsInf(hi, 1) {
				hi = h.buckets[i]
			}
			return Num(math.Max(hi, 0))
		}
	}
	return Missing
}
