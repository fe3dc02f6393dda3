package loadgen

import (
	"context"
	"errors"
	"fmt"
	"math"
	"runtime"
	"sync"
	"time"

	"github.com/plimsoll/plimsoll/loadgen/ledger"
	"github.com/plimsoll/plimsoll/loadgen/pace"
	"github.com/plimsoll/plimsoll/loadgen/topics"
	"github.com/twmb/franz-go/pkg/kgo"
)

// ErrBacklogStalled: in backlog mode the backlog did not reach its size in time.
var ErrBacklogStalled = errors.New("backlog did not build")

// Errors of the set-up, the same values as package topics' (errors.Is works with either).
var (
	// ErrTopicsExist: topics with the run's prefix already exist; Run refuses to produce into
	// topics it did not create.
	ErrTopicsExist = topics.ErrTopicsExist
	// ErrBadPrefix: Options.TopicPrefix breaks the prefix rule (topics.CheckPrefix).
	ErrBadPrefix = topics.ErrBadPrefix
	// ErrSetup: the cluster did not get ready (topic creation, leaders, group assignment).
	ErrSetup = topics.ErrSetup
)

// Phase names, as the timeline shows them.
const (
	PhaseWarmup  = "warmup"  // load before the window; excluded from every figure
	PhaseBacklog = "backlog" // building the backlog with consumers paused; excluded
	PhaseMeasure = "measure" // the measured window
	PhaseDrain   = "drain"   // after the window: producers flush, consumers catch up
)

// poll is how often the phase loop checks a backlog or the drain.
const poll = 50 * time.Millisecond

// clients are a run's producers and consumers.
type clients struct {
	groups []*group
	cons   []*consumer
	consWG sync.WaitGroup
	stop   context.CancelFunc
	prods  []*producer
}

func (c *clients) closeConsumers() {
	if c.stop != nil {
		c.stop()
	}
	for _, cn := range c.cons {
		cn.cl.Close()
	}
	c.consWG.Wait()
	c.cons = nil
}

func (c *clients) closeProducers() {
	for _, p := range c.prods {
		p.cl.Close()
	}
	c.prods = nil
}

// startConsumers creates every group's members (the share's) and starts polling; the caller
// waits for the assignment before producing.
func (r *runner) startConsumers(ctx context.Context, run *runState, c *clients, totalParts int, partBase map[string]int) error {
	cctx, stop := context.WithCancel(context.WithoutCancel(ctx))
	c.stop = stop
	for gi, name := range r.groupNames {
		g := &group{name: name, ledger: ledger.NewGroup(totalParts, r.spec.Producers)}
		c.groups = append(c.groups, g)
		for ci := r.share.Consumers.Lo; ci < r.share.Consumers.Hi; ci++ {
			cn := newConsumer(run, g, partBase, r.clients.Consumer.PollLimit)
			if r.ownFetch() {
				cn.newOwnFetch(&r.clients.Consumer, totalParts)
			}
			cl, err := kgo.NewClient(r.consumerOpts(cn, name, gi, ci)...)
			if err != nil {
				return fmt.Errorf("%w: consumer client: %w", ErrSetup, err)
			}
			cn.cl = cl
			if cn.fetcher != nil {
				cn.bindOwnFetch(cl, r.topics)
				if r.clients.Consumer.AutoCommit {
					go cn.autoCommit(cctx, r.clients.Consumer.AutoCommitInterval)
				}
			}
			c.cons = append(c.cons, cn)
			c.consWG.Add(1)
			go func() { defer c.consWG.Done(); cn.loop(cctx) }()
		}
	}
	own := r.share.Partitions.Len() * len(r.topics)
	if err := waitAssigned(ctx, c.groups, c.cons, own, r.opts.SetupTimeout); err != nil {
		if ctx.Err() == nil {
			err = r.withSilent(ctx, err)
		}
		return err
	}
	return nil
}

