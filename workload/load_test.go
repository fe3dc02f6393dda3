package workload

import (
	"encoding/json"
	"errors"
	"fmt"
	goldenfile "github.com/plimsoll/plimsoll/internal/golden"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// golden compares got with testdata/golden/name, or rewrites it with -update.
func golden(t *testing.T, name, got string) {
	t.Helper()
	goldenfile.Check(t, filepath.Join("testdata", "golden", name), []byte(got))
}

// portable replaces this machine's path to testdata so golden files hold on any checkout.
func portable(t *testing.T, s string) string {
	abs, err := filepath.Abs("testdata")
	if err != nil {
		t.Fatal(err)
	}
	s = strings.ReplaceAll(s, abs, "$TESTDATA")
	if wd, err := os.Getwd(); err == nil {
		s = strings.ReplaceAll(s, wd, "$PKG")
	}
	return s
}

// dump renders everything a loaded spec says, for golden comparison.
func dump(s Spec) string {
	var b strings.Builder
	fmt.Fprintf(&b, "spec: %s\n", s)
	j, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		panic(err)
	}
	b.Write(j)
	b.WriteString("\n")
	fmt.Fprintf(&b, "producer client properties:\n%s", indent(s.EffectiveProducerProps().String()))
	fmt.Fprintf(&b, "consumer client properties:\n%s", indent(s.EffectiveConsumerProps().String()))
	fmt.Fprintf(&b, "payload bytes: %d\n", len(s.Payload.Data))
	b.WriteString("warnings:\n")
	for _, w := range s.Warnings() {
		b.WriteString("- " + w + "\n")
	}
	return b.String()
}

func indent(s string) string {
	if s == "" {
		return ""
	}
	return "  " + strings.ReplaceAll(strings.TrimSuffix(s, "\n"), "\n", "\n  ") + "\n"
}

func TestLoadGood(t *testing.T) {
	cases := []struct {
		golden, workload, driver string
	}{
		{"good_minimal", "testdata/good/minimal.yaml", ""},
		{"good_full", "testdata/good/full.yaml", ""},
		{"good_with_config", "testdata/good/with-config.yaml", ""},
		{"good_payload_file", "testdata/good/payload-file.yaml", ""},
		{"good_backlog", "testdata/good/backlog.yaml", ""},
		{"omb_1kb", "testdata/omb/workloads/1-topic-16-partitions-1kb.yaml", ""},
		{"omb_1kb_driver", "testdata/omb/workloads/1-topic-16-partitions-1kb.yaml", "testdata/omb/driver-kafka/kafka-throughput.yaml"},
		{"omb_backlog_driver", "testdata/omb/workloads/10-topics-3-partitions-100b-backlog.yaml", "testdata/omb/driver-kafka/kafka-throughput.yaml"},
		{"omb_fork", "testdata/omb/workloads/fork-increment.yaml", ""},
	}
	for _, c := range cases {
		t.Run(c.golden, func(t *testing.T) {
			var s Spec
			var err error
			if c.driver == "" {
				s, err = Load(c.workload)
			} else {
				s, err = LoadOMB(c.workload, c.driver)
			}
			if err != nil {
				t.Fatalf("load: %v", err)
			}
			if err := s.Validate(); err != nil {
				t.Fatalf("a loaded spec must validate: %v", err)
			}
			golden(t, c.golden+".golden", portable(t, dump(s)))
		})
	}
}

func TestLoadBad(t *testing.T) {
	files, err := filepath.Glob("testdata/bad/*.yaml")
	if err != nil || len(files) < 30 {
		t.Fatalf("expected the bad cases in testdata/bad, got %d (%v)", len(files), err)
	}
	for _, f := range files {
		name := strings.TrimSuffix(filepath.Base(f), ".yaml")
		t.Run(name, func(t *testing.T) {
			s, err := Load(f)
			if err == nil {
				t.Fatalf("Load(%s) succeeded, want an error; spec: %s", f, s)
			}
			if !errors.Is(err, ErrInvalid) {
				t.Errorf("error does not wrap ErrInvalid: %v", err)
			}
			if !strings.Contains(err.Error(), f) {
				t.Errorf("error does not name the file %s: %v", f, err)
			}
			golden(t, "bad_"+name+".golden", portable(t, err.Error())+"\n")
		})
	}
}

func TestLoadOMBBad(t *testing.T) {
	cases := []struct{ golden, workload, driver string }{
		{"driver_typo", "testdata/omb/workloads/1-topic-16-partitions-1kb.yaml", "testdata/omb/driver-kafka/kafka-typo.yaml"},
		{"driver_pulsar", "testdata/omb/workloads/1-topic-16-partitions-1kb.yaml", "testdata/omb/driver-kafka/pulsar.yaml"},
		{"driver_as_workload", "testdata/omb/driver-kafka/kafka-throughput.yaml", ""},
		{"workload_as_driver", "testdata/omb/workloads/1-topic-16-partitions-1kb.yaml", "testdata/omb/workloads/fork-increment.yaml"},
		{"driver_for_plimsoll", "testdata/good/minimal.yaml", "testdata/omb/driver-kafka/kafka-throughput.yaml"},
		{"driver_missing", "testdata/good/minimal.yaml", "testdata/omb/driver-kafka/no-such.yaml"},
	}
	for _, c := range cases {
		t.Run(c.golden, func(t *testing.T) {
			_, err := LoadOMB(c.workload, c.driver)
			if err == nil {
				t.Fatal("LoadOMB succeeded, want an error")
			}
			if !errors.Is(err, ErrInvalid) {
				t.Errorf("error does not wrap ErrInvalid: %v", err)
			}
			golden(t, "ombbad_"+c.golden+".golden", portable(t, err.Error())+"\n")
		})
	}
}

