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

	pt        *part
	bytes     []byte // the finished batch, once first sent
	seq       int32  // its base sequence, once first sent
	id        producerID
	inFlight  bool
	unknown   bool  // the last attempt may have been written (its outcome is not known)
	notBefore int64 // clock time before which it is not sent again
	attempts  int
}

func (b *batch) reset() {
	b.w.Reset()
	b.tags = b.tags[:0]
	b.pt, b.bytes, b.seq, b.id = nil, nil, -1, noID
	b.inFlight, b.unknown, b.notBefore, b.attempts = false, false, 0, 0
}

// records is the batch's record count.
func (b *batch) records() int32 { return int32(len(b.tags)) }

// part is one partition's state: its open batch and queue (shared with Produce, under the
// Producer's mutex) and what the sender keeps.
type part struct {
	topic     int
	partition int32
	leader    int32 // -1: not known

	open  *batch   // records being added
	queue []*batch // sealed, never sent

	unacked   []*batch // sent at least once, not finished, in sequence order
	inflight  int      // of unacked, those in a request now
	draining  bool     // an error: send nothing until inflight is 0, then resend unacked in order
	needReset bool     // a gap in the sequences: a new producer id before anything is sent
	id        producerID
	nextSeq   int32
}

// maxUnacked is the most batches of one partition an idempotent producer has outstanding: the
// broker checks a batch against the producer's last five.
const maxUnacked = 5

// next returns the batch pt may send now, or nil: an unacknowledged batch first (in sequence
// order, once its backoff has passed), then a queued one, given the idempotent window.
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
	if idempotent && len(pt.unacked) >= maxUnacked {
		return nil
	}
	for len(pt.queue) > 0 {
		b := pt.queue[0]
		if now-b.created <= deliveryTimeout {
			return b
		}
		pt.queue = pt.queue[1:]
		expired(b, false) // never sent: nothing to undo
	}
	return nil
}

// start marks b, returned by next, as sent: a queued batch gets its sequence and its bytes.
func (pt *part) start(b *batch, idempotent bool) {
	if b.bytes == nil {
		pt.queue = pt.queue[1:]
		b.pt = pt
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
	pt.id, pt.nextSeq, pt.needReset = id, 0, false
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
