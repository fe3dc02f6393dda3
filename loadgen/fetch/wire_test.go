package fetch

import (
	"bytes"
	"encoding/binary"
	"errors"
	"testing"

	"github.com/plimsoll/plimsoll/loadgen/recbatch"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// TestAppendRequestMatchesKmsg: the hand-written request is byte for byte what kmsg writes for
// the same Fetch v11 request.
func TestAppendRequestMatchesKmsg(t *testing.T) {
	for _, tc := range []struct {
		name string
		req  Request
	}{
		{"empty", Request{MaxWaitMs: 500, MinBytes: 1, MaxBytes: 50 << 20}},
		{"two topics", Request{MaxWaitMs: 100, MinBytes: 1024, MaxBytes: 1 << 20, ReadCommitted: true, Rack: "rack-a",
			Topics: []ReqTopic{
				{Name: "a", Partitions: []ReqPartition{{0, 3, 17, 1 << 20}, {2, -1, 0, 4096}}},
				{Name: "topic-b", Partitions: []ReqPartition{{7, 12, 1 << 40, 1}}},
			}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := AppendRequest(nil, 42, "client-1", &tc.req)
			k := kmsg.NewPtrFetchRequest()
			k.Version = Version
			k.ReplicaID = -1
			k.MaxWaitMillis, k.MinBytes, k.MaxBytes = tc.req.MaxWaitMs, tc.req.MinBytes, tc.req.MaxBytes
			if tc.req.ReadCommitted {
				k.IsolationLevel = 1
			}
			k.SessionID, k.SessionEpoch, k.Rack = 0, -1, tc.req.Rack
			for _, rt := range tc.req.Topics {
				kt := kmsg.NewFetchRequestTopic()
				kt.Topic = rt.Name
				for _, rp := range rt.Partitions {
					kp := kmsg.NewFetchRequestTopicPartition()
					kp.Partition, kp.CurrentLeaderEpoch, kp.FetchOffset, kp.LogStartOffset, kp.PartitionMaxBytes =
						rp.Partition, rp.LeaderEpoch, rp.Offset, -1, rp.MaxBytes
					kt.Partitions = append(kt.Partitions, kp)
				}
				k.Topics = append(k.Topics, kt)
			}
			want := kmsg.NewRequestFormatter(kmsg.FormatterClientID("client-1")).AppendRequest(nil, k, 42)
			if !bytes.Equal(got, want) {
				t.Errorf("request\n got %x\nwant %x", got, want)
			}
		})
	}
}

// kmsgResponse encodes resp as a broker sends it, after the size: the correlation id, then the
// v11 body.
func kmsgResponse(correlation int32, resp *kmsg.FetchResponse) []byte {
	resp.Version = Version
	return resp.AppendTo(binary.BigEndian.AppendUint32(nil, uint32(correlation)))
}

func sampleResponse() *kmsg.FetchResponse {
	r := kmsg.NewPtrFetchResponse()
	r.ThrottleMillis, r.SessionID = 7, 0
	recs := appendTestBatch(nil, testBatch{base: 10, values: [][]byte{[]byte("a"), []byte("bb")}})
	for ti, name := range []string{"t1", "topic-two"} {
		rt := kmsg.NewFetchResponseTopic()
		rt.Topic = name
		for p := range 2 + ti {
			rp := kmsg.NewFetchResponseTopicPartition()
			rp.Partition, rp.HighWatermark, rp.LastStableOffset, rp.LogStartOffset = int32(p), 100+int64(p), 90, 3
			rp.PreferredReadReplica = -1
			if p == 1 {
				rp.ErrorCode = 6
			} else {
				rp.RecordBatches = recs
			}
			if ti == 1 && p == 0 {
				for i := range 3 {
					a := kmsg.NewFetchResponseTopicPartitionAbortedTransaction()
					a.ProducerID, a.FirstOffset = int64(i+5), int64(i*10)
					rp.AbortedTransactions = append(rp.AbortedTransactions, a)
				}
			}
			rt.Partitions = append(rt.Partitions, rp)
		}
		r.Topics = append(r.Topics, rt)
	}
	return r
}

// TestParseMatchesKmsg: Parse reads every field kmsg writes.
func TestParseMatchesKmsg(t *testing.T) {
	k := sampleResponse()
	var r Response
	for range 2 { // the second parse reuses the first's storage
		if err := r.Parse(kmsgResponse(9, k)); err != nil {
			t.Fatal(err)
		}
		checkSame(t, &r, 9, k)
	}
}

// checkSame compares a parsed response with the kmsg one it came from.
func checkSame(t *testing.T, r *Response, correlation int32, k *kmsg.FetchResponse) {
	t.Helper()
	if r.Correlation != correlation || r.ThrottleMs != k.ThrottleMillis || r.ErrorCode != k.ErrorCode {
		t.Errorf("header %d %d %d, want %d %d %d", r.Correlation, r.ThrottleMs, r.ErrorCode, correlation, k.ThrottleMillis, k.ErrorCode)
	}
	i := 0
	for ti, kt := range k.Topics {
		if ti >= len(r.Topics) || string(r.Topics[ti]) != kt.Topic {
			t.Fatalf("topic %d: got %q", ti, r.Topics)
		}
		for _, kp := range kt.Partitions {
			if i >= len(r.Partitions) {
				t.Fatalf("%d partitions, want more", len(r.Partitions))
			}
			p := r.Partitions[i]
			i++
			if p.Topic != ti || p.Partition != kp.Partition || p.ErrorCode != kp.ErrorCode || p.HighWatermark != kp.HighWatermark ||
				p.LastStable != kp.LastStableOffset || p.LogStart != kp.LogStartOffset || !bytes.Equal(p.Records, kp.RecordBatches) {
				t.Errorf("partition %+v, want %+v", p, kp)
			}
			if len(p.Aborted) != len(kp.AbortedTransactions) {
				t.Fatalf("aborted %v, want %v", p.Aborted, kp.AbortedTransactions)
			}
			for j, a := range kp.AbortedTransactions {
				if p.Aborted[j] != (recbatch.AbortedTxn{ProducerID: a.ProducerID, FirstOffset: a.FirstOffset}) {
					t.Errorf("aborted %d: %+v, want %+v", j, p.Aborted[j], a)
				}
			}
		}
	}
	if i != len(r.Partitions) {
		t.Errorf("%d partitions, want %d", len(r.Partitions), i)
	}
}

// TestParseMalformed: bytes cut anywhere, or with a count too large for them, are an error
// (ErrMalformed), never a panic.
func TestParseMalformed(t *testing.T) {
	whole := kmsgResponse(1, sampleResponse())
	var r Response
	for n := range len(whole) {
		if err := r.Parse(whole[:n]); !errors.Is(err, ErrMalformed) {
			t.Fatalf("cut at %d of %d: err %v, want ErrMalformed", n, len(whole), err)
		}
	}
	if err := r.Parse(append(append([]byte{}, whole...), 0)); !errors.Is(err, ErrMalformed) {
		t.Errorf("a byte too many: err %v, want ErrMalformed", err)
	}
	huge := append([]byte{}, whole...)
	binary.BigEndian.PutUint32(huge[14:], 1<<30) // the topic count
	if err := r.Parse(huge); !errors.Is(err, ErrMalformed) {
		t.Errorf("a count of 2^30: err %v, want ErrMalformed", err)
	}
}

// FuzzParse: any bytes parse or fail with ErrMalformed; what parses is what kmsg reads too,
// field for field.
func FuzzParse(f *testing.F) {
	f.Add(kmsgResponse(1, sampleResponse()))
	f.Add(kmsgResponse(2, kmsg.NewPtrFetchResponse()))
	f.Fuzz(func(t *testing.T, b []byte) {
		var r Response
		err := r.Parse(b)
		if err != nil {
			if !errors.Is(err, ErrMalformed) {
				t.Fatalf("error %v is not ErrMalformed", err)
			}
			return
		}
		if len(b) < 4 {
			t.Fatal("parsed fewer bytes than a header")
		}
		k := kmsg.NewPtrFetchResponse()
		k.Version = Version
		if err := k.ReadFrom(b[4:]); err != nil {
			t.Fatalf("parsed, but kmsg fails: %v", err)
		}
		checkSame(t, &r, int32(binary.BigEndian.Uint32(b)), k)
	})
}
