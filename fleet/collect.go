package fleet

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/plimsoll/plimsoll/loadgen"
)

// collector holds the reports read so far: each worker's seconds until every worker has
// reported that second, and the finals.
type collector struct {
	plan    Plan
	n       int
	pending map[int]map[int]Second // by index, by worker
	last    map[int]int            // by worker: the last second it reported
	heard   map[int]time.Time      // by worker: when its last record was read
	finals  map[int]Final
	next    int // the next index to hand on; seconds count from 1
}

// Collect reads the workers' reports after AwaitJoins. It hands each second to onSecond,
// merged, once every worker has reported it or ended before it, in order; when every worker's
// final report is in it returns their merge. A worker silent for the silence limit (counted
// from the plan's start at the earliest), or Lag seconds behind another, ends it with
// ErrSilent naming the worker and the last second it reported; a worker that left early (its
// leave record, a second of a phase ahead of the plan's, a final report before the window's
// end) ends it with ErrLeft naming the worker and why. Either way the trial is invalid, and
// the seconds handed on before stand.
func (c *Coordinator) Collect(ctx context.Context, onSecond func(MergedSecond)) (MergedFinal, error) {
	// No report is due before the plan's start: a worker's silence counts from it at the
	// earliest, however long before it Collect begins.
	from := c.clock.Now()
	if c.plan.Start.After(from) {
		from = c.plan.Start
	}
	col := newCollector(c.plan, from)
	for len(col.finals) < col.n {
		recs, err := poll(ctx, c.cl, c.limits.Poll)
		if err != nil {
			return MergedFinal{}, err
		}
		now := c.clock.Now()
		for _, r := range recs {
			m, err := c.decode(r)
			if err != nil {
				return MergedFinal{}, err
			}
			if err := col.add(m, now, onSecond); err != nil {
				return MergedFinal{}, err
			}
		}
		if err := col.silent(now, c.limits); err != nil {
			return MergedFinal{}, err
		}
	}
	if len(col.pending) > 0 {
		return MergedFinal{}, fmt.Errorf("%w: second %d lacks the reports of %s", ErrMerge, col.next, col.without(col.next))
	}
	return MergeFinals(mapValues(col.finals), c.plan.Spec.Producers)
}

// newCollector is the collector of plan p's reports, every worker heard of at from.
func newCollector(p Plan, from time.Time) *collector {
	col := &collector{plan: p, n: p.Workers, next: 1, pending: map[int]map[int]Second{}, last: map[int]int{}, heard: map[int]time.Time{}, finals: map[int]Final{}}
	for w := range col.n {
		col.heard[w], col.last[w] = from, 0
	}
	return col
}

// add takes one record of a worker, handing on every second it completes.
func (col *collector) add(m Message, now time.Time, onSecond func(MergedSecond)) error {
	col.heard[m.Worker] = now
	if _, done := col.finals[m.Worker]; done {
		return fmt.Errorf("%w: worker %d sent a %s record after its final report", ErrPlan, m.Worker, m.Kind)
	}
	switch m.Kind {
	case KindFinal:
		if err := col.early(m.Worker); err != nil {
			return err
		}
		col.finals[m.Worker] = *m.Final
		return col.flush(onSecond) // the seconds after its last one no longer wait for it
	case KindLeave:
		return fmt.Errorf("%w: worker %d left the run %s: %s; the trial is invalid", ErrLeft, m.Worker, col.after(m.Worker), m.Reason)
	case KindSecond:
	default:
		return fmt.Errorf("%w: worker %d sent a %s record mid-run", ErrPlan, m.Worker, m.Kind)
	}
	s := *m.Second
	if s.Index <= col.last[m.Worker] {
		return fmt.Errorf("%w: worker %d reported second %d after second %d; seconds count from 1", ErrPlan, m.Worker, s.Index, col.last[m.Worker])
	}
	if col.plan.ahead(s.Index, s.Phase) {
		return fmt.Errorf("%w: worker %d reported its second %d as %s, where the plan's second %d is %s: its run was cut short (interrupted, or it stopped); it is lost from that second on and the trial is invalid",
			ErrLeft, m.Worker, s.Index, s.Phase, s.Index, col.plan.PhaseOf(s.Index))
	}
	col.last[m.Worker] = s.Index
	if col.pending[s.Index] == nil {
		col.pending[s.Index] = map[int]Second{}
	}
	col.pending[s.Index][m.Worker] = s
	return col.flush(onSecond)
}

