// Command benchloadgen measures plimsoll's load generator side by side with Kafka's own
// kafka-producer-perf-test (org.apache.kafka.tools.ProducerPerformance) against one local
// broker started for the purpose, and prints the two ratios the runner issue sets as targets:
//
//	(a) generator CPU seconds per million 100-byte records at a fixed 100k records/s,
//	    plimsoll / Java tool (target <= 0.15);
//	(b) maximum produce rate of 100-byte records with acks=1, plimsoll / Java tool (target >= 2).
//
// With the lean producer (plimsoll's own produce path, `plimsoll run --lean-producer`, issue
// 15; -no-lean leaves it out) both comparisons run a third time on it, and it is held to issue
// 15's targets: CPU per record at most 0.25 of the Java tool's and below the bare franz-go
// loop's, and a maximum acks=1 rate at least 3 times the Java tool's.
//
// Both tools run as child processes, one after the other, against the same broker and a topic
// of the same shape (3 partitions, rf 1), with the same producer properties passed explicitly
// to each (producerProps: acks=1, linger.ms=5, batch.size=16384, no compression, no
// idempotence, 5 requests in flight, 32 MiB buffer; Kafka 4.x defaults apart from acks and
// idempotence), 100-byte values and no keys. Their CPU time is the kernel's accounting of each
// child (rusage, user + system, start-up included for both: the JVM's JIT and GC threads, and
// plimsoll's topic set-up, probe and drain). plimsoll reads back the properties it ran with
// from its result.json, and the tool fails if they differ from the Java tool's.
//
// The figures are noisy on a shared host: the load average is printed before each step; run
// it more than once (-repeat) before trusting a ratio. Run it with `make bench-loadgen`; it
// needs the plimsoll binary (bin/plimsoll). -record-size runs both comparisons with another
// value size (docs/fleet-sizing.md measures 1,000 bytes so); the targets are set at 100 bytes.
package main

import (
	"bufio"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/plimsoll/plimsoll/loadgen"
	"github.com/plimsoll/plimsoll/localkafka"
	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"
)

func main() {
	bin := flag.String("plimsoll", "bin/plimsoll", "the plimsoll binary to measure")
	records := flag.Int("records", 2_000_000, "records for the fixed-rate CPU comparison")
	rate := flag.Int("rate", 100_000, "records/s for the CPU comparison")
	maxRecords := flag.Int("max-records", 3_000_000, "records the Java tool sends in the max-rate comparison")
	maxSeconds := flag.Int("max-seconds", 15, "seconds plimsoll runs in the max-rate comparison")
	repeat := flag.Int("repeat", 1, "times to repeat both comparisons against the same broker")
	flag.IntVar(&goMaxProcs, "gomaxprocs", 0, "run plimsoll with GOMAXPROCS=N (0: the Go default, all CPUs); an experiment, not like with like: the Java tool keeps every CPU")
	bareChildMode := flag.Bool("bare-child", false, "internal: run the bare franz-go loop (see bare.go)")
	leanChildMode := flag.Bool("lean-child", false, "internal: run the bare loop on loadgen/produce (see bare.go)")
	bootstrap := flag.String("bootstrap", "", "internal, with -bare-child")
	topic := flag.String("topic", "", "internal, with -bare-child")
	noBare := flag.Bool("no-bare", false, "skip the bare franz-go loop reference in (a)")
	noLean := flag.Bool("no-lean", false, "skip plimsoll run --lean-producer (plimsoll's own produce path, loadgen/produce) in (a) and (b)")
	flag.IntVar(&recordSize, "record-size", recordSize, "the records' value size in bytes, for both tools (the targets are set at 100)")
	flag.Parse()
	if *bareChildMode || *leanChildMode {
		child := bareChild
		if *leanChildMode {
			child = leanChild
		}
		if err := child(*bootstrap, *topic, *records, *rate); err != nil {
			fmt.Fprintln(os.Stderr, "benchloadgen:", err)
			os.Exit(1)
		}
		return
	}
	withBare, withLean = !*noBare, !*noLean
	if err := run(*bin, *records, *rate, *maxRecords, *maxSeconds, max(*repeat, 1)); err != nil {
		fmt.Fprintln(os.Stderr, "benchloadgen:", err)
		os.Exit(1)
	}
}

