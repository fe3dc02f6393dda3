package produce

import (
	"context"
	"encoding/binary"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/plimsoll/plimsoll/loadgen/recbatch"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// outcomes collects what Done reports: each record's outcome by its sequence.
type outcomes struct {
	mu     sync.Mutex
	acked  map[uint64]int
	failed map[uint64]error
	twice  []uint64
}

func newOutcomes() *outcomes {
	return &outcomes{acked: map[uint64]int{}, failed: map[uint64]error{}}
}

func (o *outcomes) done(tags []Tag, err error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	for _, t := range tags {
		_, a := o.acked[t.Seq]
		_, f := o.failed[t.Seq]
		if a || f {
			o.twice = append(o.twice, t.Seq)
		}
		if err == nil {
			o.acked[t.Seq] = int(t.A)
		} else {
			o.failed[t.Seq] = err
		}
	}
}

// fault is what a test's control function does to the produce requests kfake receives.
type fault struct {
	every int   // act on every every-th produce request (0: never)
	times int   // at most this many times (0: no limit)
	code  int16 // answer every partition with this error code; 0: close the connection
	delay time.Duration
	// forget models a broker that lost the producer state of the producer ids in the request
	// it acts on: from then on it answers OUT_OF_ORDER_SEQUENCE_NUMBER to every request with a
	// batch of those ids (code is ignored).
	forget bool
}

// pidOf reads a batch's producer id.
func pidOf(batch []byte) int64 { return int64(binary.BigEndian.Uint64(batch[43:])) }

// control installs f on the cluster and returns the count of produce requests seen.
func (f fault) control(c *kfake.Cluster) *atomic.Int64 {
	var n, acted atomic.Int64
	forgotten := map[int64]bool{} // control functions run one at a time
	c.ControlKey(int16(kmsg.Produce), func(kr kmsg.Request) (kmsg.Response, error, bool) {
		c.KeepControl()
		i := n.Add(1)
		if f.delay > 0 {
			time.Sleep(f.delay)
		}
		req := kr.(*kmsg.ProduceRequest)
		code := f.code
		if f.forget {
			act := f.every > 0 && i%int64(f.every) == 0 && (f.times == 0 || acted.Load() < int64(f.times))
			hit := false
			for _, t := range req.Topics {
				for _, p := range t.Partitions {
					if act {
						forgotten[pidOf(p.Records)] = true
					}
					hit = hit || forgotten[pidOf(p.Records)]
				}
			}
			if act {
				acted.Add(1)
			}
			if !hit {
				return nil, nil, false
			}
			code = kerr.OutOfOrderSequenceNumber.Code
		} else {
			if f.every == 0 || i%int64(f.every) != 0 || (f.times > 0 && acted.Load() >= int64(f.times)) {
				return nil, nil, false
			}
			acted.Add(1)
		}
		if code == 0 {
			return nil, errors.New("fault: connection closed"), true
		}
		resp := req.ResponseKind().(*kmsg.ProduceResponse)
		for _, t := range req.Topics {
			rt := kmsg.NewProduceResponseTopic()
			rt.Topic, rt.TopicID = t.Topic, t.TopicID
			for _, p := range t.Partitions {
				rp := kmsg.NewProduceResponseTopicPartition()
				rp.Partition, rp.ErrorCode = p.Partition, code
				rt.Partitions = append(rt.Partitions, rp)
			}
			resp.Topics = append(resp.Topics, rt)
		}
		return resp, nil, true
	})
	return &n
}

// TestProduceOnKfake produces records to a 3-broker kfake cluster under each fault and checks
// the guarantees: every record reported once; every acknowledged record in the log exactly
// once; no record twice; with idempotence, each partition's records in the order produced (a
// producer without idempotence and with several requests in flight can reorder on a retry, as
// Kafka's Java client can); a failed record never in the log where the fault refused it.
func TestProduceOnKfake(t *testing.T) {
	cases := []struct {
		name       string
		acks       int16
		idempotent bool
		fault      fault
		wantFailed bool // some records fail (a non-retriable error)
		codec      recbatch.Codec
		growAfter  time.Duration // Config.GrowAfter; set, the case wants more than one session
	}{
		{name: "idempotent", acks: -1, idempotent: true},
		{name: "acks=1", acks: 1},
		{name: "idempotent, NOT_LEADER_OR_FOLLOWER on every 7th request", acks: -1, idempotent: true,
			fault: fault{every: 7, code: kerr.NotLeaderForPartition.Code}},
		{name: "idempotent, connection closed at every 11th request", acks: -1, idempotent: true,
			fault: fault{every: 11}},
		{name: "idempotent, the broker loses the producer state twice (OUT_OF_ORDER_SEQUENCE_NUMBER)", acks: -1, idempotent: true,
			fault: fault{every: 40, times: 2, forget: true}},
		{name: "idempotent, UNKNOWN_PRODUCER_ID twice", acks: -1, idempotent: true,
			fault: fault{every: 13, times: 2, code: kerr.UnknownProducerID.Code}},
		{name: "idempotent, MESSAGE_TOO_LARGE three times", acks: -1, idempotent: true,
			fault: fault{every: 10, times: 3, code: kerr.MessageTooLarge.Code}, wantFailed: true},
		{name: "acks=1, NOT_LEADER_OR_FOLLOWER on every 5th request", acks: 1,
			fault: fault{every: 5, code: kerr.NotLeaderForPartition.Code}},
		{name: "idempotent, zstd, connection closed at every 11th request", acks: -1, idempotent: true,
			fault: fault{every: 11}, codec: recbatch.Zstd},
		{name: "idempotent, lz4, NOT_LEADER_OR_FOLLOWER on every 7th request", acks: -1, idempotent: true,
			fault: fault{every: 7, code: kerr.NotLeaderForPartition.Code}, codec: recbatch.LZ4},
		{name: "acks=1, gzip", acks: 1, codec: recbatch.Gzip},
		{name: "acks=1, snappy", acks: 1, codec: recbatch.Snappy},
		{name: "idempotent, slow broker: sessions added", acks: -1, idempotent: true,
			fault: fault{delay: 2 * time.Millisecond}, growAfter: time.Millisecond},
		{name: "idempotent, slow broker, sessions, connection closed at every 11th request", acks: -1, idempotent: true,
			fault: fault{every: 11, delay: 2 * time.Millisecond}, growAfter: time.Millisecond},
		{name: "idempotent, slow broker, sessions, NOT_LEADER_OR_FOLLOWER on every 7th request", acks: -1, idempotent: true,
			fault: fault{every: 7, code: kerr.NotLeaderForPartition.Code, delay: 2 * time.Millisecond}, growAfter: time.Millisecond},
		{name: "idempotent, slow broker, sessions, the broker loses the producer state twice", acks: -1, idempotent: true,
			fault: fault{every: 40, times: 2, forget: true, delay: 2 * time.Millisecond}, growAfter: time.Millisecond},
		{name: "idempotent, slow broker, sessions, MESSAGE_TOO_LARGE three times", acks: -1, idempotent: true,
			fault: fault{every: 10, times: 3, code: kerr.MessageTooLarge.Code, delay: 2 * time.Millisecond}, growAfter: time.Millisecond, wantFailed: true},
		{name: "acks=1, slow broker, sessions, NOT_LEADER_OR_FOLLOWER on every 5th request", acks: 1,
			fault: fault{every: 5, code: kerr.NotLeaderForPartition.Code, delay: 2 * time.Millisecond}, growAfter: time.Millisecond},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c, err := kfake.NewCluster(kfake.NumBrokers(3), kfake.SeedTopics(3, "t"))
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			requests := tc.fault.control(c)
			var wrongAcks atomic.Int64
			pids := map[int64]bool{} // control functions run one at a time
			c.ControlKey(int16(kmsg.Produce), func(kr kmsg.Request) (kmsg.Response, error, bool) {
				c.KeepControl()
				req := kr.(*kmsg.ProduceRequest)
				if req.Acks != tc.acks {
					wrongAcks.Add(1)
				}
				for _, t := range req.Topics {
					for _, p := range t.Partitions {
						pids[pidOf(p.Records)] = true
					}
				}
				return nil, nil, false
			})
			o := newOutcomes()
			p, err := New(context.Background(), Config{
				Opts: []kgo.Opt{kgo.SeedBrokers(c.ListenAddrs()...)}, Topics: []string{"t"},
				Acks: tc.acks, Idempotent: tc.idempotent, Codec: tc.codec, BatchBytes: 2048, Linger: time.Millisecond,
				RetryBackoff: 5 * time.Millisecond, Done: o.done, MarkLane: markLane, GrowAfter: tc.growAfter,
			})
			if err != nil {
				t.Fatal(err)
			}
			const n = 6000
			produceAll(t, p, n)
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			if err := p.Flush(ctx); err != nil {
				t.Fatalf("Flush: %v", err)
			}
			st, first := p.Stats(), p.firstIDs()
			p.Close()
			t.Logf("%d produce requests seen by the cluster; stats %+v; %d acked, %d failed", requests.Load(), st, len(o.acked), len(o.failed))
			checkOutcomes(t, c, o, n, tc.wantFailed, tc.idempotent)
			if w := wrongAcks.Load(); w > 0 {
				t.Errorf("%d produce requests reached the cluster with other acks than %d", w, tc.acks)
			}
			checkSessions(t, st, first, pids, tc.idempotent, tc.growAfter > 0)
		})
	}
}

