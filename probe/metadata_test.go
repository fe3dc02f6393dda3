package probe

import (
	"context"
	"maps"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
)

type partDetail struct {
	topic         string
	p, leader     int32
	replicas, isr []int32
	topicErr      int16
}

// meta builds a metadata response with brokers 3, 1, 2 (unsorted, as Kafka may send them).
func meta(parts ...partDetail) *kmsg.MetadataResponse {
	resp := kmsg.NewPtrMetadataResponse()
	resp.ControllerID = 1
	for _, id := range []int32{3, 1, 2} {
		b := kmsg.NewMetadataResponseBroker()
		b.NodeID = id
		resp.Brokers = append(resp.Brokers, b)
	}
	topics := map[string]int{}
	for _, p := range parts {
		i, ok := topics[p.topic]
		if !ok {
			t := kmsg.NewMetadataResponseTopic()
			t.Topic = kmsg.StringPtr(p.topic)
			t.ErrorCode = p.topicErr
			resp.Topics = append(resp.Topics, t)
			i = len(resp.Topics) - 1
			topics[p.topic] = i
		}
		if p.topicErr != 0 {
			continue
		}
		mp := kmsg.NewMetadataResponseTopicPartition()
		mp.Partition, mp.Leader, mp.Replicas, mp.ISR = p.p, p.leader, p.replicas, p.isr
		resp.Topics[i].Partitions = append(resp.Topics[i].Partitions, mp)
	}
	return resp
}

func part(topic string, p, leader int32, replicas, isr []int32) partDetail {
	return partDetail{topic: topic, p: p, leader: leader, replicas: replicas, isr: isr}
}

func TestSummarise(t *testing.T) {
	healthy := meta(
		part("run-a", 0, 1, []int32{1, 2, 3}, []int32{1, 2, 3}),
		part("run-a", 1, 2, []int32{2, 3, 1}, []int32{3, 1, 2}),
		part("run-a", 2, 3, []int32{3, 1, 2}, []int32{2, 3, 1}),
		part("other", 0, 1, []int32{1}, []int32{}), // not the run's: ignored
	)
	s, prev := summarise(healthy, "run-", nil)
	if s.Partitions != 3 || s.Topics != 1 || s.UnderReplicated != 0 || s.ISRSizes[3] != 3 || s.ISRChanges != 0 {
		t.Errorf("healthy: %+v", s)
	}
	if !maps.Equal(s.Leaders, map[int32]int{1: 1, 2: 1, 3: 1}) || len(s.OutOfISR) != 0 {
		t.Errorf("healthy leaders %v out-of-ISR %v", s.Leaders, s.OutOfISR)
	}
	if len(s.Brokers) != 3 || s.Brokers[0] != 1 || s.Controller != 1 {
		t.Errorf("brokers %v controller %d", s.Brokers, s.Controller)
	}

	// Broker 3 stops: it leaves every ISR, and loses leadership of partition 2.
	paused := meta(
		part("run-a", 0, 1, []int32{1, 2, 3}, []int32{1, 2}),
		part("run-a", 1, 2, []int32{2, 3, 1}, []int32{1, 2}),
		part("run-a", 2, 1, []int32{3, 1, 2}, []int32{1, 2}),
	)
	s, prev = summarise(paused, "run-", prev)
	if s.UnderReplicated != 3 || s.ISRSizes[2] != 3 || s.ISRChanges != 3 || s.LeaderChanges != 1 {
		t.Errorf("paused: %+v", s)
	}
	if !maps.Equal(s.OutOfISR, map[int32]int{3: 3}) || !maps.Equal(s.UnderReplicatedBy, map[int32]int{1: 2, 2: 1}) {
		t.Errorf("paused: out-of-ISR %v (want broker 3 in 3), under-replicated by leader %v", s.OutOfISR, s.UnderReplicatedBy)
	}
	// The same state again: no change.
	s, _ = summarise(paused, "run-", prev)
	if s.ISRChanges != 0 || s.LeaderChanges != 0 {
		t.Errorf("unchanged: %d ISR changes, %d leader changes", s.ISRChanges, s.LeaderChanges)
	}

	offline := meta(part("run-b", 0, -1, []int32{1, 2}, []int32{}),
		partDetail{topic: "run-gone", topicErr: kerr.UnknownTopicOrPartition.Code})
	s, _ = summarise(offline, "run-", nil)
	if s.Offline != 1 || s.UnderReplicated != 1 || s.ISRSizes[0] != 1 || s.PartitionErrors != 0 || s.Topics != 1 {
		t.Errorf("offline: %+v", s)
	}

	s, _ = summarise(healthy, "", nil)
	if s.Partitions != 0 || len(s.Brokers) != 3 {
		t.Errorf("no prefix: %+v, want brokers only", s)
	}
}

// fakeMetaReader starts a 3-broker fake cluster with the given options and a reader of the
// topics under "run-"; both end with the test.
func fakeMetaReader(t *testing.T, opts ...kfake.Opt) (*kfake.Cluster, *metaReader) {
	t.Helper()
	c, err := kfake.NewCluster(append([]kfake.Opt{kfake.NumBrokers(3)}, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	cl, err := kgo.NewClient(kgo.SeedBrokers(c.ListenAddrs()...))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(cl.Close)
	return c, &metaReader{cl: cl, prefix: "run-"}
}

// TestMetaReader asks a fake cluster, and checks the topic list refresh.
func TestMetaReader(t *testing.T) {
	c, m := fakeMetaReader(t, kfake.SeedTopics(4, "run-x", "unrelated"))
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	for i := range 3 {
		s := m.read(ctx)
		if s.Err != "" || s.Topics != 1 || s.Partitions != 4 || len(s.Brokers) != 3 {
			t.Fatalf("reading %d: %+v", i, s)
		}
		if len(m.known) != 1 || m.known[0] != "run-x" {
			t.Errorf("known topics %v, want [run-x]", m.known)
		}
	}
	c.Close()
	sctx, scancel := context.WithTimeout(ctx, time.Second)
	defer scancel()
	if s := m.read(sctx); s.Err == "" {
		t.Errorf("a stopped cluster gave no error: %+v", s)
	}
}

// TestMetaReaderHungBroker: one broker does not answer Metadata until the test ends (a paused
// JVM); readings still come back within the interval from another broker.
func TestMetaReaderHungBroker(t *testing.T) {
	c, m := fakeMetaReader(t, kfake.SeedTopics(2, "run-x"))
	if s := m.read(context.Background()); s.Err != "" || len(m.brokers) != 3 {
		t.Fatalf("first reading: %+v", s)
	}
	hung := make(chan struct{})
	defer close(hung) // before c.Close, which waits for the hung request
	c.ControlKey(int16(kmsg.Metadata), func(kmsg.Request) (kmsg.Response, error, bool) {
		c.KeepControl()
		if c.CurrentNode() == 1 {
			c.SleepControl(func() { <-hung })
		}
		return nil, nil, false
	})
	for i := range 4 {
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		start := time.Now()
		s := m.read(ctx)
		cancel()
		if s.Err != "" || s.Partitions != 2 {
			t.Errorf("reading %d with broker 1 hung: %+v after %v", i, s, time.Since(start))
		}
	}
}
