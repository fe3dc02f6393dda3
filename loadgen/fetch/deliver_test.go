package fetch

import (
	"encoding/binary"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/plimsoll/plimsoll/loadgen/recbatch"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// got is one record a sink received.
type got struct {
	part   int
	offset int64
	value  string
}

// recSink keeps what it receives; locked tells Record was called inside Lock/Unlock.
type recSink struct {
	recs   []got
	errs   []error
	locked bool
	bad    bool
}

func (s *recSink) Lock()   { s.locked = true }
func (s *recSink) Unlock() { s.locked = false }
func (s *recSink) Record(part int, offset int64, _ int32, value []byte) {
	s.bad = s.bad || !s.locked
	s.recs = append(s.recs, got{part, offset, string(value)})
}
func (s *recSink) Error(err error) { s.errs = append(s.errs, err) }

// fixedNow is the tests' clock.
func fixedNow() time.Time { return time.Unix(1000, 0) }

// testFetcher is a Fetcher of one topic "t" of n partitions, every one assigned at offset 0 and
// led by broker 1, and that broker's worker.
func testFetcher(n int, cfg Config, sink Sink) (*Fetcher, *worker) {
	cfg.Topics, cfg.Now = []Topic{{Name: "t", Partitions: n}}, fixedNow
	f := New(cfg, sink)
	for p := range n {
		f.Assign(p, 0)
		f.leader[p], f.epoch[p] = 1, 5
	}
	w := &worker{f: f, id: 1, wake: make(chan struct{}, 1), reqOff: make([]int64, n), reqGen: make([]uint32, n),
		byTopic: make([][]ReqPartition, 1)}
	return f, w
}

// respond builds the request, then answers it with parts (partition -> error code and bytes)
// as a broker would, and delivers the answer.
func respond(t *testing.T, f *Fetcher, w *worker, parts map[int32]respPart) {
	t.Helper()
	w.build()
	k := kmsg.NewPtrFetchResponse()
	rt := kmsg.NewFetchResponseTopic()
	rt.Topic = "t"
	for _, p := range slices.Sorted(mapKeys(parts)) {
		rp := kmsg.NewFetchResponseTopicPartition()
		rp.Partition, rp.ErrorCode, rp.RecordBatches = p, parts[p].code, parts[p].records
		for _, a := range parts[p].aborted {
			ka := kmsg.NewFetchResponseTopicPartitionAbortedTransaction()
			ka.ProducerID, ka.FirstOffset = a.ProducerID, a.FirstOffset
			rp.AbortedTransactions = append(rp.AbortedTransactions, ka)
		}
		rt.Partitions = append(rt.Partitions, rp)
	}
	k.Topics = append(k.Topics, rt)
	if err := w.resp.Parse(kmsgResponse(1, k)); err != nil {
		t.Fatal(err)
	}
	f.deliver(w)
}

type respPart struct {
	code    int16
	records []byte
	aborted []recbatch.AbortedTxn
}

func mapKeys[K comparable, V any](m map[K]V) func(func(K) bool) {
	return func(yield func(K) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}
}

func values(prefix string, n int) [][]byte {
	v := make([][]byte, n)
	for i := range v {
		v[i] = []byte(fmt.Sprintf("%s%d", prefix, i))
	}
	return v
}

// TestDeliverOffsetRule: records below the fetch offset, batches wholly below it and batches
// or records whose offsets go backwards are dropped; control batches are passed; the next fetch
// starts after the last batch.
func TestDeliverOffsetRule(t *testing.T) {
	for _, tc := range []struct {
		name    string
		from    int64
		batches []testBatch
		want    []int64
		next    int64
	}{
		{"from the start", 0, []testBatch{{base: 0, values: values("a", 3)}, {base: 3, values: values("b", 2)}}, []int64{0, 1, 2, 3, 4}, 5},
		{"from inside a batch", 2, []testBatch{{base: 0, values: values("a", 4)}}, []int64{2, 3}, 4},
		{"a batch wholly below", 5, []testBatch{{base: 0, values: values("a", 3)}, {base: 3, values: values("b", 4)}}, []int64{5, 6}, 7},
		{"a batch going backwards", 0, []testBatch{{base: 0, values: values("a", 4)}, {base: 2, values: values("b", 2)}, {base: 4, values: values("c", 1)}}, []int64{0, 1, 2, 3, 4}, 5},
		{"a control batch passed", 0, []testBatch{{base: 0, values: values("a", 2)}, {base: 2, attrs: 0x30, pid: 1, key: controlKey(1), values: values("m", 1)}, {base: 3, values: values("c", 1)}}, []int64{0, 1, 3}, 4},
		{"a gap (compaction) passed", 0, []testBatch{{base: 0, values: values("a", 2), lastDelt: 9}}, []int64{0, 1}, 10},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := &recSink{}
			f, w := testFetcher(1, Config{}, s)
			f.offset[0] = tc.from
			var b []byte
			for _, tb := range tc.batches {
				b = appendTestBatch(b, tb)
			}
			respond(t, f, w, map[int32]respPart{0: {records: b}})
			var offs []int64
			for _, r := range s.recs {
				offs = append(offs, r.offset)
			}
			if !slices.Equal(offs, tc.want) || s.bad || len(s.errs) != 0 {
				t.Errorf("offsets %v (outside the lock: %v, errors %v), want %v", offs, s.bad, s.errs, tc.want)
			}
			if f.offset[0] != tc.next {
				t.Errorf("next offset %d, want %d", f.offset[0], tc.next)
			}
		})
	}
}

