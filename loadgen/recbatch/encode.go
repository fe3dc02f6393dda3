package recbatch

import (
	"encoding/binary"
	"math"
)

// Writer builds one v2 record batch at a time in a buffer it keeps: Reset, Append (or
// AppendValue) once per record, then Finish with the producer fields. The buffer grows only,
// so once it has held a batch of the largest size in use, writing a batch allocates nothing.
//
// The records have CreateTime timestamps, as a producer writes them, and are compressed by
// Finish with Codec (none by default) into a second buffer the Writer keeps. The batch's base
// offset is 0 and its partition leader epoch -1: the broker assigns both. A Writer is not safe
// for concurrent use.
type Writer struct {
	// Codec compresses the batch's records at Finish (None: not compressed).
	Codec Codec

	buf    []byte // the batch: header (filled by Finish), then the records
	valAt  int    // where the last record's value starts in buf
	n      int32
	baseTs int64
	maxTs  int64
	out    []byte    // the compressed batch
	enc    *encoders // made on the first compressed batch
}

// Producer is what an idempotent or transactional producer stamps on a batch: its producer id
// and epoch and the sequence of the batch's first record. NoProducer is a plain producer's.
type Producer struct {
	ID           int64
	Epoch        int16
	BaseSequence int32
	// Transactional sets the batch's transactional attribute.
	Transactional bool
}

// NoProducer marks a batch written without idempotence: producer id, epoch and base sequence
// all -1, as Kafka's clients write them.
var NoProducer = Producer{ID: -1, Epoch: -1, BaseSequence: -1}

// RecordHeader is one header of a record to write; a nil Value is a null one, a nil Key an
// empty one (Kafka refuses null header keys).
type RecordHeader struct {
	Key, Value []byte
}

// Reset starts a new batch, keeping the buffer.
func (w *Writer) Reset() {
	if cap(w.buf) < headerSize {
		w.buf = make([]byte, headerSize, 4096)
	}
	w.buf = w.buf[:headerSize]
	w.n, w.baseTs, w.maxTs = 0, 0, 0
}

// NumRecords returns how many records the batch holds so far.
func (w *Writer) NumRecords() int { return int(w.n) }

// Len returns the batch's size in bytes if it were finished now.
func (w *Writer) Len() int { return max(len(w.buf), headerSize) }

// RecordSize returns the bytes a record with these fields takes in a batch (length prefix
// included), given its timestamp delta and offset delta: what Append would add.
func RecordSize(tsDelta int64, offsetDelta int32, keyLen, valueLen int, headers []RecordHeader) int {
	body := recordBodySize(tsDelta, offsetDelta, keyLen, valueLen, headers)
	return varintSize(int64(body)) + body
}

// recordBodySize is the bytes of a record after its length prefix. A keyLen or valueLen of -1
// is a null key or value.
func recordBodySize(tsDelta int64, offsetDelta int32, keyLen, valueLen int, headers []RecordHeader) int {
	n := 1 + varintSize(tsDelta) + varintSize(int64(offsetDelta)) + bytesSize(keyLen) + bytesSize(valueLen) +
		varintSize(int64(len(headers)))
	for _, h := range headers {
		n += bytesSize(len(h.Key)) + bytesSize(lenOrNull(h.Value))
	}
	return n
}

// Append adds a record: its timestamp (milliseconds since the epoch), key, value and headers.
// A nil key or value is written as null.
func (w *Writer) Append(timestamp int64, key, value []byte, headers []RecordHeader) {
	dst := w.appendHead(timestamp, key, lenOrNull(value), headers)
	copy(dst, value)
	w.appendHeaders(headers)
}

// AppendValue adds a record with a value of n bytes (n >= 0) and no headers, and returns the
// value's bytes in the batch for the caller to fill before Finish: a payload written in place,
// never copied. The slice is valid until the next Append, AppendValue or Reset.
func (w *Writer) AppendValue(timestamp int64, key []byte, n int) []byte {
	dst := w.appendHead(timestamp, key, n, nil)
	w.buf = binary.AppendVarint(w.buf, 0) // no headers
	return dst
}

// LastValueAt returns where the last record's value starts in the batch's records, uncompressed:
// an offset for Value, to change the value later, before Finish.
func (w *Writer) LastValueAt() int { return w.valAt }

// Value returns the n bytes at offset at (from LastValueAt) of the records written so far,
// uncompressed: writable until Finish, which compresses and checksums what they then hold.
func (w *Writer) Value(at, n int) []byte { return w.buf[at : at+n : at+n] }

