package watch

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"slices"
	"testing"
	"time"

	"github.com/plimsoll/plimsoll/probe"
)

// recorded is a probe series of a real 3-broker cluster under load (probe's integration test
// recorded it).
func recorded(t *testing.T) *probe.Series {
	t.Helper()
	b, err := os.ReadFile("../probe/testdata/series-traffic.json")
	if err != nil {
		t.Fatal(err)
	}
	var s probe.Series
	if err := json.Unmarshal(b, &s); err != nil {
		t.Fatal(err)
	}
	return &s
}

// fakeClock jumps to each deadline as soon as Run waits for it; block, when set, makes the
// n-th wait (from 1) never end.
type fakeClock struct {
	now   time.Time
	waits []time.Duration
	block int
}

func (c *fakeClock) Now() time.Time { return c.now }

func (c *fakeClock) After(d time.Duration) <-chan time.Time {
	c.waits = append(c.waits, d)
	ch := make(chan time.Time, 1)
	if len(c.waits) == c.block {
		return ch
	}
	c.now = c.now.Add(d)
	ch <- c.now
	return ch
}

// arriving is a probe that has observed the samples ending by the clock's now; Take hands out
// those not taken yet.
type arriving struct {
	s     *probe.Series
	clk   *fakeClock
	taken int
}

func (a *arriving) Take() *probe.Series {
	w := *a.s
	w.Samples = nil
	for _, x := range a.s.Samples[a.taken:] {
		if x.Time.After(a.clk.now) {
			break
		}
		w.Samples = append(w.Samples, x)
	}
	a.taken += len(w.Samples)
	return &w
}

func collect(t *testing.T, ctx context.Context, clk *fakeClock, cfg Config) []Interval {
	t.Helper()
	cfg.Clock = clk
	var got []Interval
	err := Run(ctx, &arriving{s: recorded(t), clk: clk}, cfg, func(iv Interval) error {
		got = append(got, iv)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return got
}

func TestRunIntervals(t *testing.T) {
	s := recorded(t)
	// Half a second after the probe's start, so each sample arrives well before a deadline.
	start := s.Samples[0].Start.Add(500 * time.Millisecond)
	clk := &fakeClock{now: start}
	got := collect(t, context.Background(), clk, Config{Interval: 5 * time.Second, For: 13 * time.Second})
	// Deadlines at 5 s, 10 s and 13 s (--for cuts the last one short).
	if want := []time.Duration{5 * time.Second, 5 * time.Second, 3 * time.Second}; !slices.Equal(clk.waits, want) {
		t.Errorf("waits %v, want %v", clk.waits, want)
	}
	if len(got) != 3 {
		t.Fatalf("%d intervals, want 3", len(got))
	}
	total := 0
	for i, iv := range got {
		if iv.Seq != i+1 || iv.Final != (i == 2) {
			t.Errorf("interval %d: seq %d final %v", i, iv.Seq, iv.Final)
		}
		if i > 0 && iv.From.Before(got[i-1].To) {
			t.Errorf("interval %d starts at %v, before the previous one ends (%v)", i+1, iv.From, got[i-1].To)
		}
		if iv.To.After(start.Add(min(time.Duration(5*(i+1)), 13) * time.Second)) {
			t.Errorf("interval %d ends at %v, after its deadline", i+1, iv.To)
		}
		total += iv.Samples
	}
	if total != len(s.Samples) {
		t.Errorf("%d samples summarised, the probe took %d: each must count once", total, len(s.Samples))
	}
	if got[0].Samples != 5 || got[1].Samples != 5 || got[2].Samples != 3 {
		t.Errorf("samples per interval %d %d %d, want 5 5 3", got[0].Samples, got[1].Samples, got[2].Samples)
	}
}

// A signal (ctx ends) during the second interval emits what arrived so far as the last
// interval, and Run returns nil: being stopped is how a watch ends.
func TestRunStopped(t *testing.T) {
	s := recorded(t)
	clk := &fakeClock{now: s.Samples[0].Start.Add(500 * time.Millisecond), block: 2}
	ctx, cancel := context.WithCancel(context.Background())
	cfg := Config{Interval: 4 * time.Second, Clock: clk}
	var got []Interval
	err := Run(ctx, &arriving{s: s, clk: clk}, cfg, func(iv Interval) error {
		got = append(got, iv)
		clk.now = clk.now.Add(3 * time.Second) // three more samples arrive, then the signal
		cancel()
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got[0].Samples != 4 || got[1].Samples != 3 || got[0].Final || !got[1].Final {
		t.Fatalf("intervals %d; want 2: 4 samples, then 3 final", len(got))
	}
}

func TestRunEmitError(t *testing.T) {
	clk := &fakeClock{now: recorded(t).Samples[0].Start}
	boom := errors.New("stdout closed")
	err := Run(context.Background(), &arriving{s: recorded(t), clk: clk}, Config{Interval: 3 * time.Second, Clock: clk},
		func(Interval) error { return boom })
	if !errors.Is(err, boom) {
		t.Fatalf("err %v, want the emit error", err)
	}
}

func TestRunConfig(t *testing.T) {
	for _, cfg := range []Config{{Interval: time.Second}, {Interval: 0}, {Interval: 5 * time.Second, For: -time.Second}} {
		err := Run(context.Background(), nil, cfg, nil)
		if !errors.Is(err, ErrConfig) {
			t.Errorf("%+v: err %v, want ErrConfig", cfg, err)
		}
	}
}
