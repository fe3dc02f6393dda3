package recbatch

import (
	"cmp"
	"slices"
)

// AbortedTxn is one entry of a Fetch response partition's AbortedTransactions: a producer's
// transaction that was aborted, and the offset of its first batch.
type AbortedTxn struct {
	ProducerID  int64
	FirstOffset int64
}

// Aborts applies read_committed's rule to the batches of one partition's fetch, in offset
// order: a transactional data batch is skipped if its producer has an aborted transaction that
// began at or before the batch's last offset and whose abort marker has not been passed yet;
// control batches are always skipped, and an abort marker ends its producer's aborted
// transaction. The zero Aborts skips control batches only. Reset it per partition per fetch
// with the response's list; it keeps its slices between fetches.
type Aborts struct {
	txns []AbortedTxn // the fetch's aborted transactions, by first offset
	next int          // the first of txns not yet begun
	open []int64      // producers inside an aborted transaction
}

// Reset starts a, for a partition's fetch, with the response's aborted transactions (copied).
func (a *Aborts) Reset(txns []AbortedTxn) {
	a.txns = append(a.txns[:0], txns...)
	slices.SortFunc(a.txns, func(x, y AbortedTxn) int { return cmp.Compare(x.FirstOffset, y.FirstOffset) })
	a.next, a.open = 0, a.open[:0]
}

// Skip reports whether a read_committed consumer skips batch b. For a control batch, marker is
// the type of its control record (Control of the record's key); it is ignored otherwise.
func (a *Aborts) Skip(b *Batch, marker ControlType) bool {
	if b.ProducerID >= 0 {
		a.begin(b.LastOffset())
	}
	if b.Control() {
		if marker == AbortMarker {
			a.end(b.ProducerID)
		}
		return true
	}
	return b.Transactional() && slices.Contains(a.open, b.ProducerID)
}

// begin opens the aborted transactions that began at or before offset.
func (a *Aborts) begin(offset int64) {
	for ; a.next < len(a.txns) && a.txns[a.next].FirstOffset <= offset; a.next++ {
		if pid := a.txns[a.next].ProducerID; !slices.Contains(a.open, pid) {
			a.open = append(a.open, pid)
		}
	}
}

// end closes producer pid's aborted transaction.
func (a *Aborts) end(pid int64) {
	if i := slices.Index(a.open, pid); i >= 0 {
		a.open = slices.Delete(a.open, i, i+1)
	}
}
