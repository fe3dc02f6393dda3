package loadgen

import (
	"context"
	"errors"
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

// BenchmarkLeanRecord is the lean path's per-message work in plimsoll run around package
// produce: take the pooled records, stamp and fill them (payload, key, topic, schedule
// delay), then leanDone for them as one acknowledged batch (publish and ack-wait histograms,
// counts). Produce itself is BenchmarkProduce. It must not allocate.
func BenchmarkLeanRecord(b *testing.B) {
	p := testProducer(b, chunkMax)
	p.lean = &leanSink{}
	ctx := context.Background()
	clk := p.run.clock.(*fakeClock)
	tags := make([]produce.Tag, 0, chunkMax)
	var next uint64
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i += chunkMax {
		clk.now += chunkMax * 1_000_000
		p.take(ctx, chunkMax)
		p.fill(next, chunkMax, clk.now, true)
		tags = tags[:0]
		for j := range chunkMax {
			rc := p.local[len(p.local)-1-j].Context.(*recCtx)
			tags = append(tags, produce.Tag{Seq: next + uint64(j), A: rc.intended, B: rc.sent})
		}
		next += chunkMax
		clk.now += 2_000_000
		p.leanDone(tags, nil)
	}
}

// TestLeanDoneAccounts: an acknowledged batch that spans the window's start counts each record
// in its own phase, its publish latency from its intended time and its ack wait from its send
// call (runs of one value counted alike), and allocates nothing; a failed one counts its
// records failed and keeps their sequences off the ledger's lost.
func TestLeanDoneAccounts(t *testing.T) {
	p := testProducer(t, chunkMax) // the window starts at 1 ms
	p.lean = &leanSink{}
	clk := p.run.clock.(*fakeClock)
	clk.now = 5_000_000
	tags := []produce.Tag{
		{Seq: 0, A: 900_000, B: 1_000_000},   // warm-up
		{Seq: 1, A: 1_000_000, B: 1_000_000}, // measured from here
		{Seq: 2, A: 1_010_000, B: 1_000_000},
		{Seq: 3, A: 1_020_000, B: 2_000_000},
	}
	p.lean.held.Add(int64(len(tags)))
	p.leanDone(tags, nil)
	if p.acked != [2]int64{1, 3} || p.ackedAll.Load() != 4 || p.lean.held.Load() != 0 {
		t.Fatalf("acked %v, all %d, held %d: want [1 3], 4, 0", p.acked, p.ackedAll.Load(), p.lean.held.Load())
	}
	pub, wait := p.pub[phaseMeasured], p.ackWait[phaseMeasured]
	if pub.Count() != 3 || wait.Count() != 3 || p.pub[phaseExcluded].Count() != 1 || p.ackWait[phaseExcluded].Count() != 1 {
		t.Fatalf("histogram counts: publish %d/%d, ack wait %d/%d; want 1/3 each",
			p.pub[phaseExcluded].Count(), pub.Count(), p.ackWait[phaseExcluded].Count(), wait.Count())
	}
	p10 := wait.QuantileMicros(0.1)
	if pub.MaxNs() != 4_000_000 || wait.MaxNs() != 4_000_000 || wait.QuantileMicros(0.5) != 4000 || p10 != 3000 && p10 != 3001 {
		t.Errorf("publish max %d, ack wait max %d p50 %d µs p10 %d µs: want 4 ms, 4 ms, 4000, 3000 (or 3001, its bucket)",
			pub.MaxNs(), wait.MaxNs(), wait.QuantileMicros(0.5), wait.QuantileMicros(0.1))
	}
	if n := testing.AllocsPerRun(100, func() { p.leanDone(tags, nil) }); n != 0 {
		t.Errorf("leanDone allocates %.1f times per batch; want none", n)
	}
	p.leanDone([]produce.Tag{{Seq: 7, A: 2_000_000}}, errors.New("refused"))
	if p.failed != [2]int64{0, 1} || !p.unacked.Has(7) {
		t.Errorf("failed %v, seq 7 unacked %v: want [0 1], true", p.failed, p.unacked.Has(7))
	}
}