// checkSessions checks the sessions a run ended with: more than one if grown; with idempotence
// each its own first producer id, and no more producer ids in the requests (seen) than taken.
func checkSessions(t *testing.T, st Stats, first []producerID, seen map[int64]bool, idempotent, grown bool) {
	t.Helper()
	if grown && st.Sessions < 2 {
		t.Errorf("%d session, want more than 1 against a slow broker (stats %+v)", st.Sessions, st)
	}
	if len(first) != st.Sessions {
		t.Errorf("%d sessions' producer ids, %d sessions", len(first), st.Sessions)
	}
	if !idempotent {
		return
	}
	distinct := map[producerID]bool{}
	for _, id := range first {
		distinct[id] = true
	}
	if len(distinct) != len(first) || distinct[noID] {
		t.Errorf("sessions' first producer ids %v: want each its own", first)
	}
	if len(seen) > st.ProducerIDs || st.ProducerIDs < st.Sessions {
		t.Errorf("%d producer ids in the requests, %d taken, %d sessions: want one taken per session, more only after a reset", len(seen), st.ProducerIDs, st.Sessions)
	}
}

// laneAt is where markLane writes a record's session in its value, after its sequence.
const laneAt = 8

// markLane is the tests' Config.MarkLane: each record's value carries its session, so that
// checkOutcomes checks order per session, the guarantee that holds.
func markLane(v []byte, session int) { v[laneAt] = byte(session) }

