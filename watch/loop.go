package watch

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/plimsoll/plimsoll/probe"
)

// Clock is the time the intervals are cut by; RealClock in use, a fake in tests.
type Clock interface {
	Now() time.Time
	After(d time.Duration) <-chan time.Time
}

// RealClock is the system's clock.
type RealClock struct{}

// Now is time.Now.
func (RealClock) Now() time.Time { return time.Now() }

// After is time.After.
func (RealClock) After(d time.Duration) <-chan time.Time { return time.After(d) }

// Source is what observes the cluster: a *probe.Probe. Take returns the samples since the last
// Take and forgets them, so a watch of any length holds one interval's samples, never its whole
// history (6 hours of 3 brokers' samples are about 80 MB: TestCutterSoak).
type Source interface {
	Take() *probe.Series
}

// Config says how often to summarise and for how long.
type Config struct {
	// Interval between summaries; at least MinInterval.
	Interval time.Duration
	// For ends the watch after this long (the last interval cut short); 0 watches until ctx ends.
	For      time.Duration
	Ceilings Ceilings
	// Clock defaults to RealClock.
	Clock Clock
}

// MinInterval is the shortest interval: the probe samples once a second, so a shorter one
// would summarise a single sample or none.
const MinInterval = 2 * time.Second

// ErrConfig is returned for a Config value Run cannot work with.
var ErrConfig = errors.New("invalid watch config")

// Run summarises the samples src gathered since the previous interval every Interval, from the
// moment it is called, and hands each summary to emit. Every sample is summarised exactly once,
// in the interval during which it arrived. It returns nil when For has passed or ctx ends (after
// emitting what arrived since the last interval, if anything), or emit's error.
func Run(ctx context.Context, src Source, cfg Config, emit func(Interval) error) error {
	if cfg.Interval < MinInterval {
		return fmt.Errorf("%w: Interval %v: at least %v", ErrConfig, cfg.Interval, MinInterval)
	}
	if cfg.For < 0 {
		return fmt.Errorf("%w: For %v: 0 (until stopped) or more", ErrConfig, cfg.For)
	}
	clk := cfg.Clock
	if clk == nil {
		clk = RealClock{}
	}
	start := clk.Now()
	c := cutter{src: src, ceilings: cfg.Ceilings}
	for k := 1; ; k++ {
		next, last := start.Add(time.Duration(k)*cfg.Interval), false
		if end := start.Add(cfg.For); cfg.For > 0 && !next.Before(end) {
			next, last = end, true
		}
		select {
		case <-ctx.Done():
			if iv, ok := c.cut(true); ok && iv.Samples > 0 {
				return emit(iv)
			}
			return nil
		case <-clk.After(next.Sub(clk.Now())):
		}
		if iv, ok := c.cut(last); ok {
			if err := emit(iv); err != nil {
				return err
			}
		}
		if last {
			return nil
		}
	}
}

// cutter hands out the samples that arrived since its last cut.
type cutter struct {
	src      Source
	ceilings Ceilings
	seq      int
}

// cut summarises the new samples; an interval with none is still emitted (the probe fell
// silent, which a reader must see), false only when nothing was ever observed.
func (c *cutter) cut(final bool) (Interval, bool) {
	s := c.src.Take()
	if s == nil {
		return Interval{}, false
	}
	c.seq++
	iv := Summarise(s, c.ceilings)
	iv.Seq, iv.Final = c.seq, final
	return iv, true
}
