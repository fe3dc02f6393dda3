package kafkaprops

import (
	"encoding/json"
	"fmt"
	"reflect"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"
)

// kgo options are opaque; these cases pin the mapping through what can be observed: the
// resolved structs the options are built from, and the values a franz-go client built from
// them reports for each option (Client.OptValue). The property sets have the shapes of the
// OpenMessaging Benchmark's Kafka drivers (written here, not copied) and of plimsoll's own uses.
var optsCases = []struct {
	name     string
	in       Input
	producer map[string]string
	consumer map[string]string
	common   map[string]string
}{
	{name: "defaults-1KiB", in: Input{MessageBytes: 1024}},
	{name: "raised-request-timeout", in: Input{MessageBytes: 1024},
		common:   map[string]string{"bootstrap.servers": "b:9092", "request.timeout.ms": "1000000", "default.api.timeout.ms": "1000000"},
		producer: map[string]string{"acks": "all", "linger.ms": "2", "batch.size": "1048576"},
		consumer: map[string]string{"auto.offset.reset": "earliest", "enable.auto.commit": "false", "max.partition.fetch.bytes": "10485760"}},
	{name: "idempotent-one-in-flight", in: Input{MessageBytes: 1024},
		producer: map[string]string{"enable.idempotence": "true", "max.in.flight.requests.per.connection": "1", "retries": "2147483647",
			"acks": "all", "linger.ms": "1", "batch.size": "1048576"}},
	{name: "gzip-big-batches", in: Input{MessageBytes: 1024},
		producer: map[string]string{"linger.ms": "150", "batch.size": "1048576", "compression.type": "gzip", "compression.gzip.level": "6"}},
	{name: "lz4-no-linger", in: Input{MessageBytes: 100},
		producer: map[string]string{"linger.ms": "0", "compression.type": "lz4"}},
	{name: "zstd-large-requests", in: Input{MessageBytes: 1024},
		producer: map[string]string{"compression.type": "zstd", "compression.zstd.level": "9", "max.request.size": "4194304", "batch.size": "2097152"}},
	{name: "snappy-keyed-64KiB", in: Input{MessageBytes: 65536, KeyBytes: 10},
		producer: map[string]string{"compression.type": "snappy", "partitioner.ignore.keys": "true"}},
	{name: "acks-1-bench", in: Input{MessageBytes: 100},
		producer: map[string]string{"acks": "1", "linger.ms": "5", "batch.size": "16384", "compression.type": "none",
			"enable.idempotence": "false", "max.in.flight.requests.per.connection": "5", "buffer.memory": "33554432"}},
	{name: "consumer-tuned", in: Input{MessageBytes: 1024},
		consumer: map[string]string{"isolation.level": "read_committed", "group.protocol": "consumer", "check.crcs": "false",
			"client.rack": "rack-1", "fetch.max.bytes": "209715200", "metadata.max.age.ms": "1000", "max.poll.records": "50",
			"partition.assignment.strategy": "org.apache.kafka.clients.consumer.StickyAssignor", "client.id": "reader"}},
}

func TestOptsGolden(t *testing.T) {
	for _, c := range optsCases {
		t.Run(c.name, func(t *testing.T) {
			in := c.in
			common := props(c.common)
			in.Producer = common.ForRole(RoleProducer).Merged(props(c.producer))
			in.Consumer = common.ForRole(RoleConsumer).Merged(props(c.consumer))
			cl, err := Resolve(in)
			if err != nil {
				t.Fatal(err)
			}
			var b strings.Builder
			dump(&b, "producer", cl.Producer, cl.Producer.Record, cl.Producer.Opts(), producerOptFns)
			dump(&b, "consumer", cl.Consumer, cl.Consumer.Record, append(cl.Consumer.Opts(), kgo.ConsumerGroup("g"), kgo.ConsumeTopics("t")), consumerOptFns)
			golden(t, "opts/"+c.name+".golden", []byte(b.String()))
		})
	}
}

var producerOptFns = []any{kgo.RequiredAcks, kgo.DisableIdempotentWrite, kgo.MaxProduceRequestsInflightPerBroker,
	kgo.ProducerLinger, kgo.ProducerBatchMaxBytes, kgo.BrokerMaxWriteBytes, kgo.ProducerBatchCompression,
	kgo.MaxBufferedRecords, kgo.MaxBufferedBytes, kgo.ProduceRequestTimeout, kgo.RecordDeliveryTimeout,
	kgo.RecordRetries, kgo.MetadataMaxAge, kgo.MetadataMinAge, kgo.ConnIdleTimeout, kgo.ClientID, kgo.RecordPartitioner,
	kgo.RetryBackoffFn}

var consumerOptFns = []any{kgo.FetchMinBytes, kgo.FetchMaxWait, kgo.FetchMaxBytes, kgo.FetchMaxPartitionBytes,
	kgo.BrokerMaxReadBytes, kgo.SessionTimeout, kgo.HeartbeatInterval, kgo.RebalanceTimeout, kgo.RequestTimeoutOverhead,
	kgo.RetryTimeout, kgo.ConsumeResetOffset, kgo.FetchIsolationLevel, kgo.DisableAutoCommit, kgo.AutoCommitInterval,
	kgo.DisableFetchCRCValidation, kgo.Balancers, kgo.ServerSideBalancer, kgo.Rack, kgo.ClientID, kgo.MetadataMaxAge,
	kgo.MetadataMinAge, kgo.ConnIdleTimeout, kgo.RetryBackoffFn}

// dump writes the resolved struct, the record and the option values of a client built from opts.
func dump(b *strings.Builder, what string, resolved any, rec ClientProps, opts []kgo.Opt, fns []any) {
	j, _ := json.MarshalIndent(resolved, "", "  ")
	fmt.Fprintf(b, "== %s, resolved\n%s\n== %s, recorded\n", what, j, what)
	r, _ := json.MarshalIndent(rec, "", "  ")
	fmt.Fprintf(b, "%s\n== %s, franz-go option values\n", r, what)
	cl, err := kgo.NewClient(append(opts, kgo.SeedBrokers("127.0.0.1:1"))...)
	if err != nil {
		fmt.Fprintf(b, "franz-go rejects the options: %v\n", err)
		return
	}
	defer cl.Close()
	for _, fn := range fns {
		fmt.Fprintf(b, "%s: %s\n", optName(fn), optValue(cl.OptValues(fn)))
	}
}

// optName is the name of a kgo option function.
func optName(fn any) string {
	name := runtime.FuncForPC(reflect.ValueOf(fn).Pointer()).Name()
	return strings.TrimPrefix(name, "github.com/twmb/franz-go/pkg/kgo.")
}

// optValue renders an option's value; functions are shown by type, or by their results for
// the retry backoff (after 1 to 6 failures).
func optValue(vs []any) string {
	if len(vs) == 0 {
		return "(not reported)"
	}
	switch v := vs[0].(type) {
	case func(int) time.Duration:
		var parts []string
		for i := 1; i <= 6; i++ {
			parts = append(parts, v(i).String())
		}
		return strings.Join(parts, " ")
	case kgo.Partitioner, []kgo.GroupBalancer:
		return fmt.Sprintf("%T %s", v, balancerNames(v))
	}
	return fmt.Sprintf("%+v", vs)
}

func balancerNames(v any) string {
	bs, ok := v.([]kgo.GroupBalancer)
	if !ok {
		return ""
	}
	var names []string
	for _, b := range bs {
		names = append(names, b.ProtocolName())
	}
	return strings.Join(names, ",")
}
