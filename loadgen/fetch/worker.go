package fetch

import (
	"context"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/plimsoll/plimsoll/loadgen/recbatch"
	"github.com/twmb/franz-go/pkg/kerr"
)

// worker fetches the partitions one broker leads, one request at a time, on a connection of
// its own.
type worker struct {
	f    *Fetcher
	id   int32
	wake chan struct{}
	c    *conn
	live atomic.Pointer[conn] // c, for Run to cut its read short when ctx ends
	req  Request
	resp Response
	// What the request in flight asked, by dense partition: the offset (-1 if not asked) and
	// the partition's generation, so that a response for a revoked or moved partition is dropped.
	reqOff  []int64
	reqGen  []uint32
	byTopic [][]ReqPartition // each topic's request partitions, kept between requests
}

func (w *worker) poke() {
	select {
	case w.wake <- struct{}{}:
	default:
	}
}

// idle is how long a worker with nothing to fetch sleeps unless woken.
const idle = 250 * time.Millisecond

// run fetches until ctx is done.
func (w *worker) run(ctx context.Context) {
	defer func() {
		if w.c != nil {
			w.c.close()
		}
		w.live.Store(nil)
	}()
	f := w.f
	timeout := f.cfg.MaxWait + f.cfg.Timeout
	for ctx.Err() == nil {
		addr, n := w.build()
		if n == 0 {
			w.sleep(ctx, idle)
			continue
		}
		if w.c != nil && !w.c.expires.IsZero() && f.cfg.Now().After(w.c.expires) {
			w.c.close() // its SASL session ends soon: authenticate a new one
			w.c = nil
		}
		if w.c == nil {
			c, err := dial(ctx, f.cfg.Dial, f.cfg.SASL, addr, f.cfg.ClientID, f.cfg.Timeout)
			if err != nil {
				w.fail(ctx, fmt.Errorf("fetch: broker %d at %s: %w", w.id, addr, err))
				continue
			}
			w.c = c
			w.live.Store(c)
		}
		if err := w.c.fetch(&w.req, &w.resp, timeout); err != nil {
			w.c.close()
			w.c = nil
			w.fail(ctx, fmt.Errorf("fetch: broker %d: %w", w.id, err))
			continue
		}
		f.deliver(w)
	}
}

// sleep waits d, or until the worker is poked or ctx is done.
func (w *worker) sleep(ctx context.Context, d time.Duration) {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
	case <-w.wake:
	case <-t.C:
	}
}

// fail reports a connection's failure: the broker's partitions want their leader again, and
// the worker backs off.
func (w *worker) fail(ctx context.Context, err error) {
	f := w.f
	f.mu.Lock()
	for p := range f.assigned {
		if f.leader[p] == w.id {
			f.leader[p] = -1
		}
	}
	f.poke()
	f.mu.Unlock()
	if ctx.Err() == nil {
		f.sink.Error(err)
	}
	w.sleep(ctx, f.cfg.Backoff)
}

// build fills the worker's request with every fetchable partition its broker leads and returns
// the broker's address and how many partitions it asks for.
func (w *worker) build() (string, int) {
	f := w.f
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.paused {
		return "", 0
	}
	now := f.cfg.Now().UnixNano()
	r := &w.req
	r.MaxWaitMs, r.MinBytes, r.MaxBytes = int32(f.cfg.MaxWait/time.Millisecond), f.cfg.MinBytes, f.cfg.MaxBytes
	r.ReadCommitted, r.Rack = f.cfg.ReadCommitted, f.cfg.Rack
	r.Topics = r.Topics[:0]
	n := 0
	for ti, t := range f.cfg.Topics {
		ps := w.byTopic[ti][:0]
		for i := range t.Partitions {
			p := t.Base + i
			w.reqOff[p] = -1
			if !f.assigned[p] || f.leader[p] != w.id || f.offset[p] < 0 || f.retryAt[p] > now {
				continue
			}
			w.reqOff[p], w.reqGen[p] = f.offset[p], f.gen[p]
			ps = append(ps, ReqPartition{Partition: int32(i), LeaderEpoch: f.epoch[p], Offset: f.offset[p], MaxBytes: f.cfg.PartitionMaxBytes})
		}
		w.byTopic[ti] = ps
		if len(ps) > 0 {
			r.Topics = append(r.Topics, ReqTopic{Name: t.Name, Partitions: ps})
			n += len(ps)
		}
	}
	return f.addrs[w.id], n
}

