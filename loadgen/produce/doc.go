// Package produce is plimsoll's own produce path (issue 15): records written straight into v2
// record batches (recbatch.Writer, compressed with Config.Codec if set) and sent as kmsg.ProduceRequests on franz-go's connections,
// with up to five requests in flight per broker, idempotent or not.
//
// franz-go keeps the client: its connections (TLS, SASL, ApiVersions), its broker list and the
// metadata requests this package issues through it. What franz-go's own producer would do is
// done here: batching (batch.size, linger), the producer id (InitProducerID), per-partition
// sequence numbers, the request window, retries and the outcome of every record.
//
// # Guarantees
//
// Every record given to Produce is reported exactly once to Config.Done, with its batch's
// outcome: nil once the partition's leader acknowledged it with the request's acks, or the
// error that ended it. With idempotence (acks=all), the broker deduplicates a batch sent again by
// its producer id and sequence, so a retry never writes a record twice, and batches of a
// partition are written in the order their records were produced:
//
//   - A partition's batches get their sequences when first sent, in order, and a retried batch
//     keeps its bytes and its sequence.
//   - After any retriable error on a partition (NOT_LEADER_OR_FOLLOWER and the other leader
//     errors, which also refresh the metadata; a request that failed on its connection; a
//     timeout; OUT_OF_ORDER_SEQUENCE_NUMBER behind a batch being retried), the partition sends
//     nothing until all its requests in flight have come back; then its unacknowledged batches
//     go again in sequence order, before any new one.
//   - DUPLICATE_SEQUENCE_NUMBER is success: the broker has the batch already.
//   - A batch the broker refused for good (too large, invalid, not authorised) fails its
//     records. So does a batch that outlives Config.DeliveryTimeout, and then, since it may have
//     been written, every unacknowledged batch of its partition with it. Either leaves a gap
//     in the partition's sequences: the partition moves to a new producer id (InitProducerID),
//     its batches that were certainly not written restamped (recbatch.Restamp) from sequence 0.
//     OUT_OF_ORDER_SEQUENCE_NUMBER on the oldest unacknowledged batch (the broker lost the
//     producer's state) and UNKNOWN_PRODUCER_ID fail that batch and do the same.
//
// Without idempotence a retry can write a batch twice, and a batch sent again lands after the
// batches that were in flight behind it, as with Kafka's Java client and more than one request
// in flight; unacknowledged batches still go again in their order.
//
// # The window
//
// Up to Config.MaxInFlight requests (1 to 5) per broker are outstanding at once, each with at
// most one batch per partition (Kafka takes one), and with idempotence at most five batches per
// partition, the broker's deduplication window. Requests to a broker must reach its connection
// in the order their sequences were given: franz-go's Broker.Request runs each request on a
// goroutine of its own, so the sender issues a broker's next request only once franz-go reports
// the previous one written (a HookBrokerWrite on the client this package creates) or finished.
// Responses are handled in the order the requests were issued, per broker.
//
// # Cost
//
// Produce copies the record into its partition's open batch under one mutex; batches and their
// buffers are pooled (Config.BufferBatches of them, the producer's buffer: Produce waits for
// one when all are in use), so the per-record path allocates nothing in steady state. Each
// request costs franz-go's per-request allocations (a goroutine, the response), not per record.
package produce
