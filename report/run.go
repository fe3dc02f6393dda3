package report

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/plimsoll/plimsoll/loadgen"
	"github.com/plimsoll/plimsoll/results"
	"github.com/plimsoll/plimsoll/units"
)

// RunSummary writes the end-of-run summary of one trial for a terminal: rates, counts, the
// fixed-column latency table (p50 p90 p99 p99.9 max), plimsoll's own cost, the USE table and
// the verdict.
func RunSummary(w io.Writer, t *results.Trial) error {
	var b strings.Builder
	runHeader(&b, t)
	runCounts(&b, t)
	runLatency(&b, t.Latency)
	cs := t.Client
	fmt.Fprintf(&b, "\nplimsoll itself: %.2f CPU s (%.0f%% of the host), %.2f CPU s per million messages, buffer full %.0f%% of the time\n",
		cs.CPUSeconds, 100*cs.CPUShare, cs.CPUPerMillion, 100*cs.BufferFullShare)
	if t.Cluster.Local {
		b.WriteString("note: the cluster runs on this host, so these figures measure the host shared by brokers and plimsoll, not a production cluster\n")
	}
	if t.USE != nil {
		b.WriteString("\n")
		b.WriteString(USEText(*t.USE))
	}
	runFaults(&b, t)
	runVerdict(&b, t)
	_, err := io.WriteString(w, b.String())
	return err
}

func runHeader(b *strings.Builder, t *results.Trial) {
	target := "as fast as possible"
	if t.TargetMsgsPerSec > 0 {
		target = fmt.Sprintf("%.0f msgs/s", t.TargetMsgsPerSec)
	}
	fmt.Fprintf(b, "run %s: %s on Kafka %s (%s)\n", t.RunID, t.Config.Spec.String(), t.KafkaVersion, clusterKind(t.Cluster))
	fmt.Fprintf(b, "window %.0f s after %.0f s warm-up; target %s\n\n", t.Window.MeasuredSeconds, t.Window.WarmupSeconds, target)
}

func runCounts(b *strings.Builder, t *results.Trial) {
	tw := tabwriter.NewWriter(b, 0, 4, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(tw, "\tmsgs/s\tbytes/s\t\n")
	fmt.Fprintf(tw, "produced\t%.0f\t%s\t\n", t.ProducedMsgsPerSec, units.FormatRate(t.ProducedBytesPerSec))
	fmt.Fprintf(tw, "consumed\t%.0f\t%s\t\n", t.ConsumedMsgsPerSec, units.FormatRate(t.ConsumedBytesPerSec))
	tw.Flush()
	c := t.Counts
	fmt.Fprintf(b, "\nmessages: sent %d  acked %d  failed %d  in flight at the end %d  unsent %d  consumed %d  lost %d  duplicated %d  out of order %d  unconsumed %d\n\n",
		c.Sent, c.Acked, c.Failed, c.InFlightAtEnd, c.Unsent, c.Consumed, c.Lost, c.Duplicated, c.OutOfOrder, c.Unconsumed)
}

func runLatency(b *strings.Builder, l loadgen.Latency) {
	fmt.Fprintf(b, "%-16s %9s %9s %9s %9s %9s %10s\n", "latency (ms)", "p50", "p90", "p99", "p99.9", "max", "count")
	for _, row := range []struct {
		name string
		p    loadgen.Percentiles
	}{{"publish", l.Publish}, {"end-to-end", l.EndToEnd}, {"schedule delay", l.ScheduleDelay}} {
		fmt.Fprintf(b, "%-16s %9.2f %9.2f %9.2f %9.2f %9.2f %10d", row.name, row.p.P50, row.p.P90, row.p.P99, row.p.P999, row.p.Max, row.p.Count)
		if row.p.Overflow > 0 {
			fmt.Fprintf(b, "  (%d above 1 h, counted)", row.p.Overflow)
		}
		b.WriteByte('\n')
	}
}

func runVerdict(b *strings.Builder, t *results.Trial) {
	v := t.Verdict
	fmt.Fprintf(b, "\nverdict: %s\n", strings.ToUpper(string(v.State)))
	for _, reason := range v.Reasons {
		fmt.Fprintf(b, "  - %s: %s\n", reason.Criterion, reason.Text)
	}
	if v.Bottleneck != "" {
		fmt.Fprintf(b, "  bottleneck: %s\n", v.Bottleneck)
	}
	for _, s := range v.Skipped {
		fmt.Fprintf(b, "  not checked: %s\n", s)
	}
	for _, n := range t.Notes {
		fmt.Fprintf(b, "note: %s\n", n)
	}
}

func clusterKind(c results.Cluster) string {
	switch {
	case c.Local && c.NICBytesPerSec > 0:
		return "local cluster, emulated NICs of " + units.FormatBits(c.NICBytesPerSec)
	case c.Local:
		return "local cluster on loopback"
	}
	return "remote cluster " + strings.Join(c.Bootstrap, ",")
}

// ProgressLine renders one live progress line for a second of a run; total is the run's length
// in seconds (warm-up included), 0 when unknown.
func ProgressLine(s loadgen.Second, total float64) string {
	eta := ""
	if total > 0 && s.T < total {
		eta = fmt.Sprintf(" eta %3.0fs", total-s.T)
	}
	target := "max"
	if s.TargetMsgsPerSec > 0 {
		target = fmt.Sprintf("%.0f", s.TargetMsgsPerSec)
	}
	return fmt.Sprintf("%5.0fs%s %-7s target %s  produced %.0f msgs/s %s  consumed %.0f msgs/s  p99 publish %.1f ms  e2e %.1f ms  errors %d",
		s.T, eta, s.Phase, target, s.ProducedMsgsPerSec, units.FormatRate(s.ProducedBytesPerSec), s.ConsumedMsgsPerSec,
		s.Publish.P99, s.EndToEnd.P99, s.Errors)
}
