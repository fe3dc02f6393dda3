package model

import (
	"fmt"
	"math"
	"strings"
)

// RecordFormat is the on-disk and on-wire format of Kafka records, by its magic byte.
type RecordFormat string

// The record formats. The zero value means FormatV2.
const (
	FormatV0 RecordFormat = "v0" // message set, magic 0 (Kafka < 0.10)
	FormatV1 RecordFormat = "v1" // message set, magic 1: adds an 8-byte timestamp (Kafka 0.10)
	FormatV2 RecordFormat = "v2" // record batch, magic 2 (Kafka >= 0.11)
)

// ParseRecordFormat accepts v0, v1 or v2 (any case).
func ParseRecordFormat(s string) (RecordFormat, error) {
	switch f := RecordFormat(strings.ToLower(strings.TrimSpace(s))); f {
	case FormatV0, FormatV1, FormatV2:
		return f, nil
	}
	return "", fmt.Errorf("%w: record format %q: use v0, v1 or v2", ErrInput, s)
}

// Sizes from Apache Kafka's record classes (clients/src/main/java/org/apache/kafka/common/record).
const (
	// BatchHeaderV2 is DefaultRecordBatch.RECORD_BATCH_OVERHEAD.
	BatchHeaderV2 = 61
	// LogOverhead is the offset (8) and size (4) before each legacy message.
	LogOverhead = 12
	// MessageHeaderV0 is crc 4 + magic 1 + attributes 1 + key length 4 + value length 4.
	MessageHeaderV0 = 14
	// MessageHeaderV1 adds the 8-byte timestamp to MessageHeaderV0.
	MessageHeaderV1 = 22
	// DefaultBatchSize is the producer's batch.size default.
	DefaultBatchSize = 16384
	// Compression ratios outside these bounds are typing errors, not data.
	minCompressionRatio, maxCompressionRatio float64 = 0.1, 1000
	// maxRecordBytes bounds a key or value: sizes are int32 on the wire.
	maxRecordBytes = math.MaxInt32
)

// Message describes the messages a producer sends, for their wire cost.
type Message struct {
	// PayloadBytes is the value's size in bytes.
	PayloadBytes int
	// KeyBytes is the key's size in bytes; 0 means a null key.
	KeyBytes int
	// Format is the record format; "" means FormatV2.
	Format RecordFormat
	// BatchSize mirrors the producer's batch.size in bytes; 0 means DefaultBatchSize (16384).
	// A value below one record's size gives one record per batch, as batch.size=0 does.
	BatchSize int
	// CompressionRatio is uncompressed over compressed size of the records in a batch (2 means
	// they shrink to half), from 0.1 to 1000; 0 or 1 means no compression. Batch headers are
	// not compressed.
	CompressionRatio float64
}

// Wire is what one message costs on the producers' wire (and on every replica's).
type Wire struct {
	// BytesPerMessage is the mean wire size of a message, its share of the batch header included.
	BytesPerMessage float64
	// OverheadBytesPerMessage is BytesPerMessage minus the (compressed) key and value.
	OverheadBytesPerMessage float64
	// RecordBytes is the mean size of one record before compression, with its own framing.
	RecordBytes float64
	// RecordsPerBatch is how many records fill a batch of BatchSize bytes (at least 1).
	RecordsPerBatch int
	// BatchHeaderBytes is the per-batch overhead shared by its records: 61 for v2, the wrapper
	// message for compressed v0/v1, 0 for uncompressed v0/v1.
	BatchHeaderBytes int
}

func (m Message) withDefaults() Message {
	if m.Format == "" {
		m.Format = FormatV2
	}
	if m.BatchSize == 0 {
		m.BatchSize = DefaultBatchSize
	}
	if m.CompressionRatio == 0 {
		m.CompressionRatio = 1
	}
	return m
}

func (m Message) validate() error {
	switch {
	case m.PayloadBytes < 0 || m.PayloadBytes > maxRecordBytes:
		return inputErrorf("message-size", "%d bytes is out of range (0..%d)", m.PayloadBytes, maxRecordBytes)
	case m.KeyBytes < 0 || m.KeyBytes > maxRecordBytes:
		return inputErrorf("key-size", "%d bytes is out of range (0 for a null key, up to %d)", m.KeyBytes, maxRecordBytes)
	case m.BatchSize < 0 || m.BatchSize > maxRecordBytes:
		return inputErrorf("batch-size", "%d bytes is out of range (0..%d)", m.BatchSize, maxRecordBytes)
	case m.CompressionRatio != 0 && !(m.CompressionRatio >= minCompressionRatio && m.CompressionRatio <= maxCompressionRatio):
		return inputErrorf("compression-ratio", "%v is out of range: give uncompressed / compressed size, from %g to %g (1 = none)",
			m.CompressionRatio, minCompressionRatio, maxCompressionRatio)
	}
	if _, err := ParseRecordFormat(string(m.Format)); err != nil && m.Format != "" {
		return inputErrorf("record-format", "%q: use v0, v1 or v2", m.Format)
	}
	return nil
}

