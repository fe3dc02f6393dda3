package workload

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
)

func TestDefaultIsValid(t *testing.T) {
	s := Default()
	if err := s.Validate(); err != nil {
		t.Fatalf("Default() must validate: %v", err)
	}
	if w := s.Warnings(); len(w) != 0 {
		t.Errorf("Default() has warnings: %q", w)
	}
	if s.Payload.Kind != PayloadRandom || s.Payload.RandomBytesRatio != 1 {
		t.Errorf("the default payload must be incompressible, got %s", s.Payload)
	}
}

// TestSet drives the spec the way the CLI does: one Set per flag given.
func TestSet(t *testing.T) {
	cases := []struct {
		flag, value string
		check       func(Spec) bool
	}{
		{"rate", "50000", func(s Spec) bool { return s.Rate == 50000 }},
		{"rate", "50k", func(s Spec) bool { return s.Rate == 50000 }},
		{"rate", "1.5M", func(s Spec) bool { return s.Rate == 1.5e6 }},
		{"rate", "2e5 msg/s", func(s Spec) bool { return s.Rate == 2e5 }},
		{"rate", "250/s", func(s Spec) bool { return s.Rate == 250 }},
		{"rate", "0", func(s Spec) bool { return s.Rate == 0 }},
		{"message-size", "1KiB", func(s Spec) bool { return s.MessageSize == 1024 }},
		{"message-size", "1KB", func(s Spec) bool { return s.MessageSize == 1000 }},
		{"message-size", "100", func(s Spec) bool { return s.MessageSize == 100 }},
		{"partitions", "1_000", func(s Spec) bool { return s.PartitionsPerTopic == 1000 }},
		{"duration", "1h30m", func(s Spec) bool { return s.Duration == 90*time.Minute }},
		{"warmup", "0s", func(s Spec) bool { return s.Warmup == 0 }},
		{"backlog", "1GB", func(s Spec) bool { return s.BacklogBytes == 1e9 }},
		{"backlog", "512MiB", func(s Spec) bool { return s.BacklogBytes == 512<<20 }},
		{"keys", "random", func(s Spec) bool { return s.Keys == KeysRandom }},
		{"payload", "text", func(s Spec) bool { return s.Payload.Kind == PayloadText }},
		{"payload", "random:0.25", func(s Spec) bool { return s.Payload.RandomBytesRatio == 0.25 }},
		{"producer-prop", "linger.ms=5", func(s Spec) bool { v, _ := s.ProducerProps.Get("linger.ms"); return v == "5" }},
		{"producer-props", "acks=all", func(s Spec) bool { v, _ := s.ProducerProps.Get("acks"); return v == "all" }},
		{"consumer-prop", "fetch.min.bytes=1024", func(s Spec) bool { v, _ := s.ConsumerProps.Get("fetch.min.bytes"); return v == "1024" }},
		{"topic-config", "retention.ms=60000", func(s Spec) bool { v, _ := s.TopicConfig.Get("retention.ms"); return v == "60000" }},
		{"topic-config", "min.insync.replicas=2", func(s Spec) bool { return s.MinInsyncReplicas == 2 && s.TopicConfig.Len() == 0 }},
		{"producer-prop", "bootstrap.servers=elsewhere:9092", func(s Spec) bool {
			_, set := s.ProducerProps.Get("bootstrap.servers")
			return !set && len(s.ProducerProps.Ignored()) == 1
		}},
	}
	for _, c := range cases {
		s := Default()
		if err := s.Set(c.flag, c.value); err != nil {
			t.Errorf("Set(%s, %s): %v", c.flag, c.value, err)
			continue
		}
		if !c.check(s) {
			t.Errorf("Set(%s, %s) gave %s", c.flag, c.value, s)
		}
	}
}

