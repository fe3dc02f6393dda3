package hdr

import (
	"time"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"
)

// Histogram geometry: values in microseconds from 1 µs to one hour, 3 significant digits
// (0.1% resolution). A value above the hour is not clamped to it: it is counted in the
// Hist's overflow counter and reported.
const (
	LowestMicros  = 1
	HighestMicros = int64(time.Hour / time.Microsecond)
	SigFigs       = 3
)

// Hist is an HDR histogram of durations that never clamps silently. Values are recorded in
// microseconds; values beyond HighestMicros are counted in Overflow and still bound the
// reported percentiles and max. A Hist is not safe for concurrent use.
type Hist struct {
	h        *hdrhistogram.Histogram
	overflow int64
	maxNs    int64 // exact largest value recorded, overflow included
}

// New returns an empty Hist.
func New() *Hist {
	return &Hist{h: hdrhistogram.New(LowestMicros, HighestMicros, SigFigs)}
}

// Record adds one duration given in nanoseconds. Negative values (which a single monotonic
// clock cannot produce) are recorded as zero. It does not allocate.
func (h *Hist) Record(ns int64) {
	if ns < 0 {
		ns = 0
	}
	if ns > h.maxNs {
		h.maxNs = ns
	}
	us := ns / 1000
	if us > HighestMicros || h.h.RecordValue(us) != nil {
		h.overflow++
	}
}

// Merge adds every value of o to h. Histograms are merged, never their percentiles averaged.
func (h *Hist) Merge(o *Hist) {
	if o.Count() == 0 {
		return
	}
	h.overflow += o.overflow + h.h.Merge(o.h)
	if o.maxNs > h.maxNs {
		h.maxNs = o.maxNs
	}
}

// Reset empties h, keeping its memory.
func (h *Hist) Reset() {
	h.h.Reset()
	h.overflow, h.maxNs = 0, 0
}

// Count is the number of values recorded, overflow included.
func (h *Hist) Count() int64 { return h.h.TotalCount() + h.overflow }

// Overflow is the number of values above HighestMicros.
func (h *Hist) Overflow() int64 { return h.overflow }

// MaxNs is the exact largest value recorded, in nanoseconds.
func (h *Hist) MaxNs() int64 { return h.maxNs }

// HDR returns the underlying histogram (microseconds), for HDR log files. Overflowed values
// are not in it; see Overflow.
func (h *Hist) HDR() *hdrhistogram.Histogram { return h.h }

// QuantileMicros returns the value at quantile q (0..1) over every recorded value. When q
// falls among the overflowed values the answer is the largest value seen, an upper bound
// (the Overflow count says this happened).
func (h *Hist) QuantileMicros(q float64) int64 {
	in := h.h.TotalCount()
	total := in + h.overflow
	if total == 0 {
		return 0
	}
	if q >= 1 {
		return h.maxNs / 1000
	}
	// The overflowed values are all larger than every tracked one, so the q-quantile of the
	// union is the (q*total/in)-quantile of the tracked values while that is within range.
	rank := q * float64(total)
	if in == 0 || rank > float64(in) {
		return h.maxNs / 1000
	}
	v := h.h.ValueAtPercentile(100 * rank / float64(in))
	if m := h.maxNs / 1000; v > m {
		v = m // the bucket's upper edge can exceed the exact max
	}
	return v
}

// Percentiles summarises a histogram in milliseconds.
type Percentiles struct {
	P50      float64 `json:"p50"`
	P90      float64 `json:"p90"`
	P99      float64 `json:"p99"`
	P999     float64 `json:"p999"`
	Max      float64 `json:"max"`
	Mean     float64 `json:"mean"`
	Count    int64   `json:"count"`
	Overflow int64   `json:"overflow"` // values above one hour, counted not dropped
}

// Percentiles returns p50 p90 p99 p99.9 max (ms) and the counts.
func (h *Hist) Percentiles() Percentiles {
	ms := func(us int64) float64 { return float64(us) / 1000 }
	p := Percentiles{
		P50:      ms(h.QuantileMicros(0.50)),
		P90:      ms(h.QuantileMicros(0.90)),
		P99:      ms(h.QuantileMicros(0.99)),
		P999:     ms(h.QuantileMicros(0.999)),
		Max:      float64(h.maxNs) / 1e6,
		Count:    h.Count(),
		Overflow: h.overflow,
	}
	if in := h.h.TotalCount(); in > 0 && h.overflow == 0 {
		p.Mean = h.h.Mean() / 1000
	} else if h.Count() > 0 {
		// With overflow the tracked mean understates; weight overflowed values at the hour.
		p.Mean = (h.h.Mean()*float64(in) + float64(h.overflow)*float64(HighestMicros)) / float64(h.Count()) / 1000
	}
	return p
}
