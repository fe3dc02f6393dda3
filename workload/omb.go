package workload

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/plimsoll/plimsoll/kafkaprops"
	"gopkg.in/yaml.v3"
)

// ombKind is the Java type of an OMB workload field.
type ombKind uint8

const (
	ombInt ombKind = iota
	ombLong
	ombDouble
	ombBool
	ombString
	ombKeyDist
)

// ombFields are OMB's Workload fields (benchmark-framework Workload.java) and the plimsoll
// flag each one maps to, for error messages.
var ombFields = map[string]struct {
	kind ombKind
	flag string
}{
	"name":                      {ombString, "name"},
	"topics":                    {ombInt, "topics"},
	"partitionsPerTopic":        {ombInt, "partitions"},
	"keyDistributor":            {ombKeyDist, "keys"},
	"messageSize":               {ombInt, "message-size"},
	"useRandomizedPayloads":     {ombBool, "payload"},
	"randomBytesRatio":          {ombDouble, "payload"},
	"randomizedPayloadPoolSize": {ombInt, "payload"},
	"payloadFile":               {ombString, "payload"},
	"subscriptionsPerTopic":     {ombInt, "consumer-groups"},
	"producersPerTopic":         {ombInt, "producers"},
	"consumerPerSubscription":   {ombInt, "consumers-per-group"},
	"producerRate":              {ombDouble, "rate"},
	"consumerBacklogSizeGB":     {ombLong, "backlog"},
	"backlogDrainRatio":         {ombDouble, "backlog-drain-ratio"},
	"testDurationMinutes":       {ombInt, "duration"},
	"warmupDurationMinutes":     {ombInt, "warmup"},
}

// ombRequired are the fields every upstream OMB workload sets; without them OMB runs nothing.
var ombRequired = []string{"topics", "partitionsPerTopic", "messageSize", "producersPerTopic",
	"subscriptionsPerTopic", "consumerPerSubscription", "producerRate", "testDurationMinutes"}

// ombForkFields appear in forks of OMB; plimsoll accepts the files and says what it ignores.
var ombForkFields = map[string]string{
	"producerStartRate":                  "the start of a rate search; plimsoll runs producerRate as given (use plimsoll limit to search)",
	"producerIncrementRate":              "a rising rate; plimsoll runs producerRate as given (use plimsoll limit to search)",
	"producerIncrementSeconds":           "a rising rate; plimsoll runs producerRate as given",
	"acceptableBacklog":                  "a rate-search tolerance; plimsoll's verdicts judge overload",
	"messageRateReceivedForSubscription": "filtered subscriptions; every plimsoll consumer group reads every message",
	"producerPauseBeforeDrain":           "a pause before the backlog drain; plimsoll keeps producing",
	"producerPauseDuringDrain":           "a pause during the backlog drain; plimsoll keeps producing",
}

// ombKafkaDriver is the driverClass of OMB's Kafka driver, the only one plimsoll can run.
const ombKafkaDriver = "io.openmessaging.benchmark.driver.kafka.KafkaBenchmarkDriver"

// ombKeyFor returns the OMB field for a plimsoll flag, "" if there is none or it is ambiguous.
func ombKeyFor(flag string) string {
	found := ""
	for k, f := range ombFields {
		if f.flag == flag {
			if found != "" {
				return ""
			}
			found = k
		}
	}
	return found
}

type ombValue struct {
	pos  string
	text string
	num  float64
	b    bool
}

// loadOMB maps an OMB workload onto a Spec: producersPerTopic x topics producers,
// subscriptionsPerTopic groups of consumerPerSubscription consumers, producerRate in total.
func loadOMB(pairs []pair, name, dir string) (Spec, error) {
	s := Default()
	s.Source, s.Format = name, FormatOMB
	vals, err := s.ombValues(pairs, name)
	if err != nil {
		return Spec{}, err
	}
	errs := s.ombClients(vals)
	errs = append(errs, s.ombLoad(vals)...)
	if err := s.ombPayload(vals, name, dir); err != nil {
		errs = append(errs, err)
	}
	return s, kafkaprops.JoinErrors(errs)
}

