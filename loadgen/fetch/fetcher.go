package fetch

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strconv"
	"sync"
	"time"

	"github.com/plimsoll/plimsoll/loadgen/recbatch"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
	"github.com/twmb/franz-go/pkg/sasl"
)

// Topic is one topic whose partitions a Fetcher may be assigned: partition p of it is index
// Base+p of the dense partition space every per-partition array is indexed by.
type Topic struct {
	Name       string
	Base       int
	Partitions int
}

// Config is what a Fetcher fetches and how.
type Config struct {
	Topics            []Topic
	MinBytes          int32
	MaxBytes          int32
	PartitionMaxBytes int32
	MaxWait           time.Duration
	ReadCommitted     bool
	Rack              string
	ClientID          string
	// Reset is where a partition without a usable offset starts: "earliest", "latest" or
	// "none" (an error, as Kafka's auto.offset.reset=none).
	Reset string
	// Dial opens broker connections; nil is plain TCP.
	Dial DialFunc
	// SASL, when set, authenticates each connection (the client's first mechanism).
	SASL sasl.Mechanism
	// Timeout bounds a dial and, beyond MaxWait, a response; 0 is 30 s.
	Timeout time.Duration
	// Backoff is the wait after an error before the partition or broker is tried again; 0 is
	// 100 ms.
	Backoff time.Duration
	// Now is the clock errors are timed by; nil is time.Now.
	Now func() time.Time
}

// Sink receives the records a Fetcher reads. Lock comes once a response is read, before its
// records (every one of them in the application's hands from then), and Unlock after them;
// Record is called only between the two, in offset order per partition; Error is called outside
// them.
type Sink interface {
	Lock()
	// Record hands one record of dense partition part. value aliases the fetch's bytes: it is
	// valid only during the call.
	Record(part int, offset int64, leaderEpoch int32, value []byte)
	Unlock()
	Error(err error)
}

// Offset states of a partition below 0: where it needs a ListOffsets before it can be fetched.
const (
	needLatest   = -1
	needEarliest = -2
	noOffset     = -3 // reset "none" and no offset: never fetched
)

// Fetcher reads a consumer's assigned partitions with its own Fetch requests: one connection
// and one goroutine per leader broker, each request session-less and for every partition the
// broker leads, the response read into a buffer the connection keeps and parsed in place
// (recbatch). franz-go's client (cl) serves the rare requests: Metadata for leaders, ListOffsets
// for resets. Per-partition state sits in flat arrays indexed by the dense partition index, all
// under mu, which is held across a response's delivery so that Revoke returns only once no
// record of a revoked partition can be delivered any more.
type Fetcher struct {
	cfg  Config
	cl   *kgo.Client
	sink Sink

	mu       sync.Mutex
	assigned []bool
	gen      []uint32 // bumped by every Assign and Revoke: a response for an older one is stale
	offset   []int64  // the next offset to fetch; below 0, a needLatest/needEarliest/noOffset state
	epoch    []int32  // the leader epoch of the partition's leader, -1 unknown
	leader   []int32  // the leader's broker id, -1 unknown (metadata wanted)
	retryAt  []int64  // Unix ns before which the partition is not fetched (after an error)
	paused   bool
	addrs    map[int32]string
	workers  map[int32]*worker
	parser   recbatch.Parser
	aborts   recbatch.Aborts
	rec      recbatch.Record
	errs     []error // errors met while delivering, reported after the sink's Unlock

	wake chan struct{} // the manager: metadata or offsets wanted
	ctx  context.Context
	wg   sync.WaitGroup
}

