package fault

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"
)

// fakeClock jumps to each wake-up time; a cancelled ctx wakes nothing.
type fakeClock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *fakeClock) Now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.now }

func (c *fakeClock) SleepUntil(ctx context.Context, t time.Time) bool {
	if ctx.Err() != nil {
		return false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if t.After(c.now) {
		c.now = t
	}
	return true
}

// fakeTarget records the actions with the clock's time; a restart takes restart.
type fakeTarget struct {
	clk     *fakeClock
	restart time.Duration
	fail    string // the action that fails
	log     []string
}

func (f *fakeTarget) do(what string, id int32) error {
	f.log = append(f.log, fmt.Sprintf("%s %d at %s", what, id, f.clk.Now().Format("05.000")))
	if what == f.fail {
		return fmt.Errorf("%s failed", what)
	}
	return nil
}

func (f *fakeTarget) Kill(id int32) error  { return f.do("kill", id) }
func (f *fakeTarget) Pause(id int32) error { return f.do("pause", id) }
func (f *fakeTarget) Resume(id int32) error {
	return f.do("resume", id)
}
func (f *fakeTarget) Cut(id int32) error       { return f.do("cut", id) }
func (f *fakeTarget) Reconnect(id int32) error { return f.do("reconnect", id) }
func (f *fakeTarget) Restart(_ context.Context, id int32, _ time.Duration) error {
	err := f.do("restart", id)
	f.clk.SleepUntil(context.Background(), f.clk.Now().Add(f.restart))
	return err
}

func TestScheduleRun(t *testing.T) {
	zero := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC) // the producers' start
	window := zero.Add(5 * time.Second)
	for _, tc := range []struct {
		spec      string
		fail      string
		fullAfter int // ISR readings until full; -1 never
		want      []string
		recovery  float64 // -1: none
		errText   string
	}{
		{spec: "kill 2 at 8s for 8s", fullAfter: 4, want: []string{"kill 2 at 13.000", "restart 2 at 21.000"}, recovery: 6.6},
		{spec: "stop 3 at 1s for 2s", fullAfter: 0, want: []string{"pause 3 at 06.000", "resume 3 at 08.000"}, recovery: 0},
		{spec: "cut 1 at 0s for 1s", fullAfter: -1, want: []string{"cut 1 at 05.000", "reconnect 1 at 06.000"}, recovery: -1},
		{spec: "stop 3 at 1s for 2s", fail: "pause", want: []string{"pause 3 at 06.000"}, recovery: -1, errText: "beginning the fault: pause failed"},
	} {
		clk := &fakeClock{now: zero}
		tg := &fakeTarget{clk: clk, restart: 6 * time.Second, fail: tc.fail}
		reads := 0
		isr := func(context.Context, int32) (bool, bool) {
			reads++
			return tc.fullAfter >= 0 && reads > tc.fullAfter, true
		}
		sp, _ := Parse(tc.spec)
		s := Schedule{Plan: []Spec{sp}, Target: tg, Clock: clk, ISRFull: isr, WatchFor: 10 * time.Second}
		ws := s.Run(context.Background(), window, zero)
		w := ws[0]
		if strings.Join(tg.log, "; ") != strings.Join(tc.want, "; ") {
			t.Errorf("%s: actions %q, want %q", tc.spec, tg.log, tc.want)
		}
		if w.Error != tc.errText {
			t.Errorf("%s: error %q, want %q", tc.spec, w.Error, tc.errText)
		}
		switch {
		case tc.recovery < 0 && w.RecoverySeconds != nil:
			t.Errorf("%s: recovery %v, want none", tc.spec, *w.RecoverySeconds)
		case tc.recovery >= 0 && (w.RecoverySeconds == nil || fmt.Sprintf("%.1f", *w.RecoverySeconds) != fmt.Sprintf("%.1f", tc.recovery)):
			t.Errorf("%s: recovery %v, want %.1f s", tc.spec, w.RecoverySeconds, tc.recovery)
		}
		if tc.errText == "" && w.ISRWholeAtEnd != (tc.fullAfter == 0) {
			t.Errorf("%s: ISR whole at the end %v, want %v", tc.spec, w.ISRWholeAtEnd, tc.fullAfter == 0)
		}
		if tc.fullAfter == -1 && (w.WatchedSeconds < 10 || w.WatchedSeconds > 10.5) {
			t.Errorf("%s: watched %.1f s, want about the 10 s WatchFor", tc.spec, w.WatchedSeconds)
		}
	}
}

// TestScheduleKillRecoveryCountsRestart: a killed broker's recovery counts from the fault's end,
// its restart included; its times are also given from the producers' start.
func TestScheduleKillTimes(t *testing.T) {
	zero := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	clk := &fakeClock{now: zero}
	tg := &fakeTarget{clk: clk, restart: 6 * time.Second}
	sp, _ := Parse("kill 2 at 8s for 8s")
	w := Schedule{Plan: []Spec{sp}, Target: tg, Clock: clk, ISRFull: func(context.Context, int32) (bool, bool) { return true, true }}.
		Run(context.Background(), zero.Add(5*time.Second), zero)[0]
	if w.BeganT != 13 || w.EndedT != 21 || w.RecoverySeconds == nil || *w.RecoverySeconds != 6 {
		t.Errorf("began t=%v ended t=%v recovery %v; want 13, 21 and 6 s (the restart)", w.BeganT, w.EndedT, w.RecoverySeconds)
	}
}

// TestScheduleEndsOnCancel: a run that ends during a fault ends it at once (the broker is
// restarted), and a fault not yet begun is never begun.
func TestScheduleEndsOnCancel(t *testing.T) {
	zero := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	clk := &fakeClock{now: zero}
	tg := &fakeTarget{clk: clk}
	ctx, cancel := context.WithCancel(context.Background())
	tg2 := &cancelOnKill{fakeTarget: tg, cancel: cancel}
	sp, _ := Parse("kill 2 at 1s for 30s")
	w := Schedule{Plan: []Spec{sp}, Target: tg2, Clock: clk}.Run(ctx, zero, zero)[0]
	if got := strings.Join(tg.log, "; "); got != "kill 2 at 01.000; restart 2 at 01.000" {
		t.Errorf("actions %q; want the kill ended at once", got)
	}
	if w.Error != "" {
		t.Errorf("error %q", w.Error)
	}
	w = Schedule{Plan: []Spec{sp}, Target: tg2, Clock: clk}.Run(ctx, zero, zero)[0]
	if w.Error == "" || !w.Began.IsZero() {
		t.Errorf("a fault after the run's end: %+v, want it not begun", w)
	}
}

type cancelOnKill struct {
	*fakeTarget
	cancel context.CancelFunc
}

func (c *cancelOnKill) Kill(id int32) error { c.cancel(); return c.fakeTarget.Kill(id) }
