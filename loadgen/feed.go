package loadgen

import (
	"fmt"

	"github.com/plimsoll/plimsoll/loadgen/hdr"
	"github.com/plimsoll/plimsoll/loadgen/ledger"
)

// Feed hands a run's reports out as a worker of a run spread over several processes publishes
// them (package fleet turns them into its Second and Final): once a second the second's
// counters and interval histograms, and after the drain the window's counts, histograms and
// ledgers. Both are called on the run's own goroutine and must return quickly; the values are
// the receiver's.
type Feed struct {
	// Second, when set, is called once a second, after Options.Progress and Options.Live. A
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
	// short when the run stops, is numbered after the one before it).
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

// feedSecond builds the second ending at k from the counters at its start (c.last), the
// records in flight, the groups' backlogs and the encoded histograms.
func (c *collector) feedSecond(k counters, flight int64, backlogs []int64, hists [3]hdr.Encoded) FeedSecond {
	c.fedIndex = feedIndex(k.t, c.base, c.fedIndex)
	acked := k.acked - c.last.acked
	return FeedSecond{
		Index: c.fedIndex, Sent: k.sent - c.last.sent, Acked: acked, AckedBytes: acked * int64(c.msgBytes),
		Consumed: k.consumed - c.last.consumed, Failed: k.failed - c.last.failed, Errors: k.errs - c.last.errs,
		BufferFullNs: k.fullNs - c.last.fullNs, InFlight: flight, Backlog: backlogs,
		Publish: hists[0], EndToEnd: hists[1], ScheduleDelay: hists[2],
	}
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
