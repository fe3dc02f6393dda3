package fleet

import (
	"context"
	"errors"
	"fmt"
	"os"
	"runtime"
	"strconv"
	"sync"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/plimsoll/plimsoll/loadgen"
	"github.com/plimsoll/plimsoll/probe"
)

// Worker is the working side of a run: it read the plan, joined, and publishes its reports,
// while it listens for the coordinator's heartbeats.
type Worker struct {
	Plan  Plan
	Share Share

	cl     *kgo.Client
	clock  Clock
	limits Limits
	index  int
	// meter measures the worker's process for each second's report (Process); nil where /proc
	// cannot be read, the figures then missing. meterMu serialises its readings: the baseline
	// at the plan's start is taken on a timer's goroutine.
	meterMu sync.Mutex
	meter   processMeter
	sched   schedMeter // the Go scheduler's latency, for each second's report; nil: not measured

	mu      sync.Mutex
	heard   time.Time // the coordinator's last record read
	ended   string    // the coordinator's end record, when read
	sendErr error     // the first report Feed could not publish
	stop    context.CancelFunc
	done    chan struct{}
}

// Joining says who a worker is: the run it was started for, its index and its plimsoll.
type Joining struct {
	RunID   string
	Index   int
	Version string
	Host    string
	BootID  string // the kernel's boot id (BootID), "" when unknown
}

// Join finds the run's control topic (ErrNoRun after the find limit: the run id is wrong, or
// the coordinator has not started), reads the plan and checks it (Plan.CheckJoin, the index
// within N). A plan it cannot run is refused on the results topic, so that the coordinator
// stops at once, and returned as the error. Otherwise it publishes its join and listens for
// the coordinator until Close. Join creates no topic.
func Join(ctx context.Context, base []kgo.Opt, j Joining, clock Clock, limits Limits) (*Worker, error) {
	if err := CheckRunID(j.RunID); err != nil {
		return nil, err
	}
	if j.Index < 0 {
		return nil, fmt.Errorf("%w: worker index %d; indices count from 0", ErrPlan, j.Index)
	}
	cl, err := kgo.NewClient(fromStart(base, ControlTopic(j.RunID))...)
	if err != nil {
		return nil, err
	}
	w := &Worker{cl: cl, clock: clock, limits: limits, index: j.Index, meter: selfMeter(), sched: probe.NewSchedMeter()}
	if err := w.join(ctx, j); err != nil {
		cl.Close()
		return nil, err
	}
	lctx, stop := context.WithCancel(context.Background())
	w.stop, w.done, w.heard = stop, make(chan struct{}), clock.Now()
	go w.listen(lctx)
	return w, nil
}

func (w *Worker) join(ctx context.Context, j Joining) error {
	if err := w.find(ctx, j.RunID); err != nil {
		return err
	}
	p, err := w.readPlan(ctx, j.RunID)
	if err != nil {
		return err
	}
	w.Plan = p
	w.limits = p.limits(w.limits)
	err = p.CheckJoin(j.RunID, j.Version, w.clock.Now())
	if err == nil {
		w.Share, err = p.Share(j.Index)
	}
	if err != nil {
		refuse := Message{RunID: j.RunID, Worker: j.Index, Kind: KindRefuse, Version: j.Version, Reason: err.Error()}
		return errors.Join(err, w.publish(ctx, refuse))
	}
	return w.publish(ctx, Message{RunID: j.RunID, Worker: j.Index, Kind: KindJoin, Version: j.Version, Host: j.Host, BootID: j.BootID})
}

// find waits for the run's control topic (findTopic).
func (w *Worker) find(ctx context.Context, runID string) error {
	return findTopic(ctx, kadm.NewClient(w.cl), w.clock, w.limits, ControlTopic(runID), "the run id")
}

