package trial

import (
	"context"
	"strings"
	"time"

	"github.com/plimsoll/plimsoll/fault"
	"github.com/plimsoll/plimsoll/loadgen"
	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// startFaults arranges for cfg's planned faults to start with the producers (through
// opts.Started) and returns the function that ends the schedule when the run is over: it
// stops the ISR watch, waits for every fault to have ended (a killed broker restarted) and
// returns the windows. Without faults it returns a function returning nil.
func startFaults(ctx context.Context, cfg Config, opts *loadgen.Options) func() []fault.Window {
	if len(cfg.Faults) == 0 || cfg.FaultTarget == nil {
		return func() []fault.Window { return nil }
	}
	var run *faultRun
	prev := opts.Started
	opts.Started = func(producers, window time.Time) {
		if prev != nil {
			prev(producers, window)
		}
		run = scheduleFaults(ctx, cfg, opts.TopicPrefix, window, producers)
	}
	opts.BeforeCleanup = func() {
		if run != nil {
			run.wait()
		}
	}
	return func() []fault.Window {
		if run == nil {
			return nil
		}
		return run.stop()
	}
}

// faultRun is a schedule of planned faults running beside a trial's load.
type faultRun struct {
	cancel   context.CancelFunc
	done     chan []fault.Window
	windows  []fault.Window
	finished bool
	closeISR func()
}

// scheduleFaults starts cfg's faults on cfg.FaultTarget, each at its time from the window's
// start, watching the ISR of the topics under prefix after each.
func scheduleFaults(ctx context.Context, cfg Config, prefix string, window, producers time.Time) *faultRun {
	fctx, cancel := context.WithCancel(ctx)
	isr, closeISR := isrReader(cfg, prefix)
	r := &faultRun{cancel: cancel, done: make(chan []fault.Window, 1), closeISR: closeISR}
	s := fault.Schedule{Plan: cfg.Faults, Target: cfg.FaultTarget, Clock: fault.WallClock, ISRFull: isr, WatchFor: watchFor(cfg)}
	go func() { r.done <- s.Run(fctx, window, producers) }()
	return r
}

// wait waits for every fault to have ended (a killed broker restarted, the ISR watched) and
// returns the windows.
func (r *faultRun) wait() []fault.Window {
	if !r.finished {
		r.windows, r.finished = <-r.done, true
	}
	return r.windows
}

// stop ends what is left of the schedule (a fault not begun is not begun), stops the ISR
// watch and returns the windows.
func (r *faultRun) stop() []fault.Window {
	defer r.closeISR()
	r.cancel()
	return r.wait()
}

// watchFor is how long the ISR is watched after a fault ends: the fault-recovery criterion's
// bound, or 2 minutes when it is off.
func watchFor(cfg Config) time.Duration {
	if s := cfg.Criteria.MaxRecoverySeconds; s > 0 {
		return time.Duration(s * float64(time.Second))
	}
	return 2 * time.Minute
}

// isrReader reads, with a Metadata request to a broker other than avoid, whether every
// partition of the topics starting with prefix has its full ISR; ok is false when that cannot
// be told (no such topic, no other broker, an error).
func isrReader(cfg Config, prefix string) (func(context.Context, int32) (bool, bool), func()) {
	opts, err := cfg.Target.ClientOpts()
	var cl *kgo.Client
	if err == nil {
		cl, err = kgo.NewClient(opts...)
	}
	if err != nil {
		return func(context.Context, int32) (bool, bool) { return false, false }, func() {}
	}
	var ids []int32 // the cluster's brokers, learnt once
	return func(ctx context.Context, avoid int32) (bool, bool) {
		mctx, cancel := context.WithTimeout(ctx, 2*time.Second)
		defer cancel()
		if len(ids) == 0 {
			md, err := kadm.NewClient(cl).BrokerMetadata(mctx)
			if err != nil {
				return false, false
			}
			ids = md.Brokers.NodeIDs()
		}
		for _, id := range ids {
			if id == avoid {
				continue
			}
			resp, err := cl.Broker(int(id)).RetriableRequest(mctx, kmsg.NewPtrMetadataRequest())
			if err != nil {
				return false, false
			}
			return isrFull(resp.(*kmsg.MetadataResponse), prefix)
		}
		return false, false
	}, cl.Close
}

// isrFull tells from a metadata response whether every partition of the topics starting with
// prefix has its full ISR.
func isrFull(md *kmsg.MetadataResponse, prefix string) (full, ok bool) {
	n := 0
	for _, t := range md.Topics {
		if t.Topic == nil || !strings.HasPrefix(*t.Topic, prefix) {
			continue
		}
		if t.ErrorCode != 0 {
			return false, false
		}
		for _, p := range t.Partitions {
			n++
			if p.ErrorCode != 0 || len(p.ISR) < len(p.Replicas) {
				return false, true
			}
		}
	}
	return n > 0, n > 0
}
