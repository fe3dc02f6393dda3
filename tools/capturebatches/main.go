// Command capturebatches captures the raw record batches a real Kafka broker sends in Fetch
// responses, as golden seeds for loadgen/recbatch's tests and fuzz tests.
//
// Against a running cluster (one started by `plimsoll cluster up`), it creates one single-partition
// topic per case under a prefix and produces to it: with franz-go (uncompressed, gzip, snappy, lz4,
// zstd; transactions that commit and abort, so the log holds control batches) and, given
// --java-classpath, with Kafka's Java producer (ProducerPerformance: gzip, snappy in xerial
// framing, lz4, zstd). It then sends its own kmsg.FetchRequest to the partition's leader and
// writes the partition's RecordBatches bytes as the broker sent them: whole (the responses
// concatenated, if the broker needed more than one), and, when one response held them all, once
// more cut by a PartitionMaxBytes smaller than the log so that the bytes end inside a batch. A
// manifest.json beside the .bin files names the Kafka version and, per file, what it holds
// (codec, records produced, the fetch, the aborted transactions the broker listed). The topics
// are deleted at the end.
//
//	capturebatches --bootstrap 127.0.0.1:9092 --kafka-version 4.1.0 --out loadgen/recbatch/testdata/kafka-4.1.0 \
//		--java-classpath "$HOME/.cache/plimsoll/kafka-tools/4.1.0/libs/*"
package main

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/plimsoll/plimsoll/localkafka"
	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
)

func main() {
	bootstrap := flag.String("bootstrap", "127.0.0.1:9092", "the cluster's bootstrap servers, comma-separated")
	version := flag.String("kafka-version", "", "the Kafka release the cluster runs (written to the manifest)")
	out := flag.String("out", "", "directory to write the .bin files and manifest.json to")
	flag.StringVar(&javaClasspath, "java-classpath", "", "classpath of Kafka's tools (e.g. ~/.cache/plimsoll/kafka-tools/4.1.0/libs/*): also capture what the Java producer writes")
	flag.Parse()
	if *out == "" || *version == "" {
		fmt.Fprintln(os.Stderr, "capturebatches: give --out and --kafka-version")
		os.Exit(2)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	if err := run(ctx, strings.Split(*bootstrap, ","), *version, *out); err != nil {
		fmt.Fprintln(os.Stderr, "capturebatches:", err)
		os.Exit(1)
	}
}

// Manifest describes the captured files of one Kafka version.
type Manifest struct {
	KafkaVersion string `json:"kafka_version"`
	Captured     string `json:"captured"`
	Files        []File `json:"files"`
}

// File describes one captured partition's bytes.
type File struct {
	Name              string    `json:"name"`
	Holds             string    `json:"holds"`
	Codec             string    `json:"codec"`
	Produced          int       `json:"records_produced"`
	Truncated         bool      `json:"truncated_tail"`
	Responses         int       `json:"responses"`
	FetchVersion      int16     `json:"fetch_version"`
	IsolationLevel    int8      `json:"isolation_level"`
	HighWatermark     int64     `json:"high_watermark"`
	LastStable        int64     `json:"last_stable_offset"`
	Aborted           []Aborted `json:"aborted_transactions"`
	Bytes             int       `json:"bytes"`
	PartitionMaxBytes int32     `json:"partition_max_bytes"`
}

// Aborted is one entry of the Fetch response's AbortedTransactions.
type Aborted struct {
	ProducerID  int64 `json:"producer_id"`
	FirstOffset int64 `json:"first_offset"`
}

// capture is one topic to produce to and fetch back.
type capture struct {
	name  string
	holds string
	codec string
	opt   kgo.CompressionCodec
	txn   bool
	java  string // produced by Kafka's Java producer (ProducerPerformance) with this compression.type
}

// javaHolds starts the description of a capture the Java producer wrote.
const javaHolds = "Kafka's Java producer (kafka-tools 4.1.0 ProducerPerformance: 30 records of 100 random uppercase letters, no key, batch.size 1024) compressed with "

// javaRecords is how many records a Java capture produces.
const javaRecords = 30

// javaClasspath is the classpath of Kafka's tools (--java-classpath); empty, the Java captures
// are left out.
var javaClasspath string

var captures = []capture{
	{"none", "three batches of uncompressed records: keys, nil keys, empty and nil values, headers", "none", kgo.NoCompression(), false, ""},
	{"gzip", "three gzip batches of the same records", "gzip", kgo.GzipCompression(), false, ""},
	{"snappy", "three snappy batches (franz-go writes raw snappy blocks, not xerial framing)", "snappy", kgo.SnappyCompression(), false, ""},
	{"lz4", "three lz4 batches (lz4 frame format)", "lz4", kgo.Lz4Compression(), false, ""},
	{"zstd", "three zstd batches", "zstd", kgo.ZstdCompression(), false, ""},
	{"txn", "transactions: committed, aborted, committed; each followed by its control batch (commit, abort, commit marker)", "none", kgo.NoCompression(), true, ""},
	{"java-gzip", javaHolds + "gzip", "gzip", kgo.NoCompression(), false, "gzip"},
	{"java-snappy", javaHolds + "snappy (snappy-java's xerial framing)", "snappy", kgo.NoCompression(), false, "snappy"},
	{"java-lz4", javaHolds + "lz4 (Kafka's KafkaLZ4BlockOutputStream frames)", "lz4", kgo.NoCompression(), false, "lz4"},
	{"java-zstd", javaHolds + "zstd", "zstd", kgo.NoCompression(), false, "zstd"},
}

func run(ctx context.Context, seeds []string, version, out string) error {
	if err := os.MkdirAll(out, 0o755); err != nil {
		return err
	}
	adm, err := kgo.NewClient(kgo.SeedBrokers(seeds...))
	if err != nil {
		return err
	}
	defer adm.Close()
	prefix := "capturebatches-" + strconv.FormatInt(time.Now().Unix(), 10) + "-"
	m := Manifest{KafkaVersion: version, Captured: time.Now().UTC().Format(time.RFC3339)}
	for _, c := range captures {
		if c.java != "" && javaClasspath == "" {
			continue
		}
		topic := prefix + c.name
		if _, err := kadm.NewClient(adm).CreateTopic(ctx, 1, 1, nil, topic); err != nil {
			return fmt.Errorf("create %s: %w", topic, err)
		}
		n, err := produce(ctx, seeds, topic, c)
		if err != nil {
			return fmt.Errorf("produce %s: %w", c.name, err)
		}
		hw, err := waitStable(ctx, adm, topic)
		if err != nil {
			return fmt.Errorf("%s: %w", topic, err)
		}
		fmt.Fprintf(os.Stderr, "capturebatches: %s: %d records produced, high watermark %d\n", topic, n, hw)
		files, err := fetchBoth(ctx, adm, topic, c, n, hw, out)
		if err != nil {
			return fmt.Errorf("fetch %s: %w", c.name, err)
		}
		m.Files = append(m.Files, files...)
	}
	if _, err := kadm.NewClient(adm).DeleteTopics(ctx, topicsOf(prefix)...); err != nil {
		fmt.Fprintln(os.Stderr, "capturebatches: deleting the topics:", err)
	}
	b, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(out, "manifest.json"), append(b, '\n'), 0o644)
}

