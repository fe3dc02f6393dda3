package limit

import (
	"context"
	"fmt"
	"math"
)

// simCluster is a deterministic cluster: a trial at rate r of size-byte messages is ok iff
// r x (size + overhead) <= bytesCap and r <= msgsCap; the generator cannot drive more than
// genCap msgs/s (0: no limit), and such trials are client-bound.
type simCluster struct {
	bytesCap float64 // bytes/s
	overhead int     // bytes per message on top of the payload
	msgsCap  float64 // msgs/s; 0: no limit
	genCap   float64 // msgs/s; 0: no limit
	// flaky lists (size, rate) pairs, rounded to msgs/s, whose first n trials are invalid
	// (failed, not client-bound): n = 1 is bad luck, n >= 2 a broken rate.
	flaky  map[[2]int]int
	failed map[[2]int]int
	calls  []call
}

type call struct {
	size int
	rate float64
	out  Outcome
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

func (c *simCluster) Trial(_ context.Context, size int, rate float64) (Outcome, error) {
	out := c.outcome(size, rate)
	c.calls = append(c.calls, call{size, rate, out})
	return out, nil
}

func (c *simCluster) outcome(size int, rate float64) Outcome {
	key := [2]int{size, int(math.Round(rate))}
	if n := c.flaky[key]; n > 0 && c.failed[key] < n {
		if c.failed == nil {
			c.failed = map[[2]int]int{}
		}
		c.failed[key]++
		return Outcome{State: Invalid, Reasons: []string{"broker connection reset"}, Achieved: rate / 2}
	}
	if c.genCap > 0 && rate > c.genCap {
		return Outcome{State: Invalid, ClientBound: true, Achieved: c.genCap,
			Reasons: []string{fmt.Sprintf("scheduling delay grew: the generator reached %.0f msgs/s", c.genCap)}, Bottleneck: "plimsoll cpu"}
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
	out := Outcome{Bottleneck: busiest, Achieved: rate,
		Data: []byte(fmt.Sprintf(`{"network_use":%.4f,"handler_use":%.4f}`, bytesUse, msgsUse))}
	if bytesUse > 1 || msgsUse > 1 {
		out.State = Overloaded
		out.Reasons = []string{busiest + " saturated"}
		return out
	}
	out.State = OK
	return out
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
