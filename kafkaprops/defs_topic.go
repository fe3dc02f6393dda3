package kafkaprops

const i64 = "9223372036854775807" // Long.MAX_VALUE, Kafka's "never"

// topicDefs are Kafka's topic-level configs (TopicConfig). plimsoll passes them to the brokers
// when it creates its topics; where Default is "" the broker's own log.* setting applies.
// compression.type takes the broker's values here, not the producer's.
var topicDefs = []Def{
	d("cleanup.policy", ScopeTopic, KindList, "delete", "delete, compact, or both").mapped(),
	d("compression.type", ScopeTopic, KindEnum, "producer", "codec the broker stores batches in; producer = as sent").enum(false, "uncompressed", "zstd", "lz4", "snappy", "gzip", "producer").mapped(),
	d("compression.gzip.level", ScopeTopic, KindInt, "-1", "gzip level when the broker recompresses").min(-1).max(9).mapped(),
	d("compression.lz4.level", ScopeTopic, KindInt, "9", "lz4 level when the broker recompresses").min(1).max(17).mapped(),
	d("compression.zstd.level", ScopeTopic, KindInt, "3", "zstd level when the broker recompresses").min(-131072).max(22).mapped(),
	d("delete.retention.ms", ScopeTopic, KindLong, "86400000", "time delete tombstones are kept in compacted topics").min(0).mapped(),
	d("file.delete.delay.ms", ScopeTopic, KindLong, "60000", "time before a deleted segment's file is removed").min(0).mapped(),
	d("flush.messages", ScopeTopic, KindLong, i64, "messages between forced fsyncs").min(1).mapped(),
	d("flush.ms", ScopeTopic, KindLong, i64, "time between forced fsyncs").min(0).mapped(),
	d("follower.replication.throttled.replicas", ScopeTopic, KindList, "", "replicas whose follower traffic is throttled").mapped(),
	d("index.interval.bytes", ScopeTopic, KindInt, "4096", "bytes between offset index entries").min(0).mapped(),
	d("leader.replication.throttled.replicas", ScopeTopic, KindList, "", "replicas whose leader traffic is throttled").mapped(),
	d("local.retention.bytes", ScopeTopic, KindLong, "-2", "bytes kept locally with tiered storage; -2 = retention.bytes").min(-2).mapped(),
	d("local.retention.ms", ScopeTopic, KindLong, "-2", "time kept locally with tiered storage; -2 = retention.ms").min(-2).mapped(),
	d("max.compaction.lag.ms", ScopeTopic, KindLong, i64, "longest a record stays uncompacted").min(1).mapped(),
	d("max.message.bytes", ScopeTopic, KindInt, "1048588", "largest record batch the topic takes, after compression").min(0).mapped(),
	d("message.downconversion.enable", ScopeTopic, KindBool, "true", "convert batches to the format an old consumer asks for").mapped(),
	d("message.format.version", ScopeTopic, KindString, "", "record format version the broker writes (older brokers)").mapped(),
	d("message.timestamp.after.max.ms", ScopeTopic, KindLong, "", "how far a record's timestamp may be ahead of the broker's clock").min(0).mapped(),
	d("message.timestamp.before.max.ms", ScopeTopic, KindLong, i64, "how far a record's timestamp may be behind the broker's clock").min(0).mapped(),
	d("message.timestamp.difference.max.ms", ScopeTopic, KindLong, "", "the older single bound on timestamp skew").min(0).mapped(),
	d("message.timestamp.type", ScopeTopic, KindEnum, "CreateTime", "CreateTime (the producer's) or LogAppendTime (the broker's)").enum(false, "CreateTime", "LogAppendTime").mapped(),
	d("min.cleanable.dirty.ratio", ScopeTopic, KindDouble, "0.5", "share of uncompacted log that triggers compaction").mapped(),
	d("min.compaction.lag.ms", ScopeTopic, KindLong, "0", "least time a record stays uncompacted").min(0).mapped(),
	d("min.insync.replicas", ScopeTopic, KindInt, "1", "in-sync replicas an acks=all write needs").min(1).mapped(),
	d("preallocate", ScopeTopic, KindBool, "false", "preallocate segment files").mapped(),
	d("remote.log.copy.disable", ScopeTopic, KindBool, "false", "stop copying segments to tiered storage").mapped(),
	d("remote.log.delete.on.disable", ScopeTopic, KindBool, "false", "delete tiered segments when tiering is turned off").mapped(),
	d("remote.storage.enable", ScopeTopic, KindBool, "false", "tier old segments to remote storage").mapped(),
	d("retention.bytes", ScopeTopic, KindLong, "-1", "bytes kept per partition; -1 = no limit").mapped(),
	d("retention.ms", ScopeTopic, KindLong, "604800000", "time records are kept; -1 = no limit").min(-1).mapped(),
	d("segment.bytes", ScopeTopic, KindInt, "1073741824", "size of one log segment file").min(14).mapped(),
	d("segment.index.bytes", ScopeTopic, KindInt, "10485760", "size of one segment's offset index").min(4).mapped(),
	d("segment.jitter.ms", ScopeTopic, KindLong, "0", "random jitter subtracted from segment.ms").min(0).mapped(),
	d("segment.ms", ScopeTopic, KindLong, "604800000", "time after which a segment is rolled").min(1).mapped(),
	d("unclean.leader.election.enable", ScopeTopic, KindBool, "false", "let an out-of-sync replica become leader").mapped(),
}

// brokerDefs are the broker settings plimsoll relies on when it reasons about a cluster it did
// not configure.
var brokerDefs = []Def{
	d("message.max.bytes", ScopeBroker, KindInt, "1048588", "largest record batch a broker takes; topics inherit it as max.message.bytes").min(0),
	d("min.insync.replicas", ScopeBroker, KindInt, "1", "in-sync replicas an acks=all write needs, unless the topic says otherwise").min(1),
	d("default.replication.factor", ScopeBroker, KindInt, "1", "replicas of auto-created topics (plimsoll sets its topics' own)").min(1),
	d("replica.lag.time.max.ms", ScopeBroker, KindLong, "30000", "time a follower may lag before it leaves the in-sync replicas").min(0),
}
