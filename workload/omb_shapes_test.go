package workload

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// ombDriver writes a driver YAML of the OpenMessaging Benchmark's Kafka shape (the property
// blocks are written for this test, not copied from OMB).
func ombDriver(t *testing.T, topic, common, producer, consumer string) string {
	t.Helper()
	block := func(lines string) string {
		return "  " + strings.ReplaceAll(strings.TrimSpace(lines), "\n", "\n  ")
	}
	path := filepath.Join(t.TempDir(), "driver.yaml")
	text := fmt.Sprintf("name: Kafka\ndriverClass: %s\nreplicationFactor: 3\ntopicConfig: |\n%s\ncommonConfig: |\n%s\nproducerConfig: |\n%s\nconsumerConfig: |\n%s\n",
		ombKafkaDriver, block(topic), block(common), block(producer), block(consumer))
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestOMBDriverShapes runs OMB-shaped drivers against OMB-shaped workloads: each must load,
// validate and resolve to the client configuration Kafka's Java client would use. The first
// failed before kafkaprops: a driver that raises request.timeout.ms and leaves
// delivery.timeout.ms at its default was refused with "delivery.timeout.ms must be at least
// linger.ms + request.timeout.ms", whereas Kafka raises the default to that sum.
func TestOMBDriverShapes(t *testing.T) {
	const consumer = "auto.offset.reset=earliest\nenable.auto.commit=false\nmax.partition.fetch.bytes=8388608"
	const common = "bootstrap.servers=localhost:9092"
	cases := []struct {
		name                     string
		topic, common, producer  string
		wantProducer, wantTopics map[string]string
	}{
		{"raised request timeout", "min.insync.replicas=2", common + "\ndefault.api.timeout.ms=900000\nrequest.timeout.ms=900000",
			"acks=all\nlinger.ms=2\nbatch.size=524288",
			map[string]string{"delivery.timeout.ms": "900002", "request.timeout.ms": "900000"}, nil},
		{"exactly once", "min.insync.replicas=2", common,
			"enable.idempotence=true\nmax.in.flight.requests.per.connection=1\nretries=2147483647\nacks=all\nlinger.ms=1\nbatch.size=524288",
			map[string]string{"enable.idempotence": "true", "max.in.flight.requests.per.connection": "1"}, nil},
		{"gzip", "min.insync.replicas=2", common, "acks=all\nlinger.ms=150\nbatch.size=524288\ncompression.type=gzip",
			map[string]string{"compression.type": "gzip"}, nil},
		{"lz4", "min.insync.replicas=2", common, "acks=all\nlinger.ms=2\nbatch.size=524288\ncompression.type=lz4",
			map[string]string{"compression.type": "lz4"}, nil},
		{"snappy", "min.insync.replicas=2", common, "acks=all\nlinger.ms=2\nbatch.size=524288\ncompression.type=snappy",
			map[string]string{"compression.type": "snappy"}, nil},
		{"zstd", "min.insync.replicas=2", common, "acks=all\nlinger.ms=2\nbatch.size=524288\ncompression.type=zstd",
			map[string]string{"compression.type": "zstd"}, nil},
		{"big requests", "min.insync.replicas=2", common, "acks=all\nlinger.ms=50\nbatch.size=524288\nmax.request.size=2097152",
			map[string]string{"max.request.size": "2097152"}, nil},
		{"no linger, small batches", "min.insync.replicas=2", common, "acks=all\nlinger.ms=0\nbatch.size=65536",
			map[string]string{"linger.ms": "0", "batch.size": "65536"}, nil},
		{"fsync every message", "min.insync.replicas=2\nflush.messages=1\nflush.ms=0", common, "acks=all\nlinger.ms=2\nbatch.size=524288",
			map[string]string{"acks": "all"}, map[string]string{"flush.messages": "1", "flush.ms": "0"}},
	}
	for _, c := range cases {
		drv := ombDriver(t, c.topic, c.common, c.producer, consumer)
		for _, wl := range ombShapedWorkloads(t) {
			t.Run(c.name+"/"+filepath.Base(wl), func(t *testing.T) {
				s, err := LoadOMB(wl, drv)
				if err != nil {
					t.Fatalf("refused: %v", err)
				}
				cl, err := s.Clients()
				if err != nil {
					t.Fatalf("does not resolve: %v", err)
				}
				eff := cl.Effective()
				for k, v := range c.wantProducer {
					if got := eff.Producer.Props[k]; got != v {
						t.Errorf("producer %s = %q, want %q", k, got, v)
					}
				}
				for k, v := range c.wantTopics {
					if got, _ := s.TopicConfig.Get(k); got != v {
						t.Errorf("topic %s = %q, want %q", k, got, v)
					}
				}
				if s.MinInsyncReplicas != 2 || eff.Consumer.Props["enable.auto.commit"] != "false" {
					t.Errorf("min ISR %d, consumer %v", s.MinInsyncReplicas, eff.Consumer.Props)
				}
			})
		}
	}
}

// ombShapedWorkloads are OMB-shaped workloads: a payload file, randomized payloads with a
// backlog, and 64 KiB keyed messages.
func ombShapedWorkloads(t *testing.T) []string {
	t.Helper()
	big := filepath.Join(t.TempDir(), "keyed-64kb.yaml")
	text := "name: keyed 64 KiB\ntopics: 2\npartitionsPerTopic: 10\nkeyDistributor: KEY_ROUND_ROBIN\nmessageSize: 65536\n" +
		"useRandomizedPayloads: true\nrandomBytesRatio: 1.0\nrandomizedPayloadPoolSize: 100\nsubscriptionsPerTopic: 1\n" +
		"consumerPerSubscription: 4\nproducersPerTopic: 2\nproducerRate: 2000\nconsumerBacklogSizeGB: 0\ntestDurationMinutes: 5\n"
	if err := os.WriteFile(big, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return []string{"testdata/omb/workloads/1-topic-16-partitions-1kb.yaml", "testdata/omb/workloads/10-topics-3-partitions-100b-backlog.yaml", big}
}