// consumerOpts are the options of consumer ci of group gi (global indices): the run's, the
// consumer configuration's, the record pools, the group with its callbacks (the resume from the
// member's own positions among them), and the share's balancer if any.
func (r *runner) consumerOpts(cn *consumer, name string, gi, ci int) []kgo.Opt {
	own := r.share.Partitions
	o := append(append([]kgo.Opt{}, r.base...), r.clients.Consumer.Opts()...)
	o = append(o, poolOpts()...)
	o = append(o, kgo.ConsumerGroup(name), kgo.ConsumeTopics(r.topics...),
		kgo.OnPartitionsAssigned(func(_ context.Context, _ *kgo.Client, m map[string][]int32) { cn.assign(countParts(m, own)) }),
		kgo.OnPartitionsRevoked(func(ctx context.Context, cl *kgo.Client, m map[string][]int32) {
			cn.unassign(countParts(m, own))
			if cn.fetcher == nil {
				r.commitOnRevoke(ctx, cl)
				return
			}
			pos := cn.ownRevoked(m)
			if r.commitsOnRevoke() && len(pos) > 0 {
				cl.CommitOffsetsSync(ctx, pos, nil)
			}
		}),
		kgo.OnPartitionsLost(func(_ context.Context, _ *kgo.Client, m map[string][]int32) {
			cn.unassign(countParts(m, own))
			if cn.fetcher != nil {
				cn.ownRevoked(m)
			}
		}),
		kgo.AdjustFetchOffsetsFn(func(ctx context.Context, fetched map[string]map[int32]kgo.Offset) (map[string]map[int32]kgo.Offset, error) {
			offs, err := cn.resume(ctx, fetched)
			if cn.fetcher != nil {
				cn.ownAssigned(offs)
			}
			return offs, err
		}))
	if r.opts.Share != nil {
		o = append(o, kgo.Balancers(r.share.Balancer))
	}
	if r.clients.Consumer.ClientID == "" {
		o = append(o, kgo.ClientID(fmt.Sprintf("plimsoll-%s-g%d-c%d", r.opts.RunID, gi, ci)))
	}
	return o
}

// commitOnRevoke commits what a consumer has polled before its partitions are revoked, as
// franz-go does by default with autocommit on when no OnPartitionsRevoked is set (setting one,
// to count assignments, turned that off). Without it, a rebalance makes the group's members
// read their partitions again from the last periodic commit, counting every message since as
// redelivered: in a share run each worker's leave after its own drain causes one. A share run
// commits with autocommit off too: the workers' ledgers must stay exact. Best effort: a failed
// commit shows as redelivered messages. A member that loses its session cannot commit; it
// resumes from its own positions instead (consumer.resume).
func (r *runner) commitOnRevoke(ctx context.Context, cl *kgo.Client) {
	if r.commitsOnRevoke() {
		_ = cl.CommitUncommittedOffsets(ctx)
	}
}

// commitsOnRevoke reports whether a member commits what it has read before its partitions are
// revoked (commitOnRevoke; with plimsoll's own fetch path, the fetcher's positions).
func (r *runner) commitsOnRevoke() bool { return r.opts.Share != nil || r.clients.Consumer.AutoCommit }

// ownFetch reports whether the run's consumers read through plimsoll's own fetch path
// (Options.ConsumerFetch).
func (r *runner) ownFetch() bool { return consumerFetch(r.opts.ConsumerFetch) == FetchPlimsoll }

// newProducers creates the share's producers: each runs at the whole rate's share of one
// producer, offset by 1/rate from the previous one, so that together the whole workload's
// producers follow one evenly spaced schedule from t0.
func (r *runner) newProducers(run *runState, c *clients, t0 int64) error {
	n := r.spec.Producers
	for i := r.share.Producers.Lo; i < r.share.Producers.Hi; i++ {
		win := r.windowMeter()
		cl, err := kgo.NewClient(append(r.producerOpts(i), kgo.WithHooks(win))...)
		if err != nil {
			return fmt.Errorf("%w: producer client: %w", ErrSetup, err)
		}
		pc := pace.Pacer{Start: t0, Rate: r.spec.Rate / float64(n)}
		if r.spec.Rate > 0 {
			pc.Start += int64(float64(i) * 1e9 / r.spec.Rate)
		}
		p := newProducer(i, run, cl, r.topics, pc, r.payloads, r.keys, r.clients.Producer.MaxBufferedRecords)
		p.win = win
		c.prods = append(c.prods, p)
		if r.opts.LeanProducer {
			if err := r.leanProducer(p, i); err != nil {
				return err
			}
		}
	}
	return nil
}

// leanProducer puts producer i on plimsoll's own produce path, on a client of its own with the
// run's connection options (its franz-go producer client stays idle), metered by a window
// meter of its own. Its pool holds one chunk: the records only stage each message.
func (r *runner) leanProducer(p *producer, i int) error {
	o := append([]kgo.Opt{}, r.base...)
	if r.clients.Producer.ClientID == "" {
		o = append(o, kgo.ClientID(fmt.Sprintf("plimsoll-%s-p%d", r.opts.RunID, i)))
	}
	cfg, err := leanConfig(&r.clients.Producer, o, r.topics, r.opts.Clock.Now)
	if err != nil {
		return err
	}
	// The window meter watches every session's client: up to MaxInFlight per broker each, so
	// the producer's window is full only when its last session's is.
	win := newWindowMeter(cfg.MaxInFlight*cfg.Sessions, int32(cfg.BatchBytes), int32(r.payloads.size+r.keys.maxLen()+recordOverhead), r.opts.Clock.Now)
	cfg.Opts = append(cfg.Opts, kgo.WithHooks(win))
	cfg.BatchAcked = func(n int) {
		win.batches.Add(1)
		if int64(n)+int64(win.record) > int64(win.batchMax) {
			win.full.Add(1)
		}
	}
	part := r.clients.Producer.KgoPartitioner()
	if r.opts.Share != nil {
		part = ownPartitions(part, r.share.Partitions)
	}
	ctx, cancel := context.WithTimeout(context.Background(), r.opts.SetupTimeout)
	defer cancel()
	s, err := newLeanSink(ctx, p, cfg, part)
	if err != nil {
		return err
	}
	p.lean, p.maxLive, p.win = s, chunkMax, win
	return nil
}

