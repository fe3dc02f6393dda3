package workload

import (
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
)

// Role says which client a set of properties configures, for checking names and values.
type Role uint8

const (
	RoleProducer Role = iota + 1 // producer-props, --producer-prop, --producer.config
	RoleConsumer                 // consumer-props, --consumer-prop, --consumer.config
	RoleCommon                   // common-props (OMB commonConfig): applied to producers and consumers
	RoleTopic                    // topic-config: topic-level configs used when creating topics
)

func (r Role) String() string {
	switch r {
	case RoleProducer:
		return "producer"
	case RoleConsumer:
		return "consumer"
	case RoleCommon:
		return "client"
	case RoleTopic:
		return "topic"
	}
	return "unknown"
}

// section is the YAML key holding properties of this role.
func (r Role) section() string {
	switch r {
	case RoleProducer:
		return "producer-props"
	case RoleConsumer:
		return "consumer-props"
	case RoleCommon:
		return "common-props"
	}
	return "topic-config"
}

// flag is the plimsoll flag that sets properties of this role.
func (r Role) flag() string {
	switch r {
	case RoleProducer:
		return "producer-prop"
	case RoleConsumer:
		return "consumer-prop"
	case RoleCommon:
		return "common-prop"
	}
	return "topic-config"
}

type propKind uint8

const (
	kString propKind = iota
	kInt             // Java int
	kLong            // Java long
	kShort           // Java short
	kDouble
	kBool
	kList     // comma-separated
	kClass    // a Java class name: accepted, the Go client cannot load it
	kPassword // never echoed
	kEnum
)

// applies is a bit set of the clients a property configures.
type applies uint8

const (
	toProducer applies = 1 << iota
	toConsumer
	toTopic
	toClients = toProducer | toConsumer
)

type propSpec struct {
	to      applies
	kind    propKind
	min     int64    // for numbers; noMin when unchecked
	max     int64    // for numbers; 0 = the type's limit
	values  []string // for kEnum
	foldEnu bool     // enum compared case-insensitively, as Kafka does for that config
}

const noMin = math.MinInt64

func num(to applies, kind propKind, min int64) propSpec {
	return propSpec{to: to, kind: kind, min: min}
}
func typ(to applies, kind propKind) propSpec { return propSpec{to: to, kind: kind, min: noMin} }
func enum(to applies, fold bool, values ...string) propSpec {
	return propSpec{to: to, kind: kEnum, values: values, foldEnu: fold, min: noMin}
}

