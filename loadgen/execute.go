package loadgen

import (
	"context"
	"errors"
	"fmt"
	"math"
	"runtime"
	"sync"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"
)

// ErrBacklogStalled: in backlog mode the backlog did not reach its size in time.
var ErrBacklogStalled = errors.New("backlog did not build")

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

// startConsumers creates every group's members and starts polling; the caller waits for the
// assignment before producing.
func (r *runner) startConsumers(ctx context.Context, run *runState, c *clients, totalParts int, partBase map[string]int) error {
	cctx, stop := context.WithCancel(context.WithoutCancel(ctx))
	c.stop = stop
	for gi, name := range r.groupNames {
		g := &group{name: name, ledger: newGroupLedger(totalParts, r.spec.Producers)}
		c.groups = append(c.groups, g)
		for ci := range r.spec.ConsumersPerGroup {
			cn := newConsumer(run, g, partBase, r.cset.pollLimit)
			o := append(append([]kgo.Opt{}, r.base...), r.cset.opts...)
			o = append(o, kgo.ConsumerGroup(name), kgo.ConsumeTopics(r.topics...),
				kgo.OnPartitionsAssigned(func(_ context.Context, _ *kgo.Client, m map[string][]int32) { cn.assign(countParts(m)) }),
				kgo.OnPartitionsRevoked(func(_ context.Context, _ *kgo.Client, m map[string][]int32) { cn.assign(-countParts(m)) }),
				kgo.OnPartitionsLost(func(_ context.Context, _ *kgo.Client, m map[string][]int32) { cn.assign(-countParts(m)) }))
			if _, set := r.cset.props.Props["client.id"]; !set {
				o = append(o, kgo.ClientID(fmt.Sprintf("plimsoll-%s-g%d-c%d", r.opts.RunID, gi, ci)))
			}
			cl, err := kgo.NewClient(o...)
			if err != nil {
				return fmt.Errorf("%w: consumer client: %w", ErrSetup, err)
			}
			cn.cl = cl
			c.cons = append(c.cons, cn)
			c.consWG.Add(1)
			go func() { defer c.consWG.Done(); cn.loop(cctx) }()
		}
	}
	return waitAssigned(ctx, c.groups, c.cons, totalParts, r.opts.SetupTimeout)
}

// startProducers creates the producers: the total rate split evenly, each offset by 1/rate
// from the previous one so that together they follow one evenly spaced schedule from t0.
func (r *runner) newProducers(run *runState, c *clients, t0 int64) error {
	n := r.spec.Producers
	for i := range n {
		o := append(append([]kgo.Opt{}, r.base...), r.pset.opts...)
		if _, set := r.pset.props.Props["client.id"]; !set {
			o = append(o, kgo.ClientID(fmt.Sprintf("plimsoll-%s-p%d", r.opts.RunID, i)))
		}
		cl, err := kgo.NewClient(o...)
		if err != nil {
			return fmt.Errorf("%w: producer client: %w", ErrSetup, err)
		}
		pc := Pacer{Start: t0, Rate: r.spec.Rate / float64(n)}
		if r.spec.Rate > 0 {
			pc.Start += int64(float64(i) * 1e9 / r.spec.Rate)
		}
		c.prods = append(c.prods, newProducer(i, run, cl, r.topics, pc, r.payloads, r.keys, r.pset.maxRecs))
	}
	return nil
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
			fctx, cancel := context.WithTimeout(ctx, time.Duration(max(dl+int64(r.opts.DrainTimeout)-run.clock.Now(), 0)))
			_ = p.cl.Flush(fctx)
			cancel()
			p.cl.Close() // fails whatever the flush left
			p.awaitIdle(5 * time.Second)
		}()
	}
	go func() { wg.Wait(); close(done) }()
	return done
}

// execState is what the phase loop tracks.
type execState struct {
	phase                string
	startK, endK         counters
	startGC, endGC       runtime.MemStats
	backlogStart         int64
	resumeAt             int64
	backlogMsgs          int64
	drainedAt            int64
	drainStart, drainEnd int64
	drainComplete        bool
	caughtUp             []bool
	notes                []string
}

