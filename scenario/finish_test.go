package scenario

import (
	"context"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/plimsoll/plimsoll/results"
)

// stuckAdmin is a finisher whose calls, when stuck, block until their context ends (a paused
// broker, a controller that does not answer), or when deaf too until the test ends (kgo opening
// a connection to a paused broker), ending the clean-up's bound (expire) as they block. The
// others answer at once.
type stuckAdmin struct {
	stuck  string // "health", "cleanup" or ""
	deaf   chan struct{}
	expire func()

	healths, cleanups int
}

func (s *stuckAdmin) block(ctx context.Context, call string) bool {
	if s.stuck != call {
		return false
	}
	s.expire()
	if s.deaf != nil {
		<-s.deaf
	}
	<-ctx.Done()
	return true
}

func (s *stuckAdmin) health(ctx context.Context) (string, bool) {
	s.healths++
	if s.block(ctx, "health") {
		return "listing topics failed: " + ctx.Err().Error(), false
	}
	return "all 3 brokers answer", true
}

func (s *stuckAdmin) cleanup(ctx context.Context) (int, error) {
	s.cleanups++
	if s.block(ctx, "cleanup") {
		return 4, ctx.Err()
	}
	return 4, nil
}

func (s *stuckAdmin) leftover() string { return "topics under plimsoll-pc-x- (delete them with ...)" }

// TestFinishPartitionsBounded: the clean-up runs after an interruption too, and when the
// cluster does not answer it ends at its bound (ended by the fake as it blocks: no waiting),
// even when the call does not heed its context, with a failure naming what it left and how to
// delete it.
func TestFinishPartitionsBounded(t *testing.T) {
	const gaveUp = "gave up at the clean-up's bound (2m0s): "
	const left = "; left: topics under plimsoll-pc-x- (delete them with ...)"
	for _, tc := range []struct {
		name        string
		stuck       string
		deaf        bool
		interrupted bool
		keep        bool
		healthy     float64
		healths     int
		cleanups    int
		failure     []string // what the one failure holds; none when empty
	}{
		{"answers", "", false, false, false, 1, 1, 1, nil},
		{"answers after an interruption", "", false, true, false, 1, 1, 1, nil},
		{"health check stuck: the deletion is not tried", "health", false, false, false, 0, 1, 0, []string{gaveUp, left}},
		{"deletion stuck after an interruption", "cleanup", false, true, false, 1, 1, 1, []string{gaveUp, left}},
		{"deletion deaf to its context", "cleanup", true, true, false, 1, 1, 1, []string{gaveUp, left}},
		{"health check deaf, topics kept", "health", true, true, true, 0, 1, 0, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var expire context.CancelFunc
			saved := finishContext
			finishContext = func(ctx context.Context) (context.Context, context.CancelFunc) {
				ctx, expire = context.WithCancel(context.WithoutCancel(ctx))
				return ctx, expire
			}
			t.Cleanup(func() { finishContext = saved })
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			if tc.interrupted {
				cancel()
			}
			a := &stuckAdmin{stuck: tc.stuck, expire: func() { expire() }}
			if tc.deaf {
				a.deaf = make(chan struct{})
				defer close(a.deaf)
			}
			var res results.Scenario
			done := make(chan struct{})
			go func() {
				finishPartitions(ctx, a, clusterSpec{Version: "4.1.0", Metadata: "kraft"}, tc.keep, &res)
				close(done)
			}()
			select {
			case <-done:
			case <-time.After(10 * time.Second):
				t.Fatal("the clean-up did not end at its bound")
			}
			if a.healths != tc.healths || a.cleanups != tc.cleanups {
				t.Errorf("%d health checks, %d clean-ups; want %d, %d", a.healths, a.cleanups, tc.healths, tc.cleanups)
			}
			if len(res.Findings) != 1 || res.Findings[0].Value != tc.healthy {
				t.Errorf("findings %+v: want one, healthy %v", res.Findings, tc.healthy)
			}
			if len(tc.failure) == 0 && len(res.Failures) > 0 || len(tc.failure) > 0 && len(res.Failures) != 1 {
				t.Fatalf("failures %q, want %d", res.Failures, min(len(tc.failure), 1))
			}
			for _, want := range tc.failure {
				if !strings.Contains(res.Failures[0], want) {
					t.Errorf("failure %q, want %q in it", res.Failures[0], want)
				}
			}
		})
	}
}

