package recbatch

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"strings"
	"testing"
)

// got is what a parse of some bytes returned, copied out of the parser's buffers.
type got struct {
	batches []Batch
	recs    []gotRec
	err     error
	tail    bool
	used    int
}

// gotRec is a record as parsed, with its batch's index.
type gotRec struct {
	batch   int
	r       Record
	headers []header
}

// parseAll parses b to its end and copies out everything the parser returned.
func parseAll(p *Parser, b []byte) got {
	var g got
	p.Reset(b)
	for p.NextBatch() {
		g.batches = append(g.batches, *p.Batch())
		var r Record
		for p.NextRecord(&r) {
			c := r
			c.Key, c.Value = clone(r.Key), clone(r.Value)
			gr := gotRec{batch: len(g.batches) - 1, r: c}
			hs := r.Headers()
			for k, v, ok := hs.Next(); ok; k, v, ok = hs.Next() {
				gr.headers = append(gr.headers, header{clone(k), clone(v)})
			}
			g.recs = append(g.recs, gr)
		}
	}
	g.err, g.tail, g.used = p.Err(), p.IncompleteTail(), p.Consumed()
	return g
}

// clone copies b, keeping nil and empty apart.
func clone(b []byte) []byte {
	if b == nil {
		return nil
	}
	return append([]byte{}, b...)
}

// sameBytes compares two byte slices, nil and empty apart.
func sameBytes(a, b []byte) bool { return (a == nil) == (b == nil) && bytes.Equal(a, b) }

// checkRecords compares the parsed records of one batch with the ones encoded.
func checkRecords(t *testing.T, tb tbatch, g []gotRec) {
	t.Helper()
	if len(g) != len(tb.recs) {
		t.Fatalf("%d records, want %d", len(g), len(tb.recs))
	}
	for i, w := range tb.recs {
		r := g[i].r
		wantTs := tb.baseTs + w.tsDelta
		if tb.appendTime {
			wantTs = tb.maxTs
		}
		if r.Offset != tb.base+int64(w.offDelta) || r.Timestamp != wantTs || r.Attributes != w.attrs ||
			!sameBytes(r.Key, w.key) || !sameBytes(r.Value, w.value) || int(r.NumHeaders) != len(w.headers) {
			t.Errorf("record %d = %+v, want %+v", i, r, w)
		}
		for j, h := range g[i].headers {
			if !sameBytes(h.key, w.headers[j].key) || !sameBytes(h.value, w.headers[j].value) {
				t.Errorf("record %d header %d = %q, want %q", i, j, h, w.headers[j])
			}
		}
	}
}

