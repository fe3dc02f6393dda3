package produce

import (
	"context"
	"math"
	"testing"

	"github.com/plimsoll/plimsoll/loadgen/recbatch"
)

func TestAddSeq(t *testing.T) {
	for _, c := range []struct{ seq, n, want int32 }{
		{0, 5, 5},
		{math.MaxInt32 - 5, 5, math.MaxInt32},
		{math.MaxInt32 - 5, 6, 0},
		{math.MaxInt32, 1, 0},
		{math.MaxInt32 - 2, 10, 7},
	} {
		if got := addSeq(c.seq, c.n); got != c.want {
			t.Errorf("addSeq(%d, %d) = %d, want %d", c.seq, c.n, got, c.want)
		}
	}
}

// sealedBatch returns a queued batch of n records created at clock time created.
func sealedBatch(n int, created int64) *batch {
	b := &batch{}
	b.reset()
	b.created = created
	for i := range n {
		b.w.Append(int64(i), nil, []byte("v"), nil)
		b.tags = append(b.tags, Tag{Seq: uint64(i)})
	}
	return b
}

// TestPartNext walks a partition through the sending rules: sequences in order, the window of
// five, draining after an error, the resend in order, backoff, expiry.
func TestPartNext(t *testing.T) {
	const timeout = 1000
	var expired []*batch
	var expiredSent []bool
	onExpire := func(b *batch, sent bool) { expired, expiredSent = append(expired, b), append(expiredSent, sent) }
	pt := &part{id: producerID{7, 1}, sl: &slot{}, established: true} // a batch acknowledged before
	var bs []*batch
	for range 7 {
		b := sealedBatch(3, 0)
		bs = append(bs, b)
		pt.sl.queue = append(pt.sl.queue, b)
	}
	// Five go out, sequences 0, 3, 6, 9, 12; the sixth waits for the window.
	for i := range 5 {
		b := pt.next(10, true, timeout, onExpire)
		if b != bs[i] {
			t.Fatalf("next %d: not the queue's head", i)
		}
		pt.start(b, true, nil, 0)
		if b.seq != int32(3*i) {
			t.Errorf("batch %d: sequence %d, want %d", i, b.seq, 3*i)
		}
		var ps recbatch.Parser
		ps.Reset(b.bytes)
		if !ps.NextBatch() || ps.Batch().ProducerID != 7 || ps.Batch().BaseSequence != b.seq {
			t.Fatalf("batch %d: bytes do not carry producer 7, sequence %d", i, b.seq)
		}
	}
	if b := pt.next(10, true, timeout, onExpire); b != nil {
		t.Fatal("a sixth batch went out with five unacknowledged")
	}
	// Batch 1 fails retriably: nothing goes until the other four are back.
	pt.returned(bs[1])
	pt.retry(bs[1], false, 50)
	if b := pt.next(60, true, timeout, onExpire); b != nil {
		t.Fatal("sent while draining")
	}
	pt.returned(bs[0])
	pt.remove(bs[0]) // acknowledged
	for _, i := range []int{2, 3, 4} {
		pt.returned(bs[i])
		pt.retry(bs[i], i == 3, 50) // out of order behind batch 1; batch 3's outcome unknown
	}
	if b := pt.next(40, true, timeout, onExpire); b != nil {
		t.Fatal("sent before the backoff passed")
	}
	// The resend goes in sequence order, with the same sequences, before any new batch.
	for _, i := range []int{1, 2, 3, 4} {
		b := pt.next(60, true, timeout, onExpire)
		if b != bs[i] {
			t.Fatalf("resend: got another batch than %d", i)
		}
		pt.start(b, true, nil, 0)
		if b.seq != int32(3*i) || b.attempts != 2 {
			t.Errorf("resend %d: sequence %d attempts %d", i, b.seq, b.attempts)
		}
	}
	// A new producer id restamps the batches certainly not written from 0 and fails batch 3.
	for _, i := range []int{1, 2, 3, 4} {
		pt.returned(bs[i])
	}
	pt.needReset = true
	failed := pt.restamp(producerID{8, 0})
	if len(failed) != 1 || failed[0] != bs[3] {
		t.Fatalf("restamp failed %d batches, want batch 3 only", len(failed))
	}
	for i, want := range map[int]int32{1: 0, 2: 3, 4: 6} {
		if bs[i].seq != want || bs[i].id.id != 8 {
			t.Errorf("batch %d restamped to producer %d sequence %d, want 8, %d", i, bs[i].id.id, bs[i].seq, want)
		}
	}
	if pt.nextSeq != 9 {
		t.Errorf("next sequence %d, want 9", pt.nextSeq)
	}
	if pt.established {
		t.Error("a partition under a new producer id is established before any batch is acknowledged")
	}
	// Past the delivery timeout: a queued batch expires unsent; an unacknowledged one expires as
	// sent (its partition's other batches are the caller's to fail).
	pt.unacked = nil
	if b := pt.next(timeout+1, true, timeout, onExpire); b != nil || len(expired) != 2 || expiredSent[0] || expiredSent[1] {
		t.Fatalf("expiry of the queue: next %v, expired %d %v", b, len(expired), expiredSent)
	}
	u := sealedBatch(1, 0)
	pt.sl.queue = append(pt.sl.queue, u)
	pt.start(u, true, nil, 0)
	pt.returned(u)
	pt.retry(u, true, 0)
	pt.draining = false
	if b := pt.next(timeout+1, true, timeout, onExpire); b != nil || len(expired) != 3 || !expiredSent[2] {
		t.Fatalf("expiry of a sent batch: next %v, expired %v", b, expiredSent)
	}
}

