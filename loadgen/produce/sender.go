package produce

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// sender is the Producer's sending state, owned by its goroutine (run); the slots and the pool
// are shared with Produce under the Producer's mutex, which run holds while it works.
type sender struct {
	p      *Producer
	topics []topicMeta

	metaCh    chan metaResult
	metaBusy  bool
	metaWant  bool
	metaAt    int64 // clock time of the last metadata
	pidCh     chan pidResult
	growCh    chan growResult
	growing   bool // a session is being made
	grow      grower
	finished  []outcome // batches to report, outside the mutex
	stats     Stats
	scheduled int64 // the earliest clock time something is due (linger, backoff); 0: none
	passes    int64 // passes made, for tests
}

// brokerState is one broker's window in one session: its partitions and its requests in
// flight, in the order they were issued.
type brokerState struct {
	id        int32
	s         *session
	parts     []*part
	calls     []*call // issued, not handled yet
	unwritten *call   // issued, not yet reported written: the next waits for it
}

// call is one produce request in flight.
type call struct {
	br      *brokerState
	batches []*batch
	req     *kmsg.ProduceRequest
	resp    *kmsg.ProduceResponse
	err     error
	done    bool
}

// event is what the sender waits for: a produce request written to a broker's connection by a
// session's client (written, from franz-go's hook), or a request finished (c).
type event struct {
	session int
	written int32
	c       *call
}

type outcome struct {
	b   *batch
	err error
}

type pidResult struct {
	s   *session
	id  producerID
	err error
}

// growResult is a session made for the sender to add, or why it could not be.
type growResult struct {
	s   *session
	m   metaResult
	err error
}

func (s *sender) init(p *Producer) {
	s.p = p
	s.metaCh = make(chan metaResult, 1)
	s.pidCh = make(chan pidResult, 1)
	s.growCh = make(chan growResult) // unbuffered: a session made after Close is closed by its maker
	s.grow = grower{after: int64(p.cfg.GrowAfter), since: -1}
}

// add lays out a new session's partitions over the Producer's slots, under its first producer
// id, and makes it one the sender dispatches to. Called with the mutex held (or before the
// sender runs); the session's brokers come with the next applyMetadata.
func (s *sender) add(ss *session) {
	p := s.p
	for ti := range p.cfg.Topics {
		for i := range p.Partitions(ti) {
			sl := p.slots[p.topicBase[ti]+i]
			ss.parts = append(ss.parts, &part{topic: ti, partition: int32(i), leader: -1, sl: sl, id: ss.pid})
		}
	}
	p.sessions = append(p.sessions, ss)
	s.stats.Sessions = len(p.sessions)
	if p.cfg.Idempotent {
		s.stats.ProducerIDs++
	}
}

// writeHook tells the sender when session's client has written a produce request.
type writeHook struct {
	p       *Producer
	session int
}

func (h writeHook) OnBrokerWrite(meta kgo.BrokerMetadata, key int16, _ int, _, _ time.Duration, err error) {
	if key != 0 || err != nil {
		return // a failed write finishes its request, which the sender sees
	}
	select {
	case h.p.events <- event{session: h.session, written: meta.NodeID}:
	case <-h.p.done:
	}
}

// run is the sender's loop.
func (s *sender) run() {
	p := s.p
	defer close(p.done)
	timer := time.NewTimer(time.Hour)
	for {
		p.mu.Lock()
		s.pass(p.cfg.Now())
		fin := s.finished
		s.finished = nil
		p.mu.Unlock()
		s.report(fin)

		wait := time.Hour
		if s.scheduled != 0 {
			wait = time.Duration(max(s.scheduled-p.cfg.Now(), 0))
		}
		timer.Reset(wait)
		if !s.wait(timer) {
			s.shutdown()
			return
		}
		timer.Stop()
	}
}