// New returns a Fetcher for the dense partition space of cfg.Topics; Bind gives it its client,
// Run starts it.
func New(cfg Config, sink Sink) *Fetcher {
	n := 0
	for _, t := range cfg.Topics {
		n = max(n, t.Base+t.Partitions)
	}
	if cfg.Timeout <= 0 {
		cfg.Timeout = 30 * time.Second
	}
	if cfg.Backoff <= 0 {
		cfg.Backoff = 100 * time.Millisecond
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.Dial == nil {
		var d net.Dialer
		cfg.Dial = d.DialContext
	}
	f := &Fetcher{cfg: cfg, sink: sink,
		assigned: make([]bool, n), gen: make([]uint32, n), offset: make([]int64, n), epoch: make([]int32, n),
		leader: make([]int32, n), retryAt: make([]int64, n), addrs: map[int32]string{}, workers: map[int32]*worker{},
		wake: make(chan struct{}, 1)}
	for i := range n {
		f.leader[i], f.epoch[i] = -1, -1
	}
	return f
}

// Bind gives the fetcher the client whose Metadata and ListOffsets it uses, and the dialer,
// SASL mechanism and client id of its own connections (nil, nil, "": plain TCP, none, none).
// Call it before Run.
func (f *Fetcher) Bind(cl *kgo.Client, dial DialFunc, mech sasl.Mechanism, clientID string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.cl, f.cfg.SASL, f.cfg.ClientID = cl, mech, clientID
	if dial != nil {
		f.cfg.Dial = dial
	}
}

// ErrNoOffset is a partition assigned without an offset under the reset policy "none": it is
// not fetched.
var ErrNoOffset = errors.New("no offset to start from and auto.offset.reset is none")

// Assign starts fetching dense partition part at offset (below 0: none, the Reset policy's).
func (f *Fetcher) Assign(part int, offset int64) {
	f.mu.Lock()
	if part < 0 || part >= len(f.assigned) {
		f.mu.Unlock()
		return
	}
	if offset < 0 {
		offset = f.resetState()
	}
	defer func() {
		if offset == noOffset {
			f.sink.Error(fmt.Errorf("fetch: partition %d: %w", part, ErrNoOffset))
		}
	}()
	defer f.mu.Unlock()
	f.assigned[part], f.offset[part], f.retryAt[part] = true, offset, 0
	f.gen[part]++
	f.poke()
	if w := f.workers[f.leader[part]]; w != nil {
		w.poke()
	}
}

// resetState is the offset state the Reset policy gives a partition without an offset.
func (f *Fetcher) resetState() int64 {
	switch f.cfg.Reset {
	case "latest":
		return needLatest
	case "none":
		return noOffset
	}
	return needEarliest
}

// Revoke stops fetching dense partition part and returns where its reading stands (the next
// offset, false if it has none): once it returns, no record of part is delivered until the next
// Assign.
func (f *Fetcher) Revoke(part int) (next int64, ok bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if part < 0 || part >= len(f.assigned) || !f.assigned[part] {
		return 0, false
	}
	f.assigned[part] = false
	f.gen[part]++
	return f.offset[part], f.offset[part] >= 0
}

// Positions calls fn with the next offset of every assigned partition that has one (for a
// commit).
func (f *Fetcher) Positions(fn func(part int, next int64)) {
	f.mu.Lock()
	defer f.mu.Unlock()
	for p, a := range f.assigned {
		if a && f.offset[p] >= 0 {
			fn(p, f.offset[p])
		}
	}
}

// Pause stops (true) or resumes (false) fetching every partition.
func (f *Fetcher) Pause(paused bool) {
	f.mu.Lock()
	f.paused = paused
	for _, w := range f.workers {
		w.poke()
	}
	f.mu.Unlock()
}

// Run fetches until ctx is done, then closes its connections and returns.
func (f *Fetcher) Run(ctx context.Context) {
	f.mu.Lock()
	f.ctx = ctx
	f.mu.Unlock()
	f.manage(ctx)
	// A worker may be waiting for a response (up to MaxWait, or Timeout from a hung broker):
	// cut its read short.
	f.mu.Lock()
	for _, w := range f.workers {
		if c := w.live.Load(); c != nil {
			_ = c.c.SetDeadline(time.Now())
		}
	}
	f.mu.Unlock()
	f.wg.Wait()
}

// poke wakes the manager. Callers hold mu.
func (f *Fetcher) poke() {
	select {
	case f.wake <- struct{}{}:
	default:
	}
}

// manage keeps leaders and offsets known: Metadata when an assigned partition has no leader,
// ListOffsets when one has no offset; it starts a worker for each leader.
func (f *Fetcher) manage(ctx context.Context) {
	tick := time.NewTicker(f.cfg.Backoff)
	defer tick.Stop()
	for {
		f.mu.Lock()
		needMeta, needList := false, false
		for p, a := range f.assigned {
			if !a {
				continue
			}
			needMeta = needMeta || f.leader[p] < 0
			needList = needList || f.offset[p] == needEarliest || f.offset[p] == needLatest
		}
		f.startWorkers() // a partition assigned after its leader was learnt
		f.mu.Unlock()
		if needMeta {
			f.refreshMetadata(ctx)
		}
		if needList {
			f.listOffsets(ctx)
		}
		select {
		case <-ctx.Done():
			return
		case <-f.wake:
		case <-tick.C:
		}
	}
}

// refreshMetadata asks for the topics' leaders and starts a worker for each new one.
func (f *Fetcher) refreshMetadata(ctx context.Context) {
	req := kmsg.NewPtrMetadataRequest()
	for _, t := range f.cfg.Topics {
		rt := kmsg.NewMetadataRequestTopic()
		rt.Topic = kmsg.StringPtr(t.Name)
		req.Topics = append(req.Topics, rt)
	}
	resp, err := req.RequestWith(ctx, f.cl)
	if err != nil {
		if ctx.Err() == nil {
			f.sink.Error(fmt.Errorf("fetch metadata: %w", err))
		}
		return
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, b := range resp.Brokers {
		f.addrs[b.NodeID] = net.JoinHostPort(b.Host, strconv.Itoa(int(b.Port)))
	}
	for _, rt := range resp.Topics {
		ti := f.topicIndex(deref(rt.Topic))
		if ti < 0 || rt.ErrorCode != 0 {
			continue
		}
		t := f.cfg.Topics[ti]
		for _, rp := range rt.Partitions {
			if rp.Partition < 0 || int(rp.Partition) >= t.Partitions {
				continue
			}
			p := t.Base + int(rp.Partition)
			if rp.ErrorCode != 0 || rp.Leader < 0 {
				f.leader[p] = -1
				continue
			}
			f.leader[p], f.epoch[p] = rp.Leader, rp.LeaderEpoch
		}
	}
	f.startWorkers()
	for _, w := range f.workers {
		w.poke()
	}
}

// startWorkers starts a worker for every leader of an assigned partition that has none.
// Callers hold mu.
func (f *Fetcher) startWorkers() {
	for p, a := range f.assigned {
		id := f.leader[p]
		if !a || id < 0 || f.workers[id] != nil || f.ctx == nil {
			continue
		}
		w := &worker{f: f, id: id, wake: make(chan struct{}, 1), reqOff: make([]int64, len(f.assigned)),
			reqGen: make([]uint32, len(f.assigned)), byTopic: make([][]ReqPartition, len(f.cfg.Topics))}
		f.workers[id] = w
		f.wg.Add(1)
		go func() { defer f.wg.Done(); w.run(f.ctx) }()
	}
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// topicIndex is the index of the named topic in cfg.Topics, -1 if none.
func (f *Fetcher) topicIndex(name string) int {
	for i, t := range f.cfg.Topics {
		if t.Name == name {
			return i
		}
	}
	return -1
}

// listOffsets resolves the partitions waiting for their earliest or latest offset.
func (f *Fetcher) listOffsets(ctx context.Context) {
	req := kmsg.NewPtrListOffsetsRequest()
	req.ReplicaID = -1
	if f.cfg.ReadCommitted {
		req.IsolationLevel = 1
	}
	gens := map[int]uint32{}
	f.mu.Lock()
	for _, t := range f.cfg.Topics {
		rt := kmsg.NewListOffsetsRequestTopic()
		rt.Topic = t.Name
		for i := range t.Partitions {
			p := t.Base + i
			if !f.assigned[p] || (f.offset[p] != needEarliest && f.offset[p] != needLatest) {
				continue
			}
			rp := kmsg.NewListOffsetsRequestTopicPartition()
			rp.Partition, rp.Timestamp, rp.CurrentLeaderEpoch = int32(i), f.offset[p], f.epoch[p]
			rt.Partitions = append(rt.Partitions, rp)
			gens[p] = f.gen[p]
		}
		if len(rt.Partitions) > 0 {
			req.Topics = append(req.Topics, rt)
		}
	}
	f.mu.Unlock()
	if len(req.Topics) == 0 {
		return
	}
	resp, err := req.RequestWith(ctx, f.cl)
	if err != nil {
		if ctx.Err() == nil {
			f.sink.Error(fmt.Errorf("list offsets: %w", err))
		}
		return
	}
	var errs []error
	f.mu.Lock()
	for _, rt := range resp.Topics {
		ti := f.topicIndex(rt.Topic)
		if ti < 0 {
			continue
		}
		t := f.cfg.Topics[ti]
		for _, rp := range rt.Partitions {
			if rp.Partition < 0 || int(rp.Partition) >= t.Partitions {
				continue
			}
			p := t.Base + int(rp.Partition)
			if g, ok := gens[p]; !ok || g != f.gen[p] || !f.assigned[p] {
				continue // reassigned meanwhile
			}
			if rp.ErrorCode != 0 {
				err := kerr.ErrorForCode(rp.ErrorCode)
				if leaderError(rp.ErrorCode) {
					f.leader[p] = -1
				}
				errs = append(errs, fmt.Errorf("list offsets: %w", err))
				continue
			}
			f.offset[p] = rp.Offset
			if w := f.workers[f.leader[p]]; w != nil {
				w.poke()
			}
		}
	}
	f.mu.Unlock()
	for _, err := range errs {
		f.sink.Error(err)
	}
}

// leaderError reports whether a partition error means the client's idea of its leader is
// wrong or stale: metadata again, then a retry.
func leaderError(code int16) bool {
	switch kerr.ErrorForCode(code) {
	case kerr.NotLeaderForPartition, kerr.LeaderNotAvailable, kerr.FencedLeaderEpoch, kerr.UnknownLeaderEpoch,
		kerr.UnknownTopicOrPartition, kerr.UnknownTopicID, kerr.ReplicaNotAvailable, kerr.KafkaStorageError,
		kerr.OffsetNotAvailable, kerr.NotCoordinator:
		return true
	}
	return false
}

// Topics is the fetcher's topics, as configured.
func (f *Fetcher) Topics() []Topic { return f.cfg.Topics }
