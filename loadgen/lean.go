package loadgen

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/plimsoll/plimsoll/kafkaprops"
	"github.com/plimsoll/plimsoll/loadgen/hdr"
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
	tps  []leanPartitioner // each topic's partitioner, the one franz-go would use
	rec  produce.Record
	iter allParts
	held atomic.Int64 // records given to pr and not yet reported
}

// leanPartitioner is one topic's partitioner with the optional interfaces it implements, asked
// once when the sink starts rather than for every record.
type leanPartitioner struct {
	tp       kgo.TopicPartitioner
	backup   kgo.TopicBackupPartitioner     // nil if tp is not one
	newBatch kgo.TopicPartitionerOnNewBatch // nil if tp is not one
	n        int                            // the topic's partitions, as the producer found them
}

func newLeanPartitioner(tp kgo.TopicPartitioner, n int) leanPartitioner {
	lp := leanPartitioner{tp: tp, n: n}
	lp.backup, _ = tp.(kgo.TopicBackupPartitioner)
	lp.newBatch, _ = tp.(kgo.TopicPartitionerOnNewBatch)
	return lp
}

// allParts is a TopicBackupIter over every partition, each with nothing buffered: a backup
// partitioner (Kafka's default, uniform bytes) picks among them as franz-go's does when no
// partition is backed up. It does not adapt to partitions backing up (partitioner.adaptive).
type allParts struct{ i, n int }

func (a *allParts) Next() (int, int64) { a.i++; return a.i - 1, 0 }
func (a *allParts) Rem() int           { return a.n - a.i }

// partition picks r's partition as franz-go would with lp.
func (s *leanSink) partition(lp *leanPartitioner, r *kgo.Record) int {
	if lp.backup != nil {
		s.iter = allParts{n: lp.n}
		return lp.backup.PartitionByBackup(r, lp.n, &s.iter)
	}
	return lp.tp.Partition(r, lp.n)
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
	for i, t := range cfg.Topics {
		s.tps = append(s.tps, newLeanPartitioner(part.ForTopic(t), pr.Partitions(i)))
	}
	return s, nil
}

// send produces the last n records of p.local, filled as messages next .. next+n-1, and leaves
// them in p.local: their values are copied into batches. The chunk's records share their
// CreateTime (fill), so it is converted once.
func (s *leanSink) send(ctx context.Context, p *producer, next uint64, n int) {
	if n <= 0 {
		return
	}
	ts := p.local[len(p.local)-1].Timestamp.UnixMilli()
	s.held.Add(int64(n))
	for i := range n {
		r := p.local[len(p.local)-1-i]
		seq := next + uint64(i)
		ti := int(seq % uint64(len(s.tps)))
		lp := &s.tps[ti]
		rc := r.Context.(*recCtx)
		tag := produce.Tag{Seq: seq, A: rc.intended, B: rc.sent}
		part := s.partition(lp, r)
		if part < 0 { // leanDone takes the record off held
			p.leanDone([]produce.Tag{tag}, errors.New("lean producer: no partition for the record"))
			continue
		}
		s.rec = produce.Record{Topic: ti, Partition: int32(part), Timestamp: ts, Key: r.Key, Value: r.Value, Tag: tag}
		info, err := s.pr.Produce(ctx, &s.rec)
		if info.Waited > 0 {
			p.fullWaits.Add(1)
			p.fullNs.Add(int64(info.Waited))
		}
		if err != nil {
			p.leanDone([]produce.Tag{tag}, err)
			continue
		}
		if lp.newBatch != nil && info.Sealed {
			lp.newBatch.OnNewBatch() // a sticky partitioner moves on when its batch is full
		}
	}
}

// leanDone accounts for a batch's records as onDone does for one: acknowledged, failed, or
// (the producer closed with them held) in flight at the end.
func (p *producer) leanDone(tags []produce.Tag, err error) {
	now := p.run.clock.Now()
	p.mu.Lock()
	switch {
	case p.givenUp:
	case err == nil:
		p.leanAcked(tags, now)
	default:
		p.leanUnacked(tags, err)
	}
	p.mu.Unlock()
	if p.lean != nil {
		p.lean.held.Add(-int64(len(tags)))
	}
}

// leanAcked records an acknowledged batch's records, each its publish latency from its own
// intended time and its ack wait from its send call. A chunk's records share their send call
// (fill), so their ack waits come in runs of one value: hdr.Run counts each run once. Called
// with p.mu held.
func (p *producer) leanAcked(tags []produce.Tag, now int64) {
	waits := [2]hdr.Run{hdr.RunOf(p.ackWait[0]), hdr.RunOf(p.ackWait[1])}
	var acked [2]int64
	for i := range tags {
		t := &tags[i]
		ph := p.run.phase(t.A)
		p.pub[ph].Record(now - t.A)
		waits[ph].Record(now - t.B)
		acked[ph]++
	}
	waits[0].Flush()
	waits[1].Flush()
	p.acked[0] += acked[0]
	p.acked[1] += acked[1]
	p.ackedAll.Add(int64(len(tags)))
}

// leanUnacked accounts for a batch's records that were not acknowledged: in flight at the end
// if the producer closed with them, else failed. Both keep their sequences off the ledger's
// lost. Called with p.mu held.
func (p *producer) leanUnacked(tags []produce.Tag, err error) {
	closed := errors.Is(err, produce.ErrClosed)
	for _, t := range tags {
		ph := p.run.phase(t.A)
		if closed {
			p.inFlightEnd[ph]++
		} else {
			p.failed[ph]++
			p.errs.add(err)
		}
		p.unacked.Add(t.Seq)
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
