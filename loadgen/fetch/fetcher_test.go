package fetch

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
	"github.com/twmb/franz-go/pkg/sasl"
	"github.com/twmb/franz-go/pkg/sasl/plain"
	"github.com/twmb/franz-go/pkg/sasl/scram"
)

// liveSink is a recSink safe for the fetcher's goroutines.
type liveSink struct {
	mu   sync.Mutex
	recs []got
	errs []error
}

func (s *liveSink) Lock()   { s.mu.Lock() }
func (s *liveSink) Unlock() { s.mu.Unlock() }
func (s *liveSink) Record(part int, offset int64, _ int32, value []byte) {
	s.recs = append(s.recs, got{part, offset, string(value)})
}
func (s *liveSink) Error(err error) { s.mu.Lock(); s.errs = append(s.errs, err); s.mu.Unlock() }

// waitFor waits until the sink holds n records (at most 15 s) and returns a copy of them.
func (s *liveSink) waitFor(t *testing.T, n int) []got {
	t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for {
		s.mu.Lock()
		have := append([]got(nil), s.recs...)
		s.mu.Unlock()
		if len(have) >= n || time.Now().After(deadline) {
			return have
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func (s *liveSink) errors() []error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]error(nil), s.errs...)
}

const liveTopic = "fetch-test"

// live is a kfake cluster of 3 brokers with liveTopic of parts partitions, a client on it, and
// a running Fetcher of the topic whose sink is returned; stop ends it.
type live struct {
	c    *kfake.Cluster
	cl   *kgo.Client
	f    *Fetcher
	sink *liveSink
}

func startLive(t *testing.T, parts int, cfg Config) *live {
	return startLiveWith(t, parts, cfg, nil)
}

// startLiveWith is startLive with a cluster that requires SASL when mech is set.
func startLiveWith(t *testing.T, parts int, cfg Config, mech sasl.Mechanism) *live {
	copts := []kfake.Opt{kfake.NumBrokers(3), kfake.SeedTopics(int32(parts), liveTopic)}
	opts := []kgo.Opt{kgo.DefaultProduceTopic(liveTopic), kgo.RecordPartitioner(kgo.ManualPartitioner())}
	if mech != nil {
		copts = append(copts, kfake.EnableSASL(), kfake.Superuser(mech.Name(), "bench", "secret"))
		opts = append(opts, kgo.SASL(mech))
	}
	c, err := kfake.NewCluster(copts...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	cl, err := kgo.NewClient(append(opts, kgo.SeedBrokers(c.ListenAddrs()...))...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(cl.Close)
	cfg.Topics = []Topic{{Name: liveTopic, Partitions: parts}}
	if cfg.MaxWait == 0 {
		cfg.MaxWait = 50 * time.Millisecond
	}
	cfg.MinBytes, cfg.MaxBytes, cfg.PartitionMaxBytes, cfg.Backoff = 1, 50<<20, 1<<20, 20*time.Millisecond
	l := &live{c: c, cl: cl, sink: &liveSink{}}
	l.f = New(cfg, l.sink)
	l.f.Bind(cl, nil, mech, "fetch-test")
	ctx, stop := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); l.f.Run(ctx) }()
	t.Cleanup(func() { stop(); <-done })
	return l
}

// produce writes n records to partition p, values "p<p>-<from+i>", in one batch.
func (l *live) produce(t *testing.T, p, from, n int) {
	t.Helper()
	recs := make([]*kgo.Record, n)
	for i := range recs {
		recs[i] = &kgo.Record{Partition: int32(p), Value: []byte(fmt.Sprintf("p%d-%d", p, from+i))}
	}
	if err := l.cl.ProduceSync(context.Background(), recs...).FirstErr(); err != nil {
		t.Fatal(err)
	}
}

// checkExactlyOnce fails unless recs hold, per partition, offsets from..from+n-1 in order with
// their own values.
func checkExactlyOnce(t *testing.T, recs []got, parts int, from, n int) {
	t.Helper()
	next := make([]int, parts)
	for i := range next {
		next[i] = from
	}
	for _, r := range recs {
		if r.offset != int64(next[r.part]) || r.value != fmt.Sprintf("p%d-%d", r.part, r.offset) {
			t.Fatalf("partition %d: record %d %q, want offset %d", r.part, r.offset, r.value, next[r.part])
		}
		next[r.part]++
	}
	for p, x := range next {
		if x != from+n {
			t.Errorf("partition %d read to %d, want %d", p, x, from+n)
		}
	}
}

// TestFetcherReadsEveryPartition: partitions on three brokers, assigned without an offset
// (earliest), read once each, in order.
func TestFetcherReadsEveryPartition(t *testing.T) {
	l := startLive(t, 6, Config{Reset: "earliest"})
	for p := range 6 {
		l.produce(t, p, 0, 20)
		l.produce(t, p, 20, 20)
	}
	for p := range 6 {
		l.f.Assign(p, -1)
	}
	checkExactlyOnce(t, l.sink.waitFor(t, 240), 6, 0, 40)
	if errs := l.sink.errors(); len(errs) != 0 {
		t.Errorf("errors: %v", errs)
	}
}

