package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/plimsoll/plimsoll/kafkaprops"
	"github.com/plimsoll/plimsoll/loadgen/produce"
	"github.com/twmb/franz-go/pkg/kgo"
)

// The bare franz-go loop is a reference point for ratio (a), not a third contestant: the client
// settings plimsoll runs producerProps with (kafkaprops.Resolve, the mapping plimsoll itself
// uses), one client, a record allocated per message with a shared value, one promise that only
// counts, and a loop that sends what is due and sleeps 10 µs. No stamps, pacing schedule,
// histograms or ledger. What plimsoll costs above it is its measuring; what it costs itself is
// the floor franz-go sets.

// bareOpts are the franz-go options plimsoll's producers get for producerProps and
// recordSize-byte records without keys.
func bareOpts(bootstrap string) ([]kgo.Opt, error) {
	var props kafkaprops.Props
	for _, kv := range producerProps {
		if err := props.Set(kv[0], kv[1]); err != nil {
			return nil, err
		}
	}
	c, err := kafkaprops.Resolve(kafkaprops.Input{Producer: props, MessageBytes: recordSize})
	if err != nil {
		return nil, err
	}
	return append(c.Producer.Opts(), kgo.SeedBrokers(strings.Split(bootstrap, ",")...)), nil
}

// bareChild runs in the child process: it sends records at rate to topic and prints how many
// were acknowledged.
func bareChild(bootstrap, topic string, records, rate int) error {
	ctx := context.Background()
	opts, err := bareOpts(bootstrap)
	if err != nil {
		return err
	}
	cl, err := kgo.NewClient(opts...)
	if err != nil {
		return err
	}
	defer cl.Close()
	var acked, failed atomic.Int64
	var firstErr atomic.Value
	promise := func(_ *kgo.Record, err error) {
		if err == nil {
			acked.Add(1)
			return
		}
		if failed.Add(1) == 1 {
			firstErr.Store(err)
		}
	}
	val := make([]byte, recordSize)
	for i := range val {
		val[i] = byte(i * 131)
	}
	start := time.Now()
	for sent := 0; sent < records; {
		due := min(int(time.Since(start).Seconds()*float64(rate)), records)
		for ; sent < due; sent++ {
			cl.Produce(ctx, &kgo.Record{Topic: topic, Value: val}, promise)
		}
		time.Sleep(10 * time.Microsecond)
	}
	if err := cl.Flush(ctx); err != nil {
		return err
	}
	return childReport(&acked, &failed, &firstErr, start)
}

// leanChild is bareChild on plimsoll's own produce path (loadgen/produce) instead of
// franz-go's producer: the same settings (acks=1, no idempotence, 5 requests in flight,
// batch.size 16384, linger 5 ms, buffer.memory 32 MiB in batches), the same loop, one shared
// value, a Done that only counts, and a sticky partitioner (the next partition once a batch is
// full), as Kafka's default is for records without keys.
func leanChild(bootstrap, topic string, records, rate int) error {
	ctx := context.Background()
	opts, err := bareOpts(bootstrap)
	if err != nil {
		return err
	}
	var acked, failed atomic.Int64
	var firstErr atomic.Value
	p, err := produce.New(ctx, produce.Config{Opts: opts, Topics: []string{topic}, Acks: 1, MaxInFlight: 5,
		BatchBytes: 16384, Linger: 5 * time.Millisecond, BufferBatches: 33554432 / 16384,
		Done: func(tags []produce.Tag, err error) {
			if err == nil {
				acked.Add(int64(len(tags)))
				return
			}
			if failed.Add(int64(len(tags))) == int64(len(tags)) {
				firstErr.Store(err)
			}
		}})
	if err != nil {
		return err
	}
	defer p.Close()
	val := make([]byte, recordSize)
	for i := range val {
		val[i] = byte(i * 131)
	}
	n := int32(p.Partitions(0))
	r := produce.Record{Value: val}
	start := time.Now()
	for sent := 0; sent < records; {
		due := min(int(time.Since(start).Seconds()*float64(rate)), records)
		if sent < due {
			r.Timestamp = time.Now().UnixMilli()
		}
		for ; sent < due; sent++ {
			info, err := p.Produce(ctx, &r)
			if err != nil {
				return err
			}
			if info.Sealed {
				r.Partition = (r.Partition + 1) % n
			}
		}
		time.Sleep(10 * time.Microsecond)
	}
	if err := p.Flush(ctx); err != nil {
		return err
	}
	return childReport(&acked, &failed, &firstErr, start)
}

// childReport ends a bare loop's child: an error if any record failed, else the line its parent
// reads (records acknowledged, and their rate since start).
func childReport(acked, failed *atomic.Int64, firstErr *atomic.Value, start time.Time) error {
	if n := failed.Load(); n > 0 {
		return fmt.Errorf("%d records failed, the first: %v", n, firstErr.Load())
	}
	el := time.Since(start).Seconds()
	fmt.Printf("acked %d %.3f\n", acked.Load(), float64(acked.Load())/el)
	return nil
}

// bareRun runs the bare loop (lean: on loadgen/produce) as a child process of this tool and
// measures its CPU.
func bareRun(bootstrap, topic string, records, rate int, lean bool) (measured, error) {
	self, err := os.Executable()
	if err != nil {
		return measured{}, err
	}
	mode := "-bare-child"
	if lean {
		mode = "-lean-child"
	}
	cmd := exec.Command(self, mode, "-bootstrap", bootstrap, "-topic", topic,
		"-records", strconv.Itoa(records), "-rate", strconv.Itoa(rate))
	if goMaxProcs > 0 {
		cmd.Env = append(os.Environ(), "GOMAXPROCS="+strconv.Itoa(goMaxProcs))
	}
	cmd.Stderr = os.Stderr
	out, err := cmd.Output()
	if err != nil {
		return measured{}, fmt.Errorf("bare franz-go loop: %w", err)
	}
	var m measured
	if _, err := fmt.Sscanf(string(out), "acked %g %g", &m.records, &m.rate); err != nil {
		return measured{}, fmt.Errorf("bare franz-go loop printed %q: %w", out, err)
	}
	m.cpu = cpuOf(cmd)
	return m, nil
}
