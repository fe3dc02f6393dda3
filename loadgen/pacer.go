package loadgen

import (
	"context"
	"math"
	"time"
)

// Clock is the run's one time base: monotonic nanoseconds since the run started. Producers
// stamp intended times with it and consumers read it to compute end-to-end latency, so both
// sides share it and no clock skew exists.
type Clock interface {
	Now() int64
	// SleepUntil returns when Now() >= t, or earlier when ctx is done (a sleep of a few
	// milliseconds may run to its end first).
	SleepUntil(ctx context.Context, t int64)
}

// NewClock returns a Clock whose zero is now. Now costs one monotonic clock read
// (time.Since on a monotonic time uses the runtime's nanotime directly).
func NewClock() Clock { return &monoClock{base: time.Now()} }

type monoClock struct{ base time.Time }

func (c *monoClock) Now() int64 { return int64(time.Since(c.base)) }

// shortSleep is the span below which SleepUntil ignores ctx and uses time.Sleep, which reuses the
// goroutine's own timer (no allocation). Longer sleeps wait on a timer and ctx.
const shortSleep = 20 * time.Millisecond

// SleepUntil sleeps on a Go timer. In an idle process those wake about 1 ms late on Linux (the
// netpoller waits in whole milliseconds); in a busy one timers are checked at every scheduling
// point and fire sooner. Either way the producers' schedule delay shows it. A raw nanosleep
// wakes within ~80 µs but blocks its thread in a syscall, so the runtime hands the P to another
// thread on every sleep. Measured at 100k msg/s of 100 B against one local broker: Go timers
// gave a schedule delay of 0.4 ms at p50 and 1.5-1.9 s of CPU per million messages; nanosleep
// 0.05 ms and 3.4 s.
func (c *monoClock) SleepUntil(ctx context.Context, t int64) {
	d := time.Duration(t - c.Now())
	if d <= 0 {
		return
	}
	if d <= shortSleep {
		time.Sleep(d)
		return
	}
	tm := time.NewTimer(d)
	select {
	case <-ctx.Done():
		tm.Stop()
	case <-tm.C:
	}
}

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
