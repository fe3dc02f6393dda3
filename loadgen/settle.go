package loadgen

import (
	"bytes"
	"context"
	"fmt"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"
)

// settleValue is the value of the records a run writes before its load. It is shorter than a
// stamp, so DecodeStamp rejects it, and consumers recognise it and skip it without counting
// it anywhere; reading it still moves its partition's read position (ledger.Group.Skip).
var settleValue = []byte("plimsoll-settle")

// isSettle reports whether a record value is a settling record.
func isSettle(v []byte) bool { return bytes.Equal(v, settleValue) }

// settleTimeout bounds the settling step; past it the run goes on and says so in its notes.
const settleTimeout = 20 * time.Second

// settle writes one record to every partition of the run's topics with acks=all and waits for
// all of them. A fresh topic acknowledges its first records late (measured on a loopback
// cluster at 10,000 msgs/s: publish p99 0.75-0.93 s in the first second and up to 1.25 s in the
// second; on freshly started brokers, nothing acknowledged in the first second). Settling pays
// that before the schedule starts, so a short warm-up does not carry it into the window. It
// never fails the run: partitions that do not settle within settleTimeout are reported in the
// returned note.
func (r *runner) settle(ctx context.Context) (time.Duration, string) {
	start := time.Now()
	o := append(append([]kgo.Opt{}, r.base...),
		kgo.RequiredAcks(kgo.AllISRAcks()), kgo.DisableIdempotentWrite(),
		kgo.RecordPartitioner(kgo.ManualPartitioner()), kgo.ProducerLinger(0),
		kgo.ClientID(fmt.Sprintf("plimsoll-%s-settle", r.opts.RunID)))
	cl, err := kgo.NewClient(o...)
	if err != nil {
		return time.Since(start), "settling skipped: " + err.Error()
	}
	defer cl.Close()
	recs := make([]*kgo.Record, 0, len(r.topics)*r.partitions)
	for _, t := range r.topics {
		for p := range r.partitions {
			recs = append(recs, &kgo.Record{Topic: t, Partition: int32(p), Value: settleValue})
		}
	}
	sctx, cancel := context.WithTimeout(ctx, settleTimeout)
	defer cancel()
	var failed int
	var first error
	for _, res := range cl.ProduceSync(sctx, recs...) {
		if res.Err != nil {
			failed++
			if first == nil {
				first = res.Err
			}
		}
	}
	took := time.Since(start)
	if failed > 0 {
		return took, fmt.Sprintf("settling: %d of %d partitions did not acknowledge a first record with acks=all within %s (%v); the first seconds of the warm-up may carry a fresh topic's start-up delay",
			failed, len(recs), settleTimeout, first)
	}
	return took, ""
}
