// Command benchloadgen measures plimsoll's load generator side by side with Kafka's own
// kafka-producer-perf-test (org.apache.kafka.tools.ProducerPerformance) against one local
// broker started for the purpose, and prints the two ratios the runner issue sets as targets:
//
//	(a) generator CPU seconds per million 100-byte records at a fixed 100k records/s,
//	    plimsoll / Java tool (target <= 0.15);
//	(b) maximum produce rate of 100-byte records with acks=1, plimsoll / Java tool (target >= 2).
//
// Both tools run as child processes with the same producer settings, one after the other, and
// their CPU time is read from the kernel's accounting of each child (rusage). Run it with
// `make bench-loadgen`; it needs the plimsoll binary (bin/plimsoll).
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
	"strconv"
	"strings"
	"syscall"
	"time"

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
	flag.Parse()
	if err := run(*bin, *records, *rate, *maxRecords, *maxSeconds); err != nil {
		fmt.Fprintln(os.Stderr, "benchloadgen:", err)
		os.Exit(1)
	}
}

type measured struct {
	cpu     float64 // seconds, user + system
	records float64
	rate    float64 // records/s
}

func run(bin string, records, rate, maxRecords, maxSeconds int) error {
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
	const partitions = 3
	topic := "plimsoll-bench-perftest"
	if err := createTopic(ctx, bootstrap, topic, partitions); err != nil {
		return err
	}

	fmt.Printf("\n(a) CPU for %d 100-byte records at %d records/s, acks=1\n", records, rate)
	javaA, err := perfTest(cp, bootstrap, topic, records, rate)
	if err != nil {
		return err
	}
	fmt.Printf("  kafka-producer-perf-test: %.2f CPU s for %.0f records (%.0f rec/s)\n", javaA.cpu, javaA.records, javaA.rate)
	secs := records / rate
	goA, err := plimsollRun(bin, bootstrap, partitions, rate, secs)
	if err != nil {
		return err
	}
	fmt.Printf("  plimsoll run:             %.2f CPU s for %.0f records (%.0f rec/s)\n", goA.cpu, goA.records, goA.rate)

	fmt.Printf("\n(b) maximum rate of 100-byte records, acks=1\n")
	javaB, err := perfTest(cp, bootstrap, topic, maxRecords, -1)
	if err != nil {
		return err
	}
	fmt.Printf("  kafka-producer-perf-test: %.0f rec/s (%.0f records)\n", javaB.rate, javaB.records)
	goB, err := plimsollRun(bin, bootstrap, partitions, 0, maxSeconds)
	if err != nil {
		return err
	}
	fmt.Printf("  plimsoll run:             %.0f rec/s (%.0f records)\n", goB.rate, goB.records)

	cpuRatio := (goA.cpu / goA.records) / (javaA.cpu / javaA.records)
	rateRatio := goB.rate / javaB.rate
	fmt.Printf("\nratio (a) CPU per million records, plimsoll / Java: %.3f (target <= 0.15: %s)\n", cpuRatio, verdict(cpuRatio <= 0.15))
	fmt.Printf("  plimsoll %.2f CPU s per million, Java %.2f\n", 1e6*goA.cpu/goA.records, 1e6*javaA.cpu/javaA.records)
	fmt.Printf("ratio (b) max rate, plimsoll / Java:                %.2f (target >= 2.0: %s)\n", rateRatio, verdict(rateRatio >= 2))
	return nil
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
	cmd := exec.Command("java", "-Xmx1g", "-cp", cp, "org.apache.kafka.tools.ProducerPerformance",
		"--topic", topic, "--num-records", strconv.Itoa(records), "--record-size", "100",
		"--throughput", strconv.Itoa(rate), "--producer-props", "bootstrap.servers="+bootstrap, "acks=1")
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
func plimsollRun(bin, bootstrap string, partitions, rate, seconds int) (measured, error) {
	out, err := os.MkdirTemp("", "plimsoll-bench-run-")
	if err != nil {
		return measured{}, err
	}
	defer os.RemoveAll(out)
	cmd := exec.Command(bin, "run", "--bootstrap", bootstrap, "--rate", strconv.Itoa(rate), "--message-size", "100",
		"--duration", fmt.Sprintf("%ds", seconds), "--warmup", "0s", "--consumer-groups", "0",
		"--partitions", strconv.Itoa(partitions), "--replication-factor", "1", "--producer-prop", "acks=1",
		"--out", out, "--slo-p99-ms", "0", "--min-achieved", "0")
	cmd.Stderr = os.Stderr
	runErr := cmd.Run()
	if runErr != nil && cmd.ProcessState.ExitCode() != 3 && cmd.ProcessState.ExitCode() != 4 {
		return measured{}, fmt.Errorf("plimsoll run: %w", runErr)
	}
	data, err := os.ReadFile(filepath.Join(out, "result.json"))
	if err != nil {
		return measured{}, err
	}
	var r struct {
		Produced float64 `json:"produced_msgs_per_sec"`
		Counts   struct {
			Acked float64 `json:"acked"`
		} `json:"counts"`
	}
	if err := json.Unmarshal(data, &r); err != nil {
		return measured{}, err
	}
	return measured{cpu: cpuOf(cmd), records: r.Counts.Acked, rate: r.Produced}, nil
}
