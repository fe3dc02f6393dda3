package produce

import (
	"context"
	"encoding/binary"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// TestGrower walks the grow decision through clock times: a session is added only once
// batches have waited on every window for the whole delay without a break.
func TestGrower(t *testing.T) {
	type step struct {
		now      int64
		bound    bool
		grow     bool
		lookAt   int64
		whatHeld string
	}
	cases := []struct {
		name  string
		steps []step
	}{
		{"never bound", []step{{0, false, false, 0, "idle"}, {500, false, false, 0, "idle"}}},
		{"bound for the delay", []step{{10, true, false, 110, "waiting"}, {60, true, false, 110, "waiting"}, {110, true, true, 0, "grow"}}},
		{"a break starts the wait over", []step{{0, true, false, 100, "waiting"}, {90, false, false, 0, "break"},
			{95, true, false, 195, "waiting again"}, {150, true, false, 195, "not yet"}, {195, true, true, 0, "grow"}}},
		{"after a grow the wait starts over", []step{{0, true, false, 100, "waiting"}, {100, true, true, 0, "grow"},
			{101, true, false, 201, "waiting for the next"}, {201, true, true, 0, "grow again"}}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			g := grower{after: 100, since: -1}
			for _, s := range tc.steps {
				grow, at := g.observe(s.now, s.bound)
				if grow != s.grow || at != s.lookAt {
					t.Errorf("%s at %d (bound %v): grow %v, look again at %d; want %v, %d", s.whatHeld, s.now, s.bound, grow, at, s.grow, s.lookAt)
				}
			}
		})
	}
}

// fakeClock is a Config.Now the test moves.
type fakeClock struct{ ns atomic.Int64 }

func (c *fakeClock) now() int64              { return c.ns.Load() }
func (c *fakeClock) advance(d time.Duration) { c.ns.Add(int64(d)) }

// passes returns how many passes the sender has made.
func (p *Producer) passes() int64 {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.snd.passes
}

// settle wakes the sender and waits until it has made a pass since, so that what it decides
// on the clock's time has been decided.
func settle(t *testing.T, p *Producer) {
	t.Helper()
	n := p.passes()
	p.poke()
	waitFor(t, "a pass of the sender", func() bool { return p.passes() > n })
}

// waitFor polls cond (an event the test waits on, not a timing) for up to 10 s.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for end := time.Now().Add(10 * time.Second); !cond(); {
		if time.Now().After(end) {
			t.Fatalf("no %s within 10 s", what)
		}
		time.Sleep(time.Millisecond)
	}
}

// TestSessionsGrow holds produce requests at a kfake broker (as a broker waiting on its
// followers would) and moves the producer's clock by hand: sessions are added one GrowAfter
// after every window filled with batches waiting, up to Config.Sessions, and never while the
// windows have room; every record is then reported once, in order within its session, each
// session under its own producer id.
func TestSessionsGrow(t *testing.T) {
	c, err := kfake.NewCluster(kfake.NumBrokers(1), kfake.SeedTopics(3, "t"))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	var held atomic.Bool
	defer held.Store(false)
	c.ControlKey(int16(kmsg.Produce), func(kmsg.Request) (kmsg.Response, error, bool) {
		c.KeepControl()
		if held.Load() {
			c.SleepControl(func() {
				for held.Load() {
					time.Sleep(time.Millisecond)
				}
			})
		}
		return nil, nil, false
	})
	clock := &fakeClock{}
	o := newOutcomes()
	const after = time.Second
	p, err := New(context.Background(), Config{
		Opts: []kgo.Opt{kgo.SeedBrokers(c.ListenAddrs()...)}, Topics: []string{"t"}, Acks: -1, Idempotent: true,
		BatchBytes: 1024, Sessions: 3, GrowAfter: after, DeliveryTimeout: time.Hour, MetadataMaxAge: time.Hour,
		Done: o.done, MarkLane: markLane, Now: clock.now,
	})
	if err != nil {
		t.Fatal(err)
	}
	sessions := func() int { return p.Stats().Sessions }
	expect := func(want int, when string) {
		t.Helper()
		settle(t, p)
		if n := sessions(); n != want {
			t.Fatalf("%s: %d sessions, want %d", when, n, want)
		}
	}

	// Windows with room: however long, one session.
	produceRange(t, p, 0, 30)
	if err := p.Flush(context.Background()); err != nil {
		t.Fatal(err)
	}
	clock.advance(10 * after)
	expect(1, "nothing waiting, ten delays later")

	// Every request held: session 0's window fills, batches wait.
	held.Store(true)
	produceRange(t, p, 30, 600)
	waitFor(t, "the window to bind", func() bool {
		p.mu.Lock()
		defer p.mu.Unlock()
		return p.snd.grow.since >= 0
	})
	clock.advance(after - 1)
	expect(1, "batches waiting on the window just short of GrowAfter")
	clock.advance(1)
	settle(t, p)
	waitFor(t, "a second session", func() bool { return sessions() == 2 })
	// The new session's first batches are held too: every window is full again.
	waitFor(t, "the windows to bind again", func() bool {
		p.mu.Lock()
		defer p.mu.Unlock()
		return !p.snd.growing && p.snd.grow.since >= 0
	})
	clock.advance(after)
	settle(t, p)
	waitFor(t, "a third session", func() bool { return sessions() == 3 })
	clock.advance(10 * after)
	expect(3, "at Config.Sessions")

	held.Store(false)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := p.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	st, first := p.Stats(), p.firstIDs()
	p.Close()
	t.Logf("stats %+v, first producer ids %v", st, first)
	checkOutcomes(t, c, o, 600, false, true)
	checkSessions(t, st, first, nil, true, true)
}

// produceRange produces records lo..hi-1 as produceAll does.
func produceRange(t *testing.T, p *Producer, lo, hi int) {
	t.Helper()
	val := make([]byte, 100)
	r := Record{Value: val}
	for i := lo; i < hi; i++ {
		binary.BigEndian.PutUint64(val, uint64(i))
		r.Partition = int32(i % p.Partitions(0))
		r.Timestamp = time.Now().UnixMilli()
		r.Tag = Tag{Seq: uint64(i), A: int64(r.Partition)}
		if _, err := p.Produce(context.Background(), &r); err != nil {
			t.Fatalf("Produce %d: %v", i, err)
		}
	}
}

// TestSessionsConfig: Config.Sessions defaults to MaxSessions, and a count out of range is
// refused with the field and the range.
func TestSessionsConfig(t *testing.T) {
	for _, tc := range []struct {
		sessions, want int
		err            bool
	}{{0, MaxSessions, false}, {1, 1, false}, {MaxSessions, MaxSessions, false}, {-1, 0, true}, {MaxSessions + 1, 0, true}} {
		c := Config{Acks: -1, Topics: []string{"t"}, Done: func([]Tag, error) {}, Sessions: tc.sessions}
		err := c.defaults()
		if tc.err {
			if err == nil || !strings.Contains(err.Error(), "Config.Sessions") {
				t.Errorf("Sessions %d: error %v, want one naming Config.Sessions", tc.sessions, err)
			}
			continue
		}
		if err != nil || c.Sessions != tc.want || c.GrowAfter != 100*time.Millisecond {
			t.Errorf("Sessions %d: %v, sessions %d grow after %v; want %d, 100ms", tc.sessions, err, c.Sessions, c.GrowAfter, tc.want)
		}
	}
}
