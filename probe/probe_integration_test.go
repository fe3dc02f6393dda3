//go:build integration

package probe

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	goldenfile "github.com/plimsoll/plimsoll/internal/golden"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/plimsoll/plimsoll/localkafka"
	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"
)

// One real 3-broker cluster serves every test here. A short replica.lag.time.max.ms lets a
// paused follower drop out of the ISR within seconds instead of Kafka's default 30 s.
var shared *localkafka.State

// sharedClusterEnv names the directory of a cluster the integration packages share (`make test`
// sets it): these tests use the cluster running there (cmd/plimsoll's tests started it, with
// replica.lag.time.max.ms 5000), or start one there, and leave it running for localkafka's
// tests, which stop it. Unset, the package starts and stops a cluster of its own.
const sharedClusterEnv = "PLIMSOLL_IT_CLUSTER"

func TestMain(m *testing.M) {
	dir := os.Getenv(sharedClusterEnv)
	own := dir == ""
	if own {
		var err error
		if dir, err = os.MkdirTemp("", "plimsoll-probe-it-"); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	var err error
	shared, err = localkafka.Up(ctx, localkafka.Options{Dir: dir, Heap: "512m", Log: os.Stderr,
		ExtraConfig: map[string]string{"replica.lag.time.max.ms": "4000"}})
	cancel()
	if errors.Is(err, localkafka.ErrRunning) {
		err = nil // the shared cluster, started by the packages before this one
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "starting the shared cluster:", err)
		os.Exit(1)
	}
	code := m.Run()
	if own {
		if _, err := localkafka.Down(dir, false, 30*time.Second); err != nil {
			fmt.Fprintln(os.Stderr, "stopping the shared cluster:", err)
			code = 1
		}
		os.RemoveAll(dir)
	}
	os.Exit(code)
}

func localConfig(prefix string) Config {
	pids := map[int32]int{}
	for _, b := range shared.Brokers {
		pids[b.ID] = b.PID
	}
	return Config{Target: shared.Target(), BrokerPIDs: pids, TopicPrefix: prefix}
}