// wait handles what comes first: a wake-up, the timer, events, metadata, a producer id, a new
// session. It reports false when the Producer closes.
func (s *sender) wait(timer *time.Timer) bool {
	p := s.p
	select {
	case <-p.wake:
	case <-timer.C:
	case e := <-p.events:
		p.mu.Lock()
		s.event(e)
		for more := true; more; {
			select {
			case e := <-p.events:
				s.event(e)
			default:
				more = false
			}
		}
		p.mu.Unlock()
	case m := <-s.metaCh:
		s.metaBusy = false
		p.mu.Lock()
		if m.err != nil {
			s.metaWant = true
		} else {
			s.applyMetadata(m)
		}
		p.mu.Unlock()
	case r := <-s.pidCh:
		r.s.pidBusy = false
		p.mu.Lock()
		s.applyPID(r)
		p.mu.Unlock()
	case g := <-s.growCh:
		p.mu.Lock()
		s.growing = false // under the mutex: tests read it
		s.added(g)
		p.mu.Unlock()
	case <-p.stop:
		return false
	}
	return true
}

// pass seals batches whose linger is over, issues what may be sent, adds a session if batches
// wait on every session's window, and starts metadata and producer id requests that are
// wanted. Called with the mutex held.
func (s *sender) pass(now int64) {
	cfg := &s.p.cfg
	s.scheduled = 0
	s.passes++
	linger := int64(cfg.Linger)
	for i, sl := range s.p.slots {
		b := sl.open
		switch {
		case b == nil || b.w.NumRecords() == 0:
		case s.p.flushing > 0 || now-b.created >= linger && s.idle(i):
			s.p.seal(sl)
		case now-b.created < linger:
			s.due(b.created + linger)
		}
	}
	for _, ss := range s.p.sessions {
		s.dispatch(ss, now)
	}
	s.maybeGrow(now)
	if now-s.metaAt > int64(cfg.MetadataMaxAge) {
		s.metaWant = true
	}
	if s.metaWant && !s.metaBusy && now < s.metaAt+int64(cfg.RetryBackoff) {
		s.due(s.metaAt + int64(cfg.RetryBackoff)) // at most one refresh per backoff
	} else if s.metaWant && !s.metaBusy {
		s.metaWant, s.metaBusy = false, true
		s.refreshMetadata()
	}
	for _, ss := range s.p.sessions {
		s.wantPID(ss)
	}
}

// idle reports whether a session has no request in flight to partition i's leader, and the
// partition sends there: a batch that is not full is sealed after its linger only then, and
// otherwise keeps filling. A broker handles one request of a connection at a time, so a
// part-filled batch pipelined behind requests still waiting (acks=all on slow followers)
// would wait as long as a full one and carry less; full batches pipeline, up to MaxInFlight.
func (s *sender) idle(i int) bool {
	for _, ss := range s.p.sessions {
		pt := ss.parts[i]
		if br := ss.brokers[pt.leader]; br != nil && len(br.calls) == 0 && !pt.needReset && !(pt.draining && pt.inflight > 0) {
			return true
		}
	}
	return false
}

// refreshMetadata asks every session's client for the topics' metadata (each learns the
// brokers from its own) and hands the first answer to the loop.
func (s *sender) refreshMetadata() {
	p := s.p
	cls := make([]*kgo.Client, 0, len(p.sessions))
	for _, ss := range p.sessions {
		cls = append(cls, ss.cl)
	}
	go func() {
		var first metaResult
		for i, cl := range cls {
			m, err := fetchMetadata(p.ctx, cl, p.cfg.Topics)
			m.err = err
			if i == 0 || first.err != nil {
				first = m
			}
		}
		if first.err != nil {
			time.Sleep(p.cfg.RetryBackoff)
		}
		s.metaCh <- first
	}()
}

// due asks the loop to wake by clock time t.
func (s *sender) due(t int64) {
	if s.scheduled == 0 || t < s.scheduled {
		s.scheduled = t
	}
}