// withBare adds the bare franz-go loop to (a) as a reference (bare.go).
var withBare bool

// withLean adds plimsoll run --lean-producer to (a) and (b), with issue 15's targets: CPU per
// record at most 0.25 of the Java tool's and below the bare franz-go loop's; a maximum rate at
// least 3 times the Java tool's.
var withLean bool

// goMaxProcs, when > 0, is the GOMAXPROCS plimsoll runs with (-gomaxprocs).
var goMaxProcs int

// producerProps are the producer settings both tools get, explicitly, in this order. They are
// the Kafka 4.x client defaults (linger.ms became 5 in 4.0, KIP-1030) except acks=1 and
// enable.idempotence=false (the Java client turns idempotence off for acks=1 too when it is
// not set). plimsoll maps them to franz-go with kafkaprops, for its own producers and for the
// bare loop alike.
var producerProps = [][2]string{
	{"acks", "1"},
	{"linger.ms", "5"},
	{"batch.size", "16384"},
	{"compression.type", "none"},
	{"enable.idempotence", "false"},
	{"max.in.flight.requests.per.connection", "5"},
	{"buffer.memory", "33554432"},
}

const partitions = 3

// recordSize is the records' value size in bytes (-record-size; 100 unless given).
var recordSize = 100

// propPairs are producerProps as key=value arguments.
func propPairs() []string {
	out := make([]string, len(producerProps))
	for i, kv := range producerProps {
		out[i] = kv[0] + "=" + kv[1]
	}
	return out
}

// propArgs repeats flagName before each key=value pair.
func propArgs(flagName string) []string {
	var a []string
	for _, p := range propPairs() {
		a = append(a, flagName, p)
	}
	return a
}

// loadavg is the host's 1-minute load average, to judge how noisy a figure is.
func loadavg() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "?"
	}
	f := strings.Fields(string(b))
	if len(f) == 0 {
		return "?"
	}
	return f[0]
}

type measured struct {
	cpu     float64 // seconds, user + system
	records float64
	rate    float64 // records/s
}

