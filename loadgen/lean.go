package loadgen

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/plimsoll/plimsoll/kafkaprops"
	"github.com/plimsoll/plimsoll/loadgen/produce"
	"github.com/plimsoll/plimsoll/loadgen/recbatch"
	"github.com/twmb/franz-go/pkg/kgo"
)

// leanSink sends a producer's records through plimsoll's own produce path (package produce,
// Options.LeanProducer) instead of franz-go's producer. The producer's loop, pacing, stamps and
// accounting are the same: its pooled records are only the staging of each message (their
// value is copied into a batch at once, so they never leave the loop), and what franz-go's
// promise does per record Done does per batch (leanDone).
type leanSink struct {
	pr   *produce.Producer
	tps  []kgo.TopicPartitioner // each topic's partitioner, the one franz-go would use
	rec  produce.Record
	iter allParts
	held atomic.Int64 // records given to pr and not yet reported
}

// allParts is a TopicBackupIter over every partition, each with nothing buffered: a backup
// partitioner (Kafka's default, uniform bytes) picks among them as franz-go's does when no
// partition is backed up. It does not adapt to partitions backing up (partitioner.adaptive).
type allParts struct{ i, n int }

func (a *allParts) Next() (int, int64) { a.i++; return a.i - 1, 0 }
func (a *allParts) Rem() int           { return a.n - a.i }

// partition picks r's partition of n as franz-go would with tp.
func (s *leanSink) partition(tp kgo.TopicPartitioner, r *kgo.Record, n int) int {
	if bp, ok := tp.(kgo.TopicBackupPartitioner); ok {
		s.iter = allParts{n: n}
		return bp.PartitionByBackup(r, n, &s.iter)
	}
	return tp.Partition(r, n)
}

// leanConfig maps the producer's resolved properties to produce.Config, or says why the lean
// path cannot run them.
func leanConfig(pc *kafkaprops.Producer, opts []kgo.Opt, topics []string, now func() int64) (produce.Config, error) {
	c := produce.Config{Opts: opts, Topics: topics, Idempotent: pc.Idempotent, MaxInFlight: pc.MaxInFlight,
		BatchBytes: pc.BatchSize, Linger: pc.Linger, RequestTimeout: pc.RequestTimeout, DeliveryTimeout: pc.DeliveryTimeout,
		RetryBackoff: pc.RetryBackoff, MetadataMaxAge: pc.MetadataMaxAge, Now: now}
	switch pc.Acks {
	case "all", "-1":
		c.Acks = -1
	case "1":
		c.Acks = 1
	default:
		return c, fmt.Errorf("%w: the lean producer does not support acks=%s", ErrSetup, pc.Acks)
	}
	switch pc.Compression {
	case "", "none":
	case "gzip":
		c.Codec = recbatch.Gzip
	case "snappy":
		c.Codec = recbatch.Snappy
	case "lz4":
		c.Codec = recbatch.LZ4
	case "zstd":
		c.Codec = recbatch.Zstd
	default:
		return c, fmt.Errorf("%w: the lean producer does not know compression.type=%s", ErrSetup, pc.Compression)
	}
	c.MaxInFlight = min(max(c.MaxInFlight, 1), 5)
	if pc.Idempotent {
		// kafkaprops maps an idempotent producer to franz-go's one request in flight (and refuses
		// any other value); the lean path keeps the protocol's and Java's five.
		c.MaxInFlight = 5
	}
	c.BufferBatches = int(max(pc.BufferMemory/int64(max(pc.BatchSize, 1)), 1))
	// Up to MaxSessions independent sessions, added while every one's window is full; each
	// message's stamp carries its session, so the ledger checks order per session.
	c.Sessions, c.MarkLane = produce.MaxSessions, markLane
	return c, nil
}

// markLane writes the lean producer's session into a message's stamp (its lane).
func markLane(value []byte, session int) {
	if len(value) >= StampSize && value[0] == stampMagic0 && value[1] == stampMagic1 {
		value[stampLaneAt] = value[stampLaneAt]&^laneMask | byte(session)&laneMask
	}
}

