package loadgen

import (
	"fmt"
	"slices"
	"time"

	"github.com/plimsoll/plimsoll/loadgen/hdr"
	"github.com/plimsoll/plimsoll/loadgen/ledger"
)

// Feed hands a run's reports out as a worker of a run spread over several processes publishes
// them (package fleet turns them into its Second and Final): once a second the second's
// counters and interval histograms, and after the drain the window's counts, histograms and
// ledgers. Both are called on the run's own goroutine and must return quickly; the values are
// the receiver's.
type Feed struct {
	// Second, when set, is called once a second, after Options.Progress and Options.Live, and
	// once more for each second the run's phase loop passed without closing it (FeedSecond). A
	// second whose histograms could not be encoded is not handed out (the Result notes the
	// error), so a receiver sees a gap in Index.
	Second func(FeedSecond)
	// Final, when set, is called once after a run that ended without error, before Run returns.
	// If the window's histograms cannot be encoded it is not called and Run returns the error.
	Final func(FeedFinal)
}

// FeedSecond is one second of the run: its counters by arrival within the second and its
// interval histograms (every phase; the interval log's), encoded exactly.
type FeedSecond struct {
	// Index is the second's number from the producers' start (a share's absolute start): the
	// second ending Index seconds after it. The first is 1; each is the last second boundary
	// the phase loop passed, and one more than the previous at least (the last second, cut
	// short when the run stops, is numbered after the one before it). A loop that woke more
	// than a second late passed boundaries without closing their seconds: those are fed empty
	// (no counts, empty histograms; the gauges InFlight and Backlog as at the late second),
	// before the late second that holds everything since the previous one.
	Index int
	Phase string

	Sent, Acked, AckedBytes, Consumed int64
	Failed, Errors                    int64 // produce failures; produce and fetch errors
	BufferFullNs                      int64 // time the producers waited for buffer space, summed
	InFlight                          int64 // records handed to the clients and not finished, at its end
	Backlog                           []int64

	Publish, EndToEnd, ScheduleDelay hdr.Encoded
}

// FeedFinal is the run's measured window once it is over: Result's Counts and ExcludedCounts,
// its four histograms encoded, and each group's ledger.
type FeedFinal struct {
	Counts, Excluded                          Counts
	Publish, EndToEnd, ScheduleDelay, AckWait hdr.Encoded
	Groups                                    []FeedGroup
}

// FeedGroup is one consumer group's ledger after the drain. Its producer ids are global; in a
// share run it accounts for the share's producers only (records of others count Foreign).
type FeedGroup struct {
	Name               string
	Measured, Excluded ledger.Counts
	Foreign            int64  // records without a stamp of the run's (the share's) producers
	Seen               uint64 // distinct messages seen, every phase
	Lost, Unconsumed   int64  // of the window (Counts' meaning)
	CaughtUp           bool   // read to the end of every partition (of the share)
}

// feedIndex numbers the second ending at now: the last second boundary passed since the
// producers' start at base, and after prev.
func feedIndex(now, base int64, prev int) int {
	return max(int((now-base)/1e9), prev+1)
}

// feedSeconds builds the seconds fed for the tick ending at k: the second it ends in, from the
// counters at its start (c.last), the records in flight, the groups' backlogs and the encoded
// histograms; and before it, empty, every second whose boundary the phase loop passed without
// a tick (it woke more than a second late: a stalled process, or a slow call in the drain's
// loop, such as its listing of the end offsets), so that the indices fed run on without a gap and the counts, all in the
// tick's second, stay exact.
func (c *collector) feedSeconds(k counters, phase string, flight int64, backlogs []int64, hists [3]hdr.Encoded) {
	idx := feedIndex(k.t, c.base, c.fedIndex)
	for i := c.fedIndex + 1; i < idx; i++ {
		if c.empty.HDR == "" {
			var err error
			if c.empty, err = hdr.New().Encode(); err != nil {
				if c.logErr == nil {
					c.logErr = err
				}
				return // a gap: the receiver sees the second missing
			}
		}
		c.fed = append(c.fed, FeedSecond{Index: i, Phase: c.fillPhase(c.base+int64(i)*int64(time.Second), phase), InFlight: flight, Backlog: slices.Clone(backlogs),
			Publish: c.empty, EndToEnd: c.empty, ScheduleDelay: c.empty})
	}
	acked := k.acked - c.last.acked
	c.fed = append(c.fed, FeedSecond{
		Index: idx, Phase: phase, Sent: k.sent - c.last.sent, Acked: acked, AckedBytes: acked * int64(c.msgBytes),
		Consumed: k.consumed - c.last.consumed, Failed: k.failed - c.last.failed, Errors: k.errs - c.last.errs,
		BufferFullNs: k.fullNs - c.last.fullNs, InFlight: flight, Backlog: backlogs,
		Publish: hists[0], EndToEnd: hists[1], ScheduleDelay: hists[2],
	})
	c.fedIndex = idx
}

// PhaseRank orders the phases as a run passes them: warmup, backlog, measure, drain; false for
// a name that is not a phase.
func PhaseRank(phase string) (int, bool) {
	r, ok := phaseRank[phase]
	return r, ok
}

var phaseRank = map[string]int{PhaseWarmup: 0, PhaseBacklog: 1, PhaseMeasure: 2, PhaseDrain: 3}

// fillPhase is the phase of a second a late tick feeds empty, the second ending at end: the
// phase the run was in by the clock, a boundary at the second's very end counted in the second
// before it (as fleet.Plan.PhaseOf counts it), and never later than late, the tick's own phase.
// Labelling it with the tick's phase instead put a stalled worker's warm-up seconds in the
// window, and the coordinator refuses to merge seconds of two phases.
func (c *collector) fillPhase(end int64, late string) string {
	ph := late
	ms, me := c.run.measureStart.Load(), c.run.measureEnd.Load()
	switch {
	case c.warmEnd > 0 && end <= c.warmEnd:
		ph = PhaseWarmup
	case ms > c.warmEnd && end <= ms: // a backlog built before the window
		ph = PhaseBacklog
	case me > 0 && end <= me:
		ph = PhaseMeasure
	case me > 0:
		ph = PhaseDrain
	}
	if phaseRank[ph] > phaseRank[late] {
		return late
	}
	return ph
}

// feedFinal is the run's final report: the Result's counts and window histograms, and each
// group's ledger.
func feedFinal(res *Result, groups []*group) (FeedFinal, error) {
	f := FeedFinal{Counts: res.Counts, Excluded: res.ExcludedCounts}
	h := res.Histograms
	for _, e := range []struct {
		dst *hdr.Encoded
		h   *hdr.Hist
	}{{&f.Publish, h.Publish}, {&f.EndToEnd, h.EndToEnd}, {&f.ScheduleDelay, h.ScheduleDelay}, {&f.AckWait, h.AckWait}} {
		var err error
		if *e.dst, err = e.h.Encode(); err != nil {
			return FeedFinal{}, fmt.Errorf("encoding the window's histograms for the final report: %w", err)
		}
	}
	for gi, g := range groups {
		gr := res.Groups[gi]
		g.mu.Lock()
		f.Groups = append(f.Groups, FeedGroup{Name: g.name, Measured: g.ledger.Counts[phaseMeasured], Excluded: g.ledger.Counts[phaseExcluded],
			Foreign: g.ledger.Foreign, Seen: g.ledger.Seen(), Lost: gr.Counts.Lost, Unconsumed: gr.Counts.Unconsumed, CaughtUp: gr.CaughtUp})
		g.mu.Unlock()
	}
	return f, nil
}