// TestFinishContext: the clean-up's context outlives an interruption and ends at finishBound.
func TestFinishContext(t *testing.T) {
	parent, cancel := context.WithCancel(context.Background())
	cancel()
	before := time.Now()
	ctx, stop := finishContext(parent)
	defer stop()
	if ctx.Err() != nil {
		t.Errorf("ended with the interrupted context: %v", ctx.Err())
	}
	if dl, ok := ctx.Deadline(); !ok || dl.Before(before.Add(finishBound)) || dl.After(time.Now().Add(finishBound)) {
		t.Errorf("deadline %v (set %v): want %v from now", dl, ok, finishBound)
	}
}

// TestUnthrottleGivesUp: unthrottle against a broker that accepts connections and answers
// nothing (the port of a paused one) ends when its context does, although kgo would wait out its
// request timeout overhead (a minute here) opening the connection, and its error names the
// broker configs left and how to delete them; closing the client does not wait either.
func TestUnthrottleGivesUp(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	accepted := make(chan net.Conn, 8)
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			accepted <- c
		}
	}()
	cl, err := kgo.NewClient(kgo.SeedBrokers(ln.Addr().String()), kgo.RequestTimeoutOverhead(time.Minute))
	if err != nil {
		t.Fatal(err)
	}
	a := &partAdmin{cl: cl, adm: kadm.NewClient(cl), bootstrap: []string{ln.Addr().String()}, prefix: "plimsoll-ra-x-", brokers: []int32{1, 2, 3}}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- a.unthrottle(ctx, "plimsoll-ra-x-m0") }()
	select {
	case c := <-accepted:
		defer c.Close()
	case <-time.After(10 * time.Second):
		t.Fatal("unthrottle did not connect")
	}
	cancel() // the bound ends while kgo opens its connection
	select {
	case err = <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("unthrottle did not give up with its context")
	}
	if err == nil || !strings.Contains(err.Error(), "left on brokers [1 2 3]") ||
		!strings.Contains(err.Error(), "kafka-configs.sh --bootstrap-server "+ln.Addr().String()) {
		t.Errorf("error %v: want the configs left and how to delete them", err)
	}
	closed := make(chan struct{})
	go func() { cl.Close(); close(closed) }()
	select {
	case <-closed:
	case <-time.After(10 * time.Second):
		t.Error("closing the client waited for the connection it was opening")
	}
}

// TestBoundedCleanup: a clean-up that answers gives its count and error; one deaf to its
// context (kgo opening a connection to a paused broker) is given up as the context ends, with
// the context's error, so reassignment's deletion between moves cannot outlast an interruption.
func TestBoundedCleanup(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	if n, err := boundedCleanup(ctx, &stuckAdmin{}); n != 4 || err != nil {
		t.Errorf("answering: %d, %v; want 4, nil", n, err)
	}
	deaf := make(chan struct{})
	defer close(deaf)
	a := &stuckAdmin{stuck: "cleanup", deaf: deaf, expire: cancel}
	done := make(chan struct{})
	var n int
	var err error
	go func() { n, err = boundedCleanup(ctx, a); close(done) }()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("a deaf clean-up held its caller past its context")
	}
	if n != 0 || err != context.Canceled {
		t.Errorf("deaf: %d, %v; want 0, %v", n, err, context.Canceled)
	}
	if n, err := boundedCleanup(ctx, &stuckAdmin{}); n != 0 || err != context.Canceled {
		t.Errorf("after the context ended: %d, %v; want 0 and its error, not a call", n, err)
	}
}
