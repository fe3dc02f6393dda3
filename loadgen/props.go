package loadgen

import (
	"errors"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/klauspost/compress/zstd"
	"github.com/twmb/franz-go/pkg/kgo"
)

// Errors for Kafka client properties that cannot be honoured.
var (
	// ErrUnknownProperty: the property has no franz-go equivalent (or is not a client property).
	ErrUnknownProperty = errors.New("unsupported Kafka client property")
	// ErrBadProperty: the property is known but its value is invalid or cannot be honoured.
	ErrBadProperty = errors.New("invalid Kafka client property")
)

// ClientProps records the configuration one kind of client ran with, by Kafka property name:
// every property plimsoll maps, with the value in force (the user's, else Kafka's default).
type ClientProps struct {
	Props map[string]string `json:"props"`
	Set   []string          `json:"set,omitempty"`   // names the user gave
	Notes []string          `json:"notes,omitempty"` // how a value was translated, or why ignored
}

// EffectiveProps are the producer and consumer configurations of a run; result.json records them.
type EffectiveProps struct {
	Producer ClientProps `json:"producer"`
	Consumer ClientProps `json:"consumer"`
}

type propKind int

const (
	kindInt propKind = iota
	kindBool
	kindMs // milliseconds, an int
	kindEnum
	kindString
)

// propDef is one supported property: its Kafka default (4.x Java client) and how to check it.
type propDef struct {
	name     string
	def      string
	kind     propKind
	min, max int64
	enum     []string
}

// Kafka 4.x producer defaults (ProducerConfig). linger.ms became 5 in 4.0 (KIP-1030);
// acks=all and enable.idempotence=true since 3.0.
var producerDefs = []propDef{
	{name: "acks", def: "all", kind: kindEnum, enum: []string{"all", "-1", "1", "0"}},
	{name: "linger.ms", def: "5", kind: kindMs, min: 0, max: math.MaxInt32},
	{name: "batch.size", def: "16384", kind: kindInt, min: 0, max: 1 << 30},
	{name: "compression.type", def: "none", kind: kindEnum, enum: []string{"none", "gzip", "snappy", "lz4", "zstd"}},
	{name: "compression.gzip.level", def: "-1", kind: kindInt, min: -1, max: 9},
	{name: "compression.zstd.level", def: "3", kind: kindInt, min: -131072, max: 22},
	{name: "enable.idempotence", def: "true", kind: kindBool},
	{name: "max.in.flight.requests.per.connection", def: "5", kind: kindInt, min: 1, max: math.MaxInt32},
	{name: "buffer.memory", def: "33554432", kind: kindInt, min: 0, max: math.MaxInt64},
	{name: "max.request.size", def: "1048576", kind: kindInt, min: 1 << 10, max: 1 << 30},
	{name: "request.timeout.ms", def: "30000", kind: kindMs, min: 0, max: math.MaxInt32},
	{name: "delivery.timeout.ms", def: "120000", kind: kindMs, min: 0, max: math.MaxInt32},
	{name: "retries", def: "2147483647", kind: kindInt, min: 0, max: math.MaxInt32},
	{name: "retry.backoff.ms", def: "100", kind: kindMs, min: 0, max: math.MaxInt32},
	{name: "retry.backoff.max.ms", def: "1000", kind: kindMs, min: 0, max: math.MaxInt32},
	{name: "client.id", def: "", kind: kindString},
	{name: "partitioner.class", def: "", kind: kindEnum, enum: []string{"",
		"org.apache.kafka.clients.producer.RoundRobinPartitioner",
		"org.apache.kafka.clients.producer.UniformStickyPartitioner",
		"org.apache.kafka.clients.producer.internals.DefaultPartitioner"}},
	{name: "partitioner.ignore.keys", def: "false", kind: kindBool},
	{name: "partitioner.adaptive.partitioning.enable", def: "true", kind: kindBool},
	{name: "partitioner.availability.timeout.ms", def: "0", kind: kindMs, min: 0, max: 0},
	{name: "metadata.max.age.ms", def: "300000", kind: kindMs, min: 0, max: math.MaxInt32},
	{name: "connections.max.idle.ms", def: "540000", kind: kindMs, min: 0, max: math.MaxInt32},
}