// traffic produces 1000-byte records at about rate per second to topic, consumed by one group,
// until ctx ends; it returns the record bytes acknowledged.
func traffic(t *testing.T, ctx context.Context, topic string, rate int) int64 {
	t.Helper()
	p, err := kgo.NewClient(kgo.SeedBrokers(shared.Target().Bootstrap...), kgo.DefaultProduceTopic(topic),
		kgo.RequiredAcks(kgo.AllISRAcks()), kgo.ProducerBatchCompression(kgo.NoCompression()))
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	c, err := kgo.NewClient(kgo.SeedBrokers(shared.Target().Bootstrap...), kgo.ConsumeTopics(topic),
		kgo.ConsumerGroup(topic+"-g"), kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	go func() {
		for ctx.Err() == nil {
			c.PollFetches(ctx)
		}
	}()
	val := make([]byte, 1000)
	rand.Read(val)
	var acked atomic.Int64
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	for ctx.Err() == nil {
		<-tick.C
		for range rate / 100 {
			p.Produce(context.Background(), &kgo.Record{Value: val}, func(r *kgo.Record, err error) {
				if err == nil {
					acked.Add(int64(len(r.Value)))
				}
			})
		}
	}
	fctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	p.Flush(fctx)
	return acked.Load()
}

func createTopic(t *testing.T, topic string) {
	t.Helper()
	cl, err := kgo.NewClient(kgo.SeedBrokers(shared.Target().Bootstrap...))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if _, err := kadm.NewClient(cl).CreateTopic(ctx, 6, 3, nil, topic); err != nil {
		t.Fatal(err)
	}
}

// record writes a real series to testdata for the unit tests' golden files (with -update).
func record(t *testing.T, s *Series, name string) {
	if !goldenfile.Update() {
		return
	}
	b, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join("testdata", name), b, 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestProbeRealCluster(t *testing.T) {
	const prefix = "plimsoll-it-probe-traffic"
	createTopic(t, prefix)
	p, err := Start(context.Background(), localConfig(prefix))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 12*time.Second)
	defer cancel()
	start := time.Now()
	produced := traffic(t, ctx, prefix, 1000)
	time.Sleep(2 * time.Second) // let the last batches land in a sample
	s := p.Stop()
	record(t, s, "series-traffic.json")

	// Every byte produced shows up in the brokers' BytesIn, summed over all intervals. Kafka
	// counts batches (record overhead and batch headers), a little more than the values.
	var in float64
	for _, x := range s.Samples {
		for _, b := range x.Brokers {
			in += b.BytesIn.Or(0) * b.Interval
		}
	}
	if produced == 0 || in < float64(produced) || in > 1.05*float64(produced) {
		t.Errorf("brokers' BytesIn summed to %.0f B, produced %d B of values: want within +5%%", in, produced)
	}

	w := s.Window(start.Add(3*time.Second), start.Add(11*time.Second))
	if len(w.Samples) < 6 {
		t.Fatalf("window has %d samples, want at least 6 of 8 s", len(w.Samples))
	}
	for _, id := range w.BrokerIDs() {
		var bytesIn, idle, cpu float64
		var n int
		for _, x := range w.Samples {
			b := x.Brokers[id]
			if b == nil || b.Err != "" {
				continue // a scrape slower than the interval on a busy host: missing, checked below
			}
			if !b.HandlerIdle.OK() || b.HandlerIdle <= 0 || b.HandlerIdle > 1 {
				t.Errorf("broker %d at %v: handler idle %v, want in (0,1]", id, x.Time, b.HandlerIdle)
			}
			bytesIn += float64(b.BytesIn)
			idle += float64(b.HandlerIdle)
			cpu += x.Host.Brokers[id].CPU.Or(0)
			n++
			if m := x.Meta; m.Partitions != 6 || m.ISRSizes[3] != 6 || m.UnderReplicated != 0 {
				t.Errorf("at %v: metadata %d partitions, ISR sizes %v, %d under-replicated; want 6 with ISR 3",
					x.Time, m.Partitions, m.ISRSizes, m.UnderReplicated)
			}
		}
		if n < len(w.Samples)/2 {
			t.Errorf("broker %d: metrics in %d of %d intervals, want at least half", id, n, len(w.Samples))
		}
		if n == 0 || bytesIn/float64(n) <= 0 {
			t.Errorf("broker %d: mean bytes in %.0f B/s, want > 0", id, bytesIn/float64(max(n, 1)))
		}
		if cpu <= 0 {
			t.Errorf("broker %d: JVM CPU never above 0", id)
		}
		t.Logf("broker %d: bytes in %.0f B/s, handler idle %.3f, JVM CPU %.2f cores", id, bytesIn/float64(n), idle/float64(n), cpu/float64(n))
	}
}

// A paused follower (SIGSTOP) leaves the ISR: the metadata names it, the leaders count ISR
// shrinks, and its own metrics go missing rather than zero. The paused broker is not the active
// KRaft controller (on the shared cluster earlier faults may have moved it to any node): a paused
// active controller stalls the leaders' AlterPartition requests, so the ISR would not shrink
// within the pause.
func TestProbePausedBroker(t *testing.T) {
	const prefix = "plimsoll-it-probe-pause"
	createTopic(t, prefix)
	victim := notController(t, 3, 2)
	p, err := Start(context.Background(), localConfig(prefix))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	go func() {
		time.Sleep(4 * time.Second)
		if err := shared.Pause(victim); err != nil {
			t.Error(err)
			return
		}
		// Longer than broker.session.timeout.ms (9 s): the controller fences the broker and
		// takes it out of every ISR even if replica lag alone would not yet.
		time.Sleep(14 * time.Second)
		if err := shared.Resume(victim); err != nil {
			t.Error(err)
		}
	}()
	traffic(t, ctx, prefix, 500)
	time.Sleep(time.Second)
	s := p.Stop()
	record(t, s, "series-pause.json")

	var missing, outOfISR, isrEvents int
	var stopped bool
	for _, x := range s.Samples {
		if b := x.Brokers[victim]; b != nil && b.Err != "" {
			missing++
			if b.BytesIn.OK() {
				t.Errorf("at %v: broker %d's failed scrape has bytes in %v, want missing", x.Time, victim, b.BytesIn)
			}
		}
		if x.Meta != nil && x.Meta.OutOfISR[victim] > 0 {
			outOfISR++
		}
		for _, b := range x.Brokers {
			if b.ISRShrinks.Or(0)+b.ISRExpands.Or(0) > 0 {
				isrEvents++
			}
		}
		if x.Host != nil && x.Host.Brokers[victim].State == "T" {
			stopped = true
		}
		if testing.Verbose() && x.Meta != nil {
			t.Logf("%s: broker %d state %q err %q; meta err %q out-of-ISR %v ISR changes %d", x.Time.Format("15:04:05.0"), victim,
				x.Host.Brokers[victim].State, x.Brokers[victim].Err, x.Meta.Err, x.Meta.OutOfISR, x.Meta.ISRChanges)
		}
	}
	if missing == 0 || outOfISR == 0 || isrEvents == 0 || !stopped {
		t.Errorf("pausing broker %d: %d intervals without its metrics, %d with it out of the ISR, %d with ISR shrinks or expands, process seen stopped %v; want all",
			victim, missing, outOfISR, isrEvents, stopped)
	}
}

// notController is the first of ids that is not the shared cluster's active KRaft controller.
func notController(t *testing.T, ids ...int32) int32 {
	t.Helper()
	cl, err := kgo.NewClient(kgo.SeedBrokers(strings.Split(shared.Bootstrap(), ",")...))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	victim, leader, err := localkafka.NotController(ctx, cl, ids...)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("broker %d is the active controller; broker %d is paused", leader, victim)
	return victim
}
