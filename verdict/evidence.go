package verdict

import (
	"fmt"
	"math"
	"strings"

	"github.com/plimsoll/plimsoll/use"
)

// evidence words the USE table's busiest resources (use.Busiest: utilisation of a known
// capacity, busiest first) as lines such as "broker 2 network in: 97% (wire bytes in ÷ NIC)",
// and names the busiest that may be a limit (limiting) as the bottleneck when it is at least
// MinBottleneckUtil of its capacity. A resource far from its limit is never the bottleneck: the
// bottleneck is then unknown, and says why (no broker metrics, or nothing near its capacity).
// A broker's heap is listed but never named: how full it is says when the next collection
// runs (a run on slow acknowledgements, nothing else busy, once gave "broker 1 memory: 62%").
func evidence(t *use.Table, c Criteria) (lines []string, bottleneck string) {
	busy := use.Busiest(t, 5)
	for _, b := range busy {
		lines = append(lines, evidenceLine(b))
	}
	first, found := firstLimiting(t)
	switch {
	case found && first.Utilisation >= 100*c.MinBottleneckUtil:
		return lines, evidenceLine(first)
	case t == nil:
		return lines, ""
	case !hasBrokerRows(t):
		return lines, "unknown: no broker metrics were read, so no broker resource could be judged"
	case found:
		return lines, fmt.Sprintf("unknown: no resource was near its capacity (the busiest, %s)", evidenceLine(first))
	}
	return lines, "unknown: no resource's capacity is known"
}

// limiting reports whether a busy resource may be what limits the cluster: anything but a
// broker's heap.
func limiting(b use.Busy) bool {
	return !(strings.HasPrefix(b.Entity, "broker ") && b.Resource == "memory")
}

// firstLimiting is the busiest resource that may be a limit (limiting); false when none has a
// known capacity.
func firstLimiting(t *use.Table) (use.Busy, bool) { return firstBusy(t, limiting) }

// firstBusy is the busiest resource (use.Busiest) that keep accepts; false when none does.
func firstBusy(t *use.Table, keep func(use.Busy) bool) (use.Busy, bool) {
	for _, b := range use.Busiest(t, math.MaxInt) {
		if keep(b) {
			return b, true
		}
	}
	return use.Busy{}, false
}

// evidenceLine words one busy resource, e.g. "broker 2 network in: 97% (wire bytes in ÷ NIC)".
func evidenceLine(b use.Busy) string {
	return fmt.Sprintf("%s %s: %.0f%% (%s)", b.Entity, b.Resource, b.Utilisation, b.Metric)
}

// nearCapacity is the busiest resource of entity (e.g. "broker 1") at least MinBottleneckUtil
// of its capacity, its heap aside (as busiestBroker); ok is false when none is.
func nearCapacity(t *use.Table, entity string, c Criteria) (use.Busy, bool) {
	b, ok := firstBusy(t, func(b use.Busy) bool { return b.Entity == entity && limiting(b) })
	return b, ok && b.Utilisation >= 100*c.MinBottleneckUtil
}

// hasBrokerRows reports whether the table holds any figure from a broker's metrics.
func hasBrokerRows(t *use.Table) bool {
	for _, r := range t.Rows {
		if len(r.Entity) > 7 && r.Entity[:7] == "broker " && !r.Amount.Blank() {
			return true
		}
	}
	return false
}
