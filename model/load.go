package model

import (
	"fmt"
	"math"
)

// Share is one broker's part of the cluster's partitions and traffic.
type Share struct {
	// Leaders and Followers count the partitions this broker leads and follows; both are 0
	// when the partition count is unknown.
	Leaders, Followers int
	// Leading is the fraction of the produced bytes whose leader is this broker; it sums to 1
	// over the brokers.
	Leading float64
	// Following is the fraction of the produced bytes this broker copies as a follower; it
	// sums to r-1 over the brokers.
	Following float64
}

// ShareOf is the share of a broker measured to take leading of the produced bytes as a leader
// and following as a follower, e.g. from its BytesIn and ReplicationBytesIn over the cluster's
// BytesIn, so a measured broker can be compared with the model's figures for it.
func ShareOf(leading, following float64) Share { return Share{Leading: leading, Following: following} }

// BalancedShares spreads partitions leader partitions with replication factor rf over brokers
// as evenly as a balanced Kafka assignment allows; broker 0 is the busiest and carries both the
// leader and the follower ceilings. With partitions 0 (unknown) the spread is exactly even.
// It returns nil for counts outside the model's bounds (see Cluster).
func BalancedShares(brokers, partitions, rf int) []Share {
	if !shapeOK(brokers, partitions, rf) {
		return nil
	}
	out := make([]Share, brokers)
	for i := range out {
		out[i] = shareOf(i, brokers, partitions, rf)
	}
	return out
}

// BusiestShare is the busiest broker's share: ceil(P/N) leaders and ceil(P(r-1)/N) followers.
func BusiestShare(brokers, partitions, rf int) Share {
	if !shapeOK(brokers, partitions, rf) {
		return Share{}
	}
	return shareOf(0, brokers, partitions, rf)
}

func shapeOK(brokers, partitions, rf int) bool {
	return brokers > 0 && brokers <= MaxBrokers && rf > 0 && rf <= brokers && partitions >= 0 && partitions <= MaxPartitions
}

// shareOf is broker i's share: the first P mod N brokers take one leader more, and likewise
// for followers, so broker 0 takes both ceilings.
func shareOf(i, brokers, partitions, rf int) Share {
	if partitions == 0 {
		return Share{Leading: 1 / float64(brokers), Following: float64(rf-1) / float64(brokers)}
	}
	followers := partitions * (rf - 1)
	l := partitions / brokers
	if i < partitions%brokers {
		l++
	}
	f := followers / brokers
	if i < followers%brokers {
		f++
	}
	return Share{Leaders: l, Followers: f, Leading: float64(l) / float64(partitions), Following: float64(f) / float64(partitions)}
}

// Load is one broker's traffic in bytes per second.
type Load struct {
	ProduceIn      float64 // from producers, as leader
	ReplicationIn  float64 // fetched from leaders, as follower
	ReplicationOut float64 // fetched by followers, as leader
	ConsumeOut     float64 // fetched by consumer groups, as leader
	NetworkIn      float64 // ProduceIn + ReplicationIn
	NetworkOut     float64 // ReplicationOut + ConsumeOut
	DiskWrite      float64 // what it appends: NetworkIn
	DiskRead       float64 // what lagging groups read from disk
}

// LoadFor is the load on a broker with share s of a cluster c taking t produced bytes/s:
// produce in = t x leading, replication in = t x following, replication out =
// t x leading x (r-1), consume out = t x leading x (G+L), disk read = t x leading x L.
func LoadFor(c Cluster, t float64, s Share) Load {
	lead := t * s.Leading
	l := Load{
		ProduceIn:      lead,
		ReplicationIn:  t * s.Following,
		ReplicationOut: lead * float64(c.ReplicationFactor-1),
		ConsumeOut:     lead * float64(c.ConsumerGroups+c.LaggingConsumerGroups),
		DiskRead:       lead * float64(c.LaggingConsumerGroups),
	}
	l.NetworkIn = l.ProduceIn + l.ReplicationIn
	l.NetworkOut = l.ReplicationOut + l.ConsumeOut
	l.DiskWrite = l.NetworkIn
	return l
}