func TestParseRoundTrip(t *testing.T) {
	cases := []tbatch{
		{base: 0, codec: None, baseTs: 1_700_000_000_000, maxTs: 1_700_000_000_030, pid: -1, pepoch: -1, seq: -1, numRecords: -1, recs: sampleRecords(11)},
		{base: 42, epoch: 7, codec: Gzip, baseTs: 5, maxTs: 9, pid: 1001, pepoch: 3, seq: 17, numRecords: -1, recs: sampleRecords(20)},
		{base: 1 << 40, codec: Snappy, pid: 5, numRecords: -1, recs: sampleRecords(9)},
		{base: 3, codec: Snappy, xerial: true, numRecords: -1, recs: sampleRecords(30)},
		{base: 4, codec: LZ4, numRecords: -1, recs: sampleRecords(25)},
		{base: 5, codec: Zstd, numRecords: -1, recs: sampleRecords(40)},
		{base: 6, codec: None, appendTime: true, baseTs: 100, maxTs: 777, numRecords: -1, recs: sampleRecords(3)},
		{base: 7, codec: Zstd, appendTime: true, txn: true, baseTs: 100, maxTs: 778, pid: 9, numRecords: -1, recs: sampleRecords(3)},
		{base: 8, codec: None, numRecords: -1},
		{base: 9, codec: None, numRecords: -1, recs: []rec{{tsDelta: -5, offDelta: 3, key: bytes.Repeat([]byte{'k'}, 300), value: bytes.Repeat([]byte{'v'}, 70000)}}},
	}
	var p Parser
	for _, tb := range cases {
		t.Run(fmt.Sprintf("%s-%d", tb.codec, tb.base), func(t *testing.T) {
			enc := tb.encode(t)
			g := parseAll(&p, enc)
			if g.err != nil || g.tail || len(g.batches) != 1 || g.used != len(enc) {
				t.Fatalf("err %v, tail %v, %d batches, %d of %d bytes", g.err, g.tail, len(g.batches), g.used, len(enc))
			}
			b := g.batches[0]
			if b.BaseOffset != tb.base || b.PartitionLeaderEpoch != tb.epoch || b.Magic != 2 || b.Codec() != tb.codec ||
				b.LogAppendTime() != tb.appendTime || b.Transactional() != tb.txn || b.Control() || b.BaseTimestamp != tb.baseTs ||
				b.MaxTimestamp != tb.maxTs || b.ProducerID != tb.pid || b.ProducerEpoch != tb.pepoch || b.BaseSequence != tb.seq ||
				int(b.NumRecords) != len(tb.recs) || b.Size() != len(enc) {
				t.Errorf("batch %+v, encoded from %+v", b, tb)
			}
			checkRecords(t, tb, g.recs)
		})
	}
}

func TestParseSeveralBatchesAndCodecsInOneFetch(t *testing.T) {
	var all []byte
	var want []tbatch
	for i, c := range []Codec{Zstd, None, Gzip, LZ4, Snappy, Zstd, None} {
		tb := tbatch{base: int64(i * 100), codec: c, numRecords: -1, recs: sampleRecords(5 + i)}
		want = append(want, tb)
		all = append(all, tb.encode(t)...)
	}
	var p Parser
	g := parseAll(&p, all)
	if g.err != nil || g.tail || len(g.batches) != len(want) {
		t.Fatalf("err %v, tail %v, %d batches", g.err, g.tail, len(g.batches))
	}
	for i, tb := range want {
		var recs []gotRec
		for _, r := range g.recs {
			if r.batch == i {
				recs = append(recs, r)
			}
		}
		checkRecords(t, tb, recs)
	}
}

func TestXerialSeveralBlocks(t *testing.T) {
	tb := tbatch{base: 1, codec: Snappy, numRecords: -1, recs: sampleRecords(60)}
	var recs []byte
	for _, r := range tb.recs {
		recs = encodeRecord(recs, r)
	}
	enc := withRecords(tb.encode(t), xerialBlocks(recs, 1000))
	var p Parser
	g := parseAll(&p, enc)
	if g.err != nil {
		t.Fatal(g.err)
	}
	checkRecords(t, tb, g.recs)
}

// withRecords replaces batch's records section with recs and fixes its length and CRC.
func withRecords(batch, recs []byte) []byte {
	b := append(append([]byte{}, batch[:headerSize]...), recs...)
	return fixed(b)
}

// fixed sets b's length and CRC for its bytes.
func fixed(b []byte) []byte {
	binary.BigEndian.PutUint32(b[8:], uint32(len(b)-logOverhead))
	binary.BigEndian.PutUint32(b[crcAt:], crcOf(b))
	return b
}

// crcOf returns the CRC-32C a batch's bytes should carry.
func crcOf(b []byte) uint32 { return crc32Checksum(b[attributesAt:]) }

func TestIncompleteTail(t *testing.T) {
	one := tbatch{base: 10, numRecords: -1, recs: sampleRecords(4)}.encode(t)
	two := tbatch{base: 14, codec: Zstd, numRecords: -1, recs: sampleRecords(4)}.encode(t)
	for _, cut := range []int{0, 1, 11, 12, 16, 17, 20, 60, 61, 62, len(two) - 1} {
		t.Run(fmt.Sprint(cut), func(t *testing.T) {
			b := append(append([]byte{}, one...), two[:cut]...)
			var p Parser
			g := parseAll(&p, b)
			if g.err != nil || len(g.batches) != 1 || len(g.recs) != 4 || g.used != len(one) || g.tail != (cut > 0) {
				t.Errorf("err %v, %d batches, %d records, used %d, tail %v", g.err, len(g.batches), len(g.recs), g.used, g.tail)
			}
		})
	}
}

