//go:build integration

package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/plimsoll/plimsoll/arms"
)

// abRun is the short run each repetition of the A/B tests executes: a modest fixed rate. The
// tests check the driver, so their arms have one broker each (brokers=1): a fresh 3-broker
// cluster took 67 s a repetition here against about 35 s, and keeps this 2-core host fully busy
// for its first minutes, JIT compilation mostly (docs/warmup.md). A repetition may still be
// judged overloaded or invalid; the driver keeps and compares such results, and so do these
// tests.
var abRun = []string{"run", "--rate", "500", "--message-size", "512", "--duration", "8s", "--warmup", "3s",
	"--slo-p99", "0", "--drain-timeout", "10s"}

// abExperiment runs `compare --a A --b B --repeat N --out DIR -- run ...` and returns its
// output and manifest.
func abExperiment(t *testing.T, a, b, repeat, warm string) (string, arms.Manifest, int) {
	t.Helper()
	out := filepath.Join(t.TempDir(), "ab")
	args := append([]string{"compare", "--a", a, "--b", b, "--repeat", repeat, "--out", out, "--warm-jit", warm, "--"}, abRun...)
	stdout, stderr, code := plimsoll(t, args...)
	t.Logf("plimsoll %s:\n%s", strings.Join(args, " "), stdout)
	var m arms.Manifest
	data, err := os.ReadFile(filepath.Join(out, "manifest.json"))
	if err != nil {
		t.Fatalf("exit %d, no manifest: %v\n%s", code, err, stderr)
	}
	if err := json.Unmarshal(data, &m); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(out, "compare.json")); err != nil {
		t.Errorf("no compare.json: %v\n%s", err, stderr)
	}
	if _, err := os.Stat(filepath.Join(out, "index.html")); err != nil {
		t.Errorf("no index.html: %v\n%s", err, stderr)
	}
	left, _ := filepath.Glob(filepath.Join(out, ".cluster-*", "cluster.json"))
	if len(left) > 0 {
		t.Errorf("clusters left up: %v", left)
	}
	for _, st := range m.Order {
		data, err := os.ReadFile(filepath.Join(out, st.Dir, "result.json"))
		if err != nil {
			t.Errorf("repetition %s kept no result: %v", st.Dir, err)
			continue
		}
		var r struct {
			Config struct {
				Brokers int `json:"brokers"`
				RF      int `json:"replication_factor"`
			} `json:"config"`
			Traffic []struct{ ProduceIn float64 } `json:"broker_traffic"`
		}
		if err := json.Unmarshal(data, &r); err != nil || r.Config.Brokers != 1 || r.Config.RF != 1 {
			t.Errorf("repetition %s ran on %d brokers with rf %d (%v); the arms ask for brokers=1, so rf 1", st.Dir, r.Config.Brokers, r.Config.RF, err)
		}
		// The broker's JMX exporter served Kafka's bytes-in metric on this release (3.9's
		// logging and exporter set-up differ from 4.x's): the probe read a produce rate from it.
		if len(r.Traffic) != 1 || r.Traffic[0].ProduceIn <= 0 {
			t.Errorf("repetition %s (Kafka %s): broker traffic %+v, want the one broker's bytes in from Kafka's metrics", st.Dir, st.KafkaVersion, r.Traffic)
		}
	}
	return stdout, m, code
}

// TestCompareABNoiseCheck: two identical arms, twice each, interleaved A B B A on fresh
// clusters: an A/A noise check with no significant difference.
func TestCompareABNoiseCheck(t *testing.T) {
	// No warm-up: the four clusters are equally cold, which an A/A check must find no difference
	// in; TestCompareABKafkaVersions exercises the driver's warm-up. 20 s saved a suite.
	stdout, m, code := abExperiment(t, "brokers=1,heap=512m", "brokers=1,heap=512m", "2", "0")
	if code != ExitOK {
		t.Fatalf("exit %d, want 0", code)
	}
	var order []string
	for _, st := range m.Order {
		order = append(order, st.Dir)
		kept := st.Exit == ExitOK || st.Exit == ExitOverloaded || st.Exit == ExitInvalid
		if st.KafkaVersion != "4.1.0" || !kept || st.Error != "" || st.JavaMajor < 17 {
			t.Errorf("step %+v: want Kafka 4.1.0, exit 0, 3 or 4 with no error, java 17 or later", st)
		}
	}
	if strings.Join(order, " ") != "a-1 b-1 b-2 a-2" || !m.NoiseCheck || m.Verdict != "no significant difference" {
		t.Errorf("order %v, noise check %v, verdict %q; want a-1 b-1 b-2 a-2, true, no significant difference", order, m.NoiseCheck, m.Verdict)
	}
	for _, want := range []string{"A/A noise check", "A/A noise floor", "produced", "no significant difference"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("output lacks %q", want)
		}
	}
}

// TestCompareABKafkaVersions: Kafka 3.9.1 against 4.1.0, one repetition each, end to end.
func TestCompareABKafkaVersions(t *testing.T) {
	// A short warm-up per cluster that still exercises the driver's warm-up; no length of warm-up
	// this suite can afford finishes the JIT's work here.
	stdout, m, code := abExperiment(t, "kafka=3.9.1,brokers=1,heap=512m", "kafka=4.1.0,brokers=1,heap=512m", "1", "5s")
	if code != ExitOK && code != ExitSlower {
		t.Fatalf("exit %d, want 0 or 5", code)
	}
	if len(m.Order) != 2 || m.Order[0].KafkaVersion != "3.9.1" || m.Order[1].KafkaVersion != "4.1.0" || m.NoiseCheck {
		t.Errorf("manifest %+v: want a-1 on 3.9.1, b-1 on 4.1.0, not a noise check", m)
	}
	if !strings.Contains(stdout, "arm A: kafka=3.9.1,brokers=1,heap=512m") || !strings.Contains(stdout, "produced") {
		t.Errorf("output lacks the arms or the figures")
	}
}

// TestCompareABUnresolvableKafka: a release Maven cannot resolve is exit 2 naming the arm's
// entry, before any cluster starts or anything is written.
func TestCompareABUnresolvableKafka(t *testing.T) {
	out := filepath.Join(t.TempDir(), "ab")
	_, stderr, code := plimsoll(t, append([]string{"compare", "--a", "kafka=3.9.99", "--b", "", "--out", out, "--"}, abRun...)...)
	if code != ExitUsage || !strings.Contains(stderr, `--a "kafka=3.9.99": kafka version not resolvable`) {
		t.Errorf("exit %d, want 2 naming --a kafka=3.9.99:\n%s", code, stderr)
	}
	if _, err := os.Stat(out); err == nil {
		t.Errorf("%s was created", out)
	}
}