func TestSetErrors(t *testing.T) {
	cases := []struct{ flag, value, want string }{
		{"rate", "fast", `--rate: "fast" is not a rate; write messages per second, e.g. 50000 or 50k`},
		{"rate", "50MB/s", `--rate: "50MB/s" looks like bytes; rate is in messages per second (message-size sets the bytes)`},
		{"topics", "two", `--topics: "two" is not a whole number`},
		{"topics", "1.5", `--topics: "1.5" is not a whole number`},
		{"partitions", "99999999999", `--partitions: "99999999999" is too large`},
		{"message-size", "100.5", `--message-size: "100.5" is not a whole number of bytes`},
		{"message-size", "big", `--message-size: "big" is not a size; write bytes, e.g. 1024 or 1KiB`},
		{"duration", "60", `--duration: "60" has no unit; write e.g. 60s or 60m`},
		{"warmup", "soon", `--warmup: "soon" is not a duration; write e.g. 60s, 5m or 1h30m`},
		{"keys", "hash", `--keys: "hash" is not a key mode; use none, round-robin or random`},
		{"payload", "zeros", `--payload: "zeros" is not a payload; use random, random:RATIO, text or file:PATH`},
		{"payload", "random:2", `--payload: "random:2": the random-bytes ratio must be a number from 0 to 1`},
		{"payload", "file:", `--payload: "file:" names no file; write file:PATH`},
		{"producer-prop", "acks", `--producer-prop: "acks" is not key=value (write a Kafka property, e.g. acks=...)`},
		{"backlog", "lots", `--backlog: "lots" is not a size; write e.g. 1GB or 512MiB`},
		{"backlog-drain-ratio", "most", `--backlog-drain-ratio: "most" is not a number`},
		{"producer.config", "no-such.properties", `--producer.config: cannot read producer properties file `},
		{"turbo", "on", `--turbo: not a workload setting`},
		{"producer-prop", "linger.mss=5", `--producer-prop linger.mss: unknown producer property; did you mean "linger.ms"?`},
		{"producer-prop", "transactional.id=tx", `--producer-prop transactional.id: transactional producing is not supported`},
		{"common-prop", "ssl.truststore.location=/t.jks", `--common-prop ssl.truststore.location: security is configured on the target (--tls, --tls-ca`},
	}
	for _, c := range cases {
		s := Default()
		err := s.Set(c.flag, c.value)
		if err == nil || !strings.HasPrefix(err.Error(), c.want) {
			t.Errorf("Set(%s, %q) error:\n got %v\nwant %s", c.flag, c.value, err, c.want)
		}
		if !errors.Is(err, ErrInvalid) {
			t.Errorf("Set(%s, %q) error does not wrap ErrInvalid", c.flag, c.value)
		}
	}
}

// TestConfigFileErrorsAtTheirLines: a --producer.config file is checked as it is read, and
// every problem is reported at its own line.
func TestConfigFileErrorsAtTheirLines(t *testing.T) {
	path := filepath.Join(t.TempDir(), "p.properties")
	if err := os.WriteFile(path, []byte("acks=all\n# two mistakes follow\nlinger.mss=5\n\nmax.block.ms=\\\n  100\nbatch.size=65536\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	s := Default()
	err := s.Set("producer.config", path)
	for _, want := range []string{path + `:3: linger.mss: unknown producer property; did you mean "linger.ms"?`, path + ":5: max.block.ms: "} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("error %v\nwant it to contain %q", err, want)
		}
	}
	if !errors.Is(err, ErrInvalid) || !errors.Is(err, ErrUnknownProperty) {
		t.Errorf("%v must wrap ErrInvalid and ErrUnknownProperty", err)
	}
}

