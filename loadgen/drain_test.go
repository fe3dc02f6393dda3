package loadgen

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// ackUnstored answers a produce request as the cluster would, all partitions acknowledged, but
// stores nothing; it returns the number of records so lost.
func ackUnstored(t *testing.T, req *kmsg.ProduceRequest) (*kmsg.ProduceResponse, int64) {
	resp := req.ResponseKind().(*kmsg.ProduceResponse)
	var n int64
	for _, rt := range req.Topics {
		st := kmsg.NewProduceResponseTopic()
		st.Topic, st.TopicID = rt.Topic, rt.TopicID
		for _, rp := range rt.Partitions {
			n += int64(countRecords(t, rp.Records))
			sp := kmsg.NewProduceResponseTopicPartition()
			sp.Partition = rp.Partition // error code 0: acknowledged
			st.Partitions = append(st.Partitions, sp)
		}
		resp.Topics = append(resp.Topics, st)
	}
	return resp, n
}

// countRecords counts the records in a produce request's record batches.
func countRecords(t *testing.T, b []byte) int {
	n := 0
	for len(b) > 0 {
		var batch kmsg.RecordBatch
		if err := batch.ReadFrom(b); err != nil {
			t.Errorf("reading a produced record batch: %v", err)
			return n
		}
		n += int(batch.NumRecords)
		b = b[12+batch.Length:] // Length counts the bytes after FirstOffset and Length
	}
	return n
}

// loseRequests acknowledges the produce requests from the from-th on (counting those with acks
// other than all, i.e. not the settling records) without storing them, n of them, and returns
// the count of records so lost.
func loseRequests(t *testing.T, cluster *kfake.Cluster, from, n int) *atomic.Int64 {
	var seen atomic.Int64
	lost := new(atomic.Int64)
	cluster.ControlKey(int16(kmsg.Produce), func(kr kmsg.Request) (kmsg.Response, error, bool) {
		cluster.KeepControl()
		req := kr.(*kmsg.ProduceRequest)
		if req.Acks == -1 {
			return nil, nil, false
		}
		if i := seen.Add(1); i < int64(from) || i >= int64(from+n) {
			return nil, nil, false
		}
		resp, k := ackUnstored(t, req)
		lost.Add(k)
		return resp, nil, true
	})
	return lost
}

// TestRunDrainAsksEndOffsetsAgain: the drain needs the log end offsets to know whether a group
// has read to the end. When the listing fails (seen on kfake after a leader moved: the admin
// client's metadata was stale and a partition answered NOT_LEADER_FOR_PARTITION), it is asked
// for again at the next poll, and the drain completes as soon as the groups have caught up, not
// at its timeout. The faults answer UNKNOWN_SERVER_ERROR, which franz-go does not retry itself.
func TestRunDrainAsksEndOffsetsAgain(t *testing.T) {
	tgt, _, cluster := fakeClusterCtl(t, 1)
	lost := loseRequests(t, cluster, 20, 2) // a loss: the drain cannot end on every message seen
	s := smallSpec()
	s.ConsumerGroups, s.ConsumersPerGroup = 1, 1
	s.ProducerProps.Set("acks", "1")
	var once sync.Once
	var faults *kfake.FaultHandle
	// Once the window is under way no client lists offsets but the drain: fail its first three.
	progress := func(sec Second) {
		if sec.Phase == PhaseMeasure {
			once.Do(func() {
				faults = cluster.Fault(kfake.Fault{Keys: []kmsg.Key{kmsg.ListOffsets}, Err: kerr.UnknownServerError, Count: 3})
			})
		}
	}
	const drainTimeout = 12 * time.Second
	res, err := Run(context.Background(), s, tgt, Options{RunID: "endoffsets", DrainTimeout: drainTimeout, Progress: progress})
	if err != nil {
		t.Fatal(err)
	}
	c, x := res.Counts, res.ExcludedCounts
	if faults == nil || faults.Hits() == 0 || lost.Load() == 0 {
		t.Fatalf("no listing of offsets was faulted, or no record lost (%d)", lost.Load())
	}
	if !res.Window.DrainComplete || res.Window.DrainSeconds >= (drainTimeout/2).Seconds() ||
		c.Lost+x.Lost != lost.Load() || c.Unconsumed+x.Unconsumed != 0 {
		t.Errorf("drain complete %v after %.1f s (%d listings faulted); lost %d unconsumed %d, want %d lost and the drain complete well before the %s timeout",
			res.Window.DrainComplete, res.Window.DrainSeconds, faults.Hits(), c.Lost+x.Lost, c.Unconsumed+x.Unconsumed, lost.Load(), drainTimeout)
	}
}