// deliver hands the response's records to the sink and moves each partition's offset, under mu
// and the sink's lock. A partition revoked, reassigned or moved since the request is skipped.
func (f *Fetcher) deliver(w *worker) {
	now := f.cfg.Now()
	f.mu.Lock()
	f.sink.Lock()
	for i := range w.resp.Partitions {
		rp := &w.resp.Partitions[i]
		p := f.densePart(w.resp.Topics[rp.Topic], rp.Partition)
		if p < 0 || w.reqOff[p] < 0 || !f.assigned[p] || f.gen[p] != w.reqGen[p] || f.offset[p] != w.reqOff[p] {
			continue
		}
		asked := w.reqOff[p]
		w.reqOff[p] = -1
		switch {
		case rp.ErrorCode == 0:
			f.offset[p] = f.consume(p, rp, f.offset[p], now)
		case rp.ErrorCode == kerr.OffsetOutOfRange.Code:
			f.offset[p] = f.resetState()
			f.errs = append(f.errs, fmt.Errorf("fetch: partition %d at offset %d: %w", rp.Partition, asked, kerr.OffsetOutOfRange))
			f.poke()
		case leaderError(rp.ErrorCode):
			f.leader[p] = -1
			f.errs = append(f.errs, kerr.ErrorForCode(rp.ErrorCode))
			f.poke()
		default:
			f.retryAt[p] = now.Add(f.cfg.Backoff).UnixNano()
			f.errs = append(f.errs, kerr.ErrorForCode(rp.ErrorCode))
		}
	}
	if w.resp.ErrorCode != 0 {
		f.errs = append(f.errs, kerr.ErrorForCode(w.resp.ErrorCode))
		for p := range w.reqOff {
			if w.reqOff[p] >= 0 {
				f.retryAt[p] = now.Add(f.cfg.Backoff).UnixNano()
			}
		}
	}
	f.sink.Unlock()
	errs := f.errs
	f.errs = f.errs[:0]
	f.mu.Unlock()
	for _, err := range errs {
		f.sink.Error(err)
	}
}

// densePart maps a response's topic name and partition to the dense index, -1 if unknown.
func (f *Fetcher) densePart(name []byte, part int32) int {
	for _, t := range f.cfg.Topics {
		if string(name) == t.Name {
			if part < 0 || int(part) >= t.Partitions {
				return -1
			}
			return t.Base + int(part)
		}
	}
	return -1
}

// consume parses one partition's record batches and hands the sink every record at or after
// from, in order; it returns the next offset to fetch. The offset rule: a batch or record below
// the offset reached (a fetch from inside a batch returns all of it; a batch whose offsets go
// backwards) is dropped. Control batches and, read_committed, aborted transactions' batches are
// skipped, their offsets passed. A corrupt batch stops the partition where it starts, retried
// after the backoff.
func (f *Fetcher) consume(p int, rp *RespPartition, from int64, now time.Time) int64 {
	ps, r := &f.parser, &f.rec
	ps.Reset(rp.Records)
	if f.cfg.ReadCommitted {
		f.aborts.Reset(rp.Aborted)
	}
	next := from
	for ps.NextBatch() {
		b := ps.Batch()
		last := b.LastOffset()
		if last < next {
			continue
		}
		if f.cfg.ReadCommitted || b.Control() {
			marker := recbatch.ControlType(-1)
			if b.Control() && ps.NextRecord(r) {
				marker, _ = recbatch.Control(r.Key)
			}
			if f.aborts.Skip(b, marker) {
				if ps.Err() == nil {
					next = last + 1
				}
				continue
			}
		}
		for ps.NextRecord(r) {
			if r.Offset < next {
				continue
			}
			f.sink.Record(p, r.Offset, b.PartitionLeaderEpoch, r.Value)
			next = r.Offset + 1
		}
		if ps.Err() == nil {
			next = max(next, last+1)
		}
	}
	if err := ps.Err(); err != nil {
		f.retryAt[p] = now.Add(f.cfg.Backoff).UnixNano()
		f.errs = append(f.errs, fmt.Errorf("fetch: partition %d: %w", rp.Partition, err))
	}
	return next
}