func topicsOf(prefix string) []string {
	var ts []string
	for _, c := range captures {
		ts = append(ts, prefix+c.name)
	}
	return ts
}

// records returns the records of batch i: varied keys, values and headers.
func records(topic string, i int) []*kgo.Record {
	val := strings.Repeat("plimsoll record batch capture "+strconv.Itoa(i)+" ", 8)
	rs := []*kgo.Record{
		{Topic: topic, Key: []byte("key-" + strconv.Itoa(i)), Value: []byte(val)},
		{Topic: topic, Key: nil, Value: []byte(val + "nil key")},
		{Topic: topic, Key: []byte("k"), Value: []byte{}},
		{Topic: topic, Key: []byte("tombstone"), Value: nil},
		{Topic: topic, Key: []byte("h"), Value: []byte(val), Headers: []kgo.RecordHeader{
			{Key: "trace", Value: []byte("abc-" + strconv.Itoa(i))}, {Key: "empty", Value: nil}}},
	}
	for j, r := range rs {
		r.Timestamp = time.UnixMilli(1_760_000_000_000 + int64(i*1000+j*7))
	}
	return rs
}

// produce writes three batches to topic (transactions for a txn capture) and returns how many
// records it produced.
func produce(ctx context.Context, seeds []string, topic string, c capture) (int, error) {
	if c.java != "" {
		return javaRecords, produceJava(ctx, seeds, topic, c.java)
	}
	opts := []kgo.Opt{kgo.SeedBrokers(seeds...), kgo.ProducerBatchCompression(c.opt),
		kgo.DefaultProduceTopic(topic), kgo.ProducerLinger(50 * time.Millisecond)}
	if c.txn {
		opts = append(opts, kgo.TransactionalID(topic))
	}
	cl, err := kgo.NewClient(opts...)
	if err != nil {
		return 0, err
	}
	defer cl.Close()
	n := 0
	for i := range 3 {
		if c.txn {
			if err := cl.BeginTransaction(); err != nil {
				return n, err
			}
		}
		rs := records(topic, i)
		if err := cl.ProduceSync(ctx, rs...).FirstErr(); err != nil {
			return n, err
		}
		n += len(rs)
		if c.txn {
			commit := kgo.TransactionEndTry(i != 1)
			if err := cl.EndTransaction(ctx, commit); err != nil {
				return n, err
			}
		}
	}
	return n, nil
}

