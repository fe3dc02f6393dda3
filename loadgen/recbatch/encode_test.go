package recbatch

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"math"
	"slices"
	"testing"

	"github.com/twmb/franz-go/pkg/kmsg"
)

// wrec is a record for the Writer's tests; inPlace writes its value through AppendValue.
type wrec struct {
	ts         int64
	key, value []byte
	headers    []RecordHeader
	inPlace    bool
}

// write encodes rs as one batch with w and returns a copy of it.
func write(w *Writer, p Producer, rs []wrec) []byte {
	w.Reset()
	for _, r := range rs {
		if r.inPlace {
			copy(w.AppendValue(r.ts, r.key, len(r.value)), r.value)
			continue
		}
		w.Append(r.ts, r.key, r.value, r.headers)
	}
	return slices.Clone(w.Finish(p))
}

// asTest returns the same batch as the tests' own encoder (enc_test.go) describes it.
func asTest(p Producer, rs []wrec) tbatch {
	tb := tbatch{epoch: -1, pid: p.ID, pepoch: p.Epoch, seq: p.BaseSequence, txn: p.Transactional, numRecords: -1}
	for i, r := range rs {
		if i == 0 {
			tb.baseTs, tb.maxTs = r.ts, r.ts
		}
		tb.maxTs = max(tb.maxTs, r.ts)
		tr := rec{tsDelta: r.ts - tb.baseTs, offDelta: int32(i), key: r.key, value: r.value}
		for _, h := range r.headers {
			k := h.Key
			if k == nil {
				k = []byte{} // the Writer never writes a null header key
			}
			tr.headers = append(tr.headers, header{k, h.Value})
		}
		tb.recs = append(tb.recs, tr)
	}
	return tb
}

// writerCases are the batches the Writer's tests write.
func writerCases() []struct {
	name string
	p    Producer
	rs   []wrec
} {
	big := bytes.Repeat([]byte("0123456789"), 7000)
	many := make([]wrec, 300) // offset deltas past one varint byte
	for i := range many {
		many[i] = wrec{ts: 1_700_000_000_000 + int64(i/7), value: []byte(fmt.Sprintf("value-%d", i)), inPlace: i%2 == 0}
	}
	idem := Producer{ID: 4242, Epoch: 3, BaseSequence: 1000}
	return []struct {
		name string
		p    Producer
		rs   []wrec
	}{
		{"one record", NoProducer, []wrec{{ts: 1_700_000_000_000, key: []byte("k"), value: []byte("v")}}},
		{"null and empty keys and values", NoProducer, []wrec{
			{ts: 10, key: nil, value: []byte("x")},
			{ts: 11, key: []byte{}, value: []byte{}},
			{ts: 12, key: []byte("tomb"), value: nil},
			{ts: 13, key: nil, value: nil},
		}},
		{"headers", NoProducer, []wrec{
			{ts: 5, key: []byte("a"), value: []byte("b"), headers: []RecordHeader{{[]byte("h1"), []byte("x")}, {[]byte("h2"), nil}, {nil, []byte("nokey")}}},
			{ts: 5, value: []byte("c"), headers: []RecordHeader{{[]byte("trace"), []byte{}}}},
		}},
		{"timestamps backwards and far apart", NoProducer, []wrec{
			{ts: 1_700_000_000_000, value: []byte("a")},
			{ts: 1_699_999_999_000, value: []byte("b")},
			{ts: 1_800_000_000_000, value: []byte("c")},
			{ts: -1, value: []byte("d")},
		}},
		{"a 70 KB value", NoProducer, []wrec{{ts: 1, key: []byte("big"), value: big}, {ts: 2, value: big[:200], inPlace: true}}},
		{"300 records, half in place", NoProducer, many},
		{"idempotent", idem, many[:40]},
		{"transactional", Producer{ID: 7, Epoch: 0, BaseSequence: 0, Transactional: true}, many[:3]},
		{"producer fields at their limits", Producer{ID: math.MaxInt64, Epoch: math.MaxInt16, BaseSequence: math.MaxInt32}, many[:2]},
	}
}

