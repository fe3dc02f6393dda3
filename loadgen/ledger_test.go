package loadgen

import (
	"testing"

	"github.com/twmb/franz-go/pkg/kgo"
)

func TestSeqSet(t *testing.T) {
	var s seqSet
	for _, seq := range []uint64{0, 63, 64, chunkBits - 1, chunkBits, 5 * chunkBits, 1 << 40} {
		if !s.add(seq) || s.add(seq) || !s.has(seq) {
			t.Errorf("seq %d: add/has wrong", seq)
		}
	}
	if s.has(1) || s.has(1<<41) || s.len() != 7 {
		t.Errorf("has(1)=%v has(2^41)=%v len=%d", s.has(1), s.has(1<<41), s.len())
	}
}

func TestSeqSetReleasesFullChunks(t *testing.T) {
	var s seqSet
	// Two partitions' worth interleaved, as a consumer sees them: chunks fill and are released.
	const n = 10 * chunkBits
	for i := uint64(0); i < n/2; i++ {
		s.add(i)
		s.add(n/2 + i)
	}
	live := 0
	for _, c := range s.chunks {
		if c != nil && c != fullChunk {
			live++
		}
	}
	if live != 0 || s.len() != n {
		t.Errorf("%d chunks still allocated after filling them all; len %d", live, s.len())
	}
	if len(s.spare) > 2 {
		t.Errorf("%d spare chunks; two consumers' positions need at most 2", len(s.spare))
	}
	if !s.has(3*chunkBits+17) || s.add(3*chunkBits+17) {
		t.Error("a released chunk must still report its members")
	}
}

func TestCountAbsent(t *testing.T) {
	var seen, failed seqSet
	for i := uint64(0); i < 200; i++ {
		if i%10 != 0 {
			seen.add(i)
		}
	}
	failed.add(20)
	failed.add(30)
	for i := uint64(chunkBits); i < 2*chunkBits; i++ {
		seen.add(i) // a full chunk
	}
	for _, tc := range []struct {
		lo, hi uint64
		want   uint64
	}{
		{0, 200, 18},   // 0,10,...,190 minus the failed 20 and 30
		{0, 1, 1},      // just 0
		{1, 10, 0},     // all seen
		{15, 35, 0},    // 20 and 30 failed
		{15, 45, 1},    // 40
		{63, 130, 6},   // 70..120 across a word boundary
		{200, 210, 10}, // never seen
		{chunkBits - 5, chunkBits + 100, 5},
		{5, 5, 0},
	} {
		if got := countAbsent(&seen, &failed, tc.lo, tc.hi); got != tc.want {
			t.Errorf("countAbsent[%d,%d) = %d, want %d", tc.lo, tc.hi, got, tc.want)
		}
	}
	if got := countAbsent(&seen, nil, 0, 40); got != 4 {
		t.Errorf("without a failed set: %d, want 4", got)
	}
}

// rec is one consumed record for the ledger tests.
type rec struct {
	part   int
	offset int64
	prod   uint32
	seq    uint64
}

func TestGroupLedger(t *testing.T) {
	for _, tc := range []struct {
		name string
		recs []rec
		want ledgerCounts
	}{
		{"in order", []rec{{0, 0, 0, 0}, {0, 1, 0, 1}, {1, 0, 0, 2}, {0, 2, 1, 0}},
			ledgerCounts{Consumed: 4}},
		{"interleaved partitions are not out of order", []rec{{0, 0, 0, 5}, {1, 0, 0, 3}, {1, 1, 0, 4}, {0, 1, 0, 6}},
			ledgerCounts{Consumed: 4}},
		{"second copy in the log", []rec{{0, 0, 0, 0}, {0, 1, 0, 1}, {0, 2, 0, 1}},
			ledgerCounts{Consumed: 3, Duplicated: 1}},
		{"rebalance replay", []rec{{0, 0, 0, 0}, {0, 1, 0, 1}, {0, 0, 0, 0}, {0, 1, 0, 1}, {0, 2, 0, 2}},
			ledgerCounts{Consumed: 5, Duplicated: 2, Redelivered: 2}},
		{"out of order on one partition", []rec{{0, 0, 0, 0}, {0, 1, 0, 2}, {0, 2, 0, 1}, {0, 3, 0, 3}},
			ledgerCounts{Consumed: 4, OutOfOrder: 1}},
		{"ordering is per producer", []rec{{0, 0, 0, 9}, {0, 1, 1, 2}, {0, 2, 0, 10}},
			ledgerCounts{Consumed: 3}},
		{"same sequence from two producers is no duplicate", []rec{{0, 0, 0, 7}, {0, 1, 1, 7}},
			ledgerCounts{Consumed: 2}},
	} {
		l := newGroupLedger(2, 2)
		for _, r := range tc.recs {
			l.observe(r.part, r.offset, Stamp{Producer: r.prod, Seq: r.seq}, phaseMeasured)
		}
		if got := l.counts[phaseMeasured]; got != tc.want {
			t.Errorf("%s: %+v, want %+v", tc.name, got, tc.want)
		}
	}
}

