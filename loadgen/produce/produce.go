package produce

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/plimsoll/plimsoll/loadgen/recbatch"
	"github.com/twmb/franz-go/pkg/kgo"
)

// Tag is what the caller gets back for each record: opaque words it set at Produce.
type Tag struct {
	Seq  uint64
	A, B int64
}

// Record is one record to produce. Topic is an index into Config.Topics; Partition must be
// below the topic's partition count (Partitions).
type Record struct {
	Topic     int
	Partition int32
	Timestamp int64 // milliseconds since the epoch (CreateTime)
	Key       []byte
	Value     []byte
	Tag       Tag
}

// Config configures a Producer. Zero fields take the defaults noted.
type Config struct {
	// Opts are the franz-go client options (seed brokers, TLS, SASL, ...); New adds its hook.
	Opts   []kgo.Opt
	Topics []string
	// Acks is -1 (all) or 1 (the leader). acks=0 is not supported.
	Acks int16
	// Idempotent asks for a producer id and sequences; it requires Acks -1.
	Idempotent bool
	// Codec compresses each batch's records (recbatch.None by default); batch.size counts
	// them uncompressed.
	Codec recbatch.Codec
	// MaxInFlight is the most requests in flight per broker in one session, 1 to 5 (default 5).
	MaxInFlight int
	// Sessions is the most sessions the producer grows to, 1 to MaxSessions (default
	// MaxSessions): each its own client (connections), producer id, sequences and window. It
	// starts with one and adds one whenever batches have waited GrowAfter with every session's
	// window full. 1 keeps one session.
	Sessions int
	// GrowAfter is how long batches wait with every session's window full before a session is
	// added (default 100 ms).
	GrowAfter time.Duration
	// MarkLane, if set, is given each record's value as its batch holds it, with the index of the
	// session that sends the batch (1 to Sessions-1), before the batch is first sent: the
	// caller may write the session into the value (plimsoll's stamp does, for its ledger, which
	// checks order per session). Batches session 0 sends are not given to it: a value must
	// already mean lane 0 as produced. Called from the sender goroutine with the Producer's
	// mutex held.
	MarkLane func(value []byte, session int)
	// BatchBytes is batch.size: a batch is closed before a record would take it past this
	// (default 16384; a record larger than it goes alone).
	BatchBytes int
	// Linger is linger.ms: how long a batch that is not full waits for more records (default 0:
	// sent at the next chance). Past it, the batch goes once a session has no request in flight
	// to its partition's leader, and keeps filling until then.
	Linger time.Duration
	// BufferBatches bounds the batches held at once, open, queued or in flight: the producer's
	// buffer (default 2048, buffer.memory 32 MiB / 16 KiB). Produce waits for one when it is
	// reached.
	BufferBatches int
	// RequestTimeout is the produce request's timeout (request.timeout.ms, default 30 s).
	RequestTimeout time.Duration
	// DeliveryTimeout fails a batch not acknowledged this long after its first record
	// (delivery.timeout.ms, default 120 s).
	DeliveryTimeout time.Duration
	// RetryBackoff is the wait before a batch is sent again (retry.backoff.ms, default 100 ms).
	RetryBackoff time.Duration
	// MetadataMaxAge refreshes the leaders this often without an error (default 5 min).
	MetadataMaxAge time.Duration
	// Done is called once for every batch with its records' tags, in the order they were
	// produced, and the batch's outcome (nil: acknowledged). It is called from the producer's
	// sender goroutine, one call at a time; tags is valid only during the call.
	Done func(tags []Tag, err error)
	// BatchAcked, if set, is called before Done for every acknowledged batch with the size of
	// its records (the batch less its 61-byte header): for a meter of full batches.
	BatchAcked func(recordBytes int)
	// Now is the clock, nanoseconds on any monotonic scale (default: time since New).
	Now func() int64
}

// MaxSessions is the most sessions a Producer has: the lanes of plimsoll's ledger (a stamp
// carries its session in 4 bits).
const MaxSessions = 16