// TestWriterMatchesTestEncoder: the Writer's bytes are the same as the tests' own encoder's,
// written independently from the format's description, for every case; and a Writer reused
// after a larger batch writes the same bytes as a fresh one.
func TestWriterMatchesTestEncoder(t *testing.T) {
	var reused Writer
	write(&reused, NoProducer, writerCases()[4].rs) // the largest first
	for _, c := range writerCases() {
		t.Run(c.name, func(t *testing.T) {
			var fresh Writer
			got := write(&fresh, c.p, c.rs)
			want := asTest(c.p, c.rs).encode(t)
			if !bytes.Equal(got, want) {
				t.Fatalf("the Writer's batch (%d bytes) differs from the test encoder's (%d bytes) at byte %d", len(got), len(want), firstDiff(got, want))
			}
			if again := write(&reused, c.p, c.rs); !bytes.Equal(again, got) {
				t.Fatalf("a reused Writer's batch differs from a fresh one's at byte %d", firstDiff(again, got))
			}
		})
	}
}

// firstDiff returns the first index where a and b differ.
func firstDiff(a, b []byte) int {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return i
		}
	}
	return min(len(a), len(b))
}

// TestWriterRoundTrip: what the Writer writes, this package's Parser and franz-go (kmsg's
// RecordBatch and Record decoding, and kgo.ProcessFetchPartition, a consumer's) read back as
// the records written, with the producer fields, timestamps and CRC-32C.
func TestWriterRoundTrip(t *testing.T) {
	var w Writer
	for _, c := range writerCases() {
		t.Run(c.name, func(t *testing.T) {
			b := write(&w, c.p, c.rs)
			checkParsed(t, b, c.p, c.rs)
			checkKmsg(t, b, c.p, c.rs)
			if got, err := viaFranz(b, nil, false); err != nil || !slices.Equal(got, flatWritten(c.rs)) {
				t.Errorf("kgo.ProcessFetchPartition: err %v, %d records, want %d the same as written", err, len(got), len(c.rs))
			}
		})
	}
}

// flatWritten is rs as crosscheck_test.go's flat records: offsets from 0.
func flatWritten(rs []wrec) []flat {
	var out []flat
	for i, r := range rs {
		var hs []string
		for _, h := range r.headers {
			hs = append(hs, fmt.Sprintf("%q=%q/%v", string(h.Key), h.Value, h.Value == nil))
		}
		out = append(out, flat{int64(i), asFranz(r.ts), string(r.key), r.key == nil, string(r.value), r.value == nil, joinHeaders(hs), false})
	}
	return out
}

func joinHeaders(hs []string) string {
	s := ""
	for i, h := range hs {
		if i > 0 {
			s += ","
		}
		s += h
	}
	return s
}

// checkParsed reads b with the Parser and compares every field with what was written.
func checkParsed(t *testing.T, b []byte, p Producer, rs []wrec) {
	t.Helper()
	checkParsedCodec(t, b, None, p, rs)
}

// checkParsedCodec is checkParsed for a batch compressed with c.
func checkParsedCodec(t *testing.T, b []byte, c Codec, p Producer, rs []wrec) {
	t.Helper()
	var ps Parser
	ps.Reset(b)
	if !ps.NextBatch() {
		t.Fatalf("Parser: no batch: err %v, tail %v", ps.Err(), ps.IncompleteTail())
	}
	h := ps.Batch()
	if h.ProducerID != p.ID || h.ProducerEpoch != p.Epoch || h.BaseSequence != p.BaseSequence || h.Transactional() != p.Transactional {
		t.Errorf("Parser: producer %d epoch %d sequence %d transactional %v, want %+v", h.ProducerID, h.ProducerEpoch, h.BaseSequence, h.Transactional(), p)
	}
	if h.BaseOffset != 0 || h.PartitionLeaderEpoch != -1 || h.Codec() != c || h.LogAppendTime() || h.Control() ||
		h.NumRecords != int32(len(rs)) || h.LastOffsetDelta != int32(len(rs)-1) || h.Size() != len(b) {
		t.Errorf("Parser: header %+v for %d records in %d bytes", *h, len(rs), len(b))
	}
	var r Record
	for i, want := range rs {
		if !ps.NextRecord(&r) {
			t.Fatalf("Parser: record %d of %d missing: err %v", i, len(rs), ps.Err())
		}
		if r.Offset != int64(i) || r.Timestamp != want.ts || !sameBytes(r.Key, want.key) || !sameBytes(r.Value, want.value) || r.Attributes != 0 {
			t.Fatalf("Parser: record %d: offset %d ts %d key %q value %d bytes, want ts %d key %q value %d bytes",
				i, r.Offset, r.Timestamp, r.Key, len(r.Value), want.ts, want.key, len(want.value))
		}
		hs := r.Headers()
		for j, wh := range want.headers {
			k, v, ok := hs.Next()
			if !ok || !bytes.Equal(k, wh.Key) || !sameBytes(v, wh.Value) {
				t.Fatalf("Parser: record %d header %d: %q=%q ok %v, want %q=%q", i, j, k, v, ok, wh.Key, wh.Value)
			}
		}
		if _, _, ok := hs.Next(); ok {
			t.Fatalf("Parser: record %d has more than its %d headers", i, len(want.headers))
		}
	}
	if ps.NextRecord(&r) || ps.Err() != nil || ps.NextBatch() || ps.Err() != nil || ps.IncompleteTail() {
		t.Errorf("Parser: more than one batch of %d records, or an error: %v", len(rs), ps.Err())
	}
}

