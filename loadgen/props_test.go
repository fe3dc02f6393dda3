package loadgen

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/plimsoll/plimsoll/workload"
	"github.com/twmb/franz-go/pkg/kgo"
)

var update = flag.Bool("update", false, "rewrite golden files in testdata/")

func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from the golden file (go test -update rewrites it):\n%s", name, got)
	}
}

// TestDefaultPropsGolden pins what a run records when the user sets nothing: Kafka 4.x's
// defaults and how each was translated for franz-go.
func TestDefaultPropsGolden(t *testing.T) {
	eff, err := ResolveProps(workload.Default())
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.MarshalIndent(eff, "", "  ")
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
		{name: "user values", props: map[string]string{"linger.ms": "20", "batch.size": "65536", "compression.type": "ZSTD"},
			want: map[string]string{"linger.ms": "20", "batch.size": "65536", "compression.type": "zstd"}},
		{name: "acks=1 turns idempotence off", props: map[string]string{"acks": "1"},
			want: map[string]string{"acks": "1", "enable.idempotence": "false", "max.in.flight.requests.per.connection": "5"}},
		{name: "acks=-1 is all", props: map[string]string{"acks": "-1"}, want: map[string]string{"acks": "all"}},
		{name: "no idempotence keeps in-flight", props: map[string]string{"enable.idempotence": "false", "max.in.flight.requests.per.connection": "3"},
			want: map[string]string{"max.in.flight.requests.per.connection": "3"}},
		{name: "explicit idempotence with acks=1", props: map[string]string{"acks": "1", "enable.idempotence": "true"},
			wantErr: ErrBadProperty, errHas: "acks=all"},
		{name: "in-flight 5 with idempotence", props: map[string]string{"max.in.flight.requests.per.connection": "5"},
			wantErr: ErrBadProperty, errHas: "max.in.flight.requests.per.connection=5"},
		{name: "unknown to franz-go", props: map[string]string{"max.block.ms": "100"},
			wantErr: ErrUnknownProperty, errHas: "max.block.ms"},
		{name: "security goes to the target", props: map[string]string{"security.protocol": "SSL"},
			wantErr: ErrUnknownProperty, errHas: "--tls-ca"},
		{name: "transactions", props: map[string]string{"transactional.id": "x"},
			wantErr: ErrUnknownProperty, errHas: "transactional"},
		{name: "not a number", props: map[string]string{"linger.ms": "soon"},
			wantErr: ErrBadProperty, errHas: "linger.ms"},
		{name: "out of range", props: map[string]string{"batch.size": "-1"},
			wantErr: ErrBadProperty, errHas: "between"},
		{name: "bad enum", props: map[string]string{"compression.type": "brotli"},
			wantErr: ErrBadProperty, errHas: "none, gzip, snappy, lz4, zstd"},
		{name: "delivery timeout too short", props: map[string]string{"delivery.timeout.ms": "1000"},
			wantErr: ErrBadProperty, errHas: "linger.ms + request.timeout.ms"},
		{name: "availability timeout", props: map[string]string{"partitioner.availability.timeout.ms": "100"},
			wantErr: ErrBadProperty, errHas: "between 0 and 0"},
		{name: "request too small for a batch", props: map[string]string{"max.request.size": "1024", "batch.size": "4096"},
			wantErr: ErrBadProperty, errHas: "max.request.size"},
		{name: "serializers are ignored, noted", props: map[string]string{"key.serializer": "org.apache.kafka.common.serialization.ByteArraySerializer"},
			want: map[string]string{"acks": "all"}},
		{name: "round-robin partitioner", props: map[string]string{"partitioner.class": "org.apache.kafka.clients.producer.RoundRobinPartitioner"},
			want: map[string]string{"partitioner.class": "org.apache.kafka.clients.producer.RoundRobinPartitioner"}},
	} {
		ps, err := producerOpts(nil, tc.props, 110)
		if tc.wantErr != nil {
			if !errors.Is(err, tc.wantErr) || !strings.Contains(err.Error(), tc.errHas) {
				t.Errorf("%s: err = %v, want %v mentioning %q", tc.name, err, tc.wantErr, tc.errHas)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", tc.name, err)
			continue
		}
		for k, v := range tc.want {
			if got := ps.props.Props[k]; got != v {
				t.Errorf("%s: %s = %q, want %q", tc.name, k, got, v)
			}
		}
		// franz-go accepts the options it is given.
		cl, err := kgo.NewClient(append(ps.opts, kgo.SeedBrokers("127.0.0.1:1"))...)
		if err != nil {
			t.Errorf("%s: franz-go rejects the options: %v", tc.name, err)
			continue
		}
		cl.Close()
	}
}

