package loadgen

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

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
		c.flushLatency()
		c.mu.Unlock()
		g.mu.Unlock()
	}
}

// TestConsumerHandleAllocsNothing: in steady state the consumer's whole per-poll path
// (handle: every partition's records, stamp, end-to-end latency, ledger, recycling) allocates
// nothing. The sequences advance run by run, past the ledger's 64 Ki chunks, as in a run.
func TestConsumerHandleAllocsNothing(t *testing.T) {
	const perPart, parts, producers = 500, 2, 2
	run := newRunState(&fakeClock{}, 0, 1, producers)
	run.measureStart.Store(0)
	g := &group{ledger: ledger.NewGroup(parts, producers)}
	c := newConsumer(run, g, map[string]int{"t": 0}, 0)
	tp := kgo.FetchTopic{Topic: "t"}
	for p := range parts {
		tp.Partitions = append(tp.Partitions, kgo.FetchPartition{Partition: int32(p), Records: makeRecords(perPart, 1, 100)})
	}
	fs := kgo.Fetches{{Topics: []kgo.FetchTopic{tp}}}
	var round uint64
	restamp := func() {
		for p := range tp.Partitions {
			for i, r := range tp.Partitions[p].Records {
				pr := uint32(p)
				seq := round*perPart + uint64(i)
				Stamp{Producer: pr, Seq: seq, Intended: int64(seq)}.Encode(r.Value)
				r.Offset = int64(seq)
			}
		}
		round++
	}
	const runs = 300 // 150,000 sequences a producer: over two chunks recycled
	allocs := testing.AllocsPerRun(runs, func() {
		restamp()
		c.handle(fs, 1_000_000)
	})
	if allocs != 0 {
		t.Errorf("handle allocated %.0f times a poll of %d records, want 0", allocs, perPart*parts)
	}
	want := int64(runs+1) * perPart * parts // AllocsPerRun runs once more to warm up
	if n := g.ledger.Counts[phaseMeasured].Consumed; n != want || c.consumedAll.Load() != want || c.e2e[phaseMeasured].Count() != want {
		t.Errorf("consumed %d (counted %d, latencies %d), want %d", n, c.consumedAll.Load(), c.e2e[phaseMeasured].Count(), want)
	}
}

// countingPools counts the slices a client takes from recordPools and gives back.
type countingPools struct {
	*recordPools
	gets, puts atomic.Int64
}

func (p *countingPools) GetRecords(n int) []kgo.Record {
	p.gets.Add(1)
	return p.recordPools.GetRecords(n)
}

func (p *countingPools) PutRecords(s []kgo.Record) {
	p.puts.Add(1)
	p.recordPools.PutRecords(s)
}

// TestConsumerRecyclesRecords: a consumer hands every record back once it has accounted for
// it, so every record slice its client took from the pool returns to it, and the ledger sees
// every record.
func TestConsumerRecyclesRecords(t *testing.T) {
	tgt, adm := fakeCluster(t, 1)
	ctx := context.Background()
	if _, err := adm.CreateTopic(ctx, 2, 1, nil, "t"); err != nil {
		t.Fatal(err)
	}
	const n = 2000
	prod, err := kgo.NewClient(kgo.SeedBrokers(tgt.Bootstrap...), kgo.DefaultProduceTopic("t"))
	if err != nil {
		t.Fatal(err)
	}
	defer prod.Close()
	for i, r := range makeRecords(n, 2, 100) {
		r.Partition = int32(i % 2)
		prod.Produce(ctx, r, nil)
	}
	if err := prod.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	pools := &countingPools{recordPools: newRecordPools()}
	cl, err := kgo.NewClient(kgo.SeedBrokers(tgt.Bootstrap...), kgo.ConsumeTopics("t"),
		kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()), kgo.WithPools(pools))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	run := newRunState(&fakeClock{}, 0, 1, 2)
	run.measureStart.Store(0)
	g := &group{ledger: ledger.NewGroup(2, 2)}
	c := newConsumer(run, g, map[string]int{"t": 0}, 0)
	c.cl = cl
	pctx, cancel := context.WithTimeout(ctx, 20*time.Second)
	defer cancel()
	for c.consumedAll.Load() < n && c.poll(pctx) {
	}
	if got := g.ledger.Seen(); got != n {
		t.Fatalf("the ledger saw %d records, want %d", got, n)
	}
	if gets, puts := pools.gets.Load(), pools.puts.Load(); gets == 0 || puts != gets {
		t.Errorf("record slices: %d taken from the pool, %d given back; want every one back", gets, puts)
	}
}

// TestOwnFetchRecordAllocsNothing: on plimsoll's own fetch path, the consumer's per-record path
// (fetchSink: stamp, end-to-end latency, ledger, position) allocates nothing in steady state;
// the fetcher's own parse and delivery is fetch.TestSteadyStateAllocatesNothing.
func TestOwnFetchRecordAllocsNothing(t *testing.T) {
	const perPart, parts, producers = 500, 2, 2
	run := newRunState(&fakeClock{}, 0, 1, producers)
	run.measureStart.Store(0)
	g := &group{ledger: ledger.NewGroup(parts, producers)}
	c := newConsumer(run, g, map[string]int{"t": 0}, 0)
	s := &fetchSink{c: c}
	value := make([]byte, 100)
	var round uint64
	const runs = 300 // 150,000 sequences a producer: over two chunks recycled
	allocs := testing.AllocsPerRun(runs, func() {
		s.Lock()
		for p := range parts {
			for i := range perPart {
				seq := round*perPart + uint64(i)
				Stamp{Producer: uint32(p), Seq: seq, Intended: int64(seq)}.Encode(value)
				s.Record(p, int64(seq), 3, value)
			}
		}
		s.Unlock()
		round++
	})
	if allocs != 0 {
		t.Errorf("the sink allocated %.0f times a fetch of %d records, want 0", allocs, perPart*parts)
	}
	want := int64(runs+1) * perPart * parts
	if n := g.ledger.Counts[phaseMeasured].Consumed; n != want || c.consumedAll.Load() != want || c.e2e[phaseMeasured].Count() != want {
		t.Errorf("consumed %d (counted %d, latencies %d), want %d", n, c.consumedAll.Load(), c.e2e[phaseMeasured].Count(), want)
	}
	if c.pos.next[1] != int64(round*perPart) || c.pos.epoch[1] != 3 {
		t.Errorf("position %d epoch %d, want %d 3", c.pos.next[1], c.pos.epoch[1], round*perPart)
	}
}

// BenchmarkOwnFetchRecord: the consumer's per-record path on plimsoll's own fetch path
// (fetchSink.Record: stamp, end-to-end latency, ledger, position), per record, in responses of
// 1,000 records produced 500 ns apart and read about a second later.
func BenchmarkOwnFetchRecord(b *testing.B) {
	clk := &fakeClock{}
	run := newRunState(clk, 0, 1, 1)
	run.measureStart.Store(0)
	g := &group{ledger: ledger.NewGroup(1, 1)}
	c := newConsumer(run, g, map[string]int{"t": 0}, 0)
	s := &fetchSink{c: c}
	value := make([]byte, 100)
	b.ReportAllocs()
	s.Lock()
	for i := range b.N {
		if i%1000 == 0 {
			s.Unlock()
			clk.now = int64(i+1000)*500 + 1e9
			s.Lock()
		}
		Stamp{Producer: 0, Seq: uint64(i), Intended: int64(i) * 500}.Encode(value)
		s.Record(0, int64(i), 0, value)
	}
	s.Unlock()
}
