package loadgen

import (
	"github.com/plimsoll/plimsoll/loadgen/hdr"
	"github.com/plimsoll/plimsoll/loadgen/ledger"
)

// Live is the run as it stands at the end of one second, for a live view of it (Options.Live,
// e.g. a Prometheus endpoint): that second's figures and the run's counts and histograms so
// far. It is read once a second on the run's own goroutine, never on a message's path.
type Live struct {
	RunID  string
	Second Second
	// Measured counts the messages intended inside the window so far and Excluded those of
	// warm-up and backlog building, as Result's Counts and ExcludedCounts will: sent, unsent,
	// acked, failed, and the groups' consumed, duplicated, redelivered and out of order. Lost,
	// Unconsumed and InFlightAtEnd are known only once the run is over (Result).
	Measured, Excluded Counts
	// Publish, EndToEnd and ScheduleDelay are the measured window's histograms so far: after
	// the last second, those of the Result. They are the run's own and change after the call
	// returns: a receiver copies what it keeps (hdr.Hist.Merge into its own).
	Publish, EndToEnd, ScheduleDelay *hdr.Hist
}

// live fills the collector's Live for the second s.
func (c *collector) live(runID string, s Second) *Live {
	l := &c.liveBuf
	*l = Live{RunID: runID, Second: s, Publish: c.pub, EndToEnd: c.e2e, ScheduleDelay: c.sched}
	l.Measured, l.Excluded = producerCounts(c.prods)
	for _, g := range c.groups {
		g.mu.Lock()
		addLedger(&l.Excluded, g.ledger.Counts[phaseExcluded])
		addLedger(&l.Measured, g.ledger.Counts[phaseMeasured])
		g.mu.Unlock()
	}
	return l
}

func addLedger(dst *Counts, c ledger.Counts) {
	dst.Consumed += c.Consumed
	dst.Duplicated += c.Duplicated
	dst.Redelivered += c.Redelivered
	dst.OutOfOrder += c.OutOfOrder
}

// report hands a closed second to Options.Progress, Options.Live and Options.Feed.Second.
func (r *runner) report(x *execution, s Second) {
	if r.opts.Progress != nil {
		r.opts.Progress(s)
	}
	if r.opts.Live != nil {
		r.opts.Live(x.col.live(r.opts.RunID, s))
	}
	if r.opts.Feed.Second != nil {
		for _, fs := range x.col.fed {
			r.opts.Feed.Second(fs)
		}
	}
}
