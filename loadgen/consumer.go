package loadgen

import (
	"context"
	"math"
	"sync"
	"sync/atomic"

	"github.com/plimsoll/plimsoll/loadgen/fetch"
	"github.com/plimsoll/plimsoll/loadgen/hdr"
	"github.com/plimsoll/plimsoll/loadgen/ledger"
	"github.com/plimsoll/plimsoll/loadgen/pace"
	"github.com/twmb/franz-go/pkg/kgo"
)

// runState is what every producer and consumer of a run shares.
type runState struct {
	clock     pace.Clock
	wallBase  int64 // Unix ns at the clock's zero, for record timestamps
	seed      uint64
	producers int
	own       Range // the producers whose messages count (a share's; all of them otherwise)
	tick      int64 // least time a producer sleeps, ns (Options.PacingTick)
	// measureStart: messages intended at or after it are measured, earlier ones excluded
	// (warm-up, backlog building). math.MaxInt64 until known.
	measureStart atomic.Int64
	// measureEnd: producers schedule nothing at or after it. math.MaxInt64 until known.
	measureEnd atomic.Int64
}

func newRunState(clk pace.Clock, wallBase int64, seed uint64, producers int) *runState {
	s := &runState{clock: clk, wallBase: wallBase, seed: seed, producers: producers, own: Range{0, producers}}
	s.measureStart.Store(math.MaxInt64)
	s.measureEnd.Store(math.MaxInt64)
	return s
}

// A message's phase, by its intended time: the ledger's and the workers' figures are kept by it.
const (
	phaseExcluded = ledger.Excluded // warm-up and backlog building: in no figure
	phaseMeasured = ledger.Measured
)

// phase classifies a message by its intended time.
func (s *runState) phase(intended int64) int {
	if intended >= s.measureStart.Load() {
		return phaseMeasured
	}
	return phaseExcluded
}

// group is one consumer group: its members share one ledger.
type group struct {
	name     string
	mu       sync.Mutex
	ledger   *ledger.Group
	assigned atomic.Int64 // partitions currently assigned across members
	stray    atomic.Int64 // of those, another process's (outside the share's partitions)
}

// consumer is one member of a group.
type consumer struct {
	run       *runState
	g         *group
	cl        *kgo.Client
	partBase  map[string]int // topic -> index of its partition 0 in the dense partition space
	pollLimit int

	mu          sync.Mutex
	e2e         [2]*hdr.Hist // end-to-end latency (intended -> consumed), by phase; drained by the collector
	e2eRun      [2]*hdr.Run  // record into e2e; flushed (flushLatency) before every release of mu
	pos         positions    // the member's own reading, for a rejoin after a lost session
	consumedAll atomic.Int64
	assigned    atomic.Int64 // partitions assigned to this member, the share's
	stray       atomic.Int64 // partitions of another process assigned to this member
	fetchErrs   errorTally
	fetcher     *fetch.Fetcher // plimsoll's own fetch path (ownfetch.go); nil: franz-go's polls
}

// assign adds n partitions of the share's and stray ones of another process's to the member.
func (c *consumer) assign(n, stray int64) {
	c.assigned.Add(n)
	c.g.assigned.Add(n)
	c.stray.Add(stray)
	c.g.stray.Add(stray)
}

// unassign takes partitions revoked or lost from the member.
func (c *consumer) unassign(n, stray int64) { c.assign(-n, -stray) }

// resume is the member's AdjustFetchOffsetsFn: a new assignment starts each partition where
// the member's own reading stands, when that is past the group's commit (positions).
func (c *consumer) resume(_ context.Context, fetched map[string]map[int32]kgo.Offset) (map[string]map[int32]kgo.Offset, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.pos.resume(c.partBase, fetched), nil
}

func newConsumer(run *runState, g *group, partBase map[string]int, pollLimit int) *consumer {
	c := &consumer{run: run, g: g, partBase: partBase, pollLimit: pollLimit, e2e: [2]*hdr.Hist{hdr.New(), hdr.New()},
		pos: newPositions(g.ledger.Partitions())}
	c.e2eRun = [2]*hdr.Run{hdr.NewRun(c.e2e[0]), hdr.NewRun(c.e2e[1])}
	return c
}

