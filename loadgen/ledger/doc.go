// Package ledger is the loss ledger of one consumer group: which messages the group has seen,
// so that after a run every acknowledged message can be called consumed, lost, or not yet
// consumed, and every repeat or reordering counted.
//
// A message is a (producer, sequence) pair from the stamp in its payload. Each producer's
// sequences seen are a SeqSet, a bitmap in 64 Ki chunks that are released once full, so memory
// follows the consumers' lag rather than the run's length. Per partition the Group keeps the
// highest offset read (to tell a replay after a rebalance from a second copy in the log, and to
// know whether the group read to the end) and, per producer on it, the highest sequence seen
// (to count reordering). The per-record path allocates nothing.
//
// A Group is not safe for concurrent use; the consumers of a group share it under a lock.
package ledger
