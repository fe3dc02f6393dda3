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
	Window                            ProduceWindow // the producers' protocol window over the second

	Publish, EndToEnd, ScheduleDelay hdr.Encoded
}

// FeedFinal is the run's measured window once it is over: Result's Counts and ExcludedCounts,
// its four histograms encoded, and each group's ledger.
type FeedFinal struct {
	Counts, Excluded                          Counts
	Publish, EndToEnd, ScheduleDelay, AckWait hdr.Encoded
	Groups                                    []FeedGroup
	Window                                    ProduceWindow // the producers' protocol window over the measured window
}

// ProduceWindow is the producers' protocol window over a span, in figures that merge exactly
// across workers (each producer connection belongs to one): the produce requests a producer may
// have in flight per broker (Limit, ClientSignals.WindowLimit), the largest share of the span
// one producer's connection to one broker spent with all of them in flight (Share; merged by
// taking the largest), and the batches written with those of them that had no room for
// another record (summed).
type ProduceWindow struct {
	Limit       int     `json:"limit"`
	Share       float64 `json:"share"`
	Batches     int64   `json:"batches"`
	FullBatches int64   `json:"full_batches"`
}

// FullBatchShare is the share of the batches that were full, 0 without any.
func (w ProduceWindow) FullBatchShare() float64 {
	if w.Batches == 0 {
		return 0
	}
	return float64(w.FullBatches) / float64(w.Batches)
}

// Merge adds o to w: the largest share and limit, the batches summed.
func (w *ProduceWindow) Merge(o ProduceWindow) {
	w.Limit, w.Share = max(w.Limit, o.Limit), max(w.Share, o.Share)
	w.Batches, w.FullBatches = w.Batches+o.Batches, w.FullBatches+o.FullBatches
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
// counters at its start (c.last), the records in flight, the groups' backlogs, the producers'
// window over the tick (win, which the timeline's row has too) and the encoded histograms; and
// before it, empty, every second whose boundary the phase loop passed without a tick (it woke
// more than a second late: a stalled process, or a slow call in the drain's loop, such as its
// listing of the end offsets), so that the indices fed run on without a gap and the counts, all
// in the tick's second, stay exact.
func (c *collector) feedSeconds(k counters, phase string, flight int64, backlogs []int64, win ProduceWindow, hists [3]hdr.Encoded) {
	idx := feedIndex(k.t, c.base, c.fedIndex)
	phase = c.tickPhase(idx, phase)
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
		c.fed = append(c.fed, FeedSecond{Index: i, Phase: c.filledPhase(i, phase), InFlight: flight, Backlog: slices.Clone(backlogs),
			Publish: c.empty, EndToEnd: c.empty, ScheduleDelay: c.empty})
	}
	acked := k.acked - c.last.acked
	c.fed = append(c.fed, FeedSecond{
		Index: idx, Phase: phase, Sent: k.sent - c.last.sent, Acked: acked, AckedBytes: acked * int64(c.msgBytes),
		Consumed: k.consumed - c.last.consumed, Failed: k.failed - c.last.failed, Errors: k.errs - c.last.errs,
		BufferFullNs: k.fullNs - c.last.fullNs, InFlight: flight, Backlog: backlogs, Window: win,
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

// tickPhase is the label of second i, which a tick closes: the phase by the clock (clockPhase),
// never before loop, the phase loop's own when it closed the second. The seconds fed empty
// before it are labelled by the clock too, never after it (filledPhase). The loop's phase lags
// the clock when it woke late across a boundary. Labelled with it, a stalled worker's warm-up
// seconds went into the window; and a worker that missed its wake at the warm-up's end (or the
// window's) labelled its next second warmup (measure) where every punctual worker, and the
// plan, had measure (drain). The coordinator refuses to merge seconds of two phases (ErrMerge).
func (c *collector) tickPhase(i int, loop string) string {
	if ph := c.clockPhase(i, loop); phaseRank[ph] > phaseRank[loop] {
		return ph
	}
	return loop
}

// filledPhase is the label of second i, fed empty before the tick's second labelled tick.
func (c *collector) filledPhase(i int, tick string) string {
	if ph := c.clockPhase(i, tick); phaseRank[ph] < phaseRank[tick] {
		return ph
	}
	return tick
}

// clockPhase is the phase the run was in by the clock at the end of second i, a boundary at
// its very end counted in it (as fleet.Plan.PhaseOf counts it); def when the clock cannot tell.
func (c *collector) clockPhase(i int, def string) string {
	end := c.base + int64(i)*int64(time.Second)
	ms, me := c.run.measureStart.Load(), c.run.measureEnd.Load()
	switch {
	case c.warmEnd == 0: // not known
		return def
	case end <= c.warmEnd:
		return PhaseWarmup
	case ms > c.warmEnd && end <= ms: // a backlog built before the window, or still building
		return PhaseBacklog
	case me > 0 && end <= me:
		return PhaseMeasure
	case me > 0:
		return PhaseDrain
	}
	return def
}

// feedFinal is the run's final report: the Result's counts and window histograms, each
// group's ledger, and the producers' protocol window over the measured window.
func feedFinal(res *Result, groups []*group, window ProduceWindow) (FeedFinal, error) {
	f := FeedFinal{Counts: res.Counts, Excluded: res.ExcludedCounts, Window: window}
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
