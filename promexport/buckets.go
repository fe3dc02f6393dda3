package promexport

import (
	"math"
	"sort"

	"github.com/plimsoll/plimsoll/loadgen/hdr"
)

// Bounds are the latency histograms' upper bounds in seconds: 1, 1.5, 2, 3, 5 and 7 times each
// power of ten from 0.1 ms to 1 s, then 10, 15, 20, 30 and 60 s: 35 buckets and +Inf. Neighbours
// differ by a factor of at most 5/3 up to 30 s (2 from 30 to 60 s), so a quantile read from them
// (histogram_quantile) lies in the bucket of the exact one; values above 60 s fall in +Inf only.
var Bounds = bounds()

func bounds() []float64 {
	var b []float64
	for e := -4; e <= 0; e++ {
		for _, m := range []float64{1, 1.5, 2, 3, 5, 7} {
			b = append(b, m/math.Pow10(-e)) // a division of exact numbers: 0.0003, not 0.00030000000000000003
		}
	}
	return append(b, 10, 15, 20, 30, 60)
}

// buckets is a histogram in Bounds' classic buckets: counts[i] values fell in (Bounds[i-1],
// Bounds[i]] (not cumulative), above of them beyond the last bound.
type buckets struct {
	counts       []uint64
	above, count uint64
	sum          float64 // seconds
}

func newBuckets() buckets { return buckets{counts: make([]uint64, len(Bounds))} }

// addHDR adds an HDR histogram's values. Each HDR bucket (values equal to 3 significant digits)
// falls in the first bound at or above its highest value, the value HDR's own percentiles report,
// so a quantile read from the buckets agrees with result.json's: a value in an HDR bucket that
// straddles a bound (e.g. 5000-5003 µs, 5 ms exactly included) counts above it;
// the sum takes each bucket's middle value, as HDR's mean does, and an overflowed value (over
// the hour) as one hour.
func (b *buckets) addHDR(h *hdr.Hist) {
	if h == nil || h.Count() == 0 {
		return
	}
	for _, bar := range h.HDR().Distribution() {
		if bar.Count == 0 {
			continue
		}
		n := uint64(bar.Count)
		if i := sort.SearchFloat64s(Bounds, float64(bar.To)/1e6); i < len(Bounds) {
			b.counts[i] += n
		} else {
			b.above += n
		}
		b.sum += float64(bar.Count) * float64(bar.From+bar.To) / 2e6
	}
	b.above += uint64(h.Overflow())
	b.sum += float64(h.Overflow()) * float64(hdr.HighestMicros) / 1e6
	b.count += uint64(h.Count())
}

// add adds another histogram's buckets.
func (b *buckets) add(o buckets) {
	for i, n := range o.counts {
		b.counts[i] += n
	}
	b.above += o.above
	b.count += o.count
	b.sum += o.sum
}

// cumulative is the map of cumulative counts by upper bound client_golang's const histograms take.
func (b *buckets) cumulative() map[float64]uint64 {
	m := make(map[float64]uint64, len(Bounds))
	var acc uint64
	for i, n := range b.counts {
		acc += n
		m[Bounds[i]] = acc
	}
	return m
}
