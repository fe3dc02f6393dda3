//go:build integration

package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/plimsoll/plimsoll/localkafka"
	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"
)

// clusterDir holds the one real 3-broker cluster the CLI tests share.
var clusterDir string

// sharedClusterEnv names the directory of a cluster the integration packages share (`make test`
// sets it): the first test to need it starts it there (up) and it is left running for the
// packages after this one; localkafka's tests, run last, stop it. Unset, the package starts and
// stops a cluster of its own.
const sharedClusterEnv = "PLIMSOLL_IT_CLUSTER"

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "plimsoll-cli-it-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	clusterDir = filepath.Join(dir, "cluster")
	handed := os.Getenv(sharedClusterEnv)
	if handed != "" {
		clusterDir = handed
	}
	code := m.Run()
	if handed == "" {
		localkafka.Down(clusterDir, false, 30*time.Second)
	}
	os.RemoveAll(dir)
	os.Exit(code)
}

// plimsoll runs the CLI in-process and returns stdout, stderr and the exit code.
func plimsoll(t *testing.T, args ...string) (string, string, int) {
	t.Helper()
	root := newRootCmd()
	var out, errb bytes.Buffer
	root.SetOut(&out)
	root.SetErr(&errb)
	root.SetArgs(args)
	err := root.Execute()
	f, _ := os.CreateTemp(t.TempDir(), "stderr")
	code := exitCode(err, f)
	f.Seek(0, 0)
	var msg bytes.Buffer
	msg.ReadFrom(f)
	f.Close()
	return out.String(), errb.String() + msg.String(), code
}

// up starts the shared cluster once (the first test to need it pays the start-up).
func up(t *testing.T) *localkafka.State {
	t.Helper()
	if c, err := localkafka.Open(clusterDir); err == nil {
		return c
	}
	// A short replica.lag.time.max.ms lets a paused follower leave the ISR within a test's window.
	stdout, stderr, code := plimsoll(t, "cluster", "up", "--cluster-dir", clusterDir, "--heap", "768m",
		"--broker-config", "replica.lag.time.max.ms=5000", "--warm-jit", "20s")
	if code != 0 {
		t.Fatalf("cluster up: exit %d\n%s\n%s", code, stdout, stderr)
	}
	c, err := localkafka.Open(clusterDir)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func TestClusterStatusJSON(t *testing.T) {
	up(t)
	stdout, stderr, code := plimsoll(t, "cluster", "status", "--json", "--cluster-dir", clusterDir)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var s struct {
		KafkaVersion string `json:"kafka_version"`
		Bootstrap    string `json:"bootstrap"`
		Brokers      []struct {
			ID         int    `json:"id"`
			PID        int    `json:"pid"`
			Address    string `json:"address"`
			MetricsURL string `json:"metrics_url"`
			Alive      bool   `json:"alive"`
		} `json:"brokers"`
	}
	if err := json.Unmarshal([]byte(stdout), &s); err != nil {
		t.Fatalf("status --json is not JSON: %v\n%s", err, stdout)
	}
	if s.KafkaVersion != localkafka.DefaultKafkaVersion || len(s.Brokers) != 3 || strings.Count(s.Bootstrap, ",") != 2 {
		t.Errorf("status = %+v", s)
	}
	for _, b := range s.Brokers {
		if !b.Alive || b.PID <= 0 || !strings.HasPrefix(b.MetricsURL, "http://127.0.0.1:") {
			t.Errorf("broker %+v", b)
		}
	}
}

// result is the part of result.json the tests read.
type result struct {
	KafkaVersion       string  `json:"kafka_version"`
	TargetMsgsPerSec   float64 `json:"target_msgs_per_sec"`
	ProducedMsgsPerSec float64 `json:"produced_msgs_per_sec"`
	Counts             struct {
		Sent, Acked, Failed, Consumed, Lost, Duplicated int64
	} `json:"counts"`
	LatencyMs map[string]map[string]float64 `json:"latency_ms"`
	Config    struct {
		Topics      []string `json:"topics"`
		ClientProps struct {
			Producer struct {
				Props map[string]string `json:"props"`
			} `json:"producer"`
		} `json:"client_props"`
	} `json:"config"`
	Timeline []json.RawMessage `json:"timeline"`
	Verdict  struct {
		State   string `json:"state"`
		Reasons []struct{ Criterion, Text string }
	} `json:"verdict"`
	USE *struct{ Rows []json.RawMessage } `json:"use"`
}

func readResult(t *testing.T, dir string) result {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(dir, "result.json"))
	if err != nil {
		t.Fatal(err)
	}
	var r result
	if err := json.Unmarshal(data, &r); err != nil {
		t.Fatal(err)
	}
	return r
}