func run(bin string, records, rate, maxRecords, maxSeconds, repeat int) error {
	ctx := context.Background()
	dir, err := os.MkdirTemp("", "plimsoll-bench-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	fmt.Println("starting one local Kafka broker ...")
	c, err := localkafka.Up(ctx, localkafka.Options{Brokers: 1, Dir: filepath.Join(dir, "cluster"), Heap: "1g"})
	if err != nil {
		return err
	}
	defer localkafka.Down(c.Dir, false, 30*time.Second)
	bootstrap := c.Bootstrap()
	cp, err := localkafka.ResolveTools(ctx, c.KafkaVersion)
	if err != nil {
		return err
	}
	topic := "plimsoll-bench-perftest"
	if err := createTopic(ctx, bootstrap, topic, partitions); err != nil {
		return err
	}
	fmt.Printf("broker: Kafka %s at %s, on this host (%d CPUs); topics: %d partitions, rf 1\n", c.KafkaVersion, bootstrap, runtime.NumCPU(), partitions)
	fmt.Printf("both tools: %d-byte values, no keys, %s\n", recordSize, strings.Join(propPairs(), " "))
	fmt.Printf("  Java: kafka-producer-perf-test --record-size %d --producer-props ... (java -Xmx1g)\n", recordSize)
	fmt.Printf("  plimsoll: run --message-size %d --payload random --consumer-groups 0 --warmup 0s --producer-prop ...\n", recordSize)
	if goMaxProcs > 0 {
		fmt.Printf("  plimsoll runs with GOMAXPROCS=%d (-gomaxprocs): NOT like with like, the Java tool keeps all %d CPUs\n", goMaxProcs, runtime.NumCPU())
	}

	var cpuRatios, rateRatios []float64
	for i := range repeat {
		if repeat > 1 {
			fmt.Printf("\n=== round %d of %d\n", i+1, repeat)
		}
		cr, rr, err := round(cp, bin, bootstrap, topic, records, rate, maxRecords, maxSeconds)
		if err != nil {
			return err
		}
		cpuRatios, rateRatios = append(cpuRatios, cr), append(rateRatios, rr)
	}
	if repeat > 1 {
		fmt.Printf("\nover %d rounds: ratio (a) %s; ratio (b) %s\n", repeat, spread(cpuRatios, "%.3f"), spread(rateRatios, "%.2f"))
	}
	return nil
}

// spread lists the values and their range.
func spread(v []float64, f string) string {
	lo, hi := slices.Min(v), slices.Max(v)
	parts := make([]string, len(v))
	for i, x := range v {
		parts[i] = fmt.Sprintf(f, x)
	}
	return fmt.Sprintf("%s (min "+f+", max "+f+")", strings.Join(parts, " "), lo, hi)
}

// round runs both comparisons once and prints them; it returns ratio (a) and ratio (b).
func round(cp, bin, bootstrap, topic string, records, rate, maxRecords, maxSeconds int) (cpuRatio, rateRatio float64, err error) {
	fmt.Printf("\n(a) CPU for %d %d-byte records at %d records/s (load average %s)\n", records, recordSize, rate, loadavg())
	javaA, err := perfTest(cp, bootstrap, topic, records, rate)
	if err != nil {
		return 0, 0, err
	}
	fmt.Printf("  kafka-producer-perf-test: %.2f CPU s for %.0f records (%.0f rec/s)\n", javaA.cpu, javaA.records, javaA.rate)
	secs := records / rate
	goA, err := plimsollRun(bin, bootstrap, rate, secs)
	if err != nil {
		return 0, 0, err
	}
	fmt.Printf("  plimsoll run:             %.2f CPU s for %.0f records (%.0f rec/s)\n", goA.cpu, goA.records, goA.rate)
	type check struct {
		name string
		m    measured
	}
	checks := []check{{"kafka-producer-perf-test", javaA}, {"plimsoll run", goA}}
	var bare measured
	if withBare {
		if bare, err = bareRun(bootstrap, topic, records, rate, false); err != nil {
			return 0, 0, err
		}
		fmt.Printf("  bare franz-go loop:       %.2f CPU s for %.0f records (%.0f rec/s); reference only: same client settings, no measuring\n", bare.cpu, bare.records, bare.rate)
		checks = append(checks, check{"the bare franz-go loop", bare})
	}
	var leanA, bareLean measured
	if withLean {
		if leanA, err = plimsollRun(bin, bootstrap, rate, secs, "--lean-producer"); err != nil {
			return 0, 0, err
		}
		fmt.Printf("  plimsoll run --lean-producer: %.2f CPU s for %.0f records (%.0f rec/s)\n", leanA.cpu, leanA.records, leanA.rate)
		checks = append(checks, check{"plimsoll run --lean-producer", leanA})
		if withBare {
			if bareLean, err = bareRun(bootstrap, topic, records, rate, true); err != nil {
				return 0, 0, err
			}
			fmt.Printf("  bare loop on the lean path: %.2f CPU s for %.0f records (%.0f rec/s); reference only: the bare loop on loadgen/produce\n", bareLean.cpu, bareLean.records, bareLean.rate)
			checks = append(checks, check{"the bare loop on the lean path", bareLean})
		}
	}
	for _, m := range checks {
		if m.m.rate < 0.97*float64(rate) {
			fmt.Printf("  note: %s fell short of %d records/s (host busy? load average %s); its CPU per record is still compared\n", m.name, rate, loadavg())
		}
	}

	fmt.Printf("\n(b) maximum rate of %d-byte records (load average %s)\n", recordSize, loadavg())
	javaB, err := perfTest(cp, bootstrap, topic, maxRecords, -1)
	if err != nil {
		return 0, 0, err
	}
	fmt.Printf("  kafka-producer-perf-test: %.0f rec/s (%.0f records)\n", javaB.rate, javaB.records)
	goB, err := plimsollRun(bin, bootstrap, 0, maxSeconds)
	if err != nil {
		return 0, 0, err
	}
	fmt.Printf("  plimsoll run:             %.0f rec/s (%.0f records)\n", goB.rate, goB.records)
	var leanB measured
	if withLean {
		if leanB, err = plimsollRun(bin, bootstrap, 0, maxSeconds, "--lean-producer"); err != nil {
			return 0, 0, err
		}
		fmt.Printf("  plimsoll run --lean-producer: %.0f rec/s (%.0f records)\n", leanB.rate, leanB.records)
	}

	cpuRatio = (goA.cpu / goA.records) / (javaA.cpu / javaA.records)
	rateRatio = goB.rate / javaB.rate
	fmt.Printf("\nratio (a) CPU per million records, plimsoll / Java: %.3f (target <= 0.15: %s)\n", cpuRatio, verdict(cpuRatio <= 0.15))
	fmt.Printf("  plimsoll %.2f CPU s per million, Java %.2f\n", 1e6*goA.cpu/goA.records, 1e6*javaA.cpu/javaA.records)
	if withBare {
		fmt.Printf("  reference: bare franz-go loop %.2f CPU s per million, %.3f of Java's; plimsoll is %.2fx the bare loop\n",
			1e6*bare.cpu/bare.records, (bare.cpu/bare.records)/(javaA.cpu/javaA.records), (goA.cpu/goA.records)/(bare.cpu/bare.records))
	}
	fmt.Printf("ratio (b) max rate, plimsoll / Java:                %.2f (target >= 2.0: %s)\n", rateRatio, verdict(rateRatio >= 2))
	fmt.Printf("  plimsoll %.0f rec/s, Java %.0f rec/s\n", goB.rate, javaB.rate)
	if withLean {
		perJava := func(m measured) float64 { return (m.cpu / m.records) / (javaA.cpu / javaA.records) }
		leanCPU, leanRate := perJava(leanA), leanB.rate/javaB.rate
		fmt.Printf("\nlean producer (plimsoll run --lean-producer, issue 15):\n")
		fmt.Printf("  CPU per million records, lean / Java: %.3f (target <= 0.25: %s); lean %.2f CPU s per million\n",
			leanCPU, verdict(leanCPU <= 0.25), 1e6*leanA.cpu/leanA.records)
		fmt.Printf("  CPU per record, lean / plimsoll run on franz-go: %.2f\n", (leanA.cpu/leanA.records)/(goA.cpu/goA.records))
		if withBare {
			lb := (leanA.cpu / leanA.records) / (bare.cpu / bare.records)
			fmt.Printf("  CPU per record, lean / bare franz-go loop: %.2f (target < 1: %s)\n", lb, verdict(lb < 1))
			fmt.Printf("  the bare loops alone (no measuring), lean path / franz-go: %.2f; lean path %.3f of Java's\n",
				(bareLean.cpu/bareLean.records)/(bare.cpu/bare.records), perJava(bareLean))
		}
		fmt.Printf("  max rate, lean / Java: %.2f (target >= 3: %s); lean %.0f rec/s, plimsoll on franz-go %.0f\n",
			leanRate, verdict(leanRate >= 3), leanB.rate, goB.rate)
	}
	return cpuRatio, rateRatio, nil
}

func verdict(ok bool) string {
	if ok {
		return "met"
	}
	return "NOT met"
}

func createTopic(ctx context.Context, bootstrap, topic string, partitions int32) error {
	cl, err := kgo.NewClient(kgo.SeedBrokers(strings.Split(bootstrap, ",")...))
	if err != nil {
		return err
	}
	defer cl.Close()
	_, err = kadm.NewClient(cl).CreateTopic(ctx, partitions, 1, nil, topic)
	return err
}

// cpuOf returns the child's user+system CPU seconds.
func cpuOf(cmd *exec.Cmd) float64 {
	ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage)
	if !ok {
		return 0
	}
	tv := func(t syscall.Timeval) float64 { return float64(t.Sec) + float64(t.Usec)/1e6 }
	return tv(ru.Utime) + tv(ru.Stime)
}

