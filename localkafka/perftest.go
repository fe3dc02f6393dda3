package localkafka

import "strconv"

// ProducerPerf is a run of Kafka's own load generator, org.apache.kafka.tools.ProducerPerformance
// (kafka-producer-perf-test), from the classpath ResolveTools returns: an independent load beside
// plimsoll's, for benchmarks (tools/benchloadgen) and for tests that check plimsoll's
// observations against a load it did not make.
type ProducerPerf struct {
	Classpath, Bootstrap, Topic string
	// Records to send, of RecordSize bytes, at Throughput records/s (-1: as fast as it can).
	Records, RecordSize, Throughput int
	// Props are producer properties, key=value, after bootstrap.servers.
	Props []string
	// Heap is the JVM's -Xmx (default 1g).
	Heap string
}

// Args are the java arguments that run it.
func (p ProducerPerf) Args() []string {
	heap := p.Heap
	if heap == "" {
		heap = "1g"
	}
	args := []string{"-Xmx" + heap, "-cp", p.Classpath, "org.apache.kafka.tools.ProducerPerformance",
		"--topic", p.Topic, "--num-records", strconv.Itoa(p.Records), "--record-size", strconv.Itoa(p.RecordSize),
		"--throughput", strconv.Itoa(p.Throughput), "--producer-props", "bootstrap.servers=" + p.Bootstrap}
	return append(args, p.Props...)
}

// ConsumerPerf is a run of Kafka's own consumer benchmark, org.apache.kafka.tools.ConsumerPerformance
// (kafka-consumer-perf-test), from the classpath ResolveTools returns: it reads Messages records of
// Topic in Group from the earliest offset and prints one summary line.
type ConsumerPerf struct {
	Classpath, Bootstrap, Topic string
	// Group is the consumer group it reads in; a caller keeps it under plimsoll's prefix.
	Group string
	// Messages to read before it stops.
	Messages int64
	// Heap is the JVM's -Xmx (default 1g).
	Heap string
}

// Args are the java arguments that run it.
func (p ConsumerPerf) Args() []string {
	heap := p.Heap
	if heap == "" {
		heap = "1g"
	}
	return []string{"-Xmx" + heap, "-cp", p.Classpath, "org.apache.kafka.tools.ConsumerPerformance",
		"--bootstrap-server", p.Bootstrap, "--topic", p.Topic, "--group", p.Group,
		"--messages", strconv.FormatInt(p.Messages, 10)}
}