// readPlan reads the control topic's first record, the plan.
func (w *Worker) readPlan(ctx context.Context, runID string) (Plan, error) {
	deadline := w.clock.Now().Add(w.limits.Find)
	for {
		recs, err := poll(ctx, w.cl, w.limits.Poll)
		if err != nil {
			return Plan{}, err
		}
		if len(recs) > 0 {
			if string(recs[0].Key) != keyPlan {
				return Plan{}, fmt.Errorf("%w: the first record of %s is a %q, not the plan", ErrPlan, ControlTopic(runID), recs[0].Key)
			}
			return DecodePlan(recs[0].Value)
		}
		if !w.clock.Now().Before(deadline) {
			return Plan{}, fmt.Errorf("%w: %s holds no plan after %s", ErrNoRun, ControlTopic(runID), w.limits.Find)
		}
	}
}

// listen reads the coordinator's heartbeats and end until ctx ends.
func (w *Worker) listen(ctx context.Context) {
	defer close(w.done)
	for ctx.Err() == nil {
		recs, err := poll(ctx, w.cl, w.limits.Poll)
		if err != nil && len(recs) == 0 { // the topic deleted, say: no busy loop on its errors
			select {
			case <-ctx.Done():
			case <-time.After(w.limits.Poll):
			}
			continue
		}
		if len(recs) == 0 {
			continue
		}
		now := w.clock.Now()
		w.mu.Lock()
		w.heard = now
		for _, r := range recs {
			if string(r.Key) == keyEnd && w.ended == "" {
				w.ended = string(r.Value)
			}
		}
		w.mu.Unlock()
	}
}

// Err is ErrCoordinatorGone once the coordinator has ended the run or been silent for the
// silence limit: the worker must stop its load and exit.
func (w *Worker) Err() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.ended != "" {
		return fmt.Errorf("%w: %s", ErrCoordinatorGone, w.ended)
	}
	if quiet := w.clock.Now().Sub(w.heard); quiet >= w.limits.Silence {
		return fmt.Errorf("%w: no heartbeat from it for %s (run %s)", ErrCoordinatorGone, quiet.Round(time.Millisecond), w.Plan.RunID)
	}
	return nil
}

// Second publishes one second of the worker's load.
func (w *Worker) Second(ctx context.Context, s Second) error {
	return w.publish(ctx, Message{RunID: w.Plan.RunID, Worker: w.index, Kind: KindSecond, Second: &s})
}

// Final publishes the worker's final report.
func (w *Worker) Final(ctx context.Context, f Final) error {
	return w.publish(ctx, Message{RunID: w.Plan.RunID, Worker: w.index, Kind: KindFinal, Final: &f})
}

// Leave tells the coordinator the worker's run ended before its final report, and why
// (interrupted, or its run failed): the reports fed so far are flushed first, so that the
// coordinator merges them, then a leave record, on which it judges the worker lost at once,
// naming the reason, rather than after the silence limit. Nothing is published after it.
func (w *Worker) Leave(ctx context.Context, reason string) error {
	ferr := w.Flush(ctx)
	return errors.Join(ferr, w.publish(ctx, Message{RunID: w.Plan.RunID, Worker: w.index, Kind: KindLeave, Reason: reason}))
}

// RunOptions are the loadgen options of the worker's share (RunOptions) feeding its reports to
// the results topic (Feed). After the run, Flush says whether they all went out.
func (w *Worker) RunOptions() loadgen.Options {
	o := RunOptions(w.Plan, w.Share)
	o.Feed = w.Feed()
	return o
}

// Feed publishes what the worker's share run feeds, in order, as it comes: each second
// (SecondOf) and the final report (FinalOf). It never blocks the run: the records are produced
// asynchronously on the worker's client (one partition, so they stay in order), and the first
// that fails is kept for Flush.
func (w *Worker) Feed() loadgen.Feed {
	w.startMeter()
	return loadgen.Feed{
		Second: func(s loadgen.FeedSecond) {
			sec := SecondOf(s)
			sec.Process = w.process()
			w.send(Message{RunID: w.Plan.RunID, Worker: w.index, Kind: KindSecond, Second: &sec})
		},
		Final: func(f loadgen.FeedFinal) {
			fin := FinalOf(f, w.Share.Producers)
			w.send(Message{RunID: w.Plan.RunID, Worker: w.index, Kind: KindFinal, Final: &fin})
		},
	}
}

// processMeter measures a process interval by interval (probe.ProcessMeter).
type processMeter interface {
	Read(at time.Time) probe.ProcessUse
}