// ErrClosed is the outcome of records still held when the Producer closed.
var ErrClosed = errors.New("produce: producer closed")

func (c *Config) defaults() error {
	if c.Acks != -1 && c.Acks != 1 {
		return fmt.Errorf("produce: acks %d: only -1 (all) and 1 are supported", c.Acks)
	}
	if c.Idempotent && c.Acks != -1 {
		return errors.New("produce: idempotence needs acks=all")
	}
	if c.MaxInFlight == 0 {
		c.MaxInFlight = 5
	}
	if c.MaxInFlight < 1 || c.MaxInFlight > 5 {
		return fmt.Errorf("produce: %d requests in flight per broker: 1 to 5", c.MaxInFlight)
	}
	if c.Sessions == 0 {
		c.Sessions = MaxSessions
	}
	if c.Sessions < 1 || c.Sessions > MaxSessions {
		return fmt.Errorf("produce: Config.Sessions %d: set 1 to %d (0 for %d)", c.Sessions, MaxSessions, MaxSessions)
	}
	if len(c.Topics) == 0 || c.Done == nil {
		return errors.New("produce: no topics or no Done")
	}
	def := func(d *time.Duration, v time.Duration) {
		if *d <= 0 {
			*d = v
		}
	}
	def(&c.RequestTimeout, 30*time.Second)
	def(&c.DeliveryTimeout, 120*time.Second)
	def(&c.RetryBackoff, 100*time.Millisecond)
	def(&c.MetadataMaxAge, 5*time.Minute)
	def(&c.GrowAfter, 100*time.Millisecond)
	if c.BatchBytes <= 0 {
		c.BatchBytes = 16384
	}
	if c.BufferBatches <= 0 {
		c.BufferBatches = 2048
	}
	if c.Now == nil {
		start := time.Now()
		c.Now = func() int64 { return int64(time.Since(start)) }
	}
	return nil
}

// Producer produces records over one or more sessions, each on its own kgo.Client. Produce may
// be called from one goroutine or several; Done is called from the Producer's sender goroutine.
type Producer struct {
	cfg Config

	mu        sync.Mutex
	slots     []*slot // every partition of every topic, by topicBase[topic]+partition
	topicBase []int
	sessions  []*session // grown by the sender
	batches   int        // batches allocated
	free      []*batch   // batches to reuse
	freed     chan struct{}
	closed    bool

	wake   chan struct{} // a batch was sealed, or Flush began
	events chan event    // request written, request finished: in the order they happened
	stop   chan struct{}
	done   chan struct{}
	ctx    context.Context
	cancel context.CancelFunc

	flushing int // Flush calls under way: seal every open batch at once

	snd sender // owned by the sender goroutine
}

// session is one idempotent producer (or, without idempotence, one set of connections): its
// client, its partitions' sequences and batches sent, its window per broker.
type session struct {
	idx     int
	cl      *kgo.Client
	parts   []*part // by the Producer's partition index
	brokers map[int32]*brokerState
	order   []*brokerState // brokers in id order, for a stable dispatch
	pid     producerID     // the first producer id, its parts' until a reset
	pidBusy bool
}

// New creates the first session (its client, the topics' metadata and, if idempotent, a
// producer id) and starts the sender.
func New(ctx context.Context, cfg Config) (*Producer, error) {
	if err := cfg.defaults(); err != nil {
		return nil, err
	}
	p := &Producer{
		cfg:    cfg,
		freed:  make(chan struct{}, 1),
		wake:   make(chan struct{}, 1),
		events: make(chan event, 1024),
		stop:   make(chan struct{}),
		done:   make(chan struct{}),
	}
	p.ctx, p.cancel = context.WithCancel(context.Background())
	s0, m, err := p.newSession(ctx, 0)
	if err != nil {
		p.cancel()
		return nil, err
	}
	for ti := range cfg.Topics {
		p.topicBase = append(p.topicBase, len(p.slots))
		for range m.topics[ti].partitions {
			p.slots = append(p.slots, &slot{})
		}
	}
	p.snd.init(p)
	p.snd.add(s0)
	p.snd.applyMetadata(m)
	go p.snd.run()
	return p, nil
}