// dispatch issues ss's requests to every broker whose window has room, each with the next
// batch of each of its partitions.
func (s *sender) dispatch(ss *session, now int64) {
	cfg := &s.p.cfg
	for _, br := range ss.order {
		for len(br.calls) < cfg.MaxInFlight && br.unwritten == nil {
			var bs []*batch
			for _, pt := range br.parts {
				b := pt.next(now, cfg.Idempotent, int64(cfg.DeliveryTimeout), func(b *batch, sent bool) { s.expire(pt, b, sent) })
				if b == nil {
					s.dueRetry(pt, now)
					continue
				}
				pt.start(b, cfg.Idempotent, cfg.MarkLane, ss.idx)
				if b.attempts > 1 {
					s.stats.Retries++
				}
				bs = append(bs, b)
			}
			if len(bs) == 0 {
				break
			}
			s.issue(br, bs)
		}
	}
}

// dueRetry asks the loop to wake when pt's first batch waiting on its backoff may go again.
func (s *sender) dueRetry(pt *part, now int64) {
	if len(pt.unacked) == 0 || pt.draining || pt.needReset {
		return
	}
	for _, u := range pt.unacked {
		if !u.inFlight && u.notBefore > now {
			s.due(u.notBefore)
			return
		}
	}
}

// maybeGrow starts a new session when batches have waited GrowAfter with every session's
// window full (windowBound), up to Config.Sessions.
func (s *sender) maybeGrow(now int64) {
	p := s.p
	if s.growing || len(p.sessions) >= p.cfg.Sessions {
		return
	}
	grow, at := s.grow.observe(now, s.windowBound())
	if at != 0 {
		s.due(at)
	}
	if !grow {
		return
	}
	s.growing = true
	idx := len(p.sessions)
	go func() {
		ctx, cancel := context.WithTimeout(p.ctx, p.cfg.RequestTimeout)
		ss, m, err := p.newSession(ctx, idx)
		cancel()
		select {
		case s.growCh <- growResult{ss, m, err}:
		case <-p.done:
			if ss != nil {
				ss.cl.Close()
			}
		}
	}()
}

// windowBound reports whether a partition's next batch waits, with a leader, only because
// every session's window for it is full. Called after dispatch.
func (s *sender) windowBound() bool {
	p := s.p
	for i, sl := range p.slots {
		if len(sl.queue) == 0 {
			continue
		}
		all := true
		for _, ss := range p.sessions {
			pt := ss.parts[i]
			br := ss.brokers[pt.leader]
			if br == nil || !pt.full(br, p.cfg.MaxInFlight, p.cfg.Idempotent) {
				all = false
				break
			}
		}
		if all {
			return true
		}
	}
	return false
}

// added makes a new session one the sender dispatches to, its brokers from the metadata it
// fetched. A session that could not be made is counted; the grower tries again later.
func (s *sender) added(g growResult) {
	if g.err != nil {
		s.stats.SessionErrors++
		return
	}
	s.add(g.s)
	s.applyMetadata(g.m)
}

// expire fails b, past its delivery timeout. A batch sent before may have been written: then
// every unacknowledged batch of its partition fails with it and, with idempotence, the
// partition moves to a new producer id.
func (s *sender) expire(pt *part, b *batch, sent bool) {
	err := fmt.Errorf("produce: record batch not acknowledged within the delivery timeout (%v)", s.p.cfg.DeliveryTimeout)
	if !sent {
		s.finished = append(s.finished, outcome{b, err})
		return
	}
	for _, u := range pt.unacked {
		s.finished = append(s.finished, outcome{u, err})
	}
	pt.unacked = pt.unacked[:0]
	pt.needReset = s.p.cfg.Idempotent
}