// schedMeter measures this process's Go scheduler latency interval by interval
// (probe.SchedMeter).
type schedMeter interface {
	Read() *probe.SchedHist
}

// selfMeter meters this process through /proc; nil when it cannot be opened.
func selfMeter() processMeter {
	m, err := probe.NewProcessMeter("/proc", os.Getpid())
	if err != nil {
		return nil
	}
	return m
}

// startMeter takes the meter's baseline at the plan's start, when the share's load begins (at
// once if that has passed), so that the first second's report has figures of its own, not
// missing ones, and none of the idle wait before the start.
func (w *Worker) startMeter() {
	if w.meter == nil && w.sched == nil {
		return
	}
	time.AfterFunc(time.Until(w.Plan.Start), func() { w.read() })
}

// read is the meters' reading now, the wall clock's, not the worker's Clock: the CPU the kernel
// counted is over real time. A meter the worker lacks reads missing.
func (w *Worker) read() (probe.ProcessUse, *probe.SchedHist) {
	w.meterMu.Lock()
	defer w.meterMu.Unlock()
	u := probe.ProcessUse{CPU: probe.Missing, RunQueueWait: probe.Missing}
	if w.meter != nil {
		u = w.meter.Read(time.Now())
	}
	var h *probe.SchedHist
	if w.sched != nil {
		h = w.sched.Read()
	}
	return u, h
}

// process is the worker process's use of its host since the previous reading and the cores it
// may use, for a second's report. Without a baseline the figures are missing; seconds fed
// together (loadgen's catching up after a stall) give the first the whole interval's rates and
// the others, read too soon after it (probe.ProcessMeter.Read), missing ones. The scheduler's
// latencies are counts, not rates: the first of such seconds holds the whole interval's, the
// others only their own (none), so a window's merge still counts each latency once.
func (w *Worker) process() *Process {
	u, h := w.read()
	return &Process{CPU: u.CPU, RunQueueWait: u.RunQueueWait, SchedLatency: h, GOMAXPROCS: runtime.GOMAXPROCS(0), NumCPU: runtime.NumCPU()}
}

// send produces m without waiting for it, keeping the first error.
func (w *Worker) send(m Message) {
	b, err := EncodeMessage(m)
	if err != nil {
		w.failed(err)
		return
	}
	rec := &kgo.Record{Topic: ResultsTopic(m.RunID), Key: []byte(strconv.Itoa(m.Worker)), Value: b}
	w.cl.Produce(context.Background(), rec, func(_ *kgo.Record, err error) {
		if err != nil {
			w.failed(fmt.Errorf("publishing to %s: %w", ResultsTopic(m.RunID), err))
		}
	})
}

func (w *Worker) failed(err error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.sendErr == nil {
		w.sendErr = err
	}
}

// Flush waits until every report Feed handed on is published (or ctx ends) and returns the
// first that could not be.
func (w *Worker) Flush(ctx context.Context) error {
	ferr := w.cl.Flush(ctx)
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.sendErr != nil {
		return w.sendErr
	}
	return ferr
}

// publish produces m and waits until it is acknowledged or ctx ends, whichever is first:
// franz-go's ProduceSync keeps waiting, past a cancelled ctx, while the results topic is
// unknown (deleted by a coordinator that has closed the run: 20 s on kfake).
func (w *Worker) publish(ctx context.Context, m Message) error {
	b, err := EncodeMessage(m)
	if err != nil {
		return err
	}
	rec := &kgo.Record{Topic: ResultsTopic(m.RunID), Key: []byte(strconv.Itoa(m.Worker)), Value: b}
	done := make(chan error, 1)
	w.cl.Produce(ctx, rec, func(_ *kgo.Record, err error) { done <- err })
	select {
	case err = <-done:
	case <-ctx.Done():
		err = ctx.Err()
	}
	if err != nil {
		return fmt.Errorf("publishing to %s: %w", ResultsTopic(m.RunID), err)
	}
	return nil
}

// Close stops listening and closes the worker's client.
func (w *Worker) Close() {
	w.stop()
	<-w.done
	w.cl.Close()
}
