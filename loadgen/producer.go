package loadgen

import (
	"context"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"time"

	"github.com/plimsoll/plimsoll/loadgen/hdr"
	"github.com/plimsoll/plimsoll/loadgen/ledger"
	"github.com/plimsoll/plimsoll/loadgen/pace"
	"github.com/twmb/franz-go/pkg/kgo"
)

// chunkMax is the most messages a producer sends between two clock reads. Every message in a
// chunk is charged the schedule delay measured at the chunk's start, so the figure is low by
// at most the time to hand 64 records to the client (tens of µs).
const chunkMax = 64

// stopGrace is how long after the window closes a producer that fell behind keeps sending the
// messages it still owes. What is left after it is counted as unsent.
const stopGrace = time.Second

// producer drives one franz-go client along its Pacer. Its records (and their value buffers)
// are pooled: a record goes back to the pool when its promise fires, so no payload buffer is
// shared between in-flight records and nothing is allocated per message once the pool is warm.
type producer struct {
	id       uint32
	run      *runState
	cl       *kgo.Client
	win      *windowMeter // the client's protocol window
	topics   []string
	pacer    pace.Pacer
	payloads *payloadPool
	keys     *keySet
	rng      *rand.PCG
	payOff   uint64                   // where in the payload pool this producer starts
	promise  func(*kgo.Record, error) // p.onDone, bound once
	local    []*kgo.Record            // records taken from the pool, owned by the loop
	lean     *leanSink                // plimsoll's own produce path instead of cl (Options.LeanProducer)

	// Everything the promise touches, and the pool.
	mu      sync.Mutex
	free    []*kgo.Record
	live    int // records allocated
	maxLive int // pool limit: the producer buffer, in records
	waiting bool
	wake    chan struct{}
	pub     [2]*hdr.Hist // publish latency (intended -> ack), by phase; drained by the collector
	ackWait [2]*hdr.Hist // send call -> ack: time spent waiting on the cluster
	acked   [2]int64
	failed  [2]int64
	// unacked holds the sequences that will never count as acknowledged: failed, or still in
	// flight when the producer gave up waiting (inFlightEnd). The ledger counts neither lost.
	unacked     ledger.SeqSet
	inFlightEnd [2]int64
	givenUp     bool          // the accounting is closed: later promises count nowhere
	all         []*kgo.Record // every record of the pool, to find those in flight at the end
	errs        errorTally

	// Written by the loop, published under schedMu for the collector.
	schedMu      sync.Mutex
	sched        [2]*hdr.Hist // schedule delay (send call - intended), by phase
	sent         [2]int64
	firstMeasSeq uint64 // first sequence in the measured phase; valid once measSeen
	measSeen     bool
	unsent       int64

	// Cumulative, read at any time.
	ackedAll  atomic.Int64
	sentAll   atomic.Int64
	fullWaits atomic.Int64 // times the loop found the buffer full
	fullNs    atomic.Int64 // time spent waiting for buffer space
}

func newProducer(id int, run *runState, cl *kgo.Client, topics []string, pacer pace.Pacer, pl *payloadPool, keys *keySet, maxLive int) *producer {
	p := &producer{
		id: uint32(id), run: run, cl: cl, topics: topics, pacer: pacer, payloads: pl, keys: keys,
		rng:     rand.NewPCG(run.seed, uint64(id)),
		maxLive: max(maxLive, 1),
		wake:    make(chan struct{}, 1),
		local:   make([]*kgo.Record, 0, chunkMax),
	}
	for i := range 2 {
		p.pub[i], p.ackWait[i], p.sched[i] = hdr.New(), hdr.New(), hdr.New()
	}
	// Each producer walks the whole pool from its own starting point, so consecutive messages
	// never repeat a payload while the pool lasts.
	p.payOff = uint64(id) * pl.n / uint64(max(run.producers, 1))
	p.promise = p.onDone
	return p
}

