//go:build integration

package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
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
// (the test took 109 s against 121 s with three); 8 producers got 909 msgs/s through, 13.5 times one.
func TestProducerWindowBound(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "slow-acks")
	if _, stderr, code := plimsoll(t, "cluster", "up", "--cluster-dir", dir, "--brokers", "2", "--heap", "512m", "--warm-jit", "20s",
		"--broker-config", "replica.fetch.min.bytes=1048576", "--broker-config", "replica.fetch.wait.max.ms=400"); code != 0 {
		t.Fatalf("cluster up: exit %d\n%s", code, stderr)
	}
	t.Cleanup(func() { plimsoll(t, "cluster", "down", "--cluster-dir", dir) })
	produced := func(producers string) (float64, string, []string, string) {
		out := t.TempDir()
		_, stderr, code := plimsoll(t, "run", "--cluster-dir", dir, "--rate", "1000", "--message-size", "1000",
			"--partitions", "3", "--producers", producers, "--duration", "8s", "--warmup", "3s", "--drain-timeout", "20s", "--out", out)
		if code != ExitOK && code != ExitInvalid && code != ExitOverloaded {
			t.Fatalf("run with %s producers: exit %d\n%s", producers, code, stderr)
		}
		state, bottleneck, criteria, why := verdictOf(t, out)
		data, err := os.ReadFile(filepath.Join(out, "result.json"))
		if err != nil {
			t.Fatal(err)
		}
		var r struct {
			Produced float64 `json:"produced_msgs_per_sec"`
		}
		if err := json.Unmarshal(data, &r); err != nil {
			t.Fatal(err)
		}
		return r.Produced, state + ": " + bottleneck, criteria, why
	}
	one, verdict, criteria, why := produced("1")
	if !strings.HasPrefix(verdict, "invalid: plimsoll (the load generator): the producers' request window") || !slices.Contains(criteria, "client-bound") {
		t.Errorf("one producer on slow acknowledgements: %s, want invalid, the producers' request window\n%s", verdict, why)
	}
	if one > 300 {
		t.Errorf("one producer got %.0f msgs/s through; the window allows about 120", one)
	}
	eight, _, _, _ := produced("8")
	if eight < 4*one {
		t.Errorf("8 producers got %.0f msgs/s through, 1 got %.0f: more windows should carry about 8 times as much", eight, one)
	}
	t.Logf("1 producer %.0f msgs/s (%s); 8 producers %.0f msgs/s", one, verdict, eight)
}
