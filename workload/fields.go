package workload

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/plimsoll/plimsoll/kafkaprops"
	"github.com/plimsoll/plimsoll/units"
)

// Field describes one setting of a spec as both a flag and a YAML key, so the CLI can register
// its flags from this list and the file and flags can never drift apart.
type Field struct {
	Flag       string // flag name without dashes, e.g. "rate"
	YAML       string // key in plimsoll's YAML (a map for the repeatable property flags)
	Usage      string // one-line help
	Default    string // the default as text, "" if none
	Repeatable bool   // the flag may be given many times (key=value properties)
}

// setter parses one value into the spec. dir resolves relative paths; pos is where the value
// came from ("f.yaml:3" or "--rate").
type setter func(s *Spec, v, dir, pos string) error

type fieldDef struct {
	Field
	set setter
}

var fieldDefs = []fieldDef{
	{Field{"name", "name", "a name for the workload, shown in reports", "", false},
		func(s *Spec, v, _, _ string) error { s.Name = v; return nil }},
	{Field{"topics", "topics", "number of topics to create", "1", false}, intSetter(func(s *Spec) *int { return &s.Topics })},
	{Field{"partitions", "partitions", "partitions per topic; 0 = 10 per broker", "0", false}, intSetter(func(s *Spec) *int { return &s.PartitionsPerTopic })},
	{Field{"replication-factor", "replication-factor", "replicas of each partition; 0 = min(3, brokers)", "0", false}, intSetter(func(s *Spec) *int { return &s.ReplicationFactor })},
	{Field{"min-insync-replicas", "min-insync-replicas", "the topics' min.insync.replicas; 0 = broker default", "0", false},
		func(s *Spec, v, _, pos string) error {
			n, err := parseInt(v)
			if err != nil {
				return err
			}
			if o, ok := s.origins["min-insync-replicas"]; ok && o.key == "min.insync.replicas" && n != s.MinInsyncReplicas && sameSource(o.pos, pos) {
				return fmt.Errorf("%d conflicts with min.insync.replicas %d in topic config at %s; give it once", n, s.MinInsyncReplicas, o.pos)
			}
			s.MinInsyncReplicas = n
			return nil
		}},
	{Field{"producers", "producers", "producer clients in total", "1", false}, intSetter(func(s *Spec) *int { return &s.Producers })},
	{Field{"rate", "rate", "messages/s summed over all producers, e.g. 50000 or 50k; 0 = as fast as the producers go", "0", false},
		assign(parseRate, func(s *Spec, r float64) { s.Rate = r })},
	{Field{"message-size", "message-size", "bytes per message, e.g. 1024 or 1KiB (at least 24, the stamp)", "1024", false},
		assign(ParseSize, func(s *Spec, n int) { s.MessageSize, s.sizeSet = n, true })},
	{Field{"payload", "payload", "random (incompressible), random:RATIO, text (compressible) or file:PATH", "random", false},
		func(s *Spec, v, dir, _ string) error {
			p, err := ParsePayload(v, dir)
			if err != nil {
				return err
			}
			s.Payload = p
			if p.Kind == PayloadFile && !s.sizeSet {
				s.MessageSize = len(p.Data)
			}
			return nil
		}},
	{Field{"keys", "keys", "message keys: none, round-robin or random", "none", false},
		assign(ParseKeyMode, func(s *Spec, k KeyMode) { s.Keys = k })},
	{Field{"key-count", "key-count", "distinct keys for round-robin and random keys", strconv.Itoa(DefaultKeyCount), false}, intSetter(func(s *Spec) *int { return &s.KeyCount })},
	{Field{"consumer-groups", "consumer-groups", "consumer groups, each reading every topic; 0 = produce only", "1", false}, intSetter(func(s *Spec) *int { return &s.ConsumerGroups })},
	{Field{"consumers-per-group", "consumers-per-group", "consumer clients in each group", "1", false}, intSetter(func(s *Spec) *int { return &s.ConsumersPerGroup })},
	{Field{"duration", "duration", "the measured window after warm-up, e.g. 60s or 5m", "1m0s", false}, durSetter(func(s *Spec) *time.Duration { return &s.Duration })},
	{Field{"warmup", "warmup", "load before the window, excluded from every figure", "10s", false}, durSetter(func(s *Spec) *time.Duration { return &s.Warmup })},
	{Field{"backlog", "backlog", "build a backlog of this size first (e.g. 1GB), then measure consumers draining it while producers go on", "0", false},
		assign(parseBacklog, func(s *Spec, n int64) { s.BacklogBytes = n })},
	{Field{"backlog-drain-ratio", "backlog-drain-ratio", "share of the backlog that must drain, 0..1", "1", false},
		assign(parseFloat, func(s *Spec, f float64) { s.BacklogDrainRatio = f })},
	{Field{"producer-prop", "producer-props", "Kafka producer property key=value (acks, linger.ms, batch.size, compression.type, ...)", "", true},
		propSetter(kafkaprops.RoleProducer)},
	{Field{"consumer-prop", "consumer-props", "Kafka consumer property key=value (fetch.min.bytes, max.poll.records, ...)", "", true},
		propSetter(kafkaprops.RoleConsumer)},
	{Field{"common-prop", "common-props", "Kafka property key=value for producers and consumers (security.protocol, ...)", "", true},
		propSetter(kafkaprops.RoleCommon)},
	{Field{"topic-config", "topic-config", "topic config key=value for the created topics (retention.ms, ...)", "", true},
		propSetter(kafkaprops.RoleTopic)},
	{Field{"producer.config", "producer.config", "a Kafka producer .properties file; producer-prop values win over it", "", false},
		configSetter(kafkaprops.RoleProducer)},
	{Field{"consumer.config", "consumer.config", "a Kafka consumer .properties file; consumer-prop values win over it", "", false},
		configSetter(kafkaprops.RoleConsumer)},
}

