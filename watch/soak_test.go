package watch

import (
	"context"
	"runtime"
	"testing"
	"time"

	"github.com/plimsoll/plimsoll/probe"
)

// generating is a probe that has taken one sample a second (the recorded ones, over and over,
// shifted in time) up to the clock's now, and hands out those not taken yet.
type generating struct {
	rec   *probe.Series
	clk   *fakeClock
	start time.Time
	next  int // seconds observed so far
}

func (g *generating) Take() *probe.Series {
	w := *g.rec
	w.Samples = nil
	for ; !g.start.Add(time.Duration(g.next+1) * time.Second).After(g.clk.now); g.next++ {
		x := g.rec.Samples[g.next%len(g.rec.Samples)]
		shift := g.start.Add(time.Duration(g.next) * time.Second).Sub(x.Start)
		x.Start, x.Time = x.Start.Add(shift), x.Time.Add(shift)
		w.Samples = append(w.Samples, x)
	}
	return &w
}

// TestWatchSoak: six simulated hours of watch at --interval 10s: every second's sample is
// summarised once, in its own interval, and watch's live heap does not grow from the first hour
// to the sixth (it keeps no history: the probe forgets what watch took, TestTakeSoak).
func TestWatchSoak(t *testing.T) {
	rec := recorded(t)
	start := rec.Samples[0].Start
	clk := &fakeClock{now: start}
	src := &generating{rec: rec, clk: clk, start: start}
	var n, samples int
	var firstHour int64
	err := Run(context.Background(), src, Config{Interval: 10 * time.Second, For: 6 * time.Hour, Clock: clk}, func(iv Interval) error {
		n++
		samples += iv.Samples
		if iv.Samples != 10 {
			t.Fatalf("interval %d holds %d samples, want 10", iv.Seq, iv.Samples)
		}
		if n == 360 {
			firstHour = heapAfterGC()
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if n != 2160 || samples != 6*3600 {
		t.Errorf("%d intervals of %d samples, want 2160 of 21600", n, samples)
	}
	if grown := heapAfterGC() - firstHour; grown > 1<<20 {
		t.Errorf("watch's live heap grew %d bytes from the first hour to the sixth", grown)
	}
}

func heapAfterGC() int64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return int64(m.HeapAlloc)
}
