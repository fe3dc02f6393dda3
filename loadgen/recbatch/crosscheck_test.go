package recbatch

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// flat is a record as both parsers can report it, for comparison.
type flat struct {
	Offset    int64
	Timestamp int64
	Key       string
	NullKey   bool
	Value     string
	NullValue bool
	Headers   string
	Control   bool
}

func (f flat) String() string {
	return fmt.Sprintf("offset %d ts %d key %q(null %v) value %d bytes(null %v) headers %s control %v",
		f.Offset, f.Timestamp, f.Key, f.NullKey, len(f.Value), f.NullValue, f.Headers, f.Control)
}

// viaFranz returns the records franz-go's kgo.ProcessFetchPartition finds in b: every record,
// control ones too, or read_committed's records given the aborted transactions.
func viaFranz(b []byte, aborted []AbortedTxn, committed bool) ([]flat, error) {
	rp := kmsg.NewFetchResponseTopicPartition()
	rp.RecordBatches = b
	for _, a := range aborted {
		at := kmsg.NewFetchResponseTopicPartitionAbortedTransaction()
		at.ProducerID, at.FirstOffset = a.ProducerID, a.FirstOffset
		rp.AbortedTransactions = append(rp.AbortedTransactions, at)
	}
	o := kgo.ProcessFetchPartitionOpts{KeepControlRecords: !committed, IsolationLevel: kgo.ReadUncommitted()}
	if committed {
		o.IsolationLevel = kgo.ReadCommitted()
	}
	fp, _ := kgo.ProcessFetchPartition(o, &rp, kgo.DefaultDecompressor(), nil)
	var out []flat
	for _, r := range fp.Records {
		var hs []string
		for _, h := range r.Headers {
			hs = append(hs, fmt.Sprintf("%q=%q/%v", h.Key, h.Value, h.Value == nil))
		}
		out = append(out, flat{r.Offset, r.Timestamp.UnixMilli(), string(r.Key), r.Key == nil, string(r.Value), r.Value == nil,
			strings.Join(hs, ","), r.Attrs.IsControl()})
	}
	return out, fp.Err
}

// viaParser returns the records this package's Parser finds in b, the same way.
func viaParser(p *Parser, b []byte, aborted []AbortedTxn, committed bool) ([]flat, error) {
	var a Aborts
	a.Reset(aborted)
	p.Reset(b)
	var out []flat
	var r Record
	for p.NextBatch() {
		batch := *p.Batch()
		var recs []flat
		marker := ControlType(-1)
		for p.NextRecord(&r) {
			if batch.Control() {
				marker, _ = Control(r.Key)
			}
			recs = append(recs, flatOf(&r, batch.Control()))
		}
		if p.Err() != nil {
			break
		}
		if !committed || !a.Skip(&batch, marker) {
			out = append(out, recs...)
		}
	}
	return out, p.Err()
}

// flatOf copies r out.
func flatOf(r *Record, control bool) flat {
	var hs []string
	h := r.Headers()
	for k, v, ok := h.Next(); ok; k, v, ok = h.Next() {
		hs = append(hs, fmt.Sprintf("%q=%q/%v", k, v, v == nil))
	}
	return flat{r.Offset, asFranz(r.Timestamp), string(r.Key), r.Key == nil, string(r.Value), r.Value == nil, strings.Join(hs, ","), control}
}

// crossCheck fails t if the two parsers disagree on b's records, either way of reading.
func crossCheck(t *testing.T, b []byte, aborted []AbortedTxn) {
	t.Helper()
	var p Parser
	for _, committed := range []bool{false, true} {
		want, ferr := viaFranz(b, aborted, committed)
		got, err := viaParser(&p, b, aborted, committed)
		if err == nil && lz4DataChecksum(ferr) {
			return
		}
		if (err != nil) != (ferr != nil) {
			t.Errorf("committed %v: error %v, franz-go's %v", committed, err, ferr)
		}
		if !slices.Equal(got, want) {
			t.Errorf("committed %v: %d records, franz-go %d", committed, len(got), len(want))
			for i := range max(len(got), len(want)) {
				var g, w flat
				if i < len(got) {
					g = got[i]
				}
				if i < len(want) {
					w = want[i]
				}
				if g != w {
					t.Errorf("record %d:\n got %v\nwant %v", i, g, w)
					break
				}
			}
		}
	}
}

func TestSameRecordsAsFranzGo(t *testing.T) {
	var all []byte
	for i, c := range []Codec{None, Gzip, Snappy, LZ4, Zstd} {
		tb := tbatch{base: int64(i * 50), codec: c, baseTs: 1_700_000_000_000, pid: 3, numRecords: -1, recs: sampleRecords(20 + i)}
		all = append(all, tb.encode(t)...)
	}
	appendTime := tbatch{base: 500, appendTime: true, baseTs: 10, maxTs: 1_700_000_000_123, numRecords: -1, recs: sampleRecords(3)}
	all = append(all, appendTime.encode(t)...)
	t.Run("codecs", func(t *testing.T) { crossCheck(t, all, nil) })
	t.Run("cut", func(t *testing.T) { crossCheck(t, all[:len(all)-10], nil) })
	t.Run("transactions", func(t *testing.T) {
		b, aborted := transactions(t), []AbortedTxn{{8, 10}}
		crossCheck(t, b, aborted)
		var p Parser
		if all, _ := viaParser(&p, b, aborted, false); len(all) != 11 {
			t.Errorf("read_uncommitted: %d records, want 11 (8 data, 3 markers)", len(all))
		}
		if committed, _ := viaParser(&p, b, aborted, true); len(committed) != 6 {
			t.Errorf("read_committed: %d records, want 6 (producer 8's two aborted, the markers skipped)", len(committed))
		}
	})
}

// transactions returns a log of two producers' transactions: producer 7 commits at 0-3 and
// marks it at 4; producer 8 aborts 10-11 (marked at 14) while producer 7 commits 12-13 (marked at 15).
func transactions(t testing.TB) []byte {
	marker := func(at, pid int64, typ byte) []byte {
		return tbatch{base: at, txn: true, control: true, pid: pid, numRecords: -1,
			recs: []rec{{key: []byte{0, 0, 0, typ}, value: []byte{0, 0, 0, 0, 0, 0}}}}.encode(t)
	}
	data := func(at, pid int64, n int) []byte {
		return tbatch{base: at, txn: true, pid: pid, numRecords: -1, recs: sampleRecords(n)}.encode(t)
	}
	var b []byte
	b = append(b, data(0, 7, 4)...)
	b = append(b, marker(4, 7, 1)...)
	b = append(b, data(10, 8, 2)...)
	b = append(b, data(12, 7, 2)...)
	b = append(b, marker(14, 8, 0)...)
	b = append(b, marker(15, 7, 1)...)
	return b
}

// asFranz returns the milliseconds franz-go reports for a record's timestamp ms: it makes a
// time.Time of ms*1e6 nanoseconds, which wraps beyond about 292 years from 1970.
func asFranz(ms int64) int64 { return time.Unix(0, ms*1e6).UnixMilli() }

// lz4DataChecksum reports whether franz-go refused an lz4 frame for its block or content
// checksum, which the parser does not check (as Kafka's Java consumer does not; FuzzRecords
// found the difference).
func lz4DataChecksum(err error) bool {
	return err != nil && strings.Contains(err.Error(), "lz4: invalid") && strings.Contains(err.Error(), "checksum") &&
		!strings.Contains(err.Error(), "header checksum")
}