// ombValues reads every field with its Java type, noting fork fields and refusing unknown ones
// and missing required ones.
func (s *Spec) ombValues(pairs []pair, name string) (map[string]ombValue, error) {
	vals := map[string]ombValue{}
	var errs []error
	for _, p := range pairs {
		f, ok := ombFields[p.key]
		if !ok {
			if why, fork := ombForkFields[p.key]; fork {
				s.notes = append(s.notes, fmt.Sprintf("%s: %s is not in upstream OMB and is ignored: %s", p.pos, p.key, why))
			} else {
				errs = append(errs, unknownOMBKey(p))
			}
			continue
		}
		v, err := parseOMBValue(p, f.kind)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		vals[p.key] = v
	}
	if len(errs) == 0 {
		for _, k := range ombRequired {
			if _, ok := vals[k]; !ok {
				errs = append(errs, &FieldError{Pos: name, Field: k, Msg: "is missing; every OMB workload sets it (see docs/workload.md)"})
			}
		}
	}
	return vals, kafkaprops.JoinErrors(errs)
}

// unknownOMBKey reports a key OMB does not have, pointing at the OMB name of a plimsoll key.
func unknownOMBKey(p pair) error {
	known := make([]string, 0, len(ombFields))
	for k := range ombFields {
		known = append(known, k)
	}
	hint := ""
	if d, isFlag := lookupField(p.key); isFlag {
		hint = fmt.Sprintf("%q is plimsoll's name, but this is an OMB workload", d.YAML)
		if k := ombKeyFor(d.Flag); k != "" {
			hint += fmt.Sprintf("; write %s", k)
		} else {
			hint += "; OMB has no such field (convert the file to plimsoll's YAML, see docs/workload.md)"
		}
	}
	return unknownKey(p, known, hint)
}

// ombClients maps the topics, producers and consumers.
func (s *Spec) ombClients(vals map[string]ombValue) []error {
	var errs []error
	set := func(field, key string) { s.setOrigin(field, vals[key].pos, key) }
	num := func(key string) int { return int(vals[key].num) }
	s.Name = vals["name"].text
	s.Topics, s.PartitionsPerTopic = num("topics"), num("partitionsPerTopic")
	set("topics", "topics")
	set("partitions", "partitionsPerTopic")
	if s.PartitionsPerTopic < 1 {
		errs = append(errs, s.errf("partitions", "%d; OMB topics need at least 1 partition", s.PartitionsPerTopic))
	}
	s.Producers = num("producersPerTopic") * s.Topics
	set("producers", "producersPerTopic")
	s.ConsumerGroups, s.ConsumersPerGroup = num("subscriptionsPerTopic"), num("consumerPerSubscription")
	set("consumer-groups", "subscriptionsPerTopic")
	set("consumers-per-group", "consumerPerSubscription")
	if s.Topics > 1 && s.ConsumerGroups > 0 {
		s.notes = append(s.notes, fmt.Sprintf("%s: OMB gives each of the %d topics its own %d subscription(s) of %d consumer(s), %d consumers in all; plimsoll's %d group(s) read all topics, so it runs %d consumers (the bytes fanned out are the same)",
			vals["subscriptionsPerTopic"].pos, s.Topics, s.ConsumerGroups, s.ConsumersPerGroup, s.Topics*s.Consumers(), s.ConsumerGroups, s.Consumers()))
	}
	return errs
}

// ombLoad maps the rate, the messages, the window and the backlog.
func (s *Spec) ombLoad(vals map[string]ombValue) []error {
	var errs []error
	set := func(field, key string) { s.setOrigin(field, vals[key].pos, key) }
	s.Rate = vals["producerRate"].num
	set("rate", "producerRate")
	if s.Rate == 0 {
		s.notes = append(s.notes, fmt.Sprintf("%s: producerRate 0 makes OMB probe for a sustainable rate; plimsoll sends as fast as the producers go (use plimsoll limit for the sustainable rate)", vals["producerRate"].pos))
	}
	s.MessageSize, s.sizeSet = int(vals["messageSize"].num), true
	set("message-size", "messageSize")
	if v, ok := vals["keyDistributor"]; ok {
		s.Keys = KeyMode(v.num)
		set("keys", "keyDistributor")
	}
	s.Duration = time.Duration(vals["testDurationMinutes"].num) * time.Minute
	set("duration", "testDurationMinutes")
	s.Warmup = time.Minute // OMB's default
	if v, ok := vals["warmupDurationMinutes"]; ok {
		s.Warmup = time.Duration(v.num) * time.Minute
		set("warmup", "warmupDurationMinutes")
	}
	if v, ok := vals["consumerBacklogSizeGB"]; ok {
		if v.num > float64(math.MaxInt64>>30) || v.num < float64(math.MinInt64>>30) {
			errs = append(errs, &FieldError{Pos: v.pos, Field: "consumerBacklogSizeGB", Msg: "is too large"})
		} else {
			s.BacklogBytes = int64(v.num) << 30 // OMB multiplies by 1024^3
			set("backlog", "consumerBacklogSizeGB")
		}
	}
	if v, ok := vals["backlogDrainRatio"]; ok {
		s.BacklogDrainRatio = v.num
		set("backlog-drain-ratio", "backlogDrainRatio")
	}
	return errs
}