// TestPartFirstBatchAlone: under a producer id the broker may know nothing of (no batch of the
// partition acknowledged under it yet), the partition's first batch goes alone; once it is
// acknowledged, up to five go.
func TestPartFirstBatchAlone(t *testing.T) {
	pt := &part{id: producerID{9, 0}, sl: &slot{}}
	var bs []*batch
	for range 7 {
		b := sealedBatch(2, 0)
		bs = append(bs, b)
		pt.sl.queue = append(pt.sl.queue, b)
	}
	never := func(*batch, bool) { t.Fatal("expired") }
	if b := pt.next(0, true, 1000, never); b != bs[0] {
		t.Fatal("the first batch did not go")
	}
	pt.start(bs[0], true, nil, 0)
	if b := pt.next(0, true, 1000, never); b != nil {
		t.Fatal("a second batch went before the first under a new producer id was acknowledged")
	}
	pt.returned(bs[0])
	pt.remove(bs[0])
	pt.established = true // as the sender marks it on the acknowledgement
	for i := 1; i <= 5; i++ {
		b := pt.next(0, true, 1000, never)
		if b != bs[i] {
			t.Fatalf("batch %d did not go once the first was acknowledged", i)
		}
		pt.start(b, true, nil, 0)
	}
	// Without idempotence there are no sequences to protect: several go at once.
	plain := &part{sl: &slot{queue: []*batch{sealedBatch(1, 0), sealedBatch(1, 0)}}}
	for i := range 2 {
		b := plain.next(0, false, 1000, never)
		if b == nil {
			t.Fatalf("plain batch %d did not go", i)
		}
		plain.start(b, false, nil, 0)
	}
}

// TestProduceAllocatesNothing fails if Produce allocates per record once its batches are
// pooled: records into open batches, sealed when full, the batches recycled as a sender would.
func TestProduceAllocatesNothing(t *testing.T) {
	for _, mark := range []func([]byte, int){nil, markLane} {
		p, round := offline(t)
		p.cfg.MarkLane = mark // with it, Produce also notes where each value is
		round()
		round()
		if a := testing.AllocsPerRun(20, round); a != 0 {
			t.Errorf("MarkLane set %v: %.1f allocations per 3000 records, want 0", mark != nil, a)
		}
		if p.batches > 64 {
			t.Errorf("%d batches allocated", p.batches)
		}
	}
}

// BenchmarkProduce is Produce's own cost per record (100-byte values, 3 partitions), the
// batches recycled as a sender would, without a network: ns/record and B/op (0).
func BenchmarkProduce(b *testing.B) {
	_, round := offline(b)
	round()
	b.ReportAllocs()
	for b.Loop() {
		round()
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*3000), "ns/record")
}

// offline returns a Producer with no client or sender, and a function that produces 3000
// records into it and recycles its sealed batches.
func offline(t testing.TB) (*Producer, func()) {
	p := &Producer{cfg: Config{BatchBytes: 16384, BufferBatches: 64, Now: func() int64 { return 0 }},
		freed: make(chan struct{}, 1), wake: make(chan struct{}, 1)}
	p.topicBase = []int{0}
	for range 3 {
		p.slots = append(p.slots, &slot{})
	}
	val := make([]byte, 100)
	r := Record{Value: val, Timestamp: 1_700_000_000_000}
	return p, func() {
		for i := range 3000 {
			r.Partition = int32(i % 3)
			r.Tag.Seq = uint64(i)
			if _, err := p.Produce(context.Background(), &r); err != nil {
				t.Fatal(err)
			}
		}
		p.mu.Lock()
		for _, sl := range p.slots {
			for _, b := range sl.queue {
				p.release(b)
			}
			sl.queue = sl.queue[:0]
		}
		p.mu.Unlock()
	}
}
