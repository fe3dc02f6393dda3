package report

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/plimsoll/plimsoll/units"
	"github.com/plimsoll/plimsoll/watch"
)

// watchResources are the headroom table's columns, in the USE table's order.
var watchResources = []string{"cpu", "network in", "network out", "disk", "request handlers"}

// ceilingFlags names the flag that sets each ceiling.
var ceilingFlags = map[string]string{
	"host_busy": "--host-busy", "min_handler_idle": "--min-handler-idle", "nic": "--nic", "disk_write": "--disk-write",
}

// WatchText writes one interval of `plimsoll watch`: its USE table, each broker's traffic and
// headroom, the model's view of the traffic, and the busiest broker with why.
func WatchText(w io.Writer, iv watch.Interval) error {
	fmt.Fprintf(w, "=== interval %d: %s (%s, %s)%s\n", iv.Seq, watchSpan(iv), units.Sig(iv.Seconds, 3)+" s",
		units.Plural(iv.Samples, "sample"), finalText(iv.Final))
	if iv.Samples == 0 {
		_, err := fmt.Fprintln(w, "no samples arrived in this interval: the probe observed nothing (is the cluster answering?)")
		return err
	}
	fmt.Fprint(w, USEText(iv.USE))
	fmt.Fprintln(w)
	watchBrokers(w, iv.Brokers)
	fmt.Fprintln(w)
	watchModel(w, iv)
	if line := busiestText(iv.Busiest); line != "" {
		fmt.Fprintln(w, line)
	}
	_, err := fmt.Fprintln(w)
	return err
}

// WatchJSON writes one interval as one line of JSON.
func WatchJSON(w io.Writer, iv watch.Interval) error {
	return json.NewEncoder(w).Encode(iv)
}

func watchSpan(iv watch.Interval) string {
	if iv.Samples == 0 {
		return "no samples"
	}
	return iv.From.UTC().Format(time.TimeOnly) + " to " + iv.To.UTC().Format(time.TimeOnly) + " UTC"
}

func finalText(final bool) string {
	if final {
		return ", the last"
	}
	return ""
}

// watchBrokers is the traffic and headroom table: Kafka's record bytes and each judged
// resource's mean utilisation against its ceiling.
func watchBrokers(w io.Writer, bs []watch.Broker) {
	fmt.Fprintln(w, "traffic (Kafka's BrokerTopicMetrics) and headroom (mean utilisation / ceiling)")
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "broker\tproduce in\treplication in\treplication out\tconsume out\tproduce share\t"+strings.Join(watchResources, "\t"))
	for _, b := range bs {
		cells := []string{fmt.Sprint(b.ID), "-", "-", "-", "-", "-"}
		if b.Samples > 0 {
			cells = []string{fmt.Sprint(b.ID), units.FormatRate(b.BytesIn), units.FormatRate(b.ReplicationBytesIn),
				units.FormatRate(b.ReplicationBytesOut), units.FormatRate(b.BytesOut), units.Percent(b.ProduceShare)}
		}
		for _, r := range watchResources {
			cells = append(cells, headroomCell(b.Headroom, r))
		}
		fmt.Fprintln(tw, strings.Join(cells, "\t"))
	}
	tw.Flush()
}

func headroomCell(hs []watch.Headroom, resource string) string {
	for _, h := range hs {
		if h.Resource == resource {
			return units.Percent(h.Utilisation/100) + " / " + units.Percent(h.Ceiling/100)
		}
	}
	return "-"
}

// watchModel is the model's view: its table against the measured traffic and who carries more
// than its share.
func watchModel(w io.Writer, iv watch.Interval) {
	m := iv.Model
	if m == nil {
		fmt.Fprintf(w, "model: not compared (%s)\n", iv.ModelNote)
		return
	}
	fmt.Fprintf(w, "model vs measured: %d brokers, replication factor %d, %s (both inferred from the traffic), %s produced\n",
		m.Brokers, m.ReplicationFactor, units.Plural(m.ConsumerGroups, "consumer group"), units.FormatRate(m.ProduceBytesPerSec))
	againstTable(w, m.PerBroker)
	fmt.Fprintln(w, overText(m))
}

// overText says which broker carries more than its share, and why.
func overText(m *watch.ModelView) string {
	o := m.Over
	if o == nil {
		return fmt.Sprintf("no broker carries more than %s above the model's balanced figure (largest difference either way %s)",
			units.Percent(watch.OverShare), units.Percent(m.MaxError))
	}
	s := fmt.Sprintf("broker %d carries %s more network %s than the balanced share the model assumes; it leads %s of the produce traffic (%s each with balanced leaders)",
		o.Broker, units.Percent(o.Error), o.Direction, units.Percent(o.ProduceShare), units.Percent(o.BalancedShare))
	if o.LeaderSkew {
		return s + ": leader skew, its leader share explains it (error " + signedPercent(o.CorrectedError) + " with it)"
	}
	return s + "; its leader share does not explain it (error " + signedPercent(o.CorrectedError) + " with it): other traffic, e.g. replication of unevenly placed followers"
}

func signedPercent(f float64) string {
	if f >= 0 {
		return "+" + units.Percent(f)
	}
	return units.Percent(f)
}

// busiestText names the busiest broker and why.
func busiestText(b *watch.Busiest) string {
	if b == nil {
		return ""
	}
	share := fmt.Sprintf("it leads %s of the produce traffic (%s balanced), %s of record bytes in and out",
		units.Percent(b.ProduceShare), units.Percent(b.BalancedShare), units.FormatRate(b.BytesPerSec))
	if b.ByTraffic {
		return fmt.Sprintf("busiest: broker %d by traffic (no ceiling known: give --nic, --disk-write); %s", b.Broker, share)
	}
	h := b.Headroom
	return fmt.Sprintf("busiest: broker %d, %s at %s (%s) against a ceiling of %s (%s), %s points of headroom; %s",
		b.Broker, h.Resource, units.Percent(h.Utilisation/100), h.Metric, units.Percent(h.Ceiling/100), ceilingFlags[h.CeilingFrom],
		units.Sig(h.Headroom, 3), share)
}
