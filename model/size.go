package model

import (
	"fmt"

	"github.com/plimsoll/plimsoll/units"
)

// BrokerCount is the fewest brokers that carry a produce rate with a number of them down: per
// resource, and overall (the largest of those, set by Bottleneck).
type BrokerCount struct {
	// BrokersDown is how many brokers are down while the others carry the load.
	BrokersDown int `json:"brokers_down"`
	// ByResource holds, for each resource with a capacity that the traffic loads, the fewest
	// brokers (down ones included) whose busiest survivor stays within MaxUtilization, and
	// whose busiest broker does with all up.
	ByResource map[Resource]int `json:"by_resource"`
	// Brokers is the largest of ByResource, and at least the replication factor and one more
	// than BrokersDown.
	Brokers int `json:"brokers"`
	// Bottleneck is the resource that needs the most brokers.
	Bottleneck Resource `json:"bottleneck"`
	// Busiest is the load on the busiest surviving broker of Brokers with BrokersDown down.
	Busiest BrokerLoad `json:"busiest_broker"`
}

// Fleet is the answer of sizing mode: the fewest brokers with all up and, when c.BrokersDown
// is set, with that many down.
type Fleet struct {
	ProduceBytesPerSec float64      `json:"produce_bytes_per_sec"`
	AllUp              BrokerCount  `json:"all_up"`
	WithBrokersDown    *BrokerCount `json:"with_brokers_down"`
}

// MinBrokers finds the fewest brokers a cluster shaped like c (its Brokers ignored) needs to
// carry the produce rate t (t.ProduceBytesPerSec, or t.MessagesPerSec with t.Message) within
// MaxUtilization of each capacity: with all brokers up and with c.BrokersDown down. A cluster
// never has fewer brokers than its replication factor. Errors are *InputError, or
// ErrNoCapacity when no capacity is given or loaded.
func MinBrokers(c Cluster, t Traffic) (Fleet, error) {
	c = c.withDefaults()
	if err := t.validate(); err != nil {
		return Fleet{}, err
	}
	rate := t.ProduceBytesPerSec
	if rate == 0 && t.MessagesPerSec > 0 && t.Message != nil {
		w, err := WireBytes(*t.Message)
		if err != nil {
			return Fleet{}, err
		}
		rate = t.MessagesPerSec * w.BytesPerMessage
	}
	if rate <= 0 {
		return Fleet{}, inputErrorf("produce", "sizing needs a target load: give --produce (or --messages-per-sec with --message-size)")
	}
	if c.BrokersDown < 0 {
		return Fleet{}, inputErrorf("brokers-down", "%d is negative", c.BrokersDown)
	}
	shape := c
	shape.Brokers, shape.BrokersDown = max(c.ReplicationFactor, 1), 0
	if err := shape.validate(true); err != nil {
		return Fleet{}, err
	}
	if !c.hasCapacity() {
		return Fleet{}, ErrNoCapacity
	}
	f := Fleet{ProduceBytesPerSec: round(rate)}
	var err error
	if f.AllUp, err = countFor(c, rate, 0, nil); err != nil {
		return Fleet{}, err
	}
	if c.BrokersDown > 0 {
		down, err := countFor(c, rate, c.BrokersDown, f.AllUp.ByResource)
		if err != nil {
			return Fleet{}, err
		}
		f.WithBrokersDown = &down
	}
	return f, nil
}

// countFor is the fewest brokers, per resource and overall, with down brokers down and, per
// resource, no fewer than floor: a cluster that must survive brokers down must first carry the
// load with all of them up.
func countFor(c Cluster, rate float64, down int, floor map[Resource]int) (BrokerCount, error) {
	bc := BrokerCount{BrokersDown: down, ByResource: map[Resource]int{}}
	for _, r := range Resources {
		n, loaded := fewestBrokers(c, rate, down, floor[r], r)
		if !loaded {
			continue
		}
		if n == 0 {
			return BrokerCount{}, unreachable(c, rate, r)
		}
		bc.ByResource[r] = n
		if n > bc.Brokers {
			bc.Brokers, bc.Bottleneck = n, r
		}
	}
	if bc.Bottleneck == "" {
		return BrokerCount{}, fmt.Errorf("%w: no given capacity is loaded by this traffic (disk read needs lagging consumer groups)", ErrNoCapacity)
	}
	c.Brokers, c.BrokersDown = bc.Brokers, down
	surv, share := survivors(c)
	ld := LoadFor(surv, rate, share)
	bc.Busiest = brokerLoad(ld)
	if c.Partitions > 0 {
		bc.Busiest.Leaders, bc.Busiest.Followers = &share.Leaders, &share.Followers
	}
	return bc, nil
}

