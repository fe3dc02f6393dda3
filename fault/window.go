package fault

import (
	"slices"
	"time"

	"github.com/plimsoll/plimsoll/loadgen"
	"github.com/plimsoll/plimsoll/loadgen/hdr"
)

// Window is one fault as it happened during a run: result.json's "faults".
type Window struct {
	Spec       string  `json:"spec"` // as Parse reads it
	Action     Action  `json:"action"`
	Broker     int32   `json:"broker"`
	AtSeconds  float64 `json:"at_seconds"` // planned, from the measured window's start
	ForSeconds float64 `json:"for_seconds"`
	// Began and Ended are when the fault's first and last action were taken (the signal sent,
	// the link taken down; the restart begun, SIGCONT sent, the link up again); BeganT and
	// EndedT the same as seconds since the producers started (the timeline's t).
	Began  time.Time `json:"began,omitzero"`
	Ended  time.Time `json:"ended,omitzero"`
	BeganT float64   `json:"began_t"`
	EndedT float64   `json:"ended_t"`
	// ISRFull is when every partition of the run's topics had its full ISR again after the
	// fault ended, RecoverySeconds the time from Ended to it; nil when it was not full within
	// WatchedSeconds, as long as plimsoll watched (the schedule's WatchFor, or until the run
	// was interrupted).
	ISRFull         *time.Time `json:"isr_full,omitempty"`
	RecoverySeconds *float64   `json:"isr_recovery_seconds"`
	WatchedSeconds  float64    `json:"isr_watched_seconds,omitempty"`
	// ISRWholeAtEnd: a reading just before the fault was undone (the restart, SIGCONT, the
	// link up) found every ISR full: the fault never took its broker out of the ISR (it was
	// shorter than replica.lag.time.max.ms and the broker session timeout).
	ISRWholeAtEnd bool `json:"isr_whole_at_end,omitempty"`
	// During are the figures of the seconds from Began until the ISR was full again (the
	// fault and its recovery: a killed leader's partitions stall until the controller fences
	// it, and their backlog is acknowledged after the fault ended), or to the end of the
	// watch; Outside those of the measured window's seconds outside every fault and recovery.
	During  Figures `json:"during"`
	Outside Figures `json:"outside"`
	// Error says why the fault was not executed as planned; empty when it was.
	Error string `json:"error,omitempty"`
}

// Figures are the load generator's figures over some seconds of a run.
type Figures struct {
	Seconds int `json:"seconds"`
	// ProduceFailed are the produces that failed for good; Errors the produce and fetch
	// errors the clients met (retried ones included).
	ProduceFailed int64 `json:"produce_failed"`
	Errors        int64 `json:"errors"`
	// ProducedMsgsPerSec are the acknowledgements that arrived, per second.
	ProducedMsgsPerSec float64 `json:"produced_msgs_per_sec"`
	// Publish merges the seconds' publish latency histograms (hdr), ms.
	Publish hdr.Percentiles `json:"publish_ms"`
}

// Measure fills each window's During and Outside from the run's timeline and per-second
// histograms, and marks the timeline's seconds that overlap a fault with its spec, and those
// of its recovery with its spec and "(recovering)".
func Measure(ws []Window, r *loadgen.Result) {
	for i := range ws {
		if ws[i].Began.IsZero() {
			continue
		}
		ws[i].During = figures(r, func(from, to float64) bool { return overlaps(from, to, ws[i].BeganT, ws[i].recoveredT()) })
		ws[i].Outside = figures(r, func(from, to float64) bool {
			return measured(r, from) && !anyOverlaps(from, to, ws)
		})
	}
	marked := slices.Clone(ws) // a spilled second is marked each time it is read back
	r.Timeline.Edit(func(s *loadgen.Second) {
		for _, w := range marked {
			switch {
			case w.Began.IsZero():
			case overlaps(s.T-1, s.T, w.BeganT, w.EndedT):
				s.Fault = appendSpec(s.Fault, w.Spec)
			case overlaps(s.T-1, s.T, w.BeganT, w.recoveredT()):
				s.Fault = appendSpec(s.Fault, w.Spec+" (recovering)")
			}
		}
	})
}

// recoveredT is when the ISR was full again, or the watch ended, in seconds since the
// producers started.
func (w Window) recoveredT() float64 {
	if w.RecoverySeconds != nil {
		return w.EndedT + *w.RecoverySeconds
	}
	return w.EndedT + w.WatchedSeconds
}

func appendSpec(have, spec string) string {
	if have == "" {
		return spec
	}
	return have + "; " + spec
}

// overlaps reports whether the second (from, to] overlaps (begin, end), all in seconds since
// the producers started.
func overlaps(from, to, begin, end float64) bool {
	return from < end && to > begin
}

func anyOverlaps(from, to float64, ws []Window) bool {
	for _, w := range ws {
		if !w.Began.IsZero() && overlaps(from, to, w.BeganT, w.recoveredT()) {
			return true
		}
	}
	return false
}

// measured reports whether the second starting at from (since the producers started) lies in
// the measured window.
func measured(r *loadgen.Result, from float64) bool {
	start := r.Window.WarmupSeconds + r.Window.BacklogSeconds
	return from >= start-1e-9 && from < start+r.Window.MeasuredSeconds-1e-9
}

// figures sums the timeline's seconds and merges the publish histograms of the intervals
// that in picks.
func figures(r *loadgen.Result, in func(from, to float64) bool) Figures {
	var f Figures
	var acked float64
	for s := range r.Timeline.All() {
		if in(s.T-1, s.T) {
			f.Seconds++
			f.ProduceFailed += s.Failed
			f.Errors += s.Errors
			acked += s.ProducedMsgsPerSec
		}
	}
	if f.Seconds > 0 {
		f.ProducedMsgsPerSec = acked / float64(f.Seconds)
	}
	h := hdr.New()
	for iv := range r.Intervals.All() {
		if iv.Tag != "publish" || !in(float64(iv.StartMs)/1000, float64(iv.EndMs)/1000) {
			continue
		}
		if x, err := hdr.Decode(iv.Hist); err == nil {
			h.Merge(x)
		}
	}
	f.Publish = h.Percentiles()
	return f
}
