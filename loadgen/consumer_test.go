package loadgen

import (
	"testing"

	"github.com/plimsoll/plimsoll/loadgen/ledger"
	"github.com/twmb/franz-go/pkg/kgo"
)

// TestConsumerSkipsSettleRecords: the records a run writes to settle its topics count nowhere,
// while any other record without a stamp is foreign.
func TestConsumerSkipsSettleRecords(t *testing.T) {
	run := newRunState(&fakeClock{}, 0, 1, 1)
	run.measureStart.Store(0)
	g := &group{ledger: ledger.NewGroup(2, 1)}
	c := newConsumer(run, g, map[string]int{"t": 0}, 0)
	recs := makeRecords(3, 1, 100)
	for i, r := range recs {
		r.Offset = int64(i + 2)
	}
	recs = append([]*kgo.Record{
		{Value: append([]byte(nil), settleValue...), Offset: 0},
		{Value: []byte("not ours"), Offset: 1},
	}, recs...)
	if n := c.records(0, recs, 1); n != 4 {
		t.Errorf("records counted %d as consumed, want 4 (all but the settling record)", n)
	}
	if g.ledger.Foreign != 1 || g.ledger.Counts[phaseMeasured].Consumed != 3 {
		t.Errorf("foreign %d consumed %d, want 1 and 3", g.ledger.Foreign, g.ledger.Counts[phaseMeasured].Consumed)
	}
	// A partition holding only its settling record has been read to its end once that is read.
	if n := c.records(1, []*kgo.Record{{Value: append([]byte(nil), settleValue...), Offset: 0}}, 1); n != 0 || g.ledger.ReadTo(1) != 0 {
		t.Errorf("settle-only partition: %d consumed, read to offset %d; want 0 and 0", n, g.ledger.ReadTo(1))
	}
}

// BenchmarkConsumeRecords is the consumer's per-record work: decode the stamp, record the
// end-to-end latency, update the group's ledger. It must not allocate.
func BenchmarkConsumeRecords(b *testing.B) {
	const batch = 1000
	run := newRunState(&fakeClock{}, 0, 1, 4)
	run.measureStart.Store(0)
	g := &group{ledger: ledger.NewGroup(8, 4)}
	c := newConsumer(run, g, map[string]int{"t": 0}, 0)
	recs := makeRecords(batch, 4, 100)
	b.ReportAllocs()
	b.ResetTimer()
	var seq uint64
	for i := 0; i < b.N; i += batch {
		for j, r := range recs {
			Stamp{Producer: uint32(j % 4), Seq: seq + uint64(j/4), Intended: int64(j)}.Encode(r.Value)
			r.Offset = int64(seq) + int64(j)
		}
		seq += batch / 4
		g.mu.Lock()
		c.mu.Lock()
		c.records(i%8, recs, int64(5_000_000))
		c.mu.Unlock()
		g.mu.Unlock()
	}
}