// fewestBrokers is the smallest N, at least floor, at which resource r of the busiest of N-down survivors stays
// within MaxUtilization of its capacity at rate; loaded is false when r has no capacity or this
// traffic does not load it, and N is 0 when no N up to MaxBrokers does. Below N = down + r the
// survivors hold fewer replicas than r and the load is not monotonic in N (a second replica
// adds replication out), so those counts are tried one by one; above, adding a broker never
// loads the busiest one more, so the rest is a binary search.
func fewestBrokers(c Cluster, rate float64, down, floor int, r Resource) (n int, loaded bool) {
	capacity := c.Capacity(r) * c.MaxUtilization
	full := Cluster{Brokers: c.ReplicationFactor, ReplicationFactor: c.ReplicationFactor,
		ConsumerGroups: c.ConsumerGroups, LaggingConsumerGroups: c.LaggingConsumerGroups}
	if capacity <= 0 || LoadFor(full, 1, BusiestShare(full.Brokers, 0, full.ReplicationFactor)).Of(r) <= 0 {
		return 0, false
	}
	fits := func(n int) bool {
		c.Brokers, c.BrokersDown = n, down
		surv, share := survivors(c)
		return LoadFor(surv, rate, share).Of(r) <= capacity*(1+1e-12)
	}
	lo := max(c.ReplicationFactor, down+1, floor)
	for ; lo <= min(down+c.ReplicationFactor, MaxBrokers); lo++ {
		if fits(lo) {
			return lo, true
		}
	}
	if lo > MaxBrokers || !fits(MaxBrokers) {
		return 0, true
	}
	hi := MaxBrokers // fits(hi), and not lo-1
	for lo < hi {
		mid := lo + (hi-lo)/2
		if fits(mid) {
			hi = mid
		} else {
			lo = mid + 1
		}
	}
	return lo, true
}

// survivors is c with its down brokers gone (replication factor at most the brokers left) and
// the busiest survivor's share.
func survivors(c Cluster) (Cluster, Share) {
	up := c.Brokers - c.BrokersDown
	s := c
	s.Brokers, s.BrokersDown = up, 0
	s.ReplicationFactor = min(c.ReplicationFactor, up)
	return s, BusiestShare(up, c.Partitions, s.ReplicationFactor)
}

func brokerLoad(ld Load) BrokerLoad {
	return BrokerLoad{
		ProduceInBytesPerSec: round(ld.ProduceIn), ReplicationInBytesPerSec: round(ld.ReplicationIn),
		ReplicationOutBytesPerSec: round(ld.ReplicationOut), ConsumeOutBytesPerSec: round(ld.ConsumeOut),
		NetworkInBytesPerSec: round(ld.NetworkIn), NetworkOutBytesPerSec: round(ld.NetworkOut),
		DiskWriteBytesPerSec: round(ld.DiskWrite), DiskReadBytesPerSec: round(ld.DiskRead),
	}
}

// unreachable says why no broker count carries rate on resource r.
func unreachable(c Cluster, rate float64, r Resource) error {
	if c.Partitions > 0 && c.Partitions*c.ReplicationFactor <= MaxBrokers {
		return inputErrorf("partitions", "with %d partitions the busiest broker's %s stays above %s of its capacity however many brokers carry %s: a broker never takes less than one partition's share; give more partitions",
			c.Partitions, label(r), units.Percent(c.MaxUtilization), units.FormatRate(rate))
	}
	return inputErrorf("produce", "%s needs more than %d brokers for %s: check the rate and the capacities", units.FormatRate(rate), MaxBrokers, label(r))
}
