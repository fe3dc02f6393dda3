package recbatch

import (
	"encoding/binary"
	"fmt"
	"math"
)

// Record is one record of a v2 batch. Key, Value and the headers alias the parser's bytes and
// are valid until the next NextBatch or Reset; a null key or value is nil, an empty one a
// non-nil slice of length 0.
type Record struct {
	Attributes     int8
	TimestampDelta int64
	OffsetDelta    int32
	Offset         int64 // the batch's base offset + OffsetDelta
	Timestamp      int64 // milliseconds: base timestamp + delta, or the batch's max for LogAppendTime
	Key, Value     []byte
	NumHeaders     int32
	headers        []byte // the encoded headers, already checked
}

// Headers returns an iterator over the record's headers.
func (r *Record) Headers() Headers { return Headers{buf: r.headers, left: r.NumHeaders} }

// Headers iterates over a record's headers, each key and value a sub-slice of the record.
type Headers struct {
	buf  []byte
	left int32
}

// Next returns the next header, or ok false after the last. A null value is nil.
func (h *Headers) Next() (key, value []byte, ok bool) {
	if h.left <= 0 {
		return nil, nil, false
	}
	h.left--
	c := cursor{b: h.buf}
	key, value = c.bytes(), c.bytes()
	h.buf = c.b
	return key, value, !c.bad
}

// NextRecord decodes the current batch's next record into r. It returns false after the
// batch's last record or at an error (Err), after which the parser stays stopped until Reset.
func (p *Parser) NextRecord(r *Record) bool {
	if p.packd != nil {
		if err := p.unpack(); err != nil {
			p.err, p.left = err, 0
		}
	}
	if p.err != nil {
		return false
	}
	if p.left == 0 {
		if len(p.recs) != 0 {
			p.err = fmt.Errorf("%w at offset %d: %d bytes after its %d records", ErrCorrupt, p.batch.BaseOffset, len(p.recs), p.batch.NumRecords)
		}
		p.recs = nil
		return false
	}
	n := p.batch.NumRecords - p.left
	if err := p.decodeRecord(r); err != "" {
		p.err = fmt.Errorf("%w at offset %d: record %d of %d: %s", ErrCorrupt, p.batch.BaseOffset, n, p.batch.NumRecords, err)
		p.recs, p.left = nil, 0
		return false
	}
	p.left--
	return true
}

// decodeRecord decodes the record at the start of p.recs into r and moves past it, or names
// what is wrong with it. Its fields are read by inlined calls (varint, take); a field out of
// its range is caught by the checks after them, which a cursor gone bad (nil bytes) fails too.
func (p *Parser) decodeRecord(r *Record) string {
	c := cursor{b: p.recs}
	length := c.varint()
	if c.bad || length < 0 || length > int64(len(c.b)) {
		return "its length runs past the batch"
	}
	body := cursor{b: c.b[:length]}
	p.recs = c.b[length:]
	if len(body.b) == 0 {
		return "an empty record"
	}
	r.Attributes = int8(body.b[0])
	body.b = body.b[1:]
	r.TimestampDelta = body.varint()
	offsetDelta := body.varint()
	r.Key = body.take(body.varint())
	r.Value = body.take(body.varint())
	numHeaders := body.varint()
	if body.bad || offsetDelta != int64(int32(offsetDelta)) || numHeaders < 0 || numHeaders > math.MaxInt32 {
		return "its fields run past its length"
	}
	r.OffsetDelta, r.NumHeaders, r.headers = int32(offsetDelta), int32(numHeaders), body.b
	if numHeaders != 0 && !body.skipHeaders(r.NumHeaders) || len(body.b) != 0 {
		return "its headers do not fill its length"
	}
	p.stamp(r)
	return ""
}

// stamp sets r's absolute offset and timestamp from the batch.
func (p *Parser) stamp(r *Record) {
	b := &p.batch
	r.Offset = b.BaseOffset + int64(r.OffsetDelta)
	r.Timestamp = b.BaseTimestamp + r.TimestampDelta
	if b.LogAppendTime() {
		r.Timestamp = b.MaxTimestamp
	}
}

// cursor reads Kafka's zigzag varints and length-prefixed bytes from b, remembering the first
// failure in bad instead of returning errors.
type cursor struct {
	b   []byte
	bad bool
}

// varint reads a zigzag varint (Kafka's varlong) of at most ten bytes, as binary.Varint
// does. It is short enough for the compiler to inline: a record's fields cost no call each.
func (c *cursor) varint() int64 {
	var u uint64
	for i, x := range c.b {
		if i == binary.MaxVarintLen64 {
			break
		}
		u |= uint64(x&0x7f) << (7 * i & 63) // i < 10: the mask only spares the compiler a check
		if x < 0x80 {
			if i == binary.MaxVarintLen64-1 && x > 1 {
				break // past 64 bits
			}
			c.b = c.b[i+1:]
			return int64(u>>1) ^ -int64(u&1)
		}
	}
	c.bad, c.b = true, nil
	return 0
}

// bytes reads a varint length and that many bytes: nil for length -1, a sub-slice otherwise.
func (c *cursor) bytes() []byte { return c.take(c.varint()) }

// take returns the next n bytes as a sub-slice, nil for n == -1 (a null key, value or header
// value); any other n the bytes do not hold makes the cursor bad.
func (c *cursor) take(n int64) []byte {
	if uint64(n) > uint64(len(c.b)) {
		if n != -1 {
			c.bad, c.b = true, nil
		}
		return nil
	}
	v := c.b[:n:n]
	c.b = c.b[n:]
	return v
}

// skipHeaders moves past n headers, reporting whether they were well formed.
func (c *cursor) skipHeaders(n int32) bool {
	if int64(n)*2 > int64(len(c.b)) {
		return false
	}
	for range n {
		c.bytes()
		c.bytes()
		if c.bad {
			return false
		}
	}
	return true
}
