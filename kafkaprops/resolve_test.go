package kafkaprops

import (
	"encoding/json"
	"errors"
	"math"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"
)

// props builds a property set as code would (no origins).
func props(kv map[string]string) Props {
	var p Props
	for k, v := range kv {
		_ = p.Set(k, v)
	}
	return p
}

// TestDefaultPropsGolden pins what a run records when the user sets nothing (1 KiB messages,
// no keys): Kafka 4.x's defaults and how each was translated for franz-go.
func TestDefaultPropsGolden(t *testing.T) {
	c, err := Resolve(Input{MessageBytes: 1024})
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.MarshalIndent(c.Effective(), "", "  ")
	golden(t, "default_props.golden.json", append(b, '\n'))
}

func TestProducerProps(t *testing.T) {
	for _, tc := range []struct {
		name    string
		props   map[string]string
		want    map[string]string // effective values
		wantErr error
		errHas  string
	}{
		{name: "defaults", want: map[string]string{"acks": "all", "linger.ms": "5", "batch.size": "16384",
			"enable.idempotence": "true", "compression.type": "none", "max.in.flight.requests.per.connection": "1"}},
		{name: "user values", props: map[string]string{"linger.ms": "20", "batch.size": "65536", "compression.type": "zstd", "enable.idempotence": "TRUE"},
			want: map[string]string{"linger.ms": "20", "batch.size": "65536", "compression.type": "zstd", "enable.idempotence": "true"}},
		{name: "codec names are case-sensitive, as Kafka's", props: map[string]string{"compression.type": "ZSTD"},
			wantErr: ErrBadProperty, errHas: "none, gzip, snappy, lz4, zstd"},
		{name: "acks=1 turns idempotence off", props: map[string]string{"acks": "1"},
			want: map[string]string{"acks": "1", "enable.idempotence": "false", "max.in.flight.requests.per.connection": "5"}},
		{name: "acks=-1 is all", props: map[string]string{"acks": "-1"}, want: map[string]string{"acks": "all"}},
		{name: "retries=0 turns idempotence off", props: map[string]string{"retries": "0"},
			want: map[string]string{"enable.idempotence": "false", "max.in.flight.requests.per.connection": "5"}},
		{name: "no idempotence keeps in-flight", props: map[string]string{"enable.idempotence": "false", "max.in.flight.requests.per.connection": "3"},
			want: map[string]string{"max.in.flight.requests.per.connection": "3"}},
		{name: "explicit idempotence with acks=1", props: map[string]string{"acks": "1", "enable.idempotence": "true"},
			wantErr: ErrBadProperty, errHas: "acks=all"},
		{name: "explicit idempotence with retries=0", props: map[string]string{"retries": "0", "enable.idempotence": "true"},
			wantErr: ErrBadProperty, errHas: "retries"},
		{name: "in-flight 5 with idempotence", props: map[string]string{"max.in.flight.requests.per.connection": "5"},
			wantErr: ErrBadProperty, errHas: "max.in.flight.requests.per.connection=5"},
		{name: "in-flight 10 with default idempotence", props: map[string]string{"max.in.flight.requests.per.connection": "10"},
			wantErr: ErrBadProperty, errHas: "10 is over 5"},
		{name: "in-flight 10 once acks=1 turned idempotence off", props: map[string]string{"acks": "1", "max.in.flight.requests.per.connection": "10"},
			want: map[string]string{"max.in.flight.requests.per.connection": "10", "enable.idempotence": "false"}},
		{name: "unknown to franz-go", props: map[string]string{"max.block.ms": "100"},
			wantErr: ErrUnknownProperty, errHas: "max.block.ms"},
		{name: "security goes to the target", props: map[string]string{"security.protocol": "SSL"},
			wantErr: ErrUnknownProperty, errHas: "--tls-ca"},
		{name: "plaintext is the target's default", props: map[string]string{"security.protocol": "PLAINTEXT"},
			want: map[string]string{"acks": "all"}},
		{name: "transactions", props: map[string]string{"transactional.id": "x"},
			wantErr: ErrUnknownProperty, errHas: "transactional"},
		{name: "not a number", props: map[string]string{"linger.ms": "soon"},
			wantErr: ErrBadProperty, errHas: "linger.ms"},
		{name: "out of range", props: map[string]string{"batch.size": "-1"},
			wantErr: ErrBadProperty, errHas: "below the minimum, 0"},
		{name: "bad enum", props: map[string]string{"compression.type": "brotli"},
			wantErr: ErrBadProperty, errHas: "none, gzip, snappy, lz4, zstd"},
		{name: "delivery timeout too short", props: map[string]string{"delivery.timeout.ms": "1000"},
			wantErr: ErrBadProperty, errHas: "linger.ms + request.timeout.ms"},
		{name: "delivery timeout derived", props: map[string]string{"request.timeout.ms": "200000", "linger.ms": "7"},
			want: map[string]string{"delivery.timeout.ms": "200007", "request.timeout.ms": "200000"}},
		{name: "availability timeout", props: map[string]string{"partitioner.availability.timeout.ms": "100"},
			wantErr: ErrBadProperty, errHas: "between 0 and 0"},
		{name: "request too small for a batch", props: map[string]string{"max.request.size": "1024", "batch.size": "4096"},
			wantErr: ErrBadProperty, errHas: "max.request.size"},
		{name: "request below franz-go's least", props: map[string]string{"max.request.size": "512"},
			wantErr: ErrBadProperty, errHas: "between 1024 and 1073741824"},
		{name: "linger beyond franz-go's most", props: map[string]string{"linger.ms": "120000"},
			wantErr: ErrBadProperty, errHas: "linger.ms"},
		{name: "serializers are ignored, noted", props: map[string]string{"key.serializer": "org.apache.kafka.common.serialization.ByteArraySerializer"},
			want: map[string]string{"acks": "all"}},
		{name: "consumer properties are ignored", props: map[string]string{"fetch.min.bytes": "9"},
			want: map[string]string{"acks": "all"}},
		{name: "round-robin partitioner", props: map[string]string{"partitioner.class": "org.apache.kafka.clients.producer.RoundRobinPartitioner"},
			want: map[string]string{"partitioner.class": "org.apache.kafka.clients.producer.RoundRobinPartitioner"}},
		{name: "a partitioner of one's own", props: map[string]string{"partitioner.class": "com.example.Mine"},
			wantErr: ErrBadProperty, errHas: "com.example.Mine"},
		{name: "short metadata age", props: map[string]string{"metadata.max.age.ms": "1000"},
			want: map[string]string{"metadata.max.age.ms": "1000"}},
	} {
		p, err := ResolveProducer(props(tc.props), 110, 0)
		if !resolvedAsWanted(t, tc.name, err, tc.wantErr, tc.errHas) {
			continue
		}
		hasProps(t, tc.name, p.Record.Props, tc.want)
		acceptedByFranzGo(t, tc.name, p.Opts())
	}
}

