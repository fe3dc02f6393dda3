package loadgen

import (
	"fmt"
	"io"
	"os"
	"strings"
	"testing"

	"github.com/twmb/franz-go/pkg/kfake"
)

// envKfakeServe makes the test binary a kfake cluster for BenchmarkConsumer instead of running
// tests: the benchmark measures the client's allocations and CPU in its own process, so the
// fake broker's own work must happen in another.
const envKfakeServe = "PLIMSOLL_KFAKE_SERVE"

func TestMain(m *testing.M) {
	if os.Getenv(envKfakeServe) == "1" {
		os.Exit(serveKfake())
	}
	os.Exit(m.Run())
}

// serveKfake runs a one-broker kfake cluster holding the benchmark's topic, prints its
// addresses on one line and serves until its standard input is closed.
func serveKfake() int {
	c, err := kfake.NewCluster(kfake.NumBrokers(1), kfake.SeedTopics(benchPartitions, benchTopic))
	if err != nil {
		fmt.Fprintln(os.Stderr, "kfake:", err)
		return 1
	}
	defer c.Close()
	fmt.Println(strings.Join(c.ListenAddrs(), ","))
	_, _ = io.Copy(io.Discard, os.Stdin)
	return 0
}