func TestDriverErrorLineInBlock(t *testing.T) {
	// The typo sits inside producerConfig's block; the error must point at its real line.
	_, err := LoadOMB("testdata/omb/workloads/1-topic-16-partitions-1kb.yaml", "testdata/omb/driver-kafka/kafka-typo.yaml")
	var fe *FieldError
	if !errors.As(err, &fe) {
		t.Fatalf("want a *FieldError, got %v", err)
	}
	if fe.Pos != "testdata/omb/driver-kafka/kafka-typo.yaml:11" || fe.Field != "linger.mss" || !errors.Is(err, ErrUnknownProperty) {
		t.Errorf("got pos %q field %q (%v); want kafka-typo.yaml:11 linger.mss, ErrUnknownProperty", fe.Pos, fe.Field, err)
	}
	if !strings.Contains(err.Error(), `did you mean "linger.ms"?`) {
		t.Errorf("no suggestion in %v", err)
	}
}

func TestOMBMapping(t *testing.T) {
	s, err := LoadOMB("testdata/omb/workloads/10-topics-3-partitions-100b-backlog.yaml", "testdata/omb/driver-kafka/kafka-throughput.yaml")
	if err != nil {
		t.Fatal(err)
	}
	checks := []struct {
		what      string
		got, want any
	}{
		{"format", s.Format, FormatOMB},
		{"producers = producersPerTopic x topics", s.Producers, 10},
		{"consumer groups = subscriptionsPerTopic", s.ConsumerGroups, 2},
		{"consumers per group = consumerPerSubscription", s.ConsumersPerGroup, 2},
		{"rate is the total producerRate", s.Rate, 200000.0},
		{"backlog GB is GiB, as OMB multiplies by 1024^3", s.BacklogBytes, int64(2) << 30},
		{"drain ratio", s.BacklogDrainRatio, 0.95},
		{"duration", s.Duration, 5 * time.Minute},
		{"warm-up", s.Warmup, 2 * time.Minute},
		{"keys", s.Keys, KeysRoundRobin},
		{"payload", s.Payload.String(), "random:0.5"},
		{"pool", s.Payload.PoolSize, 1000},
		{"rf from driver", s.ReplicationFactor, 3},
		{"min.insync.replicas lifted from topicConfig", s.MinInsyncReplicas, 2},
		{"topicConfig left empty", s.TopicConfig.Len(), 0},
		{"driver recorded", s.Driver, "testdata/omb/driver-kafka/kafka-throughput.yaml"},
	}
	for _, c := range checks {
		if c.got != c.want {
			t.Errorf("%s: got %v, want %v", c.what, c.got, c.want)
		}
	}
	pp := s.EffectiveProducerProps()
	if v, _ := pp.Get("acks"); v != "all" {
		t.Errorf("producer acks = %q, want all", v)
	}
	if _, ok := pp.Get("default.api.timeout.ms"); ok {
		t.Error("a consumer-only common property reached the producer properties")
	}
	if v, _ := s.EffectiveConsumerProps().Get("default.api.timeout.ms"); v != "600000" {
		t.Errorf("consumer default.api.timeout.ms = %q, want 600000 from commonConfig", v)
	}
	ign := s.CommonProps.Ignored()
	if len(ign) != 1 || ign[0].Key != "bootstrap.servers" || ign[0].Origin != "testdata/omb/driver-kafka/kafka-throughput.yaml:13" {
		t.Errorf("ignored common props = %+v, want bootstrap.servers at line 13", ign)
	}
}

func TestOMBDefaultWarmup(t *testing.T) {
	s, err := Load("testdata/omb/workloads/1-topic-16-partitions-1kb.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if s.Warmup != time.Minute {
		t.Errorf("warm-up = %s, want OMB's default 1m", s.Warmup)
	}
	if s.ReplicationFactor != 0 {
		t.Errorf("without a driver the runner picks rf; got %d", s.ReplicationFactor)
	}
}

func writeFile(t *testing.T, path string, data []byte) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

const ombTemplate = `topics: 1
partitionsPerTopic: 1
messageSize: %d
payloadFile: %q
subscriptionsPerTopic: 1
consumerPerSubscription: 1
producersPerTopic: 1
producerRate: 1000
testDurationMinutes: 1
`