// early is ErrLeft when worker w's final report comes before the plan's drain: a worker's run
// ends only after the window, so one that ended before it was cut short.
func (col *collector) early(w int) error {
	if last := col.last[w]; last > 0 && col.plan.PhaseOf(last) == loadgen.PhaseDrain {
		return nil
	}
	return fmt.Errorf("%w: worker %d sent its final report %s, before the window's end at second %d: its run was cut short (interrupted, or it stopped); it is lost from there on and the trial is invalid",
		ErrLeft, w, col.after(w), col.plan.windowEnd())
}

// after says where worker w's reports stopped: after its last second, or before its first.
func (col *collector) after(w int) string {
	if col.last[w] == 0 {
		return "before its first second"
	}
	return fmt.Sprintf("after its second %d", col.last[w])
}

// flush hands on, in order, every second that every worker has reported, or ended before (its
// final report read after its last second: each worker's drain ends when its own consumers have
// caught up, and one that has ended adds nothing to the seconds after). A second some worker
// skipped (its next report is later) cannot be merged exactly: an error naming it.
func (col *collector) flush(onSecond func(MergedSecond)) error {
	for len(col.pending) > 0 {
		got := col.pending[col.next]
		for w := range col.n {
			if _, ok := got[w]; ok {
				continue
			}
			if col.last[w] > col.next {
				return fmt.Errorf("%w: worker %d skipped second %d", ErrMerge, w, col.next)
			}
			if _, ended := col.finals[w]; !ended {
				return nil // not reported yet
			}
		}
		merged, err := MergeSeconds(mapValues(got))
		if err != nil {
			return err
		}
		merged.Processes = processesOf(got)
		delete(col.pending, col.next)
		col.next++
		if onSecond != nil {
			onSecond(merged)
		}
	}
	return nil
}

// silent names the first worker without a final report that is silent: heard of no later than
// the silence limit ago, or Lag seconds behind another worker's report.
func (col *collector) silent(now time.Time, l Limits) error {
	ahead := 0
	for _, s := range col.last {
		ahead = max(ahead, s)
	}
	for w := range col.n {
		if _, done := col.finals[w]; done {
			continue
		}
		quiet := now.Sub(col.heard[w])
		if quiet >= l.Silence || (l.Lag > 0 && ahead-col.last[w] >= l.Lag) {
			return fmt.Errorf("%w: worker %d: %s; the trial is invalid", ErrSilent, w, col.describe(w, ahead, quiet))
		}
	}
	return nil
}

// describe says how far worker w is behind.
func (col *collector) describe(w, ahead int, quiet time.Duration) string {
	last := "no report yet"
	if col.last[w] > 0 {
		last = fmt.Sprintf("last report second %d", col.last[w])
	}
	return fmt.Sprintf("%s, nothing read from it for %s, the others at second %d", last, quiet.Round(time.Millisecond), ahead)
}

// without names the workers missing from second i.
func (col *collector) without(i int) string {
	var ws []string
	for w := range col.n {
		if _, ok := col.pending[i][w]; !ok {
			ws = append(ws, fmt.Sprintf("worker %d", w))
		}
	}
	return strings.Join(ws, ", ")
}

// mapValues returns m's values in key order.
func mapValues[V any](m map[int]V) []V {
	out := make([]V, 0, len(m))
	for _, k := range sortedKeys(m) {
		out = append(out, m[k])
	}
	return out
}
