package probe

import (
	"cmp"
	"math"
	"runtime/metrics"
	"slices"
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

// SchedHist is a distribution of goroutine scheduling latencies over an interval: the runtime's
// buckets that held any, each with its bounds in seconds. Histograms of several intervals merge
// exactly (Merge), so a window's percentile comes from all its latencies.
type SchedHist struct {
	Buckets []SchedBucket `json:"buckets"`
}

// SchedBucket is one bucket of a SchedHist: N latencies in [Lo, Hi) seconds. The runtime's last
// bucket is open; it is stored with Hi = Lo.
type SchedBucket struct {
	Lo float64 `json:"lo"`
	Hi float64 `json:"hi"`
	N  uint64  `json:"n"`
}

// sparse is h's non-empty buckets; nil when h is empty.
func (h schedHist) sparse() *SchedHist {
	if len(h.buckets) != len(h.counts)+1 {
		return nil
	}
	var s SchedHist
	for i, c := range h.counts {
		if c == 0 {
			continue
		}
		lo, hi := h.buckets[i], h.buckets[i+1]
		if math.IsInf(hi, 1) {
			hi = lo
		}
		s.Buckets = append(s.Buckets, SchedBucket{Lo: math.Max(lo, 0), Hi: hi, N: c})
	}
	if len(s.Buckets) == 0 {
		return nil
	}
	return &s
}

// MergeSched merges the histograms of several intervals: the counts of equal buckets add up.
func MergeSched(hs ...*SchedHist) SchedHist {
	by := map[[2]float64]uint64{}
	for _, h := range hs {
		if h == nil {
			continue
		}
		for _, b := range h.Buckets {
			by[[2]float64{b.Lo, b.Hi}] += b.N
		}
	}
	var out SchedHist
	for k, n := range by {
		out.Buckets = append(out.Buckets, SchedBucket{Lo: k[0], Hi: k[1], N: n})
	}
	slices.SortFunc(out.Buckets, func(a, b SchedBucket) int { return cmp.Compare(a.Lo, b.Lo) })
	return out
}

// Quantile is the upper bound of the bucket holding quantile q, seconds; Missing when empty.
func (h SchedHist) Quantile(q float64) Num {
	var total uint64
	for _, b := range h.Buckets {
		total += b.N
	}
	if total == 0 {
		return Missing
	}
	rank := uint64(math.Ceil(q * float64(total)))
	var seen uint64
	for _, b := range h.Buckets {
		seen += b.N
		if seen >= rank {
			return Num(b.Hi)
		}
	}
	return Missing
}

// SchedMeter measures this process's goroutine scheduling latency interval by interval, as the
// probe measures plimsoll's own (ProcSample.SchedLatency), from the same reading of the
// runtime's histogram: for a process that reports its own use to another (a worker of a run with
// workers, whose scheduler the coordinator's probe does not see). It is not safe for concurrent
// use.
type SchedMeter struct {
	read func() schedHist
	prev schedHist
	base bool // prev holds a reading
}

// NewSchedMeter meters the calling process's Go scheduler.
func NewSchedMeter() *SchedMeter { return &SchedMeter{read: readSched} }

// Read returns the latencies since the previous Read; the first Read only takes the baseline.
// Nil when nothing was measured: the baseline, no goroutine scheduled in the interval, or a
// histogram that does not line up with the previous one.
func (m *SchedMeter) Read() *SchedHist {
	cur := m.read()
	prev, base := m.prev, m.base
	m.prev, m.base = cur, true
	if !base {
		return nil
	}
	return cur.sub(prev).sparse()
}