// resolvedAsWanted checks a resolution's error against the one wanted (nil: none) and reports
// whether it resolved, so the case's properties can be checked.
func resolvedAsWanted(t *testing.T, name string, err, wantErr error, errHas string) bool {
	t.Helper()
	if wantErr != nil {
		if !errors.Is(err, wantErr) || !strings.Contains(err.Error(), errHas) {
			t.Errorf("%s: err = %v, want %v mentioning %q", name, err, wantErr, errHas)
		}
		return false
	}
	if err != nil {
		t.Errorf("%s: %v", name, err)
		return false
	}
	return true
}

// hasProps checks that got records each wanted property with its value.
func hasProps(t *testing.T, name string, got, want map[string]string) {
	t.Helper()
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s: %s = %q, want %q", name, k, got[k], v)
		}
	}
}

// acceptedByFranzGo builds a client from opts (it connects to nothing until used).
func acceptedByFranzGo(t *testing.T, name string, opts []kgo.Opt) {
	t.Helper()
	cl, err := kgo.NewClient(append(opts, kgo.SeedBrokers("127.0.0.1:1"))...)
	if err != nil {
		t.Errorf("%s: franz-go rejects the options: %v", name, err)
		return
	}
	cl.Close()
}

func TestProducerBufferAndBatch(t *testing.T) {
	p, err := ResolveProducer(props(map[string]string{"buffer.memory": "1000000", "batch.size": "100"}), 1000, 0)
	if err != nil {
		t.Fatal(err)
	}
	if p.MaxBufferedRecords != 1000 {
		t.Errorf("pool of %d records for 1 MB of 1000 B records, want 1000", p.MaxBufferedRecords)
	}
	if p.BatchMaxBytes != 1000+82 {
		t.Errorf("batch cap %d, want one record plus framing (1082)", p.BatchMaxBytes)
	}
	if !strings.Contains(strings.Join(p.Record.Notes, "\n"), "batch.size=100") {
		t.Errorf("the batch.size translation is not noted: %v", p.Record.Notes)
	}
}

