package workload

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/plimsoll/plimsoll/kafkaprops"
	"github.com/plimsoll/plimsoll/units"
)

// MinMessageSize is the smallest message plimsoll can send: every message carries a 24-byte
// stamp at its start, a magic/version word (4 B), the producer id (4 B), the producer's sequence
// number (8 B, for the loss ledger) and the intended send time in ns (8 B, for latency measured
// from the schedule, not from the send call).
const MinMessageSize = 24

// MaxMessageSize caps message-size and payload files. Kafka's default limit is 1 MiB
// (message.max.bytes); 64 MiB leaves room for clusters configured beyond it.
const MaxMessageSize = 64 << 20

// DefaultKeyCount is the number of distinct keys for keyed modes, the same as OMB's 10,000.
const DefaultKeyCount = 10000

// DefaultPartitionsPerBroker is the runner's partition count per topic per broker when the spec
// leaves partitions at 0: ten leaders per broker, as in the Dropbox study.
const DefaultPartitionsPerBroker = 10

// Formats of the file a spec came from.
const (
	FormatPlimsoll = "plimsoll" // plimsoll's own YAML, or flags
	FormatOMB      = "omb"      // an OpenMessaging Benchmark workload (and driver) YAML
)

// Spec says what load to run: topics to create, producers and their rate, message shape,
// consumers, how long to measure, and the Kafka client properties to use. Load, LoadOMB and Set
// fill it; Validate checks it. Copies share the Props maps; use Clone for an independent copy.
type Spec struct {
	Name string `json:"name,omitempty"`

	Topics int `json:"topics"` // topics to create; default 1
	// PartitionsPerTopic is the partition count of each topic; 0 lets the runner choose
	// (PartitionsFor: DefaultPartitionsPerBroker per broker).
	PartitionsPerTopic int `json:"partitions"`
	// ReplicationFactor of each topic; 0 lets the runner choose min(3, brokers) (ReplicationFor).
	ReplicationFactor int `json:"replication-factor"`
	// MinInsyncReplicas is the topics' min.insync.replicas; 0 keeps the broker default.
	MinInsyncReplicas int `json:"min-insync-replicas"`
	// TopicConfig holds further topic configs by Kafka name (retention.ms, ...), e.g. from an OMB
	// driver's topicConfig. min.insync.replicas given here is moved to MinInsyncReplicas.
	TopicConfig kafkaprops.Props `json:"topic-config"`

	Producers int `json:"producers"` // producer clients in total; default 1
	// Rate is the target in messages per second summed over all producers (as OMB's
	// producerRate); 0 sends as fast as the producers go.
	Rate        float64 `json:"rate"`
	MessageSize int     `json:"message-size"` // bytes per message value; default 1024
	Payload     Payload `json:"payload"`
	Keys        KeyMode `json:"keys"`
	// KeyCount is the number of distinct keys cycled (round-robin) or drawn (random) from;
	// default DefaultKeyCount.
	KeyCount int `json:"key-count"`

	// ConsumerGroups is the number of consumer groups, each reading every topic; default 1,
	// 0 runs producers only.
	ConsumerGroups    int `json:"consumer-groups"`
	ConsumersPerGroup int `json:"consumers-per-group"` // consumer clients in each group; default 1

	Duration time.Duration `json:"duration"` // the measured window, after warm-up; default 60s
	Warmup   time.Duration `json:"warmup"`   // load before the window, excluded from figures; default 10s

	ProducerProps kafkaprops.Props `json:"producer-props"` // Kafka producer properties (acks, linger.ms, ...)
	ConsumerProps kafkaprops.Props `json:"consumer-props"` // Kafka consumer properties (fetch.min.bytes, ...)
	CommonProps   kafkaprops.Props `json:"common-props"`   // applied to producers and consumers (OMB commonConfig)

	// BacklogBytes, when > 0, makes the run build a backlog of this many bytes first (consumers
	// paused), then measure consumers draining it while producers go on (OMB's
	// consumerBacklogSizeGB).
	BacklogBytes int64 `json:"backlog"`
	// BacklogDrainRatio is the share of the backlog that must be drained for the drain to count
	// as done, 0..1 (OMB's backlogDrainRatio); default 1.
	BacklogDrainRatio float64 `json:"backlog-drain-ratio"`

	Source string `json:"source,omitempty"` // the file the spec came from; "" for flags
	Driver string `json:"driver,omitempty"` // the OMB driver file applied, if any
	Format string `json:"format"`           // FormatPlimsoll or FormatOMB

	origins map[string]origin // where each field was set, for errors
	notes   []string          // warnings found while loading
	sizeSet bool              // message-size was given explicitly (else a payload file sets it)
}

// origin records where a field was set and under which name the user wrote it.
type origin struct{ pos, key string }