// knownProps lists the Apache Kafka client and topic configs (ProducerConfig, ConsumerConfig,
// CommonClientConfigs, SslConfigs, SaslConfigs, TopicConfig as of Kafka 4.x) with their types and
// the lower bounds Kafka's own validators enforce. Runner-owned names are in runnerOwned.
var knownProps = map[string]propSpec{
	// producer
	"acks":                                     enum(toProducer, false, "all", "-1", "0", "1"),
	"batch.size":                               num(toProducer, kInt, 0),
	"buffer.memory":                            num(toProducer, kLong, 0),
	"compression.type":                         enum(toProducer, false, "none", "gzip", "snappy", "lz4", "zstd"),
	"compression.gzip.level":                   {to: toProducer | toTopic, kind: kInt, min: -1, max: 9},
	"compression.lz4.level":                    {to: toProducer | toTopic, kind: kInt, min: 1, max: 17},
	"compression.zstd.level":                   {to: toProducer | toTopic, kind: kInt, min: -131072, max: 22},
	"delivery.timeout.ms":                      num(toProducer, kInt, 0),
	"enable.idempotence":                       typ(toProducer, kBool),
	"linger.ms":                                num(toProducer, kLong, 0),
	"max.block.ms":                             num(toProducer, kLong, 0),
	"max.in.flight.requests.per.connection":    num(toProducer, kInt, 1),
	"max.request.size":                         num(toProducer, kInt, 0),
	"metadata.max.idle.ms":                     num(toProducer, kLong, 5000),
	"partitioner.adaptive.partitioning.enable": typ(toProducer, kBool),
	"partitioner.availability.timeout.ms":      num(toProducer, kLong, 0),
	"partitioner.class":                        typ(toProducer, kClass),
	"partitioner.ignore.keys":                  typ(toProducer, kBool),
	"retries":                                  num(toProducer, kInt, 0),
	"transaction.timeout.ms":                   typ(toProducer, kInt),
	"transactional.id":                         typ(toProducer, kString),

	// consumer
	"allow.auto.create.topics":      typ(toConsumer, kBool),
	"auto.commit.interval.ms":       num(toConsumer, kInt, 0),
	"auto.offset.reset":             typ(toConsumer, kString), // checked in checkValue: earliest|latest|none|by_duration:
	"check.crcs":                    typ(toConsumer, kBool),
	"client.rack":                   typ(toConsumer, kString),
	"default.api.timeout.ms":        num(toConsumer, kInt, 0),
	"enable.auto.commit":            typ(toConsumer, kBool),
	"exclude.internal.topics":       typ(toConsumer, kBool),
	"fetch.max.bytes":               num(toConsumer, kInt, 0),
	"fetch.max.wait.ms":             num(toConsumer, kInt, 0),
	"fetch.min.bytes":               num(toConsumer, kInt, 0),
	"group.instance.id":             typ(toConsumer, kString),
	"group.protocol":                enum(toConsumer, true, "classic", "consumer"),
	"group.remote.assignor":         typ(toConsumer, kString),
	"heartbeat.interval.ms":         typ(toConsumer, kInt),
	"isolation.level":               enum(toConsumer, false, "read_uncommitted", "read_committed"),
	"max.partition.fetch.bytes":     num(toConsumer, kInt, 0),
	"max.poll.interval.ms":          num(toConsumer, kInt, 1),
	"max.poll.records":              num(toConsumer, kInt, 1),
	"partition.assignment.strategy": typ(toConsumer, kList),

	// both
	"client.dns.lookup":                        enum(toClients, false, "use_all_dns_ips", "resolve_canonical_bootstrap_servers_only"),
	"client.id":                                typ(toClients, kString),
	"connections.max.idle.ms":                  typ(toClients, kLong),
	"enable.metrics.push":                      typ(toClients, kBool),
	"interceptor.classes":                      typ(toClients, kList),
	"metadata.max.age.ms":                      num(toClients, kLong, 0),
	"metadata.recovery.strategy":               enum(toClients, true, "none", "rebootstrap"),
	"metadata.recovery.rebootstrap.trigger.ms": num(toClients, kLong, 0),
	"metric.reporters":                         typ(toClients, kList),
	"metrics.num.samples":                      num(toClients, kInt, 1),
	"metrics.recording.level":                  enum(toClients, false, "INFO", "DEBUG", "TRACE"),
	"metrics.sample.window.ms":                 num(toClients, kLong, 0),
	"receive.buffer.bytes":                     num(toClients, kInt, -1),
	"reconnect.backoff.max.ms":                 num(toClients, kLong, 0),
	"reconnect.backoff.ms":                     num(toClients, kLong, 0),
	"request.timeout.ms":                       num(toClients, kInt, 0),
	"retry.backoff.max.ms":                     num(toClients, kLong, 0),
	"retry.backoff.ms":                         num(toClients, kLong, 0),
	"security.protocol":                        enum(toClients, true, "PLAINTEXT", "SSL", "SASL_PLAINTEXT", "SASL_SSL"),
	"security.providers":                       typ(toClients, kString),
	"send.buffer.bytes":                        num(toClients, kInt, -1),
	"session.timeout.ms":                       typ(toConsumer, kInt),
	"socket.connection.setup.timeout.max.ms":   typ(toClients, kLong),
	"socket.connection.setup.timeout.ms":       typ(toClients, kLong),

	// TLS
	"ssl.cipher.suites":                     typ(toClients, kList),
	"ssl.enabled.protocols":                 typ(toClients, kList),
	"ssl.endpoint.identification.algorithm": typ(toClients, kString),
	"ssl.engine.factory.class":              typ(toClients, kClass),
	"ssl.key.password":                      typ(toClients, kPassword),
	"ssl.keymanager.algorithm":              typ(toClients, kString),
	"ssl.keystore.certificate.chain":        typ(toClients, kPassword),
	"ssl.keystore.key":                      typ(toClients, kPassword),
	"ssl.keystore.location":                 typ(toClients, kString),
	"ssl.keystore.password":                 typ(toClients, kPassword),
	"ssl.keystore.type":                     typ(toClients, kString),
	"ssl.protocol":                          typ(toClients, kString),
	"ssl.provider":                          typ(toClients, kString),
	"ssl.secure.random.implementation":      typ(toClients, kString),
	"ssl.trustmanager.algorithm":            typ(toClients, kString),
	"ssl.truststore.certificates":           typ(toClients, kPassword),
	"ssl.truststore.location":               typ(toClients, kString),
	"ssl.truststore.password":               typ(toClients, kPassword),
	"ssl.truststore.type":                   typ(toClients, kString),

	// SASL
	"sasl.client.callback.handler.class":                  typ(toClients, kClass),
	"sasl.jaas.config":                                    typ(toClients, kPassword),
	"sasl.kerberos.kinit.cmd":                             typ(toClients, kString),
	"sasl.kerberos.min.time.before.relogin":               typ(toClients, kLong),
	"sasl.kerberos.service.name":                          typ(toClients, kString),
	"sasl.kerberos.ticket.renew.jitter":                   typ(toClients, kDouble),
	"sasl.kerberos.ticket.renew.window.factor":            typ(toClients, kDouble),
	"sasl.login.callback.handler.class":                   typ(toClients, kClass),
	"sasl.login.class":                                    typ(toClients, kClass),
	"sasl.login.connect.timeout.ms":                       typ(toClients, kInt),
	"sasl.login.read.timeout.ms":                          typ(toClients, kInt),
	"sasl.login.refresh.buffer.seconds":                   typ(toClients, kShort),
	"sasl.login.refresh.min.period.seconds":               typ(toClients, kShort),
	"sasl.login.refresh.window.factor":                    typ(toClients, kDouble),
	"sasl.login.refresh.window.jitter":                    typ(toClients, kDouble),
	"sasl.login.retry.backoff.max.ms":                     typ(toClients, kLong),
	"sasl.login.retry.backoff.ms":                         typ(toClients, kLong),
	"sasl.mechanism":                                      typ(toClients, kString),
	"sasl.oauthbearer.clock.skew.seconds":                 typ(toClients, kInt),
	"sasl.oauthbearer.expected.audience":                  typ(toClients, kList),
	"sasl.oauthbearer.expected.issuer":                    typ(toClients, kString),
	"sasl.oauthbearer.header.urlencode":                   typ(toClients, kBool),
	"sasl.oauthbearer.jwks.endpoint.refresh.ms":           typ(toClients, kLong),
	"sasl.oauthbearer.jwks.endpoint.retry.backoff.max.ms": typ(toClients, kLong),
	"sasl.oauthbearer.jwks.endpoint.retry.backoff.ms":     typ(toClients, kLong),
	"sasl.oauthbearer.jwks.endpoint.url":                  typ(toClients, kString),
	"sasl.oauthbearer.scope.claim.name":                   typ(toClients, kString),
	"sasl.oauthbearer.sub.claim.name":                     typ(toClients, kString),
	"sasl.oauthbearer.token.endpoint.url":                 typ(toClients, kString),
}