// TestDeliverReadCommitted: read_committed skips an aborted transaction's batches and every
// marker, and reads the committed one.
func TestDeliverReadCommitted(t *testing.T) {
	s := &recSink{}
	f, w := testFetcher(1, Config{ReadCommitted: true}, s)
	var b []byte
	b = appendTestBatch(b, testBatch{base: 0, attrs: 0x10, pid: 7, values: values("committed", 2)})
	b = appendTestBatch(b, testBatch{base: 2, attrs: 0x30, pid: 7, key: controlKey(1), values: values("m", 1)})
	b = appendTestBatch(b, testBatch{base: 3, attrs: 0x10, pid: 7, values: values("aborted", 2)})
	b = appendTestBatch(b, testBatch{base: 5, attrs: 0x30, pid: 7, key: controlKey(0), values: values("m", 1)})
	b = appendTestBatch(b, testBatch{base: 6, values: values("plain", 1)})
	respond(t, f, w, map[int32]respPart{0: {records: b, aborted: []recbatch.AbortedTxn{{ProducerID: 7, FirstOffset: 3}}}})
	want := []got{{0, 0, "committed0"}, {0, 1, "committed1"}, {0, 6, "plain0"}}
	if !slices.Equal(s.recs, want) || f.offset[0] != 7 {
		t.Errorf("records %v next %d, want %v next 7", s.recs, f.offset[0], want)
	}
}

// TestDeliverErrors: each partition error's consequence.
func TestDeliverErrors(t *testing.T) {
	for _, tc := range []struct {
		name       string
		code       int16
		reset      string
		wantOffset int64 // after the error
		wantLeader int32
		wantRetry  bool
	}{
		{"out of range, earliest", kerr.OffsetOutOfRange.Code, "earliest", needEarliest, 1, false},
		{"out of range, latest", kerr.OffsetOutOfRange.Code, "latest", needLatest, 1, false},
		{"out of range, none", kerr.OffsetOutOfRange.Code, "none", noOffset, 1, false},
		{"not leader", kerr.NotLeaderForPartition.Code, "", 4, -1, false},
		{"fenced leader epoch", kerr.FencedLeaderEpoch.Code, "", 4, -1, false},
		{"unknown leader epoch", kerr.UnknownLeaderEpoch.Code, "", 4, -1, false},
		{"unknown topic", kerr.UnknownTopicOrPartition.Code, "", 4, -1, false},
		{"storage error", kerr.KafkaStorageError.Code, "", 4, -1, false},
		{"not authorized: retried later", kerr.TopicAuthorizationFailed.Code, "", 4, 1, true},
		{"corrupt message: retried later", kerr.CorruptMessage.Code, "", 4, 1, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := &recSink{}
			f, w := testFetcher(2, Config{Reset: tc.reset}, s)
			f.offset[0], f.offset[1] = 4, 0
			other := appendTestBatch(nil, testBatch{base: 0, values: values("x", 2)})
			respond(t, f, w, map[int32]respPart{0: {code: tc.code}, 1: {records: other}})
			if f.offset[0] != tc.wantOffset || f.leader[0] != tc.wantLeader || (f.retryAt[0] > 0) != tc.wantRetry {
				t.Errorf("offset %d leader %d retry at %d, want %d %d retry %v", f.offset[0], f.leader[0], f.retryAt[0], tc.wantOffset, tc.wantLeader, tc.wantRetry)
			}
			if tc.reset == "none" {
				if len(s.errs) != 1 || !strings.Contains(s.errs[0].Error(), "at offset 4") {
					t.Errorf("errors %v, want one naming offset 4", s.errs)
				}
			}
			if len(s.errs) != 1 || !errors.Is(s.errs[0], kerr.ErrorForCode(tc.code)) {
				t.Errorf("errors %v, want the one of code %d", s.errs, tc.code)
			}
			if len(s.recs) != 2 || f.offset[1] != 2 {
				t.Errorf("the other partition: %v next %d, want its 2 records", s.recs, f.offset[1])
			}
		})
	}
}

// TestDeliverCorruptBatch: a batch with a bad CRC stops its partition where the batch starts,
// after the whole batches before it, and is reported.
func TestDeliverCorruptBatch(t *testing.T) {
	s := &recSink{}
	f, w := testFetcher(1, Config{}, s)
	b := appendTestBatch(nil, testBatch{base: 0, values: values("a", 2)})
	n := len(b)
	b = appendTestBatch(b, testBatch{base: 2, values: values("b", 2)})
	b[len(b)-1] ^= 1
	respond(t, f, w, map[int32]respPart{0: {records: b}})
	var crc *recbatch.CRCError
	if len(s.recs) != 2 || f.offset[0] != 2 || len(s.errs) != 1 || !errors.As(s.errs[0], &crc) || f.retryAt[0] == 0 {
		t.Errorf("records %v next %d errors %v retry at %d; want 2 records, next 2, a CRC error, a retry (batch of %d bytes)", s.recs, f.offset[0], s.errs, f.retryAt[0], n)
	}
}

