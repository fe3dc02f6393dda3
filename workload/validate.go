package workload

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/plimsoll/plimsoll/kafkaprops"
)

// maxByteRate bounds the target rate: beyond 1 TB/s a value is a typo, not a plan.
const maxByteRate = 1e12

// Record overheads (Kafka's DefaultRecordBatch and DefaultRecord, v2): a batch header of 61
// bytes, at most 21 bytes per record beyond key and value.
const (
	batchOverhead  = 61
	recordOverhead = 21
)

// errf builds a FieldError for field (a flag name), placed where the field was set.
func (s Spec) errf(field, format string, args ...any) *FieldError {
	fe := &FieldError{Field: field, Flag: field, Msg: fmt.Sprintf(format, args...)}
	if o, ok := s.origins[field]; ok {
		fe.Pos, fe.Field = o.pos, o.key
	}
	return fe
}

// Validate checks every field and returns all problems at once (joined), each naming the field
// as the user wrote it (YAML key with file:line, OMB key or flag) and the fix. Every error
// wraps ErrInvalid. Problems that do not stop a run are in Warnings.
func (s Spec) Validate() error {
	var errs []error
	add := func(field, format string, args ...any) { errs = append(errs, s.errf(field, format, args...)) }

	if s.Format != FormatPlimsoll && s.Format != FormatOMB {
		errs = append(errs, &FieldError{Field: "format", Msg: fmt.Sprintf("%q is not a workload format; use %q or %q", s.Format, FormatPlimsoll, FormatOMB)})
	}
	if s.Topics < 1 {
		add("topics", "%d topics; at least 1 is needed", s.Topics)
	}
	if s.PartitionsPerTopic < 0 {
		add("partitions", "%d is negative; use 1 or more, or 0 to let the runner choose (%d per broker)", s.PartitionsPerTopic, DefaultPartitionsPerBroker)
	}
	switch {
	case s.ReplicationFactor < 0:
		add("replication-factor", "%d is negative; use 1 or more, or 0 for min(3, brokers)", s.ReplicationFactor)
	case s.MinInsyncReplicas < 0:
		add("min-insync-replicas", "%d is negative; use 1 or more, or 0 for the broker default", s.MinInsyncReplicas)
	case s.ReplicationFactor > 0 && s.MinInsyncReplicas > s.ReplicationFactor:
		add("min-insync-replicas", "%d is more than %s %d, so every acks=all write would fail with NOT_ENOUGH_REPLICAS; use at most %d", s.MinInsyncReplicas, s.key("replication-factor"), s.ReplicationFactor, s.ReplicationFactor)
	case s.ReplicationFactor == 0 && s.MinInsyncReplicas > 3:
		add("min-insync-replicas", "%d is more than the replication factor the runner chooses (at most 3); set %s too", s.MinInsyncReplicas, s.key("replication-factor"))
	}
	if s.Producers < 1 {
		add("producers", "%d producers; at least 1 is needed", s.Producers)
	}
	s.validateRate(add)
	s.validateMessage(add)
	if s.ConsumerGroups < 0 {
		add("consumer-groups", "%d is negative; use 0 to only produce, or 1 or more", s.ConsumerGroups)
	} else if s.ConsumerGroups > 0 && s.ConsumersPerGroup < 1 {
		add("consumers-per-group", "%d consumers per group; use at least 1 (or %s 0 to only produce)", s.ConsumersPerGroup, s.key("consumer-groups"))
	}
	if s.Duration <= 0 {
		if s.key("duration") == "testDurationMinutes" {
			add("duration", "%d minutes; the measured window needs at least 1", int(s.Duration.Minutes()))
		} else {
			add("duration", "%s is not a positive window; give e.g. 60s or 5m", s.Duration)
		}
	}
	if s.Warmup < 0 {
		add("warmup", "%s is negative; use 0 for no warm-up, or e.g. 30s", s.Warmup)
	}
	s.validateBacklog(add)

	errs = append(errs, s.validateProps()...)
	return kafkaprops.JoinErrors(flatten(errs))
}

// roleProps pairs each set of properties with the client it configures.
func (s Spec) roleProps() []struct {
	p    kafkaprops.Props
	role kafkaprops.Role
} {
	return []struct {
		p    kafkaprops.Props
		role kafkaprops.Role
	}{{s.ProducerProps, kafkaprops.RoleProducer}, {s.ConsumerProps, kafkaprops.RoleConsumer},
		{s.CommonProps, kafkaprops.RoleCommon}, {s.TopicConfig, kafkaprops.RoleTopic}}
}

