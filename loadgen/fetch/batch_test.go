package fetch

import (
	"encoding/binary"
	"hash/crc32"
)

// testBatch is a v2 record batch the tests encode themselves: uncompressed, one record per
// value, offsets from base.
type testBatch struct {
	base     int64
	epoch    int32
	attrs    int16 // 0x10 transactional, 0x20 control
	pid      int64
	key      []byte // every record's key; nil: none
	values   [][]byte
	lastDelt int32 // the last offset delta; 0: len(values)-1
}

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// appendTestBatch appends b's bytes to dst.
func appendTestBatch(dst []byte, b testBatch) []byte {
	var recs []byte
	for i, v := range b.values {
		var r []byte
		r = append(r, 0)                          // attributes
		r = binary.AppendVarint(r, 0)             // timestamp delta
		r = binary.AppendVarint(r, int64(i))      // offset delta
		r = binary.AppendVarint(r, -1)            // no key
		r = binary.AppendVarint(r, int64(len(v))) // value
		r = append(r, v...)                       //
		r = binary.AppendVarint(r, 0)             // headers
		recs = binary.AppendVarint(recs, int64(len(r)))
		recs = append(recs, r...)
	}
	last := b.lastDelt
	if last == 0 {
		last = int32(len(b.values) - 1)
	}
	var h []byte
	h = binary.BigEndian.AppendUint16(h, uint16(b.attrs))
	h = binary.BigEndian.AppendUint32(h, uint32(last))
	h = binary.BigEndian.AppendUint64(h, 1000) // base timestamp
	h = binary.BigEndian.AppendUint64(h, 1000) // max timestamp
	h = binary.BigEndian.AppendUint64(h, uint64(b.pid))
	h = binary.BigEndian.AppendUint16(h, 0)          // producer epoch
	h = binary.BigEndian.AppendUint32(h, 0xffffffff) // base sequence
	h = binary.BigEndian.AppendUint32(h, uint32(len(b.values)))
	h = append(h, recs...)
	dst = binary.BigEndian.AppendUint64(dst, uint64(b.base))
	dst = binary.BigEndian.AppendUint32(dst, uint32(4+1+4+len(h)))
	dst = binary.BigEndian.AppendUint32(dst, uint32(b.epoch))
	dst = append(dst, 2)
	dst = binary.BigEndian.AppendUint32(dst, crc32.Checksum(h, castagnoli))
	return append(dst, h...)
}

// controlKey is a control record's key: version 0 and the marker type (0 abort, 1 commit).
func controlKey(typ int16) []byte {
	return binary.BigEndian.AppendUint16(binary.BigEndian.AppendUint16(nil, 0), uint16(typ))
}
