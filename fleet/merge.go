package fleet

import (
	"errors"
	"fmt"
	"slices"
	"sort"

	"github.com/plimsoll/plimsoll/loadgen"
	"github.com/plimsoll/plimsoll/loadgen/hdr"
)

// ErrMerge: workers' reports that cannot be merged exactly (different seconds or phases,
// histograms of another geometry, ledgers over overlapping producers).
var ErrMerge = errors.New("workers' reports do not merge")

// MergedSecond is one second of the whole run: every worker's second merged.
type MergedSecond struct {
	Index, Workers int
	Phase          string
	Tally          Tally
	Publish        *hdr.Hist
	EndToEnd       *hdr.Hist
	ScheduleDelay  *hdr.Hist
	// Processes are the reporting workers' own process figures (Second.Process), by worker
	// index; kept apart, never summed: the verdict judges the busiest worker. A worker whose
	// report carried none is absent.
	Processes map[int]Process
}

// MergeSeconds merges the workers' reports of one second: counters summed (each group's
// backlog too, since each worker's covers its own partitions), the produce window merged
// (loadgen.ProduceWindow.Merge), histograms merged. The reports
// must share index and phase.
func MergeSeconds(ss []Second) (MergedSecond, error) {
	if len(ss) == 0 {
		return MergedSecond{}, fmt.Errorf("%w: no reports", ErrMerge)
	}
	m := MergedSecond{Index: ss[0].Index, Phase: ss[0].Phase, Workers: len(ss), Publish: hdr.New(), EndToEnd: hdr.New(), ScheduleDelay: hdr.New()}
	m.Tally.Backlog = make([]int64, len(ss[0].Tally.Backlog))
	for _, s := range ss {
		if s.Index != m.Index || s.Phase != m.Phase {
			return MergedSecond{}, fmt.Errorf("%w: second %d (%s) merged with second %d (%s); workers follow one schedule", ErrMerge, s.Index, s.Phase, m.Index, m.Phase)
		}
		if err := m.Tally.add(s.Tally); err != nil {
			return MergedSecond{}, err
		}
		if err := mergeEncoded([]*hdr.Hist{m.Publish, m.EndToEnd, m.ScheduleDelay}, s.Publish, s.EndToEnd, s.ScheduleDelay); err != nil {
			return MergedSecond{}, fmt.Errorf("second %d: %w", s.Index, err)
		}
	}
	return m, nil
}

// processesOf are the Process figures of one second's reports, by worker index; nil without any.
func processesOf(byWorker map[int]Second) map[int]Process {
	var out map[int]Process
	for w, s := range byWorker {
		if s.Process == nil {
			continue
		}
		if out == nil {
			out = map[int]Process{}
		}
		out[w] = *s.Process
	}
	return out
}

// add sums o into t.
func (t *Tally) add(o Tally) error {
	if len(o.Backlog) != len(t.Backlog) {
		return fmt.Errorf("%w: a report of %d groups' backlog merged with one of %d", ErrMerge, len(o.Backlog), len(t.Backlog))
	}
	t.Sent += o.Sent
	t.Acked += o.Acked
	t.AckedBytes += o.AckedBytes
	t.Consumed += o.Consumed
	t.Failed += o.Failed
	t.Errors += o.Errors
	t.BufferFullNs += o.BufferFullNs
	t.InFlight += o.InFlight
	t.Window.Merge(o.Window)
	for g, b := range o.Backlog {
		t.Backlog[g] += b
	}
	return nil
}

// mergeEncoded decodes each encoded histogram and merges it into the Hist at its place.
func mergeEncoded(into []*hdr.Hist, es ...hdr.Encoded) error {
	for i, e := range es {
		h, err := hdr.Decode(e)
		if err != nil {
			return fmt.Errorf("%w: %w", ErrMerge, err)
		}
		into[i].Merge(h)
	}
	return nil
}

// MergedFinal is the whole run's measured window: every worker's final report merged.
type MergedFinal struct {
	Counts, Excluded                          loadgen.Counts
	Publish, EndToEnd, ScheduleDelay, AckWait *hdr.Hist
	Groups                                    []GroupLedger         // by name, each over every producer
	Window                                    loadgen.ProduceWindow // the producers' protocol window, merged
}

