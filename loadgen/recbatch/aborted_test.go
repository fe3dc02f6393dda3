package recbatch

import (
	"fmt"
	"testing"
)

// step is one batch a read_committed consumer meets, and whether it must skip it.
type step struct {
	base, last int64
	pid        int64
	txn, ctrl  bool
	marker     ControlType
	skip       bool
}

func TestAbortsReadCommitted(t *testing.T) {
	data := func(base, last, pid int64, skip bool) step { return step{base, last, pid, true, false, 0, skip} }
	mark := func(at, pid int64, m ControlType) step { return step{at, at, pid, true, true, m, true} }
	cases := []struct {
		name    string
		aborted []AbortedTxn
		steps   []step
	}{
		{"nothing aborted: data kept, markers skipped", nil,
			[]step{data(0, 4, 1, false), mark(5, 1, CommitMarker)}},
		{"one aborted transaction, then a committed one", []AbortedTxn{{1, 0}},
			[]step{data(0, 4, 1, true), data(5, 6, 1, true), mark(7, 1, AbortMarker), data(8, 9, 1, false), mark(10, 1, CommitMarker)}},
		{"committed, then aborted: the list's first offset decides", []AbortedTxn{{1, 6}},
			[]step{data(0, 4, 1, false), mark(5, 1, CommitMarker), data(6, 8, 1, true), mark(9, 1, AbortMarker)}},
		{"two producers interleaved, one aborted", []AbortedTxn{{2, 3}},
			[]step{data(0, 2, 1, false), data(3, 4, 2, true), data(5, 6, 1, false), data(7, 7, 2, true), mark(8, 1, CommitMarker), mark(9, 2, AbortMarker), data(10, 11, 2, false)}},
		{"a non-transactional batch of the same producer is kept", []AbortedTxn{{1, 0}},
			[]step{data(0, 1, 1, true), {2, 3, 1, false, false, 0, false}, mark(4, 1, AbortMarker)}},
		{"the list arrives out of order", []AbortedTxn{{2, 10}, {1, 0}},
			[]step{data(0, 1, 1, true), mark(2, 1, AbortMarker), data(3, 9, 2, false), mark(10, 2, CommitMarker), data(11, 12, 2, true)}},
		{"an aborted transaction begun before the fetch", []AbortedTxn{{4, -20}},
			[]step{data(0, 3, 4, true), mark(4, 4, AbortMarker), data(5, 5, 4, false)}},
		{"a batch that spans the first offset", []AbortedTxn{{7, 3}},
			[]step{data(0, 5, 7, true)}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var a Aborts
			a.Reset([]AbortedTxn{{99, 0}}) // a previous fetch's list is forgotten
			a.Reset(c.aborted)
			for i, s := range c.steps {
				b := tbatch{base: s.base, txn: s.txn, control: s.ctrl, pid: s.pid}
				h := Batch{BaseOffset: b.base, LastOffsetDelta: int32(s.last - s.base), ProducerID: s.pid, Attributes: b.attributes()}
				if got := a.Skip(&h, s.marker); got != s.skip {
					t.Errorf("step %d (%s): skip %v, want %v", i, fmt.Sprint(s), got, s.skip)
				}
			}
		})
	}
}

func TestAbortsZeroValue(t *testing.T) {
	var a Aborts
	data := Batch{ProducerID: 1, Attributes: transactionalBit}
	ctrl := Batch{ProducerID: 1, Attributes: transactionalBit | controlBit}
	if a.Skip(&data, 0) || !a.Skip(&ctrl, CommitMarker) {
		t.Error("the zero Aborts should keep data and skip control batches")
	}
}
