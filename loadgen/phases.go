package loadgen

import (
	"context"
	"fmt"
	"math"
	"runtime"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
)

// execState is what the phase loop tracks.
type execState struct {
	phase                string
	startK, endK         counters
	startGC, endGC       runtime.MemStats
	backlogStart         int64
	resumeAt             int64
	backlogMsgs          int64
	drainedAt            int64
	drainStart, drainEnd int64
	drainComplete        bool
	caughtUp             []bool
	notes                []string

	// windowStart, windowEnd bound the intended times of the measured messages (run clock): the
	// window the rates are computed over.
	windowStart, windowEnd int64

	prodsStopped bool                       // the producers have finished (drain)
	ends         map[string]map[int32]int64 // log end offsets once they had; nil until listed
}

// phases drives warm-up, backlog, the window and the drain: one wake-up per second for the
// timeline, one at each phase boundary, and every poll while a backlog or the drain is watched.
func (r *runner) phases(ctx context.Context, x *execution, st *execState) error {
	clk := r.opts.Clock
	if r.spec.Warmup == 0 && !x.backlog {
		st.phase = PhaseMeasure
	}
	nextTick := x.t0 + int64(time.Second)
	clk.SleepUntil(ctx, x.t0)
	for {
		now := clk.Now()
		if ctx.Err() != nil {
			return fmt.Errorf("%w: %w", ErrInterrupted, ctx.Err())
		}
		// The second ending now is labelled with the phase it ran in, before a boundary at now
		// moves the run on: the second ending at the window's start is the warm-up's last.
		nextTick = r.second(x, st, now, nextTick)
		if err := r.advance(x, st, now); err != nil {
			return err
		}
		if st.phase == PhaseDrain && r.drainOver(ctx, x, st, now) {
			return nil
		}
		clk.SleepUntil(ctx, r.wake(x, st, now, nextTick))
	}
}

// advance moves the run on to the phase due at now, and takes the window's readings at its
// start and end.
func (r *runner) advance(x *execution, st *execState, now int64) error {
	switch {
	case st.phase == PhaseWarmup && now >= x.warmEnd:
		r.endWarmup(x, st, now)
	case st.phase == PhaseBacklog:
		if err := r.buildBacklog(x, st, now); err != nil {
			return err
		}
	}
	ms, me := x.run.measureStart.Load(), x.run.measureEnd.Load()
	if st.phase == PhaseMeasure && st.startK.t == 0 && now >= ms {
		st.startK, st.windowStart = x.col.read(now), ms
		runtime.ReadMemStats(&st.startGC)
	}
	if x.backlog && st.phase == PhaseMeasure && st.drainedAt < 0 {
		level := max(int64(float64(st.backlogMsgs)*(1-r.spec.BacklogDrainRatio)), int64(r.spec.Rate/10))
		if x.col.backlog(x.col.read(now).acked) <= level {
			st.drainedAt = now
		}
	}
	if st.phase == PhaseMeasure && now >= me {
		st.endK, st.windowEnd = x.col.read(now), me
		runtime.ReadMemStats(&st.endGC)
		st.phase, st.drainStart = PhaseDrain, now
	}
	return nil
}

// endWarmup starts the window, or in backlog mode pauses the consumers to build the backlog.
func (r *runner) endWarmup(x *execution, st *execState, now int64) {
	st.phase = PhaseMeasure
	if x.backlog {
		st.phase, st.backlogStart = PhaseBacklog, now
		for _, cn := range x.c.cons {
			cn.pauseFetch(true, r.topics)
		}
	}
}