var perfSummary = regexp.MustCompile(`^(\d+) records sent, ([0-9.]+) records/sec`)

// perfTest runs Kafka's ProducerPerformance and reads its summary line.
func perfTest(cp, bootstrap, topic string, records, rate int) (measured, error) {
	pp := localkafka.ProducerPerf{Classpath: cp, Bootstrap: bootstrap, Topic: topic, Records: records,
		RecordSize: recordSize, Throughput: rate, Props: propPairs()}
	cmd := exec.Command("java", pp.Args()...)
	out, err := cmd.StdoutPipe()
	if err != nil {
		return measured{}, err
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		return measured{}, err
	}
	var m measured
	sc := bufio.NewScanner(out)
	for sc.Scan() {
		if g := perfSummary.FindStringSubmatch(sc.Text()); g != nil {
			m.records, _ = strconv.ParseFloat(g[1], 64)
			m.rate, _ = strconv.ParseFloat(g[2], 64)
		}
	}
	if err := cmd.Wait(); err != nil {
		return m, fmt.Errorf("ProducerPerformance: %w", err)
	}
	if m.records == 0 {
		return m, fmt.Errorf("ProducerPerformance printed no summary line")
	}
	m.cpu = cpuOf(cmd)
	return m, nil
}

// plimsollRun runs `plimsoll run` producing only (no consumers) and reads its result.
func plimsollRun(bin, bootstrap string, rate, seconds int, extra ...string) (measured, error) {
	out, err := os.MkdirTemp("", "plimsoll-bench-run-")
	if err != nil {
		return measured{}, err
	}
	defer os.RemoveAll(out)
	args := []string{"run", "--bootstrap", bootstrap, "--rate", strconv.Itoa(rate), "--message-size", strconv.Itoa(recordSize),
		"--payload", "random", "--keys", "none", "--duration", fmt.Sprintf("%ds", seconds), "--warmup", "0s", "--consumer-groups", "0",
		"--partitions", strconv.Itoa(partitions), "--replication-factor", "1",
		"--out", out, "--slo-p99", "0", "--min-achieved", "0"}
	cmd := exec.Command(bin, append(append(args, propArgs("--producer-prop")...), extra...)...)
	if goMaxProcs > 0 {
		cmd.Env = append(os.Environ(), "GOMAXPROCS="+strconv.Itoa(goMaxProcs))
	}
	cmd.Stderr = os.Stderr
	runErr := cmd.Run()
	if runErr != nil && cmd.ProcessState.ExitCode() != 3 && cmd.ProcessState.ExitCode() != 4 {
		return measured{}, fmt.Errorf("plimsoll run: %w", runErr)
	}
	data, err := os.ReadFile(filepath.Join(out, "result.json"))
	if err != nil {
		return measured{}, err
	}
	var r loadgen.Result
	if err := json.Unmarshal(data, &r); err != nil {
		return measured{}, err
	}
	// Like with like: the properties plimsoll ran with must be the ones the Java tool got.
	for _, kv := range producerProps {
		if got := r.Config.ClientProps.Producer.Props[kv[0]]; got != kv[1] {
			return measured{}, fmt.Errorf("plimsoll ran with %s=%q, the Java tool with %q", kv[0], got, kv[1])
		}
	}
	return measured{cpu: cpuOf(cmd), records: float64(r.Counts.Acked), rate: r.ProducedMsgsPerSec}, nil
}