// produceAll produces records 0..n-1 round robin over the partitions, each value the record's
// sequence.
func produceAll(t *testing.T, p *Producer, n int) {
	t.Helper()
	parts := p.Partitions(0)
	val := make([]byte, 100)
	r := Record{Value: val}
	for i := range n {
		binary.BigEndian.PutUint64(val, uint64(i))
		r.Partition = int32(i % parts)
		r.Timestamp = time.Now().UnixMilli()
		r.Tag = Tag{Seq: uint64(i), A: int64(r.Partition)}
		if _, err := p.Produce(context.Background(), &r); err != nil {
			t.Fatalf("Produce %d: %v", i, err)
		}
	}
}

// checkOutcomes reads the topic back and checks the guarantees; ordered (idempotence) adds
// each partition's order within each session (markLane).
func checkOutcomes(t *testing.T, c *kfake.Cluster, o *outcomes, n int, wantFailed, ordered bool) {
	t.Helper()
	if len(o.twice) > 0 {
		t.Errorf("%d records reported more than once, the first %d", len(o.twice), o.twice[0])
	}
	if len(o.acked)+len(o.failed) != n {
		t.Errorf("%d acked + %d failed, want %d records reported", len(o.acked), len(o.failed), n)
	}
	if wantFailed != (len(o.failed) > 0) {
		t.Errorf("%d records failed; want failures: %v", len(o.failed), wantFailed)
	}
	for s, err := range o.failed {
		if !wantFailed {
			t.Errorf("record %d failed: %v", s, err)
			break
		}
	}
	seen := readAll(t, c, len(o.acked))
	type lane struct {
		partition int32
		session   byte
	}
	last := map[lane]int64{}
	logged := map[uint64]bool{}
	for _, r := range seen {
		s := binary.BigEndian.Uint64(r.Value)
		if logged[s] {
			t.Errorf("partition %d: record %d twice in the log", r.Partition, s)
		}
		logged[s] = true
		l := lane{r.Partition, r.Value[laneAt]}
		if prev, ok := last[l]; ordered && ok && int64(s) <= prev {
			t.Errorf("partition %d, session %d: record %d after %d: out of order", r.Partition, l.session, s, prev)
		}
		last[l] = int64(s)
		if _, ok := o.acked[s]; !ok {
			t.Errorf("record %d is in the log but was not acknowledged (failed: %v)", s, o.failed[s])
		}
	}
	if len(seen) != len(o.acked) {
		t.Errorf("%d records in the log, %d acknowledged", len(seen), len(o.acked))
	}
}

// readAll consumes topic t from the start until want records or a quiet second.
func readAll(t *testing.T, c *kfake.Cluster, want int) []*kgo.Record {
	t.Helper()
	cl, err := kgo.NewClient(kgo.SeedBrokers(c.ListenAddrs()...), kgo.ConsumeTopics("t"),
		kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	var out []*kgo.Record
	for len(out) < want {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		fs := cl.PollFetches(ctx)
		cancel()
		if ctx.Err() != nil && fs.NumRecords() == 0 {
			break
		}
		out = append(out, fs.Records()...)
	}
	// Anything more (a duplicate) arrives within a short poll.
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	out = append(out, cl.PollFetches(ctx).Records()...)
	cancel()
	return out
}

// TestWindowFillsPast1: with idempotence and a cluster slow to answer produce requests,
// more than one request is in flight to a broker at once.
func TestWindowFillsPast1(t *testing.T) {
	c, err := kfake.NewCluster(kfake.NumBrokers(1), kfake.SeedTopics(6, "t"))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	fault{delay: 3 * time.Millisecond}.control(c)
	o := newOutcomes()
	p, err := New(context.Background(), Config{
		Opts: []kgo.Opt{kgo.SeedBrokers(c.ListenAddrs()...)}, Topics: []string{"t"},
		Acks: -1, Idempotent: true, BatchBytes: 1024, Done: o.done, MarkLane: markLane, Sessions: 1,
	})
	if err != nil {
		t.Fatal(err)
	}
	produceAll(t, p, 3000)
	if err := p.Flush(context.Background()); err != nil {
		t.Fatal(err)
	}
	st := p.Stats()
	p.Close()
	if st.MaxInFlight < 2 {
		t.Errorf("at most %d request in flight to the broker, want more than 1 (stats %+v)", st.MaxInFlight, st)
	}
	checkOutcomes(t, c, o, 3000, false, true)
}