func TestParseErrors(t *testing.T) {
	good := func() []byte { return tbatch{base: 77, numRecords: -1, recs: sampleRecords(4)}.encode(t) }
	flip := func(at int) []byte { b := good(); b[at] ^= 0xff; return b }
	refix := func(f func([]byte) []byte) []byte { return fixed(f(good())) }
	rec1 := func(r rec) []byte { return tbatch{base: 77, numRecords: -1, recs: []rec{r}}.encode(t) }
	cases := []struct {
		name string
		b    []byte
		want string // in the error
		crc  bool
	}{
		{"magic 0", func() []byte { b := good(); b[magicAt] = 0; return b }(), "magic 0", false},
		{"magic 1", func() []byte { b := good(); b[magicAt] = 1; return b }(), "magic 1", false},
		{"crc of a record byte", flip(70), "offset 77", true},
		{"crc of the attributes", flip(attributesAt + 1), "offset 77", true},
		{"crc field itself", flip(crcAt), "offset 77", true},
		{"length below a header", func() []byte { b := good(); binary.BigEndian.PutUint32(b[8:], 20); return b }(), "shorter than a batch header", false},
		{"more records than bytes", refix(func(b []byte) []byte { binary.BigEndian.PutUint32(b[57:], 1<<30); return b }), "cannot fit", false},
		{"negative record count", refix(func(b []byte) []byte { binary.BigEndian.PutUint32(b[57:], 0xffffffff); return b }), "a record count of -1", false},
		{"one record fewer than the bytes", refix(func(b []byte) []byte { binary.BigEndian.PutUint32(b[57:], 3); return b }), "bytes after its 3 records", false},
		{"one record more than the bytes", refix(func(b []byte) []byte { binary.BigEndian.PutUint32(b[57:], 5); return b }), "record 4 of 5", false},
		{"record length past the batch", refix(func(b []byte) []byte { return append(b[:headerSize], 0x7e, 0, 0) }), "", false},
		{"key length -2", withRecords(rec1(rec{}), []byte{8, 0, 0, 0, 3, 0, 0, 0, 0}), "record 0 of 1", false},
		{"negative header count", withRecords(rec1(rec{}), []byte{12, 0, 0, 0, 1, 1, 1, 0, 0, 0, 0, 0, 0}[:7]), "", false},
		{"garbage gzip", refix(func(b []byte) []byte { binary.BigEndian.PutUint16(b[attributesAt:], uint16(Gzip)); return b }), "gzip", false},
		{"garbage zstd", refix(func(b []byte) []byte { binary.BigEndian.PutUint16(b[attributesAt:], uint16(Zstd)); return b }), "zstd", false},
		{"garbage lz4", refix(func(b []byte) []byte { binary.BigEndian.PutUint16(b[attributesAt:], uint16(LZ4)); return b }), "lz4", false},
		{"garbage snappy", refix(func(b []byte) []byte { binary.BigEndian.PutUint16(b[attributesAt:], uint16(Snappy)); return b }), "snappy", false},
		{"codec 5", refix(func(b []byte) []byte { binary.BigEndian.PutUint16(b[attributesAt:], 5); return b }), "codec 5", false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var p Parser
			g := parseAll(&p, append(good(), c.b...)) // a good batch first: the error is the second's
			if g.err == nil || !strings.Contains(g.err.Error(), c.want) || g.tail {
				t.Fatalf("err %v, tail %v; want an error with %q", g.err, g.tail, c.want)
			}
			var crcErr *CRCError
			if errors.As(g.err, &crcErr) != c.crc || !errors.Is(g.err, ErrCorrupt) && !errors.Is(g.err, ErrMessageSet) {
				t.Errorf("err %v (%T): CRC error %v", g.err, g.err, c.crc)
			}
			if len(g.batches) < 1 || g.batches[0].BaseOffset != 77 || len(g.recs) > 4+5 {
				t.Errorf("%d batches, %d records before the error", len(g.batches), len(g.recs))
			}
			if p.NextBatch() {
				t.Error("the parser went on after an error")
			}
		})
	}
}

