package pace

import (
	"context"
	"math"
	"sort"
	"testing"
	"time"
)

// fakeClock is a Clock that moves only when told to; SleepUntil jumps to the wake time.
type fakeClock struct {
	now int64
}

func (c *fakeClock) Now() int64 { return c.now }
func (c *fakeClock) SleepUntil(_ context.Context, t int64) {
	if t > c.now {
		c.now = t
	}
}

func TestPacerIntendedExact(t *testing.T) {
	for _, tc := range []struct {
		rate  float64
		start int64
		i     uint64
		want  int64
	}{
		{1000, 0, 0, 0},
		{1000, 0, 1, 1_000_000},
		{1000, 5, 1_000_000, 5 + 1_000_000_000_000},
		{3, 0, 1, 333_333_333},
		{3, 0, 2, 666_666_666},
		{3, 0, 3, 1_000_000_000},
		{1e6, 100, 123_456_789, 100 + 123_456_789_000},
		{2500, 0, 2500 * 3600, 3600 * 1e9}, // an hour in, still on the nanosecond
		{0.5, 0, 1, 2_000_000_000},
	} {
		p := Pacer{Start: tc.start, Rate: tc.rate}
		if got := p.Intended(tc.i); got != tc.want {
			t.Errorf("rate %v: Intended(%d) = %d, want %d", tc.rate, tc.i, got, tc.want)
		}
	}
}

func TestPacerDueAgreesWithIntended(t *testing.T) {
	for _, rate := range []float64{1, 3, 7, 1000, 33333.3, 1e6} {
		p := Pacer{Start: 1000, Rate: rate}
		for _, now := range []int64{0, 999, 1000, 1001, 1_000_000, 123_456_789, 1_000_000_000, 7_777_777_777} {
			due := p.Due(now, math.MaxInt64)
			// Every message before due is intended at or before now, the next one after.
			if due > 0 && p.Intended(due-1) > now {
				t.Errorf("rate %v now %d: due %d but message %d is intended at %d", rate, now, due, due-1, p.Intended(due-1))
			}
			if now >= p.Start && p.Intended(due) <= now {
				t.Errorf("rate %v now %d: due %d but message %d is already intended at %d", rate, now, due, due, p.Intended(due))
			}
		}
	}
}

func TestPacerEndBound(t *testing.T) {
	p := Pacer{Start: 0, Rate: 1000} // every 1 ms
	if got := p.Due(10_000_000, 5_000_000); got != 5 {
		t.Errorf("Due past the end = %d, want 5 (messages at 0..4 ms; the one at 5 ms is outside)", got)
	}
	if got := p.Due(3_500_000, 5_000_000); got != 4 {
		t.Errorf("Due(3.5ms) = %d, want 4", got)
	}
}

// drive runs a producer-like loop on a fake clock: wake, send what is due, sleep until the
// next intended time. late lists extra delays injected at given wake-ups (a GC pause, a busy
// CPU). It returns each message's (intended, sent) times.
func drive(p *Pacer, clk *fakeClock, end int64, late map[int]int64) (intended, sent []int64) {
	for wake := 0; ; wake++ {
		clk.now += late[wake]
		now := clk.Now()
		due := p.Due(now, end)
		if now >= end && due == p.Next() {
			return
		}
		for i := p.Next(); i < due; i++ {
			intended = append(intended, p.Intended(i))
			sent = append(sent, now)
		}
		p.Advance(due)
		clk.SleepUntil(context.Background(), min(p.NextAt(), end))
	}
}

func TestPacerOnTimeSleepsToEachIntendedTime(t *testing.T) {
	clk := &fakeClock{}
	p := &Pacer{Start: 0, Rate: 100} // every 10 ms
	intended, sent := drive(p, clk, int64(time.Second), nil)
	if len(intended) != 100 {
		t.Fatalf("sent %d messages in 1 s at 100/s, want 100", len(intended))
	}
	for i := range intended {
		if intended[i] != int64(i)*10_000_000 || sent[i] != intended[i] {
			t.Fatalf("message %d intended %d sent %d, want both at %d", i, intended[i], sent[i], i*10_000_000)
		}
	}
}