// producerOpts are the options of producer i (a global index): the run's, the producer
// configuration's, and in a share run its partitioner restricted to the share's partitions.
func (r *runner) producerOpts(i int) []kgo.Opt {
	o := append(append([]kgo.Opt{}, r.base...), r.clients.Producer.Opts()...)
	if r.opts.Share != nil {
		o = append(o, kgo.RecordPartitioner(ownPartitions(r.clients.Producer.KgoPartitioner(), r.share.Partitions)))
	}
	if r.clients.Producer.ClientID == "" {
		o = append(o, kgo.ClientID(fmt.Sprintf("plimsoll-%s-p%d", r.opts.RunID, i)))
	}
	return o
}

// runProducers starts every producer's loop; after it, a producer flushes (until the drain
// deadline), closes its client and waits for its last promise. done closes when all have.
func (r *runner) runProducers(ctx context.Context, run *runState, c *clients) (done chan struct{}) {
	done = make(chan struct{})
	var wg sync.WaitGroup
	for _, p := range c.prods {
		wg.Add(1)
		go func() {
			defer wg.Done()
			p.loop(ctx)
			dl := run.measureEnd.Load()
			if dl == math.MaxInt64 {
				dl = run.clock.Now()
			}
			p.finish(ctx, dl+int64(r.opts.DrainTimeout), idleWait)
		}()
	}
	go func() { wg.Wait(); close(done) }()
	return done
}

// execution is one run's moving parts, from the start of its clients to the result.
type execution struct {
	run        *runState
	c          *clients
	col        *collector
	wallBase   int64 // Unix ns at the clock's zero
	t0         int64 // clock time of the producers' start
	warmEnd    int64 // clock time at the end of the warm-up
	backlog    bool  // backlog mode: consumers paused after the warm-up until the backlog is built
	prodsDone  chan struct{}
	stopProds  context.CancelFunc
	settled    time.Duration
	settleNote string
}

// execute runs the clients through the phases and builds the result.
func (r *runner) execute(ctx context.Context) (*Result, error) {
	x, err := r.launch(ctx)
	if err != nil {
		return nil, err
	}
	defer x.stopProds()
	st := &execState{phase: PhaseWarmup, drainedAt: -1, caughtUp: make([]bool, len(x.c.groups))}
	runErr := r.phases(ctx, x, st)
	r.stop(x, st)
	res := r.result(x, st, runErr)
	if runErr == nil && r.opts.Feed.Final != nil {
		f, err := feedFinal(res, x.c.groups, x.col.windowOf(st.startK, st.endK))
		if err != nil {
			return res, err
		}
		r.opts.Feed.Final(f)
	}
	return res, runErr
}

// launch starts the consumers (and waits for their assignment), settles the topics, and starts
// the producers on their schedule and the collector.
func (r *runner) launch(ctx context.Context) (*execution, error) {
	spec, opts, clk := r.spec, r.opts, r.opts.Clock
	x := &execution{wallBase: time.Now().UnixNano() - clk.Now(), c: &clients{}}
	x.run = newRunState(clk, x.wallBase, opts.Seed, spec.Producers)
	x.run.own = r.share.Producers
	x.run.tick = int64(opts.PacingTick)
	totalParts := r.partitions * len(r.topics)
	partBase := make(map[string]int, len(r.topics))
	for i, t := range r.topics {
		partBase[t] = i * r.partitions
	}
	if err := r.startConsumers(ctx, x.run, x.c, totalParts, partBase); err != nil {
		x.c.closeConsumers()
		return nil, err
	}
	var err error
	x.settled, x.settleNote, err = r.settle(ctx)
	if err != nil {
		x.c.closeConsumers()
		return nil, err
	}
	if x.t0, err = r.start(x.wallBase); err != nil {
		x.c.closeConsumers()
		return nil, err
	}
	if err := r.newProducers(x.run, x.c, x.t0); err != nil {
		x.c.closeProducers()
		x.c.closeConsumers()
		return nil, err
	}
	x.backlog = spec.BacklogBytes > 0 && len(x.c.groups) > 0
	x.warmEnd = x.t0 + int64(spec.Warmup)
	if !x.backlog {
		x.run.measureStart.Store(x.warmEnd)
		x.run.measureEnd.Store(x.warmEnd + int64(spec.Duration))
	}
	x.col = newCollector(x.run, x.c.prods, x.c.cons, x.c.groups, r.payloads.size, r.share.rate(spec), x.t0)
	x.col.log.Start = time.Unix(0, x.wallBase+x.t0)
	x.col.warmEnd = x.warmEnd
	x.col.log.SpillDir = opts.SpillDir
	x.col.feeding = opts.Feed.Second != nil
	if opts.SpillDir != "" {
		x.col.timeline.SpillTo(opts.SpillDir, 0)
	}
	if opts.Started != nil {
		opts.Started(x.col.log.Start, time.Unix(0, x.wallBase+x.warmEnd))
	}
	prodCtx, stopProds := context.WithCancel(ctx)
	x.stopProds = stopProds
	x.prodsDone = r.runProducers(prodCtx, x.run, x.c)
	return x, nil
}