// issue sends one request with bs to br.
func (s *sender) issue(br *brokerState, bs []*batch) {
	cfg := &s.p.cfg
	req := kmsg.NewPtrProduceRequest()
	req.Acks = cfg.Acks
	req.TimeoutMillis = int32(cfg.RequestTimeout / time.Millisecond)
	for _, b := range bs {
		ti := b.pt.topic
		if n := len(req.Topics); n == 0 || req.Topics[n-1].Topic != cfg.Topics[ti] {
			t := kmsg.NewProduceRequestTopic()
			t.Topic, t.TopicID = cfg.Topics[ti], s.topics[ti].id
			req.Topics = append(req.Topics, t)
		}
		rp := kmsg.NewProduceRequestTopicPartition()
		rp.Partition, rp.Records = b.pt.partition, b.bytes
		t := &req.Topics[len(req.Topics)-1]
		t.Partitions = append(t.Partitions, rp)
	}
	c := &call{br: br, batches: bs, req: req}
	br.calls = append(br.calls, c)
	br.unwritten = c
	s.stats.Requests++
	s.stats.MaxInFlight = max(s.stats.MaxInFlight, len(br.calls))
	p, cl := s.p, br.s.cl
	go func() {
		resp, err := cl.Broker(int(br.id)).Request(p.ctx, req)
		c.err = err
		if err == nil {
			c.resp = resp.(*kmsg.ProduceResponse)
		}
		select {
		case p.events <- event{c: c}:
		case <-p.done:
		}
	}()
}

// event handles a write or a finished request; finished requests are handled in the order
// they were issued to their broker.
func (s *sender) event(e event) {
	if e.c == nil {
		if e.session < len(s.p.sessions) {
			if br := s.p.sessions[e.session].brokers[e.written]; br != nil {
				br.unwritten = nil
			}
		}
		return
	}
	c := e.c
	c.done = true
	if c.br.unwritten == c {
		c.br.unwritten = nil
	}
	br := c.br
	for len(br.calls) > 0 && br.calls[0].done {
		h := br.calls[0]
		br.calls = br.calls[1:]
		s.handle(h)
	}
}

// handle applies a finished request's outcome to each of its batches.
func (s *sender) handle(c *call) {
	now := s.p.cfg.Now()
	for _, b := range c.batches {
		b.pt.returned(b)
	}
	if c.err != nil {
		// The request failed on its connection: its batches may or may not have been written.
		s.metaWant = true
		for _, b := range c.batches {
			b.pt.retry(b, true, now+int64(s.p.cfg.RetryBackoff))
		}
		return
	}
	for _, b := range c.batches {
		code, ok := s.codeOf(c.resp, b)
		if !ok {
			b.pt.retry(b, true, now+int64(s.p.cfg.RetryBackoff))
			continue
		}
		s.outcome(b, code, now)
	}
}

// codeOf finds b's partition in the response.
func (s *sender) codeOf(resp *kmsg.ProduceResponse, b *batch) (int16, bool) {
	name, id := s.p.cfg.Topics[b.pt.topic], s.topics[b.pt.topic].id
	for i := range resp.Topics {
		t := &resp.Topics[i]
		if t.Topic != name && (t.TopicID == [16]byte{} || t.TopicID != id) {
			continue
		}
		for j := range t.Partitions {
			if t.Partitions[j].Partition == b.pt.partition {
				return t.Partitions[j].ErrorCode, true
			}
		}
	}
	return 0, false
}

// outcome applies one partition's error code to its batch.
func (s *sender) outcome(b *batch, code int16, now int64) {
	pt, cfg := b.pt, &s.p.cfg
	backoff := now + int64(cfg.RetryBackoff)
	switch {
	case code == 0 || code == kerr.DuplicateSequenceNumber.Code:
		pt.remove(b)
		pt.established = true
		s.finished = append(s.finished, outcome{b, nil})
	case code == kerr.OutOfOrderSequenceNumber.Code:
		// Not written. Behind a batch being retried, it goes again in order; as the oldest
		// batch, with nothing before it in doubt, the broker has lost the producer's state.
		if cfg.Idempotent && !pt.needReset && len(pt.unacked) > 0 && pt.unacked[0] == b && !pt.draining {
			pt.needReset = true
		}
		pt.retry(b, false, backoff)
	case code == kerr.UnknownProducerID.Code || code == kerr.InvalidProducerEpoch.Code || code == kerr.ProducerFenced.Code:
		pt.needReset = cfg.Idempotent
		pt.retry(b, false, backoff)
	case retriable(code):
		if leaderError(code) {
			s.metaWant = true
		}
		pt.retry(b, !notWritten(code), backoff)
	default:
		pt.remove(b)
		s.finished = append(s.finished, outcome{b, kerr.ErrorForCode(code)})
		if cfg.Idempotent { // a gap in the sequences: the batches after it cannot be written
			pt.needReset, pt.draining = true, true
		}
	}
}

