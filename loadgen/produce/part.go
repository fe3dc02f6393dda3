package produce

import (
	"math"

	"github.com/plimsoll/plimsoll/loadgen/recbatch"
)

// producerID is a producer id and epoch from InitProducerID; {-1, -1} without idempotence.
type producerID struct {
	id    int64
	epoch int16
}

var noID = producerID{-1, -1}

// batch is one record batch with the tags of its records and its sending state.
type batch struct {
	w       recbatch.Writer
	tags    []Tag
	ts0     int64 // the first record's timestamp (ms), the batch's base
	created int64 // clock time of its first record

	vals []valueRef // where each record's value is in w (only with Config.MarkLane)

	pt        *part  // the session's partition that sent it, once first sent
	bytes     []byte // the finished batch, once first sent
	seq       int32  // its base sequence, once first sent
	id        producerID
	inFlight  bool
	unknown   bool  // the last attempt may have been written (its outcome is not known)
	notBefore int64 // clock time before which it is not sent again
	attempts  int
}

// valueRef is a record's value in its batch's Writer.
type valueRef struct{ at, n int32 }

func (b *batch) reset() {
	b.w.Reset()
	b.tags, b.vals = b.tags[:0], b.vals[:0]
	b.pt, b.bytes, b.seq, b.id = nil, nil, -1, noID
	b.inFlight, b.unknown, b.notBefore, b.attempts = false, false, 0, 0
}

// records is the batch's record count.
func (b *batch) records() int32 { return int32(len(b.tags)) }

// slot is one partition's records not yet given to a session: its open batch and its sealed
// batches, shared by Produce and the sender under the Producer's mutex.
type slot struct {
	open  *batch   // records being added
	queue []*batch // sealed, never sent: the next session with room takes the head
}

// part is one partition's state in one session (the sender's): the batches the session sent
// and its sequences. Its sl is the partition's slot, shared by every session.
type part struct {
	topic     int
	partition int32
	leader    int32 // -1: not known
	sl        *slot

	unacked   []*batch // sent at least once, not finished, in sequence order
	inflight  int      // of unacked, those in a request now
	draining  bool     // an error: send nothing until inflight is 0, then resend unacked in order
	needReset bool     // a gap in the sequences: a new producer id before anything is sent
	id        producerID
	nextSeq   int32
	// established: a batch of pt was acknowledged under id. Until then the broker may hold no
	// state for id on the partition, and since KIP-360 it accepts any first sequence from such
	// a producer: a later batch could be written before an earlier one that failed. So until
	// then pt has one batch outstanding.
	established bool
}

// maxUnacked is the most batches of one partition an idempotent producer has outstanding: the
// broker checks a batch against the producer's last five.
const maxUnacked = 5

// next returns the batch pt may send now, or nil: an unacknowledged batch first (in sequence
// order, once its backoff has passed), then the head of the slot's queue, given the idempotent
// window.
// Batches it finds past their delivery deadline go to expired instead. It does not mark the
// batch sent.
func (pt *part) next(now int64, idempotent bool, deliveryTimeout int64, expired func(*batch, bool)) *batch {
	if pt.draining {
		if pt.inflight > 0 {
			return nil
		}
		pt.draining = false
	}
	if pt.needReset {
		return nil
	}
	for i := 0; i < len(pt.unacked); i++ {
		b := pt.unacked[i]
		if b.inFlight {
			continue
		}
		if now-b.created > deliveryTimeout && pt.inflight == 0 {
			// It may have been written: everything of pt not acknowledged goes with it.
			expired(b, true)
			return nil
		}
		if now < b.notBefore {
			return nil
		}
		return b
	}
	if idempotent && (len(pt.unacked) >= maxUnacked || !pt.established && len(pt.unacked) > 0) {
		return nil
	}
	for len(pt.sl.queue) > 0 {
		b := pt.sl.queue[0]
		if now-b.created <= deliveryTimeout {
			return b
		}
		pt.sl.queue = pt.sl.queue[1:]
		expired(b, false) // never sent: nothing to undo
	}
	return nil
}

// full reports whether pt's session can send no new batch of pt to br for its window: br's
// requests in flight at maxInFlight or, idempotent, pt's batches outstanding at five (or at
// one, its first under its producer id).
func (pt *part) full(br *brokerState, maxInFlight int, idempotent bool) bool {
	return len(br.calls) >= maxInFlight ||
		idempotent && (len(pt.unacked) >= maxUnacked || !pt.established && len(pt.unacked) > 0)
}

// start marks b, returned by next, as sent: a queued batch gets its sequence and its bytes,
// its records' values first given to mark (if not nil) with the session's index. Session 0's
// values are left as they are (lane 0 is what a value holds until marked), so a producer that
// never grows pays no call per record here.
func (pt *part) start(b *batch, idempotent bool, mark func([]byte, int), session int) {
	if b.bytes == nil {
		pt.sl.queue = pt.sl.queue[1:]
		b.pt = pt
		if mark != nil && session != 0 {
			for _, v := range b.vals {
				mark(b.w.Value(int(v.at), int(v.n)), session)
			}
		}
		p := recbatch.NoProducer
		if idempotent {
			b.id, b.seq = pt.id, pt.nextSeq
			p = recbatch.Producer{ID: pt.id.id, Epoch: pt.id.epoch, BaseSequence: b.seq}
			pt.nextSeq = addSeq(pt.nextSeq, b.records())
		}
		b.bytes = b.w.Finish(p)
		pt.unacked = append(pt.unacked, b)
	}
	b.inFlight = true
	b.attempts++
	pt.inflight++
}

// addSeq advances a sequence by n, wrapping past MaxInt32 to 0 as Kafka does.
func addSeq(seq, n int32) int32 {
	if int64(seq)+int64(n) > math.MaxInt32 {
		return int32(int64(seq) + int64(n) - math.MaxInt32 - 1)
	}
	return seq + n
}

// returned marks b back from a request, whatever its outcome.
func (pt *part) returned(b *batch) {
	b.inFlight = false
	pt.inflight--
}

// remove takes a finished batch out of unacked.
func (pt *part) remove(b *batch) {
	for i, u := range pt.unacked {
		if u == b {
			pt.unacked = append(pt.unacked[:i], pt.unacked[i+1:]...)
			return
		}
	}
}

// retry schedules b to go again after backoff; the partition drains first.
func (pt *part) retry(b *batch, unknown bool, notBefore int64) {
	b.unknown = b.unknown || unknown
	b.notBefore = notBefore
	pt.draining = true
}

// restamp moves pt to a new producer id, its sequences from 0: the unacknowledged batches
// that were certainly not written are restamped in order; those that may have been
// (b.unknown) are returned, to be failed, since sending them again under a new id could write
// them twice.
func (pt *part) restamp(id producerID) (failed []*batch) {
	pt.id, pt.nextSeq, pt.needReset, pt.established = id, 0, false, false
	kept := pt.unacked[:0]
	for _, b := range pt.unacked {
		if b.unknown {
			failed = append(failed, b)
			continue
		}
		b.id, b.seq = id, pt.nextSeq
		recbatch.Restamp(b.bytes, recbatch.Producer{ID: id.id, Epoch: id.epoch, BaseSequence: b.seq})
		pt.nextSeq = addSeq(pt.nextSeq, b.records())
		kept = append(kept, b)
	}
	pt.unacked = kept
	return failed
}
