package loadgen

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/plimsoll/plimsoll/kafkaprops"
	"github.com/plimsoll/plimsoll/loadgen/ledger"
	"github.com/plimsoll/plimsoll/loadgen/pace"
	"github.com/plimsoll/plimsoll/localkafka"
	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"
)

// BenchmarkConsumer reads the same records with franz-go's default PollFetches loop and with
// plimsoll's consumer path, one after the other in this process, and reports each one's
// steady-state bytes allocated and CPU (user + system, the whole process: GC and the client's
// own goroutines included) per record, and plimsoll's as ratios of franz-go's.
//
// Each pass is a new client reading the topic from its start without a group (both sides
// alike); the figures start after its first non-empty poll, so client start-up, metadata and
// the first connection are not in them. Both sides get the consumer settings plimsoll maps
// from Kafka's defaults (kafkaprops), reading from the earliest offset. The franz-go loop only
// counts the records and sums their value lengths; plimsoll decodes each stamp, records its
// end-to-end latency and updates the group's ledger, as in a run.
//
// Fed by kfake in a child process (this test binary, envKfakeServe) by default: the figures
// then are the client's logic against an in-process-speed broker, good for allocations, not
// for CPU against real Kafka. PLIMSOLL_BENCH_BOOTSTRAP points it at a real cluster instead;
// PLIMSOLL_BENCH_CLUSTER_DIR at a cluster plimsoll started, and then Kafka's own
// ConsumerPerformance of that cluster's version reads the same topic too (benchJava; `make
// bench-consumer`). PLIMSOLL_BENCH_RECORDS sets the records written (default 300000) and
// PLIMSOLL_BENCH_COMPRESSION the producer's codec (none, lz4, zstd).
func BenchmarkConsumer(b *testing.B) {
	addrs, records, cluster := benchFeed(b)
	sides := benchSides()
	sum := make([]benchFigures, len(sides))
	b.ResetTimer()
	for i := range b.N {
		for k := range sides {
			j := (i + k) % len(sides) // alternate the order between passes
			sum[j] = sum[j].add(sides[j].pass(b, addrs, records))
		}
	}
	b.StopTimer()
	ref := sum[0]
	for j, s := range sides {
		f := sum[j]
		b.ReportMetric(f.bytesPer(), s.name+"-B/rec")
		b.ReportMetric(f.cpuPer(), s.name+"-cpu-ns/rec")
		if j > 0 {
			b.ReportMetric(f.bytesPer()/ref.bytesPer(), s.name+"/franz-go-B")
			b.ReportMetric(f.cpuPer()/ref.cpuPer(), s.name+"/franz-go-cpu")
		}
		b.Logf("%-16s %8.2f B/record %8.1f CPU ns/record over %d records (%d passes)", s.name, f.bytesPer(), f.cpuPer(), f.records, b.N)
	}
	if cluster != nil {
		java := benchJava(b, cluster, records)
		b.ReportMetric(java, "java-cpu-ns/rec")
		for j, s := range sides {
			b.ReportMetric(sum[j].cpuPer()/java, s.name+"/java-cpu")
		}
		b.Logf("%-16s %8s B/record %8.1f CPU ns/record (ConsumerPerformance, Kafka %s; its allocation is the JVM's, not read)", "java", "-", java, cluster.KafkaVersion)
	}
}

// Where the benchmark reads.
const (
	benchTopic      = "plimsoll-bench-consumer"
	benchPartitions = 3
	benchProducers  = 4
	benchValueSize  = 100
)

// benchFigures are one side's sums over its passes.
type benchFigures struct {
	records, bytes int64
	cpu            time.Duration
}

func (f benchFigures) add(o benchFigures) benchFigures {
	return benchFigures{f.records + o.records, f.bytes + o.bytes, f.cpu + o.cpu}
}
func (f benchFigures) bytesPer() float64 { return float64(f.bytes) / float64(f.records) }
func (f benchFigures) cpuPer() float64   { return float64(f.cpu) / float64(f.records) }

// benchSide is one way of consuming: options for its client, and a poll that returns how many
// records it accounted for.
type benchSide struct {
	name string
	opts func() []kgo.Opt // beside benchConsumerOpts; nil for none
	// start returns the side's poll for a new client; done checks the pass's accounting.
	start func(b *testing.B, cl *kgo.Client) (poll func(context.Context) int64, done func(records int64))
}

