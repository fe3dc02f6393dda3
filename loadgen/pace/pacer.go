package pace

import "math"

// Pacer computes the intended send times of one producer. Message i is intended at
//
//	Start + floor(i * 1e9 / Rate)  ns
//
// exactly, whenever it is actually sent: the schedule is fixed up front and never drifts, and
// latency is measured from it (coordinated-omission free). The pacer holds no timer: the
// producer asks how many messages are due at the time it woke and sends them in one batch, so
// pacing costs one clock read per wake-up, not one timer per message.
//
// Catch-up: when the producer wakes late (a GC pause, a busy CPU, a full producer buffer), the
// messages whose intended time has passed are all due at once and are sent back to back, each
// stamped with its own intended time. That burst is exactly the work the schedule owes, no
// more: the pacer never accumulates "sleep debt" (it sleeps until an absolute time, never for
// an interval) and never sends a message before its intended time. Skipping the missed
// messages instead would hide the stall from the latency figures and lower the offered load.
// How late the producer was is reported as the schedule delay.
//
// A zero Rate means unpaced (as fast as the client accepts): Due then hands out batches of
// unpacedBatch and the intended time of a message is the time its batch was taken.
type Pacer struct {
	Start int64   // ns on the run clock of message 0
	Rate  float64 // messages per second; 0 = unpaced
	next  uint64  // index of the next message to hand out
}

// unpacedBatch is how many messages an unpaced producer sends between clock reads.
const unpacedBatch = 64

// Intended returns the intended send time of message i. Unpaced pacers return Start.
func (p *Pacer) Intended(i uint64) int64 {
	if p.Rate <= 0 {
		return p.Start
	}
	return p.Start + int64(float64(i)*1e9/p.Rate)
}

// Next is the index of the next message to send.
func (p *Pacer) Next() uint64 { return p.next }

// Due returns the index one past the last message whose intended time is <= now and < end
// (end excludes messages scheduled after the window closes). Messages [Next(), Due) are owed.
func (p *Pacer) Due(now, end int64) uint64 {
	if p.Rate <= 0 {
		if now >= end {
			return p.next
		}
		return p.next + unpacedBatch
	}
	lim := now
	if end-1 < lim {
		lim = end - 1
	}
	if lim < p.Start {
		return p.next
	}
	// Estimate, then correct by at most a step so that the answer agrees exactly with
	// Intended (float rounding can put the estimate one off).
	n := uint64(float64(lim-p.Start)*p.Rate/1e9) + 1
	for n > 0 && p.Intended(n-1) > lim {
		n--
	}
	for p.Intended(n) <= lim {
		n++
	}
	if n < p.next {
		return p.next
	}
	return n
}

// Advance marks messages up to (not including) i as sent.
func (p *Pacer) Advance(i uint64) {
	if i > p.next {
		p.next = i
	}
}

// NextAt is the intended time of the next message; math.MinInt64 (always due) for an
// unpaced pacer, which never sleeps.
func (p *Pacer) NextAt() int64 {
	if p.Rate <= 0 {
		return math.MinInt64
	}
	return p.Intended(p.next)
}