func TestOMBPayloadFileRelativeToYAML(t *testing.T) {
	root := t.TempDir() // not the working directory, so only YAML-relative lookup can find it
	near := make([]byte, 64)
	far := make([]byte, 32)
	for i := range near {
		near[i] = 'n'
	}
	writeFile(t, filepath.Join(root, "workloads", "payload", "p.data"), near)
	writeFile(t, filepath.Join(root, "payload", "p.data"), far)
	writeFile(t, filepath.Join(root, "payload", "only-above.data"), far)

	wl := filepath.Join(root, "workloads", "w.yaml")
	writeFile(t, wl, fmt.Appendf(nil, ombTemplate, 64, "payload/p.data"))
	s, err := Load(wl)
	if err != nil {
		t.Fatal(err)
	}
	if want := filepath.Join(root, "workloads", "payload", "p.data"); s.Payload.Path != want || string(s.Payload.Data) != string(near) {
		t.Errorf("payload %s (%d B), want the file next to the YAML %s", s.Payload.Path, len(s.Payload.Data), want)
	}

	// OMB's own layout: workloads/ and payload/ side by side, names from the repository root.
	writeFile(t, wl, fmt.Appendf(nil, ombTemplate, 32, "payload/only-above.data"))
	if s, err = Load(wl); err != nil {
		t.Fatal(err)
	}
	if want := filepath.Join(root, "payload", "only-above.data"); s.Payload.Path != want {
		t.Errorf("payload %s, want %s from the YAML's parent directory", s.Payload.Path, want)
	}
}

func TestPlimsollPayloadRelativeToYAML(t *testing.T) {
	root := t.TempDir()
	writeFile(t, filepath.Join(root, "data", "m.bin"), make([]byte, 100))
	wl := filepath.Join(root, "w.yaml")
	writeFile(t, wl, []byte("rate: 10\npayload: file:data/m.bin\n"))
	s, err := Load(wl)
	if err != nil {
		t.Fatal(err)
	}
	if s.MessageSize != 100 || s.Payload.Path != filepath.Join(root, "data", "m.bin") {
		t.Errorf("message-size %d from %s; want 100 from the file next to the YAML", s.MessageSize, s.Payload.Path)
	}
}

func TestLoadMissingFile(t *testing.T) {
	_, err := Load("testdata/no-such-workload.yaml")
	if !errors.Is(err, ErrInvalid) || !errors.Is(err, os.ErrNotExist) {
		t.Errorf("want ErrInvalid and os.ErrNotExist, got %v", err)
	}
}

// TestDocExamples loads the examples in docs/workload.md, so the reference stays true.
func TestDocExamples(t *testing.T) {
	doc, err := os.ReadFile("../docs/workload.md")
	if err != nil {
		t.Skipf("docs not present: %v", err)
	}
	blocks := map[string][]string{}
	for i, part := range strings.Split(string(doc), "```")[1:] {
		if i%2 == 1 {
			continue // text between blocks
		}
		lang, body, _ := strings.Cut(part, "\n")
		blocks[lang] = append(blocks[lang], body)
	}
	if len(blocks["yaml"]) != 3 || len(blocks["properties"]) != 1 {
		t.Fatalf("want 3 yaml blocks and 1 properties block in the doc, got %d and %d", len(blocks["yaml"]), len(blocks["properties"]))
	}
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "steady.yaml"), []byte(blocks["yaml"][0]))
	writeFile(t, filepath.Join(dir, "client.properties"), []byte(blocks["properties"][0]))
	writeFile(t, filepath.Join(dir, "workloads", "omb.yaml"), []byte(blocks["yaml"][1]))
	writeFile(t, filepath.Join(dir, "payload", "payload-1Kb.data"), make([]byte, 1024))
	writeFile(t, filepath.Join(dir, "driver.yaml"), []byte(blocks["yaml"][2]))

	s, err := Load(filepath.Join(dir, "steady.yaml"))
	if err != nil {
		t.Fatalf("the plimsoll example: %v", err)
	}
	if v, _ := s.ProducerProps.Get("compression.type"); v != "lz4" || len(s.ProducerProps.Ignored()) != 1 {
		t.Errorf("the example's producer-props must win over client.properties: %s", s.ProducerProps)
	}
	if _, err := LoadOMB(filepath.Join(dir, "workloads", "omb.yaml"), filepath.Join(dir, "driver.yaml")); err != nil {
		t.Errorf("the OMB example: %v", err)
	}
}

// Every bad file's errors come out top to bottom, so a user fixes the file in one pass
// (many.yaml's line 5 was reported first, omb-semantics.yaml's 8 before 7).
func TestLoadBadErrorsInLineOrder(t *testing.T) {
	files, err := filepath.Glob("testdata/bad/*.yaml")
	if err != nil || len(files) == 0 {
		t.Fatalf("no bad cases: %v", err)
	}
	for _, f := range files {
		_, err := Load(f)
		last := 0
		for _, e := range flatten([]error{err}) {
			name, line := position(e)
			if name != f || line == 0 {
				continue
			}
			if line < last {
				t.Errorf("%s: line %d reported after line %d:\n%v", f, line, last, err)
			}
			last = line
		}
	}
}