// start is the clock time of the producers' start: shortly after now, or a share's absolute
// start (an error if it has passed).
func (r *runner) start(wallBase int64) (int64, error) {
	now := r.opts.Clock.Now()
	if r.opts.Share == nil {
		return now + int64(20*time.Millisecond), nil
	}
	return startAt(r.opts.Share.Start, wallBase, now)
}

// stop ends the run: it takes the window's closing readings if the phases did not, stops the
// producers (every promise fired) and then the consumers, and closes the last second.
func (r *runner) stop(x *execution, st *execState) {
	clk := r.opts.Clock
	now := clk.Now()
	if st.endK.t == 0 {
		st.endK = x.col.read(now)
		runtime.ReadMemStats(&st.endGC)
		if st.startK.t != 0 { // the window was cut short: nothing was intended after now
			st.windowEnd = min(x.run.measureEnd.Load(), now)
		}
	}
	if st.drainEnd == 0 {
		st.drainEnd = now
	}
	x.stopProds()
	<-x.prodsDone
	x.c.closeConsumers()
	r.report(x, x.col.tick(clk.Now(), st.phase))
	if st.startK.t == 0 {
		st.startK = st.endK
	}
}

// countParts counts the partitions of an assignment change inside own and outside it (another
// process's: a share's consumer must never be given one).
func countParts(m map[string][]int32, own Range) (in, out int64) {
	for _, ps := range m {
		for _, p := range ps {
			if own.Contains(int(p)) {
				in++
			} else {
				out++
			}
		}
	}
	return in, out
}

// waitAssigned waits until every group has all total partitions (its own, in a share run)
// assigned, none of another process's, spread over as many members as can have one, so that
// no rebalance is still under way when producing starts.
func waitAssigned(ctx context.Context, groups []*group, cons []*consumer, total int, timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	for {
		pending := ""
		for _, g := range groups {
			members, busy := 0, 0
			for _, c := range cons {
				if c.g == g {
					members++
					if c.assigned.Load() > 0 {
						busy++
					}
				}
			}
			if n, stray := g.assigned.Load(), g.stray.Load(); n != int64(total) || stray != 0 || busy < min(members, total) {
				pending = fmt.Sprintf("group %s has %d of %d partitions assigned, to %d of its %d members", g.name, n, total, busy, members)
				if stray != 0 {
					pending += fmt.Sprintf(", and %d partitions of another worker", stray)
				}
				break
			}
		}
		if pending == "" {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("%w: after %s %s", ErrSetup, timeout, pending)
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("%w: waiting for group assignment: %w", ErrInterrupted, ctx.Err())
		case <-time.After(poll):
		}
	}
}

// windowMeter is a producer's protocol-window meter: one request in flight per broker for an
// idempotent producer, max.in.flight.requests.per.connection otherwise, none metered with acks=0
// (no responses). One more record adds its value and key plus at most recordOverhead bytes to a
// batch.
func (r *runner) windowMeter() *windowMeter {
	p := r.clients.Producer
	limit := 1
	if !p.Idempotent {
		limit = p.MaxInFlight
	}
	if p.Acks == "0" {
		limit = 0
	}
	return newWindowMeter(limit, int32(p.BatchMaxBytes), int32(r.payloads.size+r.keys.maxLen()+recordOverhead), r.opts.Clock.Now)
}

// recordOverhead bounds a record's framing inside a batch: length, attributes, timestamp and
// offset deltas, key and value lengths (varints) and the header count.
const recordOverhead = 21