// loop sends messages until the window closes (run.measureEnd) or ctx is done.
func (p *producer) loop(ctx context.Context) {
	clk := p.run.clock
	paced := p.pacer.Rate > 0
	for ctx.Err() == nil {
		now := clk.Now()
		end := p.run.measureEnd.Load()
		next := p.pacer.Next()
		due := p.pacer.Due(now, end)
		if now >= end && (due == next || !paced || now >= end+int64(stopGrace)) {
			if paced {
				p.schedMu.Lock()
				p.unsent = int64(p.pacer.Due(end, end) - p.pacer.Next())
				p.schedMu.Unlock()
			}
			return
		}
		if due == next {
			// Sleep to the next intended time (at least Options.PacingTick). Whatever falls due
			// meanwhile goes out in one batch on waking, each message charged its delay.
			clk.SleepUntil(ctx, min(max(p.pacer.NextAt(), now+p.run.tick), end))
			continue
		}
		n := int(min(due-next, chunkMax))
		ok, waited := p.take(ctx, n)
		if !ok {
			return
		}
		n = min(n, len(p.local))
		if waited {
			now = clk.Now() // the send happens now, after the wait for buffer space
			if !paced && now >= end {
				p.giveBack() // an unpaced message is intended when sent: not after the window
				return
			}
		}
		p.send(ctx, next, n, now, paced)
	}
}

// send produces messages next .. next+n-1 from p.local.
func (p *producer) send(ctx context.Context, next uint64, n int, now int64, paced bool) {
	p.fill(next, n, now, paced)
	if p.lean != nil {
		p.lean.send(ctx, p, next, n)
		p.pacer.Advance(next + uint64(n))
		p.sentAll.Add(int64(n))
		return
	}
	for range n {
		r := p.local[len(p.local)-1]
		p.local = p.local[:len(p.local)-1]
		p.cl.Produce(ctx, r, p.promise)
	}
	p.pacer.Advance(next + uint64(n))
	p.sentAll.Add(int64(n))
}

// fill prepares the last n records of p.local (the last one first) as messages next ..
// next+n-1, charging each the delay from its intended time to now, the chunk's clock reading.
func (p *producer) fill(next uint64, n int, now int64, paced bool) {
	ts := time.Unix(0, p.run.wallBase+now) // CreateTime: the send call, the same for the chunk
	p.schedMu.Lock()
	for i := range n {
		seq := next + uint64(i)
		intended := now
		if paced {
			intended = p.pacer.Intended(seq)
		}
		ph := p.run.phase(intended)
		if ph == phaseMeasured && !p.measSeen {
			p.firstMeasSeq, p.measSeen = seq, true
		}
		p.sched[ph].Record(now - intended)
		p.sent[ph]++
		r := p.local[len(p.local)-1-i]
		r.Topic = p.topics[seq%uint64(len(p.topics))]
		r.Key = p.keys.key(seq, p.rng)
		copy(r.Value, p.payloads.payload(seq+p.payOff))
		Stamp{Producer: p.id, Seq: seq, Intended: intended}.Encode(r.Value)
		r.Timestamp = ts
		rc := r.Context.(*recCtx)
		rc.intended, rc.sent = intended, now
	}
	p.schedMu.Unlock()
}

// take fills p.local with up to n records from the pool, allocating while the pool is below its
// limit and waiting for a promise to return one when it is at it: that wait is the producer
// buffer being full. ok is false if ctx ended while waiting; waited says whether it waited.
func (p *producer) take(ctx context.Context, n int) (ok, waited bool) {
	for {
		p.mu.Lock()
		k := max(min(len(p.free), n-len(p.local)), 0) // the lean path keeps its records in local
		p.local = append(p.local, p.free[len(p.free)-k:]...)
		p.free = p.free[:len(p.free)-k]
		for len(p.local) < n && p.live < p.maxLive {
			r := newPooledRecord(ctx, p.payloads.size)
			p.local = append(p.local, r)
			p.all = append(p.all, r)
			p.live++
		}
		if len(p.local) > 0 {
			p.mu.Unlock()
			return true, waited
		}
		waited = true
		p.waiting = true
		p.mu.Unlock()
		t0 := p.run.clock.Now()
		p.fullWaits.Add(1)
		select {
		case <-p.wake:
		case <-ctx.Done():
			p.fullNs.Add(p.run.clock.Now() - t0)
			return false, waited
		}
		p.fullNs.Add(p.run.clock.Now() - t0)
	}
}

// giveBack returns unused records to the pool.
func (p *producer) giveBack() {
	p.mu.Lock()
	p.free = append(p.free, p.local...)
	p.local = p.local[:0]
	p.mu.Unlock()
}