func TestSetPayloadFileAndMessageSize(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "m.bin")
	if err := os.WriteFile(path, make([]byte, 300), 0o644); err != nil {
		t.Fatal(err)
	}
	// Without --message-size the file sets the size; with it, either order, a mismatch is caught.
	s := Default()
	if err := s.Set("payload", "file:"+path); err != nil {
		t.Fatal(err)
	}
	if s.MessageSize != 300 || s.Validate() != nil {
		t.Errorf("message-size %d (%v), want 300 from the file", s.MessageSize, s.Validate())
	}
	for _, order := range [][2][2]string{
		{{"message-size", "100"}, {"payload", "file:" + path}},
		{{"payload", "file:" + path}, {"message-size", "100"}},
	} {
		s := Default()
		for _, kv := range order {
			if err := s.Set(kv[0], kv[1]); err != nil {
				t.Fatal(err)
			}
		}
		err := s.Validate()
		if err == nil || !strings.Contains(err.Error(), "--message-size: 100 B, but payload file "+path+" holds 300 B") {
			t.Errorf("order %v: got %v", order, err)
		}
	}
}

func TestFlagsOverrideFile(t *testing.T) {
	s, err := Load("testdata/good/full.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Set("rate", "-1"); err != nil {
		t.Fatal(err)
	}
	err = s.Validate()
	if err == nil || err.Error() != "--rate: -1 is negative; give messages/s, or 0 to send as fast as the producers go" {
		t.Errorf("a flag's error must name the flag, not the file: %v", err)
	}
	// A flag may replace min.insync.replicas the file set; two settings in one file may not.
	if err := s.Set("topic-config", "min.insync.replicas=1"); err != nil || s.MinInsyncReplicas != 1 {
		t.Errorf("--topic-config over the file: %v, min ISR %d", err, s.MinInsyncReplicas)
	}
	if err := s.Set("min-insync-replicas", "3"); err == nil {
		t.Error("--min-insync-replicas 3 with --topic-config min.insync.replicas=1 must conflict")
	}
}