// WireBytes computes the wire cost of a message.
//
// Record batch v2: each record is a varint length followed by attributes (1 byte), timestamp
// delta (assumed 0..63 ms from the batch's first record: 1 byte), offset delta (the record's
// index in the batch, a zigzag varint), key length and key (a null key is one byte), value
// length and value, and a header count of 0 (1 byte). A 1000-byte value with a null key is a
// 1009-byte record. The producer adds records while the 61-byte header plus the records, divided
// by the compression ratio, stay within batch.size (the first record always goes in), as
// Kafka's MemoryRecordsBuilder.hasRoomFor does; every batch is assumed full, so the header
// is shared by RecordsPerBatch records (16 of 1009 bytes in 16384). Linger can send batches
// before they are full, which costs a little more: Kafka measured 1013 bytes at ~15 records.
//
// Legacy v0/v1: each message is 12 bytes of log overhead plus 14 (v0) or 22 (v1) bytes of
// header plus key and value, so v1 costs exactly 8 bytes more than v0. Compressed, the
// messages of a batch travel inside one wrapper message whose 26/34 bytes they share.
func WireBytes(m Message) (Wire, error) {
	if err := m.validate(); err != nil {
		return Wire{}, err
	}
	m = m.withDefaults()
	c := m.CompressionRatio
	k, v := int64(m.KeyBytes), int64(m.PayloadBytes)
	var w Wire
	switch m.Format {
	case FormatV0, FormatV1:
		hdr := int64(MessageHeaderV0)
		if m.Format == FormatV1 {
			hdr = MessageHeaderV1
		}
		size := float64(LogOverhead + hdr + k + v)
		w.RecordBytes = size
		if c == 1 { // no wrapper: messages follow each other, nothing is shared
			w.RecordsPerBatch = int(max(1, int64(m.BatchSize)/int64(size)))
			w.BytesPerMessage = size
			break
		}
		w.BatchHeaderBytes = int(LogOverhead + hdr)
		one := [1]segment{{0, math.MaxInt32, size}}
		n := fitRecords(float64(m.BatchSize-w.BatchHeaderBytes)*c, one[:])
		w.RecordsPerBatch = n
		w.BytesPerMessage = size/c + float64(w.BatchHeaderBytes)/float64(n)
	default:
		segs := v2Segments(k, v)
		n := fitRecords(float64(m.BatchSize-BatchHeaderV2)*c, segs[:])
		total := 0.0
		for _, s := range segs {
			if int64(n) <= s.lo {
				break
			}
			total += float64(min(int64(n), s.hi)-s.lo) * s.size
		}
		w.RecordsPerBatch = n
		w.BatchHeaderBytes = BatchHeaderV2
		w.RecordBytes = total / float64(n)
		w.BytesPerMessage = w.RecordBytes/c + float64(BatchHeaderV2)/float64(n)
	}
	w.OverheadBytesPerMessage = w.BytesPerMessage - float64(k+v)/c
	return w, nil
}

// WireBytesPerMessage is WireBytes(m).BytesPerMessage.
func WireBytesPerMessage(m Message) (float64, error) {
	w, err := WireBytes(m)
	return w.BytesPerMessage, err
}

// segment is a run of offset deltas [lo, hi) whose records all have the same size.
type segment struct {
	lo, hi int64
	size   float64
}

// v2Segments splits the offset deltas of a batch into runs where a v2 record's size is constant:
// the offset delta's varint grows by a byte at 64, 8192, 2^20 and 2^27.
func v2Segments(k, v int64) [5]segment {
	keyLen := int64(1) // varint(-1): null key
	if k > 0 {
		keyLen = varintLen(k) + k
	}
	var segs [5]segment
	lo := int64(0)
	for i, hi := range [5]int64{64, 8192, 1 << 20, 1 << 27, math.MaxInt32} {
		body := 1 + 1 + varintLen(lo) + keyLen + varintLen(v) + v + 1
		segs[i] = segment{lo, hi, float64(varintLen(body) + body)}
		lo = hi
	}
	return segs
}

// fitRecords counts the records that fit in budget bytes (before compression), taking them in
// offset order; the first one always fits.
func fitRecords(budget float64, segs []segment) int {
	n, used := int64(0), 0.0
	for _, s := range segs {
		count := s.hi - s.lo
		if n == 0 {
			n, used, count = 1, s.size, count-1
		}
		room := math.Floor((budget - used) / s.size)
		if room <= 0 {
			break
		}
		take := min(int64(room), count)
		n += take
		used += float64(take) * s.size
		if take < count {
			break
		}
	}
	return int(n)
}

// varintLen is the size of x as a zigzag varint (Kafka's ByteUtils.sizeOfVarint).
func varintLen(x int64) int64 {
	u := uint64((x << 1) ^ (x >> 63))
	n := int64(1)
	for u >= 0x80 {
		u >>= 7
		n++
	}
	return n
}