// newSession makes session idx: its client, which learns the brokers from the topics' metadata
// (returned), and with idempotence its producer id. Its parts are made by sender.add.
func (p *Producer) newSession(ctx context.Context, idx int) (*session, metaResult, error) {
	// franz-go writes every kmsg.ProduceRequest with its client's acks, whatever the request
	// says: the client's must be ours.
	acks := []kgo.Opt{kgo.RequiredAcks(kgo.AllISRAcks())}
	if p.cfg.Acks == 1 {
		acks = []kgo.Opt{kgo.RequiredAcks(kgo.LeaderAck()), kgo.DisableIdempotentWrite()}
	}
	opts := append(append(append([]kgo.Opt{}, p.cfg.Opts...), acks...), kgo.WithHooks(writeHook{p, idx}))
	cl, err := kgo.NewClient(opts...)
	if err != nil {
		return nil, metaResult{}, err
	}
	s := &session{idx: idx, cl: cl, brokers: map[int32]*brokerState{}}
	m, err := fetchMetadata(ctx, cl, p.cfg.Topics)
	if err != nil {
		cl.Close()
		return nil, m, err
	}
	s.pid = noID
	if p.cfg.Idempotent {
		if s.pid, err = initProducerID(ctx, cl); err != nil {
			cl.Close()
			return nil, m, err
		}
	}
	return s, m, nil
}

// Partitions returns the partition count of Config.Topics[topic] as New found it.
func (p *Producer) Partitions(topic int) int {
	if topic+1 < len(p.topicBase) {
		return p.topicBase[topic+1] - p.topicBase[topic]
	}
	return len(p.slots) - p.topicBase[topic]
}

// Client returns the first session's franz-go client (for metadata or admin requests).
func (p *Producer) Client() *kgo.Client { return p.sessions[0].cl }

// Info is what Produce reports besides an error.
type Info struct {
	// Waited is how long Produce waited for a batch while the buffer was full (0: it did not).
	Waited time.Duration
	// Sealed says the call closed a full batch of the record's partition: a sticky
	// partitioner moves on (kgo.TopicPartitionerOnNewBatch).
	Sealed bool
}

// Produce adds a record to its partition's open batch, copying key and value. It waits while
// the buffer is full (BufferBatches in use); err is ctx's error if it ended meanwhile, or
// ErrClosed. A record Produce returns an error for is not reported to Done.
func (p *Producer) Produce(ctx context.Context, r *Record) (info Info, err error) {
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		return info, ErrClosed
	}
	sl := p.slots[p.topicBase[r.Topic]+int(r.Partition)]
	b := sl.open
	if b != nil && b.w.Len()+p.recordSize(b, r) > p.cfg.BatchBytes {
		p.seal(sl)
		b, info.Sealed = nil, true
	}
	var t0 int64
	waiting := false
	for b == nil {
		if p.closed {
			p.mu.Unlock()
			return info, ErrClosed
		}
		if b = p.takeBatch(); b != nil {
			b.created, b.ts0 = p.cfg.Now(), r.Timestamp
			sl.open = b
			p.poke() // the sender times the batch's linger
			break
		}
		if !waiting {
			t0, waiting = p.cfg.Now(), true
		}
		p.mu.Unlock()
		select {
		case <-p.freed:
		case <-ctx.Done():
			info.Waited = time.Duration(p.cfg.Now() - t0)
			return info, ctx.Err()
		}
		p.mu.Lock()
		b = sl.open // another goroutine may have opened one meanwhile
	}
	if waiting {
		info.Waited = time.Duration(max(p.cfg.Now()-t0, 1))
	}
	b.w.Append(r.Timestamp, r.Key, r.Value, nil)
	b.tags = append(b.tags, r.Tag)
	if p.cfg.MarkLane != nil && r.Value != nil {
		b.vals = append(b.vals, valueRef{int32(b.w.LastValueAt()), int32(len(r.Value))})
	}
	if b.w.Len() >= p.cfg.BatchBytes {
		p.seal(sl)
		info.Sealed = true
	}
	p.mu.Unlock()
	return info, nil
}

