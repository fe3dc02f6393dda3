// Package fetch is plimsoll's own consumer fetch path (issue 15): Fetch requests it writes
// itself, on connections of its own, their responses read into buffers it keeps and their record
// batches parsed in place (package recbatch), so that a consumer allocates nothing per record
// and spends a fraction of franz-go's CPU.
//
// franz-go keeps what is rare and intricate: group membership and its balancers, offset
// commits, and the Metadata and ListOffsets requests a Fetcher sends through the client it is
// bound to. The consumer pauses franz-go's own fetching and hands the Fetcher each assignment
// (Assign, Revoke); the Fetcher hands every record to a Sink.
//
// # How it fetches
//
// One worker goroutine per leader broker, each with one connection (dialled as the client dials:
// TLS with its configuration, SASL with its mechanism through SaslHandshake and
// SaslAuthenticate, redialled before a session's lifetime ends) that carries Fetch v11
// requests (the last version before flexible encoding; Kafka 2.3 and later, 4.x included),
// session-less, one at a time: every partition the broker leads and the consumer may fetch, at
// its next offset, with the consumer's fetch.min.bytes, fetch.max.bytes,
// max.partition.fetch.bytes, fetch.max.wait.ms, isolation level and rack. The request is
// written into a buffer the connection keeps (AppendRequest); the response is read into another
// it grows only and decoded by hand (Response.Parse) into a flat slice of partitions whose
// record bytes alias the buffer.
//
// Per-partition state (assigned, a generation, the next offset, the leader and its epoch, a
// retry time) lives in flat arrays indexed by the consumer's dense partition index (a topic's
// base plus the partition), all under one mutex. Delivery holds it, and the sink's lock, across
// a whole response; a partition revoked, reassigned or moved since its request was written (its
// generation or offset changed) is skipped, so Revoke returns only once none of its records can
// be delivered any more.
//
// # The offset rule
//
// Records below the offset fetched are dropped (a fetch from inside a batch returns the whole
// batch), as are batches and records whose offsets go backwards. Control batches are skipped;
// read_committed, so are aborted transactions' batches (recbatch.Aborts with the response's
// list); either way their offsets are passed. A batch the parser finds corrupt stops its
// partition where it starts, retried after the backoff, and is reported.
//
// # Errors
//
// OFFSET_OUT_OF_RANGE resets the partition by the reset policy (ListOffsets, earliest or
// latest; "none" leaves it unfetched). NOT_LEADER_OR_FOLLOWER, FENCED_LEADER_EPOCH,
// UNKNOWN_LEADER_EPOCH, UNKNOWN_TOPIC_OR_PARTITION, LEADER_NOT_AVAILABLE, a storage error and
// the like mark the leader unknown: Metadata again, then the partition goes to its leader's
// worker. Any other partition error is retried after the backoff. A connection that fails
// (refused, reset, timed out, a malformed response) is closed, its broker's partitions look for
// their leader again, and its worker backs off. Every error is reported to the sink.
//
// # Not done
//
// No fetch sessions (KIP-227): every request lists every partition, which costs bytes per
// request, not per record. Truncation after an unclean leader change is not detected
// (OffsetForLeaderEpoch), and a follower the broker prefers (KIP-392) is ignored.
package fetch
