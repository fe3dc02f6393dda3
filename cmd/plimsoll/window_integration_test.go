//go:build integration

package main

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/plimsoll/plimsoll/results"
)

// TestProducerWindowBound makes the brokers slow to acknowledge (a follower fetch waits for
// 1 MB or 400 ms) so that one idempotent producer, with one produce request in flight per broker
// and one 16 KB batch per partition in it, cannot send 1,000 msgs/s of 1 KB on 3 partitions
// (at most 3 x 16 KB per 0.4 s, 120 msgs/s: measured on 3 brokers, 67 msgs/s on these 2, where
// a broker leading 2 partitions waits on its follower for both), while the brokers idle. The verdict must
// blame the producers' window, not the cluster; 8 producers must get far more through. The
// cluster is warmed first: a fresh broker's network-processor idle gauge reads low for its first
// 30-40 s (68% busy in a run with no warm-up), which would count as a broker near its limit.
// Two brokers are enough for a follower to wait on (rf 2), and start faster than three on 2 cores
// (the test took 109 s against 121 s with three); 8 producers got 909 msgs/s through, 13.5 times one
// (asked 1,000; they are now asked windowRace's 1,300, and got 960).
func TestProducerWindowBound(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "slow-acks")
	if _, stderr, code := plimsoll(t, "cluster", "up", "--cluster-dir", dir, "--brokers", "2", "--heap", "512m", "--warm-jit", "20s",
		"--broker-config", "replica.fetch.min.bytes=1048576", "--broker-config", "replica.fetch.wait.max.ms=400"); code != 0 {
		t.Fatalf("cluster up: exit %d\n%s", code, stderr)
	}
	t.Cleanup(func() { plimsoll(t, "cluster", "down", "--cluster-dir", dir) })
	produced := func(producers string, extra ...string) (results.Trial, string, []string, string) {
		out := t.TempDir()
		args := append([]string{"run", "--cluster-dir", dir, "--rate", "1000", "--message-size", "1000",
			"--partitions", "3", "--producers", producers, "--duration", "8s", "--warmup", "3s", "--drain-timeout", "20s", "--out", out}, extra...)
		_, stderr, code := plimsoll(t, args...)
		if code != ExitOK && code != ExitInvalid && code != ExitOverloaded {
			t.Fatalf("run with %s producers %v: exit %d\n%s", producers, extra, code, stderr)
		}
		state, bottleneck, criteria, why := verdictOf(t, out)
		return readTrial(t, out), state + ": " + bottleneck, criteria, why
	}
	r1, verdict, criteria, why := produced("1")
	one := r1.ProducedMsgsPerSec
	if !strings.HasPrefix(verdict, "invalid: plimsoll (the load generator): the producers' request window") || !slices.Contains(criteria, "client-bound") {
		t.Errorf("one producer on slow acknowledgements: %s, want invalid, the producers' request window\n%s", verdict, why)
	}
	if one > 300 {
		t.Errorf("one producer got %.0f msgs/s through; the window allows about 120", one)
	}
	r8, _, _, _ := produced("8", "--rate", windowRace)
	eight := r8.ProducedMsgsPerSec
	if eight < 4*one {
		t.Errorf("8 producers got %.0f msgs/s through, 1 got %.0f: more windows should carry about 8 times as much", eight, one)
	}
	t.Logf("1 producer %.0f msgs/s (%s); 8 producers %.0f msgs/s", one, verdict, eight)
	leanWindowCheck(t, produced, eight)
}

// leanWindowCheck (issue 15's acceptance): one lean producer process (--lean-producer
// --producers 1) on the same slow acknowledgements moves at least as much as the eight
// franz-go producers just did, keeps more than one request in flight per broker, and the
// verdict does not blame its window. Its sessions (each its own connections and producer id,
// added while every session's window is full) are what carry it: a broker handles one request
// of a connection at a time, so requests in flight on one connection wait on each other.
func leanWindowCheck(t *testing.T, produced func(string, ...string) (results.Trial, string, []string, string), eight float64) {
	r, verdict, _, why := produced("1", "--lean-producer", "--rate", windowRace)
	c := r.Client
	t.Logf("1 lean producer %.0f msgs/s (%s); at most %d requests in flight to a broker in a session, %d sessions, window limit %d, at it %.0f%%; counts %+v",
		r.ProducedMsgsPerSec, verdict, c.LeanMaxInFlight, c.LeanSessions, c.WindowLimit, 100*c.WindowShare, r.Counts)
	if r.ProducedMsgsPerSec < eight {
		t.Errorf("one lean producer got %.0f msgs/s through, 8 franz-go producers %.0f: want at least as much", r.ProducedMsgsPerSec, eight)
	}
	if strings.Contains(verdict+why, "request window") {
		t.Errorf("one lean producer: the verdict blames the producers' window: %s\n%s", verdict, why)
	}
	if c.LeanMaxInFlight < 2 || c.LeanSessions < 2 {
		t.Errorf("one lean producer: at most %d requests in flight to a broker, %d sessions: want more than 1 of each", c.LeanMaxInFlight, c.LeanSessions)
	}
	if n := r.Counts; n.Lost != 0 || n.Duplicated != 0 || n.OutOfOrder != 0 {
		t.Errorf("one lean producer: counts %+v, want nothing lost, duplicated or out of order", n)
	}
}

// windowRace is the rate asked of the eight franz-go producers and of the one lean producer:
// above what eight windows carry here (960 msgs/s at 1,600 asked), so that their figure is what
// they can move, not the rate asked, and below what the lean producer's 16 sessions carry
// (1,525 at 1,600 asked, its window full 89% of the time), so that its figure is the rate asked.
// At 1,000 asked both came within 3-6% of it (eight 897-934, lean 947-966), too close to call
// which moves more. At 1,300: eight 960, lean 1,221 (its window full 71% of the time).
const windowRace = "1300"
