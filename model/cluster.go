package model

import (
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/plimsoll/plimsoll/units"
)

// ErrInput is wrapped by every error about the model's inputs.
var ErrInput = errors.New("invalid model input")

// ErrNoCapacity is returned by MaxProduce when no capacity (NIC, disk) is known.
var ErrNoCapacity = errors.New("no broker capacity given")

// InputError names the input at fault by its plimsoll model flag (and YAML key), e.g.
// "replication-factor", so every caller can point the user at the fix.
type InputError struct {
	Field string // flag name without dashes
	Msg   string // what is wrong and how to fix it
}

func (e *InputError) Error() string { return e.Field + ": " + e.Msg }

// Unwrap lets errors.Is(err, ErrInput) match.
func (e *InputError) Unwrap() error { return ErrInput }

func inputErrorf(field, format string, args ...any) error {
	return &InputError{Field: field, Msg: fmt.Sprintf(format, args...)}
}

// Defaults for zero values.
const (
	DefaultMaxUtilization = 0.8   // Cruise Control's disk and network threshold
	DefaultMaxMapCount    = 65530 // Linux's vm.max_map_count default
	MapsPerPartition      = 2     // offset index and time index of the active segment
	// MaxLinkOverhead bounds LinkOverhead: a link carrying ten bytes of framing per record
	// byte is a typing error, not a measurement.
	MaxLinkOverhead = 10

	// Bounds on counts, far above any real cluster, so arithmetic cannot overflow.
	MaxBrokers    = 1_000_000
	MaxPartitions = 1_000_000_000
	maxGroups     = 1_000_000
)

// Cluster is the shape and capacity of a Kafka cluster. Zero means unknown or default, as noted.
type Cluster struct {
	// Brokers is the number of brokers, N.
	Brokers int
	// Partitions is the number of leader partitions over all topics, P; 0 means unknown, and
	// the traffic is then spread exactly evenly (t/N per broker).
	Partitions int
	// ReplicationFactor is r, each partition's copies (Kafka's replication.factor).
	ReplicationFactor int
	// ConsumerGroups read every produced byte from the tail (served from the page cache).
	ConsumerGroups int
	// LaggingConsumerGroups read every produced byte from disk.
	LaggingConsumerGroups int
	// NIC is each broker's network capacity per direction, bytes/s; 0 = unknown.
	NIC float64
	// LinkOverhead is what a broker's link carries beyond Kafka's record bytes, per record
	// byte: every packet's TCP/IP and Ethernet headers, acknowledgements of the other
	// direction's data, Kafka's request and response framing, fetch requests. The NIC then
	// carries NIC / (1 + LinkOverhead) record bytes/s. 0 counts none. Measured on emulated
	// 16 Mbit/s links at half their rate: 0.067 for 10 KB messages, 0.118 for 1 KB, 0.145 for
	// 100 B (docs/model.md, "What a link carries").
	LinkOverhead float64
	// DiskWrite and DiskRead are each broker's disk bandwidth, bytes/s; 0 = unknown.
	DiskWrite, DiskRead float64
	// MaxUtilization is the share of a capacity to plan up to, in (0, 1]; 0 means 0.8.
	MaxUtilization float64
	// BrokersDown is how many brokers the ceiling and headroom must survive losing.
	BrokersDown int
}

// Traffic is the load produced into the cluster. Give ProduceBytesPerSec, or MessagesPerSec with
// a Message; a Message alone prices a message without a rate.
type Traffic struct {
	// ProduceBytesPerSec is the producers' rate on the wire, t; 0 = unknown.
	ProduceBytesPerSec float64
	// MessagesPerSec is the producers' message rate; 0 = unknown.
	MessagesPerSec float64
	// Message, when set, turns messages into wire bytes (and bytes into messages).
	Message *Message
}

// Sizing holds the inputs of the partition and headroom figures. Zero means not given.
type Sizing struct {
	// BrokerLimit is a measured per-broker limit, bytes/s: the cluster's produce rate divided by
	// its brokers at the point it overloaded (Dropbox's "60 MB/s per broker").
	BrokerLimit float64
	// ConsumerLatency is the time a consumer spends per message, for Little's law.
	ConsumerLatency time.Duration
	// PartitionThroughput and ConsumerPartitionThroughput are measured per-partition produce
	// and consume rates, bytes/s, for partitions >= max(t/p, t/c).
	PartitionThroughput, ConsumerPartitionThroughput float64
	// MaxMapCount is the brokers' vm.max_map_count; 0 means 65530.
	MaxMapCount int
}

// BrokersDownOf is a share of brokers (0.2 for 20%) as whole brokers, rounded up: 20% of 5
// is 1, 20% of 6 is 2.
func BrokersDownOf(share float64, brokers int) int {
	return int(math.Ceil(share*float64(brokers) - 1e-9))
}

func (c Cluster) withDefaults() Cluster {
	if c.MaxUtilization == 0 {
		c.MaxUtilization = DefaultMaxUtilization
	}
	return c
}