// Fields lists every setting in flag order, for the CLI to register flags from.
func Fields() []Field {
	out := make([]Field, len(fieldDefs))
	for i, d := range fieldDefs {
		out[i] = d.Field
	}
	return out
}

func lookupField(name string) (fieldDef, bool) {
	for _, d := range fieldDefs {
		if d.Flag == name || d.YAML == name {
			return d, true
		}
	}
	return fieldDef{}, false
}

// Set sets one field from its flag value, as the CLI does for each flag the user gave: name is
// the flag name ("rate", "producer-prop", "producer.config"), value its text. Repeatable fields
// add one key=value per call. Paths are relative to the working directory. Errors name the flag
// and wrap ErrInvalid; ranges are checked later by Validate.
func (s *Spec) Set(name, value string) error {
	d, ok := lookupField(name)
	if !ok {
		return &FieldError{Pos: "--" + name, Msg: "not a workload setting", Err: ErrUnknownField}
	}
	return s.setField(d, value, "", "--"+d.Flag, d.Flag)
}

// setField applies d and records where the value came from; key is the name the user wrote.
func (s *Spec) setField(d fieldDef, value, dir, pos, key string) error {
	if err := d.set(s, value, dir, pos); err != nil {
		if errors.Is(err, ErrInvalid) {
			return err // placed already (a properties file's lines)
		}
		return &FieldError{Pos: pos, Field: key, Flag: d.Flag, Msg: err.Error(), Err: unwrapCause(err)}
	}
	s.setOrigin(d.Flag, pos, key)
	return nil
}

func (s *Spec) setOrigin(field, pos, key string) {
	if s.origins == nil {
		s.origins = make(map[string]origin)
	}
	s.origins[field] = origin{pos: pos, key: key}
}

// unwrapCause keeps an underlying cause (an fs error) reachable through the FieldError.
func unwrapCause(err error) error {
	type unwrapper interface{ Unwrap() error }
	if u, ok := err.(unwrapper); ok {
		return u.Unwrap()
	}
	return nil
}

// assign makes a setter that parses the value and stores it only if it parsed, so a bad value
// leaves the field as it was.
func assign[T any](parse func(string) (T, error), store func(*Spec, T)) setter {
	return func(s *Spec, v, _, _ string) error {
		x, err := parse(v)
		if err == nil {
			store(s, x)
		}
		return err
	}
}

func intSetter(field func(*Spec) *int) setter {
	return assign(parseInt, func(s *Spec, n int) { *field(s) = n })
}

func durSetter(field func(*Spec) *time.Duration) setter {
	return assign(parseDuration, func(s *Spec, d time.Duration) { *field(s) = d })
}

func propSetter(role kafkaprops.Role) setter {
	return func(s *Spec, v, _, pos string) error {
		k, val, err := kafkaprops.ParseKeyValue(v)
		if err != nil {
			return fmt.Errorf("%q is not key=value (write a Kafka property, e.g. %s)", v, strings.SplitN(role.Example(), ",", 2)[0]+"=...")
		}
		return s.addProp(role, k, val, pos, false)
	}
}

// addProp sets one property as it is read, refusing at once a name plimsoll does not know or a
// property its clients cannot honour (kafkaprops.Admit); values are checked in full by
// Validate. min.insync.replicas in topic config becomes MinInsyncReplicas so the replication
// checks see it.
func (s *Spec) addProp(role kafkaprops.Role, key, value, pos string, weak bool) error {
	key = strings.TrimSpace(key)
	if role == kafkaprops.RoleTopic && key == "min.insync.replicas" {
		return s.setMinISR(key, value, pos)
	}
	if kafkaprops.OwnedReason(key) == "" {
		if err := kafkaprops.Admit(role, kafkaprops.Prop{Key: key, Value: value, Origin: pos}); err != nil {
			return propErr(err)
		}
	}
	if err := s.props(role).SetAt(key, value, pos, weak); err != nil {
		return &FieldError{Pos: pos, Field: key, Flag: role.Flag(), Msg: err.Error()}
	}
	return nil
}