func TestConsumerProps(t *testing.T) {
	for _, tc := range []struct {
		name    string
		props   map[string]string
		want    map[string]string
		poll    int
		note    string
		wantErr error
		errHas  string
	}{
		{name: "defaults", want: map[string]string{"auto.offset.reset": "earliest", "fetch.max.wait.ms": "500", "group.protocol": "classic"}},
		{name: "user values", props: map[string]string{"fetch.min.bytes": "1024", "isolation.level": "read_committed", "max.poll.records": "100", "enable.auto.commit": "false"},
			want: map[string]string{"fetch.min.bytes": "1024", "isolation.level": "read_committed"}, poll: 100},
		{name: "assignors", props: map[string]string{"partition.assignment.strategy": "org.apache.kafka.clients.consumer.RoundRobinAssignor, org.apache.kafka.clients.consumer.StickyAssignor"}},
		{name: "next-gen protocol", props: map[string]string{"group.protocol": "consumer"}, want: map[string]string{"group.protocol": "consumer"}},
		{name: "unknown assignor", props: map[string]string{"partition.assignment.strategy": "com.example.Mine"},
			wantErr: ErrBadProperty, errHas: "com.example.Mine"},
		{name: "group id is ours", props: map[string]string{"group.id": "mine"}, note: "group.id ignored: plimsoll names one group"},
		{name: "unknown", props: map[string]string{"exclude.internal.topics": "true"}, wantErr: ErrUnknownProperty, errHas: "exclude.internal.topics"},
		{name: "by_duration reset", props: map[string]string{"auto.offset.reset": "by_duration:PT1M"}, wantErr: ErrBadProperty, errHas: "earliest, latest, none"},
		{name: "request timeout beyond franz-go", props: map[string]string{"request.timeout.ms": "1200000"},
			want: map[string]string{"request.timeout.ms": "1200000"}, note: "consumers use 15m0s"},
		{name: "heartbeat after the session", props: map[string]string{"session.timeout.ms": "2000"},
			wantErr: ErrBadProperty, errHas: "session.timeout.ms (--consumer-prop): heartbeat.interval.ms 3000 must be below session.timeout.ms 2000"},
		{name: "big fetches", props: map[string]string{"fetch.max.bytes": "209715200"}, want: map[string]string{"fetch.max.bytes": "209715200"}},
	} {
		c, err := ResolveConsumer(props(tc.props))
		if !resolvedAsWanted(t, tc.name, err, tc.wantErr, tc.errHas) {
			continue
		}
		hasProps(t, tc.name, c.Record.Props, tc.want)
		if c.PollLimit != tc.poll {
			t.Errorf("%s: poll limit %d, want %d", tc.name, c.PollLimit, tc.poll)
		}
		if !strings.Contains(strings.Join(c.Record.Notes, "\n"), tc.note) {
			t.Errorf("%s: notes %q, want one saying %q", tc.name, c.Record.Notes, tc.note)
		}
		acceptedByFranzGo(t, tc.name, append(c.Opts(), kgo.ConsumerGroup("g"), kgo.ConsumeTopics("t")))
	}
}

func TestCommonPropsApplyToTheirKindOnly(t *testing.T) {
	c, err := ResolveConsumer(props(map[string]string{"linger.ms": "9", "client.id": "x"}))
	if err != nil {
		t.Fatal(err)
	}
	if c.Record.Props["client.id"] != "x" || c.Record.Props["linger.ms"] != "" {
		t.Errorf("consumer took %v", c.Record.Props)
	}
}

func TestJavaBackoff(t *testing.T) {
	f := javaBackoff(100e6, 1000e6) // 100 ms doubling to 1 s
	for fails, want := range map[int]float64{1: 0.1, 2: 0.2, 3: 0.4, 4: 0.8, 5: 1, 30: 1} {
		if got := f(fails).Seconds(); got != want {
			t.Errorf("backoff after %d failures = %v s, want %v", fails, got, want)
		}
	}
	long := javaBackoff(time.Millisecond, math.MaxInt64) // a maximum no doubling reaches
	for _, fails := range []int{10, 70, 1000} {
		if got := long(fails); got <= 0 {
			t.Errorf("backoff after %d failures = %v, want it positive", fails, got)
		}
	}
}