// MergeFinals merges the workers' final reports of a run of the given number of producers:
// counts summed, histograms merged, each group's ledgers united (UniteLedgers).
func MergeFinals(fs []Final, producers int) (MergedFinal, error) {
	m := MergedFinal{Publish: hdr.New(), EndToEnd: hdr.New(), ScheduleDelay: hdr.New(), AckWait: hdr.New()}
	byGroup := map[string][]GroupLedger{}
	for _, f := range fs {
		addCounts(&m.Counts, f.Counts)
		addCounts(&m.Excluded, f.Excluded)
		m.Window.Merge(f.Window)
		if err := mergeEncoded([]*hdr.Hist{m.Publish, m.EndToEnd, m.ScheduleDelay, m.AckWait}, f.Publish, f.EndToEnd, f.ScheduleDelay, f.AckWait); err != nil {
			return MergedFinal{}, err
		}
		for _, g := range f.Groups {
			byGroup[g.Name] = append(byGroup[g.Name], g)
		}
	}
	names := make([]string, 0, len(byGroup))
	for n := range byGroup {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		g, err := UniteLedgers(byGroup[n], producers)
		if err != nil {
			return MergedFinal{}, err
		}
		m.Groups = append(m.Groups, g)
	}
	return m, nil
}

// addCounts sums o into c, field by field.
func addCounts(c *loadgen.Counts, o loadgen.Counts) {
	c.Sent += o.Sent
	c.Acked += o.Acked
	c.Failed += o.Failed
	c.Unsent += o.Unsent
	c.InFlightAtEnd += o.InFlightAtEnd
	c.Consumed += o.Consumed
	c.Lost += o.Lost
	c.Unconsumed += o.Unconsumed
	c.Duplicated += o.Duplicated
	c.Redelivered += o.Redelivered
	c.OutOfOrder += o.OutOfOrder
}

// UniteLedgers unites one group's ledgers kept by different workers over disjoint producer
// ranges that together cover [0, producers): the union's counts are the sums, its distinct
// messages the sum of the disjoint sets', and it caught up only if every part did. Ranges
// that overlap (a message would count twice) or leave a producer out (a worker's ledger is
// missing) are an error naming them.
func UniteLedgers(ls []GroupLedger, producers int) (GroupLedger, error) {
	if len(ls) == 0 {
		return GroupLedger{}, fmt.Errorf("%w: no ledgers", ErrMerge)
	}
	ls = slices.Clone(ls)
	slices.SortFunc(ls, func(a, b GroupLedger) int { return a.Producers.Lo - b.Producers.Lo })
	u := GroupLedger{Name: ls[0].Name, Producers: Range{0, producers}, CaughtUp: true}
	next := 0
	for _, l := range ls {
		switch {
		case l.Name != u.Name:
			return GroupLedger{}, fmt.Errorf("%w: ledgers of groups %s and %s", ErrMerge, u.Name, l.Name)
		case l.Producers.Len() < 1 || l.Producers.Lo < 0 || l.Producers.Hi > producers:
			return GroupLedger{}, fmt.Errorf("%w: group %s: a ledger over producers [%d, %d) in a run of %d producers", ErrMerge, u.Name, l.Producers.Lo, l.Producers.Hi, producers)
		case l.Producers.Lo < next:
			return GroupLedger{}, fmt.Errorf("%w: group %s: two ledgers hold producers %d..%d", ErrMerge, u.Name, l.Producers.Lo, min(next, l.Producers.Hi)-1)
		case l.Producers.Lo > next:
			return GroupLedger{}, fmt.Errorf("%w: group %s: no ledger holds producers %d..%d", ErrMerge, u.Name, next, l.Producers.Lo-1)
		}
		next = l.Producers.Hi
		u.Measured.add(l.Measured)
		u.Excluded.add(l.Excluded)
		u.Foreign += l.Foreign
		u.Seen += l.Seen
		u.Lost += l.Lost
		u.Unconsumed += l.Unconsumed
		u.CaughtUp = u.CaughtUp && l.CaughtUp
	}
	if next != producers {
		return GroupLedger{}, fmt.Errorf("%w: group %s: no ledger holds producers %d..%d", ErrMerge, u.Name, next, producers-1)
	}
	return u, nil
}

func (c *LedgerCounts) add(o LedgerCounts) {
	c.Consumed += o.Consumed
	c.Duplicated += o.Duplicated
	c.Redelivered += o.Redelivered
	c.OutOfOrder += o.OutOfOrder
}