func benchSides() []benchSide {
	return []benchSide{
		{name: "franz-go", start: startBare},
		{name: "plimsoll", opts: poolOpts, start: startPlimsoll},
		// plimsoll's own fetch path (package fetch), franz-go's fetching paused.
		{name: "plimsoll-fetch", start: startOwnFetch},
		// The floor: franz-go's loop with plimsoll's pools, recycling, and nothing else.
		{name: "franz-go-pooled", opts: poolOpts, start: startBare},
	}
}

// startBare is franz-go's default loop: PollFetches, every record visited (and recycled, when
// the side's client has pools).
func startBare(b *testing.B, cl *kgo.Client) (func(context.Context) int64, func(int64)) {
	var bytes int64
	poll := func(ctx context.Context) int64 {
		fs := cl.PollFetches(ctx)
		if err := fs.Err0(); err != nil && ctx.Err() == nil {
			b.Fatal(err)
		}
		var n int64
		for it := fs.RecordIter(); !it.Done(); {
			r := it.Next()
			bytes += int64(len(r.Value))
			r.Recycle() // nothing unless the client has pools
			n++
		}
		return n
	}
	return poll, func(records int64) {
		if bytes < records*benchValueSize {
			b.Fatalf("franz-go loop read %d value bytes, want %d", bytes, records*benchValueSize)
		}
	}
}

// startPlimsoll is a run's consumer (consumer.poll) with a group ledger of its own.
func startPlimsoll(b *testing.B, cl *kgo.Client) (func(context.Context) int64, func(int64)) {
	run := newRunState(pace.NewClock(), 0, 1, benchProducers)
	run.measureStart.Store(0)
	g := &group{ledger: ledger.NewGroup(benchPartitions, benchProducers)}
	c := newConsumer(run, g, map[string]int{benchTopic: 0}, 0)
	c.cl = cl
	poll := func(ctx context.Context) int64 {
		before := c.consumedAll.Load()
		if !c.poll(ctx) && ctx.Err() == nil {
			b.Fatal("client closed")
		}
		return c.consumedAll.Load() - before
	}
	return poll, func(records int64) {
		m := g.ledger.Counts[phaseMeasured]
		if m.Consumed != records || m.Duplicated != 0 || g.ledger.Foreign != 0 || int64(g.ledger.Seen()) != records {
			b.Fatalf("ledger: consumed %d duplicated %d foreign %d seen %d, want %d records each seen once",
				m.Consumed, m.Duplicated, g.ledger.Foreign, g.ledger.Seen(), records)
		}
		if n := c.e2e[phaseMeasured].Count(); n != records {
			b.Fatalf("end-to-end latency recorded %d times, want %d", n, records)
		}
	}
}

// startOwnFetch is a run's consumer on plimsoll's own fetch path, every partition assigned from
// the start; its poll waits for the fetcher's records.
func startOwnFetch(b *testing.B, cl *kgo.Client) (func(context.Context) int64, func(int64)) {
	run := newRunState(pace.NewClock(), 0, 1, benchProducers)
	run.measureStart.Store(0)
	g := &group{ledger: ledger.NewGroup(benchPartitions, benchProducers)}
	c := newConsumer(run, g, map[string]int{benchTopic: 0}, 0)
	c.cl = cl
	cfg, err := kafkaprops.ResolveConsumer(kafkaprops.Props{})
	if err != nil {
		b.Fatal(err)
	}
	cfg.ResetOffset = "earliest"
	c.newOwnFetch(cfg, benchPartitions)
	c.bindOwnFetch(cl, []string{benchTopic})
	for p := range benchPartitions {
		c.fetcher.Assign(p, -1)
	}
	ctx, stop := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); c.loop(ctx) }()
	b.Cleanup(func() { stop(); <-done })
	var seen int64
	poll := func(ctx context.Context) int64 {
		t := time.NewTimer(5 * time.Millisecond)
		defer t.Stop()
		select {
		case <-ctx.Done():
		case <-t.C:
		}
		now := c.consumedAll.Load()
		n := now - seen
		seen = now
		return n
	}
	return poll, func(records int64) {
		stop()
		<-done
		m := g.ledger.Counts[phaseMeasured]
		if m.Consumed != records || m.Duplicated != 0 || g.ledger.Foreign != 0 || int64(g.ledger.Seen()) != records {
			b.Fatalf("ledger: consumed %d duplicated %d foreign %d seen %d, want %d records each seen once",
				m.Consumed, m.Duplicated, g.ledger.Foreign, g.ledger.Seen(), records)
		}
		if n := c.e2e[phaseMeasured].Count(); n != records {
			b.Fatalf("end-to-end latency recorded %d times, want %d", n, records)
		}
		if c.fetchErrs.n != 0 {
			b.Fatalf("fetch errors: %v", c.fetchErrs.kinds)
		}
	}
}

