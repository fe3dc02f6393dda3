package recbatch

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/plimsoll/plimsoll/internal/golden"
)

// capture is a captured directory's manifest.json, as tools/capturebatches writes it.
type capture struct {
	KafkaVersion string `json:"kafka_version"`
	Files        []struct {
		Name      string `json:"name"`
		Codec     string `json:"codec"`
		Produced  int    `json:"records_produced"`
		Truncated bool   `json:"truncated_tail"`
		Aborted   []struct {
			ProducerID  int64 `json:"producer_id"`
			FirstOffset int64 `json:"first_offset"`
		} `json:"aborted_transactions"`
	} `json:"files"`
}

// captures reads every testdata/kafka-*/manifest.json.
func captures(t *testing.T) map[string]capture {
	dirs, _ := filepath.Glob("testdata/kafka-*")
	out := map[string]capture{}
	for _, d := range dirs {
		b, err := os.ReadFile(filepath.Join(d, "manifest.json"))
		if err != nil {
			t.Fatal(err)
		}
		var c capture
		if err := json.Unmarshal(b, &c); err != nil {
			t.Fatalf("%s: %v", d, err)
		}
		out[d] = c
	}
	if len(out) < 2 {
		t.Fatalf("%d captured Kafka versions in testdata, want 3.9 and 4.1 (tools/capturebatches)", len(out))
	}
	return out
}

// TestCapturedFromKafka parses the partitions real brokers sent (tools/capturebatches): each
// as its manifest describes it (codec, records, a cut tail, aborted transactions), the same
// records as franz-go, and batch by batch as the golden file beside it.
func TestCapturedFromKafka(t *testing.T) {
	for dir, c := range captures(t) {
		for _, f := range c.Files {
			t.Run(c.KafkaVersion+"/"+f.Name, func(t *testing.T) {
				b, err := os.ReadFile(filepath.Join(dir, f.Name))
				if err != nil {
					t.Fatal(err)
				}
				var aborted []AbortedTxn
				for _, a := range f.Aborted {
					aborted = append(aborted, AbortedTxn{a.ProducerID, a.FirstOffset})
				}
				var p Parser
				g := parseAll(&p, b)
				if g.err != nil || g.tail != f.Truncated {
					t.Fatalf("err %v, tail %v; the manifest says truncated %v", g.err, g.tail, f.Truncated)
				}
				checkCaptured(t, &p, b, g, f.Codec, f.Produced, f.Truncated, aborted)
				crossCheck(t, b, aborted)
				golden.Check(t, filepath.Join(dir, strings.TrimSuffix(f.Name, ".bin")+".txt"), []byte(describe(g)))
			})
		}
	}
}

// checkCaptured checks a whole capture's record count, codecs and, with aborted
// transactions, what read_committed keeps (the producer's transactions committed, aborted,
// committed: two thirds of its records).
func checkCaptured(t *testing.T, p *Parser, b []byte, g got, codec string, produced int, cut bool, aborted []AbortedTxn) {
	t.Helper()
	data := 0
	for _, r := range g.recs {
		if !g.batches[r.batch].Control() {
			data++
		}
	}
	for _, batch := range g.batches {
		if c := batch.Codec().String(); c != codec && !batch.Control() {
			t.Errorf("batch at %d: codec %s, the manifest says %s", batch.BaseOffset, c, codec)
		}
	}
	if !cut && data != produced || cut && data >= produced {
		t.Errorf("%d data records, %d produced (cut %v)", data, produced, cut)
	}
	if len(aborted) > 0 {
		kept, err := viaParser(p, b, aborted, true)
		if err != nil || len(kept) != produced*2/3 {
			t.Errorf("read_committed kept %d records, want %d; err %v", len(kept), produced*2/3, err)
		}
	}
}

// describe renders a parse, batch by batch and record by record, for a golden file.
func describe(g got) string {
	var s strings.Builder
	for i, b := range g.batches {
		fmt.Fprintf(&s, "batch offset %d size %d epoch %d codec %s attrs %#04x transactional %v control %v last-delta %d base-ts %d max-ts %d producer %d/%d seq %d records %d crc %08x\n",
			b.BaseOffset, b.Size(), b.PartitionLeaderEpoch, b.Codec(), b.Attributes, b.Transactional(), b.Control(), b.LastOffsetDelta,
			b.BaseTimestamp, b.MaxTimestamp, b.ProducerID, b.ProducerEpoch, b.BaseSequence, b.NumRecords, b.CRC)
		for _, r := range g.recs {
			if r.batch == i {
				fmt.Fprintf(&s, "  %d ts %d key %s value %s headers %q\n", r.r.Offset, r.r.Timestamp, short(r.r.Key), short(r.r.Value), r.headers)
			}
		}
	}
	fmt.Fprintf(&s, "consumed %d bytes, incomplete tail %v, err %v\n", g.used, g.tail, g.err)
	return s.String()
}

// short quotes the start of b, or says null.
func short(b []byte) string {
	if b == nil {
		return "null"
	}
	if len(b) > 24 {
		return fmt.Sprintf("%q...(%d bytes)", b[:24], len(b))
	}
	return fmt.Sprintf("%q", b)
}