// Default returns the spec that flags start from: one topic, one producer sending 1 KiB
// incompressible messages as fast as it can, one consumer group of one consumer, 10 s warm-up
// and a 60 s window; partitions and replication left to the runner.
func Default() Spec {
	return Spec{
		Topics:            1,
		Producers:         1,
		MessageSize:       1024,
		Payload:           Payload{Kind: PayloadRandom, RandomBytesRatio: 1},
		Keys:              KeysNone,
		KeyCount:          DefaultKeyCount,
		ConsumerGroups:    1,
		ConsumersPerGroup: 1,
		Duration:          60 * time.Second,
		Warmup:            10 * time.Second,
		BacklogDrainRatio: 1,
		Format:            FormatPlimsoll,
	}
}

// Clone returns a deep copy, so the copy's properties can change without touching s.
func (s Spec) Clone() Spec {
	c := s
	c.TopicConfig = s.TopicConfig.Clone()
	c.ProducerProps = s.ProducerProps.Clone()
	c.ConsumerProps = s.ConsumerProps.Clone()
	c.CommonProps = s.CommonProps.Clone()
	c.Payload.Data = append([]byte(nil), s.Payload.Data...)
	c.notes = append([]string(nil), s.notes...)
	c.origins = make(map[string]origin, len(s.origins))
	for k, v := range s.origins {
		c.origins[k] = v
	}
	return c
}

// Consumers is the number of consumer clients in total.
func (s Spec) Consumers() int { return s.ConsumerGroups * s.ConsumersPerGroup }

// TotalPartitions is Topics x PartitionsPerTopic, or 0 while the runner has not chosen.
func (s Spec) TotalPartitions() int { return s.Topics * s.PartitionsPerTopic }

// ByteRate is the target produce rate in bytes of message value per second (0 = unbounded).
func (s Spec) ByteRate() float64 { return s.Rate * float64(s.MessageSize) }

// PartitionsFor returns the partitions per topic on a cluster of brokers brokers.
func (s Spec) PartitionsFor(brokers int) int {
	if s.PartitionsPerTopic > 0 {
		return s.PartitionsPerTopic
	}
	return DefaultPartitionsPerBroker * max(brokers, 1)
}

// ReplicationFor returns the replication factor on a cluster of brokers brokers.
func (s Spec) ReplicationFor(brokers int) int {
	if s.ReplicationFactor > 0 {
		return s.ReplicationFactor
	}
	return max(min(3, brokers), 1)
}

// CheckCluster checks the spec against the cluster it will run on: the replication factor must
// not exceed the brokers, nor min.insync.replicas the replication factor.
func (s Spec) CheckCluster(brokers int) error {
	var errs []error
	rf := s.ReplicationFor(brokers)
	if s.ReplicationFactor > brokers {
		errs = append(errs, s.errf("replication-factor", "%d is more than the %d brokers of the cluster; use at most %d", s.ReplicationFactor, brokers, brokers))
	}
	if s.MinInsyncReplicas > rf {
		errs = append(errs, s.errf("min-insync-replicas", "%d is more than the replication factor %d on this %d-broker cluster, so acks=all writes would fail; use at most %d", s.MinInsyncReplicas, rf, brokers, rf))
	}
	return kafkaprops.JoinErrors(errs)
}

// EffectiveProducerProps returns the common properties that apply to producers with the
// producer properties on top: what a producer client should be configured with.
func (s Spec) EffectiveProducerProps() kafkaprops.Props {
	return s.CommonProps.ForRole(kafkaprops.RoleProducer).Merged(s.ProducerProps)
}

// EffectiveConsumerProps is EffectiveProducerProps for consumers.
func (s Spec) EffectiveConsumerProps() kafkaprops.Props {
	return s.CommonProps.ForRole(kafkaprops.RoleConsumer).Merged(s.ConsumerProps)
}

// KeyBytes is the size of each message key: KeyLen in the keyed modes, 0 without keys.
func (s Spec) KeyBytes() int {
	if s.Keys == KeysNone {
		return 0
	}
	return KeyLen
}

// KeyLen is the length of a message key in the keyed modes: the unpadded base64 of 7 random
// bytes, as OMB's keys.
const KeyLen = 10

// Clients resolves the spec's Kafka properties for its message size (kafkaprops.Resolve): the
// configuration its producers and consumers run with, batch.size included, or the errors
// naming each property that cannot be honoured and where it was set. Validate calls it, so a
// valid spec always resolves.
func (s Spec) Clients() (*kafkaprops.Clients, error) {
	c, err := kafkaprops.Resolve(kafkaprops.Input{
		Producer: s.EffectiveProducerProps(), Consumer: s.EffectiveConsumerProps(),
		MessageBytes: s.MessageSize, KeyBytes: s.KeyBytes(),
	})
	return c, propErr(err)
}