// TestFetcherResets: latest starts after what is there; an offset out of range resets by the
// policy.
func TestFetcherResets(t *testing.T) {
	l := startLive(t, 1, Config{Reset: "latest"})
	l.produce(t, 0, 0, 10)
	l.f.Assign(0, -1)
	waitOffset(t, l.f, 0, 10)
	l.produce(t, 0, 10, 5)
	recs := l.sink.waitFor(t, 5)
	if len(recs) != 5 || recs[0].offset != 10 {
		t.Fatalf("latest: %v, want offsets 10 to 14", recs)
	}

	l2 := startLive(t, 1, Config{Reset: "earliest"})
	l2.produce(t, 0, 0, 10)
	l2.f.Assign(0, 1000)
	checkExactlyOnce(t, l2.sink.waitFor(t, 10), 1, 0, 10)
	if errs := l2.sink.errors(); len(errs) == 0 || !errors.Is(errs[0], kerr.OffsetOutOfRange) {
		t.Errorf("errors %v, want OFFSET_OUT_OF_RANGE first", errs)
	}
}

// waitOffset waits until partition p's next offset is want.
func waitOffset(t *testing.T, f *Fetcher, p int, want int64) {
	t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for {
		f.mu.Lock()
		at := f.offset[p]
		f.mu.Unlock()
		if at == want {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("partition %d at %d, want %d", p, at, want)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// TestFetcherLeaderMoves: a partition moved to another broker mid-read is read on from its
// new leader, nothing lost or read twice.
func TestFetcherLeaderMoves(t *testing.T) {
	l := startLive(t, 2, Config{Reset: "earliest"})
	for p := range 2 {
		l.produce(t, p, 0, 10)
		l.f.Assign(p, 0)
	}
	l.sink.waitFor(t, 20)
	for p := range 2 {
		from := l.c.LeaderFor(liveTopic, int32(p))
		if err := l.c.MoveTopicPartition(liveTopic, int32(p), (from+1)%3); err != nil {
			t.Fatal(err)
		}
		l.produce(t, p, 10, 10)
	}
	checkExactlyOnce(t, l.sink.waitFor(t, 40), 2, 0, 20)
}

// TestFetcherInjectedErrors: a broker answering a fetch with each partition error once; the
// fetcher reports it, recovers, and reads every record once.
func TestFetcherInjectedErrors(t *testing.T) {
	for _, code := range []int16{kerr.NotLeaderForPartition.Code, kerr.FencedLeaderEpoch.Code, kerr.UnknownLeaderEpoch.Code,
		kerr.UnknownTopicOrPartition.Code, kerr.OffsetOutOfRange.Code, kerr.TopicAuthorizationFailed.Code} {
		t.Run(kerr.ErrorForCode(code).Error(), func(t *testing.T) {
			l := startLive(t, 1, Config{Reset: "earliest"})
			l.produce(t, 0, 0, 10)
			var once sync.Once
			l.c.ControlKey(int16(kmsg.Fetch), func(req kmsg.Request) (kmsg.Response, error, bool) {
				l.c.KeepControl()
				fr := req.(*kmsg.FetchRequest)
				handled := false
				var resp *kmsg.FetchResponse
				once.Do(func() {
					resp = fr.ResponseKind().(*kmsg.FetchResponse)
					for _, rt := range fr.Topics {
						t := kmsg.NewFetchResponseTopic()
						t.Topic = rt.Topic
						for _, rp := range rt.Partitions {
							p := kmsg.NewFetchResponseTopicPartition()
							p.Partition, p.ErrorCode = rp.Partition, code
							t.Partitions = append(t.Partitions, p)
						}
						resp.Topics = append(resp.Topics, t)
					}
					handled = true
				})
				if !handled {
					return nil, nil, false
				}
				return resp, nil, true
			})
			l.f.Assign(0, 3)
			recs := l.sink.waitFor(t, 7)
			if code == kerr.OffsetOutOfRange.Code {
				checkExactlyOnce(t, l.sink.waitFor(t, 10), 1, 0, 10) // reset to earliest
			} else {
				checkExactlyOnce(t, recs, 1, 3, 7)
			}
			if errs := l.sink.errors(); len(errs) == 0 || !errors.Is(errs[0], kerr.ErrorForCode(code)) {
				t.Errorf("errors %v, want %v first", errs, kerr.ErrorForCode(code))
			}
		})
	}
}

// TestFetcherRevokeAndReassign: after Revoke nothing of the partition is delivered; assigned
// again at the position Revoke gave, it reads on without a gap or a repeat. Pause stops every
// partition until resumed.
func TestFetcherRevokeAndReassign(t *testing.T) {
	l := startLive(t, 1, Config{Reset: "earliest"})
	l.produce(t, 0, 0, 10)
	l.f.Assign(0, 0)
	l.sink.waitFor(t, 10)
	next, ok := l.f.Revoke(0)
	if next != 10 || !ok {
		t.Fatalf("Revoke: %d %v, want 10 true", next, ok)
	}
	l.produce(t, 0, 10, 10)
	time.Sleep(200 * time.Millisecond)
	if n := len(l.sink.waitFor(t, 0)); n != 10 {
		t.Fatalf("%d records after the revoke, want 10", n)
	}
	l.f.Pause(true)
	l.f.Assign(0, next)
	time.Sleep(200 * time.Millisecond)
	if n := len(l.sink.waitFor(t, 0)); n != 10 {
		t.Fatalf("%d records while paused, want 10", n)
	}
	l.f.Pause(false)
	checkExactlyOnce(t, l.sink.waitFor(t, 20), 1, 0, 20)
	var pos []int64
	l.f.Positions(func(_ int, next int64) { pos = append(pos, next) })
	if len(pos) != 1 || pos[0] != 20 {
		t.Errorf("positions %v, want [20]", pos)
	}
}

// TestFetcherBrokerDown: a worker whose broker stops answering backs off and looks for the
// leader again; once the partition has moved to a live broker, reading goes on.
func TestFetcherBrokerDown(t *testing.T) {
	l := startLive(t, 1, Config{Reset: "earliest"})
	l.produce(t, 0, 0, 5)
	l.f.Assign(0, 0)
	l.sink.waitFor(t, 5)
	// Every fetch fails for a while: the connection is dropped (kfake closes it on an error).
	var n atomic.Int64
	failed := make(chan struct{})
	var once sync.Once
	l.c.ControlKey(int16(kmsg.Fetch), func(kmsg.Request) (kmsg.Response, error, bool) {
		l.c.KeepControl()
		if n.Add(1) > 3 {
			once.Do(func() { close(failed) })
			return nil, nil, false
		}
		return nil, errors.New("broker gone"), true
	})
	l.produce(t, 0, 5, 5)
	<-failed
	checkExactlyOnce(t, l.sink.waitFor(t, 10), 1, 0, 10)
	if len(l.sink.errors()) == 0 {
		t.Error("no error reported for the failed connections")
	}
}

// TestFetcherSASL: the fetcher's own connections authenticate with the client's mechanism
// (PLAIN, SCRAM-SHA-256, SCRAM-SHA-512) before fetching; a wrong password is an error reported,
// never a record.
func TestFetcherSASL(t *testing.T) {
	for _, mech := range []sasl.Mechanism{
		plain.Auth{User: "bench", Pass: "secret"}.AsMechanism(),
		scram.Auth{User: "bench", Pass: "secret"}.AsSha256Mechanism(),
		scram.Auth{User: "bench", Pass: "secret"}.AsSha512Mechanism(),
	} {
		t.Run(mech.Name(), func(t *testing.T) {
			l := startLiveWith(t, 2, Config{Reset: "earliest"}, mech)
			for p := range 2 {
				l.produce(t, p, 0, 10)
				l.f.Assign(p, -1)
			}
			checkExactlyOnce(t, l.sink.waitFor(t, 20), 2, 0, 10)
			if errs := l.sink.errors(); len(errs) != 0 {
				t.Errorf("errors: %v", errs)
			}
		})
	}
	t.Run("wrong password", func(t *testing.T) {
		l := startLiveWith(t, 1, Config{Reset: "earliest"}, plain.Auth{User: "bench", Pass: "secret"}.AsMechanism())
		l.produce(t, 0, 0, 10)
		l.f.mu.Lock()
		l.f.cfg.SASL = plain.Auth{User: "bench", Pass: "wrong"}.AsMechanism()
		l.f.mu.Unlock()
		l.f.Assign(0, -1)
		deadline := time.Now().Add(10 * time.Second)
		for len(l.sink.errors()) == 0 && time.Now().Before(deadline) {
			time.Sleep(10 * time.Millisecond)
		}
		if errs := l.sink.errors(); len(errs) == 0 || !strings.Contains(errs[0].Error(), "sasl") {
			t.Errorf("errors %v, want a SASL failure", errs)
		}
		if n := len(l.sink.waitFor(t, 0)); n != 0 {
			t.Errorf("%d records read unauthenticated", n)
		}
	})
}

// TestFetcherStopsPromptly: Run returns soon after its context ends even while a worker waits
// for a response that would take the whole fetch.max.wait.ms.
func TestFetcherStopsPromptly(t *testing.T) {
	c, err := kfake.NewCluster(kfake.NumBrokers(1), kfake.SeedTopics(1, liveTopic))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	cl, err := kgo.NewClient(kgo.SeedBrokers(c.ListenAddrs()...))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	f := New(Config{Topics: []Topic{{Name: liveTopic, Partitions: 1}}, MaxWait: 20 * time.Second, MinBytes: 1,
		MaxBytes: 1 << 20, PartitionMaxBytes: 1 << 20, Reset: "earliest"}, &liveSink{})
	f.Bind(cl, nil, nil, "")
	f.Assign(0, 0)
	ctx, stop := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); f.Run(ctx) }()
	time.Sleep(500 * time.Millisecond) // the worker is in its long fetch of an empty partition
	stop()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("Run still running 5 s after its context ended, its worker in a 20 s fetch")
	}
}
