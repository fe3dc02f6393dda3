package fault

import (
	"context"
	"fmt"
	"sync"
	"time"
)

// Target is the cluster a schedule acts on; localkafka's State is one.
type Target interface {
	Kill(id int32) error
	Restart(ctx context.Context, id int32, timeout time.Duration) error
	Pause(id int32) error
	Resume(id int32) error
	Cut(id int32) error
	Reconnect(id int32) error
}

// Clock is the schedule's time: the wall clock, or a test's.
type Clock interface {
	Now() time.Time
	// SleepUntil returns at t, or false early when ctx ends.
	SleepUntil(ctx context.Context, t time.Time) bool
}

type wallClock struct{}

func (wallClock) Now() time.Time { return time.Now() }

func (wallClock) SleepUntil(ctx context.Context, t time.Time) bool {
	tm := time.NewTimer(time.Until(t))
	defer tm.Stop()
	select {
	case <-tm.C:
		return true
	case <-ctx.Done():
		return false
	}
}

// WallClock is the real clock.
var WallClock Clock = wallClock{}

// RecoveryPoll is how often the ISR is read after a fault ends.
const RecoveryPoll = 200 * time.Millisecond

// Schedule executes a plan during a run.
type Schedule struct {
	Plan   []Spec
	Target Target
	Clock  Clock
	// ISRFull reads whether every partition of the run's topics has its full ISR (ok false
	// when that cannot be told, e.g. the topics are gone), asking a broker other than avoid:
	// a broker just resumed or reconnected answers from its stale metadata.
	ISRFull func(ctx context.Context, avoid int32) (full, ok bool)
	// RestartTimeout bounds a killed broker's restart; default 2 minutes.
	RestartTimeout time.Duration
	// WatchFor bounds the ISR watch after a fault's end; 0 watches until ctx ends.
	WatchFor time.Duration
}

// Run executes every fault at its time after window (the measured window's start), each ended
// after its For even when ctx ends first (then at once, so the cluster is whole again), and
// watches the ISR after each end until it is full or ctx ends. It returns when every fault has
// ended and been watched: cancel ctx when the run is over.
func (s Schedule) Run(ctx context.Context, window, producers time.Time) []Window {
	out := make([]Window, len(s.Plan))
	var wg sync.WaitGroup
	for i, sp := range s.Plan {
		wg.Add(1)
		go func() {
			defer wg.Done()
			out[i] = s.one(ctx, sp, window, producers)
		}()
	}
	wg.Wait()
	return out
}

// one executes one fault and watches the recovery.
func (s Schedule) one(ctx context.Context, sp Spec, window, producers time.Time) Window {
	w := Window{Spec: sp.String(), Action: sp.Action, Broker: sp.Broker, AtSeconds: sp.At.Seconds(), ForSeconds: sp.For.Seconds()}
	if !s.Clock.SleepUntil(ctx, window.Add(sp.At)) {
		w.Error = "not begun: the run ended first"
		return w
	}
	w.Began = s.Clock.Now()
	if err := s.begin(sp); err != nil {
		w.Error = fmt.Sprintf("beginning the fault: %v", err)
		return w
	}
	s.Clock.SleepUntil(ctx, w.Began.Add(sp.For))
	if s.ISRFull != nil {
		full, ok := s.ISRFull(context.WithoutCancel(ctx), sp.Broker)
		w.ISRWholeAtEnd = ok && full
	}
	w.Ended = s.Clock.Now()
	if err := s.end(context.WithoutCancel(ctx), sp); err != nil {
		w.Error = fmt.Sprintf("ending the fault: %v", err)
	}
	w.BeganT, w.EndedT = w.Began.Sub(producers).Seconds(), w.Ended.Sub(producers).Seconds()
	s.watch(ctx, &w)
	return w
}

func (s Schedule) begin(sp Spec) error {
	switch sp.Action {
	case Kill:
		return s.Target.Kill(sp.Broker)
	case Stop:
		return s.Target.Pause(sp.Broker)
	case Cut:
		return s.Target.Cut(sp.Broker)
	}
	return fmt.Errorf("unknown action %q", sp.Action)
}

func (s Schedule) end(ctx context.Context, sp Spec) error {
	switch sp.Action {
	case Kill:
		timeout := s.RestartTimeout
		if timeout <= 0 {
			timeout = 2 * time.Minute
		}
		return s.Target.Restart(ctx, sp.Broker, timeout)
	case Stop:
		return s.Target.Resume(sp.Broker)
	case Cut:
		return s.Target.Reconnect(sp.Broker)
	}
	return fmt.Errorf("unknown action %q", sp.Action)
}

// watch polls the ISR from the fault's end until it is full, recording when.
func (s Schedule) watch(ctx context.Context, w *Window) {
	if s.ISRFull == nil {
		return
	}
	for {
		if full, ok := s.ISRFull(ctx, w.Broker); ok && full {
			at := s.Clock.Now()
			w.ISRFull = &at
			sec := at.Sub(w.Ended).Seconds()
			w.RecoverySeconds = &sec
			return
		}
		now := s.Clock.Now()
		w.WatchedSeconds = now.Sub(w.Ended).Seconds()
		if s.WatchFor > 0 && now.Sub(w.Ended) >= s.WatchFor || !s.Clock.SleepUntil(ctx, now.Add(RecoveryPoll)) {
			return
		}
	}
}