// pass reads the whole topic once with a new client and returns the figures after its first
// non-empty poll.
func (s benchSide) pass(b *testing.B, addrs []string, records int64) benchFigures {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	opts := benchConsumerOpts(b, addrs)
	if s.opts != nil {
		opts = append(opts, s.opts()...)
	}
	cl, err := kgo.NewClient(opts...)
	if err != nil {
		b.Fatal(err)
	}
	defer cl.Close()
	poll, done := s.start(b, cl)
	var got int64
	for got == 0 && ctx.Err() == nil {
		got = poll(ctx)
	}
	first := got
	var m0, m1 runtime.MemStats
	runtime.ReadMemStats(&m0)
	c0 := processCPU()
	for got < records && ctx.Err() == nil {
		got += poll(ctx)
	}
	c1 := processCPU()
	runtime.ReadMemStats(&m1)
	if ctx.Err() != nil {
		b.Fatalf("%s read %d of %d records in 5 minutes", s.name, got, records)
	}
	done(got)
	return benchFigures{records: got - first, bytes: int64(m1.TotalAlloc - m0.TotalAlloc), cpu: time.Duration((c1 - c0) * 1e9)}
}

// benchConsumerOpts are the options both sides share: plimsoll's mapping of Kafka's consumer
// defaults, without a group, from the earliest offset.
func benchConsumerOpts(b *testing.B, addrs []string) []kgo.Opt {
	c, err := kafkaprops.ResolveConsumer(kafkaprops.Props{})
	if err != nil {
		b.Fatal(err)
	}
	return append(c.Opts(), kgo.SeedBrokers(addrs...), kgo.ConsumeTopics(benchTopic),
		kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()))
}

// benchFeed returns the brokers holding the benchmark's records and how many there are, and
// the local cluster they are on when PLIMSOLL_BENCH_CLUSTER_DIR names one (nil otherwise).
func benchFeed(b *testing.B) ([]string, int64, *localkafka.State) {
	records := int64(300_000)
	if v := os.Getenv("PLIMSOLL_BENCH_RECORDS"); v != "" {
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil || n <= 0 {
			b.Fatalf("PLIMSOLL_BENCH_RECORDS=%q: want a positive number of records", v)
		}
		records = n
	}
	var cluster *localkafka.State
	addrs := strings.Split(os.Getenv("PLIMSOLL_BENCH_BOOTSTRAP"), ",")
	if dir := os.Getenv("PLIMSOLL_BENCH_CLUSTER_DIR"); dir != "" {
		var err error
		if cluster, err = localkafka.Open(dir); err != nil {
			b.Fatalf("PLIMSOLL_BENCH_CLUSTER_DIR=%s: %v", dir, err)
		}
		addrs = strings.Split(cluster.Bootstrap(), ",")
	}
	if addrs[0] == "" {
		addrs = startKfake(b)
	}
	return addrs, seedBench(b, addrs, records), cluster
}

// startKfake starts this test binary as a kfake cluster (serveKfake) and returns its addresses.
func startKfake(b *testing.B) []string {
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), envKfakeServe+"=1")
	cmd.Stderr = os.Stderr
	in, err := cmd.StdinPipe()
	if err != nil {
		b.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		b.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { in.Close(); _ = cmd.Wait() })
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil {
		b.Fatalf("kfake child: %v", err)
	}
	return strings.Split(strings.TrimSpace(line), ",")
}