// validateProps checks every property's name and value, that messages fit the producer's
// requests and the topics' batches, and then resolves the client configuration as the load
// generator will (Clients): what passes here, runs.
func (s Spec) validateProps() []error {
	var errs []error
	for _, ps := range s.roleProps() {
		if _, err := ps.p.Check(ps.role); err != nil {
			errs = append(errs, propErr(err))
		}
	}
	if len(errs) > 0 {
		return errs
	}
	if errs = s.messageFits(); len(errs) > 0 {
		return errs // Clients would report the same records as too large
	}
	if _, err := s.Clients(); err != nil {
		return []error{err}
	}
	return nil
}

func (s Spec) validateRate(add func(string, string, ...any)) {
	switch {
	case math.IsNaN(s.Rate) || math.IsInf(s.Rate, 0):
		add("rate", "%v is not a rate; give messages/s, or 0 to send as fast as the producers go", s.Rate)
	case s.Rate < 0:
		add("rate", "%s is negative; give messages/s, or 0 to send as fast as the producers go", fmtF(s.Rate))
	case s.Rate > 0 && s.Duration > 0 && s.Rate*s.Duration.Seconds() < 1:
		add("rate", "at %s msg/s not one message would be sent in the %s window; raise the rate or the duration", fmtF(s.Rate), s.Duration)
	case s.Rate*float64(max(s.MessageSize, 1)) > maxByteRate:
		add("rate", "%s msg/s of %d B is over 1 TB/s, beyond any cluster; check for a typo (rate counts messages, not bytes)", fmtF(s.Rate), s.MessageSize)
	}
}

func (s Spec) validateMessage(add func(string, string, ...any)) {
	switch {
	case s.MessageSize < MinMessageSize:
		add("message-size", "%d B is below %d B, the stamp every message carries (version, producer id, sequence, intended send time); use at least %d", s.MessageSize, MinMessageSize, MinMessageSize)
	case s.MessageSize > MaxMessageSize:
		add("message-size", "%d B is over plimsoll's %d B limit", s.MessageSize, MaxMessageSize)
	}
	p := s.Payload
	switch p.Kind {
	case PayloadRandom:
		if math.IsNaN(p.RandomBytesRatio) || p.RandomBytesRatio < 0 || p.RandomBytesRatio > 1 {
			add("payload", "random-bytes ratio %v must be from 0 to 1 (1 = incompressible)", p.RandomBytesRatio)
		}
		if p.PoolSize < 0 {
			add("payload", "payload pool size %d is negative; use 0 to let plimsoll choose", p.PoolSize)
		}
	case PayloadText:
	case PayloadFile:
		switch {
		case len(p.Data) == 0:
			add("payload", "payload file %s holds no data (load it with ParsePayload); a file payload needs its bytes", p.Path)
		case len(p.Data) != s.MessageSize && s.Format == FormatOMB:
			add("message-size", "%d B, but payload file %s holds %d B; set it to %d (OMB refuses a mismatch too)", s.MessageSize, p.Path, len(p.Data), len(p.Data))
		case len(p.Data) != s.MessageSize:
			add("message-size", "%d B, but payload file %s holds %d B; make them equal or leave message-size out so it follows the file", s.MessageSize, p.Path, len(p.Data))
		}
	default:
		add("payload", "kind %d is not a payload kind; use random, text or file", p.Kind)
	}
	if s.Keys > KeysRandom {
		add("keys", "%s is not a key mode; use none, round-robin or random", s.Keys)
	} else if s.Keys != KeysNone && s.KeyCount < 1 {
		add("key-count", "%d keys; %s keys need at least 1 (OMB uses %d)", s.KeyCount, s.Keys, DefaultKeyCount)
	}
}

func (s Spec) validateBacklog(add func(string, string, ...any)) {
	if math.IsNaN(s.BacklogDrainRatio) || s.BacklogDrainRatio < 0 || s.BacklogDrainRatio > 1 {
		add("backlog-drain-ratio", "%v must be from 0 to 1 (1 = drain all of it)", s.BacklogDrainRatio)
	}
	switch {
	case s.BacklogBytes < 0:
		add("backlog", "%d B is negative; use 0 for no backlog, or e.g. 1GB", s.BacklogBytes)
	case s.BacklogBytes == 0:
	case s.ConsumerGroups < 1:
		add("backlog", "a backlog needs consumers to drain it; set %s to 1 or more, or drop the backlog", s.key("consumer-groups"))
	case s.Rate <= 0:
		add("backlog", "a backlog needs a fixed rate: producers going flat out leave consumers nothing to catch up with; set %s (OMB refuses this too)", s.key("rate"))
	case s.BacklogBytes < int64(s.MessageSize):
		add("backlog", "%d B is less than one %d B message; use 0 for none or a larger size", s.BacklogBytes, s.MessageSize)
	}
}