// topicsLeft is the topics starting with prefix that the cluster still lists 15 s after a
// command that deleted them ended (stillListed): the controller commits a deletion before every
// broker has applied it, and a broker lists the topic until then (on a clean clone, a listing
// just after `run` exited 2 under an ACL, its deletion accepted, still named its topic).
func topicsLeft(t *testing.T, c *localkafka.State, prefix string) []string {
	t.Helper()
	cl, err := kgo.NewClient(kgo.SeedBrokers(c.Target().Bootstrap...), kgo.MetadataMinAge(100*time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	return stillListed(kadm.NewClient(cl), prefix, 15*time.Second)
}

// topicsWithPrefix lists the cluster's topics that start with prefix.
func topicsWithPrefix(t *testing.T, c *localkafka.State, prefix string) []string {
	t.Helper()
	cl, err := kgo.NewClient(kgo.SeedBrokers(c.Target().Bootstrap...))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	td, err := kadm.NewClient(cl).ListTopics(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, name := range td.Names() {
		if strings.HasPrefix(name, prefix) {
			out = append(out, name)
		}
	}
	return out
}

func TestRunModestRateNoLoss(t *testing.T) {
	c := up(t)
	out := t.TempDir()
	const prefix = "plimsoll-it-modest-"
	// The default warm-up (10 s): even after settling, acknowledgements on this host stall for
	// 2-4 s now and then in a run's first seconds (measured; the cause is not established), and a
	// backlog acknowledged in the window would read as more than the target rate.
	// The run serves its Prometheus endpoint, scraped as it goes (checkScrapes) every 250 ms: a
	// 3 s linger gives the scraper about 12 chances at the figures after the verdict.
	scr, addr := scrapeDuring(t)
	stdout, stderr, code := plimsoll(t, "run", "--cluster-dir", clusterDir, "--rate", "1000", "--message-size", "512",
		"--duration", "15s", "--warmup", "10s", "--producer-prop", "acks=all", "--producer-prop", "enable.idempotence=true",
		"--topic-prefix", prefix, "--out", out, "--slo-p99", "0", "--metrics-listen", addr, "--metrics-linger", "3s")
	scrapes := scr.stop()
	if code != 0 && code != ExitOverloaded && code != ExitInvalid {
		t.Fatalf("run: exit %d\n%s\n%s", code, stdout, stderr)
	}
	r := readResult(t, out)
	checkScrapes(t, scrapes, addr, stderr, r)
	if r.TargetMsgsPerSec != 1000 {
		t.Errorf("target = %v", r.TargetMsgsPerSec)
	}
	if d := r.ProducedMsgsPerSec/r.TargetMsgsPerSec - 1; d < -0.03 || d > 0.03 {
		t.Errorf("produced %.1f msgs/s, more than 3%% from the 1000 targeted", r.ProducedMsgsPerSec)
	}
	if r.Counts.Lost != 0 || r.Counts.Duplicated != 0 || r.Counts.Failed != 0 {
		t.Errorf("with acks=all and idempotence: counts %+v", r.Counts)
	}
	if r.Counts.Acked < 14000 || r.Counts.Consumed < r.Counts.Acked {
		t.Errorf("counts %+v: expected ~15000 acked and all consumed", r.Counts)
	}
	if e2e := r.LatencyMs["end_to_end"]; e2e["p50"] <= 0 || e2e["max"] < e2e["p99"] {
		t.Errorf("end-to-end latency not recorded: %v", e2e)
	}
	if r.KafkaVersion != localkafka.DefaultKafkaVersion {
		t.Errorf("kafka_version = %q", r.KafkaVersion)
	}
	if got := r.Config.ClientProps.Producer.Props["acks"]; got != "all" && got != "-1" {
		t.Errorf("effective acks = %q", got)
	}
	if len(r.Timeline) < 15 {
		t.Errorf("timeline has %d seconds", len(r.Timeline))
	}
	if r.USE == nil || len(r.USE.Rows) == 0 || r.Verdict.State == "" {
		t.Errorf("result lacks the USE table or the verdict: %+v", r.Verdict)
	}
	for _, f := range []string{"timeline.csv", "histograms.hlog", "probe.json"} {
		if st, err := os.Stat(filepath.Join(out, f)); err != nil || st.Size() == 0 {
			t.Errorf("%s missing or empty: %v", f, err)
		}
	}
	if left := topicsLeft(t, c, prefix); len(left) > 0 {
		t.Errorf("topics left after the run: %v", left)
	}
}

func TestRunOMBWorkload(t *testing.T) {
	up(t)
	dir := t.TempDir()
	wl := filepath.Join(dir, "omb.yaml")
	os.WriteFile(wl, []byte(`name: tiny
topics: 1
partitionsPerTopic: 6
messageSize: 256
useRandomizedPayloads: true
randomBytesRatio: 1.0
randomizedPayloadPoolSize: 100
subscriptionsPerTopic: 1
consumerPerSubscription: 1
producersPerTopic: 1
producerRate: 500
consumerBacklogSizeGB: 0
testDurationMinutes: 1
warmupDurationMinutes: 0
`), 0o644)
	drv := filepath.Join(dir, "driver.yaml")
	os.WriteFile(drv, []byte(`name: Kafka
driverClass: io.openmessaging.benchmark.driver.kafka.KafkaBenchmarkDriver
replicationFactor: 2
topicConfig: |
  min.insync.replicas=1
commonConfig: |
  bootstrap.servers=localhost:9092
producerConfig: |
  acks=all
  linger.ms=1
consumerConfig: |
  auto.offset.reset=earliest
  enable.auto.commit=false
`), 0o644)
	out := t.TempDir()
	// The file runs as OMB wrote it; only the window is shortened from the command line.
	stdout, stderr, code := plimsoll(t, "run", "--cluster-dir", clusterDir, "--workload", wl, "--driver", drv, "--out", out,
		"--slo-p99", "0", "--duration", "12s", "--warmup", "3s")
	if code != 0 && code != ExitOverloaded && code != ExitInvalid {
		t.Fatalf("OMB run: exit %d\n%s\n%s", code, stdout, stderr)
	}
	r := readResult(t, out)
	if r.TargetMsgsPerSec != 500 || r.Counts.Acked == 0 || r.Counts.Lost != 0 {
		t.Errorf("OMB run: target %v counts %+v", r.TargetMsgsPerSec, r.Counts)
	}
}

func TestRunBadInput(t *testing.T) {
	c := up(t)
	// An existing topic with the run's prefix: refused before anything is produced, and the
	// existing topic is left alone.
	cl, _ := kgo.NewClient(kgo.SeedBrokers(c.Target().Bootstrap...))
	defer cl.Close()
	adm := kadm.NewClient(cl)
	ctx := context.Background()
	if _, err := adm.CreateTopic(ctx, 1, 1, nil, "plimsoll-it-taken-x"); err != nil {
		t.Fatal(err)
	}
	defer adm.DeleteTopics(ctx, "plimsoll-it-taken-x")

	bad := filepath.Join(t.TempDir(), "bad.yaml")
	os.WriteFile(bad, []byte("rate: 100\nmesage-size: 100\n"), 0o644)
	cases := []struct {
		name string
		args []string
		code int
		want string
	}{
		{"unknown yaml field", []string{"--workload", bad}, ExitUsage, "bad.yaml:2"},
		{"negative rate", []string{"--rate", "-5"}, ExitUsage, "rate"},
		{"tiny message", []string{"--message-size", "10"}, ExitUsage, "message-size"},
		{"unknown property", []string{"--producer-prop", "lingr.ms=5"}, ExitUsage, "linger.ms"},
		{"min isr above rf", []string{"--replication-factor", "2", "--min-insync-replicas", "3"}, ExitUsage, "min-insync-replicas"},
		{"unreachable bootstrap", []string{"--bootstrap", "127.0.0.1:1"}, ExitError, "cannot reach"},
		{"existing prefix", []string{"--cluster-dir", clusterDir, "--topic-prefix", "plimsoll-it-taken-", "--duration", "5s"}, ExitUsage, "already exist"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			start := time.Now()
			_, stderr, code := plimsoll(t, append([]string{"run", "--duration", "5s", "--warmup", "0s"}, tc.args...)...)
			if code != tc.code || !strings.Contains(stderr, tc.want) {
				t.Errorf("exit %d (want %d), stderr %q (want mention of %q)", code, tc.code, stderr, tc.want)
			}
			if time.Since(start) > 40*time.Second {
				t.Errorf("took %v: bad input must fail fast", time.Since(start))
			}
		})
	}
	if left := topicsWithPrefix(t, c, "plimsoll-it-taken-"); len(left) != 1 {
		t.Errorf("topics with the taken prefix after the refused run: %v (want only the one we made)", left)
	}
}
