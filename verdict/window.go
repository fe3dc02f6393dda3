package verdict

import (
	"fmt"
	"strings"

	"github.com/plimsoll/plimsoll/units"
	"github.com/plimsoll/plimsoll/use"
)

// windowBound is the client-bound reason of producers held back by their own protocol window:
// a run that fell short of its target or its latency objective while one producer's connection
// to a broker had every produce request it may have in flight for at least ClientWindowShare
// of the window, at least ClientFullBatchShare of its batches had no room for another record,
// no broker resource reached MinBottleneckUtil of its capacity and, co-located, the host's CPU
// was less than HostBusy busy. The cluster
// answered; the producers could not ask faster. nil when any of that does not hold.
func windowBound(in Input, c Criteria) *Reason {
	cs := in.Run.Client
	if c.ClientWindowShare <= 0 || cs.WindowLimit <= 0 || cs.WindowShare < c.ClientWindowShare ||
		cs.FullBatchShare < c.ClientFullBatchShare || !fellShort(in, c) {
		return nil
	}
	busiest, ok := busiestBroker(in.USE)
	if !ok || busiest.Utilisation >= 100*c.MinBottleneckUtil || hostSaturated(in, c) {
		return nil
	}
	return &Reason{Criterion: CritClientBound, Text: fmt.Sprintf(
		"the producers' request window was full %.0f%% of the measured time (%s in flight per broker, %.0f%% of batches full) while the busiest broker resource, %s %s, was at %.0f%%: the producers, not the cluster, set the rate; use more producers (--producers), a larger batch.size, or, without idempotence, a larger max.in.flight.requests.per.connection",
		100*cs.WindowShare, units.Plural(cs.WindowLimit, "produce request"), 100*cs.FullBatchShare, busiest.Entity, busiest.Resource, busiest.Utilisation)}
}

// hostSaturated reports a co-located host whose CPU was at least HostBusy busy: each broker's CPU
// row is its share of the host, so three brokers at 26% each and plimsoll can fill two cores
// (200,000 msgs/s of 1 KB on this 2-core host: window full 94%, the host the limit).
func hostSaturated(in Input, c Criteria) bool {
	if in.Series == nil || !in.Series.Local || c.HostBusy <= 0 {
		return false
	}
	busy, _, _ := hostCPU(in)
	return busy >= c.HostBusy
}

// fellShort reports whether the run missed its target rate or its latency objective.
func fellShort(in Input, c Criteria) bool {
	r := in.Run
	short := c.MinAchieved > 0 && r.TargetMsgsPerSec > 0 && r.ProducedMsgsPerSec < c.MinAchieved*r.TargetMsgsPerSec
	slow := c.PublishP99SLOMs > 0 && r.Latency.Publish.P99 > c.PublishP99SLOMs
	return short || slow
}

// busiestBroker is the broker resource nearest its capacity, its heap aside (how full the heap
// is says when the next collection runs, not how near the broker is to its limit; its
// saturation, GC time, is in the same row); ok is false when no broker row has a utilisation
// (no broker metrics, or no capacities known).
func busiestBroker(t *use.Table) (use.Busy, bool) {
	return firstBusy(t, func(b use.Busy) bool { return strings.HasPrefix(b.Entity, "broker ") && limiting(b) })
}
