//go:build integration

package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/plimsoll/plimsoll/localkafka"
)

// TestNICVerdicts runs on a cluster of its own behind emulated 16 Mbit/s NICs: a run well below
// the links' capacity is ok, one well above is overloaded by the network, and one slow link
// makes its broker the bottleneck. With rf 3, 3 brokers and one consumer group each broker
// takes t in and gives t out, so the links carry about 1,900 messages/s of 1 KB.
func TestNICVerdicts(t *testing.T) {
	// These tests pass on their own (make test-nic) but a broker JVM has been seen to die at
	// start-up inside its namespace when they run after the rest of the suite; until that is
	// understood they run only when asked for.
	if os.Getenv("PLIMSOLL_NIC_TESTS") == "" {
		t.Skip("emulated-NIC tests run with PLIMSOLL_NIC_TESTS=1 (make test-nic)")
	}
	if err := localkafka.CheckNIC(); err != nil {
		t.Skip(err)
	}
	dir := filepath.Join(t.TempDir(), "nic-cluster")
	if _, stderr, code := plimsoll(t, "cluster", "up", "--dir", dir, "--heap", "768m", "--nic", "16Mbit/s",
		"--subnet", "198.18.80.0/24"); code != 0 { // apart from localkafka's own NIC test
		t.Fatalf("cluster up --nic: exit %d\n%s", code, stderr)
	}
	defer plimsoll(t, "cluster", "down", "--dir", dir)

	run := func(rate string) (string, string, string) {
		out := t.TempDir()
		_, stderr, code := plimsoll(t, "run", "--cluster-dir", dir, "--rate", rate, "--message-size", "1000",
			"--duration", "15s", "--warmup", "5s", "--out", out, "--drain-timeout", "10s")
		if code != 0 && code != ExitOverloaded && code != ExitInvalid {
			t.Fatalf("run at %s msgs/s: exit %d\n%s", rate, code, stderr)
		}
		state, bottleneck, _, why := verdictOf(t, out)
		return state, bottleneck, why
	}
	if state, _, why := run("500"); state != "ok" {
		t.Errorf("500 msgs/s over 2 MB/s links: verdict %s, want ok\n%s", state, why)
	}
	state, bottleneck, why := run("6000")
	if state != "overloaded" || !strings.Contains(bottleneck, "network") {
		t.Errorf("6000 msgs/s over 2 MB/s links: verdict %s, bottleneck %q, want overloaded by the network\n%s", state, bottleneck, why)
	}
	time.Sleep(5 * time.Second) // let the links drain
	if _, stderr, code := plimsoll(t, "cluster", "shape", "2", "4Mbit/s", "--dir", dir); code != 0 {
		t.Fatalf("cluster shape: exit %d\n%s", code, stderr)
	}
	state, bottleneck, why = run("1000")
	if state != "overloaded" || !strings.HasPrefix(bottleneck, "broker 2 network") {
		t.Errorf("1000 msgs/s with broker 2 at 4 Mbit/s: verdict %s, bottleneck %q, want broker 2's network\n%s", state, bottleneck, why)
	}
}