// flushLatency puts the latencies recorded since the last flush into e2e. Callers hold mu and
// flush before releasing it, so that whoever takes mu next (the collector) finds every one.
func (c *consumer) flushLatency() {
	c.e2eRun[0].Flush()
	c.e2eRun[1].Flush()
}

// poolOpts are the options a consumer's client gets beside the run's: pools for the slices
// franz-go decodes fetches into (recordPools), which the consumer hands back record by record
// once each is accounted. Measured by BenchmarkConsumer.
func poolOpts() []kgo.Opt { return []kgo.Opt{kgo.WithPools(newRecordPools())} }

// loop polls until the client is closed or ctx is done; with plimsoll's own fetch path, it
// runs the fetcher until ctx is done.
func (c *consumer) loop(ctx context.Context) {
	if c.fetcher != nil {
		c.fetcher.Run(ctx)
		return
	}
	for c.poll(ctx) {
	}
}

// poll takes one poll's records and accounts for them; false once the client is closed or ctx
// is done.
func (c *consumer) poll(ctx context.Context) bool {
	var fs kgo.Fetches
	if c.pollLimit > 0 {
		fs = c.cl.PollRecords(ctx, c.pollLimit)
	} else {
		fs = c.cl.PollFetches(ctx)
	}
	if fs.IsClientClosed() || ctx.Err() != nil {
		return false
	}
	c.handle(fs, c.run.clock.Now())
	return true
}

// handle accounts for one poll's records. now is when the poll returned: every record in it
// was in the application's hands from then. It does not allocate.
func (c *consumer) handle(fs kgo.Fetches, now int64) {
	g := c.g
	g.mu.Lock()
	c.mu.Lock()
	var n int64
	for i := range fs {
		for ti := range fs[i].Topics {
			t := &fs[i].Topics[ti]
			base, ok := c.partBase[t.Topic]
			for pi := range t.Partitions {
				p := &t.Partitions[pi]
				if p.Err != nil {
					c.fetchErrs.add(p.Err)
					recycle(p.Records)
					continue
				}
				if !ok {
					g.ledger.Foreign += int64(len(p.Records))
					recycle(p.Records)
					continue
				}
				c.pos.advance(base+int(p.Partition), p.Records) // before records recycles them
				n += c.records(base+int(p.Partition), p.Records, now)
			}
		}
	}
	c.flushLatency()
	c.mu.Unlock()
	g.mu.Unlock()
	c.consumedAll.Add(n)
}

// records accounts for one batch's records (account) and recycles each once accounted: nothing
// may hold its value afterwards. Callers hold g.mu and c.mu.
func (c *consumer) records(part int, recs []*kgo.Record, now int64) int64 {
	var n int64
	for _, r := range recs {
		n += c.account(part, r.Offset, r.Value, now)
		r.Recycle()
	}
	return n
}

// account is the per-record hot path: decode the stamp, record the end-to-end latency, update
// the group's ledger. It returns 1 if the record counts as consumed, 0 for one of the run's
// settling records. A record without a stamp (a settling or a foreign one) still moves the
// partition's read position. It does not allocate. Callers hold g.mu and c.mu.
func (c *consumer) account(part int, offset int64, value []byte, now int64) int64 {
	l := c.g.ledger
	st, err := DecodeStamp(value)
	if err != nil {
		l.Skip(part, offset)
		if isSettle(value) {
			return 0
		}
		l.Foreign++
		return 1
	}
	if !c.run.own.Contains(int(st.Producer)) { // another process's producer: never in a share run
		l.Foreign++
		l.Skip(part, offset)
		return 1
	}
	ph := c.run.phase(st.Intended)
	c.e2eRun[ph].Record(now - st.Intended) // a poll's or a response's latencies come in runs
	l.ObserveLane(part, offset, st.Producer, st.Lane, st.Seq, ph)
	return 1
}

// recycle hands records back to the client's pools (recordPools); a record that came from no
// pool is left as it is.
func recycle(recs []*kgo.Record) {
	for _, r := range recs {
		r.Recycle()
	}
}