// TestBatchSize is plimsoll's batch.size rule, the same for run and for every trial of limit:
// the user's value, else Kafka's 16384 whatever the message size (kept within a lowered
// max.request.size); the record shows the value used, and lists batch.size as the user's only
// when it is.
func TestBatchSize(t *testing.T) {
	cases := []struct {
		size      int
		set, want string
		isSet     bool
	}{
		{size: 100, want: "16384"},
		{size: 1000, want: "16384"},
		{size: 10000, want: "16384"},                             // one message a batch, as Kafka's producer sends it
		{size: 1000000, want: "16384"},                           // a record above batch.size gets a batch of its own
		{size: 10000, set: "32768", want: "32768", isSet: true},  // the workload's own wins
		{size: 100000, set: "16384", want: "16384", isSet: true}, // even Kafka's default, set explicitly
	}
	for _, c := range cases {
		var p Props
		if c.set != "" {
			_ = p.Set("batch.size", c.set)
		}
		if got := BatchSize(p); got != mustAtoi(c.want) {
			t.Errorf("BatchSize(set %q) = %d, want %s", c.set, got, c.want)
		}
		prod, err := ResolveProducer(p, c.size, 0)
		if err != nil {
			t.Fatalf("size %d: %v", c.size, err)
		}
		got, set := prod.Record.Props["batch.size"], slices.Contains(prod.Record.Set, "batch.size")
		if got != c.want || set != c.isSet || prod.BatchSize != mustAtoi(c.want) {
			t.Errorf("size %d (set %q): recorded batch.size = %q (user's: %v), want %q (%v)", c.size, c.set, got, set, c.want, c.isSet)
		}
	}
	// A max.request.size the user lowered bounds the default, so it cannot conflict.
	p := props(map[string]string{"max.request.size": "10000"})
	if got := BatchSize(p); got != 10000 {
		t.Errorf("batch.size under max.request.size 10000 = %d", got)
	}
	if _, err := ResolveProducer(p, 1000, 0); err != nil {
		t.Errorf("the default batch.size conflicts: %v", err)
	}
}

func mustAtoi(s string) int {
	n := 0
	for _, c := range s {
		n = n*10 + int(c-'0')
	}
	return n
}

// TestErrorsNameWhereSet: a conflict is reported at the value the user set, with the other
// value's origin in the message.
func TestErrorsNameWhereSet(t *testing.T) {
	var p Props
	_ = p.SetAt("enable.idempotence", "true", "p.properties:1", false)
	_ = p.SetAt("acks", "0", "--producer-prop", false)
	_ = p.SetAt("delivery.timeout.ms", "10", "driver.yaml:14", false)
	_, err := ResolveProducer(p, 100, 0)
	for _, want := range []string{
		"--producer-prop acks: acks=0 conflicts with enable.idempotence=true (p.properties:1)",
		"driver.yaml:14: delivery.timeout.ms: delivery.timeout.ms=10 must be at least linger.ms + request.timeout.ms = 30005",
	} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("error %v\nwant it to contain %q", err, want)
		}
	}
}

// FuzzProducerProps: any property text either maps to options franz-go accepts or fails with
// one of the property errors; it never panics.
func FuzzProducerProps(f *testing.F) {
	f.Add("linger.ms", "5", "acks", "1")
	f.Add("batch.size", "99999999999", "compression.type", "gzip")
	f.Add("enable.idempotence", "TRUE", "max.in.flight.requests.per.connection", "1")
	f.Add("compression.zstd.level", "-7", "compression.type", "zstd")
	f.Add("request.timeout.ms", "0", "delivery.timeout.ms", "500")
	f.Add("metadata.max.age.ms", "0", "connections.max.idle.ms", "0")
	f.Add("buffer.memory", "9223372036854775807", "retry.backoff.ms", "9223372036854775807")
	f.Fuzz(func(t *testing.T, k1, v1, k2, v2 string) {
		p, err := ResolveProducer(props(map[string]string{k1: v1, k2: v2}), 100, 0)
		if err != nil {
			if !errors.Is(err, ErrBadProperty) && !errors.Is(err, ErrUnknownProperty) {
				t.Fatalf("unexpected error kind: %v", err)
			}
			return
		}
		cl, err := kgo.NewClient(append(p.Opts(), kgo.SeedBrokers("127.0.0.1:1"))...)
		if err != nil {
			t.Fatalf("%s=%q %s=%q accepted but franz-go rejects it: %v", k1, v1, k2, v2, err)
		}
		cl.Close()
	})
}

// FuzzConsumerProps is FuzzProducerProps for consumers.
func FuzzConsumerProps(f *testing.F) {
	f.Add("fetch.max.wait.ms", "0", "session.timeout.ms", "50")
	f.Add("heartbeat.interval.ms", "60000", "max.poll.interval.ms", "1")
	f.Add("fetch.max.bytes", "2000000000", "request.timeout.ms", "1")
	f.Add("enable.auto.commit", "true", "auto.commit.interval.ms", "0")
	f.Fuzz(func(t *testing.T, k1, v1, k2, v2 string) {
		c, err := ResolveConsumer(props(map[string]string{k1: v1, k2: v2}))
		if err != nil {
			if !errors.Is(err, ErrBadProperty) && !errors.Is(err, ErrUnknownProperty) {
				t.Fatalf("unexpected error kind: %v", err)
			}
			return
		}
		cl, err := kgo.NewClient(append(c.Opts(), kgo.SeedBrokers("127.0.0.1:1"), kgo.ConsumerGroup("g"), kgo.ConsumeTopics("t"))...)
		if err != nil {
			t.Fatalf("%s=%q %s=%q accepted but franz-go rejects it: %v", k1, v1, k2, v2, err)
		}
		cl.Close()
	})
}
