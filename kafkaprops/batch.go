package kafkaprops

// DefaultBatchSize is Kafka's batch.size default, in bytes.
const DefaultBatchSize = 16384

// plimsoll keeps Kafka's default batch.size unless the workload sets one. It used to raise it
// to hold 16 messages, so that 10 KB messages would not go one to a batch; on the demo's
// emulated 16 Mbit/s links (3 brokers, rf 3, acks=all) that lowered the 10 KB ceiling from 164
// msgs/s (16384) to 134 (163840): the larger batches arrived at the shapers in bursts that
// overflowed their queues (26 drops/s, p99 publish 9 s at 170 msgs/s against 182 ms with 16384).

// BatchSize is the batch.size producers use under props (a producer's effective properties):
// the user's if set, else Kafka's default kept within a max.request.size the user lowered. It
// is the rule of `plimsoll run` and of every trial of `plimsoll limit` (Resolve applies it);
// limit's model of a trial uses it too.
func BatchSize(props Props) int {
	return newResolved(RoleProducer, props).batchSize()
}

func (r *resolved) batchSize() int {
	if r.set["batch.size"] {
		return int(r.int("batch.size"))
	}
	return min(DefaultBatchSize, int(r.int("max.request.size")))
}
