package kafkaprops

import (
	"math"
	"slices"
	"strings"
	"time"
)

// Consumer is the resolved configuration of a consumer: every value Opts maps to franz-go.
type Consumer struct {
	FetchMinBytes          int32         `json:"fetch_min_bytes"`
	FetchMaxBytes          int32         `json:"fetch_max_bytes"`
	MaxPartitionFetchBytes int32         `json:"max_partition_fetch_bytes"`
	FetchMaxWait           time.Duration `json:"fetch_max_wait"`

	SessionTimeout     time.Duration `json:"session_timeout"`
	HeartbeatInterval  time.Duration `json:"heartbeat_interval"`
	RebalanceTimeout   time.Duration `json:"rebalance_timeout"` // max.poll.interval.ms
	AutoCommit         bool          `json:"auto_commit"`
	AutoCommitInterval time.Duration `json:"auto_commit_interval"`
	Assignors          []string      `json:"assignors"`         // partition.assignment.strategy, in order
	ServerAssignment   bool          `json:"server_assignment"` // group.protocol=consumer (KIP-848)

	ResetOffset   string `json:"reset_offset"` // earliest, latest or none
	ReadCommitted bool   `json:"read_committed"`
	CheckCRCs     bool   `json:"check_crcs"`
	ClientID      string `json:"client_id,omitempty"`
	Rack          string `json:"rack,omitempty"`

	RequestTimeoutOverhead time.Duration `json:"request_timeout_overhead"` // request.timeout.ms, within franz-go's bounds
	RetryTimeout           time.Duration `json:"retry_timeout"`            // default.api.timeout.ms
	MetadataMaxAge         time.Duration `json:"metadata_max_age"`
	ConnIdle               time.Duration `json:"conn_idle"`
	RetryBackoff           time.Duration `json:"retry_backoff"`
	RetryBackoffMax        time.Duration `json:"retry_backoff_max"`
	// PollLimit is max.poll.records when the user sets it, else 0: each poll takes whatever is
	// buffered.
	PollLimit int `json:"poll_limit"`

	// Record is what a result records: every property in force, and how it was translated.
	Record ClientProps `json:"-"`
}

// ResolveConsumer resolves a consumer's properties; see Resolve.
func ResolveConsumer(props Props) (*Consumer, error) {
	c := &Consumer{}
	rec, err := resolveWith(RoleConsumer, props, func(r *resolved) {
		consumeFetch(r, c)
		consumeGroup(r, c)
		consumeAssignors(r, c)
		consumeOffsets(r, c)
		consumeClient(r, c)
	})
	if err != nil {
		return nil, err
	}
	c.Record = rec
	return c, nil
}

func consumeFetch(r *resolved, c *Consumer) {
	for _, k := range []string{"fetch.max.bytes", "max.partition.fetch.bytes"} {
		if r.set[k] {
			r.goLimit(k, 1, 1<<30, "it reads at most 1 GiB per response")
		}
	}
	if r.set["fetch.max.wait.ms"] {
		r.goLimit("fetch.max.wait.ms", 10, math.MaxInt32, "it asks brokers to wait at least 10 ms")
	}
	c.FetchMinBytes = int32(r.int("fetch.min.bytes"))
	c.FetchMaxBytes = int32(r.int("fetch.max.bytes"))
	c.MaxPartitionFetchBytes = int32(r.int("max.partition.fetch.bytes"))
	c.FetchMaxWait = r.ms("fetch.max.wait.ms")
}

// consumeGroup: the heartbeat must come more often than the session times out (Kafka's
// rule; franz-go's is the same bound).
func consumeGroup(r *resolved, c *Consumer) {
	for _, k := range []string{"session.timeout.ms", "max.poll.interval.ms"} {
		if r.set[k] {
			r.goLimit(k, 100, math.MaxInt32, "its group timeouts are at least 100 ms")
		}
	}
	c.SessionTimeout, c.HeartbeatInterval = r.ms("session.timeout.ms"), r.ms("heartbeat.interval.ms")
	if c.HeartbeatInterval >= c.SessionTimeout {
		k := "heartbeat.interval.ms"
		if !r.set[k] {
			k = "session.timeout.ms"
		}
		r.fail(k, "heartbeat.interval.ms %d must be below session.timeout.ms %d, as Kafka requires", r.int("heartbeat.interval.ms"), r.int("session.timeout.ms"))
	}
	c.RebalanceTimeout = r.ms("max.poll.interval.ms")
	c.AutoCommit = r.bool("enable.auto.commit")
	if c.AutoCommit && r.set["auto.commit.interval.ms"] {
		r.goLimit("auto.commit.interval.ms", 100, math.MaxInt32, "it commits at most every 100 ms")
	}
	c.AutoCommitInterval = r.ms("auto.commit.interval.ms")
	if r.str("group.protocol") == "consumer" {
		c.ServerAssignment = true
		r.note("group.protocol=consumer: KIP-848 server-side assignment when the brokers support it")
	}
}