func TestValidate(t *testing.T) {
	cases := []struct {
		name   string
		mutate func(*Spec)
		want   string // "" = valid
	}{
		{"default", func(*Spec) {}, ""},
		{"topics", func(s *Spec) { s.Topics = 0 }, "topics (--topics): 0 topics; at least 1 is needed"},
		{"partitions", func(s *Spec) { s.PartitionsPerTopic = -1 }, "partitions (--partitions): -1 is negative"},
		{"rf", func(s *Spec) { s.ReplicationFactor = -3 }, "replication-factor (--replication-factor): -3 is negative"},
		{"min isr over rf", func(s *Spec) { s.ReplicationFactor, s.MinInsyncReplicas = 1, 2 }, "min-insync-replicas (--min-insync-replicas): 2 is more than replication-factor 1"},
		{"min isr equals rf", func(s *Spec) { s.ReplicationFactor, s.MinInsyncReplicas = 3, 3 }, ""},
		{"producers", func(s *Spec) { s.Producers = 0 }, "producers (--producers): 0 producers"},
		{"rate negative", func(s *Spec) { s.Rate = -1 }, "rate (--rate): -1 is negative"},
		{"rate NaN", func(s *Spec) { s.Rate = nanF() }, "rate (--rate): NaN is not a rate"},
		{"rate too high", func(s *Spec) { s.Rate = 2e9 }, "is over 1 TB/s"},
		{"rate too low", func(s *Spec) { s.Rate = 0.01 }, "not one message would be sent in the 1m0s window"},
		{"rate low but long", func(s *Spec) { s.Rate, s.Duration = 0.01, 200*time.Second }, ""},
		{"message too small", func(s *Spec) { s.MessageSize = 23 }, "message-size (--message-size): 23 B is below 24 B"},
		{"message at minimum", func(s *Spec) { s.MessageSize = MinMessageSize }, ""},
		{"message too big", func(s *Spec) { s.MessageSize = MaxMessageSize + 1 }, "is over plimsoll's"},
		{"message over request size", func(s *Spec) { s.MessageSize = 1 << 20 }, "over max.request.size 1048576 (the default)"},
		{"message within raised request size", func(s *Spec) {
			s.MessageSize = 1 << 20
			_ = s.ProducerProps.Set("max.request.size", "2000000")
			_ = s.TopicConfig.Set("max.message.bytes", "2000000")
		}, ""},
		{"message over topic max", func(s *Spec) { _ = s.TopicConfig.Set("max.message.bytes", "1000") }, "over the topic's max.message.bytes 1000"},
		{"random ratio", func(s *Spec) { s.Payload.RandomBytesRatio = 1.5 }, "random-bytes ratio 1.5 must be from 0 to 1"},
		{"file without data", func(s *Spec) { s.Payload = Payload{Kind: PayloadFile, Path: "/x"} }, "payload file /x holds no data"},
		{"file size", func(s *Spec) { s.Payload = Payload{Kind: PayloadFile, Path: "/x", Data: make([]byte, 30)} }, "1024 B, but payload file /x holds 30 B"},
		{"key count", func(s *Spec) { s.Keys, s.KeyCount = KeysRandom, 0 }, "key-count (--key-count): 0 keys; random keys need at least 1"},
		{"no keys ignores count", func(s *Spec) { s.KeyCount = 0 }, ""},
		{"groups", func(s *Spec) { s.ConsumerGroups = -1 }, "consumer-groups (--consumer-groups): -1 is negative"},
		{"produce only", func(s *Spec) { s.ConsumerGroups, s.ConsumersPerGroup = 0, 0 }, ""},
		{"consumers", func(s *Spec) { s.ConsumersPerGroup = 0 }, "consumers-per-group (--consumers-per-group): 0 consumers per group"},
		{"duration", func(s *Spec) { s.Duration = 0 }, "duration (--duration): 0s is not a positive window"},
		{"warmup", func(s *Spec) { s.Warmup = -time.Second }, "warmup (--warmup): -1s is negative"},
		{"backlog", func(s *Spec) { s.BacklogBytes, s.Rate = 1e9, 1000 }, ""},
		{"backlog negative", func(s *Spec) { s.BacklogBytes = -1 }, "backlog (--backlog): -1 B is negative"},
		{"backlog no consumers", func(s *Spec) { s.BacklogBytes, s.Rate, s.ConsumerGroups = 1e9, 1000, 0 }, "a backlog needs consumers to drain it"},
		{"backlog no rate", func(s *Spec) { s.BacklogBytes = 1e9 }, "a backlog needs a fixed rate"},
		{"backlog tiny", func(s *Spec) { s.BacklogBytes, s.Rate = 10, 1000 }, "10 B is less than one 1024 B message"},
		{"drain ratio", func(s *Spec) { s.BacklogDrainRatio = -0.1 }, "backlog-drain-ratio (--backlog-drain-ratio): -0.1 must be from 0 to 1"},
		{"format", func(s *Spec) { s.Format = "yaml" }, `format: "yaml" is not a workload format`},
		{"keys enum", func(s *Spec) { s.Keys = 9 }, "keys (--keys): KeyMode(9) is not a key mode"},
		{"payload enum", func(s *Spec) { s.Payload.Kind = 7 }, "payload (--payload): kind 7 is not a payload kind"},
		{"unknown prop", func(s *Spec) { _ = s.ProducerProps.Set("lnger.ms", "1") }, `lnger.ms (--producer-prop): unknown producer property; did you mean "linger.ms"?`},
		{"idempotence acks", func(s *Spec) {
			_ = s.CommonProps.Set("enable.idempotence", "true")
			_ = s.ProducerProps.Set("acks", "0")
		}, "acks=0 conflicts with enable.idempotence=true"},
		{"idempotence default acks", func(s *Spec) { _ = s.ProducerProps.Set("enable.idempotence", "true") }, ""},
		{"refused prop", func(s *Spec) { _ = s.ProducerProps.Set("max.block.ms", "10") }, "max.block.ms (--producer-prop): plimsoll's generator never blocks in send"},
		{"delivery timeout derived", func(s *Spec) { _ = s.CommonProps.Set("request.timeout.ms", "600000") }, ""},
		{"delivery timeout set too short", func(s *Spec) {
			_ = s.CommonProps.Set("request.timeout.ms", "600000")
			_ = s.ProducerProps.Set("delivery.timeout.ms", "120000")
		}, "delivery.timeout.ms=120000 must be at least linger.ms + request.timeout.ms = 600005"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := Default()
			c.mutate(&s)
			err := s.Validate()
			if c.want == "" {
				if err != nil {
					t.Fatalf("unexpected error: %v", err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("error %v\nwant it to contain %q", err, c.want)
			}
			if !errors.Is(err, ErrInvalid) {
				t.Errorf("error does not wrap ErrInvalid")
			}
			var fe *FieldError
			if !errors.As(err, &fe) {
				t.Errorf("error is not a *FieldError")
			}
		})
	}
}

func nanF() float64 { z := 0.0; return z / z }

func TestValidateReportsEveryProblem(t *testing.T) {
	s := Default()
	s.Topics, s.Producers, s.Duration = 0, 0, 0
	err := s.Validate()
	var j interface{ Unwrap() []error }
	if !errors.As(err, &j) || len(j.Unwrap()) != 3 {
		t.Fatalf("want three joined errors, got %v", err)
	}
}

func TestWarnings(t *testing.T) {
	cases := []struct {
		name   string
		mutate func(*Spec)
		want   string // substring of one warning; "" = none
	}{
		{"idle consumers", func(s *Spec) { s.Topics, s.PartitionsPerTopic, s.ConsumersPerGroup = 2, 3, 8 }, "consumers-per-group: 8 consumers per group but only 6 partitions in all; 2 consumers of each group will sit idle"},
		{"consumers fit", func(s *Spec) { s.Topics, s.PartitionsPerTopic, s.ConsumersPerGroup = 2, 3, 6 }, ""},
		{"partitions unknown", func(s *Spec) { s.ConsumersPerGroup = 50 }, ""},
		{"min isr without acks=all", func(s *Spec) {
			s.MinInsyncReplicas = 2
			_ = s.ProducerProps.SetAt("acks", "1", "--producer-prop", false)
		}, "min.insync.replicas 2 only matters with acks=all, but acks=1 (--producer-prop)"},
		{"no warm-up", func(s *Spec) { s.Warmup = 0 }, "warmup: no warm-up"},
		{"ignored key", func(s *Spec) { _ = s.ConsumerProps.SetAt("group.id", "mine", "c.properties:4", false) }, "c.properties:4: group.id is ignored: plimsoll names one group"},
		{"wrong client", func(s *Spec) { _ = s.ProducerProps.Set("max.poll.records", "10") }, "max.poll.records is a consumer property; producers ignore it"},
		{"long backlog build", func(s *Spec) { s.BacklogBytes, s.Rate, s.MessageSize = 1e12, 1000, 1000 }, "takes about 277h47m0s before the drain starts"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := Default()
			c.mutate(&s)
			got := strings.Join(s.Warnings(), "\n")
			if c.want == "" && got != "" || !strings.Contains(got, c.want) {
				t.Errorf("warnings %q, want %q", got, c.want)
			}
		})
	}
}

