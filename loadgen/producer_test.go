package loadgen

import (
	"context"
	"errors"
	"testing"
	"time"
	"unsafe"

	"github.com/plimsoll/plimsoll/loadgen/ledger"
	"github.com/plimsoll/plimsoll/loadgen/pace"
	"github.com/plimsoll/plimsoll/workload"
	"github.com/twmb/franz-go/pkg/kgo"
)

func testProducer(t testing.TB, maxLive int) *producer {
	t.Helper()
	run := newRunState(&fakeClock{}, 1_700_000_000_000_000_000, 1, 1)
	run.measureStart.Store(1_000_000)
	pl, err := newPayloadPool(workload.Payload{Kind: workload.PayloadRandom, RandomBytesRatio: 1}, 100, 1)
	if err != nil {
		t.Fatal(err)
	}
	ks, _ := newKeySet(workload.KeysRoundRobin, 100, 1)
	return newProducer(0, run, nil, []string{"a", "b"}, pace.Pacer{Start: 0, Rate: 1000}, pl, ks, maxLive)
}

// TestProducerRecordCycle checks what the producer writes into a record and that the promise
// accounts for it and returns it to the pool.
func TestProducerRecordCycle(t *testing.T) {
	p := testProducer(t, 8)
	clk := p.run.clock.(*fakeClock)
	clk.now = 2_500_300 // messages 0..2 are due (0, 1, 2 ms); 0 is in warm-up
	if ok, waited := p.take(context.Background(), 3); !ok || waited || len(p.local) != 3 {
		t.Fatalf("take: ok %v waited %v got %d", ok, waited, len(p.local))
	}
	p.fill(0, 3, clk.now, true)
	recs := []*kgo.Record{p.local[2], p.local[1], p.local[0]} // message i is local[len-1-i]
	p.local = p.local[:0]
	for i, r := range recs {
		st, err := DecodeStamp(r.Value)
		if err != nil || st.Seq != uint64(i) || st.Intended != int64(i)*1_000_000 {
			t.Errorf("record %d stamp %+v %v", i, st, err)
		}
		if r.Topic != []string{"a", "b"}[i%2] || len(r.Key) != 10 {
			t.Errorf("record %d topic %q key %q", i, r.Topic, r.Key)
		}
		if got := r.Timestamp.UnixNano() - p.run.wallBase; got != clk.now {
			t.Errorf("record %d timestamp %d, want the send time %d", i, got, clk.now)
		}
	}
	if p.sent[phaseExcluded] != 1 || p.sent[phaseMeasured] != 2 || !p.measSeen || p.firstMeasSeq != 1 {
		t.Errorf("sent %v first measured %d (%v)", p.sent, p.firstMeasSeq, p.measSeen)
	}
	if got := p.sched[phaseMeasured].MaxNs(); got != 1_500_300 {
		t.Errorf("schedule delay max %d, want 1.5003 ms (message 1 sent at 2.5003 ms)", got)
	}
	clk.now = 7_000_000
	p.onDone(recs[0], nil)
	p.onDone(recs[1], nil)
	p.onDone(recs[2], errors.New("boom"))
	if p.acked != [2]int64{1, 1} || p.failed != [2]int64{0, 1} || !p.unacked.Has(2) || p.errs.n != 1 {
		t.Errorf("acked %v failed %v", p.acked, p.failed)
	}
	if got := p.pub[phaseMeasured].MaxNs(); got != 6_000_000 {
		t.Errorf("publish latency %d, want 6 ms from the intended 1 ms", got)
	}
	if got := p.ackWait[phaseMeasured].MaxNs(); got != 4_499_700 { // not from the ms-truncated CreateTime
		t.Errorf("ack wait %d, want 4.4997 ms from the send at 2.5003 ms", got)
	}
	if len(p.free) != 3 || p.inFlight() != 0 {
		t.Errorf("pool: %d free, %d in flight", len(p.free), p.inFlight())
	}
}

// TestProducerPoolLimit: with every record in flight the producer waits (buffer full) until a
// promise returns one; the payload buffer is never shared by two in-flight records.
func TestProducerPoolLimit(t *testing.T) {
	p := testProducer(t, 2)
	ctx := context.Background()
	p.take(ctx, 4)
	if len(p.local) != 2 {
		t.Fatalf("took %d records from a pool of 2", len(p.local))
	}
	a, b := p.local[0], p.local[1]
	if &a.Value[0] == &b.Value[0] {
		t.Fatal("two records share a value buffer")
	}
	p.local = p.local[:0]
	done := make(chan bool)
	go func() { ok, waited := p.take(ctx, 1); done <- ok && waited }()
	for {
		p.mu.Lock()
		w := p.waiting
		p.mu.Unlock()
		if w {
			break
		}
	}
	p.onDone(a, nil)
	if !<-done || p.local[0] != a {
		t.Fatal("the waiting producer did not get the returned record")
	}
	if p.fullWaits.Load() != 1 {
		t.Errorf("buffer-full waits %d, want 1", p.fullWaits.Load())
	}
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	p.local = p.local[:0]
	p.live = p.maxLive
	p.free = nil
	if ok, _ := p.take(cctx, 1); ok {
		t.Error("take returned a record from an empty pool after cancellation")
	}
}