// knownTopicConfigs lists Kafka's topic-level configs (TopicConfig). compression.type takes the
// broker's values here, not the producer's.
var knownTopicConfigs = map[string]propSpec{
	"cleanup.policy":                          typ(toTopic, kList), // checked in checkValue: delete, compact
	"compression.type":                        enum(toTopic, false, "uncompressed", "zstd", "lz4", "snappy", "gzip", "producer"),
	"compression.gzip.level":                  knownProps["compression.gzip.level"],
	"compression.lz4.level":                   knownProps["compression.lz4.level"],
	"compression.zstd.level":                  knownProps["compression.zstd.level"],
	"delete.retention.ms":                     num(toTopic, kLong, 0),
	"file.delete.delay.ms":                    num(toTopic, kLong, 0),
	"flush.messages":                          num(toTopic, kLong, 1),
	"flush.ms":                                num(toTopic, kLong, 0),
	"index.interval.bytes":                    num(toTopic, kInt, 0),
	"local.retention.bytes":                   num(toTopic, kLong, -2),
	"local.retention.ms":                      num(toTopic, kLong, -2),
	"max.compaction.lag.ms":                   num(toTopic, kLong, 1),
	"max.message.bytes":                       num(toTopic, kInt, 0),
	"message.downconversion.enable":           typ(toTopic, kBool),
	"message.format.version":                  typ(toTopic, kString),
	"message.timestamp.after.max.ms":          num(toTopic, kLong, 0),
	"message.timestamp.before.max.ms":         num(toTopic, kLong, 0),
	"message.timestamp.difference.max.ms":     num(toTopic, kLong, 0),
	"message.timestamp.type":                  enum(toTopic, false, "CreateTime", "LogAppendTime"),
	"min.cleanable.dirty.ratio":               typ(toTopic, kDouble),
	"min.compaction.lag.ms":                   num(toTopic, kLong, 0),
	"min.insync.replicas":                     num(toTopic, kInt, 1),
	"preallocate":                             typ(toTopic, kBool),
	"remote.log.copy.disable":                 typ(toTopic, kBool),
	"remote.log.delete.on.disable":            typ(toTopic, kBool),
	"remote.storage.enable":                   typ(toTopic, kBool),
	"retention.bytes":                         typ(toTopic, kLong),
	"retention.ms":                            num(toTopic, kLong, -1),
	"segment.bytes":                           num(toTopic, kInt, 14),
	"segment.index.bytes":                     num(toTopic, kInt, 4),
	"segment.jitter.ms":                       num(toTopic, kLong, 0),
	"segment.ms":                              num(toTopic, kLong, 1),
	"unclean.leader.election.enable":          typ(toTopic, kBool),
	"follower.replication.throttled.replicas": typ(toTopic, kList),
	"leader.replication.throttled.replicas":   typ(toTopic, kList),
}