func TestCheckCluster(t *testing.T) {
	s := Default()
	if err := s.CheckCluster(1); err != nil {
		t.Errorf("auto rf on one broker: %v", err)
	}
	if got := s.ReplicationFor(1); got != 1 {
		t.Errorf("ReplicationFor(1) = %d, want 1", got)
	}
	if got := s.ReplicationFor(5); got != 3 {
		t.Errorf("ReplicationFor(5) = %d, want 3", got)
	}
	if got := s.PartitionsFor(3); got != 30 {
		t.Errorf("PartitionsFor(3) = %d, want 30", got)
	}
	s.MinInsyncReplicas = 2
	if err := s.CheckCluster(1); err == nil || !strings.Contains(err.Error(), "more than the replication factor 1 on this 1-broker cluster") {
		t.Errorf("min ISR 2 on one broker: %v", err)
	}
	s.ReplicationFactor = 3
	if err := s.CheckCluster(2); err == nil || !strings.Contains(err.Error(), "3 is more than the 2 brokers") {
		t.Errorf("rf 3 on two brokers: %v", err)
	}
}

func TestFieldsMatchSet(t *testing.T) {
	seen := map[string]bool{}
	for _, f := range Fields() {
		if seen[f.Flag] || seen[f.YAML] && f.YAML != f.Flag {
			t.Errorf("duplicate field %s/%s", f.Flag, f.YAML)
		}
		seen[f.Flag], seen[f.YAML] = true, true
		if f.Usage == "" {
			t.Errorf("%s has no usage text", f.Flag)
		}
		// Every listed default must be accepted by Set and leave Default() unchanged.
		if f.Default == "" || f.Repeatable {
			continue
		}
		s := Default()
		if err := s.Set(f.Flag, f.Default); err != nil {
			t.Errorf("Set(%s, its default %q): %v", f.Flag, f.Default, err)
			continue
		}
		s.origins = nil
		s.sizeSet = false
		if d := Default(); !reflect.DeepEqual(s, d) {
			t.Errorf("the default text %q of %s does not match Default()", f.Default, f.Flag)
		}
	}
}