func TestMaxDecompressed(t *testing.T) {
	for _, c := range []Codec{Gzip, Snappy, LZ4, Zstd} {
		t.Run(c.String(), func(t *testing.T) {
			tb := tbatch{codec: c, numRecords: -1, recs: []rec{{value: make([]byte, 100_000)}}}
			enc := tb.encode(t)
			p := Parser{MaxDecompressed: 50_000}
			if g := parseAll(&p, enc); g.err == nil || !strings.Contains(g.err.Error(), "MaxDecompressed") {
				t.Errorf("err %v", g.err)
			}
			p.MaxDecompressed = 100_011 // the record's encoding, exactly: 11 bytes besides its value
			if g := parseAll(&p, enc); g.err != nil || len(g.recs) != 1 {
				t.Errorf("err %v, %d records", g.err, len(g.recs))
			}
		})
	}
}

func TestControlBatch(t *testing.T) {
	key := []byte{0, 0, 0, 0} // version 0, type 0: abort
	tb := tbatch{base: 20, txn: true, control: true, pid: 3, numRecords: -1,
		recs: []rec{{key: key, value: []byte{0, 0, 0, 0, 0, 0}}}}
	var p Parser
	p.Reset(tb.encode(t))
	if !p.NextBatch() || !p.Batch().Control() || !p.Batch().Transactional() {
		t.Fatalf("batch %+v, err %v", p.Batch(), p.Err())
	}
	var r Record
	if !p.NextRecord(&r) {
		t.Fatal(p.Err())
	}
	if m, ok := Control(r.Key); !ok || m != AbortMarker {
		t.Errorf("marker %d %v", m, ok)
	}
	if m, ok := Control([]byte{0, 0, 0, 1}); !ok || m != CommitMarker {
		t.Errorf("marker %d %v", m, ok)
	}
	if _, ok := Control([]byte{0, 0, 1}); ok {
		t.Error("a 3-byte key read as a marker")
	}
}

// TestSkippedBatchIsNotDecompressed: a compressed batch the caller skips (NextBatch again, as
// for an aborted transaction) is not decompressed, so even one whose compressed bytes are
// garbage does not stop the parse; reading its records does.
func TestSkippedBatchIsNotDecompressed(t *testing.T) {
	garbage := fixed(append(tbatch{base: 0, codec: Zstd, numRecords: 3}.encode(t)[:headerSize], "not zstd at all"...))
	good := tbatch{base: 3, codec: Gzip, numRecords: -1, recs: sampleRecords(4)}.encode(t)
	b := append(garbage, good...)
	var p Parser
	p.Reset(b)
	first := p.NextBatch()
	second := p.NextBatch() // the first skipped
	if !first || !second || p.Batch().BaseOffset != 3 {
		t.Fatalf("skipping the first batch: err %v", p.Err())
	}
	n := 0
	var r Record
	for p.NextRecord(&r) {
		n++
	}
	if n != 4 || p.Err() != nil || p.NextBatch() || p.Consumed() != len(b) {
		t.Errorf("%d records, err %v, consumed %d of %d", n, p.Err(), p.Consumed(), len(b))
	}
	p.Reset(b)
	if !p.NextBatch() || p.NextRecord(&r) || !errors.Is(p.Err(), ErrCorrupt) || !strings.Contains(p.Err().Error(), "zstd") {
		t.Errorf("reading the garbage batch's records: err %v", p.Err())
	}
}
