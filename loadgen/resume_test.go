package loadgen

import (
	"context"
	"testing"

	"github.com/plimsoll/plimsoll/loadgen/ledger"
	"github.com/twmb/franz-go/pkg/kgo"
)

// TestConsumerResumesOwnPosition: after a lost session, a member's new assignment starts each
// partition after the last record it consumed itself when the group's commit is behind that
// (or absent), and where franz-go fetched it otherwise: a partition it never read, a commit
// another member made further on, a topic outside the run.
func TestConsumerResumesOwnPosition(t *testing.T) {
	run := newRunState(&fakeClock{}, 0, 1, 1)
	run.measureStart.Store(0)
	g := &group{ledger: ledger.NewGroup(6, 1)}
	c := newConsumer(run, g, map[string]int{"a": 0, "b": 3}, 0)
	read := func(p int32, from int64, n int, epoch int32) kgo.FetchPartition {
		recs := makeRecords(n, 1, 100)
		for i, r := range recs {
			r.Offset, r.LeaderEpoch = from+int64(i), epoch
			Stamp{Seq: uint64(from) + uint64(i)}.Encode(r.Value)
		}
		return kgo.FetchPartition{Partition: p, Records: recs}
	}
	c.handle(kgo.Fetches{{Topics: []kgo.FetchTopic{
		{Topic: "a", Partitions: []kgo.FetchPartition{read(1, 10, 5, 3), read(2, 0, 4, 1)}},
		{Topic: "b", Partitions: []kgo.FetchPartition{read(0, 100, 2, 7), read(2, 40, 1, 2)}},
	}}}, 1)
	at := func(o int64, e int32) kgo.Offset { return kgo.NewOffset().At(o).WithEpoch(e) }
	fetched := map[string]map[int32]kgo.Offset{
		"a":     {0: at(5, 2), 1: at(12, 3), 2: at(20, 1)},
		"b":     {0: kgo.NewOffset().AtStart(), 2: kgo.NewOffset().AtEnd()},
		"other": {1: at(3, 0)},
	}
	got, err := c.resume(context.Background(), fetched)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]map[int32]kgo.EpochOffset{
		"a":     {0: {Epoch: 2, Offset: 5}, 1: {Epoch: 3, Offset: 15}, 2: {Epoch: 1, Offset: 20}},
		"b":     {0: {Epoch: 7, Offset: 102}, 2: {Epoch: 2, Offset: 41}},
		"other": {1: {Epoch: 0, Offset: 3}},
	}
	for topic, parts := range want {
		for p, w := range parts {
			if g := got[topic][p].EpochOffset(); g != w {
				t.Errorf("%s/%d: resumes at %+v, want %+v", topic, p, g, w)
			}
		}
	}
}

// TestPositionsIgnoreOutOfRange: a partition index outside the member's space and an empty
// batch change nothing.
func TestPositionsIgnoreOutOfRange(t *testing.T) {
	p := newPositions(2)
	p.advance(-1, makeRecords(1, 1, 100))
	p.advance(2, makeRecords(1, 1, 100))
	p.advance(0, nil)
	if p.next[0] != 0 || p.next[1] != 0 {
		t.Errorf("positions %v, want none", p.next)
	}
	fetched := map[string]map[int32]kgo.Offset{"t": {5: kgo.NewOffset().At(9)}}
	if o := p.resume(map[string]int{"t": 0}, fetched)["t"][5].EpochOffset().Offset; o != 9 {
		t.Errorf("partition outside the space resumes at %d, want the fetched 9", o)
	}
}