// assignors are the Java client's assignors, as partition.assignment.strategy names them.
var assignors = []string{
	"org.apache.kafka.clients.consumer.RangeAssignor",
	"org.apache.kafka.clients.consumer.RoundRobinAssignor",
	"org.apache.kafka.clients.consumer.StickyAssignor",
	"org.apache.kafka.clients.consumer.CooperativeStickyAssignor",
}

func consumeAssignors(r *resolved, c *Consumer) {
	const k = "partition.assignment.strategy"
	for _, name := range strings.Split(r.str(k), ",") {
		switch name = strings.TrimSpace(name); {
		case name == "":
		case !slices.Contains(assignors, name):
			r.fail(k, "partition.assignment.strategy %q: use RangeAssignor, RoundRobinAssignor, StickyAssignor or CooperativeStickyAssignor (org.apache.kafka.clients.consumer.*)", name)
		default:
			c.Assignors = append(c.Assignors, name)
		}
	}
	if len(c.Assignors) == 0 && len(r.errs) == 0 {
		r.fail(k, "partition.assignment.strategy is empty")
	}
}

// consumeOffsets: plimsoll's consumers start at the earliest offset unless told otherwise
// (plimsollDefaults).
func consumeOffsets(r *resolved, c *Consumer) {
	const k = "auto.offset.reset"
	c.ResetOffset = r.str(k)
	switch {
	case strings.HasPrefix(c.ResetOffset, "by_duration:"):
		r.fail(k, "%q: plimsoll's consumers take earliest, latest, none (by_duration: is not supported)", c.ResetOffset)
	case !r.set[k]:
		r.note("auto.offset.reset=earliest: plimsoll's default (Kafka's is %s): the run's topics start empty, so nothing produced before the first fetch is skipped", clientIndex[k].Default)
	}
	c.ReadCommitted = r.str("isolation.level") == "read_committed"
}

// consumeClient: Kafka's request.timeout.ms is franz-go's request timeout overhead, which
// franz-go bounds to 100 ms .. 15 min; a value outside is brought within, with a note (an OMB
// driver raises it to 20 minutes).
func consumeClient(r *resolved, c *Consumer) {
	c.CheckCRCs, c.ClientID, c.Rack = r.bool("check.crcs"), r.str("client.id"), r.str("client.rack")
	if len(c.ClientID) > 256 {
		r.fail("client.id", "is %d bytes; plimsoll's Go client (franz-go) takes at most 256", len(c.ClientID))
	}
	if len(c.Rack) > 512 {
		r.fail("client.rack", "is %d bytes; plimsoll's Go client (franz-go) takes at most 512", len(c.Rack))
	}
	rt := r.ms("request.timeout.ms")
	c.RequestTimeoutOverhead = min(max(rt, 100*time.Millisecond), 15*time.Minute)
	if c.RequestTimeoutOverhead != rt {
		r.note("request.timeout.ms=%d: franz-go bounds its request timeout overhead to 100 ms .. 15 min, so consumers use %s", r.int("request.timeout.ms"), c.RequestTimeoutOverhead)
	}
	c.RetryTimeout = r.ms("default.api.timeout.ms")
	c.MetadataMaxAge, c.ConnIdle = clientAges(r)
	c.RetryBackoff, c.RetryBackoffMax = r.ms("retry.backoff.ms"), r.ms("retry.backoff.max.ms")
	if r.set["max.poll.records"] {
		c.PollLimit = int(r.int("max.poll.records"))
	} else {
		delete(r.vals, "max.poll.records")
		r.note("max.poll.records: not set, so each poll takes every buffered record (Java polls %s at a time)", clientIndex["max.poll.records"].Default)
	}
}
