package trial

import (
	"context"
	"fmt"
	"github.com/plimsoll/plimsoll/units"
	"io"
	"time"

	"github.com/plimsoll/plimsoll/loadgen"
	"github.com/plimsoll/plimsoll/probe"
	"github.com/plimsoll/plimsoll/verdict"
	"github.com/plimsoll/plimsoll/workload"
)

// DefaultWarmJIT is how long a freshly started local cluster is driven before anything is
// measured on it. Measured on this project's 2-core host (docs/warmup.md): three fresh brokers
// under 10,000 msgs/s of 100 B spent 0.25-0.31 s per second each in their JIT compilers over the
// first 12 s run, 0.13-0.25 over the second and 0.06-0.09 by the fifth; the first second of the
// first run acknowledged 2,357 msgs/s at p99 0.9 s, the first second of the second 8,276 at
// p99 155 ms.
const DefaultWarmJIT = 30 * time.Second

// warmRate is the warm-up's rate on unshaped brokers; warmLinkShare the share of an emulated
// link it may use (each broker of a replication-factor-3 cluster with one consumer group takes
// the whole produce rate in and sends it out again).
const (
	warmRate      = 10000
	warmSize      = 100
	warmLinkShare = 0.4
	warmFraming   = 1.15 // link bytes per record byte at 100 B (docs/model.md)
)

// Warmth is what a warm-up did and how much the brokers still compiled at its end.
type Warmth struct {
	Rate     float64       // msgs/s of warmSize bytes
	Duration time.Duration // as driven
	Protocol string        // the listener's security.protocol the load went through
	// JITStart and JITEnd are the brokers' mean JIT compile seconds per second over the
	// warm-up's first and last 5 s; missing when the brokers' metrics were not read.
	JITStart, JITEnd probe.Num
}

// String says it for people, e.g. "30 s at 6,957 msgs/s of 100 B through PLAINTEXT: each
// broker's JIT compiling 1.03 s/s in the first 5 s, 0.35 in the last". Compile time is summed
// over a JVM's compiler threads and counts their waits for a CPU, so it can exceed 1 s/s.
func (w Warmth) String() string {
	s := fmt.Sprintf("%s at %s msgs/s of %s through %s", units.Duration(w.Duration), units.Count(w.Rate), units.Size(warmSize), w.Protocol)
	if w.JITStart.OK() && w.JITEnd.OK() {
		s += fmt.Sprintf(": each broker's JIT compiling %s s/s in the first 5 s, %s in the last", units.Short(float64(w.JITStart)), units.Short(float64(w.JITEnd)))
	}
	return s
}

// Warm drives a moderate load (one producer, one consumer group, the runner's partitions and
// replication factor) through the local cluster for d, so that its brokers' JVMs have compiled
// the code a trial runs before one is measured. The load goes through w.Target's listener: a
// broker warmed over PLAINTEXT has not compiled its TLS and SASL code. Its topics carry
// plimsoll's prefix and are deleted afterwards.
func Warm(ctx context.Context, w *Where, d time.Duration) (Warmth, error) {
	spec := warmSpec(w, d)
	res, err := Run(ctx, Config{Spec: spec, Target: w.Target, Probe: w.ProbeConfig(),
		Criteria: verdict.DefaultCriteria(), KafkaVersion: w.KafkaVersion(),
		Load: loadgen.Options{TopicPrefix: "plimsoll-warmup-" + NewRunID() + "-"}})
	if err != nil {
		return Warmth{}, fmt.Errorf("warming the brokers up: %w", err)
	}
	defer res.Close()
	out := Warmth{Rate: spec.Rate, Duration: d, Protocol: w.Target.Protocol(), JITStart: probe.Missing, JITEnd: probe.Missing}
	if res.Series != nil {
		out.JITStart, out.JITEnd = jitAt(res.Series, 0), jitAt(res.Series, res.Series.Len()-5)
	}
	return out, nil
}

// warmSpec is the warm-up's workload on w: 100 B messages at warmRate, or at warmLinkShare of
// an emulated link.
func warmSpec(w *Where, d time.Duration) workload.Spec {
	s := workload.Default()
	s.MessageSize, s.Rate, s.Warmup, s.Duration = warmSize, warmRate, 0, d
	if w.NIC > 0 {
		s.Rate = min(s.Rate, warmLinkShare*w.NIC/(warmSize*warmFraming))
	}
	return s
}

// jitAt is the brokers' mean JIT compile rate over the 5 samples from i (clamped to the series).
func jitAt(s *probe.Series, i int) probe.Num {
	i = max(0, min(i, s.Len()-5))
	sum, n, k := 0.0, 0, 0
	for x := range s.All() {
		if k >= i+5 {
			break
		}
		for _, b := range x.Brokers {
			if k >= i && b != nil && b.JIT.OK() {
				sum += float64(b.JIT)
				n++
			}
		}
		k++
	}
	if n == 0 {
		return probe.Missing
	}
	return probe.Num(sum / float64(n))
}

// WarmLocal warms the local cluster w for d (nothing when d is 0) and says what it did on log.
func WarmLocal(ctx context.Context, w *Where, d time.Duration, log io.Writer) error {
	if d <= 0 {
		return nil
	}
	fmt.Fprintf(log, "warming the brokers' JVMs for %s (no measurement before their JIT compilers have done the most)\n", d)
	warmth, err := Warm(ctx, w, d)
	if err != nil {
		return err
	}
	fmt.Fprintf(log, "warmed: %s\n", warmth)
	return nil
}