func TestProducerBufferAndBatch(t *testing.T) {
	ps, err := producerOpts(nil, map[string]string{"buffer.memory": "1000000", "batch.size": "100"}, 1000)
	if err != nil {
		t.Fatal(err)
	}
	if ps.maxRecs != 1000 {
		t.Errorf("pool of %d records for 1 MB of 1000 B records, want 1000", ps.maxRecs)
	}
	if ps.batchSize != 1000+82 {
		t.Errorf("batch cap %d, want one record plus framing (1082)", ps.batchSize)
	}
	if !strings.Contains(strings.Join(ps.props.Notes, "\n"), "batch.size=100") {
		t.Errorf("the batch.size translation is not noted: %v", ps.props.Notes)
	}
}

func TestConsumerProps(t *testing.T) {
	for _, tc := range []struct {
		name    string
		props   map[string]string
		want    map[string]string
		poll    int
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
		{name: "group id is ours", props: map[string]string{"group.id": "mine"}, wantErr: ErrUnknownProperty, errHas: "group.id"},
		{name: "unknown", props: map[string]string{"exclude.internal.topics": "true"}, wantErr: ErrUnknownProperty, errHas: "exclude.internal.topics"},
		{name: "by_duration reset", props: map[string]string{"auto.offset.reset": "by_duration:PT1M"}, wantErr: ErrBadProperty, errHas: "earliest, latest, none"},
	} {
		cs, err := consumerOpts(nil, tc.props)
		if tc.wantErr != nil {
			if !errors.Is(err, tc.wantErr) || !strings.Contains(err.Error(), tc.errHas) {
				t.Errorf("%s: err = %v, want %v mentioning %q", tc.name, err, tc.wantErr, tc.errHas)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", tc.name, err)
			continue
		}
		for k, v := range tc.want {
			if got := cs.props.Props[k]; got != v {
				t.Errorf("%s: %s = %q, want %q", tc.name, k, got, v)
			}
		}
		if cs.pollLimit != tc.poll {
			t.Errorf("%s: poll limit %d, want %d", tc.name, cs.pollLimit, tc.poll)
		}
		o := append(cs.opts, kgo.SeedBrokers("127.0.0.1:1"), kgo.ConsumerGroup("g"), kgo.ConsumeTopics("t"))
		cl, err := kgo.NewClient(o...)
		if err != nil {
			t.Errorf("%s: franz-go rejects the options: %v", tc.name, err)
			continue
		}
		cl.Close()
	}
}

func TestCommonPropsApplyToTheirKindOnly(t *testing.T) {
	r, err := resolve("consumer", consumerDefs, map[string]string{"linger.ms": "9", "client.id": "x"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if r.vals["client.id"] != "x" || r.vals["linger.ms"] != "" {
		t.Errorf("consumer took %v", r.vals)
	}
}

func TestJavaBackoff(t *testing.T) {
	f := javaBackoff(100e6, 1000e6) // 100 ms doubling to 1 s
	for fails, want := range map[int]float64{1: 0.1, 2: 0.2, 3: 0.4, 4: 0.8, 5: 1, 30: 1} {
		if got := f(fails).Seconds(); got != want {
			t.Errorf("backoff after %d failures = %v s, want %v", fails, got, want)
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
	f.Fuzz(func(t *testing.T, k1, v1, k2, v2 string) {
		ps, err := producerOpts(nil, map[string]string{k1: v1, k2: v2}, 100)
		if err != nil {
			if !errors.Is(err, ErrBadProperty) && !errors.Is(err, ErrUnknownProperty) {
				t.Fatalf("unexpected error kind: %v", err)
			}
			return
		}
		cl, err := kgo.NewClient(append(ps.opts, kgo.SeedBrokers("127.0.0.1:1"))...)
		if err != nil {
			t.Fatalf("%s=%q %s=%q accepted but franz-go rejects it: %v", k1, v1, k2, v2, err)
		}
		cl.Close()
	})
}