// loseOnNode moves partition p of topic to broker node and the others to the other broker of two,
// on the first produce request (the settling records'), and from then on acknowledges every
// produce request reaching node with acks other than all without storing it: only p loses
// records, and it keeps nothing but its settling record. It returns the count of records lost.
func loseOnNode(t *testing.T, cluster *kfake.Cluster, topic string, partitions, p, node int32) *atomic.Int64 {
	var moved atomic.Bool
	lost := new(atomic.Int64)
	cluster.ControlKey(int16(kmsg.Produce), func(kr kmsg.Request) (kmsg.Response, error, bool) {
		cluster.KeepControl()
		if !moved.Swap(true) {
			for i := range partitions {
				to := 1 - node
				if i == p {
					to = node
				}
				if err := cluster.MoveTopicPartition(topic, i, to); err != nil {
					t.Errorf("moving %s-%d: %v", topic, i, err)
				}
			}
		}
		req := kr.(*kmsg.ProduceRequest)
		if req.Acks == -1 || cluster.CurrentNode() != node {
			return nil, nil, false
		}
		resp, n := ackUnstored(t, req)
		lost.Add(n)
		return resp, nil, true
	})
	return lost
}

// TestRunLossInSettleOnlyPartition: records acknowledged but never stored in a partition that
// holds nothing but its settling record are lost, and the drain sees at once that the group read
// to the end of that partition. The consumers skip the settling record; skipping it must still
// move the partition's read position, or the partition never counts as read to the end: the
// loss would be reported as unconsumed after the drain had waited out its whole timeout.
func TestRunLossInSettleOnlyPartition(t *testing.T) {
	tgt, _, cluster := fakeClusterCtl(t, 2)
	const runID = "settleonly"
	lost := loseOnNode(t, cluster, "plimsoll-"+runID+"-t0", 2, 0, 0)
	s := smallSpec()
	s.Topics, s.PartitionsPerTopic, s.Producers = 1, 2, 1
	s.ConsumerGroups, s.ConsumersPerGroup = 1, 1
	s.Rate = 1000
	s.ProducerProps.Set("acks", "1")
	const drainTimeout = 12 * time.Second
	res, err := Run(context.Background(), s, tgt, Options{RunID: runID, DrainTimeout: drainTimeout})
	if err != nil {
		t.Fatal(err)
	}
	c, x := res.Counts, res.ExcludedCounts
	t.Logf("counts %+v excluded %+v; %d records acknowledged unstored", c, x, lost.Load())
	if lost.Load() == 0 {
		t.Fatal("no record went to partition 0: nothing was lost")
	}
	if c.Lost+x.Lost != lost.Load() || c.Unconsumed+x.Unconsumed != 0 || c.Failed+x.Failed != 0 {
		t.Errorf("lost %d unconsumed %d failed %d over both phases, want %d lost", c.Lost+x.Lost, c.Unconsumed+x.Unconsumed,
			c.Failed+x.Failed, lost.Load())
	}
	if !res.Window.DrainComplete || !res.Groups[0].CaughtUp || res.Window.DrainSeconds >= (drainTimeout/2).Seconds() {
		t.Errorf("drain complete %v (group caught up %v) after %.1f s, want complete well before the %s timeout",
			res.Window.DrainComplete, res.Groups[0].CaughtUp, res.Window.DrainSeconds, drainTimeout)
	}
}