// waitStable waits until the partition's high watermark and last stable offset agree (every
// transaction's marker written) and returns the high watermark.
func waitStable(ctx context.Context, cl *kgo.Client, topic string) (int64, error) {
	adm := kadm.NewClient(cl)
	for {
		ends, err := adm.ListEndOffsets(ctx, topic)
		if err != nil {
			return 0, err
		}
		committed, err := adm.ListCommittedOffsets(ctx, topic)
		if err != nil {
			return 0, err
		}
		e, _ := ends.Lookup(topic, 0)
		c, _ := committed.Lookup(topic, 0)
		if e.Err == nil && c.Err == nil && e.Offset == c.Offset {
			return e.Offset, nil
		}
		select {
		case <-ctx.Done():
			return 0, ctx.Err()
		case <-time.After(200 * time.Millisecond):
		}
	}
}

// produceJava runs Kafka's Java producer (ProducerPerformance) to write javaRecords records to
// topic with compression.type codec, in batches of at most 1 KB.
func produceJava(ctx context.Context, seeds []string, topic, codec string) error {
	p := localkafka.ProducerPerf{Classpath: javaClasspath, Bootstrap: strings.Join(seeds, ","), Topic: topic,
		Records: javaRecords, RecordSize: 100, Throughput: -1, Heap: "256m",
		Props: []string{"compression.type=" + codec, "batch.size=1024", "linger.ms=20", "acks=all"}}
	out, err := exec.CommandContext(ctx, "java", p.Args()...).CombinedOutput()
	if err != nil {
		return fmt.Errorf("ProducerPerformance: %v\n%s", err, out)
	}
	return nil
}

// fetchBoth fetches the partition whole (one response, or as many as the broker needs) and,
// if one response held it all, once more cut inside its last batch, and writes both.
func fetchBoth(ctx context.Context, cl *kgo.Client, topic string, c capture, n int, hw int64, out string) ([]File, error) {
	whole, f, err := fetchLog(ctx, cl, topic, hw)
	if err != nil {
		return nil, err
	}
	f.Name, f.Holds, f.Codec, f.Produced = "kafka-"+c.name+".bin", c.holds, c.codec, n
	if f.Responses > 1 {
		f.Holds += fmt.Sprintf("; the broker answered in %d responses (from offsets 0 and after each), concatenated here", f.Responses)
	}
	if err := os.WriteFile(filepath.Join(out, f.Name), whole, 0o644); err != nil {
		return nil, err
	}
	if f.Responses > 1 {
		fmt.Fprintf(os.Stderr, "capturebatches: %s: %d responses, so no cut fetch (its first batch would come whole)\n", topic, f.Responses)
		return []File{f}, nil
	}
	cut, g, err := fetchCut(ctx, cl, topic, whole)
	if err != nil {
		return nil, err
	}
	g.Name, g.Holds, g.Codec, g.Produced, g.Truncated, g.Responses = "kafka-"+c.name+"-cut.bin", c.holds+"; the fetch cut inside the last batch", c.codec, n, true, 1
	return []File{f, g}, os.WriteFile(filepath.Join(out, g.Name), cut, 0o644)
}

// fetchLog fetches the partition from offset 0 to hw, in as many responses as the broker
// needs, and returns their bytes concatenated.
func fetchLog(ctx context.Context, cl *kgo.Client, topic string, hw int64) ([]byte, File, error) {
	var all []byte
	var f File
	for next := int64(0); next < hw; {
		b, g, err := fetch(ctx, cl, topic, next, 1<<20, 1)
		if err != nil {
			return nil, f, err
		}
		ends := batchEnds(b)
		if len(ends) == 0 {
			return nil, f, fmt.Errorf("a fetch from offset %d returned no whole batch", next)
		}
		next = lastOffset(b, ends) + 1
		all = append(all, b...)
		if f.Responses == 0 {
			f = g
		} else {
			f.Aborted = append(f.Aborted, g.Aborted...)
		}
		f.Responses++
	}
	f.Bytes = len(all)
	return all, f, nil
}