func (s *Spec) setMinISR(key, value, pos string) error {
	flag := kafkaprops.RoleTopic.Flag()
	n, err := parseInt(value)
	if err != nil {
		return &FieldError{Pos: pos, Field: key, Flag: flag, Msg: err.Error()}
	}
	if o, ok := s.origins["min-insync-replicas"]; ok && s.MinInsyncReplicas != n && sameSource(o.pos, pos) {
		return &FieldError{Pos: pos, Field: key, Flag: flag,
			Msg: fmt.Sprintf("%d conflicts with %s %d set at %s; give it once", n, o.key, s.MinInsyncReplicas, o.pos)}
	}
	s.MinInsyncReplicas = n
	s.setOrigin("min-insync-replicas", pos, key)
	return nil
}

// sameSource reports whether two positions are both flags or both files: a flag overrides a
// file, but two settings of one source that disagree are a mistake.
func sameSource(a, b string) bool { return strings.HasPrefix(a, "--") == strings.HasPrefix(b, "--") }

func (s *Spec) props(role kafkaprops.Role) *kafkaprops.Props {
	switch role {
	case kafkaprops.RoleProducer:
		return &s.ProducerProps
	case kafkaprops.RoleConsumer:
		return &s.ConsumerProps
	case kafkaprops.RoleCommon:
		return &s.CommonProps
	}
	return &s.TopicConfig
}

// configSetter reads a Kafka .properties file (--producer.config): every line is checked as
// it is read and all problems are reported, each at its FILE:LINE.
func configSetter(role kafkaprops.Role) setter {
	return func(s *Spec, v, dir, _ string) error {
		path := resolvePath(v, dir)
		data, err := kafkaprops.ReadFile(path)
		if err != nil {
			return fmt.Errorf("cannot read %s properties file %s: %w", role, path, err)
		}
		var p kafkaprops.Props
		if err := kafkaprops.ParseInto(&p, string(data), path, 1, true); err != nil {
			return propErr(err)
		}
		var errs []error
		for prop := range p.All() {
			if err := s.addProp(role, prop.Key, prop.Value, prop.Origin, true); err != nil {
				errs = append(errs, err)
			}
		}
		s.props(role).AddIgnored(p.Ignored()...)
		return kafkaprops.JoinErrors(errs)
	}
}

// parseInt parses a whole number; underscores may group digits (1_000).
func parseInt(v string) (int, error) {
	t := strings.ReplaceAll(strings.TrimSpace(v), "_", "")
	n, err := strconv.ParseInt(t, 10, 32)
	if err != nil {
		if ne, ok := err.(*strconv.NumError); ok && ne.Err == strconv.ErrRange {
			return 0, fmt.Errorf("%q is too large", v)
		}
		return 0, fmt.Errorf("%q is not a whole number", v)
	}
	return int(n), nil
}

func parseFloat(v string) (float64, error) {
	f, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
	if err != nil || math.IsNaN(f) || math.IsInf(f, 0) {
		return 0, fmt.Errorf("%q is not a number", v)
	}
	return f, nil
}

// parseRate parses messages per second: 50000, 50k, 1.5M, 2e5, optionally with /s or msg/s
// (units.ParseCount), refusing what looks like bytes.
func parseRate(v string) (float64, error) {
	f, err := units.ParseCount(v)
	switch {
	case err != nil && strings.ContainsAny(v, "Bb"):
		return 0, fmt.Errorf("%q looks like bytes; rate is in messages per second (message-size sets the bytes)", v)
	case err != nil:
		return 0, fmt.Errorf("%q is not a rate; write messages per second, e.g. 50000 or 50k", v)
	}
	return f, nil
}

// ParseSize parses a byte count such as 1024, 1KiB or 1KB into an int, as --message-size does.
func ParseSize(v string) (int, error) {
	f, err := units.ParseBytes(v)
	if err != nil {
		return 0, fmt.Errorf("%q is not a size; write bytes, e.g. 1024 or 1KiB", v)
	}
	if f != math.Trunc(f) || f < math.MinInt32 || f > math.MaxInt32 {
		return 0, fmt.Errorf("%q is not a whole number of bytes within 2 GiB", v)
	}
	return int(f), nil
}

// parseBacklog parses a byte size such as 1GB or 512MiB into int64.
func parseBacklog(v string) (int64, error) {
	f, err := units.ParseBytes(v)
	if err != nil {
		return 0, fmt.Errorf("%q is not a size; write e.g. 1GB or 512MiB", v)
	}
	if f < math.MinInt64/2 || f > math.MaxInt64/2 {
		return 0, fmt.Errorf("%q is too large", v)
	}
	return int64(math.Round(f)), nil
}

// parseDuration parses a Go duration (60s, 5m, 1h30m); a bare number is refused rather than
// guessed at.
func parseDuration(v string) (time.Duration, error) {
	t := strings.TrimSpace(v)
	d, err := time.ParseDuration(t)
	if err != nil {
		if _, nerr := strconv.ParseFloat(t, 64); nerr == nil {
			return 0, fmt.Errorf("%q has no unit; write e.g. %ss or %sm", v, t, t)
		}
		return 0, fmt.Errorf("%q is not a duration; write e.g. 60s, 5m or 1h30m", v)
	}
	return d, nil
}
