package loadgen

import (
	"context"
	"testing"
	"time"

	"github.com/plimsoll/plimsoll/loadgen/ledger"
	"github.com/plimsoll/plimsoll/workload"
	"github.com/twmb/franz-go/pkg/kgo"
)

// TestGroupProgress: a group is done when it saw every acknowledged message, or when it read to
// the end of every partition (what it did not see is then lost, not late).
func TestGroupProgress(t *testing.T) {
	r := &runner{topics: []string{"a"}, partitions: 2, share: Share{Partitions: Range{Lo: 0, Hi: 2}}}
	p := testProducer(t, 4)
	p.pacer.Advance(4) // sequences 0..3 sent
	p.unacked.Add(3)   // 3 failed
	g := &group{ledger: ledger.NewGroup(2, 1)}
	g.ledger.Observe(0, 0, 0, 0, phaseMeasured)
	g.ledger.Observe(1, 0, 0, 1, phaseMeasured)
	ends := map[string]map[int32]int64{"a": {0: 2, 1: 1}} // partition 0 holds offsets 0 and 1

	missing, atEnd := r.groupProgress(g, []*producer{p}, ends)
	if missing != 1 || atEnd {
		t.Errorf("missing %d at end %v, want 1 (sequence 2) and not at the end of partition 0", missing, atEnd)
	}
	if _, atEnd := r.groupProgress(g, []*producer{p}, nil); atEnd {
		t.Error("without end offsets a group cannot be at the end")
	}
	g.ledger.Observe(0, 1, 0, 0, phaseMeasured) // offset 1 read (a second copy of 0)
	if missing, atEnd = r.groupProgress(g, []*producer{p}, ends); missing != 1 || !atEnd {
		t.Errorf("missing %d at end %v, want 1 lost at the end of the log", missing, atEnd)
	}
}

// sendBatch hands messages [from, from+n) to the producer's client as its loop would, at now,
// and returns their records for the test to acknowledge (the client itself is never called).
func sendBatch(p *producer, from uint64, n int, now int64) []*kgo.Record {
	p.take(context.Background(), n)
	p.fill(from, n, now, true)
	recs := make([]*kgo.Record, n)
	for i := range recs {
		recs[i] = p.local[len(p.local)-1-i] // message from+i is local[len-1-i]
	}
	p.local = p.local[:0]
	p.pacer.Advance(from + uint64(n))
	p.sentAll.Add(int64(n))
	return recs
}

// rateRun is one producer of 1000 msgs/s of 100 B from time 0 on a fake clock, with the window
// from 1 s to 2 s, and the runner and execution the rate tests drive.
func rateRun(t *testing.T) (*producer, *fakeClock, *runner, *execution) {
	const sec = int64(time.Second)
	p := testProducer(t, 4096)
	p.run.measureStart.Store(sec)
	p.run.measureEnd.Store(2 * sec)
	r := &runner{spec: workload.Spec{Rate: 1000, Producers: 1}, payloads: p.payloads, share: Share{Producers: Range{Lo: 0, Hi: 1}}}
	x := &execution{run: p.run, c: &clients{prods: []*producer{p}},
		col: newCollector(p.run, []*producer{p}, nil, nil, p.payloads.size, 1000, 0)}
	return p, p.run.clock.(*fakeClock), r, x
}