func TestJSONRoundTrip(t *testing.T) {
	s, err := Load("testdata/good/full.yaml")
	if err != nil {
		t.Fatal(err)
	}
	data, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	var back Spec
	if err := json.Unmarshal(data, &back); err != nil {
		t.Fatal(err)
	}
	if back.String() != s.String() || back.Duration != s.Duration || back.Warmup != s.Warmup ||
		back.ProducerProps.String() != s.ProducerProps.String() || back.TopicConfig.String() != s.TopicConfig.String() {
		t.Errorf("round trip changed the spec:\n%s\n%s", s, back)
	}
	if err := back.Validate(); err != nil {
		t.Errorf("a spec read back from JSON must validate: %v", err)
	}
}

// TestDecodeJSONStrict: the strict reader takes what MarshalJSON writes, and refuses an
// unknown field at the top or nested (payload), and data after the object; the lenient
// UnmarshalJSON still ignores unknown fields (older result files).
func TestDecodeJSONStrict(t *testing.T) {
	s, err := Load("testdata/good/full.yaml")
	if err != nil {
		t.Fatal(err)
	}
	data, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	back, err := DecodeJSONStrict(data)
	if err != nil {
		t.Fatal(err)
	}
	if back.String() != s.String() || back.Duration != s.Duration || back.ProducerProps.String() != s.ProducerProps.String() {
		t.Errorf("strict round trip changed the spec:\n%s\n%s", s, back)
	}
	obj := string(data[:len(data)-1])
	for name, tc := range map[string]struct{ in, want string }{
		"unknown field":        {obj + `,"producer-rate":5}`, "producer-rate"},
		"unknown nested field": {strings.Replace(string(data), `"payload":{`, `"payload":{"seed":1,`, 1), "seed"},
		"trailing data":        {string(data) + `{}`, "after the workload"},
		"bad duration":         {strings.Replace(string(data), `"duration":"`, `"duration":"x`, 1), "duration"},
	} {
		_, err := DecodeJSONStrict([]byte(tc.in))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: err = %v, want one naming %q", name, err, tc.want)
		}
	}
	var lenient Spec
	if err := json.Unmarshal([]byte(obj+`,"producer-rate":5}`), &lenient); err != nil {
		t.Errorf("UnmarshalJSON must still ignore unknown fields: %v", err)
	}
}

func TestString(t *testing.T) {
	s := Default()
	want := "1 topic x runner's choice of partitions (rf auto); 1 producer as fast as they go, 1024 B random, keys none; 1 group x 1 consumer; 1m0s after 10s warm-up"
	if got := s.String(); got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
}

func TestCloneIsDeep(t *testing.T) {
	s := Default()
	_ = s.ProducerProps.Set("acks", "all")
	c := s.Clone()
	_ = c.ProducerProps.Set("acks", "1")
	if v, _ := s.ProducerProps.Get("acks"); v != "all" {
		t.Errorf("changing the clone changed the original: acks=%s", v)
	}
}
