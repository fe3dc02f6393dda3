package model

import (
	"encoding/binary"
	"math"
	"testing"
)

func TestVarintLen(t *testing.T) {
	buf := make([]byte, binary.MaxVarintLen64)
	for _, x := range []int64{0, 1, -1, 63, 64, -64, -65, 8191, 8192, 1 << 20, 1<<27 - 1, 1 << 27, math.MaxInt32, math.MinInt32, math.MaxInt64} {
		// encoding/binary's PutVarint is the same zigzag varint Kafka uses.
		if got, want := varintLen(x), int64(binary.PutVarint(buf, x)); got != want {
			t.Errorf("varintLen(%d) = %d, want %d", x, got, want)
		}
	}
}

func TestWireBytes(t *testing.T) {
	cases := []struct {
		name     string
		m        Message
		perMsg   float64
		record   float64
		perBatch int
	}{
		// 1000-byte value, null key: 1009-byte records, 16 fit in 16384 after the 61-byte header.
		{"v2 1000 B", Message{PayloadBytes: 1000}, 1009 + 61.0/16, 1009, 16},
		// 100-byte value (2-byte length varint): offsets 0..63 take 109 bytes, 64.. take 110;
		// 64 + 84 records fit.
		{"v2 100 B", Message{PayloadBytes: 100}, (64*109 + 84*110 + 61) / 148.0, (64*109 + 84*110) / 148.0, 148},
		// A 20-byte key adds 20 bytes and its length varint replaces the null key's byte.
		{"v2 1000 B keyed", Message{PayloadBytes: 1000, KeyBytes: 20}, 1029 + 61.0/15, 1029, 15},
		// batch.size below one record: one record per batch, the whole header on each.
		{"v2 unbatched", Message{PayloadBytes: 1000, BatchSize: 1}, 1009 + 61, 1009, 1},
		// Compression 4: a quarter of the record bytes on the wire, four times the records.
		{"v2 compressed", Message{PayloadBytes: 1000, CompressionRatio: 4}, 1009.0/4 + 61.0/64, 1009, 64},
		{"v0 100 B", Message{PayloadBytes: 100, Format: FormatV0}, 126, 126, 130},
		{"v1 100 B", Message{PayloadBytes: 100, Format: FormatV1}, 134, 134, 122},
		{"v1 keyed", Message{PayloadBytes: 100, KeyBytes: 16, Format: FormatV1}, 150, 150, 109},
		// Compressed legacy: messages inside a 34-byte wrapper, (16384-34)*2/134 = 244 of them.
		{"v1 compressed", Message{PayloadBytes: 100, Format: FormatV1, CompressionRatio: 2}, 67 + 34.0/244, 134, 244},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			w, err := WireBytes(tc.m)
			if err != nil {
				t.Fatal(err)
			}
			if !near(w.BytesPerMessage, tc.perMsg, 1e-12) || !near(w.RecordBytes, tc.record, 1e-12) || w.RecordsPerBatch != tc.perBatch {
				t.Errorf("got %.6f B/msg, %.4f B/record, %d/batch; want %.6f, %.4f, %d",
					w.BytesPerMessage, w.RecordBytes, w.RecordsPerBatch, tc.perMsg, tc.record, tc.perBatch)
			}
			payload := float64(tc.m.PayloadBytes+tc.m.KeyBytes) / tc.m.withDefaults().CompressionRatio
			if !near(w.OverheadBytesPerMessage, w.BytesPerMessage-payload, 1e-12) {
				t.Errorf("overhead %v != wire %v - payload %v", w.OverheadBytesPerMessage, w.BytesPerMessage, payload)
			}
		})
	}
}

// ANCHORS: Kafka measured 1013 wire bytes per 1000-byte v2 record with default batching.
func TestWireBytesMatchesMeasurement(t *testing.T) {
	got, err := WireBytesPerMessage(Message{PayloadBytes: 1000})
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(got-1013) > 0.5 {
		t.Errorf("1000-byte v2 record = %.2f wire bytes, measured 1013", got)
	}
}

func TestV1IsEightBytesMoreThanV0(t *testing.T) {
	for _, size := range []int{0, 1, 10, 100, 1000, 100000} {
		for _, key := range []int{0, 8, 64} {
			v0, _ := WireBytesPerMessage(Message{PayloadBytes: size, KeyBytes: key, Format: FormatV0})
			v1, _ := WireBytesPerMessage(Message{PayloadBytes: size, KeyBytes: key, Format: FormatV1})
			if v1-v0 != 8 {
				t.Errorf("payload %d key %d: v1 - v0 = %v bytes, want 8", size, key, v1-v0)
			}
		}
	}
}