// checkKmsg reads b with franz-go's kmsg.RecordBatch and kmsg.Record and compares.
func checkKmsg(t *testing.T, b []byte, p Producer, rs []wrec) {
	t.Helper()
	var kb kmsg.RecordBatch
	if err := kb.ReadFrom(b); err != nil {
		t.Fatalf("kmsg.RecordBatch.ReadFrom: %v", err)
	}
	if kb.Magic != 2 || int(kb.Length)+12 != len(b) || uint32(kb.CRC) != crc32.Checksum(b[21:], crc32.MakeTable(crc32.Castagnoli)) ||
		kb.ProducerID != p.ID || kb.ProducerEpoch != p.Epoch || kb.FirstSequence != p.BaseSequence || kb.NumRecords != int32(len(rs)) {
		t.Fatalf("kmsg: batch %+v", kb)
	}
	recs := kb.Records
	for i, want := range rs {
		var kr kmsg.Record
		if err := kr.ReadFrom(recs); err != nil {
			t.Fatalf("kmsg: record %d: %v", i, err)
		}
		_, n := binary.Varint(recs)
		recs = recs[n+int(kr.Length):]
		if kb.FirstTimestamp+kr.TimestampDelta64 != want.ts || kr.OffsetDelta != int32(i) || !sameBytes(kr.Key, want.key) ||
			!sameBytes(kr.Value, want.value) || len(kr.Headers) != len(want.headers) {
			t.Fatalf("kmsg: record %d: %+v", i, kr)
		}
		for j, h := range kr.Headers {
			if h.Key != string(want.headers[j].Key) || !sameBytes(h.Value, want.headers[j].Value) {
				t.Fatalf("kmsg: record %d header %d: %q=%q", i, j, h.Key, h.Value)
			}
		}
	}
	if len(recs) != 0 {
		t.Errorf("kmsg: %d bytes after the last record", len(recs))
	}
}

// TestWriterCompressed: with each codec, the Parser and kgo.ProcessFetchPartition read back
// every case's records, and a Restamp keeps the codec.
func TestWriterCompressed(t *testing.T) {
	for _, codec := range allCodecs[1:] {
		w := Writer{Codec: codec}
		for _, c := range writerCases() {
			t.Run(codec.String()+"/"+c.name, func(t *testing.T) {
				b := write(&w, c.p, c.rs)
				checkParsedCodec(t, b, codec, c.p, c.rs)
				if got, err := viaFranz(b, nil, false); err != nil || !slices.Equal(got, flatWritten(c.rs)) {
					t.Errorf("kgo.ProcessFetchPartition: err %v, %d records, want %d the same as written", err, len(got), len(c.rs))
				}
				np := Producer{ID: 12, Epoch: 2, BaseSequence: 77}
				Restamp(b, np)
				checkParsedCodec(t, b, codec, np, c.rs)
			})
		}
	}
}

// TestRestamp: a finished batch restamped under another producer reads back with the new
// fields and a valid CRC, its records unchanged.
func TestRestamp(t *testing.T) {
	c := writerCases()[6]
	var w Writer
	b := write(&w, c.p, c.rs)
	np := Producer{ID: 99, Epoch: 1, BaseSequence: 5, Transactional: true}
	Restamp(b, np)
	checkParsed(t, b, np, c.rs)
	Restamp(b, c.p)
	if want := write(&w, c.p, c.rs); !bytes.Equal(b, want) {
		t.Errorf("restamped back, the batch differs at byte %d", firstDiff(b, want))
	}
}