// Kafka 4.x consumer defaults (ConsumerConfig), except auto.offset.reset: plimsoll's topics
// are created empty by the run, so "earliest" loses nothing and "latest" could skip records
// produced before a partition's first fetch.
var consumerDefs = []propDef{
	{name: "fetch.min.bytes", def: "1", kind: kindInt, min: 0, max: math.MaxInt32},
	{name: "fetch.max.wait.ms", def: "500", kind: kindMs, min: 0, max: math.MaxInt32},
	{name: "fetch.max.bytes", def: "52428800", kind: kindInt, min: 1, max: math.MaxInt32},
	{name: "max.partition.fetch.bytes", def: "1048576", kind: kindInt, min: 1, max: math.MaxInt32},
	{name: "auto.offset.reset", def: "earliest", kind: kindEnum, enum: []string{"earliest", "latest", "none"}},
	{name: "isolation.level", def: "read_uncommitted", kind: kindEnum, enum: []string{"read_uncommitted", "read_committed"}},
	{name: "session.timeout.ms", def: "45000", kind: kindMs, min: 1, max: math.MaxInt32},
	{name: "heartbeat.interval.ms", def: "3000", kind: kindMs, min: 1, max: math.MaxInt32},
	{name: "max.poll.interval.ms", def: "300000", kind: kindMs, min: 1, max: math.MaxInt32},
	{name: "enable.auto.commit", def: "true", kind: kindBool},
	{name: "auto.commit.interval.ms", def: "5000", kind: kindMs, min: 1, max: math.MaxInt32},
	{name: "partition.assignment.strategy", def: "org.apache.kafka.clients.consumer.RangeAssignor,org.apache.kafka.clients.consumer.CooperativeStickyAssignor", kind: kindString},
	{name: "group.protocol", def: "classic", kind: kindEnum, enum: []string{"classic", "consumer"}},
	{name: "max.poll.records", def: "500", kind: kindInt, min: 1, max: math.MaxInt32},
	{name: "check.crcs", def: "true", kind: kindBool},
	{name: "client.id", def: "", kind: kindString},
	{name: "client.rack", def: "", kind: kindString},
	{name: "request.timeout.ms", def: "30000", kind: kindMs, min: 0, max: math.MaxInt32},
	{name: "default.api.timeout.ms", def: "60000", kind: kindMs, min: 0, max: math.MaxInt32},
	{name: "metadata.max.age.ms", def: "300000", kind: kindMs, min: 0, max: math.MaxInt32},
	{name: "connections.max.idle.ms", def: "540000", kind: kindMs, min: 0, max: math.MaxInt32},
}

// notApplicable are accepted and recorded as ignored, with the reason: they make sense for a
// Java client but not for a load generator that sends raw bytes to a given target.
var notApplicable = map[string]string{
	"key.serializer":     "plimsoll sends raw bytes",
	"value.serializer":   "plimsoll sends raw bytes",
	"key.deserializer":   "plimsoll reads raw bytes",
	"value.deserializer": "plimsoll reads raw bytes",
	"bootstrap.servers":  "the target (--bootstrap) decides where to connect",
}

// Java client assignors, as partition.assignment.strategy names them.
var balancers = map[string]func() kgo.GroupBalancer{
	"org.apache.kafka.clients.consumer.RangeAssignor":             kgo.RangeBalancer,
	"org.apache.kafka.clients.consumer.RoundRobinAssignor":        kgo.RoundRobinBalancer,
	"org.apache.kafka.clients.consumer.StickyAssignor":            kgo.StickyBalancer,
	"org.apache.kafka.clients.consumer.CooperativeStickyAssignor": kgo.CooperativeStickyBalancer,
}

// resolved holds validated properties: the defaults overlaid with the user's values.
type resolved struct {
	vals  map[string]string
	set   map[string]bool
	notes []string
}