// Resource is a broker resource with a capacity.
type Resource string

// The resources the model knows. CPU is not modelled.
const (
	NetworkIn  Resource = "network_in"
	NetworkOut Resource = "network_out"
	DiskWrite  Resource = "disk_write"
	DiskRead   Resource = "disk_read"
)

// Resources lists them in report order.
var Resources = []Resource{NetworkIn, NetworkOut, DiskWrite, DiskRead}

// Of returns the load on resource r.
func (l Load) Of(r Resource) float64 {
	switch r {
	case NetworkIn:
		return l.NetworkIn
	case NetworkOut:
		return l.NetworkOut
	case DiskWrite:
		return l.DiskWrite
	case DiskRead:
		return l.DiskRead
	}
	return 0
}

// Capacity returns c's capacity for resource r in bytes/s of Kafka's records (0 = unknown): a
// NIC's rate less the link's overhead.
func (c Cluster) Capacity(r Resource) float64 {
	switch r {
	case NetworkIn, NetworkOut:
		return c.NIC / (1 + c.LinkOverhead)
	case DiskWrite:
		return c.DiskWrite
	case DiskRead:
		return c.DiskRead
	}
	return 0
}

// Ceiling is the produce rate a cluster can plan for, and what limits it.
type Ceiling struct {
	// BytesPerSec is the highest produce rate that keeps every resource of the busiest
	// surviving broker within MaxUtilization of its capacity.
	BytesPerSec float64
	// Bottleneck is the resource that reaches its limit first.
	Bottleneck Resource
	// ByResource is the produce rate at which each resource reaches its limit; resources
	// without a capacity, or that the traffic does not load (disk read without lagging
	// groups), are absent.
	ByResource map[Resource]float64
	// Brokers is the number of brokers carrying the load (N minus BrokersDown).
	Brokers int
	// ReplicationFactor is the replication factor in effect: min(r, Brokers).
	ReplicationFactor int
	// Share is the busiest surviving broker's share.
	Share Share
}

// MaxProduce computes the cluster's produce ceiling with c.BrokersDown brokers gone: for each
// resource, capacity x MaxUtilization over the busiest survivor's load per produced byte; the
// smallest wins. It returns ErrNoCapacity when c has no NIC or disk capacity.
func MaxProduce(c Cluster) (Ceiling, error) {
	c = c.withDefaults()
	if err := c.validate(true); err != nil {
		return Ceiling{}, err
	}
	if !c.hasCapacity() {
		return Ceiling{}, ErrNoCapacity
	}
	surv, share := survivors(c)
	perByte := LoadFor(surv, 1, share)
	ceil := Ceiling{BytesPerSec: math.Inf(1), ByResource: map[Resource]float64{},
		Brokers: surv.Brokers, ReplicationFactor: surv.ReplicationFactor, Share: share}
	for _, r := range Resources {
		capacity, load := c.Capacity(r), perByte.Of(r)
		if capacity <= 0 || load <= 0 {
			continue
		}
		limit := capacity * c.MaxUtilization / load
		ceil.ByResource[r] = limit
		if limit < ceil.BytesPerSec {
			ceil.BytesPerSec, ceil.Bottleneck = limit, r
		}
	}
	if ceil.Bottleneck == "" { // only a disk-read capacity, and nobody reads from disk
		return Ceiling{}, fmt.Errorf("%w: no given capacity is loaded by this traffic (disk read needs lagging consumer groups)", ErrNoCapacity)
	}
	return ceil, nil
}

// MaxMessagesPerSec predicts the sustainable message rate for messages like m: the produce
// ceiling over the wire bytes per message. It is what a limit search should find on a
// cluster whose bottleneck is a modelled resource (e.g. an emulated NIC).
func MaxMessagesPerSec(c Cluster, m Message) (float64, error) {
	w, err := WireBytes(m)
	if err != nil {
		return 0, err
	}
	ceil, err := MaxProduce(c)
	if err != nil {
		return 0, err
	}
	return ceil.BytesPerSec / w.BytesPerMessage, nil
}
