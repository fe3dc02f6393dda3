package kafkaprops

import (
	"math"
	"time"

	"github.com/klauspost/compress/zstd"
	"github.com/twmb/franz-go/pkg/kgo"
)

// bufferSlack is headroom above the pool size in franz-go's own buffer limit: franz-go lowers
// its count just after the promise returns a record to the pool, and the producer must never
// block inside Produce (that costs a goroutine); the pool is the limit that counts.
const bufferSlack = 256

// minMetadataAge is franz-go's default least time between metadata refreshes; a lower
// metadata.max.age.ms lowers it too, as franz-go requires min <= max.
const minMetadataAge = 5 * time.Second

// Opts maps the producer's configuration to franz-go options (the seed brokers, TLS and SASL
// come from the target).
func (p *Producer) Opts() []kgo.Opt {
	o := []kgo.Opt{kgo.RequiredAcks(acks(p.Acks))}
	if !p.Idempotent {
		o = append(o, kgo.DisableIdempotentWrite(), kgo.MaxProduceRequestsInflightPerBroker(p.MaxInFlight))
	}
	o = append(o,
		kgo.ProducerLinger(p.Linger),
		kgo.ProducerBatchMaxBytes(int32(p.BatchMaxBytes)),
		kgo.BrokerMaxWriteBytes(int32(p.MaxRequestSize)),
		kgo.ProducerBatchCompression(p.codec()),
		kgo.MaxBufferedRecords(p.MaxBufferedRecords+bufferSlack),
		kgo.MaxBufferedBytes(int(p.maxBufferedBytes())),
		kgo.ProduceRequestTimeout(p.RequestTimeout),
		kgo.RecordDeliveryTimeout(p.DeliveryTimeout),
		kgo.RecordRetries(p.Retries),
		kgo.RetryBackoffFn(javaBackoff(p.RetryBackoff, p.RetryBackoffMax)),
		kgo.RecordPartitioner(p.KgoPartitioner()),
	)
	o = append(o, ageOpts(p.MetadataMaxAge, p.ConnIdle)...)
	if p.ClientID != "" {
		o = append(o, kgo.ClientID(p.ClientID))
	}
	return o
}

// maxBufferedBytes is buffer.memory and the slack's records, short of overflowing.
func (p *Producer) maxBufferedBytes() int64 {
	slack := int64(p.RecordBytes) * bufferSlack
	if p.BufferMemory > math.MaxInt64-slack {
		return math.MaxInt64
	}
	return p.BufferMemory + slack
}

func acks(a string) kgo.Acks {
	switch a {
	case "1":
		return kgo.LeaderAck()
	case "0":
		return kgo.NoAck()
	}
	return kgo.AllISRAcks()
}

// ageOpts maps metadata.max.age.ms and connections.max.idle.ms, alike for both clients.
func ageOpts(metadata, idle time.Duration) []kgo.Opt {
	o := []kgo.Opt{kgo.MetadataMaxAge(metadata), kgo.ConnIdleTimeout(idle)}
	if metadata < minMetadataAge {
		o = append(o, kgo.MetadataMinAge(metadata))
	}
	return o
}

func (p *Producer) codec() kgo.CompressionCodec {
	switch p.Compression {
	case "gzip":
		c := kgo.GzipCompression()
		if p.GzipLevel != -1 {
			c = c.WithLevel(p.GzipLevel)
		}
		return c
	case "snappy":
		return kgo.SnappyCompression()
	case "lz4":
		return kgo.Lz4Compression()
	case "zstd":
		return kgo.ZstdCompression().WithLevel(int(zstd.EncoderLevelFromZstd(p.ZstdLevel)))
	}
	return kgo.NoCompression()
}

// javaBackoff mirrors the Java client: retry.backoff.ms doubling up to retry.backoff.max.ms.
func javaBackoff(base, maxB time.Duration) func(int) time.Duration {
	return func(fails int) time.Duration {
		if fails <= 1 || base <= 0 {
			return base
		}
		d := base
		for i := 1; i < fails && d < maxB; i++ {
			if d > math.MaxInt64/2 {
				return maxB // doubling would overflow, so it is past any maximum
			}
			d *= 2
		}
		return min(d, max(maxB, base))
	}
}

// KgoPartitioner is partitioner.class as a franz-go partitioner (the one Opts sets): a run that
// writes to some partitions only wraps it.
func (p *Producer) KgoPartitioner() kgo.Partitioner {
	switch p.Partitioner {
	case "org.apache.kafka.clients.producer.RoundRobinPartitioner":
		return kgo.RoundRobinPartitioner()
	case "org.apache.kafka.clients.producer.UniformStickyPartitioner":
		return kgo.StickyPartitioner()
	case "org.apache.kafka.clients.producer.internals.DefaultPartitioner":
		return kgo.StickyKeyPartitioner(nil)
	}
	// Kafka's built-in partitioner (KIP-794): murmur2 on keys unless ignored, otherwise switch
	// partition after batch.size bytes, adaptively favouring faster brokers.
	return kgo.UniformBytesPartitioner(max(p.BatchSize, 1), p.Adaptive, !p.IgnoreKeys, nil)
}