// TestRecordSize: RecordSize is exactly what Append adds, and Len is the finished size.
func TestRecordSize(t *testing.T) {
	for _, c := range writerCases() {
		var w Writer
		w.Reset()
		for i, r := range c.rs {
			before := w.Len()
			delta := int64(0)
			if i > 0 {
				delta = r.ts - c.rs[0].ts
			}
			want := RecordSize(delta, int32(i), lenOrNull(r.key), lenOrNull(r.value), r.headers)
			w.Append(r.ts, r.key, r.value, r.headers)
			if got := w.Len() - before; got != want {
				t.Fatalf("%s: record %d took %d bytes, RecordSize said %d", c.name, i, got, want)
			}
		}
		if n := w.Len(); n != len(w.Finish(c.p)) {
			t.Errorf("%s: Len %d, the batch is %d bytes", c.name, n, len(w.Finish(c.p)))
		}
	}
}

// TestVarintSize: varintSize agrees with encoding/binary at every length boundary.
func TestVarintSize(t *testing.T) {
	for _, v := range []int64{0, -1, 1, 63, -64, 64, -65, 8191, 8192, math.MaxInt32, math.MinInt32, math.MaxInt64, math.MinInt64} {
		if got, want := varintSize(v), len(binary.AppendVarint(nil, v)); got != want {
			t.Errorf("varintSize(%d) = %d, want %d", v, got, want)
		}
	}
}

// benchRecords writes a batch of n 100-byte values with 8-byte keys into w, in place as a
// producer that stamps its payload would; it returns the batch.
func benchBatch(w *Writer, n int, seq int32) []byte {
	w.Reset()
	key := []byte("key-0000")
	for i := range n {
		v := w.AppendValue(1_700_000_000_000+int64(i>>6), key, 100)
		binary.BigEndian.PutUint64(v, uint64(i))
		for j := 8; j < len(v); j++ {
			v[j] = byte(j)
		}
	}
	return w.Finish(Producer{ID: 1, Epoch: 0, BaseSequence: seq})
}

// TestWriterAllocatesNothing fails if writing a batch allocates once the Writer has written
// one of the same size: by AppendValue with every codec, by Append with headers, and Finish.
func TestWriterAllocatesNothing(t *testing.T) {
	for _, c := range allCodecs {
		w := Writer{Codec: c}
		benchBatch(&w, 150, 0)
		if a := testing.AllocsPerRun(50, func() { benchBatch(&w, 150, 0) }); a != 0 {
			t.Errorf("AppendValue, %s: %.1f allocations per batch of 150 records, want 0", c, a)
		}
	}
	var w Writer
	hs := []RecordHeader{{[]byte("trace"), []byte("0123456789abcdef")}}
	val := bytes.Repeat([]byte("x"), 100)
	fill := func() {
		w.Reset()
		for i := range 150 {
			w.Append(int64(i), nil, val, hs)
		}
		w.Finish(NoProducer)
	}
	fill()
	if a := testing.AllocsPerRun(50, fill); a != 0 {
		t.Errorf("Append: %.1f allocations per batch of 150 records, want 0", a)
	}
}

// BenchmarkWrite writes batches of 150 100-byte records (a 16 KiB batch, batch.size's
// default) in place, compressed with each codec, CRC included; ns/record is per record and
// B/op should be 0.
func BenchmarkWrite(b *testing.B) {
	const n = 150
	for _, c := range allCodecs {
		b.Run(c.String(), func(b *testing.B) {
			w := Writer{Codec: c}
			benchBatch(&w, n, 0)
			b.ReportAllocs()
			b.SetBytes(int64(len(benchBatch(&w, n, 0))))
			for b.Loop() {
				benchBatch(&w, n, 0)
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*n), "ns/record")
		})
	}
}