// TestDeliverStale: a response for a partition revoked, or revoked and assigned again, since
// its request was written delivers nothing of it; Revoke returns where the reading stood.
func TestDeliverStale(t *testing.T) {
	s := &recSink{}
	f, w := testFetcher(2, Config{}, s)
	b := appendTestBatch(nil, testBatch{base: 0, values: values("a", 3)})
	w.build()
	next, ok := f.Revoke(0)
	f.Revoke(1)
	f.Assign(1, 0)
	f.leader[1] = 1
	if next != 0 || !ok {
		t.Errorf("Revoke: %d %v, want 0 true", next, ok)
	}
	k := kmsg.NewPtrFetchResponse()
	rt := kmsg.NewFetchResponseTopic()
	rt.Topic = "t"
	for p := range 2 {
		rp := kmsg.NewFetchResponseTopicPartition()
		rp.Partition, rp.RecordBatches = int32(p), b
		rt.Partitions = append(rt.Partitions, rp)
	}
	k.Topics = append(k.Topics, rt)
	if err := w.resp.Parse(kmsgResponse(1, k)); err != nil {
		t.Fatal(err)
	}
	f.deliver(w)
	if len(s.recs) != 0 {
		t.Errorf("delivered %v after a revoke", s.recs)
	}
	if _, ok := f.Revoke(0); ok {
		t.Error("a revoked partition revoked again")
	}
}

// stampSink counts records and touches every value, as a run's consumer decodes its stamp.
type stampSink struct{ n, sum int64 }

func (s *stampSink) Lock()   {}
func (s *stampSink) Unlock() {}
func (s *stampSink) Record(_ int, offset int64, _ int32, value []byte) {
	s.n++
	s.sum += offset + int64(binary.BigEndian.Uint64(value))
}
func (s *stampSink) Error(error) {}

// steadyFetch is a response of 4 partitions x 4 batches x 250 records of 100 bytes, and a
// fetcher whose every delivery of it reads all of it again.
func steadyFetch(tb testing.TB) (*Fetcher, *worker, *stampSink, []byte, int) {
	s := &stampSink{}
	f, w := testFetcher(4, Config{}, s)
	k := kmsg.NewPtrFetchResponse()
	rt := kmsg.NewFetchResponseTopic()
	rt.Topic = "t"
	v := make([][]byte, 250)
	for i := range v {
		v[i] = make([]byte, 100)
	}
	for p := range 4 {
		var b []byte
		for i := range 4 {
			b = appendTestBatch(b, testBatch{base: int64(i * 250), values: v})
		}
		rp := kmsg.NewFetchResponseTopicPartition()
		rp.Partition, rp.RecordBatches = int32(p), b
		rt.Partitions = append(rt.Partitions, rp)
	}
	k.Topics = append(k.Topics, rt)
	return f, w, s, kmsgResponse(1, k), 4 * 4 * 250
}

// once parses and delivers the response again from offset 0.
func once(tb testing.TB, f *Fetcher, w *worker, body []byte) {
	for p := range f.offset {
		f.offset[p] = 0
	}
	w.build()
	if err := w.resp.Parse(body); err != nil {
		tb.Fatal(err)
	}
	f.deliver(w)
}

// TestSteadyStateAllocatesNothing: a fetch's response parsed and every record delivered
// allocates nothing once the fetcher has seen one like it.
func TestSteadyStateAllocatesNothing(t *testing.T) {
	f, w, s, body, n := steadyFetch(t)
	once(t, f, w, body)
	if a := testing.AllocsPerRun(20, func() { once(t, f, w, body) }); a != 0 {
		t.Errorf("%.1f allocations per fetch of %d records, want 0", a, n)
	}
	if s.n != int64(22*n) {
		t.Errorf("%d records delivered, want %d", s.n, 22*n)
	}
}

// BenchmarkDeliver: a fetch's response parsed and its records delivered, per record.
func BenchmarkDeliver(b *testing.B) {
	f, w, _, body, n := steadyFetch(b)
	once(b, f, w, body)
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		once(b, f, w, body)
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*n), "ns/record")
}

// TestAssignWithoutOffsetUnderNone: with auto.offset.reset none, a partition assigned without an
// offset is reported (ErrNoOffset) and never fetched.
func TestAssignWithoutOffsetUnderNone(t *testing.T) {
	s := &recSink{}
	f, w := testFetcher(1, Config{Reset: "none"}, s)
	f.Assign(0, -1)
	if len(s.errs) != 1 || !errors.Is(s.errs[0], ErrNoOffset) {
		t.Errorf("errors %v, want ErrNoOffset", s.errs)
	}
	if _, n := w.build(); n != 0 {
		t.Errorf("%d partitions fetched, want none", n)
	}
}
