// Package produce is plimsoll's own produce path (issue 15): records written straight into v2
// record batches (recbatch.Writer, compressed with Config.Codec if set) and sent as
// kmsg.ProduceRequests on franz-go's connections, over one or more sessions, each with up to
// five requests in flight per broker, idempotent or not.
//
// franz-go keeps the clients: their connections (TLS, SASL, ApiVersions), broker lists and the
// metadata requests this package issues through them. What franz-go's own producer would do is
// done here: batching (batch.size, linger), the producer ids (InitProducerID), per-partition
// sequence numbers, the request windows, retries and the outcome of every record.
//
// # Sessions
//
// A session is what one franz-go producer client is: its own kgo.Client (its own connections),
// its own producer id and per-partition sequences, its own window of requests per broker. A
// Producer starts with one and adds one (up to Config.Sessions, MaxSessions by default) when
// batches have waited Config.GrowAfter with every session's window full (grower): a broker
// handles one request of a connection at a time, so against acknowledgements that wait on
// replication the requests in flight on one connection wait on each other, and only more
// connections carry more. Sessions are never removed; the operator tunes nothing.
//
// A partition's sealed batches wait in one queue (its slot) that every session takes from: the
// next batch goes with the first session (in order of creation) whose window has room for it.
// Once a session has sent a batch, the batch is that session's: its sequence, its retries,
// its outcome. So order holds within a session, not across them: two sessions' batches of a
// partition may be written in either order, as two producers' may. Config.MarkLane lets the
// caller write the session into each record (plimsoll's stamp carries it, and its ledger checks
// order per session).
//
// # Guarantees
//
// Every record given to Produce is reported exactly once to Config.Done, with its batch's
// outcome: nil once the partition's leader acknowledged it with the request's acks, or the
// error that ended it. Everything below holds per session. With idempotence (acks=all), the
// broker deduplicates a batch sent again by its producer id and sequence, so a retry never
// writes a record twice, and a session's batches of a partition are written in the order
// their records were produced:
//
//   - A partition's batches get their sequences when first sent, in order, and a retried batch
//     keeps its bytes and its sequence.
//   - After any retriable error on a partition (NOT_LEADER_OR_FOLLOWER and the other leader
//     errors, which also refresh the metadata; a request that failed on its connection; a
//     timeout; OUT_OF_ORDER_SEQUENCE_NUMBER behind a batch being retried), the partition sends
//     nothing until all its requests in flight have come back; then its unacknowledged batches
//     go again in sequence order, before any new one.
//   - DUPLICATE_SEQUENCE_NUMBER is success: the broker has the batch already.
//   - Until a batch of the partition is acknowledged under the session's producer id (its first,
//     or the first after a reset), the partition has one batch outstanding: a broker with no
//     state for the producer id accepts any first sequence (KIP-360), so a later batch could
//     otherwise be written before an earlier one that failed.
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
// In each session, up to Config.MaxInFlight requests (1 to 5) per broker are outstanding at
// once, each with at most one batch per partition (Kafka takes one), and with idempotence at
// most five batches per partition, the broker's deduplication window. Requests to a broker
// must reach its connection in the order their sequences were given: franz-go's
// Broker.Request runs each request on a goroutine of its own, so the sender issues a session's
// next request to a broker only once franz-go reports the previous one written (a
// HookBrokerWrite on each client this package creates) or finished. Responses are handled in
// the order the requests were issued, per session and broker.
//
// A batch that is not full is sealed after its linger only if some session has no request in
// flight to the partition's leader; until then it keeps filling, as Kafka's clients append to
// a batch that waits to be sent. Full batches pipeline: a part-filled one behind requests that
// wait on slow acknowledgements would wait as long and carry less.
//
// # Cost
//
// Produce copies the record into its partition's open batch under one mutex (and, with
// Config.MarkLane, notes where its value is); batches and their buffers are pooled (Config.BufferBatches of them, the producer's buffer: Produce waits for
// one when all are in use), so the per-record path allocates nothing in steady state. Each
// request costs franz-go's per-request allocations (a goroutine, the response), not per record;
// each session a client, its connections and a producer id.
package produce