// recordSize is what r would add to b.
func (p *Producer) recordSize(b *batch, r *Record) int {
	if b.w.NumRecords() == 0 {
		return 0 // a first record always goes in
	}
	return recbatch.RecordSize(r.Timestamp-b.ts0, int32(b.w.NumRecords()), lenOrNull(r.Key), lenOrNull(r.Value), nil)
}

func lenOrNull(b []byte) int {
	if b == nil {
		return -1
	}
	return len(b)
}

// takeBatch returns a batch from the pool, or a new one while the buffer allows, or nil.
func (p *Producer) takeBatch() *batch {
	if n := len(p.free); n > 0 {
		b := p.free[n-1]
		p.free = p.free[:n-1]
		b.reset()
		return b
	}
	if p.batches >= p.cfg.BufferBatches {
		return nil
	}
	p.batches++
	b := &batch{}
	b.w.Codec = p.cfg.Codec
	b.reset()
	return b
}

// seal closes sl's open batch and queues it for the sessions. Called with mu held.
func (p *Producer) seal(sl *slot) {
	b := sl.open
	if b == nil {
		return
	}
	sl.open = nil
	sl.queue = append(sl.queue, b)
	p.poke()
}

// poke wakes the sender if it sleeps.
func (p *Producer) poke() {
	select {
	case p.wake <- struct{}{}:
	default:
	}
}

// release returns finished batches to the pool. Called with mu held.
func (p *Producer) release(b *batch) {
	p.free = append(p.free, b)
	select {
	case p.freed <- struct{}{}:
	default:
	}
}

// Flush sends every record produced before it and waits until each has its outcome, or ctx
// ends.
func (p *Producer) Flush(ctx context.Context) error {
	p.mu.Lock()
	p.flushing++
	p.mu.Unlock()
	defer func() {
		p.mu.Lock()
		p.flushing--
		p.mu.Unlock()
	}()
	p.poke()
	t := time.NewTicker(time.Millisecond)
	defer t.Stop()
	for {
		p.mu.Lock()
		idle := p.batches == len(p.free)
		p.mu.Unlock()
		if idle {
			return nil
		}
		select {
		case <-t.C:
		case <-ctx.Done():
			return ctx.Err()
		case <-p.done:
			return ErrClosed
		}
	}
}

// Close stops the sender and closes the client; every record still held is reported to Done
// with ErrClosed. Call it once, after the last Produce.
func (p *Producer) Close() {
	p.mu.Lock()
	p.closed = true
	p.mu.Unlock()
	close(p.stop)
	<-p.done
	for _, s := range p.sessions { // the sender has stopped: no session is added now
		s.cl.Close()
	}
}

// Stats are the producer's counters, for the window's figures.
type Stats struct {
	Requests    int64 // produce requests issued
	Retries     int64 // batches sent again
	MaxInFlight int   // the most requests in flight to one broker at once in one session
	ProducerIDs int   // producer ids taken (one per session with idempotence, more after a reset)
	Sessions    int   // sessions running
	// SessionErrors counts sessions that could not be added (their client, metadata or
	// producer id failed); the producer goes on with those it has and tries again later.
	SessionErrors int
}

// firstIDs returns each session's first producer id (noID without idempotence).
func (p *Producer) firstIDs() []producerID {
	p.mu.Lock()
	defer p.mu.Unlock()
	ids := make([]producerID, 0, len(p.sessions))
	for _, s := range p.sessions {
		ids = append(ids, s.pid)
	}
	return ids
}

// Stats returns the counters so far.
func (p *Producer) Stats() Stats {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.snd.stats
}
