package kafkaprops

// DefaultBatchSize is Kafka's batch.size default, in bytes.
const DefaultBatchSize = 16384

// MinBatchMessages is how many messages a producer batch holds at least, in every run and
// every search, unless the workload sets batch.size itself. Kafka's default batch.size (16 KB)
// holds a single 10 KB message, and a search would then measure the cost of requests, not of
// bytes.
const MinBatchMessages = 16

// batchMessageOverhead is what BatchSize allows per message beyond its value: record framing
// (at most 21 bytes), a key, and the batch header shared out.
const batchMessageOverhead = 64

// MaxDerivedBatchSize caps the derived batch.size at 1 MB, about the brokers' default
// message.max.bytes (1048588): a larger batch could not be stored uncompressed.
const MaxDerivedBatchSize = 1000000

// DeriveBatchSize is the batch.size plimsoll uses for messages of messageBytes when the user
// sets none: Kafka's 16384 raised to hold MinBatchMessages messages, at most
// MaxDerivedBatchSize.
func DeriveBatchSize(messageBytes int) int {
	return min(max(DefaultBatchSize, MinBatchMessages*(messageBytes+batchMessageOverhead)), MaxDerivedBatchSize)
}

// BatchSize is the batch.size producers use for messages of messageBytes under props (a
// producer's effective properties): the user's if set, else DeriveBatchSize, kept within a
// max.request.size the user lowered. It is the rule of `plimsoll run` and of every trial of
// `plimsoll limit` (Resolve applies it); limit's model of a trial uses it too.
func BatchSize(props Props, messageBytes int) int {
	return newResolved(RoleProducer, props).batchSize(messageBytes)
}

func (r *resolved) batchSize(messageBytes int) int {
	if r.set["batch.size"] {
		return int(r.int("batch.size"))
	}
	return min(DeriveBatchSize(messageBytes), int(r.int("max.request.size")))
}
