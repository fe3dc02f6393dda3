// Package nictest decides what a test that needs emulated NICs does on a machine without them:
// skip, or fail when the run requires them (as `make test` does as root, so CI never passes
// without those tests).
package nictest

import (
	"os"
	"testing"
)

// RequireNICEnv names the environment variable that makes the emulated-NIC tests fail, rather
// than skip, when this machine cannot emulate NICs. `make test` sets it when it runs as root, so
// CI (which runs as root) never passes without them.
const RequireNICEnv = "PLIMSOLL_REQUIRE_NIC"

// SkipOrFail ends a test that needs emulated NICs on a machine without them (err from
// localkafka.CheckNIC): a failure when RequireNICEnv is set, a skip naming the reason otherwise.
func SkipOrFail(t testing.TB, err error) {
	t.Helper()
	if os.Getenv(RequireNICEnv) != "" {
		t.Fatalf("emulated NICs are required here (%s is set) but unavailable: %v", RequireNICEnv, err)
	}
	t.Skipf("emulated NICs unavailable, so this test did not run (set %s to make that a failure): %v", RequireNICEnv, err)
}