// ombPayload sets the payload the way OMB does: random bytes then zeros when
// useRandomizedPayloads, else the bytes of payloadFile.
func (s *Spec) ombPayload(vals map[string]ombValue, name, dir string) error {
	if vals["useRandomizedPayloads"].b {
		ratio := vals["randomBytesRatio"].num // OMB's default is 0: all zeros
		s.Payload = Payload{Kind: PayloadRandom, RandomBytesRatio: ratio, PoolSize: int(vals["randomizedPayloadPoolSize"].num)}
		s.setOrigin("payload", vals["useRandomizedPayloads"].pos, "useRandomizedPayloads")
		if v, ok := vals["randomBytesRatio"]; ok {
			s.setOrigin("payload", v.pos, "randomBytesRatio")
		}
		if ratio < 1 {
			s.notes = append(s.notes, fmt.Sprintf("%s: payloads are %.0f%% random bytes and the rest zeros, so they compress (OMB's randomized payloads; plimsoll's default is incompressible)",
				s.label("payload"), 100*ratio))
		}
		if v, ok := vals["payloadFile"]; ok {
			s.notes = append(s.notes, fmt.Sprintf("%s: payloadFile is ignored because useRandomizedPayloads is true (as in OMB)", v.pos))
		}
		return nil
	}
	v, ok := vals["payloadFile"]
	if !ok {
		return &FieldError{Pos: name, Field: "payloadFile", Msg: "is missing; OMB needs it unless useRandomizedPayloads is true (add payloadFile: path/to/payload.data, or useRandomizedPayloads: true with randomBytesRatio: 1)"}
	}
	s.setOrigin("payload", v.pos, "payloadFile")
	path, tried := findPayloadFile(v.text, dir)
	if path == "" {
		return &FieldError{Pos: v.pos, Field: "payloadFile", Flag: "payload",
			Msg: fmt.Sprintf("cannot find %q; looked for %s", v.text, strings.Join(tried, ", "))}
	}
	data, abs, err := readPayloadFile(path, "")
	if err != nil {
		return &FieldError{Pos: v.pos, Field: "payloadFile", Flag: "payload", Msg: err.Error(), Err: unwrapCause(err)}
	}
	s.Payload = Payload{Kind: PayloadFile, Path: abs, Data: data}
	return nil
}

// findPayloadFile resolves an OMB payloadFile: next to the workload YAML first, then the
// directory above it (OMB's layout keeps workloads/ and payload/ side by side and names files
// from the repository root), then the working directory, where OMB itself looks.
func findPayloadFile(name, dir string) (string, []string) {
	if filepath.IsAbs(name) {
		return name, nil
	}
	var tried []string
	for _, base := range []string{dir, filepath.Dir(dir), ""} {
		p := resolvePath(name, base)
		if len(tried) > 0 && tried[len(tried)-1] == p {
			continue
		}
		tried = append(tried, p)
		if st, err := os.Stat(p); err == nil && !st.IsDir() {
			return p, tried
		}
	}
	return "", tried
}

func parseOMBValue(p pair, kind ombKind) (ombValue, error) {
	text, err := scalarValue(p.val)
	if err != nil {
		return ombValue{}, &FieldError{Pos: p.pos, Field: p.key, Msg: err.Error()}
	}
	v := ombValue{pos: p.pos, text: text}
	bad := func(want string) error {
		return &FieldError{Pos: p.pos, Field: p.key, Msg: fmt.Sprintf("%q is not %s", text, want)}
	}
	switch kind {
	case ombInt, ombLong:
		bits := 32
		if kind == ombLong {
			bits = 64
		}
		n, err := strconv.ParseInt(strings.TrimSpace(text), 10, bits)
		if err != nil {
			return v, bad("a whole number")
		}
		v.num = float64(n)
	case ombDouble:
		f, err := strconv.ParseFloat(strings.TrimSpace(text), 64)
		if err != nil || math.IsNaN(f) || math.IsInf(f, 0) {
			return v, bad("a number")
		}
		v.num = f
	case ombBool:
		switch strings.ToLower(strings.TrimSpace(text)) {
		case "true":
			v.b = true
		case "false":
		default:
			return v, bad("true or false")
		}
	case ombKeyDist:
		switch strings.TrimSpace(text) {
		case "NO_KEY":
			v.num = float64(KeysNone)
		case "KEY_ROUND_ROBIN":
			v.num = float64(KeysRoundRobin)
		case "RANDOM_NANO":
			v.num = float64(KeysRandom)
		default:
			return v, &FieldError{Pos: p.pos, Field: p.key, Msg: fmt.Sprintf("%q is not an OMB key distributor; use NO_KEY, KEY_ROUND_ROBIN or RANDOM_NANO", text)}
		}
	}
	return v, nil
}