// BenchmarkProducerRecord is the producer's own per-message work around franz-go: take a
// pooled record, stamp and fill it (payload copy, key, topic, schedule-delay histogram), then
// the promise (publish and ack-wait histograms, return to the pool). It must not allocate.
func BenchmarkProducerRecord(b *testing.B) {
	p := testProducer(b, 1024)
	ctx := context.Background()
	clk := p.run.clock.(*fakeClock)
	recs := make([]*kgo.Record, chunkMax)
	b.ReportAllocs()
	b.ResetTimer()
	var next uint64
	for i := 0; i < b.N; i += chunkMax {
		clk.now += chunkMax * 1_000_000
		p.take(ctx, chunkMax)
		p.fill(next, chunkMax, clk.now, true)
		copy(recs, p.local)
		p.local = p.local[:0]
		next += chunkMax
		for _, r := range recs {
			p.onDone(r, nil)
		}
	}
}

// TestPooledRecordSize: a record and its accounting context fill one 192-byte size class
// (three cache lines); see pooledRecord. A franz-go upgrade that grows kgo.Record breaks it.
func TestPooledRecordSize(t *testing.T) {
	if got := unsafe.Sizeof(pooledRecord{}); got != 192 {
		t.Errorf("pooledRecord is %d bytes, want 192 (kgo.Record %d + recCtx %d): revisit its layout", got, unsafe.Sizeof(kgo.Record{}), unsafe.Sizeof(recCtx{}))
	}
}

// BenchmarkProducerRecordInFlight is BenchmarkProducerRecord with the promises arriving the way
// a real run sees them: each record is acknowledged only after inFlight newer ones were sent,
// so it has left the CPU caches (100k msg/s with 20 ms to the ack keeps 2000 in flight). The
// promise's own cache misses (record, context, histograms) show here, not in the warm loop.
func BenchmarkProducerRecordInFlight(b *testing.B) {
	const inFlight = 4096
	p := testProducer(b, inFlight+2*chunkMax)
	ctx := context.Background()
	clk := p.run.clock.(*fakeClock)
	ring := make([]*kgo.Record, 0, inFlight+chunkMax)
	var next uint64
	send := func() {
		clk.now += chunkMax * 1_000_000
		p.take(ctx, chunkMax)
		p.fill(next, chunkMax, clk.now, true)
		for i := len(p.local) - 1; i >= 0; i-- {
			ring = append(ring, p.local[i])
		}
		p.local = p.local[:0]
		next += chunkMax
	}
	for len(ring) < inFlight {
		send()
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i += chunkMax {
		send()
		for _, r := range ring[:chunkMax] {
			p.onDone(r, nil)
		}
		ring = append(ring[:0], ring[chunkMax:]...)
	}
}

// TestInFlightAtEndIsNotLost: records still in flight when a producer gives up waiting for them
// (its client closed, the idle wait over) were never acknowledged: they count apart, in flight
// at the end, and never as lost; a promise that fires after that changes no count.
func TestInFlightAtEndIsNotLost(t *testing.T) {
	p := testProducer(t, 16)
	p.run.measureStart.Store(0)
	cl, err := kgo.NewClient(kgo.SeedBrokers("127.0.0.1:1")) // never asked to produce
	if err != nil {
		t.Fatal(err)
	}
	p.cl = cl
	clk := p.run.clock.(*fakeClock)
	clk.now = 5_000_000
	recs := sendBatch(p, 0, 5, clk.now) // messages 0..4 handed to the client
	p.onDone(recs[0], nil)
	p.onDone(recs[1], nil)
	p.onDone(recs[2], errors.New("boom"))
	// The client never answers for 3 and 4.
	p.finish(context.Background(), clk.now, 10*time.Millisecond)
	g := &group{ledger: ledger.NewGroup(1, 1)}
	g.ledger.Observe(0, 0, 0, 0, phaseMeasured)
	g.ledger.Observe(0, 1, 0, 1, phaseMeasured)
	c, _ := producerCounts([]*producer{p})
	gr, _ := groupResult(g, []*producer{p}, true)
	if gr.Counts.Lost != 0 || gr.Counts.Unconsumed != 0 {
		t.Errorf("lost %d unconsumed %d, want 0: the records in flight at the end were never acknowledged", gr.Counts.Lost, gr.Counts.Unconsumed)
	}
	if c.Sent != 5 || c.Acked != 2 || c.Failed != 1 || c.InFlightAtEnd != 2 {
		t.Errorf("sent %d acked %d failed %d in flight at the end %d, want 5, 2, 1 and 2", c.Sent, c.Acked, c.Failed, c.InFlightAtEnd)
	}
	p.onDone(recs[3], nil)
	p.onDone(recs[4], errors.New("late"))
	if c2, _ := producerCounts([]*producer{p}); c2 != c || len(p.free) != 5 {
		t.Errorf("after late promises: %+v (%d records back in the pool), want the counts unchanged %+v and all 5 back", c2, len(p.free), c)
	}
}