// appendHead writes a record up to and including its value's bytes (left for the caller, the
// length of valueLen, or none for -1) and returns them; the headers are the caller's to add.
func (w *Writer) appendHead(timestamp int64, key []byte, valueLen int, headers []RecordHeader) []byte {
	if len(w.buf) < headerSize {
		w.Reset()
	}
	if w.n == 0 {
		w.baseTs, w.maxTs = timestamp, timestamp
	}
	w.maxTs = max(w.maxTs, timestamp)
	tsDelta := timestamp - w.baseTs
	body := recordBodySize(tsDelta, w.n, lenOrNull(key), valueLen, headers)
	w.grow(varintSize(int64(body)) + body)
	b := binary.AppendVarint(w.buf, int64(body))
	b = append(b, 0) // record attributes: unused
	b = binary.AppendVarint(b, tsDelta)
	b = binary.AppendVarint(b, int64(w.n))
	b = appendLenBytes(b, key)
	b = binary.AppendVarint(b, int64(valueLen))
	at := len(b)
	w.valAt = at
	b = b[:at+max(valueLen, 0)]
	w.buf = b
	w.n++
	return b[at:]
}

// appendHeaders writes a record's header count and headers.
func (w *Writer) appendHeaders(headers []RecordHeader) {
	b := binary.AppendVarint(w.buf, int64(len(headers)))
	for _, h := range headers {
		b = binary.AppendVarint(b, int64(len(h.Key))) // a header key is never null in Kafka
		b = append(b, h.Key...)
		b = appendLenBytes(b, h.Value)
	}
	w.buf = b
}

// grow makes room for n more bytes, doubling the buffer when it must.
func (w *Writer) grow(n int) {
	if len(w.buf)+n <= cap(w.buf) {
		return
	}
	nb := make([]byte, len(w.buf), max(2*cap(w.buf), len(w.buf)+n))
	copy(nb, w.buf)
	w.buf = nb
}

// Finish writes the batch's header (its producer fields from p) and CRC-32C, compressing the
// records with Codec, and returns the whole batch, which aliases the Writer's buffers: valid
// until the next Reset, Append, AppendValue or Finish. A batch with no records is still a
// well-formed batch, which Kafka refuses; a producer does not send one. Should a codec fail
// (none of them does on bytes in memory), the batch is written uncompressed.
func (w *Writer) Finish(p Producer) []byte {
	if len(w.buf) < headerSize {
		w.Reset()
	}
	b := w.buf
	be := binary.BigEndian
	be.PutUint64(b[0:], 0)                          // base offset: the broker's to assign
	be.PutUint32(b[8:], uint32(len(b)-logOverhead)) // batch length
	be.PutUint32(b[12:], math.MaxUint32)            // partition leader epoch -1
	b[magicAt] = 2
	attrs := int16(0)
	if p.Transactional {
		attrs |= transactionalBit
	}
	be.PutUint16(b[attributesAt:], uint16(attrs))
	be.PutUint32(b[23:], uint32(max(w.n-1, 0))) // last offset delta
	be.PutUint64(b[27:], uint64(w.baseTs))
	be.PutUint64(b[35:], uint64(w.maxTs))
	be.PutUint32(b[57:], uint32(w.n))
	if w.Codec != None {
		if w.enc == nil {
			w.enc = &encoders{}
		}
		out, err := w.enc.compress(w.Codec, append(w.out[:0], b[:headerSize]...), b[headerSize:])
		if err == nil {
			w.out, b = out, out
			be.PutUint32(b[8:], uint32(len(b)-logOverhead))
			be.PutUint16(b[attributesAt:], uint16(attrs)|uint16(w.Codec)&codecMask)
		}
	}
	Restamp(b, p)
	return b
}

// Restamp rewrites a finished batch's producer id, epoch, base sequence and transactional
// attribute and its CRC-32C: a batch kept for a retry under a new producer id or epoch. b must
// be a whole v2 batch.
func Restamp(b []byte, p Producer) {
	be := binary.BigEndian
	attrs := be.Uint16(b[attributesAt:]) &^ transactionalBit
	if p.Transactional {
		attrs |= transactionalBit
	}
	be.PutUint16(b[attributesAt:], attrs)
	be.PutUint64(b[43:], uint64(p.ID))
	be.PutUint16(b[51:], uint16(p.Epoch))
	be.PutUint32(b[53:], uint32(p.BaseSequence))
	be.PutUint32(b[crcAt:], crc32Checksum(b[attributesAt:]))
}

// lenOrNull is b's length as a record field carries it: -1 for nil.
func lenOrNull(b []byte) int {
	if b == nil {
		return -1
	}
	return len(b)
}

// appendLenBytes appends b's varint length and b (length -1 for nil).
func appendLenBytes(dst, b []byte) []byte {
	if b == nil {
		return binary.AppendVarint(dst, -1)
	}
	return append(binary.AppendVarint(dst, int64(len(b))), b...)
}

// bytesSize is the encoded size of a length-prefixed field of n bytes (-1: null).
func bytesSize(n int) int {
	if n < 0 {
		return varintSize(-1)
	}
	return varintSize(int64(n)) + n
}

// varintSize is the size of v as a zigzag varint.
func varintSize(v int64) int {
	u := uint64(v<<1) ^ uint64(v>>63)
	n := 1
	for u >= 0x80 {
		u >>= 7
		n++
	}
	return n
}