// newLeanSink starts the lean path for p, with the partitioner franz-go would have used.
func newLeanSink(ctx context.Context, p *producer, cfg produce.Config, part kgo.Partitioner) (*leanSink, error) {
	s := &leanSink{}
	cfg.Done = func(tags []produce.Tag, err error) { p.leanDone(tags, err) }
	pr, err := produce.New(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("%w: lean producer: %w", ErrSetup, err)
	}
	s.pr = pr
	for _, t := range cfg.Topics {
		s.tps = append(s.tps, part.ForTopic(t))
	}
	return s, nil
}

// send produces the last n records of p.local, filled as messages next .. next+n-1, and leaves
// them in p.local: their values are copied into batches.
func (s *leanSink) send(ctx context.Context, p *producer, next uint64, n int) {
	for i := range n {
		r := p.local[len(p.local)-1-i]
		seq := next + uint64(i)
		ti := int(seq % uint64(len(s.tps)))
		rc := r.Context.(*recCtx)
		tag := produce.Tag{Seq: seq, A: rc.intended, B: rc.sent}
		tp := s.tps[ti]
		part := s.partition(tp, r, s.pr.Partitions(ti))
		if part < 0 {
			p.leanDone([]produce.Tag{tag}, errors.New("lean producer: no partition for the record"))
			continue
		}
		s.rec = produce.Record{Topic: ti, Partition: int32(part), Timestamp: r.Timestamp.UnixMilli(), Key: r.Key, Value: r.Value, Tag: tag}
		s.held.Add(1)
		info, err := s.pr.Produce(ctx, &s.rec)
		if info.Waited > 0 {
			p.fullWaits.Add(1)
			p.fullNs.Add(int64(info.Waited))
		}
		if err != nil {
			s.held.Add(-1)
			p.leanDone([]produce.Tag{tag}, err)
			continue
		}
		if nb, ok := tp.(kgo.TopicPartitionerOnNewBatch); ok && info.Sealed {
			nb.OnNewBatch() // a sticky partitioner moves on when its batch is full
		}
	}
}

// leanDone accounts for a batch's records as onDone does for one: acknowledged, failed, or
// (the producer closed with them held) in flight at the end.
func (p *producer) leanDone(tags []produce.Tag, err error) {
	now := p.run.clock.Now()
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, t := range tags {
		ph := p.run.phase(t.A)
		switch {
		case p.givenUp:
		case err == nil:
			p.pub[ph].Record(now - t.A)
			p.ackWait[ph].Record(now - t.B)
			p.acked[ph]++
			p.ackedAll.Add(1)
		case errors.Is(err, produce.ErrClosed):
			p.inFlightEnd[ph]++
			p.unacked.Add(t.Seq)
		default:
			p.failed[ph]++
			p.unacked.Add(t.Seq)
			p.errs.add(err)
		}
	}
	if p.lean != nil {
		p.lean.held.Add(-int64(len(tags)))
	}
}

// leanMaxInFlight is the most produce requests any lean producer had in flight to one broker
// at once in one session over the run, and the most sessions any had (0, 0 without the lean
// path).
func leanMaxInFlight(prods []*producer) (inFlight, sessions int) {
	for _, p := range prods {
		if p.lean != nil {
			st := p.lean.pr.Stats()
			inFlight, sessions = max(inFlight, st.MaxInFlight), max(sessions, st.Sessions)
		}
	}
	return inFlight, sessions
}

// finish flushes until flushBy, then closes the lean producer: what it still holds is reported
// in flight at the end.
func (s *leanSink) finish(ctx context.Context, p *producer, flushBy int64) {
	fctx, cancel := context.WithTimeout(ctx, time.Duration(max(flushBy-p.run.clock.Now(), 0)))
	_ = s.pr.Flush(fctx)
	cancel()
	s.pr.Close()
	p.mu.Lock()
	p.givenUp = true
	p.mu.Unlock()
}
