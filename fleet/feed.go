package fleet

import (
	"github.com/plimsoll/plimsoll/loadgen"
	"github.com/plimsoll/plimsoll/loadgen/ledger"
)

// RunOptions are the loadgen options of worker share s of plan p: the run's id (so its topics
// and groups are the coordinator's), and the share, its consumers joining with Balancer, from
// the plan's start. The worker adds its Feed (SecondOf, FinalOf, then Worker.Second and
// Worker.Final) and whatever else it sets.
func RunOptions(p Plan, s Share) loadgen.Options {
	return loadgen.Options{RunID: p.RunID, Share: &loadgen.Share{
		Producers: loadgen.Range(s.Producers), Partitions: loadgen.Range(s.Partitions), Consumers: loadgen.Range(s.Consumers),
		Balancer: Balancer(s.Partitions), Start: p.Start,
	}}
}

// SecondOf is the report of one second a worker's run fed (loadgen.Feed.Second).
func SecondOf(s loadgen.FeedSecond) Second {
	return Second{Index: s.Index, Phase: s.Phase,
		Tally: Tally{Sent: s.Sent, Acked: s.Acked, AckedBytes: s.AckedBytes, Consumed: s.Consumed, Failed: s.Failed, Errors: s.Errors,
			BufferFullNs: s.BufferFullNs, InFlight: s.InFlight, Backlog: s.Backlog, Window: s.Window},
		Publish: s.Publish, EndToEnd: s.EndToEnd, ScheduleDelay: s.ScheduleDelay}
}

// FinalOf is the final report of a worker's run (loadgen.Feed.Final) whose producers are the
// given range of the whole's: each group's ledger covers them.
func FinalOf(f loadgen.FeedFinal, producers Range) Final {
	out := Final{Counts: f.Counts, Excluded: f.Excluded,
		Publish: f.Publish, EndToEnd: f.EndToEnd, ScheduleDelay: f.ScheduleDelay, AckWait: f.AckWait, Window: f.Window}
	for _, g := range f.Groups {
		out.Groups = append(out.Groups, GroupLedger{Name: g.Name, Producers: producers,
			Measured: ledgerCounts(g.Measured), Excluded: ledgerCounts(g.Excluded), Foreign: g.Foreign, Seen: g.Seen,
			Lost: g.Lost, Unconsumed: g.Unconsumed, CaughtUp: g.CaughtUp})
	}
	return out
}

// ledgerCounts are a ledger's counts of one phase as a report carries them.
func ledgerCounts(c ledger.Counts) LedgerCounts {
	return LedgerCounts{Consumed: c.Consumed, Duplicated: c.Duplicated, Redelivered: c.Redelivered, OutOfOrder: c.OutOfOrder}
}
