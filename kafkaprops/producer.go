package kafkaprops

import (
	"math"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Producer is the resolved configuration of a producer: every value Opts maps to franz-go, as
// plain data so that it can be recorded, compared and tested.
type Producer struct {
	Acks        string `json:"acks"` // all, 1 or 0
	Idempotent  bool   `json:"idempotent"`
	MaxInFlight int    `json:"max_in_flight"` // produce requests in flight per broker
	// BatchSize is Kafka's batch.size in force; BatchMaxBytes is franz-go's hard cap on a
	// batch, BatchSize raised to fit one record when a record is larger.
	BatchSize      int    `json:"batch_size"`
	BatchMaxBytes  int    `json:"batch_max_bytes"`
	MaxRequestSize int    `json:"max_request_size"`
	Compression    string `json:"compression"` // none, gzip, snappy, lz4 or zstd
	GzipLevel      int    `json:"gzip_level"`
	ZstdLevel      int    `json:"zstd_level"`
	// RecordBytes is one record's key and value; BufferMemory / RecordBytes records (at least
	// one) may be buffered: MaxBufferedRecords, the size of plimsoll's record pool.
	RecordBytes        int   `json:"record_bytes"`
	BufferMemory       int64 `json:"buffer_memory"`
	MaxBufferedRecords int   `json:"max_buffered_records"`

	Linger          time.Duration `json:"linger"`
	RequestTimeout  time.Duration `json:"request_timeout"`
	DeliveryTimeout time.Duration `json:"delivery_timeout"`
	Retries         int           `json:"retries"`
	RetryBackoff    time.Duration `json:"retry_backoff"`
	RetryBackoffMax time.Duration `json:"retry_backoff_max"`
	MetadataMaxAge  time.Duration `json:"metadata_max_age"`
	ConnIdle        time.Duration `json:"conn_idle"`
	ClientID        string        `json:"client_id,omitempty"`
	// Partitioner is partitioner.class, "" for Kafka's built-in one (KIP-794), which uses
	// IgnoreKeys and Adaptive.
	Partitioner string `json:"partitioner,omitempty"`
	IgnoreKeys  bool   `json:"ignore_keys"`
	Adaptive    bool   `json:"adaptive"`

	// Record is what a result records: every property in force, and how it was translated.
	Record ClientProps `json:"-"`
}

// ResolveProducer resolves a producer's properties for records of messageBytes of value and
// keyBytes of key; see Resolve.
func ResolveProducer(props Props, messageBytes, keyBytes int) (*Producer, error) {
	p := &Producer{RecordBytes: messageBytes + keyBytes}
	rec, err := resolveWith(RoleProducer, props, func(r *resolved) {
		produceAcks(r, p)
		produceInFlight(r, p)
		produceBatches(r, p)
		produceCompression(r, p)
		produceTimeouts(r, p)
		produceBuffer(r, p)
		produceIdentity(r, p)
	})
	if err != nil {
		return nil, err
	}
	p.Record = rec
	return p, nil
}

// produceAcks settles acks and idempotence as Kafka's ProducerConfig does: idempotence left at
// its default is turned off by acks other than all or by retries=0; set explicitly, it conflicts
// with them.
func produceAcks(r *resolved, p *Producer) {
	acks := r.str("acks")
	if acks == "-1" {
		acks = "all"
	}
	r.vals["acks"], p.Acks = acks, acks
	idem, user := r.bool("enable.idempotence"), r.set["enable.idempotence"]
	if idem && acks != "all" {
		if user {
			r.fail("acks", "acks=%s conflicts with enable.idempotence=true (%s), which needs acks=all; set acks=all or enable.idempotence=false", acks, r.origin("enable.idempotence"))
		} else {
			r.note("enable.idempotence=false: implied by acks=%s, as the Java client does", acks)
			idem = false
		}
	}
	if idem && r.int("retries") == 0 {
		if user {
			r.fail("retries", "0 conflicts with enable.idempotence=true (%s), which needs retries; set retries above 0 or enable.idempotence=false", r.origin("enable.idempotence"))
		} else {
			r.note("enable.idempotence=false: implied by retries=0, as the Java client does")
			idem = false
		}
	}
	p.Idempotent = idem
	r.vals["enable.idempotence"] = strconv.FormatBool(idem)
}

// produceInFlight: Kafka allows an idempotent producer 5 requests in flight per connection;
// franz-go keeps one, so only 1 can be honoured with idempotence.
func produceInFlight(r *resolved, p *Producer) {
	const k = "max.in.flight.requests.per.connection"
	n := r.int(k)
	if !p.Idempotent {
		p.MaxInFlight = int(n)
		return
	}
	switch {
	case n > 5:
		r.fail(k, "%d is over 5, the most an idempotent producer allows; use at most 5 or enable.idempotence=false", n)
	case r.set[k] && n != 1:
		r.fail(k, "max.in.flight.requests.per.connection=%d with enable.idempotence=true: franz-go keeps one idempotent produce request in flight per broker; set enable.idempotence=false (and acks) to allow %d, or remove the property", n, n)
	}
	r.vals[k], p.MaxInFlight = "1", 1
	r.note("max.in.flight.requests.per.connection=1: franz-go keeps one idempotent produce request in flight per broker (Java: up to 5), so one partition moves at most batch.size bytes per round trip; raise batch.size, or set enable.idempotence=false and max.in.flight.requests.per.connection, if that limits the rate")
}

// recordFraming is a v2 batch header (61 bytes) and the worst-case framing of one record (21).
const recordFraming = 61 + 21

// produceBatches applies plimsoll's batch.size rule (BatchSize) and fits one record in a batch:
// Kafka's batch.size is a target and a larger record gets a batch of its own, but franz-go's
// ProducerBatchMaxBytes is a hard cap.
func produceBatches(r *resolved, p *Producer) {
	batch := r.batchSize()
	if !r.set["batch.size"] {
		r.vals["batch.size"] = strconv.Itoa(batch)
		if batch != DefaultBatchSize {
			r.note("batch.size=%d: Kafka's default %d lowered to max.request.size; set batch.size to choose", batch, DefaultBatchSize)
		}
	}
	eff := max(batch, p.RecordBytes+recordFraming, 512)
	if eff != batch {
		r.note("batch.size=%d: franz-go caps batches at %d bytes so that one %d-byte record fits (Java sends it in a batch of its own)", batch, eff, p.RecordBytes)
	}
	if eff > 1<<30 {
		r.fail("batch.size", "%d: plimsoll's Go client (franz-go) builds batches of at most %d bytes", batch, 1<<30)
		return
	}
	const k = "max.request.size"
	if r.set[k] && !r.goLimit(k, 1<<10, 1<<30, "its bounds on a produce request") {
		return
	}
	switch mrs := r.int(k); {
	case mrs >= int64(eff):
	case r.set[k] || !r.set["batch.size"]:
		r.fail(k, "max.request.size=%d is smaller than a batch (%d bytes); raise it", mrs, eff)
	default:
		r.fail("batch.size", "%d is larger than max.request.size %d (Kafka's default); lower it or raise max.request.size", batch, mrs)
	}
	p.BatchSize, p.BatchMaxBytes, p.MaxRequestSize = batch, eff, int(r.int(k))
}

func produceCompression(r *resolved, p *Producer) {
	p.Compression = r.str("compression.type")
	p.GzipLevel, p.ZstdLevel = int(r.int("compression.gzip.level")), int(r.int("compression.zstd.level"))
	switch {
	case p.Compression == "gzip" && p.GzipLevel == 0:
		r.fail("compression.gzip.level", "compression.gzip.level=0: use 1..9 or -1")
	case p.Compression == "lz4":
		r.note("compression.type=lz4: franz-go uses lz4's fast mode (Java's compression.lz4.level 9 is an HC level)")
	}
}

// produceTimeouts derives delivery.timeout.ms as Kafka's producer does: left at its default
// and shorter than linger.ms + request.timeout.ms, it becomes that sum; set by the user, it
// conflicts.
func produceTimeouts(r *resolved, p *Producer) {
	if r.set["linger.ms"] {
		r.goLimit("linger.ms", 0, int64(time.Minute/time.Millisecond), "it lingers at most a minute")
	}
	if r.set["request.timeout.ms"] {
		r.goLimit("request.timeout.ms", 100, math.MaxInt32, "its produce request timeout is at least 100 ms")
	}
	const k = "delivery.timeout.ms"
	sum := min(r.int("linger.ms")+r.int("request.timeout.ms"), math.MaxInt32)
	switch d := r.int(k); {
	case d >= sum:
		if r.set[k] && d != 0 {
			r.goLimit(k, 1000, math.MaxInt32, "it times records out after a second at the earliest")
		}
	case r.set[k]:
		r.fail(k, "delivery.timeout.ms=%d must be at least linger.ms + request.timeout.ms = %d, as the Java client requires", d, sum)
	default:
		r.vals[k] = strconv.FormatInt(sum, 10)
		r.note("delivery.timeout.ms=%d: linger.ms + request.timeout.ms, raised from Kafka's default %s as the Java client does", sum, clientIndex[k].Default)
	}
	p.Linger, p.RequestTimeout, p.DeliveryTimeout = r.ms("linger.ms"), r.ms("request.timeout.ms"), r.ms(k)
	p.Retries = int(r.int("retries"))
	p.RetryBackoff, p.RetryBackoffMax = r.ms("retry.backoff.ms"), r.ms("retry.backoff.max.ms")
	p.MetadataMaxAge, p.ConnIdle = clientAges(r)
}

// clientAges checks and returns metadata.max.age.ms and connections.max.idle.ms, which both
// clients map alike.
func clientAges(r *resolved) (metadata, idle time.Duration) {
	if r.set["metadata.max.age.ms"] {
		r.goLimit("metadata.max.age.ms", 10, int64(time.Hour/time.Millisecond), "it refreshes metadata at most every 10 ms and at least hourly")
	}
	if r.set["connections.max.idle.ms"] {
		r.goLimit("connections.max.idle.ms", 100, int64(15*time.Minute/time.Millisecond), "it closes idle connections after 100 ms to 15 min")
	}
	return r.ms("metadata.max.age.ms"), r.ms("connections.max.idle.ms")
}

// produceBuffer sizes the producer's buffer in records: buffer.memory of them, at least one, at
// most 4 Mi (pooled records are real memory; 4 Mi records is beyond any sane buffer).
func produceBuffer(r *resolved, p *Producer) {
	p.BufferMemory = r.int("buffer.memory")
	recs := int64(math.MaxInt32)
	if p.RecordBytes > 0 && p.BufferMemory > 0 {
		recs = max(p.BufferMemory/int64(p.RecordBytes), 1)
	}
	p.MaxBufferedRecords = int(min(recs, 1<<22))
	r.note("buffer.memory=%d: at most %d records of %d bytes buffered per producer", p.BufferMemory, p.MaxBufferedRecords, p.RecordBytes)
}

// partitioners are the Java partitioner classes plimsoll maps.
var partitioners = []string{
	"org.apache.kafka.clients.producer.RoundRobinPartitioner",
	"org.apache.kafka.clients.producer.UniformStickyPartitioner",
	"org.apache.kafka.clients.producer.internals.DefaultPartitioner",
}

func produceIdentity(r *resolved, p *Producer) {
	p.ClientID = r.str("client.id")
	if len(p.ClientID) > 256 {
		r.fail("client.id", "is %d bytes; plimsoll's Go client (franz-go) takes at most 256", len(p.ClientID))
	}
	p.Partitioner = r.str("partitioner.class")
	if p.Partitioner != "" && !slices.Contains(partitioners, p.Partitioner) {
		r.fail("partitioner.class", "%q: plimsoll maps Kafka's own partitioners only: %s, or none for the built-in one", p.Partitioner, strings.Join(partitioners, ", "))
	}
	r.goLimit("partitioner.availability.timeout.ms", 0, 0, "its adaptive partitioner has no availability timeout")
	p.IgnoreKeys, p.Adaptive = r.bool("partitioner.ignore.keys"), r.bool("partitioner.adaptive.partitioning.enable")
}