// seedBench writes records stamped records to the topic unless it holds them already, and
// returns how many it holds.
func seedBench(b *testing.B, addrs []string, records int64) int64 {
	ctx := context.Background()
	codec := kgo.NoCompression()
	switch v := os.Getenv("PLIMSOLL_BENCH_COMPRESSION"); v {
	case "", "none":
	case "lz4":
		codec = kgo.Lz4Compression()
	case "zstd":
		codec = kgo.ZstdCompression()
	default:
		b.Fatalf("PLIMSOLL_BENCH_COMPRESSION=%q: want none, lz4 or zstd", v)
	}
	cl, err := kgo.NewClient(kgo.SeedBrokers(addrs...), kgo.DefaultProduceTopic(benchTopic),
		kgo.RecordPartitioner(kgo.ManualPartitioner()), kgo.ProducerBatchCompression(codec), kgo.ProducerLinger(5*time.Millisecond))
	if err != nil {
		b.Fatal(err)
	}
	defer cl.Close()
	adm := kadm.NewClient(cl)
	if have := endOffsets(ctx, b, adm); have >= records {
		return have
	}
	_, _ = adm.CreateTopic(ctx, benchPartitions, 1, nil, benchTopic) // exists on kfake; a real cluster may need it
	for i := range records {
		v := make([]byte, benchValueSize)
		Stamp{Producer: uint32(i % benchProducers), Seq: uint64(i / benchProducers)}.Encode(v)
		cl.Produce(ctx, &kgo.Record{Partition: int32(i % benchPartitions), Value: v}, func(_ *kgo.Record, err error) {
			if err != nil {
				panic(fmt.Sprintf("seeding the consumer benchmark: %v", err))
			}
		})
	}
	if err := cl.Flush(ctx); err != nil {
		b.Fatal(err)
	}
	return endOffsets(ctx, b, adm)
}

// endOffsets sums the topic's end offsets; 0 when it does not exist.
func endOffsets(ctx context.Context, b *testing.B, adm *kadm.Client) int64 {
	ends, err := adm.ListEndOffsets(ctx, benchTopic)
	if err != nil {
		b.Fatal(err)
	}
	var n int64
	ends.Each(func(o kadm.ListedOffset) {
		if o.Err == nil {
			n += o.Offset
		}
	})
	return n
}

// javaGroups numbers ConsumerPerformance's groups: each run reads in a new one, from the start.
var javaGroups atomic.Int64

// benchJava is the CPU per record of Kafka's ConsumerPerformance reading the same topic, from
// the cluster's own Kafka version: two runs, of a fifth of the records and of all of them, each
// in a group of its own; the difference of their CPU over the difference of their records
// leaves the JVM's start-up and the group's join out, as the other sides leave out their first
// poll.
func benchJava(b *testing.B, cluster *localkafka.State, records int64) float64 {
	ctx := context.Background()
	cp, err := localkafka.ResolveTools(ctx, cluster.KafkaVersion)
	if err != nil {
		b.Fatal(err)
	}
	run := func(n int64) (float64, int64) {
		p := localkafka.ConsumerPerf{Classpath: cp, Bootstrap: cluster.Bootstrap(), Topic: benchTopic,
			Group: fmt.Sprintf("%s-java-%d-%d", benchTopic, os.Getpid(), javaGroups.Add(1)), Messages: n}
		cmd := exec.CommandContext(ctx, cluster.JavaBin(), p.Args()...)
		cmd.Stderr = os.Stderr
		out, err := cmd.Output()
		if err != nil {
			b.Fatalf("ConsumerPerformance: %v", err)
		}
		got := perfConsumed(b, string(out))
		ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage)
		if !ok {
			b.Fatal("no rusage for ConsumerPerformance")
		}
		return float64(ru.Utime.Nano() + ru.Stime.Nano()), got
	}
	cpuSmall, small := run(records / 5)
	cpuAll, all := run(records)
	if all <= small {
		b.Fatalf("ConsumerPerformance read %d then %d records", small, all)
	}
	return (cpuAll - cpuSmall) / float64(all-small)
}

// perfConsumed reads the records ConsumerPerformance consumed off its summary: the
// data.consumed.in.nMsg column of the first line after its header with as many columns (a
// warning may come between).
func perfConsumed(b *testing.B, out string) int64 {
	col, width := -1, 0
	for l := range strings.Lines(out) {
		cols := strings.Split(l, ",")
		if col < 0 {
			for j, c := range cols {
				if strings.TrimSpace(c) == "data.consumed.in.nMsg" {
					col, width = j, len(cols)
				}
			}
			continue
		}
		if len(cols) == width {
			if n, err := strconv.ParseInt(strings.TrimSpace(cols[col]), 10, 64); err == nil {
				return n
			}
		}
	}
	b.Fatalf("ConsumerPerformance printed no data.consumed.in.nMsg:\n%s", out)
	return 0
}