// ombDriverFields are the keys of an OMB Kafka driver YAML (Config.java plus the common name and
// driverClass); reset appears in older files.
var ombDriverFields = []string{"name", "driverClass", "replicationFactor", "reset",
	"topicConfig", "commonConfig", "producerConfig", "consumerConfig"}

// applyDriver applies an OMB Kafka driver YAML: replication factor and the four Kafka
// properties blocks. Property errors point at the driver file's own lines.
func (s *Spec) applyDriver(data []byte, name string) error {
	root, err := decodeYAML(data, name)
	if err != nil {
		return err
	}
	pairs, err := mappingPairs(root, name)
	if err != nil {
		return err
	}
	if detect(pairs) == kindOMB {
		return &FieldError{Pos: name, Msg: "is an OMB workload, not a driver; give the workload with --workload and the driver (with driverClass) with --driver"}
	}
	s.Driver = name
	var errs []error
	hasClass := false
	for _, p := range pairs {
		switch p.key {
		case "name":
		case "reset":
			s.notes = append(s.notes, fmt.Sprintf("%s: reset is ignored; plimsoll manages the topics it creates itself", p.pos))
		case "driverClass":
			hasClass = true
			if v, err := scalarValue(p.val); err != nil || v != ombKafkaDriver {
				errs = append(errs, &FieldError{Pos: p.pos, Field: p.key, Msg: fmt.Sprintf("%q is not OMB's Kafka driver; plimsoll runs Kafka only (%s)", v, ombKafkaDriver)})
			}
		case "replicationFactor":
			v, err := scalarValue(p.val)
			if err == nil {
				var n int
				if n, err = parseInt(v); err == nil {
					s.ReplicationFactor = n
					s.setOrigin("replication-factor", p.pos, p.key)
				}
			}
			if err != nil {
				errs = append(errs, &FieldError{Pos: p.pos, Field: p.key, Flag: "replication-factor", Msg: err.Error()})
			}
		case "topicConfig", "commonConfig", "producerConfig", "consumerConfig":
			role := map[string]kafkaprops.Role{"topicConfig": kafkaprops.RoleTopic, "commonConfig": kafkaprops.RoleCommon,
				"producerConfig": kafkaprops.RoleProducer, "consumerConfig": kafkaprops.RoleConsumer}[p.key]
			errs = append(errs, s.driverProps(role, p, name)...)
		default:
			errs = append(errs, unknownKey(p, ombDriverFields, ""))
		}
	}
	if !hasClass && len(errs) == 0 {
		s.notes = append(s.notes, fmt.Sprintf("%s: no driverClass; read as OMB's Kafka driver", name))
	}
	return kafkaprops.JoinErrors(errs)
}

// driverProps reads one properties block of a driver: a YAML block string in .properties
// syntax (OMB's form) or, as a convenience, a YAML mapping.
func (s *Spec) driverProps(role kafkaprops.Role, p pair, name string) []error {
	v := deref(p.val)
	if v.Kind == yaml.MappingNode {
		d, _ := lookupField(role.Flag())
		return s.setPropMap(d, p, name)
	}
	text, err := scalarValue(v)
	if err != nil {
		return []error{&FieldError{Pos: p.pos, Field: p.key, Msg: err.Error() + "; write Kafka properties as a block, e.g. `" + p.key + ": |` then key=value lines"}}
	}
	first := v.Line
	if v.Style&(yaml.LiteralStyle|yaml.FoldedStyle) != 0 {
		first++ // a block's text starts on the line after its | or >
	}
	var props kafkaprops.Props
	if err := kafkaprops.ParseInto(&props, text, name, first, false); err != nil {
		return []error{propErr(err)}
	}
	var errs []error
	for prop := range props.All() {
		if err := s.addProp(role, prop.Key, prop.Value, prop.Origin, false); err != nil {
			errs = append(errs, err)
		}
	}
	s.props(role).AddIgnored(props.Ignored()...)
	return errs
}
