//go:build integration

package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/plimsoll/plimsoll/loadgen"
)

// TestRunCompressedConsumesAll: with the producers compressing their batches (lz4, zstd), the
// consumers, plimsoll's own fetch path decompressing into buffers it keeps, consume and account
// for every acknowledged record and record each one's end-to-end latency. The lz4 run produces
// through plimsoll's own produce path (--lean-producer), whose lz4 frames are written here, so
// the broker must take them as Kafka's own clients' (it recompresses nothing, validates every
// batch); the zstd run through franz-go's producer. Short runs on the shared cluster.
func TestRunCompressedConsumesAll(t *testing.T) {
	up(t)
	for _, codec := range []string{"lz4", "zstd"} {
		t.Run(codec, func(t *testing.T) {
			out := t.TempDir()
			args := []string{"run", "--cluster-dir", clusterDir, "--rate", "2000", "--message-size", "512",
				"--duration", "1s", "--warmup", "0s", "--producer-prop", "compression.type=" + codec,
				"--producer-prop", "acks=all", "--producer-prop", "enable.idempotence=true",
				"--topic-prefix", "plimsoll-it-compress-" + codec + "-", "--out", out, "--slo-p99", "0", "--min-achieved", "0"}
			lean := codec == "lz4"
			if lean {
				args = append(args, "--lean-producer")
			}
			stdout, stderr, code := plimsoll(t, args...)
			if code != 0 && code != ExitOverloaded && code != ExitInvalid {
				t.Fatalf("run: exit %d\n%s\n%s", code, stdout, stderr)
			}
			data, err := os.ReadFile(filepath.Join(out, "result.json"))
			if err != nil {
				t.Fatal(err)
			}
			var r loadgen.Result
			if err := json.Unmarshal(data, &r); err != nil {
				t.Fatal(err)
			}
			if got := r.Config.ClientProps.Producer.Props["compression.type"]; got != codec {
				t.Errorf("the producers ran with compression.type=%q, want %s", got, codec)
			}
			if lean && r.Client.LeanMaxInFlight < 1 {
				t.Errorf("no produce request in flight on plimsoll's own produce path: the run did not use it")
			}
			if r.Config.ConsumerFetch != loadgen.FetchPlimsoll {
				t.Errorf("the consumers fetched through %q, want plimsoll's own fetch path", r.Config.ConsumerFetch)
			}
			c := r.Counts
			if c.Acked < 1500 || c.Consumed != c.Acked || c.Lost != 0 || c.Unconsumed != 0 || c.Duplicated != 0 || c.OutOfOrder != 0 {
				t.Errorf("counts %+v: want about 2000 acknowledged, each consumed once, in order", c)
			}
			if e2e := r.Histograms.EndToEnd; e2e == nil || e2e.Count() != c.Consumed {
				t.Errorf("end-to-end latencies recorded: %v, want one for each of the %d consumed", e2e, c.Consumed)
			}
		})
	}
}
