package recbatch

import (
	"bytes"
	"testing"

	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// The codecs a steady-state fetch may carry.
var allCodecs = []Codec{None, Gzip, Snappy, LZ4, Zstd}

// benchFetch returns a fetch's bytes: batches batches of per records each, 100-byte values,
// keys and a header on every fourth record, compressed with c, and the number of records.
func benchFetch(t testing.TB, c Codec, batches, per int) ([]byte, int) {
	var all []byte
	for i := range batches {
		rs := make([]rec, per)
		for j := range rs {
			rs[j] = rec{tsDelta: int64(j), offDelta: int32(j), key: []byte("key-0000"), value: bytes.Repeat([]byte{byte('a' + j%26)}, 100)}
			if j%4 == 0 {
				rs[j].headers = []header{{[]byte("trace"), []byte("0123456789abcdef")}}
			}
		}
		all = append(all, tbatch{base: int64(i * per), codec: c, numRecords: -1, recs: rs, pid: 7}.encode(t)...)
	}
	return all, batches * per
}

// drain parses b as a consumer would: every record, its key, value and headers touched.
func drain(p *Parser, b []byte) (records, n int) {
	p.Reset(b)
	var r Record
	for p.NextBatch() {
		for p.NextRecord(&r) {
			records++
			n += len(r.Key) + len(r.Value)
			hs := r.Headers()
			for k, v, ok := hs.Next(); ok; k, v, ok = hs.Next() {
				n += len(k) + len(v)
			}
		}
	}
	return records, n
}

// TestSteadyStateAllocatesNothing fails if parsing a fetch allocates once the parser has seen
// one of the same shape (its decompression buffer grown, its decoders made).
func TestSteadyStateAllocatesNothing(t *testing.T) {
	for _, c := range allCodecs {
		t.Run(c.String(), func(t *testing.T) {
			b, want := benchFetch(t, c, 4, 200)
			var p Parser
			drain(&p, b)
			allocs := testing.AllocsPerRun(50, func() {
				if got, _ := drain(&p, b); got != want || p.Err() != nil {
					t.Fatalf("%d records, want %d; err %v", got, want, p.Err())
				}
			})
			if allocs != 0 {
				t.Errorf("%s: %.1f allocations per fetch of %d records in steady state, want 0", c, allocs, want)
			}
		})
	}
}

// TestReadCommittedAllocatesNothing fails if read_committed's bookkeeping (Aborts) allocates
// in steady state: a fetch of two producers' transactions, one aborted.
func TestReadCommittedAllocatesNothing(t *testing.T) {
	b, aborted := transactions(t), []AbortedTxn{{8, 10}}
	var p Parser
	var a Aborts
	kept := func() int {
		a.Reset(aborted)
		p.Reset(b)
		n := 0
		var r Record
		for p.NextBatch() {
			marker := ControlType(-1)
			if p.Batch().Control() && p.NextRecord(&r) {
				marker, _ = Control(r.Key)
			}
			if !a.Skip(p.Batch(), marker) {
				for p.NextRecord(&r) {
					n++
				}
			}
		}
		return n
	}
	kept()
	allocs := testing.AllocsPerRun(50, func() {
		if n := kept(); n != 6 || p.Err() != nil {
			t.Fatalf("%d records kept, want 6; err %v", n, p.Err())
		}
	})
	if allocs != 0 {
		t.Errorf("%.1f allocations per fetch, want 0", allocs)
	}
}

// BenchmarkParse parses a fetch of 4 batches of 500 records per codec, every record touched.
// ns/record and B/record are per record; B/op should be 0.
func BenchmarkParse(b *testing.B) {
	for _, c := range allCodecs {
		b.Run(c.String(), func(b *testing.B) {
			buf, n := benchFetch(b, c, 4, 500)
			var p Parser
			drain(&p, buf)
			b.SetBytes(int64(len(buf)))
			b.ReportAllocs()
			b.ResetTimer()
			for b.Loop() {
				if got, _ := drain(&p, buf); got != n {
					b.Fatalf("%d records, want %d; err %v", got, n, p.Err())
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*n), "ns/record")
		})
	}
}

// BenchmarkFranzGo is the reference for BenchmarkParse: franz-go's kgo.ProcessFetchPartition
// on the same fetch with its default decompressor and no pools, every record touched.
func BenchmarkFranzGo(b *testing.B) {
	for _, c := range allCodecs {
		b.Run(c.String(), func(b *testing.B) {
			buf, n := benchFetch(b, c, 4, 500)
			rp := kmsg.NewFetchResponseTopicPartition()
			rp.RecordBatches = buf
			dec := kgo.DefaultDecompressor()
			b.SetBytes(int64(len(buf)))
			b.ReportAllocs()
			b.ResetTimer()
			for b.Loop() {
				fp, _ := kgo.ProcessFetchPartition(kgo.ProcessFetchPartitionOpts{}, &rp, dec, nil)
				got, sum := 0, 0
				for _, r := range fp.Records {
					got++
					sum += len(r.Key) + len(r.Value)
					for _, h := range r.Headers {
						sum += len(h.Key) + len(h.Value)
					}
				}
				if got != n {
					b.Fatalf("%d records, want %d; err %v", got, n, fp.Err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*n), "ns/record")
		})
	}
}
