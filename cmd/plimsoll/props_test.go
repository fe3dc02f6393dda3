//go:build !integration

package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestPropertyErrorsAreUsageErrors: a Kafka property plimsoll does not know, or cannot honour,
// stops run and limit alike with exit 2 before any cluster is contacted (127.0.0.1:1 refuses
// connections: reaching it would exit 1), naming the property and where it was set.
func TestPropertyErrorsAreUsageErrors(t *testing.T) {
	dir := t.TempDir()
	conf := filepath.Join(dir, "producer.properties")
	os.WriteFile(conf, []byte("acks=all\n# the next line is a typo\nlinger.mss=5\n"), 0o644)
	wl := filepath.Join(dir, "omb.yaml")
	os.WriteFile(wl, []byte("topics: 1\npartitionsPerTopic: 1\nmessageSize: 100\nuseRandomizedPayloads: true\n"+
		"subscriptionsPerTopic: 1\nconsumerPerSubscription: 1\nproducersPerTopic: 1\nproducerRate: 10\ntestDurationMinutes: 1\n"), 0o644)
	drv := filepath.Join(dir, "driver.yaml")
	os.WriteFile(drv, []byte("driverClass: io.openmessaging.benchmark.driver.kafka.KafkaBenchmarkDriver\n"+
		"producerConfig: |\n  acks=all\n  transactional.id=bench\n"), 0o644)
	cases := []struct {
		name string
		args []string
		want string
	}{
		{"refused flag", []string{"--producer-prop", "max.block.ms=100"}, "--producer-prop max.block.ms: "},
		{"unknown flag", []string{"--consumer-prop", "fetch.min.byte=1"}, `did you mean "fetch.min.bytes"?`},
		{"conflict", []string{"--producer-prop", "enable.idempotence=true", "--producer-prop", "acks=1"}, "acks=1 conflicts with enable.idempotence=true"},
		{"config file", []string{"--producer.config", conf}, conf + `:3: linger.mss: unknown producer property; did you mean "linger.ms"?`},
		{"driver", []string{"--workload", wl, "--driver", drv}, drv + ":4: transactional.id: transactional producing is not supported"},
	}
	for _, tc := range cases {
		for _, cmd := range []string{"run", "limit"} {
			args := append([]string{cmd, "--bootstrap", "127.0.0.1:1", "--out", filepath.Join(t.TempDir(), "out")}, tc.args...)
			_, stderr, code := runCLI(t, args...)
			if code != ExitUsage || !strings.Contains(stderr, tc.want) {
				t.Errorf("%s %s: exit %d, stderr %q; want %d and %q", cmd, tc.name, code, stderr, ExitUsage, tc.want)
			}
		}
	}
}

// TestLimitChecksEverySize: a size whose messages cannot be sent under the workload's
// properties stops limit before its first trial.
func TestLimitChecksEverySize(t *testing.T) {
	_, stderr, code := runCLI(t, "limit", "--bootstrap", "127.0.0.1:1", "--out", filepath.Join(t.TempDir(), "out"),
		"--message-sizes", "100,200000", "--producer-prop", "max.request.size=100000")
	if code != ExitUsage || !strings.Contains(stderr, "with 200000-byte messages") || !strings.Contains(stderr, "max.request.size 100000") {
		t.Errorf("exit %d, stderr %q", code, stderr)
	}
}