// execute runs the clients through the phases and builds the result.
func (r *runner) execute(ctx context.Context) (*Result, error) {
	spec, opts, clk := r.spec, r.opts, r.opts.Clock
	wallBase := time.Now().UnixNano() - clk.Now()
	run := newRunState(clk, wallBase, opts.Seed, spec.Producers)
	run.tick = int64(opts.PacingTick)
	totalParts := r.partitions * len(r.topics)
	partBase := make(map[string]int, len(r.topics))
	for i, t := range r.topics {
		partBase[t] = i * r.partitions
	}
	c := &clients{}
	if err := r.startConsumers(ctx, run, c, totalParts, partBase); err != nil {
		c.closeConsumers()
		return nil, err
	}
	settled, settleNote := r.settle(ctx)
	t0 := clk.Now() + int64(20*time.Millisecond)
	if err := r.newProducers(run, c, t0); err != nil {
		c.closeProducers()
		c.closeConsumers()
		return nil, err
	}
	backlog := spec.BacklogBytes > 0 && len(c.groups) > 0
	warmEnd := t0 + int64(spec.Warmup)
	if !backlog {
		run.measureStart.Store(warmEnd)
		run.measureEnd.Store(warmEnd + int64(spec.Duration))
	}
	col := newCollector(run, c.prods, c.cons, c.groups, r.payloads.size, spec.Rate, t0)
	prodCtx, stopProds := context.WithCancel(ctx)
	defer stopProds()
	prodsDone := r.runProducers(prodCtx, run, c)

	st := &execState{phase: PhaseWarmup, drainedAt: -1, caughtUp: make([]bool, len(c.groups))}
	runErr := r.phases(ctx, run, c, col, st, t0, warmEnd, backlog, prodsDone)

	// Stop everything, then account: producers first (every promise fired), then consumers.
	now := clk.Now()
	if st.endK.t == 0 {
		st.endK = col.read(now)
		runtime.ReadMemStats(&st.endGC)
	}
	if st.drainEnd == 0 {
		st.drainEnd = now
	}
	stopProds()
	<-prodsDone
	c.closeConsumers()
	last := col.tick(clk.Now(), st.phase)
	if opts.Progress != nil {
		opts.Progress(last)
	}
	if st.startK.t == 0 {
		st.startK = st.endK
	}

	res := &Result{RunID: opts.RunID, Notes: st.notes, startWall: time.Unix(0, wallBase+t0)}
	if settleNote != "" {
		res.Notes = append(res.Notes, settleNote)
	}
	r.fill(res, col, c.prods, c.groups, st)
	res.Window = Window{
		SettleSeconds:   settled.Seconds(),
		WarmupSeconds:   spec.Warmup.Seconds(),
		MeasuredSeconds: float64(st.endK.t-st.startK.t) / 1e9,
		DrainSeconds:    float64(st.drainEnd-st.drainStart) / 1e9,
		DrainComplete:   st.drainComplete,
	}
	if ms := run.measureStart.Load(); ms != math.MaxInt64 {
		res.Window.Start = time.Unix(0, wallBase+ms).UTC()
	}
	if st.drainStart == 0 {
		res.Window.DrainSeconds = 0
	}
	if backlog {
		b := &BacklogResult{TargetBytes: spec.BacklogBytes, BuiltBytes: st.backlogMsgs * int64(r.payloads.size), DrainSeconds: -1}
		if st.resumeAt > 0 {
			b.BuildSeconds = float64(st.resumeAt-st.backlogStart) / 1e9
			res.Window.BacklogSeconds = b.BuildSeconds
		}
		if st.drainedAt >= 0 {
			b.Drained, b.DrainSeconds = true, float64(st.drainedAt-st.resumeAt)/1e9
		}
		res.Backlog = b
	}
	if runErr == nil && !st.drainComplete {
		res.Notes = append(res.Notes, fmt.Sprintf("drain timed out after %s: a group had neither consumed every acknowledged message nor reached the end of the log; the rest counts as unconsumed, not lost", opts.DrainTimeout))
	}
	if errors.Is(runErr, ErrInterrupted) {
		res.Interrupted = true
	}
	return res, runErr
}

