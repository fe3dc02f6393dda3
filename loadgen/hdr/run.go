package hdr

import "math/bits"

// exactMicros is the histogram's sub-bucket count at LowestMicros 1 and SigFigs 3: values below
// it have buckets of 1 µs, and each doubling above it doubles the bucket's width
// (TestBucketMatchesHDR checks this against the library).
const exactMicros = 2048

// bucket returns the bounds [lo, hi) of the histogram's bucket holding us (0 <= us <=
// HighestMicros): every value in it is counted alike.
func bucket(us int64) (lo, hi int64) {
	width := int64(1) << max(0, bits.Len64(uint64(us))-bits.Len64(exactMicros-1))
	lo = us &^ (width - 1)
	return lo, min(lo+width, HighestMicros+1)
}

// Run records values into a Hist a bucket at a time: values recorded one after another that
// fall in the same bucket are counted by one update of the Hist's counts when the run ends
// (a value in another bucket, or Flush). Consumed records' end-to-end latencies come in such
// runs: a fetch's records were produced microseconds apart and are timed by one clock reading.
// The Hist holds every value once Flush returns; until then it may lack the current run's
// values and the largest value since the last Flush. Not safe for concurrent use, nor with the Hist's own use.
type Run struct {
	h      *Hist
	lo, hi int64 // the current run's bucket, µs; empty when hi <= lo
	n      int64 // the current run's values not yet in h
	maxNs  int64 // the largest value since the last Flush
}

// NewRun returns a Run recording into h.
func NewRun(h *Hist) *Run { return &Run{h: h} }

// RunOf returns a Run recording into h as a value, for a caller that records one batch of
// values and flushes it before returning (it stays on the caller's stack).
func RunOf(h *Hist) Run { return Run{h: h} }

// Record adds one duration given in nanoseconds, as Hist.Record does. It does not allocate.
// Inlined: a value in the current run's bucket costs a division, two comparisons and a count
// (a negative one in the bucket of 0 µs is 0's, as Hist.Record clamps it).
func (r *Run) Record(ns int64) {
	if us := ns / 1000; us >= r.lo && us < r.hi {
		r.n++
		r.maxNs = max(r.maxNs, ns)
		return
	}
	r.start(ns)
}

// start ends the current run and starts one at ns; a value beyond HighestMicros is counted as
// overflow at once and starts none.
func (r *Run) start(ns int64) {
	r.Flush()
	ns = max(ns, 0)
	r.maxNs = ns
	us := ns / 1000
	if us > HighestMicros {
		r.lo, r.hi = 0, 0
		r.h.overflow++
		return
	}
	r.lo, r.hi = bucket(us)
	r.n = 1
}

// Flush puts the current run's values into the Hist.
func (r *Run) Flush() {
	r.h.maxNs = max(r.h.maxNs, r.maxNs)
	if r.n > 0 && r.h.h.RecordValues(r.lo, r.n) != nil {
		r.h.overflow += r.n
	}
	r.n = 0
}