func (c Cluster) hasCapacity() bool { return c.NIC > 0 || c.DiskWrite > 0 || c.DiskRead > 0 }

// validate checks c; needShape says whether brokers and replication factor are required.
func (c Cluster) validate(needShape bool) error {
	counts := []struct {
		field string
		v     int
	}{
		{"brokers", c.Brokers}, {"partitions", c.Partitions}, {"replication-factor", c.ReplicationFactor},
		{"consumer-groups", c.ConsumerGroups}, {"lagging-consumer-groups", c.LaggingConsumerGroups},
		{"brokers-down", c.BrokersDown},
	}
	for _, n := range counts {
		if n.v < 0 {
			return inputErrorf(n.field, "%d is negative", n.v)
		}
	}
	switch {
	case c.Brokers > MaxBrokers:
		return inputErrorf("brokers", "%d is more than the model handles (%d)", c.Brokers, MaxBrokers)
	case c.Partitions > MaxPartitions:
		return inputErrorf("partitions", "%d is more than the model handles (%d)", c.Partitions, MaxPartitions)
	case c.ConsumerGroups > maxGroups:
		return inputErrorf("consumer-groups", "%d is more than the model handles (%d)", c.ConsumerGroups, maxGroups)
	case c.LaggingConsumerGroups > maxGroups:
		return inputErrorf("lagging-consumer-groups", "%d is more than the model handles (%d)", c.LaggingConsumerGroups, maxGroups)
	}
	rates := []struct {
		field string
		v     float64
	}{{"nic", c.NIC}, {"disk-write", c.DiskWrite}, {"disk-read", c.DiskRead}}
	for _, r := range rates {
		if r.v < 0 || math.IsNaN(r.v) || math.IsInf(r.v, 0) {
			return inputErrorf(r.field, "%v bytes/s must be a positive, finite rate", r.v)
		}
	}
	if o := c.LinkOverhead; !(o >= 0 && o <= MaxLinkOverhead) {
		return inputErrorf("link-overhead", "%v must be from 0 to %v: the link's bytes beyond the records', per record byte (0.1 means 10%% more)", o, MaxLinkOverhead)
	}
	if u := c.MaxUtilization; !(u > 0 && u <= 1) {
		return inputErrorf("max-utilization", "%v must be in (0, 1], e.g. 0.8 to plan up to 80%% of each capacity", u)
	}
	if needShape && c.Brokers == 0 {
		return inputErrorf("brokers", "the number of brokers is required to model per-broker load; to find how many a load needs, give it with a capacity (--produce with --nic or --disk-write) and no --brokers")
	}
	if needShape && c.ReplicationFactor == 0 {
		return inputErrorf("replication-factor", "required to model per-broker load (3 is usual; Kafka's default.replication.factor is 1)")
	}
	if c.Brokers > 0 && c.ReplicationFactor > c.Brokers {
		return inputErrorf("replication-factor", "%d is more than the number of brokers (%d): Kafka cannot place %d replicas of a partition on %s",
			c.ReplicationFactor, c.Brokers, c.ReplicationFactor, units.Plural(c.Brokers, "broker"))
	}
	if c.BrokersDown > 0 && c.BrokersDown >= c.Brokers {
		return inputErrorf("brokers-down", "%d of %s down leaves none to carry the load: give fewer than the number of brokers", c.BrokersDown, units.Plural(c.Brokers, "broker"))
	}
	return nil
}

func (t Traffic) validate() error {
	for _, r := range []struct {
		field string
		v     float64
	}{{"produce", t.ProduceBytesPerSec}, {"messages-per-sec", t.MessagesPerSec}} {
		if r.v < 0 || math.IsNaN(r.v) || math.IsInf(r.v, 0) {
			return inputErrorf(r.field, "%v must be a positive, finite rate", r.v)
		}
	}
	if t.ProduceBytesPerSec > 0 && t.MessagesPerSec > 0 {
		return inputErrorf("messages-per-sec", "give either --produce or --messages-per-sec, not both")
	}
	if t.Message != nil {
		return t.Message.validate()
	}
	return nil
}

func (s Sizing) validate() error {
	for _, r := range []struct {
		field string
		v     float64
	}{{"broker-limit", s.BrokerLimit}, {"partition-throughput", s.PartitionThroughput},
		{"consumer-partition-throughput", s.ConsumerPartitionThroughput}} {
		if r.v < 0 || math.IsNaN(r.v) || math.IsInf(r.v, 0) {
			return inputErrorf(r.field, "%v bytes/s must be a positive, finite rate", r.v)
		}
	}
	if s.ConsumerLatency < 0 {
		return inputErrorf("consumer-latency", "%v is negative", s.ConsumerLatency)
	}
	if s.MaxMapCount < 0 || s.MaxMapCount == 1 {
		return inputErrorf("max-map-count", "%d is too small: a partition needs %d memory maps", s.MaxMapCount, MapsPerPartition)
	}
	return nil
}