// Properties of the v2 cost over a range of sizes: it never falls as the value grows, and a
// record's framing stays within Kafka's 21 bytes beyond key and value.
func TestWireBytesV2Properties(t *testing.T) {
	prev := 0.0
	for size := 0; size <= 40000; size += 1 + size/64 {
		for _, batch := range []int{0, 1024, 1 << 20} {
			w, err := WireBytes(Message{PayloadBytes: size, BatchSize: batch})
			if err != nil {
				t.Fatal(err)
			}
			if f := w.RecordBytes - float64(size) - 1; f < 6 || f > 21 { // -1: the null key's length byte
				t.Fatalf("size %d batch %d: record framing %v bytes", size, batch, f)
			}
			if w.RecordsPerBatch < 1 {
				t.Fatalf("size %d: %d records per batch", size, w.RecordsPerBatch)
			}
			if batch == 0 {
				if w.BytesPerMessage < prev {
					t.Fatalf("size %d: %v wire bytes, less than %v for a smaller value", size, w.BytesPerMessage, prev)
				}
				prev = w.BytesPerMessage
			}
		}
	}
}

func TestRecordsPerBatchLargeBatches(t *testing.T) {
	// 1 GiB batches of empty values: 1-byte offsets for 64 records, 2 bytes to 8192, 3 beyond.
	w, err := WireBytes(Message{BatchSize: 1 << 30})
	if err != nil {
		t.Fatal(err)
	}
	// Records: 0..63 are 7 bytes (len 1, attr 1, ts 1, off 1, key 1, value len 1, headers 1);
	// 64..8191 are 8, 8192..2^20-1 are 9, 2^20.. are 10 bytes.
	budget := int64(1<<30 - BatchHeaderV2)
	used := int64(64*7 + (8192-64)*8 + (1<<20-8192)*9)
	want := 1<<20 + (budget-used)/10
	if int64(w.RecordsPerBatch) != want {
		t.Errorf("records per 1 GiB batch = %d, want %d", w.RecordsPerBatch, want)
	}
}

func TestParseRecordFormat(t *testing.T) {
	for in, want := range map[string]RecordFormat{"v0": FormatV0, "V1": FormatV1, " v2 ": FormatV2} {
		if got, err := ParseRecordFormat(in); err != nil || got != want {
			t.Errorf("ParseRecordFormat(%q) = %q, %v", in, got, err)
		}
	}
	for _, in := range []string{"", "v3", "2", "magic2"} {
		if _, err := ParseRecordFormat(in); err == nil {
			t.Errorf("ParseRecordFormat(%q) succeeded", in)
		}
	}
}

func FuzzWireBytes(f *testing.F) {
	f.Add(1000, 0, 16384, 0.0, uint8(2))
	f.Add(0, 0, 0, 1.0, uint8(0))
	f.Add(100, 16, 1, 4.0, uint8(1))
	f.Add(math.MaxInt32, math.MaxInt32, math.MaxInt32, 0.1, uint8(2))
	f.Add(math.MaxInt32, 0, 0, 1e-300, uint8(1))
	f.Fuzz(func(t *testing.T, payload, key, batch int, ratio float64, format uint8) {
		m := Message{PayloadBytes: payload, KeyBytes: key, BatchSize: batch, CompressionRatio: ratio,
			Format: []RecordFormat{FormatV0, FormatV1, FormatV2, ""}[format%4]}
		w, err := WireBytes(m)
		if err != nil {
			return
		}
		if w.RecordsPerBatch < 1 || math.IsNaN(w.BytesPerMessage) || math.IsInf(w.BytesPerMessage, 0) || w.BytesPerMessage <= 0 {
			t.Fatalf("%+v: %+v", m, w)
		}
		if ratio == 0 || ratio == 1 {
			if w.BytesPerMessage < float64(payload+key) {
				t.Fatalf("%+v: uncompressed wire %v below key+value", m, w.BytesPerMessage)
			}
		}
	})
}

func BenchmarkWireBytes(b *testing.B) {
	m := Message{PayloadBytes: 100, KeyBytes: 16}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := WireBytes(m); err != nil {
			b.Fatal(err)
		}
	}
}