func (r *resolved) str(k string) string { return r.vals[k] }
func (r *resolved) int(k string) int64  { v, _ := strconv.ParseInt(r.vals[k], 10, 64); return v }
func (r *resolved) bool(k string) bool  { return r.vals[k] == "true" }
func (r *resolved) ms(k string) time.Duration {
	return time.Duration(r.int(k)) * time.Millisecond
}

func (r *resolved) props() ClientProps {
	cp := ClientProps{Props: r.vals, Notes: r.notes}
	for k := range r.set {
		cp.Set = append(cp.Set, k)
	}
	sort.Strings(cp.Set)
	return cp
}

// resolve overlays common then specific user properties on defs' defaults. A common property
// that is not defined for this client kind is skipped (the other kind may use it); a specific
// one is an error.
func resolve(kind string, defs []propDef, common, specific map[string]string) (*resolved, error) {
	r := &resolved{vals: map[string]string{}, set: map[string]bool{}}
	byName := map[string]propDef{}
	for _, d := range defs {
		byName[d.name] = d
		if d.def != "" {
			r.vals[d.name] = d.def
		}
	}
	apply := func(src map[string]string, isCommon bool) error {
		for _, k := range sortedKeys(src) {
			v := strings.TrimSpace(src[k])
			d, ok := byName[k]
			if !ok {
				if why, na := notApplicable[k]; na {
					r.notes = append(r.notes, fmt.Sprintf("%s ignored: %s", k, why))
					continue
				}
				if isCommon && knownElsewhere(k) {
					continue
				}
				return unknownProp(kind, k)
			}
			cv, err := checkProp(d, v)
			if err != nil {
				return err
			}
			r.vals[k], r.set[k] = cv, true
		}
		return nil
	}
	if err := apply(common, true); err != nil {
		return nil, err
	}
	if err := apply(specific, false); err != nil {
		return nil, err
	}
	return r, nil
}

func knownElsewhere(k string) bool {
	for _, defs := range [][]propDef{producerDefs, consumerDefs} {
		for _, d := range defs {
			if d.name == k {
				return true
			}
		}
	}
	return false
}

func unknownProp(kind, k string) error {
	switch {
	case k == "security.protocol" || strings.HasPrefix(k, "ssl.") || strings.HasPrefix(k, "sasl."):
		return fmt.Errorf("%w: %s %s: security is configured on the target (--tls-ca, --tls-cert, --tls-key, --sasl-mechanism, --sasl-user), not as a client property", ErrUnknownProperty, kind, k)
	case k == "group.id" || k == "group.instance.id":
		return fmt.Errorf("%w: %s %s: plimsoll names its consumer groups after the run (topic prefix); remove it", ErrUnknownProperty, kind, k)
	case strings.HasPrefix(k, "transaction"):
		return fmt.Errorf("%w: %s %s: transactional producing is not supported by the load generator; remove it", ErrUnknownProperty, kind, k)
	}
	return fmt.Errorf("%w: %s %s has no franz-go equivalent in plimsoll; remove it (supported: %s)", ErrUnknownProperty, kind, k, supportedList(kind))
}

func supportedList(kind string) string {
	defs := producerDefs
	if kind == "consumer" {
		defs = consumerDefs
	}
	names := make([]string, len(defs))
	for i, d := range defs {
		names[i] = d.name
	}
	return strings.Join(names, ", ")
}

func checkProp(d propDef, v string) (string, error) {
	bad := func(why string) (string, error) {
		return "", fmt.Errorf("%w: %s=%q: %s", ErrBadProperty, d.name, v, why)
	}
	switch d.kind {
	case kindInt, kindMs:
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			return bad("not an integer")
		}
		if n < d.min || n > d.max {
			return bad(fmt.Sprintf("must be between %d and %d", d.min, d.max))
		}
		return strconv.FormatInt(n, 10), nil
	case kindBool:
		switch strings.ToLower(v) {
		case "true", "false":
			return strings.ToLower(v), nil
		}
		return bad("must be true or false")
	case kindEnum:
		for _, e := range d.enum {
			if strings.EqualFold(v, e) {
				return e, nil
			}
		}
		return bad("must be one of " + strings.Join(d.enum, ", "))
	}
	return v, nil
}