// passThroughPrefixes are families whose newer members (Kafka adds OAuth settings often) pass
// with a warning when they are not close to a name plimsoll knows.
var passThroughPrefixes = []string{"ssl.", "sasl."}

func isSecret(key string) bool {
	s, ok := knownProps[key]
	return ok && s.kind == kPassword || strings.Contains(key, "password") || strings.HasSuffix(key, ".secret")
}

// lookup returns the spec of key among the names a role can hold (client or topic configs).
func (r Role) lookup(key string) (propSpec, bool) {
	if r == RoleTopic {
		s, ok := knownTopicConfigs[key]
		return s, ok
	}
	s, ok := knownProps[key]
	return s, ok
}

func (r Role) wants(s propSpec) bool {
	switch r {
	case RoleProducer:
		return s.to&toProducer != 0
	case RoleConsumer:
		return s.to&toConsumer != 0
	case RoleCommon:
		return s.to&toClients != 0
	}
	return s.to&toTopic != 0
}

// Check reports unknown property names (with the closest known name) and values of the wrong
// type as errors naming the property and its origin. Properties that belong to another client
// (fetch.min.bytes in producer properties) and unknown members of the ssl./sasl. families are
// returned as warnings: Kafka's own clients accept and ignore them.
func (p Props) Check(role Role) (warnings []string, err error) {
	var errs []error
	for prop := range p.All() {
		w, e := checkProp(role, prop)
		if w != "" {
			warnings = append(warnings, w)
		}
		if e != nil {
			errs = append(errs, e)
		}
	}
	return warnings, joinErrs(errs)
}

func checkProp(role Role, prop Prop) (string, error) {
	fe := func(msg string, sentinel error) error {
		return &FieldError{Pos: prop.Origin, Field: prop.Key, Flag: role.flag(), Msg: msg, Err: sentinel}
	}
	spec, ok := role.lookup(prop.Key)
	if !ok {
		if role == RoleTopic {
			if _, client := knownProps[prop.Key]; client {
				return "", fe("is a client property, not a topic config; move it to producer-props or consumer-props", ErrUnknownProperty)
			}
		} else if _, topic := knownTopicConfigs[prop.Key]; topic {
			return "", fe(fmt.Sprintf("is a topic config, not a %s property; move it to topic-config (--topic-config)", role), ErrUnknownProperty)
		}
		if s := suggest(prop.Key, role); s != "" {
			return "", fe(fmt.Sprintf("unknown %s property; did you mean %q?", role, s), ErrUnknownProperty)
		}
		for _, pre := range passThroughPrefixes {
			if role != RoleTopic && strings.HasPrefix(prop.Key, pre) {
				return fmt.Sprintf("%s: %s is not a Kafka %s property plimsoll knows; passed on unchecked", whereIn(prop, role), prop.Key, role), nil
			}
		}
		return "", fe(fmt.Sprintf("unknown %s property (plimsoll takes Kafka's own %s config names, e.g. %s)", role, role, exampleProp(role)), ErrUnknownProperty)
	}
	if err := checkValue(prop.Key, prop.Value, spec); err != nil {
		return "", fe(err.Error(), nil)
	}
	if !role.wants(spec) {
		other := "consumer"
		if spec.to&toProducer != 0 {
			other = "producer"
		}
		return fmt.Sprintf("%s: %s is a %s property; %ss ignore it (move it to %s-props)", whereIn(prop, role), prop.Key, other, role, other), nil
	}
	return "", nil
}

// whereIn places a property for a warning: its origin, or the section it sits in.
func whereIn(p Prop, r Role) string {
	if p.Origin == "" {
		return r.section()
	}
	return p.Origin
}

// where places a property for a message: its origin, or its name.
func where(p Prop) string {
	if p.Origin == "" {
		return p.Key
	}
	return p.Origin
}