// TestRatesCountMessagesIntendedInTheWindow: a stall in the warm-up leaves its messages
// unacknowledged until the window, where they arrive together with the window's own. The rates
// count the messages intended inside the window, so the achieved rate does not exceed the target
// (by arrival it read twice the target here).
func TestRatesCountMessagesIntendedInTheWindow(t *testing.T) {
	const sec = int64(time.Second)
	p, clk, r, x := rateRun(t)
	x.warmEnd = sec
	st := &execState{phase: PhaseWarmup, drainedAt: -1}

	// The warm-up's 1000 messages go out on time; the cluster acknowledges none of them yet.
	var backlog []*kgo.Record
	for i := uint64(0); i < 1000; i += 100 {
		clk.now = p.pacer.Intended(i + 99)
		backlog = append(backlog, sendBatch(p, i, 100, clk.now)...)
	}
	clk.now = sec
	if err := r.advance(x, st, clk.now); err != nil || st.phase != PhaseMeasure || st.startK.t != sec {
		t.Fatalf("the window did not start at 1 s: %v, phase %s", err, st.phase)
	}
	// The window's messages go out and are acknowledged on time; half-way, so is the backlog.
	for i := uint64(1000); i < 2000; i += 100 {
		clk.now = p.pacer.Intended(i + 99)
		if i == 1500 {
			for _, rec := range backlog {
				p.onDone(rec, nil)
			}
		}
		for _, rec := range sendBatch(p, i, 100, clk.now) {
			p.onDone(rec, nil)
		}
	}
	clk.now = 2 * sec
	if err := r.advance(x, st, clk.now); err != nil || st.phase != PhaseDrain {
		t.Fatalf("the window did not end at 2 s: %v, phase %s", err, st.phase)
	}
	res := &Result{}
	res.Counts, res.ExcludedCounts = producerCounts(x.c.prods)
	r.fillRates(res, st)
	if res.Counts.Acked != 1000 || res.ExcludedCounts.Acked != 1000 {
		t.Fatalf("acked %d in the window and %d in the warm-up, want 1000 each", res.Counts.Acked, res.ExcludedCounts.Acked)
	}
	if res.ProducedMsgsPerSec > res.TargetMsgsPerSec || res.ProducedMsgsPerSec != 1000 || res.ProducedBytesPerSec != 100_000 ||
		res.SentMsgsPerSec != 1000 {
		t.Errorf("produced %v msgs/s (%v B/s), sent %v msgs/s, of %v targeted; want the 1000 msgs/s intended in the window",
			res.ProducedMsgsPerSec, res.ProducedBytesPerSec, res.SentMsgsPerSec, res.TargetMsgsPerSec)
	}
}

// TestRatesCountArrivalsInTheWindow: a cluster that falls behind acknowledges half the window's
// messages in it and the rest only during the drain. Counted by intended time alone, every
// message was acknowledged and the rate read as the target; the acknowledgements that arrived
// in the window say the cluster kept up with half of it.
func TestRatesCountArrivalsInTheWindow(t *testing.T) {
	const sec = int64(time.Second)
	p, clk, r, x := rateRun(t)
	st := &execState{phase: PhaseMeasure, drainedAt: -1}
	clk.now = sec
	if err := r.advance(x, st, clk.now); err != nil || st.startK.t != sec {
		t.Fatalf("the window did not start at 1 s: %v", err)
	}
	var late []*kgo.Record
	for i := uint64(1000); i < 2000; i += 100 {
		clk.now = p.pacer.Intended(i + 99)
		recs := sendBatch(p, i, 100, clk.now)
		if i%200 == 0 {
			for _, rec := range recs {
				p.onDone(rec, nil)
			}
		} else {
			late = append(late, recs...)
		}
	}
	clk.now = 2 * sec
	if err := r.advance(x, st, clk.now); err != nil || st.phase != PhaseDrain {
		t.Fatalf("the window did not end at 2 s: %v, phase %s", err, st.phase)
	}
	clk.now = 3 * sec // the drain: the rest arrives
	for _, rec := range late {
		p.onDone(rec, nil)
	}
	res := &Result{}
	res.Counts, res.ExcludedCounts = producerCounts(x.c.prods)
	r.fillRates(res, st)
	if res.Counts.Acked != 1000 || res.SentMsgsPerSec != 1000 {
		t.Fatalf("acked %d, sent %v msgs/s; want all 1000 of the window's messages", res.Counts.Acked, res.SentMsgsPerSec)
	}
	if res.Arrived.AckedMsgsPerSec != 500 || res.ProducedMsgsPerSec != 500 || res.ProducedBytesPerSec != 50_000 {
		t.Errorf("produced %v msgs/s (%v B/s), arrivals %+v; want the 500 msgs/s acknowledged inside the window",
			res.ProducedMsgsPerSec, res.ProducedBytesPerSec, res.Arrived)
	}
}