// recordsFrom turns fuzz bytes into records: per record a flags byte (bit 0 a null key, bit 1
// a null value, bit 2 the value written in place, bits 3-4 the header count, bit 5 a null
// header value), a signed timestamp step, a key and a value length, then the key's and the
// value's bytes, as far as data lasts.
func recordsFrom(data []byte) []wrec {
	var rs []wrec
	ts := int64(1_700_000_000_000)
	take := func(n int) []byte {
		n = min(n, len(data))
		b := data[:n:n]
		data = data[n:]
		return b
	}
	for len(data) >= 4 && len(rs) < 1000 {
		f, step, kl, vl := data[0], int8(data[1]), int(data[2]%32), int(data[3])*3
		data = data[4:]
		ts += int64(step) * 997
		r := wrec{ts: ts, key: take(kl), value: take(vl), inPlace: f&4 != 0}
		if f&1 != 0 {
			r.key = nil
		}
		if f&2 != 0 && !r.inPlace {
			r.value = nil
		}
		for i := range int(f>>3) & 3 {
			if r.inPlace {
				break
			}
			h := RecordHeader{Key: take(i + 1), Value: take(i * 5)}
			if f&32 != 0 {
				h.Value = nil
			}
			r.headers = append(r.headers, h)
		}
		rs = append(rs, r)
	}
	return rs
}

// FuzzWrite: for any records, producer fields and codec, the Parser and
// kgo.ProcessFetchPartition read back what was written; uncompressed, the batch is also the
// tests' own encoder's byte for byte and kmsg reads the same records.
func FuzzWrite(f *testing.F) {
	f.Add([]byte("\x00\x01\x03\x05keyvalue...."), int64(-1), int16(-1), int32(-1), false, uint8(0))
	f.Add([]byte("\x3b\xff\x1f\xff"+string(bytes.Repeat([]byte("z"), 900))), int64(5), int16(2), int32(17), true, uint8(4))
	f.Add([]byte("\x04\x80\x00\x40\x21\x7f\x02\x00ab\x1a\x00\x01\x01kvhhhhhh"), int64(math.MaxInt64), int16(0), int32(math.MaxInt32-3), false, uint8(3))
	f.Add([]byte("\x00\x01\x03\xffkey"+string(bytes.Repeat([]byte("ab"), 500))), int64(1), int16(0), int32(0), false, uint8(1))
	f.Add([]byte("\x08\x02\x03\x10key0123456789abcdefghij"), int64(1), int16(0), int32(0), false, uint8(2))
	f.Fuzz(func(t *testing.T, data []byte, pid int64, epoch int16, seq int32, txn bool, codec uint8) {
		rs := recordsFrom(data)
		if len(rs) == 0 {
			return
		}
		p := Producer{ID: pid, Epoch: epoch, BaseSequence: seq, Transactional: txn}
		w := Writer{Codec: allCodecs[int(codec)%len(allCodecs)]}
		b := write(&w, p, rs)
		if w.Codec == None {
			if want := asTest(p, rs).encode(t); !bytes.Equal(b, want) {
				t.Fatalf("the Writer's batch differs from the test encoder's at byte %d", firstDiff(b, want))
			}
			checkKmsg(t, b, p, rs)
		}
		checkParsedCodec(t, b, w.Codec, p, rs)
		if got, err := viaFranz(b, nil, false); err != nil || !slices.Equal(got, flatWritten(rs)) {
			t.Fatalf("kgo.ProcessFetchPartition: err %v, %d records, want %d the same as written", err, len(got), len(rs))
		}
	})
}

// TestWriterValueInPlace: a value changed through Value(LastValueAt(), n) before Finish is what
// the finished batch holds, compressed or not (the lean producer writes its session into each
// stamp this way).
func TestWriterValueInPlace(t *testing.T) {
	for _, codec := range allCodecs {
		w := Writer{Codec: codec}
		w.Reset()
		var at []int
		for _, v := range []string{"aaaa", "bbbb", "cccc"} {
			w.Append(1_700_000_000_000, []byte("k"), []byte(v), []RecordHeader{{Key: []byte("h")}})
			at = append(at, w.LastValueAt())
		}
		w.Value(at[1], 4)[0] = 'X'
		w.Value(at[2], 4)[3] = 'Y'
		got, err := viaFranz(w.Finish(NoProducer), nil, false)
		if err != nil || len(got) != 3 || got[0].Value != "aaaa" || got[1].Value != "Xbbb" || got[2].Value != "cccY" {
			t.Errorf("%v: read back %+v, %v; want values aaaa Xbbb cccY", codec, got, err)
		}
	}
}
