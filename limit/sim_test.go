package limit

import (
	"context"
	"fmt"
	"math"

	"github.com/plimsoll/plimsoll/results"
	"github.com/plimsoll/plimsoll/verdict"
)

// The verdict's states, short for the tests.
const (
	OK         = verdict.OK
	Overloaded = verdict.Overloaded
	Invalid    = verdict.Invalid
)

// simTrial is the record of a simulated trial: its verdict and achieved rate.
func simTrial(state verdict.State, clientBound bool, achieved float64, bottleneck string, reasons ...string) *results.Trial {
	t := &results.Trial{Verdict: verdict.Verdict{State: state, Ceiling: state, Bottleneck: bottleneck, Reasons: []verdict.Reason{}}}
	t.ProducedMsgsPerSec = achieved
	if clientBound {
		t.Verdict.Reasons = append(t.Verdict.Reasons, verdict.Reason{Criterion: verdict.CritClientBound, Text: "the generator fell behind"})
	}
	for _, r := range reasons {
		t.Verdict.Reasons = append(t.Verdict.Reasons, verdict.Reason{Criterion: "sim", Text: r})
	}
	return t
}

// simCluster is a deterministic cluster: a trial at rate r of size-byte messages is ok iff
// r x (size + overhead) <= bytesCap and r <= msgsCap; the generator cannot drive more than
// genCap msgs/s (0: no limit), and such trials are client-bound.
type simCluster struct {
	bytesCap float64 // bytes/s
	overhead int     // bytes per message on top of the payload
	msgsCap  float64 // msgs/s; 0: no limit
	genCap   float64 // msgs/s; 0: no limit
	// sloCap is the bytes/s above which the latency SLO fails while the cluster keeps up (the
	// ceiling is bytesCap); 0: latency never fails.
	sloCap float64
	// linkOverhead, when set, gives each trial's measured link overhead by its size and whether
	// the ceiling judged it ok.
	linkOverhead func(size int, ok bool) float64
	// holdCap: a hold (a longer trial) fails above holdCap x the limit; 0: holds never fail.
	holdCap float64
	// flaky lists (size, rate) pairs, rounded to msgs/s, whose first n trials are invalid
	// (failed, not client-bound): n = 1 is bad luck, n >= 2 a broken rate.
	flaky  map[[2]int]int
	failed map[[2]int]int
	calls  []call
}

type call struct {
	size int
	rate float64
	hold bool
	out  *results.Trial
}

// limit is the true limit for a size and the resource that sets it ("" on a tie).
func (c *simCluster) limit(size int) (float64, string) {
	byBytes := c.bytesCap / float64(size+c.overhead)
	if c.msgsCap > 0 && math.Abs(c.msgsCap-byBytes) <= 1e-9*byBytes {
		return byBytes, "" // a tie: either may be named
	}
	if c.msgsCap > 0 && c.msgsCap < byBytes {
		return c.msgsCap, "request handlers"
	}
	return byBytes, "network"
}

func (c *simCluster) Trial(_ context.Context, req Request) (*results.Trial, error) {
	out := c.outcome(req.Size, req.Rate)
	if req.Hold && c.holdFails(req.Size, req.Rate) {
		// The longer hold misses the latency SLO, while the cluster keeps up.
		out = simTrial(Overloaded, false, req.Rate, "network")
		out.Verdict.Reasons = append(out.Verdict.Reasons, verdict.Reason{Criterion: verdict.CritLatency, Text: "p99 above the SLO during the hold"})
		out.Verdict.Ceiling = OK
	}
	if c.linkOverhead != nil {
		o := c.linkOverhead(req.Size, out.Verdict.Ceiling == OK)
		out.LinkOverhead = &o
	}
	c.calls = append(c.calls, call{req.Size, req.Rate, req.Hold, out})
	return out, nil
}

// holdFails: a hold at a rate above holdCap x the limit fails (the limit was overestimated by
// short trials); 0 never fails.
func (c *simCluster) holdFails(size int, rate float64) bool {
	if c.holdCap == 0 {
		return false
	}
	l, _ := c.limit(size)
	if c.sloCap > 0 {
		l = math.Min(l, c.sloCap/float64(size+c.overhead))
	}
	return rate > c.holdCap*l
}

func (c *simCluster) outcome(size int, rate float64) *results.Trial {
	key := [2]int{size, int(math.Round(rate))}
	if n := c.flaky[key]; n > 0 && c.failed[key] < n {
		if c.failed == nil {
			c.failed = map[[2]int]int{}
		}
		c.failed[key]++
		return simTrial(Invalid, false, rate/2, "", "broker connection reset")
	}
	if c.genCap > 0 && rate > c.genCap {
		return simTrial(Invalid, true, c.genCap, "plimsoll cpu", fmt.Sprintf("scheduling delay grew: the generator reached %.0f msgs/s", c.genCap))
	}
	bytesUse := rate * float64(size+c.overhead) / c.bytesCap
	msgsUse := 0.0
	if c.msgsCap > 0 {
		msgsUse = rate / c.msgsCap
	}
	busiest := "network"
	if msgsUse > bytesUse {
		busiest = "request handlers"
	}
	if bytesUse > 1 || msgsUse > 1 {
		return simTrial(Overloaded, false, rate, busiest, busiest+" saturated")
	}
	if c.sloCap > 0 && rate*float64(size+c.overhead) > c.sloCap {
		t := simTrial(Overloaded, false, rate, busiest)
		t.Verdict.Reasons = append(t.Verdict.Reasons, verdict.Reason{Criterion: verdict.CritLatency, Text: "p99 above the SLO"})
		t.Verdict.Ceiling = OK
		return t
	}
	return simTrial(OK, false, rate, busiest)
}

// callsFor returns the trials of one size in order.
func (c *simCluster) callsFor(size int) []call {
	var out []call
	for _, k := range c.calls {
		if k.size == size {
			out = append(out, k)
		}
	}
	return out
}