// messageFits catches messages no producer could send: larger than max.request.size allows,
// or than the topics' max.message.bytes.
func (s Spec) messageFits() []error {
	if s.MessageSize < MinMessageSize {
		return nil
	}
	var errs []error
	need := s.MessageSize + batchOverhead + recordOverhead + s.KeyBytes()
	maxReq, origin := propValue(s.EffectiveProducerProps(), "max.request.size")
	if int64(need) > maxReq {
		errs = append(errs, s.errf("message-size", "%d B messages make %d B requests, over max.request.size %d (%s); raise max.request.size in producer-props", s.MessageSize, need, maxReq, origin))
	}
	if p, ok := s.TopicConfig.Lookup("max.message.bytes"); ok {
		if n, err := strconv.ParseInt(strings.TrimSpace(p.Value), 10, 64); err == nil && int64(need) > n {
			errs = append(errs, s.errf("message-size", "%d B messages make %d B batches, over the topic's max.message.bytes %d (%s); raise it", s.MessageSize, need, n, where(p)))
		}
	}
	return errs
}

// propValue is a numeric property's value and where it came from: the user's, or Kafka's
// default ("the default").
func propValue(props kafkaprops.Props, key string) (int64, string) {
	if p, ok := props.Lookup(key); ok {
		if n, err := strconv.ParseInt(strings.TrimSpace(p.Value), 10, 64); err == nil {
			return n, where(p)
		}
	}
	d, _ := kafkaprops.Lookup(key)
	n, _ := strconv.ParseInt(d.Default, 10, 64)
	return n, "the default"
}

// where places a property for a message: its origin, or its name.
func where(p kafkaprops.Prop) string {
	if p.Origin == "" {
		return p.Key
	}
	return p.Origin
}

// Warnings returns problems that do not stop a run but change what it measures, and settings
// that were ignored, each as one line naming where it came from.
func (s Spec) Warnings() []string {
	w := append([]string(nil), s.notes...)
	for _, ps := range s.roleProps() {
		for _, ig := range ps.p.Ignored() {
			w = append(w, fmt.Sprintf("%s: %s is ignored: %s", whereIn(ig, ps.role), ig.Key, kafkaprops.OwnedReason(ig.Key)))
		}
		pw, _ := ps.p.Check(ps.role)
		w = append(w, pw...)
	}
	if total := s.TotalPartitions(); total > 0 && s.ConsumerGroups > 0 && s.ConsumersPerGroup > total {
		w = append(w, fmt.Sprintf("%s: %d consumers per group but only %d partitions in all; %d consumers of each group will sit idle",
			s.label("consumers-per-group"), s.ConsumersPerGroup, total, s.ConsumersPerGroup-total))
	}
	if s.MinInsyncReplicas > 0 {
		if acks, ok := s.EffectiveProducerProps().Lookup("acks"); ok && acks.Value != "all" && acks.Value != "-1" {
			w = append(w, fmt.Sprintf("%s: min.insync.replicas %d only matters with acks=all, but acks=%s (%s)", s.label("min-insync-replicas"), s.MinInsyncReplicas, acks.Value, where(acks)))
		}
	}
	if s.Warmup == 0 && s.Duration > 0 {
		w = append(w, fmt.Sprintf("%s: no warm-up; connection set-up and the brokers' first seconds count in the figures", s.label("warmup")))
	}
	if s.BacklogBytes > 0 && s.Rate > 0 && s.MessageSize > 0 {
		build := time.Duration(float64(s.BacklogBytes) / s.ByteRate() * float64(time.Second))
		if build > time.Hour || build < 0 {
			w = append(w, fmt.Sprintf("%s: building %d B at %s msg/s of %d B takes about %s before the drain starts", s.label("backlog"), s.BacklogBytes, fmtF(s.Rate), s.MessageSize, build.Round(time.Minute)))
		}
	}
	return w
}

// whereIn places a property for a warning: its origin, or the section it sits in.
func whereIn(p kafkaprops.Prop, r kafkaprops.Role) string {
	if p.Origin == "" {
		return r.Section()
	}
	return p.Origin
}

// key names a field as the user wrote it (an OMB key, a YAML key or the flag name).
func (s Spec) key(field string) string {
	if o, ok := s.origins[field]; ok && !strings.HasPrefix(o.pos, "--") {
		return o.key
	}
	return field
}

// label names a field as the user wrote it, with its position when known.
func (s Spec) label(field string) string {
	if o, ok := s.origins[field]; ok {
		if strings.HasPrefix(o.pos, "--") {
			return o.pos
		}
		return o.pos + ": " + o.key
	}
	return field
}

// flatten spreads joined errors so the result is one flat list.
func flatten(errs []error) []error {
	var out []error
	for _, e := range errs {
		if j, ok := e.(interface{ Unwrap() []error }); ok {
			_, isField := e.(*FieldError)
			_, isProp := e.(*kafkaprops.Error)
			if !isField && !isProp {
				out = append(out, j.Unwrap()...)
				continue
			}
		}
		if e != nil {
			out = append(out, e)
		}
	}
	return out
}

func fmtF(f float64) string { return strconv.FormatFloat(f, 'f', -1, 64) }