// lastOffset returns the last offset of the last whole batch in b (its base offset plus its
// last offset delta, 23 bytes in).
func lastOffset(b []byte, ends []int) int64 {
	start := 0
	if len(ends) > 1 {
		start = ends[len(ends)-2]
	}
	return int64(binary.BigEndian.Uint64(b[start:])) + int64(int32(binary.BigEndian.Uint32(b[start+23:])))
}

// fetchCut fetches fewer than all of the partition's bytes (whole), so that they end inside a
// batch: 9 bytes short of the last batch's end, else of an earlier batch's (a broker may return
// a small last batch whole), with read_committed isolation, else read_uncommitted.
func fetchCut(ctx context.Context, cl *kgo.Client, topic string, whole []byte) ([]byte, File, error) {
	ends := batchEnds(whole)
	for i := len(ends) - 1; i >= 0; i-- {
		cutAt := int32(ends[i] - 9)
		for _, isolation := range []int8{1, 0} {
			cut, f, err := fetch(ctx, cl, topic, 0, cutAt, isolation)
			if err != nil || len(cut) < len(whole) {
				return cut, f, err
			}
			fmt.Fprintf(os.Stderr, "capturebatches: %s: a fetch of at most %d bytes with isolation level %d returned all %d\n", topic, cutAt, isolation, len(whole))
		}
	}
	return nil, File{}, fmt.Errorf("no fetch returned fewer than %d bytes (%d batches ending at %v)", len(whole), len(ends), ends)
}

// batchEnds returns where each whole batch in b ends (base offset 8 bytes, then the length of
// the rest, 4 bytes); a batch cut by the end of b is left out.
func batchEnds(b []byte) []int {
	var ends []int
	for at := 0; at+12 <= len(b); {
		at += 12 + int(binary.BigEndian.Uint32(b[at+8:]))
		if at > len(b) {
			break
		}
		ends = append(ends, at)
	}
	return ends
}

// fetch reads partition 0 of topic from offset with the given isolation level (1,
// read_committed: the broker lists the aborted transactions) and at most maxBytes of it.
func fetch(ctx context.Context, cl *kgo.Client, topic string, offset int64, maxBytes int32, isolation int8) ([]byte, File, error) {
	md, err := kadm.NewClient(cl).Metadata(ctx, topic)
	if err != nil {
		return nil, File{}, err
	}
	td := md.Topics[topic]
	leader := td.Partitions[0].Leader
	req := kmsg.NewPtrFetchRequest()
	req.ReplicaID, req.MaxWaitMillis, req.MaxBytes, req.IsolationLevel = -1, 500, maxBytes, isolation
	rt := kmsg.NewFetchRequestTopic()
	rt.Topic, rt.TopicID = topic, td.ID
	rp := kmsg.NewFetchRequestTopicPartition()
	rp.Partition, rp.FetchOffset, rp.PartitionMaxBytes, rp.LogStartOffset = 0, offset, maxBytes, -1
	rp.CurrentLeaderEpoch, rp.LastFetchedEpoch = -1, -1
	rt.Partitions = append(rt.Partitions, rp)
	req.Topics = append(req.Topics, rt)
	resp, err := req.RequestWith(ctx, cl.Broker(int(leader)))
	if err != nil {
		return nil, File{}, err
	}
	if len(resp.Topics) != 1 || len(resp.Topics[0].Partitions) != 1 {
		return nil, File{}, errors.New("the fetch response has no partition")
	}
	p := resp.Topics[0].Partitions[0]
	if p.ErrorCode != 0 {
		return nil, File{}, fmt.Errorf("fetch error code %d", p.ErrorCode)
	}
	f := File{FetchVersion: resp.Version, IsolationLevel: isolation, HighWatermark: p.HighWatermark, LastStable: p.LastStableOffset,
		Bytes: len(p.RecordBatches), PartitionMaxBytes: maxBytes, Aborted: []Aborted{}}
	for _, a := range p.AbortedTransactions {
		f.Aborted = append(f.Aborted, Aborted{a.ProducerID, a.FirstOffset})
	}
	return p.RecordBatches, f, nil
}
