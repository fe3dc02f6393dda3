package recbatch

import (
	"encoding/binary"
	"fmt"
)

// Sizes and positions in a v2 record batch (Kafka's DefaultRecordBatch layout).
const (
	logOverhead  = 12 // base offset (8) + batch length (4): the bytes the length does not count
	magicAt      = 16 // the magic byte's position, the same in v0/v1 message sets
	crcAt        = 17
	attributesAt = 21 // the CRC covers the bytes from here to the end of the batch
	headerSize   = 61 // every field before the records
)

// Codec is a batch's compression codec, the low three bits of its attributes.
type Codec int8

// The codecs Kafka defines.
const (
	None   Codec = 0
	Gzip   Codec = 1
	Snappy Codec = 2
	LZ4    Codec = 3
	Zstd   Codec = 4
)

// String names the codec as Kafka's compression.type does.
func (c Codec) String() string {
	switch c {
	case None:
		return "none"
	case Gzip:
		return "gzip"
	case Snappy:
		return "snappy"
	case LZ4:
		return "lz4"
	case Zstd:
		return "zstd"
	}
	return fmt.Sprintf("codec(%d)", int8(c))
}

// Attribute bits of a batch.
const (
	codecMask         = 0x07
	logAppendTimeBit  = 0x08
	transactionalBit  = 0x10
	controlBit        = 0x20
	deleteHorizonBit  = 0x40
	recordMinEncoding = 7 // the smallest record: length, attributes, three deltas, key and value lengths, header count: one byte each
)

// Batch is the header of one v2 record batch.
type Batch struct {
	BaseOffset           int64
	Length               int32 // the bytes after the length field: the batch is Length+12 bytes
	PartitionLeaderEpoch int32
	Magic                int8
	CRC                  uint32 // CRC-32C of the bytes from the attributes to the end, checked
	Attributes           int16
	LastOffsetDelta      int32
	BaseTimestamp        int64 // milliseconds since the epoch
	MaxTimestamp         int64
	ProducerID           int64
	ProducerEpoch        int16
	BaseSequence         int32
	NumRecords           int32
}

// Codec returns the batch's compression codec.
func (b *Batch) Codec() Codec { return Codec(b.Attributes & codecMask) }

// LogAppendTime reports whether the broker stamped the batch (timestamp type LogAppendTime):
// then every record's timestamp is MaxTimestamp.
func (b *Batch) LogAppendTime() bool { return b.Attributes&logAppendTimeBit != 0 }

// Transactional reports whether the batch was written in a transaction.
func (b *Batch) Transactional() bool { return b.Attributes&transactionalBit != 0 }

// Control reports whether the batch holds a control record (a transaction marker) instead of
// data: a consumer skips it.
func (b *Batch) Control() bool { return b.Attributes&controlBit != 0 }

// HasDeleteHorizon reports whether compaction set the batch's delete horizon (then
// BaseTimestamp is that horizon).
func (b *Batch) HasDeleteHorizon() bool { return b.Attributes&deleteHorizonBit != 0 }

// LastOffset returns the offset of the batch's last record (as written, even if compaction
// removed it).
func (b *Batch) LastOffset() int64 { return b.BaseOffset + int64(b.LastOffsetDelta) }

// Size returns the whole batch's size in bytes.
func (b *Batch) Size() int { return int(b.Length) + logOverhead }

// decodeHeader fills b from the first headerSize bytes of a batch.
func (b *Batch) decodeHeader(p []byte) {
	_ = p[headerSize-1]
	be := binary.BigEndian
	b.BaseOffset = int64(be.Uint64(p[0:]))
	b.Length = int32(be.Uint32(p[8:]))
	b.PartitionLeaderEpoch = int32(be.Uint32(p[12:]))
	b.Magic = int8(p[16])
	b.CRC = be.Uint32(p[17:])
	b.Attributes = int16(be.Uint16(p[21:]))
	b.LastOffsetDelta = int32(be.Uint32(p[23:]))
	b.BaseTimestamp = int64(be.Uint64(p[27:]))
	b.MaxTimestamp = int64(be.Uint64(p[35:]))
	b.ProducerID = int64(be.Uint64(p[43:]))
	b.ProducerEpoch = int16(be.Uint16(p[51:]))
	b.BaseSequence = int32(be.Uint32(p[53:]))
	b.NumRecords = int32(be.Uint32(p[57:]))
}
