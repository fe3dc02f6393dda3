//go:build integration

package main

import (
	"fmt"
	"path/filepath"
	"testing"

	"github.com/plimsoll/plimsoll/localkafka/nictest"

	"github.com/plimsoll/plimsoll/localkafka"
	"github.com/plimsoll/plimsoll/use"
)

// TestNICVerdicts runs on a cluster of its own behind emulated 16 Mbit/s NICs: the cluster's
// namespaces and links exist while it runs and are gone after it stops; the lean producer's
// window on a shaped link (leanShapedLinkCheck); consumer fan-out, whose run without groups is
// well above the links' capacity, overloaded by the network with its traffic crossing the shaped
// links (consumerFanoutCheck); the Heroku check (the message-overhead scenario); one slow link,
// which leaves a run below its rate ok and makes its broker the bottleneck through its link's
// losses above it (slowLinkCheck). One cluster serves all, which saves the suite a cluster's
// start and warm-up for each.
func TestNICVerdicts(t *testing.T) {
	dir := nicCluster(t, "198.18.80.0/24")
	t.Run("lean-producer", func(t *testing.T) { leanShapedLinkCheck(t, dir) })
	t.Run("consumer-fanout", func(t *testing.T) { consumerFanoutCheck(t, dir) })
	// After the two above, whose load warms the brokers further: run first, in CI (a slower
	// 2-core host) its first four trials, in the first 45 s after the cluster's 20 s JIT warm-up, were
	// overloaded at 93-95% of the links, 7% below the boundary its second search found, and
	// failed the 2-point check. Warming is the likely cause, not shown: that log named no reasons
	// (moTrials logs them now, with the brokers' compiler CPU).
	t.Run("heroku", func(t *testing.T) { messageOverheadCheck(t, dir) })
	if _, stderr, code := plimsoll(t, "cluster", "shape", "2", "4Mbit/s", "--cluster-dir", dir); code != 0 {
		t.Fatalf("cluster shape: exit %d\n%s", code, stderr)
	}
	t.Run("slow-link", func(t *testing.T) { slowLinkCheck(t, dir) })
	// Last, so that what it leaves does not matter; brokers 1 and 3 still have 16 Mbit/s links.
	// The cut outlasts broker.session.timeout.ms (9 s), so the controller fences the broker and
	// takes it out of every ISR (this cluster keeps replica.lag.time.max.ms at 30 s): an 8 s cut
	// left the ISR whole, its recovery 0.14 s. A cut leaves connections open, so the cut broker
	// must not be the active controller (notController).
	t.Run("cut", func(t *testing.T) {
		faultCheck(t, dir, fmt.Sprintf("cut %d at 5s for 12s", notController(t, dir, 1, 3)), "25s")
	})
}

// linksCarryTheLoad checks, in the USE table of a run far above the links' capacity, that the
// brokers' traffic crosses their shaped links: no broker's link (its namespace's eth0 bytes, read
// from /proc/PID/net/dev) carries more than its NIC's rate, and the busiest one is filled.
func linksCarryTheLoad(t *testing.T, table use.Table) {
	t.Helper()
	busiest := 0.0
	for _, id := range []string{"1", "2", "3"} {
		u := useRow(t, table, "broker "+id, "network in").Utilisation
		if u.Metric != "link bytes in ÷ NIC" || u.Unit != use.UnitPct {
			t.Fatalf("broker %s network in utilisation %+v: want the link's own bytes in ÷ NIC, in %%", id, u)
		}
		t.Logf("broker %s link in: %.1f%% of its NIC (max %.1f%%)", id, u.Mean.Or(0), u.Max.Or(0))
		if u.Mean.Or(0) > 103 {
			t.Errorf("broker %s received %.1f%% of its NIC's rate: traffic does not cross the shaped link", id, u.Mean.Or(0))
		}
		busiest = max(busiest, u.Mean.Or(0))
	}
	if busiest < 70 {
		t.Errorf("the busiest broker's link carried %.1f%% of its NIC: the links never filled, the check proves nothing", busiest)
	}
}

// nicRun runs rate msgs/s of 1 KB for 15 s after a 10 s warm-up on the cluster in dir and
// returns the run's directory; a run that did not finish with a verdict fails the test.
func nicRun(t *testing.T, dir, rate string) string {
	t.Helper()
	out := t.TempDir()
	_, stderr, code := plimsoll(t, "run", "--cluster-dir", dir, "--rate", rate, "--message-size", "1000",
		"--duration", "15s", "--warmup", "10s", "--out", out, "--drain-timeout", "10s")
	if code != 0 && code != ExitOverloaded && code != ExitInvalid {
		t.Fatalf("run at %s msgs/s: exit %d\n%s", rate, code, stderr)
	}
	return out
}

// nicCluster starts a cluster of the test's own behind emulated 16 Mbit/s NICs on subnet (each
// test its own, so that they never collide) and stops it when the test ends; it skips, or fails
// (nictest.SkipOrFail), where emulated NICs cannot be made.
func nicCluster(t *testing.T, subnet string) string {
	t.Helper()
	if err := localkafka.CheckNIC(); err != nil {
		nictest.SkipOrFail(t, err)
	}
	dir := filepath.Join(t.TempDir(), "nic-cluster")
	if _, stderr, code := plimsoll(t, "cluster", "up", "--cluster-dir", dir, "--heap", "768m", "--nic", "16Mbit/s", "--warm-jit", "20s",
		"--subnet", subnet); code != 0 {
		t.Fatalf("cluster up --nic: exit %d\n%s", code, stderr)
	}
	c, err := localkafka.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := len(c.Leftovers()), 2+3*len(c.Brokers); got != want {
		t.Errorf("found %d network pieces of the emulated NICs, want %d: %v", got, want, c.Leftovers())
	}
	t.Cleanup(func() {
		plimsoll(t, "cluster", "down", "--cluster-dir", dir)
		if left := c.Leftovers(); len(left) > 0 {
			t.Errorf("cluster down left network pieces behind: %v", left)
		}
	})
	return dir
}
