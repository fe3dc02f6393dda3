package scenario

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/plimsoll/plimsoll/results"
)

// stuckAdmin is a finisher whose calls block until their context ends when stuck (a paused
// broker, a controller that does not answer), and answer at once otherwise.
type stuckAdmin struct {
	stuck             bool
	healths, cleanups int
}

func (s *stuckAdmin) health(ctx context.Context) (string, bool) {
	s.healths++
	if s.stuck {
		<-ctx.Done()
		return "listing topics failed: " + ctx.Err().Error(), false
	}
	return "all 3 brokers answer", true
}

func (s *stuckAdmin) cleanup(ctx context.Context) (int, error) {
	s.cleanups++
	if s.stuck {
		<-ctx.Done()
		return 4, ctx.Err()
	}
	return 4, nil
}

func (s *stuckAdmin) leftover() string { return "topics under plimsoll-pc-x- (delete them with ...)" }

// TestFinishPartitionsBounded: the clean-up runs after an interruption too, and when the
// cluster does not answer it ends at its bound (here a deadline already past: no waiting) with
// a failure naming what it left and how to delete it.
func TestFinishPartitionsBounded(t *testing.T) {
	expired := func(ctx context.Context) (context.Context, context.CancelFunc) {
		return context.WithDeadline(context.WithoutCancel(ctx), time.Unix(0, 0))
	}
	for _, tc := range []struct {
		name        string
		stuck       bool
		interrupted bool
		keep        bool
		bound       func(context.Context) (context.Context, context.CancelFunc)
		healthy     float64
		cleanups    int
		failure     string // "" for none
	}{
		{"answers", false, false, false, nil, 1, 1, ""},
		{"answers after an interruption", false, true, false, nil, 1, 1, ""},
		{"stuck: ends at the bound", true, false, false, expired, 0, 1,
			"gave up at the clean-up's bound (2m0s): context deadline exceeded; left: topics under plimsoll-pc-x- (delete them with ...)"},
		{"stuck after an interruption: ends at the bound", true, true, false, expired, 0, 1, "left: topics under plimsoll-pc-x-"},
		{"stuck, topics kept", true, true, true, expired, 0, 0, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.bound != nil {
				saved := finishContext
				finishContext = tc.bound
				t.Cleanup(func() { finishContext = saved })
			}
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			if tc.interrupted {
				cancel()
			}
			a := &stuckAdmin{stuck: tc.stuck}
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
			if a.healths != 1 || a.cleanups != tc.cleanups {
				t.Errorf("%d health checks, %d clean-ups; want 1, %d", a.healths, a.cleanups, tc.cleanups)
			}
			if len(res.Findings) != 1 || res.Findings[0].Value != tc.healthy {
				t.Errorf("findings %+v: want one, healthy %v", res.Findings, tc.healthy)
			}
			switch {
			case tc.failure == "" && len(res.Failures) > 0:
				t.Errorf("failures %q, want none", res.Failures)
			case tc.failure != "" && (len(res.Failures) != 1 || !strings.Contains(res.Failures[0], tc.failure)):
				t.Errorf("failures %q, want one with %q", res.Failures, tc.failure)
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