func sortedKeys(m map[string]string) []string {
	ks := make([]string, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return ks
}

// producerSetup is a resolved producer configuration.
type producerSetup struct {
	opts      []kgo.Opt
	props     ClientProps
	maxRecs   int // records a producer may have buffered (its pool size)
	batchSize int
}

// producerOpts maps Kafka producer properties to franz-go options. recordBytes is the user
// size of one record (key + value) and sizes the buffer in records.
func producerOpts(common, specific map[string]string, recordBytes int) (*producerSetup, error) {
	r, err := resolve("producer", producerDefs, common, specific)
	if err != nil {
		return nil, err
	}
	var o []kgo.Opt
	note := func(f string, a ...any) { r.notes = append(r.notes, fmt.Sprintf(f, a...)) }

	acks := r.str("acks")
	idem := r.bool("enable.idempotence")
	if acks != "all" && acks != "-1" {
		if r.set["enable.idempotence"] && idem {
			return nil, fmt.Errorf("%w: enable.idempotence=true requires acks=all (got acks=%s); set one of them differently", ErrBadProperty, acks)
		}
		if idem {
			note("enable.idempotence=false: implied by acks=%s, as the Java client does", acks)
		}
		idem = false
		r.vals["enable.idempotence"] = "false"
	}
	switch acks {
	case "all", "-1":
		o = append(o, kgo.RequiredAcks(kgo.AllISRAcks()))
		r.vals["acks"] = "all"
	case "1":
		o = append(o, kgo.RequiredAcks(kgo.LeaderAck()))
	case "0":
		o = append(o, kgo.RequiredAcks(kgo.NoAck()))
	}
	inflight := int(r.int("max.in.flight.requests.per.connection"))
	if idem {
		if r.set["max.in.flight.requests.per.connection"] && inflight != 1 {
			return nil, fmt.Errorf("%w: max.in.flight.requests.per.connection=%d with enable.idempotence=true: franz-go keeps one idempotent produce request in flight per broker; set enable.idempotence=false (and acks) to allow %d, or remove the property", ErrBadProperty, inflight, inflight)
		}
		r.vals["max.in.flight.requests.per.connection"] = "1"
		note("max.in.flight.requests.per.connection=1: franz-go keeps one idempotent produce request in flight per broker (Java: up to 5), so one partition moves at most batch.size bytes per round trip; raise batch.size, or set enable.idempotence=false and max.in.flight.requests.per.connection, if that limits the rate")
	} else {
		o = append(o, kgo.DisableIdempotentWrite(), kgo.MaxProduceRequestsInflightPerBroker(inflight))
	}

	o = append(o, kgo.ProducerLinger(r.ms("linger.ms")))

	// Kafka's batch.size is a target batch size; a record larger than it still gets a batch of
	// its own. franz-go's ProducerBatchMaxBytes is a hard cap, so raise it to fit one record.
	batch := int(r.int("batch.size"))
	const batchOverhead = 61 + 21 // v2 batch header + worst-case record framing
	eff := max(batch, recordBytes+batchOverhead, 512)
	if eff != batch {
		note("batch.size=%d: franz-go caps batches at %d bytes so that one %d-byte record fits (Java sends it in a batch of its own)", batch, eff, recordBytes)
	}
	o = append(o, kgo.ProducerBatchMaxBytes(int32(eff)))

	mrs := int(r.int("max.request.size"))
	if mrs < eff {
		return nil, fmt.Errorf("%w: max.request.size=%d is smaller than a batch (%d bytes); raise it", ErrBadProperty, mrs, eff)
	}
	o = append(o, kgo.BrokerMaxWriteBytes(int32(mrs)))

	codec, err := compressionCodec(r)
	if err != nil {
		return nil, err
	}
	o = append(o, kgo.ProducerBatchCompression(codec))
	if r.str("compression.type") == "lz4" {
		note("compression.type=lz4: franz-go uses lz4's fast mode (Java's compression.lz4.level 9 is an HC level)")
	}

	bufMem := r.int("buffer.memory")
	recs := int64(math.MaxInt32)
	if recordBytes > 0 && bufMem > 0 {
		recs = max(bufMem/int64(recordBytes), 1)
	}
	recs = min(recs, 1<<22) // pooled records are real memory; 4 Mi records is beyond any sane buffer
	o = append(o, kgo.MaxBufferedRecords(int(recs)+bufferSlack), kgo.MaxBufferedBytes(int(bufMem)+recordBytes*bufferSlack))
	note("buffer.memory=%d: at most %d records of %d bytes buffered per producer", bufMem, recs, recordBytes)

	if d, l, rt := r.int("delivery.timeout.ms"), r.int("linger.ms"), r.int("request.timeout.ms"); d < l+rt {
		return nil, fmt.Errorf("%w: delivery.timeout.ms=%d must be at least linger.ms + request.timeout.ms = %d, as the Java client requires", ErrBadProperty, d, l+rt)
	}
	o = append(o,
		kgo.ProduceRequestTimeout(r.ms("request.timeout.ms")),
		kgo.RecordDeliveryTimeout(r.ms("delivery.timeout.ms")),
		kgo.RecordRetries(int(r.int("retries"))),
		kgo.MetadataMaxAge(r.ms("metadata.max.age.ms")),
		kgo.ConnIdleTimeout(r.ms("connections.max.idle.ms")),
		kgo.RetryBackoffFn(javaBackoff(r.ms("retry.backoff.ms"), r.ms("retry.backoff.max.ms"))),
	)
	if id := r.str("client.id"); id != "" {
		o = append(o, kgo.ClientID(id))
	}

	part, err := partitioner(r, batch)
	if err != nil {
		return nil, err
	}
	o = append(o, kgo.RecordPartitioner(part))
	return &producerSetup{opts: o, props: r.props(), maxRecs: int(recs), batchSize: eff}, nil
}

// bufferSlack is headroom above the pool size in franz-go's own buffer limit: franz-go lowers
// its count just after the promise returns a record to the pool, and the producer must never
// block inside Produce (that costs a goroutine); the pool is the limit that counts.
const bufferSlack = 256

func compressionCodec(r *resolved) (kgo.CompressionCodec, error) {
	switch r.str("compression.type") {
	case "gzip":
		c := kgo.GzipCompression()
		if l := int(r.int("compression.gzip.level")); l != -1 {
			if l == 0 {
				return c, fmt.Errorf("%w: compression.gzip.level=0: use 1..9 or -1", ErrBadProperty)
			}
			c = c.WithLevel(l)
		}
		return c, nil
	case "snappy":
		return kgo.SnappyCompression(), nil
	case "lz4":
		return kgo.Lz4Compression(), nil
	case "zstd":
		return kgo.ZstdCompression().WithLevel(int(zstd.EncoderLevelFromZstd(int(r.int("compression.zstd.level"))))), nil
	}
	return kgo.NoCompression(), nil
}

// javaBackoff mirrors the Java client: retry.backoff.ms doubling up to retry.backoff.max.ms.
func javaBackoff(base, maxB time.Duration) func(int) time.Duration {
	return func(fails int) time.Duration {
		if fails <= 1 || base <= 0 {
			return base
		}
		d := base
		for i := 1; i < fails && d < maxB; i++ {
			d *= 2
		}
		return min(d, max(maxB, base))
	}
}

func partitioner(r *resolved, batch int) (kgo.Partitioner, error) {
	ignoreKeys := r.bool("partitioner.ignore.keys")
	switch r.str("partitioner.class") {
	case "org.apache.kafka.clients.producer.RoundRobinPartitioner":
		return kgo.RoundRobinPartitioner(), nil
	case "org.apache.kafka.clients.producer.UniformStickyPartitioner":
		return kgo.StickyPartitioner(), nil
	case "org.apache.kafka.clients.producer.internals.DefaultPartitioner":
		return kgo.StickyKeyPartitioner(nil), nil
	}
	// Kafka's built-in partitioner (KIP-794): murmur2 on keys unless ignored, otherwise switch
	// partition after batch.size bytes, adaptively favouring faster brokers.
	return kgo.UniformBytesPartitioner(max(batch, 1), r.bool("partitioner.adaptive.partitioning.enable"), !ignoreKeys, nil), nil
}

// consumerSetup is a resolved consumer configuration.
type consumerSetup struct {
	opts      []kgo.Opt
	props     ClientProps
	pollLimit int // max.poll.records when set by the user, else 0 (take whatever is buffered)
	autoReset string
}

// consumerOpts maps Kafka consumer properties to franz-go options (group options included;
// the group name and topics are added by the caller).
func consumerOpts(common, specific map[string]string) (*consumerSetup, error) {
	r, err := resolve("consumer", consumerDefs, common, specific)
	if err != nil {
		return nil, err
	}
	o := []kgo.Opt{
		kgo.FetchMinBytes(int32(r.int("fetch.min.bytes"))),
		kgo.FetchMaxWait(r.ms("fetch.max.wait.ms")),
		kgo.FetchMaxBytes(int32(r.int("fetch.max.bytes"))),
		kgo.FetchMaxPartitionBytes(int32(r.int("max.partition.fetch.bytes"))),
		kgo.SessionTimeout(r.ms("session.timeout.ms")),
		kgo.HeartbeatInterval(r.ms("heartbeat.interval.ms")),
		kgo.RebalanceTimeout(r.ms("max.poll.interval.ms")),
		kgo.MetadataMaxAge(r.ms("metadata.max.age.ms")),
		kgo.ConnIdleTimeout(r.ms("connections.max.idle.ms")),
		kgo.RequestTimeoutOverhead(r.ms("request.timeout.ms")),
		kgo.RetryTimeout(r.ms("default.api.timeout.ms")),
	}
	switch r.str("auto.offset.reset") {
	case "earliest":
		o = append(o, kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()))
	case "latest":
		o = append(o, kgo.ConsumeResetOffset(kgo.NewOffset().AtEnd()))
	case "none":
		o = append(o, kgo.ConsumeResetOffset(kgo.NoResetOffset()))
	}
	if r.str("isolation.level") == "read_committed" {
		o = append(o, kgo.FetchIsolationLevel(kgo.ReadCommitted()))
	}
	if !r.bool("enable.auto.commit") {
		o = append(o, kgo.DisableAutoCommit())
	} else {
		o = append(o, kgo.AutoCommitInterval(r.ms("auto.commit.interval.ms")))
	}
	if !r.bool("check.crcs") {
		o = append(o, kgo.DisableFetchCRCValidation())
	}
	var bs []kgo.GroupBalancer
	for _, name := range strings.Split(r.str("partition.assignment.strategy"), ",") {
		name = strings.TrimSpace(name)
		if name == "" {
			continue
		}
		mk, ok := balancers[name]
		if !ok {
			return nil, fmt.Errorf("%w: partition.assignment.strategy %q: use RangeAssignor, RoundRobinAssignor, StickyAssignor or CooperativeStickyAssignor (org.apache.kafka.clients.consumer.*)", ErrBadProperty, name)
		}
		bs = append(bs, mk())
	}
	if len(bs) == 0 {
		return nil, fmt.Errorf("%w: partition.assignment.strategy is empty", ErrBadProperty)
	}
	o = append(o, kgo.Balancers(bs...))
	if r.str("group.protocol") == "consumer" {
		o = append(o, kgo.ServerSideBalancer())
		r.notes = append(r.notes, "group.protocol=consumer: KIP-848 server-side assignment when the brokers support it")
	}
	if id := r.str("client.id"); id != "" {
		o = append(o, kgo.ClientID(id))
	}
	if rack := r.str("client.rack"); rack != "" {
		o = append(o, kgo.Rack(rack))
	}
	cs := &consumerSetup{autoReset: r.str("auto.offset.reset")}
	if r.set["max.poll.records"] {
		cs.pollLimit = int(r.int("max.poll.records"))
	} else {
		delete(r.vals, "max.poll.records")
		r.notes = append(r.notes, "max.poll.records: not set, so each poll takes every buffered record (Java polls 500 at a time)")
	}
	cs.opts, cs.props = o, r.props()
	return cs, nil
}