func exampleProp(r Role) string {
	switch r {
	case RoleConsumer:
		return "fetch.min.bytes, max.poll.records"
	case RoleTopic:
		return "retention.ms, min.insync.replicas"
	}
	return "acks, linger.ms, batch.size"
}

// checkValue checks value against the config's type. Secret values never appear in messages.
func checkValue(key, value string, s propSpec) error {
	show := strconv.Quote(value)
	if s.kind == kPassword || isSecret(key) {
		show = "the value"
	}
	v := strings.TrimSpace(value)
	switch s.kind {
	case kInt, kLong, kShort:
		bits := map[propKind]int{kInt: 32, kLong: 64, kShort: 16}[s.kind]
		n, err := strconv.ParseInt(v, 10, bits)
		if err != nil {
			typ := map[propKind]string{kInt: "an integer", kLong: "a whole number", kShort: "a small integer"}[s.kind]
			if ne, ok := err.(*strconv.NumError); ok && ne.Err == strconv.ErrRange {
				return fmt.Errorf("%s is out of range (Kafka reads it as a Java %s)", show, map[propKind]string{kInt: "int", kLong: "long", kShort: "short"}[s.kind])
			}
			return fmt.Errorf("%s is not %s", show, typ)
		}
		if s.min != noMin && n < s.min {
			return fmt.Errorf("%d is below the minimum, %d", n, s.min)
		}
		if s.max != 0 && n > s.max {
			return fmt.Errorf("%d is above the maximum, %d", n, s.max)
		}
	case kDouble:
		if f, err := strconv.ParseFloat(v, 64); err != nil || math.IsNaN(f) || math.IsInf(f, 0) {
			return fmt.Errorf("%s is not a number", show)
		}
	case kBool:
		if !strings.EqualFold(v, "true") && !strings.EqualFold(v, "false") {
			return fmt.Errorf("%s is not true or false", show)
		}
	case kEnum:
		for _, ok := range s.values {
			if v == ok || s.foldEnu && strings.EqualFold(v, ok) {
				return nil
			}
		}
		return fmt.Errorf("%s is not valid; use one of %s", show, strings.Join(s.values, ", "))
	}
	switch key {
	case "auto.offset.reset":
		if v != "earliest" && v != "latest" && v != "none" && !strings.HasPrefix(v, "by_duration:") {
			return fmt.Errorf("%s is not valid; use earliest, latest, none or by_duration:PnDTnHnMn.nS", show)
		}
	case "cleanup.policy":
		for _, part := range strings.Split(v, ",") {
			if p := strings.TrimSpace(part); p != "delete" && p != "compact" {
				return fmt.Errorf("%s is not valid; use delete, compact or delete,compact", show)
			}
		}
	}
	return nil
}

// suggest returns the known name closest to key for role, or "" when none is close. Separators
// are normalised first so linger_ms and linger-ms find linger.ms.
func suggest(key string, role Role) string {
	names := make([]string, 0, len(knownProps))
	if role == RoleTopic {
		for k := range knownTopicConfigs {
			names = append(names, k)
		}
	} else {
		for k, s := range knownProps {
			if role.wants(s) {
				names = append(names, k)
			}
		}
		for k := range runnerOwned {
			names = append(names, k)
		}
	}
	norm := strings.NewReplacer("_", ".", "-", ".").Replace(strings.ToLower(key))
	return closest(norm, names, maxEdits(key))
}

// maxEdits is how far a misspelling may be from the name meant: about one edit in four
// characters, at most four, so long unrelated names are not "corrected".
func maxEdits(s string) int { return min(len(s)/4+1, 4) }

// closest returns the candidate within maxDist edits of s (the nearest, ties broken by name).
func closest(s string, candidates []string, maxDist int) string {
	sort.Strings(candidates)
	best, bestD := "", maxDist+1
	for _, c := range candidates {
		if d := editDistance(s, strings.ToLower(c), bestD-1); d < bestD {
			best, bestD = c, d
		}
	}
	return best
}

// editDistance is the Levenshtein distance between a and b in bytes, or limit+1 once it is
// sure to exceed limit: the bound keeps checking many long unknown keys cheap.
func editDistance(a, b string, limit int) int {
	if d := len(a) - len(b); d > limit || -d > limit {
		return limit + 1
	}
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		rowMin := i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			rowMin = min(rowMin, cur[j])
		}
		if rowMin > limit {
			return limit + 1 // distances never shrink from one row to the next
		}
		prev, cur = cur, prev
	}
	return min(prev[len(b)], limit+1)
}