// onDone is the one promise of this producer: it records the outcome and returns the record to
// the pool. franz-go calls a client's promises one at a time.
func (p *producer) onDone(r *kgo.Record, err error) {
	now := p.run.clock.Now()
	rc := r.Context.(*recCtx)
	ph := p.run.phase(rc.intended)
	p.mu.Lock()
	switch {
	case p.givenUp: // counted in flight at the end already
	case err == nil:
		p.pub[ph].Record(now - rc.intended)
		p.ackWait[ph].Record(now - rc.sent)
		p.acked[ph]++
		p.ackedAll.Add(1)
	default:
		p.failed[ph]++
		st, _ := DecodeStamp(r.Value) // the value is ours until the record is reused
		p.unacked.Add(st.Seq)
		p.errs.add(err)
	}
	p.free = append(p.free, r)
	if p.waiting {
		p.waiting = false
		select {
		case p.wake <- struct{}{}:
		default:
		}
	}
	p.mu.Unlock()
}

// inFlight is the number of records handed to the client and not yet finished.
func (p *producer) inFlight() int64 {
	if p.lean != nil {
		return p.lean.held.Load()
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	return int64(p.live - len(p.free))
}

// recCtx is a pooled record's context: the producer's context plus what the promise needs to
// account for the record without touching its value (the stamp): the intended time and the
// clock time of the send call (franz-go truncates Timestamp to the ms). A failed record's
// sequence is read back from its stamp.
type recCtx struct {
	context.Context
	intended, sent int64
}

// pooledRecord keeps a record and its recCtx in one allocation: kgo.Record is 160 bytes and
// recCtx 32, so the pair fills a 192-byte size class, three whole cache lines, and the promise
// finds the accounting fields in the line franz-go has just written (LeaderEpoch, Offset)
// instead of missing the cache on a separate object for every acknowledged record.
type pooledRecord struct {
	kgo.Record
	ctx recCtx
}

func newPooledRecord(ctx context.Context, size int) *kgo.Record {
	pr := &pooledRecord{ctx: recCtx{Context: ctx}}
	pr.Value = make([]byte, size)
	pr.Context = &pr.ctx
	return &pr.Record
}

// errorTally counts errors by message, keeping a few distinct ones for the report.
type errorTally struct {
	n     int64
	kinds map[string]int64
}

const maxErrorKinds = 8

func (t *errorTally) add(err error) {
	t.n++
	if t.kinds == nil {
		t.kinds = map[string]int64{}
	}
	msg := err.Error()
	if _, ok := t.kinds[msg]; ok || len(t.kinds) < maxErrorKinds {
		t.kinds[msg]++
	}
}

// idleWait bounds the wait, after a producer's client is closed, for the promises of the records
// it still holds.
const idleWait = 5 * time.Second

// finish ends the producer once its loop has returned: it flushes until flushBy (run clock),
// closes its client, which fails whatever the flush left, and waits at most idle for the last
// promises.
func (p *producer) finish(ctx context.Context, flushBy int64, idle time.Duration) {
	if p.lean != nil {
		p.lean.finish(ctx, p, flushBy)
		p.cl.Close()
		return
	}
	fctx, cancel := context.WithTimeout(ctx, time.Duration(max(flushBy-p.run.clock.Now(), 0)))
	_ = p.cl.Flush(fctx)
	cancel()
	p.cl.Close()
	p.awaitIdle(idle)
	p.giveUp()
}

// giveUp closes the producer's accounting once it has stopped waiting: every record still in
// flight (handed to the client, its promise not fired) counts in flight at the end, neither
// acknowledged nor failed, and its sequence goes into unacked, so that no group counts it lost
// or unconsumed. A promise that fires later only returns its record to the pool.
func (p *producer) giveUp() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.givenUp = true
	if p.live == len(p.free)+len(p.local) {
		return
	}
	idle := make(map[*kgo.Record]bool, len(p.free)+len(p.local))
	for _, r := range p.free {
		idle[r] = true
	}
	for _, r := range p.local {
		idle[r] = true
	}
	for _, r := range p.all {
		if idle[r] {
			continue
		}
		// The client may still hold the record but writes neither its value nor its context.
		st, _ := DecodeStamp(r.Value)
		p.inFlightEnd[p.run.phase(r.Context.(*recCtx).intended)]++
		p.unacked.Add(st.Seq)
	}
}

// awaitIdle waits until every record handed to the client has come back through the promise
// (after Close, franz-go fails the rest asynchronously), at most d.
func (p *producer) awaitIdle(d time.Duration) {
	deadline := time.Now().Add(d)
	for p.inFlight() > 0 && time.Now().Before(deadline) {
		time.Sleep(time.Millisecond)
	}
}
