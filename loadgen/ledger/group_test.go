package ledger

import "testing"

// rec is one consumed record for the ledger tests.
type rec struct {
	part   int
	offset int64
	prod   uint32
	seq    uint64
	lane   uint8 // 0 unless given
}

func TestGroupLedger(t *testing.T) {
	for _, tc := range []struct {
		name string
		recs []rec
		want Counts
	}{
		{"in order", []rec{{0, 0, 0, 0, 0}, {0, 1, 0, 1, 0}, {1, 0, 0, 2, 0}, {0, 2, 1, 0, 0}},
			Counts{Consumed: 4}},
		{"interleaved partitions are not out of order", []rec{{0, 0, 0, 5, 0}, {1, 0, 0, 3, 0}, {1, 1, 0, 4, 0}, {0, 1, 0, 6, 0}},
			Counts{Consumed: 4}},
		{"second copy in the log", []rec{{0, 0, 0, 0, 0}, {0, 1, 0, 1, 0}, {0, 2, 0, 1, 0}},
			Counts{Consumed: 3, Duplicated: 1}},
		{"rebalance replay", []rec{{0, 0, 0, 0, 0}, {0, 1, 0, 1, 0}, {0, 0, 0, 0, 0}, {0, 1, 0, 1, 0}, {0, 2, 0, 2, 0}},
			Counts{Consumed: 5, Duplicated: 2, Redelivered: 2}},
		{"out of order on one partition", []rec{{0, 0, 0, 0, 0}, {0, 1, 0, 2, 0}, {0, 2, 0, 1, 0}, {0, 3, 0, 3, 0}},
			Counts{Consumed: 4, OutOfOrder: 1}},
		{"ordering is per producer", []rec{{0, 0, 0, 9, 0}, {0, 1, 1, 2, 0}, {0, 2, 0, 10, 0}},
			Counts{Consumed: 3}},
		{"same sequence from two producers is no duplicate", []rec{{0, 0, 0, 7, 0}, {0, 1, 1, 7, 0}},
			Counts{Consumed: 2}},
		{"ordering is per lane", []rec{{0, 0, 0, 5, 1}, {0, 1, 0, 3, 2}, {0, 2, 0, 4, 0}, {0, 3, 0, 6, 2}, {0, 4, 0, 7, 1}},
			Counts{Consumed: 5}},
		{"out of order within a lane", []rec{{0, 0, 0, 5, 3}, {0, 1, 0, 6, 7}, {0, 2, 0, 4, 3}, {1, 0, 0, 1, 3}},
			Counts{Consumed: 4, OutOfOrder: 1}},
		{"lanes are per producer and partition", []rec{{0, 0, 0, 5, 2}, {0, 1, 1, 3, 2}, {1, 0, 0, 4, 2}},
			Counts{Consumed: 3}},
		{"a duplicate on another lane is still one", []rec{{0, 0, 0, 5, 1}, {0, 1, 0, 5, 2}},
			Counts{Consumed: 2, Duplicated: 1}},
	} {
		l := NewGroup(2, 2)
		for _, r := range tc.recs {
			l.ObserveLane(r.part, r.offset, r.prod, r.lane, r.seq, Measured)
		}
		if got := l.Counts[Measured]; got != tc.want {
			t.Errorf("%s: %+v, want %+v", tc.name, got, tc.want)
		}
	}
}

func TestGroupLedgerForeignAndPhases(t *testing.T) {
	l := NewGroup(1, 1)
	l.Observe(0, 0, 5, 0, Measured)            // unknown producer
	l.Observe(3, 0, 0, 0, Measured)            // unknown partition
	l.ObserveLane(0, 3, 0, Lanes, 0, Measured) // no such lane
	l.Observe(0, 1, 0, 0, Excluded)
	l.Observe(0, 2, 0, 1, Measured)
	if l.Foreign != 3 || l.Counts[Excluded].Consumed != 1 || l.Counts[Measured].Consumed != 1 {
		t.Errorf("foreign %d counts %+v", l.Foreign, l.Counts)
	}
}

// TestGroupSkip: a record without the run's stamp counts nowhere but moves its partition's read
// position, never back.
func TestGroupSkip(t *testing.T) {
	l := NewGroup(2, 1)
	l.Skip(0, 0) // a partition holding only its settling record
	l.Observe(1, 0, 0, 0, Measured)
	l.Observe(1, 1, 0, 1, Measured)
	l.Skip(1, 0) // a replayed unstamped record
	l.Skip(5, 9) // no such partition
	if l.ReadTo(0) != 0 || l.ReadTo(1) != 1 {
		t.Errorf("read to %d and %d, want 0 and 1", l.ReadTo(0), l.ReadTo(1))
	}
	if l.Counts[Measured] != (Counts{Consumed: 2}) || l.Foreign != 0 || l.Seen() != 2 {
		t.Errorf("counts %+v foreign %d seen %d: skipping must count nothing", l.Counts, l.Foreign, l.Seen())
	}
}

// TestLedgerLoss is the ledger's loss rule: acknowledged and never seen is lost, failed is
// not, and the measured range excludes warm-up sequences.
func TestLedgerLoss(t *testing.T) {
	l := NewGroup(1, 1)
	var failed SeqSet
	const sent = 1000
	for seq := uint64(0); seq < sent; seq++ {
		switch {
		case seq == 10 || seq == 600: // failed at the producer: never acknowledged, not lost
			failed.Add(seq)
		case seq == 20 || seq == 700 || seq == 701: // acknowledged, never delivered: lost
		default:
			l.Observe(0, int64(seq), 0, seq, Measured)
		}
	}
	if got := l.Missing(0, &failed, 0, sent); got != 3 {
		t.Errorf("lost %d, want 3", got)
	}
	if got := l.Missing(0, &failed, 500, sent); got != 2 {
		t.Errorf("lost in the measured range %d, want 2", got)
	}
}
