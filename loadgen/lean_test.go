package loadgen

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/plimsoll/plimsoll/loadgen/produce"
	"github.com/plimsoll/plimsoll/workload"
)

// TestRunLeanAgainstKfake runs the small workload on plimsoll's own produce path
// (Options.LeanProducer), idempotent with acks=all and then acks=1, keyed and unkeyed: every
// message sent is acknowledged and consumed once, in order, with its latencies recorded.
func TestRunLeanAgainstKfake(t *testing.T) {
	for _, c := range []struct {
		name string
		acks string
		idem string
		keys string
	}{
		{"idempotent, keyed", "all", "true", ""},
		{"acks=1, no keys", "1", "false", "none"},
		{"idempotent, zstd", "all", "true", ""},
		{"acks=1, lz4", "1", "false", "none"},
	} {
		t.Run(c.name, func(t *testing.T) {
			tgt, _ := fakeCluster(t, 3)
			ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
			defer cancel()
			spec := smallSpec()
			spec.ProducerProps.Set("acks", c.acks)
			spec.ProducerProps.Set("enable.idempotence", c.idem)
			if _, codec, ok := strings.Cut(c.name, ", "); ok && (codec == "zstd" || codec == "lz4") {
				spec.ProducerProps.Set("compression.type", codec)
			}
			if c.keys != "" {
				k, err := workload.ParseKeyMode(c.keys)
				if err != nil {
					t.Fatal(err)
				}
				spec.Keys = k
			}
			res, err := Run(ctx, spec, tgt, Options{RunID: "kfakelean", DrainTimeout: 10 * time.Second, LeanProducer: true})
			if err != nil {
				t.Fatal(err)
			}
			n := res.Counts
			t.Logf("counts %+v; client %+v", n, res.Client)
			if n.Sent == 0 || n.Acked != n.Sent || n.Failed != 0 || n.InFlightAtEnd != 0 {
				t.Errorf("sent %d, acked %d, failed %d, in flight at the end %d: want all acknowledged", n.Sent, n.Acked, n.Failed, n.InFlightAtEnd)
			}
			if n.Lost != 0 || n.Duplicated != 0 || n.OutOfOrder != 0 || n.Consumed != 2*n.Acked {
				t.Errorf("counts %+v: want every acknowledged message consumed once by each of the 2 groups, in order", n)
			}
			if res.Latency.Publish.Count != n.Acked || res.Latency.EndToEnd.Count != n.Consumed {
				t.Errorf("latencies not recorded: publish %+v end-to-end %+v", res.Latency.Publish, res.Latency.EndToEnd)
			}
			if res.Client.LeanMaxInFlight < 1 || res.Client.WindowLimit != 5*produce.MaxSessions {
				t.Errorf("lean max in flight %d, window limit %d: want at least 1 and 5 per session (of up to produce.MaxSessions)", res.Client.LeanMaxInFlight, res.Client.WindowLimit)
			}
		})
	}
}