// String summarises the spec in one line for progress output and reports.
func (s Spec) String() string {
	var b strings.Builder
	if s.Name != "" {
		b.WriteString(s.Name + ": ")
	}
	parts := "runner's choice of"
	if s.PartitionsPerTopic > 0 {
		parts = strconv.Itoa(s.PartitionsPerTopic)
	}
	partitions := " partitions"
	if s.PartitionsPerTopic == 1 {
		partitions = " partition"
	}
	fmt.Fprintf(&b, "%s x %s%s", units.Plural(s.Topics, "topic"), parts, partitions)
	rf := "rf auto"
	if s.ReplicationFactor > 0 {
		rf = "rf " + strconv.Itoa(s.ReplicationFactor)
	}
	if s.MinInsyncReplicas > 0 {
		rf += ", min ISR " + strconv.Itoa(s.MinInsyncReplicas)
	}
	fmt.Fprintf(&b, " (%s); %s", rf, units.Plural(s.Producers, "producer"))
	if s.Rate > 0 {
		fmt.Fprintf(&b, " at %s msg/s", strconv.FormatFloat(s.Rate, 'f', -1, 64))
	} else {
		b.WriteString(" as fast as they go")
	}
	fmt.Fprintf(&b, ", %d B %s, keys %s", s.MessageSize, s.Payload, s.Keys)
	if s.ConsumerGroups > 0 {
		fmt.Fprintf(&b, "; %s x %s", units.Plural(s.ConsumerGroups, "group"), units.Plural(s.ConsumersPerGroup, "consumer"))
	} else {
		b.WriteString("; no consumers")
	}
	if s.BacklogBytes > 0 {
		fmt.Fprintf(&b, " draining a %d B backlog", s.BacklogBytes)
	}
	fmt.Fprintf(&b, "; %s after %s warm-up", s.Duration, s.Warmup)
	return b.String()
}

// KeyMode says how messages are keyed.
type KeyMode uint8

const (
	KeysNone       KeyMode = iota // no key: the producer's sticky partitioner spreads batches
	KeysRoundRobin                // cycle through KeyCount keys (OMB KEY_ROUND_ROBIN)
	KeysRandom                    // a random one of KeyCount keys per message (OMB RANDOM_NANO)
)

var keyModeNames = []string{"none", "round-robin", "random"}

func (k KeyMode) String() string {
	if int(k) < len(keyModeNames) {
		return keyModeNames[k]
	}
	return "KeyMode(" + strconv.Itoa(int(k)) + ")"
}

// ParseKeyMode parses none, round-robin or random.
func ParseKeyMode(s string) (KeyMode, error) {
	for i, n := range keyModeNames {
		if s == n {
			return KeyMode(i), nil
		}
	}
	hint := ""
	switch strings.ToUpper(s) {
	case "NO_KEY":
		hint = " (OMB's NO_KEY is none)"
	case "KEY_ROUND_ROBIN":
		hint = " (OMB's KEY_ROUND_ROBIN is round-robin)"
	case "RANDOM_NANO":
		hint = " (OMB's RANDOM_NANO is random)"
	}
	return 0, fmt.Errorf("%q is not a key mode%s; use none, round-robin or random", s, hint)
}

// MarshalText renders the mode by name, for JSON results.
func (k KeyMode) MarshalText() ([]byte, error) { return []byte(k.String()), nil }

// UnmarshalText parses a mode name.
func (k *KeyMode) UnmarshalText(b []byte) error {
	m, err := ParseKeyMode(string(b))
	*k = m
	return err
}

// MarshalJSON writes the spec with durations as text ("5m0s") so results stay readable.
func (s Spec) MarshalJSON() ([]byte, error) {
	type plain Spec // drops the methods, so no recursion
	return json.Marshal(struct {
		plain
		Duration string `json:"duration"`
		Warmup   string `json:"warmup"`
	}{plain(s), s.Duration.String(), s.Warmup.String()})
}

// UnmarshalJSON reads what MarshalJSON writes (secret property values stay hidden).
func (s *Spec) UnmarshalJSON(data []byte) error { return s.decodeJSON(data, false) }

// DecodeJSONStrict reads what MarshalJSON writes, refusing a field Spec does not have (at any
// depth but the property maps, whose keys are Kafka's) and anything after the object: for
// specs handed between plimsoll processes, where an unknown field means another version.
func DecodeJSONStrict(data []byte) (Spec, error) {
	var s Spec
	err := s.decodeJSON(data, true)
	return s, err
}

func (s *Spec) decodeJSON(data []byte, strict bool) error {
	type plain Spec
	aux := struct {
		*plain
		Duration string `json:"duration"`
		Warmup   string `json:"warmup"`
	}{plain: (*plain)(s)}
	dec := json.NewDecoder(bytes.NewReader(data))
	if strict {
		dec.DisallowUnknownFields()
	}
	if err := dec.Decode(&aux); err != nil {
		return err
	}
	if _, err := dec.Token(); strict && err != io.EOF {
		return fmt.Errorf("%w: data after the workload object", ErrInvalid)
	}
	var err error
	if s.Duration, err = time.ParseDuration(aux.Duration); err != nil {
		return fmt.Errorf("%w: duration: %v", ErrInvalid, err)
	}
	if s.Warmup, err = time.ParseDuration(aux.Warmup); err != nil {
		return fmt.Errorf("%w: warmup: %v", ErrInvalid, err)
	}
	return nil
}
