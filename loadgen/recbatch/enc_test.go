package recbatch

import (
	"bytes"
	"encoding/binary"
	"hash/crc32"
	"testing"

	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/snappy"
	"github.com/klauspost/compress/snappy/xerial"
	"github.com/klauspost/compress/zstd"
	"github.com/pierrec/lz4/v4"
)

// The tests' own encoder of v2 batches, written from the format's description, so that the
// parser meets batches built field by field (including malformed ones) and not only what one
// client writes.

// header is a test record's header; a nil value is a null one.
type header struct{ key, value []byte }

// rec is a test record.
type rec struct {
	attrs    int8
	tsDelta  int64
	offDelta int32
	key      []byte
	value    []byte
	headers  []header
}

// tbatch is a test batch; codec and the flag fields set its attributes.
type tbatch struct {
	base       int64
	epoch      int32
	codec      Codec
	xerial     bool // snappy in xerial framing
	appendTime bool
	txn        bool
	control    bool
	baseTs     int64
	maxTs      int64
	pid        int64
	pepoch     int16
	seq        int32
	numRecords int32 // -1: len(recs); any other value is written as it is
	recs       []rec
}

// appendBytes appends a varint length and b (length -1 for nil).
func appendBytes(dst, b []byte) []byte {
	if b == nil {
		return binary.AppendVarint(dst, -1)
	}
	return append(binary.AppendVarint(dst, int64(len(b))), b...)
}

// encodeRecord appends one record.
func encodeRecord(dst []byte, r rec) []byte {
	body := []byte{byte(r.attrs)}
	body = binary.AppendVarint(body, r.tsDelta)
	body = binary.AppendVarint(body, int64(r.offDelta))
	body = appendBytes(body, r.key)
	body = appendBytes(body, r.value)
	body = binary.AppendVarint(body, int64(len(r.headers)))
	for _, h := range r.headers {
		body = appendBytes(body, h.key)
		body = appendBytes(body, h.value)
	}
	return append(binary.AppendVarint(dst, int64(len(body))), body...)
}

// attributes returns the batch's attributes field.
func (tb tbatch) attributes() int16 {
	a := int16(tb.codec)
	if tb.appendTime {
		a |= logAppendTimeBit
	}
	if tb.txn {
		a |= transactionalBit
	}
	if tb.control {
		a |= controlBit
	}
	return a
}

// encode returns the whole batch, its CRC computed.
func (tb tbatch) encode(t testing.TB) []byte {
	var recs []byte
	lastDelta := int32(0)
	for _, r := range tb.recs {
		recs = encodeRecord(recs, r)
		lastDelta = max(lastDelta, r.offDelta)
	}
	recs = compress(t, tb.codec, tb.xerial, recs)
	n := tb.numRecords
	if n == -1 {
		n = int32(len(tb.recs))
	}
	be := binary.BigEndian
	b := be.AppendUint64(nil, uint64(tb.base))
	b = be.AppendUint32(b, uint32(headerSize-logOverhead+len(recs)))
	b = be.AppendUint32(b, uint32(tb.epoch))
	b = append(b, 2, 0, 0, 0, 0) // magic, CRC (below)
	b = be.AppendUint16(b, uint16(tb.attributes()))
	b = be.AppendUint32(b, uint32(lastDelta))
	b = be.AppendUint64(b, uint64(tb.baseTs))
	b = be.AppendUint64(b, uint64(tb.maxTs))
	b = be.AppendUint64(b, uint64(tb.pid))
	b = be.AppendUint16(b, uint16(tb.pepoch))
	b = be.AppendUint32(b, uint32(tb.seq))
	b = be.AppendUint32(b, uint32(n))
	b = append(b, recs...)
	be.PutUint32(b[crcAt:], crc32.Checksum(b[attributesAt:], castagnoli))
	return b
}

// compress compresses a batch's records with codec.
func compress(t testing.TB, c Codec, xer bool, recs []byte) []byte {
	var buf bytes.Buffer
	switch c {
	case None:
		return recs
	case Gzip:
		w := gzip.NewWriter(&buf)
		w.Write(recs)
		w.Close()
	case Snappy:
		if xer {
			return xerial.Encode(nil, recs)
		}
		return snappy.Encode(nil, recs)
	case LZ4:
		w := lz4.NewWriter(&buf)
		w.Write(recs)
		w.Close()
	case Zstd:
		e, err := zstd.NewWriter(nil)
		if err != nil {
			t.Fatal(err)
		}
		return e.EncodeAll(recs, nil)
	default:
		t.Fatalf("no codec %d", c)
	}
	return buf.Bytes()
}

// sampleRecords returns n records with varied keys, values and headers.
func sampleRecords(n int) []rec {
	rs := make([]rec, n)
	for i := range rs {
		r := rec{tsDelta: int64(i * 3), offDelta: int32(i), value: bytes.Repeat([]byte{'v', byte('a' + i%26)}, 50+i)}
		switch i % 4 {
		case 0:
			r.key = []byte("key")
		case 1:
			r.key, r.headers = nil, []header{{[]byte("h1"), []byte("x")}, {[]byte("h2"), nil}}
		case 2:
			r.key, r.value = []byte{}, []byte{}
		case 3:
			r.key, r.value = []byte("tomb"), nil
		}
		rs[i] = r
	}
	return rs
}

// xerialBlocks writes recs in xerial framing as several blocks of at most size bytes, as
// snappy-java does for a long stream.
func xerialBlocks(recs []byte, size int) []byte {
	out := append([]byte{}, xerialMagic...)
	out = binary.BigEndian.AppendUint32(out, 1)
	out = binary.BigEndian.AppendUint32(out, 1)
	for len(recs) > 0 {
		n := min(size, len(recs))
		blk := snappy.Encode(nil, recs[:n])
		out = binary.BigEndian.AppendUint32(out, uint32(len(blk)))
		out = append(out, blk...)
		recs = recs[n:]
	}
	return out
}