// retriable reports whether Kafka marks the error retriable.
func retriable(code int16) bool {
	var ke *kerr.Error
	return errors.As(kerr.ErrorForCode(code), &ke) && ke.Retriable
}

// leaderError reports errors that mean the metadata is stale.
func leaderError(code int16) bool {
	switch code {
	case kerr.NotLeaderForPartition.Code, kerr.LeaderNotAvailable.Code, kerr.UnknownTopicOrPartition.Code,
		kerr.FencedLeaderEpoch.Code, kerr.UnknownLeaderEpoch.Code, kerr.KafkaStorageError.Code:
		return true
	}
	return false
}

// notWritten reports retriable errors after which the batch is certainly not in the log.
func notWritten(code int16) bool {
	switch code {
	case kerr.NotLeaderForPartition.Code, kerr.LeaderNotAvailable.Code, kerr.UnknownTopicOrPartition.Code,
		kerr.FencedLeaderEpoch.Code, kerr.UnknownLeaderEpoch.Code, kerr.NotEnoughReplicas.Code,
		kerr.CorruptMessage.Code:
		return true
	}
	return false
}

// wantPID fetches a new producer id for ss when one of its partitions waits for one with
// nothing in flight.
func (s *sender) wantPID(ss *session) {
	if ss.pidBusy {
		return
	}
	for _, pt := range ss.parts {
		if pt.needReset && pt.inflight == 0 {
			ss.pidBusy = true
			p := s.p
			go func() {
				id, err := initProducerID(p.ctx, ss.cl)
				if err != nil {
					time.Sleep(p.cfg.RetryBackoff)
				}
				s.pidCh <- pidResult{ss, id, err}
			}()
			return
		}
	}
}

// applyPID moves every partition of the session waiting for a new producer id to it.
func (s *sender) applyPID(r pidResult) {
	if r.err != nil {
		return // wantPID asks again
	}
	s.stats.ProducerIDs++
	for _, pt := range r.s.parts {
		if pt.needReset && pt.inflight == 0 {
			for _, b := range pt.restamp(r.id) {
				s.finished = append(s.finished, outcome{b, errors.New("produce: the partition's producer id was reset after an error, and this batch may have been written under the old one: failed rather than risk writing it twice")})
			}
		}
	}
}

// batchHeader is a v2 batch's bytes before its records.
const batchHeader = 61

// report hands finished batches to Done and returns them to the pool. Called without the
// mutex.
func (s *sender) report(fin []outcome) {
	if len(fin) == 0 {
		return
	}
	for _, o := range fin {
		if o.err == nil && s.p.cfg.BatchAcked != nil {
			s.p.cfg.BatchAcked(o.b.w.Len() - batchHeader)
		}
		s.p.cfg.Done(o.b.tags, o.err)
	}
	s.p.mu.Lock()
	for _, o := range fin {
		s.p.release(o.b)
	}
	s.p.mu.Unlock()
}

// shutdown fails everything still held, when the Producer closes.
func (s *sender) shutdown() {
	p := s.p
	p.cancel()
	p.mu.Lock()
	var fin []outcome
	for _, sl := range p.slots {
		if sl.open != nil {
			fin = append(fin, outcome{sl.open, ErrClosed})
			sl.open = nil
		}
		for _, b := range sl.queue {
			fin = append(fin, outcome{b, ErrClosed})
		}
		sl.queue = nil
	}
	for _, ss := range p.sessions {
		for _, pt := range ss.parts {
			for _, b := range pt.unacked {
				fin = append(fin, outcome{b, ErrClosed})
			}
			pt.unacked = nil
		}
	}
	p.mu.Unlock()
	s.report(fin)
}