// buildBacklog starts the window once the largest group's lag holds the backlog's bytes: the
// consumers resume. A backlog that takes far longer than its bytes at the target rate predict
// is stalled.
func (r *runner) buildBacklog(x *execution, st *execState, now int64) error {
	spec := r.spec
	lag := x.col.backlog(x.col.read(now).acked)
	if lag*int64(r.payloads.size) >= spec.BacklogBytes {
		st.backlogMsgs, st.resumeAt = lag, now
		x.run.measureStart.Store(now)
		x.run.measureEnd.Store(now + int64(spec.Duration))
		for _, cn := range x.c.cons {
			cn.pauseFetch(false, r.topics)
		}
		st.phase = PhaseMeasure
		return nil
	}
	buildLimit := int64(2*float64(spec.BacklogBytes)/math.Max(spec.ByteRate(), 1)*1e9) + int64(r.opts.SetupTimeout)
	if now-st.backlogStart > buildLimit {
		st.backlogMsgs = lag
		return fmt.Errorf("%w: %d of %d bytes after %s; the producers cannot reach the rate, or lower backlog", ErrBacklogStalled,
			lag*int64(r.payloads.size), spec.BacklogBytes, time.Duration(now-st.backlogStart).Round(time.Second))
	}
	return nil
}

// drainOver watches the drain and reports whether it is over: every group has consumed every
// acknowledged message or read to the end of the log (complete), or the drain timed out.
func (r *runner) drainOver(ctx context.Context, x *execution, st *execState, now int64) bool {
	if !st.prodsStopped {
		select {
		case <-x.prodsDone:
			st.prodsStopped = true
		default:
		}
	}
	if st.prodsStopped && st.ends == nil {
		// nil when the listing failed (a partition whose leader moved answers
		// NOT_LEADER_FOR_PARTITION to stale metadata): asked again at the next poll.
		st.ends = r.endOffsets(ctx)
	}
	if st.prodsStopped && r.drained(x.c, st, st.ends) {
		st.drainComplete, st.drainEnd = true, now
		return true
	}
	timeout := int64(r.opts.DrainTimeout)
	if (st.prodsStopped && now >= st.drainStart+timeout) || now >= st.drainStart+timeout+int64(10*time.Second) {
		st.drainEnd = now
		return true
	}
	return false
}

// second closes the timeline's second when one is due at now, and returns when the next one is.
func (r *runner) second(x *execution, st *execState, now, next int64) int64 {
	if now < next {
		return next
	}
	r.report(x, x.col.tick(now, st.phase))
	for next <= now {
		next += int64(time.Second)
	}
	return next
}

// wake is when the phase loop looks next: the next second, a phase boundary, or the next poll
// of a backlog or the drain.
func (r *runner) wake(x *execution, st *execState, now, nextTick int64) int64 {
	wake := nextTick
	switch st.phase {
	case PhaseWarmup:
		wake = min(wake, x.warmEnd)
	case PhaseMeasure:
		wake = min(wake, x.run.measureEnd.Load())
		if st.startK.t == 0 {
			wake = min(wake, x.run.measureStart.Load())
		}
		if x.backlog && st.drainedAt < 0 {
			wake = min(wake, now+int64(poll))
		}
	case PhaseBacklog, PhaseDrain:
		wake = min(wake, now+int64(poll))
	}
	return wake
}

// endOffsets lists the log end offsets once the producers have stopped (they no longer move);
// nil if any partition's could not be listed.
func (r *runner) endOffsets(ctx context.Context) map[string]map[int32]int64 {
	lctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
	defer cancel()
	eo, err := r.adm.ListEndOffsets(lctx, r.topics...)
	if err != nil || eo.Error() != nil {
		return nil
	}
	ends := map[string]map[int32]int64{}
	eo.Each(func(o kadm.ListedOffset) {
		if ends[o.Topic] == nil {
			ends[o.Topic] = map[int32]int64{}
		}
		ends[o.Topic][o.Partition] = o.Offset
	})
	return ends
}

// drained reports whether every group has consumed every acknowledged message, or read to the
// end of the log (then what it did not see is lost). It records each group's position.
func (r *runner) drained(c *clients, st *execState, ends map[string]map[int32]int64) bool {
	done := true
	for gi, g := range c.groups {
		missing, atEnd := r.groupProgress(g, c.prods, ends)
		st.caughtUp[gi] = atEnd || missing == 0
		if !st.caughtUp[gi] {
			done = false
		}
	}
	return done
}
