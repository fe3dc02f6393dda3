// Package localkafka runs a real Apache Kafka cluster on this machine: the embedded default that
// plimsoll's demo, its integration tests and every figure it reports run on.
//
// Up resolves the broker jars for a Kafka version from Maven Central with Maven (cached per
// version under ~/.cache/plimsoll/kafka/VERSION), together with the Prometheus JMX exporter java
// agent, writes KRaft configs (combined broker+controller nodes, a static quorum of up to three
// voters; further nodes are brokers only), formats storage, and starts each node as its own JVM
// on free loopback ports. It returns once every broker is registered and a metadata request
// succeeds. The cluster outlives the process that started it: its state lives in a directory
// (cluster.json) that Open reads back, so `plimsoll cluster status` and `down` work from any
// later process.
//
// Options.Metadata "zookeeper" (Kafka 3.x only; refused for 4.x, which removed the mode) starts
// brokers only, beside one standalone ZooKeeper server (zookeeper.go) run from Kafka's own jars
// (Kafka 3.9.1 depends on ZooKeeper 3.8.4, so Resolve already fetched it); storage is not
// formatted, ZooKeeper is started before the brokers and stopped after them.
//
// Each broker's metrics are served by the exporter agent as Prometheus text, with the rules in
// jmx-rules.yaml (names documented in docs/metrics.md). Fault injection (Kill, Pause, Resume,
// Restart) acts on one broker's JVM with signals.
//
// Every broker has a PLAINTEXT client listener (also the replication listener). Options.Security
// adds secure client listeners beside it (security.go): SSL with a throwaway CA and a broker
// certificate generated in Go and read by Kafka as PEM stores, SASL_PLAINTEXT with PLAIN and
// SCRAM (credentials created at format time), and SASL_SSL when both are on.
package localkafka
