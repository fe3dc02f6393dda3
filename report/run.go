package report

import (
	"cmp"
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

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
	fmt.Fprintf(&b, "\nplimsoll itself: %s CPU s (%s of the host), %s CPU s per million messages, buffer full %s of the time\n",
		units.Sig(cs.CPUSeconds, 3), units.Pct(cs.CPUShare), units.Sig(cs.CPUPerMillion, 3), units.Pct(cs.BufferFullShare))
	if t.Cluster.Local {
		b.WriteString("note: the cluster runs on this host, so these figures measure the host shared by brokers and plimsoll, not a production cluster\n")
	}
	runWorkers(&b, t.Workers)
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
		target = units.Count(t.TargetMsgsPerSec) + " msgs/s"
	}
	fmt.Fprintf(b, "run %s: %s on Kafka %s (%s)\n", t.RunID, t.Config.Spec.String(), t.KafkaVersion, clusterKind(t.Cluster))
	fmt.Fprintf(b, "window %s after %s warm-up; target %s\n\n", seconds(t.Window.MeasuredSeconds), seconds(t.Window.WarmupSeconds), target)
}

func runCounts(b *strings.Builder, t *results.Trial) {
	tw := tabwriter.NewWriter(b, 0, 4, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(tw, "\tmsgs/s\tbytes/s\t\n")
	fmt.Fprintf(tw, "produced\t%s\t%s\t\n", units.Count(t.ProducedMsgsPerSec), units.FormatRate(t.ProducedBytesPerSec))
	fmt.Fprintf(tw, "consumed\t%s\t%s\t\n", units.Count(t.ConsumedMsgsPerSec), units.FormatRate(t.ConsumedBytesPerSec))
	tw.Flush()
	c := t.Counts
	fmt.Fprintf(b, "\nmessages: sent %s  acked %s  failed %s  in flight at the end %s  unsent %s  consumed %s  lost %s  duplicated %s  out of order %s  unconsumed %s\n\n",
		n(c.Sent), n(c.Acked), n(c.Failed), n(c.InFlightAtEnd), n(c.Unsent), n(c.Consumed), n(c.Lost), n(c.Duplicated), n(c.OutOfOrder), n(c.Unconsumed))
}

func runLatency(b *strings.Builder, l loadgen.Latency) {
	fmt.Fprintf(b, "%-16s %9s %9s %9s %9s %9s %10s\n", "latency (ms)", "p50", "p90", "p99", "p99.9", "max", "count")
	for _, row := range []struct {
		name string
		p    loadgen.Percentiles
	}{{"publish", l.Publish}, {"end-to-end", l.EndToEnd}, {"schedule delay", l.ScheduleDelay}} {
		fmt.Fprintf(b, "%-16s %9s %9s %9s %9s %9s %10s", row.name, units.Ms(row.p.P50), units.Ms(row.p.P90), units.Ms(row.p.P99),
			units.Ms(row.p.P999), units.Ms(row.p.Max), n(row.p.Count))
		if row.p.Overflow > 0 {
			fmt.Fprintf(b, "  (%s above 1 h, counted)", n(row.p.Overflow))
		}
		b.WriteByte('\n')
	}
}

// runWorkers writes, for a run spread over workers, each worker's use of its host over the
// window (the figures the verdict's client-bound criteria judge) and where it ran; "-" for a
// figure it did not measure. "plimsoll itself" above is then the coordinator.
func runWorkers(b *strings.Builder, ws []loadgen.WorkerProcess) {
	if len(ws) == 0 {
		return
	}
	fig := func(v *float64, scale float64) string {
		if v == nil {
			return "-"
		}
		return units.Sig(*v*scale, 3)
	}
	b.WriteString("\nthe workers (the load's generators; the line above is the coordinator's):\n")
	tw := tabwriter.NewWriter(b, 0, 4, 2, ' ', 0)
	fmt.Fprintf(tw, "worker\tCPU cores\tof\trun-queue wait s/s\tGo scheduler p99 ms\thost\tboot id\n")
	for _, w := range ws {
		fmt.Fprintf(tw, "%d\t%s\t%d\t%s\t%s\t%s\t%s\n", w.Worker, fig(w.CPU, 1), w.Usable(), fig(w.RunQueueWait, 1), fig(w.SchedLatencyP99, 1000),
			cmp.Or(w.Host, "-"), cmp.Or(w.BootID, "-"))
	}
	tw.Flush()
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

// n formats a count of messages, thousands grouped.
func n[T ~int | ~int64](v T) string { return units.Group(strconv.FormatInt(int64(v), 10)) }

// seconds formats a window's length given in seconds.
func seconds(s float64) string { return units.Duration(time.Duration(s * float64(time.Second))) }

// ProgressLine renders one live progress line for a second of a run; total is the run's length
// in seconds (warm-up included), 0 when unknown.
func ProgressLine(s loadgen.Second, total float64) string {
	eta := ""
	if total > 0 && s.T < total {
		eta = " eta " + units.Duration(time.Duration((total-s.T)*float64(time.Second)))
	}
	target := "max"
	if s.TargetMsgsPerSec > 0 {
		target = units.Count(s.TargetMsgsPerSec)
	}
	return fmt.Sprintf("%s%s %-7s target %s  produced %s msgs/s %s  consumed %s msgs/s  p99 publish %s ms  e2e %s ms  errors %d",
		units.Duration(time.Duration(s.T*float64(time.Second))), eta, s.Phase, target, units.Count(s.ProducedMsgsPerSec),
		units.FormatRate(s.ProducedBytesPerSec), units.Count(s.ConsumedMsgsPerSec), units.Ms(s.Publish.P99), units.Ms(s.EndToEnd.P99), s.Errors)
}