// TestPacerCatchUp documents the catch-up rule: after a stall, the messages whose time has
// passed go out at once (each keeps its own intended time, so its latency counts the stall),
// and then the schedule resumes exactly where it was: no extra burst, no shifted schedule.
func TestPacerCatchUp(t *testing.T) {
	clk := &fakeClock{}
	p := &Pacer{Start: 0, Rate: 100}
	// Wake-up 10 (at 100 ms) is 55 ms late.
	intended, sent := drive(p, clk, int64(time.Second), map[int]int64{10: 55_000_000})
	if len(intended) != 100 {
		t.Fatalf("sent %d, want 100: a stall must not drop or add messages", len(intended))
	}
	burst := 0
	for i := range intended {
		if intended[i] != int64(i)*10_000_000 {
			t.Fatalf("message %d intended at %d, the schedule moved", i, intended[i])
		}
		if sent[i] == 155_000_000 {
			burst++
		}
		if i > 15 && sent[i] != intended[i] {
			t.Fatalf("message %d sent at %d, intended %d: the schedule did not resume on time", i, sent[i], intended[i])
		}
	}
	// Messages at 100..150 ms were owed at 155 ms: exactly 6, sent together.
	if burst != 6 {
		t.Errorf("catch-up burst of %d messages, want the 6 that were owed", burst)
	}
	delays := make([]int64, len(intended))
	for i := range intended {
		delays[i] = sent[i] - intended[i]
	}
	sort.Slice(delays, func(i, j int) bool { return delays[i] > delays[j] })
	if delays[0] != 55_000_000 || delays[5] != 5_000_000 || delays[6] != 0 {
		t.Errorf("schedule delays %v..., want 55ms, 45ms, ... 5ms, then 0", delays[:8])
	}
}

func TestPacerProducersInterleave(t *testing.T) {
	// Three producers sharing 300 msg/s, offset by 1/300 s, make one evenly spaced schedule.
	const total = 300.0
	var all []int64
	for i := range 3 {
		p := Pacer{Start: int64(float64(i) * 1e9 / total), Rate: total / 3}
		for k := range uint64(100) {
			all = append(all, p.Intended(k))
		}
	}
	sort.Slice(all, func(i, j int) bool { return all[i] < all[j] })
	for i := 1; i < len(all); i++ {
		if gap := all[i] - all[i-1]; gap < 3_333_332 || gap > 3_333_334 {
			t.Fatalf("gap %d ns between messages %d and %d, want 1/300 s", gap, i-1, i)
		}
	}
}

func TestPacerUnpaced(t *testing.T) {
	p := &Pacer{}
	if got := p.Due(5, 10); got != unpacedBatch {
		t.Errorf("unpaced Due = %d, want a batch of %d", got, unpacedBatch)
	}
	p.Advance(unpacedBatch)
	if got := p.Due(10, 10); got != unpacedBatch {
		t.Errorf("unpaced Due at the end = %d, want nothing more", got)
	}
	if p.NextAt() != math.MinInt64 {
		t.Errorf("an unpaced pacer must never sleep")
	}
}

// BenchmarkPacerTick is one wake-up of a producer at 1M msg/s that finds 64 messages due: the
// clock-free part of pacing (Due, Intended per message, Advance).
func BenchmarkPacerTick(b *testing.B) {
	p := &Pacer{Start: 0, Rate: 1e6}
	now := int64(0)
	var sink int64
	b.ReportAllocs()
	for b.Loop() {
		now += 64_000
		due := p.Due(now, math.MaxInt64)
		for i := p.Next(); i < due; i++ {
			sink += p.Intended(i)
		}
		p.Advance(due)
	}
	_ = sink
}
