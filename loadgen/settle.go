package loadgen

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
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

// settle writes one record to every partition of the run's topics (of its share) with acks=all and waits for
// all of them. A fresh topic acknowledges its first records late (measured on a loopback
// cluster at 10,000 msgs/s: publish p99 0.75-0.93 s in the first second and up to 1.25 s in the
// second; on freshly started brokers, nothing acknowledged in the first second). Settling pays
// that before the schedule starts, so a short warm-up does not carry it into the window. It
// fails the run only when the cluster refuses the writes (ErrNotAuthorized: an ACL); partitions
// that do not settle within settleTimeout for any other reason are reported in the returned note.
func (r *runner) settle(ctx context.Context) (time.Duration, string, error) {
	start := time.Now()
	o := append(append([]kgo.Opt{}, r.base...),
		kgo.RequiredAcks(kgo.AllISRAcks()), kgo.DisableIdempotentWrite(),
		kgo.RecordPartitioner(kgo.ManualPartitioner()), kgo.ProducerLinger(0),
		kgo.ClientID(fmt.Sprintf("plimsoll-%s-settle", r.opts.RunID)))
	cl, err := kgo.NewClient(o...)
	if err != nil {
		return time.Since(start), "settling skipped: " + err.Error(), nil
	}
	defer cl.Close()
	recs := make([]*kgo.Record, 0, len(r.topics)*r.share.Partitions.Len())
	for _, t := range r.topics {
		for p := r.share.Partitions.Lo; p < r.share.Partitions.Hi; p++ {
			recs = append(recs, &kgo.Record{Topic: t, Partition: int32(p), Value: settleValue})
		}
	}
	sctx, cancel := context.WithTimeout(ctx, settleTimeout)
	defer cancel()
	var failed int
	var first error
	for _, res := range cl.ProduceSync(sctx, recs...) {
		if denied(res.Err) {
			return time.Since(start), "", &DeniedError{Op: "Write", Err: fmt.Errorf("writing to %s: the cluster answered %w", res.Record.Topic, res.Err)}
		}
		if res.Err != nil {
			failed++
			if first == nil {
				first = res.Err
			}
		}
	}
	took := time.Since(start)
	if failed > 0 {
		note := fmt.Sprintf("settling: %d of %d partitions did not acknowledge a first record with acks=all within %s (%v); the first seconds of the warm-up may carry a fresh topic's start-up delay",
			failed, len(recs), settleTimeout, first)
		if silent := silentBrokers(ctx, r.cl); len(silent) > 0 {
			note += fmt.Sprintf("; %s did not answer within %s (paused, hung or overloaded)", silentText(silent), silentWait)
			for _, b := range silent {
				r.silent = append(r.silent, b.NodeID)
			}
		}
		return took, note, nil
	}
	return took, "", nil
}

// ErrNotAuthorized: the cluster refused one of the run's requests for want of an ACL.
var ErrNotAuthorized = errors.New("not authorized")

// DeniedError is a request of the run the cluster refused for want of an ACL: Op is the Kafka
// ACL operation it needed (Create, Write).
type DeniedError struct {
	Op  string
	Err error
}

func (e *DeniedError) Error() string { return "not authorized: " + e.Err.Error() }

// Unwrap lets errors.Is find ErrNotAuthorized and Kafka's error code.
func (e *DeniedError) Unwrap() []error { return []error{ErrNotAuthorized, e.Err} }

// denied reports whether err is Kafka refusing a request for want of an ACL.
func denied(err error) bool {
	return errors.Is(err, kerr.TopicAuthorizationFailed) || errors.Is(err, kerr.ClusterAuthorizationFailed) ||
		errors.Is(err, kerr.GroupAuthorizationFailed) || errors.Is(err, kerr.TransactionalIDAuthorizationFailed)
}