// phases drives warm-up, backlog, the window and the drain: one wake-up per second for the
// timeline, one at each phase boundary, and every poll while a backlog or the drain is watched.
func (r *runner) phases(ctx context.Context, run *runState, c *clients, col *collector, st *execState,
	t0, warmEnd int64, backlog bool, prodsDone chan struct{}) error {
	spec, opts, clk := r.spec, r.opts, r.opts.Clock
	if spec.Warmup == 0 && !backlog {
		st.phase = PhaseMeasure
	}
	var ends map[string]map[int32]int64
	prodsStopped := false
	// A backlog that takes far longer than its bytes at the target rate predict is stalled.
	buildLimit := int64(2*float64(spec.BacklogBytes)/math.Max(spec.ByteRate(), 1)*1e9) + int64(opts.SetupTimeout)
	nextTick := t0 + int64(time.Second)
	clk.SleepUntil(ctx, t0)
	for {
		now := clk.Now()
		if ctx.Err() != nil {
			return fmt.Errorf("%w: %w", ErrInterrupted, ctx.Err())
		}
		ms, me := run.measureStart.Load(), run.measureEnd.Load()
		switch {
		case st.phase == PhaseWarmup && now >= warmEnd:
			st.phase = PhaseMeasure
			if backlog {
				st.phase, st.backlogStart = PhaseBacklog, now
				for _, cn := range c.cons {
					cn.cl.PauseFetchTopics(r.topics...)
				}
			}
		case st.phase == PhaseBacklog:
			if lag := col.backlog(col.read(now).acked); lag*int64(r.payloads.size) >= spec.BacklogBytes {
				st.backlogMsgs, st.resumeAt = lag, now
				run.measureStart.Store(now)
				run.measureEnd.Store(now + int64(spec.Duration))
				ms, me = now, now+int64(spec.Duration)
				for _, cn := range c.cons {
					cn.cl.ResumeFetchTopics(r.topics...)
				}
				st.phase = PhaseMeasure
			} else if now-st.backlogStart > buildLimit {
				st.backlogMsgs = lag
				return fmt.Errorf("%w: %d of %d bytes after %s; the producers cannot reach the rate, or lower backlog", ErrBacklogStalled,
					lag*int64(r.payloads.size), spec.BacklogBytes, time.Duration(now-st.backlogStart).Round(time.Second))
			}
		}
		if st.phase == PhaseMeasure && st.startK.t == 0 && now >= ms {
			st.startK = col.read(now)
			runtime.ReadMemStats(&st.startGC)
		}
		if backlog && st.phase == PhaseMeasure && st.drainedAt < 0 {
			level := max(int64(float64(st.backlogMsgs)*(1-spec.BacklogDrainRatio)), int64(spec.Rate/10))
			if col.backlog(col.read(now).acked) <= level {
				st.drainedAt = now
			}
		}
		if st.phase == PhaseMeasure && now >= me {
			st.endK = col.read(now)
			runtime.ReadMemStats(&st.endGC)
			st.phase, st.drainStart = PhaseDrain, now
		}
		if st.phase == PhaseDrain {
			if !prodsStopped {
				select {
				case <-prodsDone:
					prodsStopped = true
					ends = r.endOffsets(ctx)
				default:
				}
			}
			if prodsStopped && r.drained(c, st, ends) {
				st.drainComplete, st.drainEnd = true, now
				return nil
			}
			if (prodsStopped && now >= st.drainStart+int64(opts.DrainTimeout)) || now >= st.drainStart+int64(opts.DrainTimeout+10*time.Second) {
				st.drainEnd = now
				return nil
			}
		}
		if now >= nextTick {
			s := col.tick(now, st.phase)
			if opts.Progress != nil {
				opts.Progress(s)
			}
			for nextTick <= now {
				nextTick += int64(time.Second)
			}
		}
		wake := nextTick
		switch st.phase {
		case PhaseWarmup:
			wake = min(wake, warmEnd)
		case PhaseMeasure:
			wake = min(wake, me)
			if st.startK.t == 0 {
				wake = min(wake, ms)
			}
			if backlog && st.drainedAt < 0 {
				wake = min(wake, now+int64(poll))
			}
		case PhaseBacklog, PhaseDrain:
			wake = min(wake, now+int64(poll))
		}
		clk.SleepUntil(ctx, wake)
	}
}

// endOffsets lists the log end offsets once the producers have stopped (they no longer move).
func (r *runner) endOffsets(ctx context.Context) map[string]map[int32]int64 {
	lctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
	defer cancel()
	eo, err := r.adm.ListEndOffsets(lctx, r.topics...)
	if err != nil || eo.Error() != nil {
		return nil
	}
	ends := map[string]map[int32]int64{}
	eo.Each(func(o kadm.ListedOffset) {
		if ends[o.Topic] == nil {
			ends[o.Topic] = map[int32]int64{}
		}
		ends[o.Topic][o.Partition] = o.Offset
	})
	return ends
}

// drained reports whether every group has consumed every acknowledged message, or read to the
// end of the log (then what it did not see is lost). It records each group's position.
func (r *runner) drained(c *clients, st *execState, ends map[string]map[int32]int64) bool {
	done := true
	for gi, g := range c.groups {
		missing, atEnd := r.groupProgress(g, c.prods, ends)
		st.caughtUp[gi] = atEnd || missing == 0
		if !st.caughtUp[gi] {
			done = false
		}
	}
	return done
}

func countParts(m map[string][]int32) int64 {
	var n int64
	for _, ps := range m {
		n += int64(len(ps))
	}
	return n
}

// waitAssigned waits until every group has all partitions assigned and spread over as many
// members as can have one, so that no rebalance is still under way when producing starts.
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
			if n := g.assigned.Load(); n != int64(total) || busy < min(members, total) {
				pending = fmt.Sprintf("group %s has %d of %d partitions assigned, to %d of its %d members", g.name, n, total, busy, members)
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
