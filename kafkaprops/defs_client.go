package kafkaprops

import "math"

// Reasons shown when a property is refused.
const (
	whyNoEquivalent = "" // the generic reason, with the list of supported properties
	whyTransactions = "transactional producing is not supported by the load generator; remove it"
	whyStatic       = "plimsoll's consumers join their groups as dynamic members (static membership would give a group's consumers one id); remove it"
	whyLz4Level     = "franz-go compresses lz4 in its fast mode only (Java's levels are HC levels); remove it"
	whyClasses      = "plimsoll's Go client cannot load Java classes; remove it"
	whyLoaded       = "plimsoll's generator never blocks in send: it keeps a pool of records and counts every wait for one (client.buffer_full); remove it"
)

const i32 = math.MaxInt32

// clientDefs are Apache Kafka's producer, consumer and common client configs (ProducerConfig,
// ConsumerConfig, CommonClientConfigs as of Kafka 4.x) with their defaults, types and the
// bounds Kafka's validators enforce. Security settings are in securityDefs.
var clientDefs = []Def{
	// Producer.
	d("acks", ScopeProducer, KindEnum, "all", "acknowledgements a produce request waits for: 0, 1, or all (-1) in-sync replicas").enum(false, "all", "-1", "0", "1").mapped(),
	d("batch.size", ScopeProducer, KindInt, "16384", "bytes of records the producer gathers per partition before it sends; unset, plimsoll derives it from the message size (BatchSize)").min(0).mapped(),
	d("buffer.memory", ScopeProducer, KindLong, "33554432", "bytes of records a producer may hold unsent").min(0).mapped(),
	d("compression.type", ScopeProducer, KindEnum, "none", "codec for record batches").enum(false, "none", "gzip", "snappy", "lz4", "zstd").mapped(),
	d("compression.gzip.level", ScopeProducer|ScopeTopic, KindInt, "-1", "gzip level, 1..9, or -1 for the codec's default").min(-1).max(9).mapped(),
	d("compression.lz4.level", ScopeProducer|ScopeTopic, KindInt, "9", "lz4 level, 1..17").min(1).max(17).refused(whyLz4Level),
	d("compression.zstd.level", ScopeProducer|ScopeTopic, KindInt, "3", "zstd level, -131072..22").min(-131072).max(22).mapped(),
	d("delivery.timeout.ms", ScopeProducer, KindInt, "120000", "time a record may take from send to acknowledgement, retries included; at least linger.ms + request.timeout.ms (Kafka raises its default to that sum)").min(0).mapped(),
	d("enable.idempotence", ScopeProducer, KindBool, "true", "write each record once per partition, in order; Kafka turns its default off when acks is not all or retries is 0").mapped(),
	d("linger.ms", ScopeProducer, KindLong, "5", "time a batch waits for more records before it is sent").min(0).mapped(),
	d("max.block.ms", ScopeProducer, KindLong, "60000", "time send() may block for buffer space or metadata").min(0).refused(whyLoaded),
	d("max.in.flight.requests.per.connection", ScopeProducer, KindInt, "5", "unacknowledged produce requests per broker connection; at most 5 with idempotence").min(1).mapped(),
	d("max.request.size", ScopeProducer, KindInt, "1048576", "largest produce request, and so largest uncompressed batch, in bytes").min(0).mapped(),
	d("metadata.max.idle.ms", ScopeProducer, KindLong, "300000", "time the producer keeps metadata of a topic it does not write to").min(5000).refused(whyNoEquivalent),
	d("partitioner.adaptive.partitioning.enable", ScopeProducer, KindBool, "true", "send more to partitions on faster brokers").mapped(),
	d("partitioner.availability.timeout.ms", ScopeProducer, KindLong, "0", "time after which a partition whose broker does not take produce requests is skipped; 0 = never").min(0).mapped(),
	d("partitioner.class", ScopeProducer, KindClass, "", "partitioner class; null = Kafka's built-in (murmur2 on keys, sticky batches otherwise)").mapped(),
	d("partitioner.ignore.keys", ScopeProducer, KindBool, "false", "choose partitions without looking at keys").mapped(),
	d("retries", ScopeProducer, KindInt, "2147483647", "times a failed produce request is retried within delivery.timeout.ms").min(0).max(i32).mapped(),
	d("transaction.timeout.ms", ScopeProducer, KindInt, "60000", "time a transaction may stay open").refused(whyTransactions),
	d("transaction.two.phase.commit.enable", ScopeProducer, KindBool, "false", "take part in an external two-phase commit").refused(whyTransactions),
	d("transactional.id", ScopeProducer, KindString, "", "the producer's transactional identity; implies idempotence").refused(whyTransactions),
	d("key.serializer", ScopeProducer, KindClass, "", "serializer of record keys").owned("plimsoll writes raw bytes"),
	d("value.serializer", ScopeProducer, KindClass, "", "serializer of record values").owned("plimsoll writes raw bytes"),

	// Consumer.
	d("allow.auto.create.topics", ScopeConsumer, KindBool, "true", "let a subscription create a missing topic").refused(whyNoEquivalent),
	d("auto.commit.interval.ms", ScopeConsumer, KindInt, "5000", "time between automatic offset commits").min(0).mapped(),
	d("auto.offset.reset", ScopeConsumer, KindString, "latest", "where a group without a committed offset starts: earliest, latest, none or by_duration:PnDTnHnMn.nS (plimsoll's default is earliest)").mapped(),
	d("check.crcs", ScopeConsumer, KindBool, "true", "verify the CRC32 of fetched batches").mapped(),
	d("client.rack", ScopeConsumer, KindString, "", "the consumer's rack, for fetching from the closest replica").mapped(),
	d("default.api.timeout.ms", ScopeConsumer, KindInt, "60000", "time a consumer call may take when given no timeout").min(0).mapped(),
	d("enable.auto.commit", ScopeConsumer, KindBool, "true", "commit offsets in the background").mapped(),
	d("exclude.internal.topics", ScopeConsumer, KindBool, "true", "leave internal topics out of pattern subscriptions").refused(whyNoEquivalent),
	d("fetch.max.bytes", ScopeConsumer, KindInt, "52428800", "bytes a fetch response may carry").min(0).mapped(),
	d("fetch.max.wait.ms", ScopeConsumer, KindInt, "500", "time the broker may hold a fetch to gather fetch.min.bytes").min(0).mapped(),
	d("fetch.min.bytes", ScopeConsumer, KindInt, "1", "bytes the broker gathers before it answers a fetch").min(0).mapped(),
	d("group.id", ScopeConsumer, KindString, "", "the consumer group").owned("plimsoll names one group per consumer-groups entry for each run"),
	d("group.instance.id", ScopeConsumer, KindString, "", "static group membership id").refused(whyStatic),
	d("group.protocol", ScopeConsumer, KindEnum, "classic", "group protocol: classic, or consumer (KIP-848, assignment by the broker)").enum(true, "classic", "consumer").mapped(),
	d("group.remote.assignor", ScopeConsumer, KindString, "", "server-side assignor for group.protocol=consumer").refused(whyNoEquivalent),
	d("heartbeat.interval.ms", ScopeConsumer, KindInt, "3000", "time between heartbeats to the group coordinator; below session.timeout.ms").mapped(),
	d("isolation.level", ScopeConsumer, KindEnum, "read_uncommitted", "whether to read records of open or aborted transactions").enum(false, "read_uncommitted", "read_committed").mapped(),
	d("max.partition.fetch.bytes", ScopeConsumer, KindInt, "1048576", "bytes a fetch may return per partition").min(0).mapped(),
	d("max.poll.interval.ms", ScopeConsumer, KindInt, "300000", "time between polls before the consumer leaves its group (franz-go: the rebalance timeout)").min(1).mapped(),
	d("max.poll.records", ScopeConsumer, KindInt, "500", "records one poll returns").min(1).mapped(),
	d("partition.assignment.strategy", ScopeConsumer, KindList, "org.apache.kafka.clients.consumer.RangeAssignor,org.apache.kafka.clients.consumer.CooperativeStickyAssignor", "client-side assignors, in order of preference").mapped(),
	d("session.timeout.ms", ScopeConsumer, KindInt, "45000", "time without heartbeats before the coordinator drops a consumer").mapped(),
	d("key.deserializer", ScopeConsumer, KindClass, "", "deserializer of record keys").owned("plimsoll reads raw bytes"),
	d("value.deserializer", ScopeConsumer, KindClass, "", "deserializer of record values").owned("plimsoll reads raw bytes"),

	// Both clients.
	d("bootstrap.servers", ScopeClients, KindList, "", "brokers to contact first").owned("plimsoll connects to the target cluster given on its command line"),
	d("client.dns.lookup", ScopeClients, KindEnum, "use_all_dns_ips", "how broker host names are resolved").enum(false, "use_all_dns_ips", "resolve_canonical_bootstrap_servers_only").refused(whyNoEquivalent),
	d("client.id", ScopeClients, KindString, "", "the client's name in broker logs and quotas (plimsoll names each client when unset)").mapped(),
	d("config.providers", ScopeClients, KindList, "", "classes that resolve ${provider:key} references").refused(whyClasses),
	d("connections.max.idle.ms", ScopeClients, KindLong, "540000", "time after which an idle connection is closed").mapped(),
	d("enable.metrics.push", ScopeClients, KindBool, "true", "push client metrics to the broker (KIP-714)").refused(whyNoEquivalent),
	d("interceptor.classes", ScopeClients, KindList, "", "classes that see every record sent or received").refused(whyClasses),
	d("metadata.max.age.ms", ScopeClients, KindLong, "300000", "time after which metadata is refreshed").min(0).mapped(),
	d("metadata.recovery.strategy", ScopeClients, KindEnum, "rebootstrap", "what to do when no known broker answers: none or rebootstrap").enum(true, "none", "rebootstrap").refused(whyNoEquivalent),
	d("metadata.recovery.rebootstrap.trigger.ms", ScopeClients, KindLong, "300000", "time without metadata before the client rebootstraps").min(0).refused(whyNoEquivalent),
	d("metric.reporters", ScopeClients, KindList, "org.apache.kafka.common.metrics.JmxReporter", "classes that receive client metrics").refused(whyClasses),
	d("metrics.num.samples", ScopeClients, KindInt, "2", "samples kept per client metric").min(1).refused(whyNoEquivalent),
	d("metrics.recording.level", ScopeClients, KindEnum, "INFO", "the highest level of client metrics recorded").enum(false, "INFO", "DEBUG", "TRACE").refused(whyNoEquivalent),
	d("metrics.sample.window.ms", ScopeClients, KindLong, "30000", "window of one client metric sample").min(0).refused(whyNoEquivalent),
	d("receive.buffer.bytes", ScopeClients, KindInt, "32768", "socket receive buffer (SO_RCVBUF); -1 = the OS default").min(-1).consumerDefault("65536").refused(whyNoEquivalent),
	d("reconnect.backoff.max.ms", ScopeClients, KindLong, "1000", "longest wait before reconnecting to a broker").min(0).refused(whyNoEquivalent),
	d("reconnect.backoff.ms", ScopeClients, KindLong, "50", "first wait before reconnecting to a broker").min(0).refused(whyNoEquivalent),
	d("request.timeout.ms", ScopeClients, KindInt, "30000", "time the client waits for a broker's response").min(0).mapped(),
	d("retry.backoff.max.ms", ScopeClients, KindLong, "1000", "longest wait between retries").min(0).mapped(),
	d("retry.backoff.ms", ScopeClients, KindLong, "100", "first wait between retries, doubling up to retry.backoff.max.ms").min(0).mapped(),
	d("send.buffer.bytes", ScopeClients, KindInt, "131072", "socket send buffer (SO_SNDBUF); -1 = the OS default").min(-1).refused(whyNoEquivalent),
	d("socket.connection.setup.timeout.max.ms", ScopeClients, KindLong, "30000", "longest time to set up a connection").refused(whyNoEquivalent),
	d("socket.connection.setup.timeout.ms", ScopeClients, KindLong, "10000", "first time allowed to set up a connection").refused(whyNoEquivalent),
}