func TestGroupLedgerForeignAndPhases(t *testing.T) {
	l := newGroupLedger(1, 1)
	l.observe(0, 0, Stamp{Producer: 5}, phaseMeasured) // unknown producer
	l.observe(3, 0, Stamp{Producer: 0}, phaseMeasured) // unknown partition
	l.observe(0, 1, Stamp{Producer: 0, Seq: 0}, phaseExcluded)
	l.observe(0, 2, Stamp{Producer: 0, Seq: 1}, phaseMeasured)
	if l.foreign != 2 || l.counts[phaseExcluded].Consumed != 1 || l.counts[phaseMeasured].Consumed != 1 {
		t.Errorf("foreign %d counts %+v", l.foreign, l.counts)
	}
}

// TestConsumerSkipsSettleRecords: the records a run writes to settle its topics count nowhere,
// while any other record without a stamp is foreign.
func TestConsumerSkipsSettleRecords(t *testing.T) {
	run := newRunState(&fakeClock{}, 0, 1, 1)
	run.measureStart.Store(0)
	g := &group{ledger: newGroupLedger(1, 1)}
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
	if g.ledger.foreign != 1 || g.ledger.counts[phaseMeasured].Consumed != 3 {
		t.Errorf("foreign %d consumed %d, want 1 and 3", g.ledger.foreign, g.ledger.counts[phaseMeasured].Consumed)
	}
}

// TestLedgerLoss is the ledger's loss rule: acknowledged and never seen is lost, failed is
// not, and the measured range excludes warm-up sequences.
func TestLedgerLoss(t *testing.T) {
	l := newGroupLedger(1, 1)
	var failed seqSet
	const sent = 1000
	for seq := uint64(0); seq < sent; seq++ {
		switch {
		case seq == 10 || seq == 600: // failed at the producer: never acknowledged, not lost
			failed.add(seq)
		case seq == 20 || seq == 700 || seq == 701: // acknowledged, never delivered: lost
		default:
			l.observe(0, int64(seq), Stamp{Seq: seq}, phaseMeasured)
		}
	}
	if got := l.missing(0, &failed, 0, sent); got != 3 {
		t.Errorf("lost %d, want 3", got)
	}
	if got := l.missing(0, &failed, 500, sent); got != 2 {
		t.Errorf("lost in the measured range %d, want 2", got)
	}
}

// BenchmarkConsumeRecords is the consumer's per-record work: decode the stamp, record the
// end-to-end latency, update the group's ledger. It must not allocate.
func BenchmarkConsumeRecords(b *testing.B) {
	const batch = 1000
	run := newRunState(&fakeClock{}, 0, 1, 4)
	run.measureStart.Store(0)
	g := &group{ledger: newGroupLedger(8, 4)}
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

// TestGroupProgress: a group is done when it saw every acknowledged message, or when it read to
// the end of every partition (what it did not see is then lost, not late).
func TestGroupProgress(t *testing.T) {
	r := &runner{topics: []string{"a"}, partitions: 2}
	p := testProducer(t, 4)
	p.pacer.Advance(4) // sequences 0..3 sent
	p.failedSeq.add(3) // 3 failed
	g := &group{ledger: newGroupLedger(2, 1)}
	g.ledger.observe(0, 0, Stamp{Seq: 0}, phaseMeasured)
	g.ledger.observe(1, 0, Stamp{Seq: 1}, phaseMeasured)
	ends := map[string]map[int32]int64{"a": {0: 2, 1: 1}} // partition 0 holds offsets 0 and 1

	missing, atEnd := r.groupProgress(g, []*producer{p}, ends)
	if missing != 1 || atEnd {
		t.Errorf("missing %d at end %v, want 1 (sequence 2) and not at the end of partition 0", missing, atEnd)
	}
	if _, atEnd := r.groupProgress(g, []*producer{p}, nil); atEnd {
		t.Error("without end offsets a group cannot be at the end")
	}
	g.ledger.observe(0, 1, Stamp{Seq: 0}, phaseMeasured) // offset 1 read (a second copy of 0)
	if missing, atEnd = r.groupProgress(g, []*producer{p}, ends); missing != 1 || !atEnd {
		t.Errorf("missing %d at end %v, want 1 lost at the end of the log", missing, atEnd)
	}
}
