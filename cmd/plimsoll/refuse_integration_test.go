//go:build integration

package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/plimsoll/plimsoll/localkafka"
	"github.com/twmb/franz-go/pkg/kadm"
)

// TestRunPausedLeader: a broker leading some of the run's partitions is paused (SIGSTOP) as soon
// as the run's topic exists, and stays paused until the run ends: the cluster still answers
// metadata, but the writes to that broker's partitions hang. The run must end within its bounds
// (settling 20 s, warm-up and window, drain, clean-up), exit non-zero with its verdict saying
// why, and delete its topic.
//
// It runs only with PLIMSOLL_PAUSED_LEADER=1 (docs/bad-input.md): it failed until the verdict
// named a broker silenced in the window (silent-broker) and the clean-up sent its deletion past
// the paused broker; it costs about a minute and joins make test once it has passed reliably.
func TestRunPausedLeader(t *testing.T) {
	if os.Getenv("PLIMSOLL_PAUSED_LEADER") != "1" {
		t.Skip("opt-in until it has passed reliably (about a minute on the shared cluster); PLIMSOLL_PAUSED_LEADER=1 runs it")
	}
	c := up(t)
	out := t.TempDir()
	const prefix = "plimsoll-it-pausedleader-"
	paused := make(chan int32, 1)
	go func() {
		defer close(paused)
		victim, ok := leaderOfNewTopic(t, c, prefix, time.Minute)
		if !ok {
			t.Error("the run's topic did not appear with a leader that is not the controller")
			return
		}
		if err := c.Pause(victim); err != nil {
			t.Error(err)
			return
		}
		paused <- victim
	}()
	start := time.Now()
	stdout, stderr, code := plimsoll(t, "run", "--cluster-dir", clusterDir, "--rate", "300", "--message-size", "1000",
		"--duration", "8s", "--warmup", "1s", "--out", out, "--drain-timeout", "2s", "--setup-timeout", "20s", "--topic-prefix", prefix)
	took := time.Since(start)
	victim, wasPaused := <-paused
	if wasPaused {
		if err := c.Resume(victim); err != nil {
			t.Error(err)
		}
	}
	t.Logf("paused broker %d; the run took %v, exit %d\n%s\n%s", victim, took.Round(time.Second), code, stdout, stderr)
	// Its bounds: 20 s for the topic and the group's assignment, 20 s for settling and 3 s to
	// name the silent broker, 9 s of load, 2 s of drain, 30 s for the clean-up. The window is
	// longer than the silent-broker criterion's 5 s: with a 4 s window the paused broker missed
	// its 3 scrapes and the verdict could not call it silent.
	if took > 104*time.Second {
		t.Errorf("the run took %v: past its bounds", took)
	}
	if _, err := os.Stat(filepath.Join(out, "result.json")); err == nil {
		// The run got through its set-up: its verdict says which broker went silent, whether it was
		// found silent at the start ("answered nothing when the run started") or in the window
		// ("answered no metrics scrape for 7 s in a row").
		// Invalid when nothing else failed; overloaded when the cluster's own criteria did (a
		// stalled broker may be the cluster giving out), with the silence among the reasons.
		state, _, criteria, why := verdictOf(t, out)
		if (state != "invalid" || code != ExitInvalid) && (state != "overloaded" || code != ExitOverloaded) ||
			!slices.Contains(criteria, "silent-broker") || !strings.Contains(why, fmt.Sprintf("broker %d answered n", victim)) {
			t.Errorf("verdict %s, exit %d with a paused leader, want invalid (silent-broker) naming broker %d:\n%s", state, code, victim, why)
		}
	} else if want := fmt.Sprintf("broker %d (", victim); code != ExitError || !strings.Contains(stderr, want) || !strings.Contains(stderr, "did not answer") {
		t.Errorf("exit %d, want %d naming %q as not answering:\n%s", code, ExitError, want, stderr)
	}
	if left := topicsLeft(t, c, prefix); len(left) > 0 {
		t.Errorf("topics left: %v", left)
	}
	if !waitFullISR(c, time.Minute) {
		t.Error("the paused broker did not rejoin every ISR within a minute")
	}
}

// leaderOfNewTopic waits for the first topic under prefix and returns a broker that leads one of
// its partitions and is not the active controller.
// The active controller is the quorum's leader (localkafka.ActiveController), not a Metadata
// response's controller id, which a KRaft broker fills with a random live broker: pausing the
// active controller stalls every metadata change, the clean-up's topic deletion among them,
// until the brokers' requests to it time out.
func leaderOfNewTopic(t *testing.T, c *localkafka.State, prefix string, d time.Duration) (int32, bool) {
	_, cl := admin(t, c.Bootstrap())
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	controller, err := localkafka.ActiveController(ctx, cl)
	cancel()
	if err != nil {
		t.Error(err)
		return 0, false
	}
	var victim int32
	ok := pollAdmin(c, d, func(ctx context.Context, adm *kadm.Client) bool {
		md, err := adm.Metadata(ctx)
		if err != nil {
			return false
		}
		for name, td := range md.Topics {
			if !strings.HasPrefix(name, prefix) {
				continue
			}
			for _, p := range td.Partitions {
				if p.Leader >= 0 && p.Leader != controller {
					victim = p.Leader
					return true
				}
			}
		}
		return false
	})
	return victim, ok
}
