package localkafka

import (
	"bytes"
	"errors"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/plimsoll/plimsoll/localkafka/nictest"
)

// TestClaimGatewaysLive makes the bridge and namespace a cluster killed before its `down` leaves
// (here with no Kafka at all) and checks that a new cluster on the same subnet reclaims them while
// no process lives in the namespace, and refuses, naming the pid, while one does.
func TestClaimGatewaysLive(t *testing.T) {
	if err := CheckNIC(); err != nil {
		nictest.SkipOrFail(t, err)
	}
	stale := nicNet{tag: "f00d"}
	t.Cleanup(stale.teardown)
	mustRun := func(args ...string) {
		t.Helper()
		if err := run(args[0], args[1:]...); err != nil {
			t.Fatal(err)
		}
	}
	mustRun("ip", "link", "add", "plf00dd", "type", "bridge")
	mustRun("ip", "addr", "add", "198.18.250.1/24", "dev", "plf00dd")
	mustRun("ip", "netns", "add", "plimsoll-f00d-b1")
	next, err := newNICNet(t.TempDir(), "198.18.250.0/24")
	if err != nil {
		t.Fatal(err)
	}

	sleeper := exec.Command("ip", "netns", "exec", "plimsoll-f00d-b1", "sleep", "60")
	if err := sleeper.Start(); err != nil {
		t.Fatal(err)
	}
	defer sleeper.Process.Kill()
	for deadline := time.Now().Add(10 * time.Second); len(stale.pids()) == 0; time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the sleeper never showed in its namespace")
		}
	}
	err = next.claimGateways(&bytes.Buffer{})
	if !errors.Is(err, ErrSubnetUsed) || !strings.Contains(err.Error(), "plf00dd") {
		t.Fatalf("with a process in its namespace: %v, want ErrSubnetUsed naming plf00dd", err)
	}
	if left := stale.leftovers(); len(left) != 2 {
		t.Fatalf("a live cluster's NICs were touched: left %q", left)
	}

	sleeper.Process.Kill()
	sleeper.Wait()
	var log bytes.Buffer
	if err := next.claimGateways(&log); err != nil {
		t.Fatalf("with no process left: %v", err)
	}
	if left := stale.leftovers(); len(left) != 0 {
		t.Errorf("left behind: %q", left)
	}
	if !strings.Contains(log.String(), "reclaiming 198.18.250.1 from bridge plf00dd") {
		t.Errorf("log %q does not say what was reclaimed", log.String())
	}
}

// TestClaimGatewaysForeign checks that an address held by an interface plimsoll did not make is
// never reclaimed.
func TestClaimGatewaysForeign(t *testing.T) {
	if err := CheckNIC(); err != nil {
		nictest.SkipOrFail(t, err)
	}
	err := run("ip", "link", "add", "plimforeign", "type", "bridge")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { exec.Command("ip", "link", "del", "plimforeign").Run() })
	if err = run("ip", "addr", "add", "198.18.251.1/24", "dev", "plimforeign"); err != nil {
		t.Fatal(err)
	}
	next, err := newNICNet(t.TempDir(), "198.18.251.0/24")
	if err != nil {
		t.Fatal(err)
	}
	if err := next.claimGateways(&bytes.Buffer{}); !errors.Is(err, ErrSubnetUsed) || !strings.Contains(err.Error(), "plimforeign") {
		t.Fatalf("claimGateways = %v, want ErrSubnetUsed naming plimforeign", err)
	}
}
