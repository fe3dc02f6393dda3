package report

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/plimsoll/plimsoll/model"
	"github.com/plimsoll/plimsoll/units"
)

// row is one figure of the table: its label, value and the key of its formula.
type row struct{ label, value, key string }

// Model writes `plimsoll model`'s table for people: the busiest broker, the cluster, capacity,
// partitions and headroom, each figure with its formula when explain is set.
func Model(w io.Writer, c model.Cluster, t model.Traffic, s model.Sizing, r model.Result, explain bool) {
	fmt.Fprintln(w, describeCluster(c))
	if tr := describeTraffic(t, r); tr != "" {
		fmt.Fprintln(w, tr)
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	section := func(title string, rows []row) {
		if len(rows) == 0 {
			return
		}
		fmt.Fprintf(tw, "\n%s\n", title)
		for _, rw := range rows {
			if explain && r.Explain[rw.key] != "" {
				fmt.Fprintf(tw, "  %s\t%s\t= %s\n", rw.label, rw.value, r.Explain[rw.key])
			} else {
				fmt.Fprintf(tw, "  %s\t%s\n", rw.label, rw.value)
			}
		}
	}
	if b := r.BusiestBroker; b != nil {
		title := fmt.Sprintf("busiest broker (of %d, all up)", c.Brokers)
		if b.Leaders != nil {
			title = fmt.Sprintf("busiest broker (of %d, all up): %s, %s", c.Brokers, units.Plural(*b.Leaders, "leader"), units.Plural(*b.Followers, "follower"))
		}
		section(title, brokerRows(*b))
	}
	section("cluster", clusterRows(r.Cluster))
	section(capacityTitle(c), capacityRows(c, r))
	section("partitions", partitionRows(s, r.Partitions))
	if h := r.Headroom; h != nil {
		rows := []row{
			{"safe per broker", units.FormatRate(h.SafePerBrokerBytesPerSec), "headroom.safe_per_broker_bytes_per_sec"},
			{"safe cluster", units.FormatRate(h.SafeClusterBytesPerSec), "headroom.safe_cluster_bytes_per_sec"},
		}
		if h.SpareBytesPerSec != nil {
			rows = append(rows, row{"spare", units.FormatRate(*h.SpareBytesPerSec), "headroom.spare_bytes_per_sec"})
		}
		section(fmt.Sprintf("headroom (measured limit %s per broker, %d of %d brokers down)",
			units.FormatRate(s.BrokerLimit), c.BrokersDown, c.Brokers), rows)
	}
	tw.Flush()
	if len(r.Notes) > 0 {
		fmt.Fprintln(w, "\nnotes")
		for _, n := range r.Notes {
			fmt.Fprintf(w, "  - %s\n", n)
		}
	}
}

// brokerRows is a broker's load, each row keyed by its figure in Result.BusiestBroker.
func brokerRows(b model.BrokerLoad) []row {
	const p = "busiest_broker."
	return []row{
		{"produce in", units.FormatRate(b.ProduceInBytesPerSec), p + "produce_in_bytes_per_sec"},
		{"replication in", units.FormatRate(b.ReplicationInBytesPerSec), p + "replication_in_bytes_per_sec"},
		{"replication out", units.FormatRate(b.ReplicationOutBytesPerSec), p + "replication_out_bytes_per_sec"},
		{"consume out", units.FormatRate(b.ConsumeOutBytesPerSec), p + "consume_out_bytes_per_sec"},
		{"network in", units.Network(b.NetworkInBytesPerSec), p + "network_in_bytes_per_sec"},
		{"network out", units.Network(b.NetworkOutBytesPerSec), p + "network_out_bytes_per_sec"},
		{"disk write", units.FormatRate(b.DiskWriteBytesPerSec), p + "disk_write_bytes_per_sec"},
		{"disk read", units.FormatRate(b.DiskReadBytesPerSec), p + "disk_read_bytes_per_sec"},
	}
}

func clusterRows(cl model.ClusterLoad) []row {
	var rows []row
	add := func(label string, v *float64, format func(float64) string, key string) {
		if v != nil {
			rows = append(rows, row{label, format(*v), "cluster." + key})
		}
	}
	add("produce", cl.ProduceBytesPerSec, units.Network, "produce_bytes_per_sec")
	add("messages", cl.MessagesPerSec, func(v float64) string { return units.SI(v) + "/s" }, "messages_per_sec")
	add("network in", cl.NetworkInBytesPerSec, units.Network, "network_in_bytes_per_sec")
	add("network out", cl.NetworkOutBytesPerSec, units.Network, "network_out_bytes_per_sec")
	add("disk write", cl.DiskWriteBytesPerSec, units.FormatRate, "disk_write_bytes_per_sec")
	add("disk read", cl.DiskReadBytesPerSec, units.FormatRate, "disk_read_bytes_per_sec")
	add("wire bytes per message", cl.WireBytesPerMessage, units.FracBytes, "wire_bytes_per_message")
	add("overhead per message", cl.OverheadBytesPerMessage, units.FracBytes, "overhead_bytes_per_message")
	if cl.RecordsPerBatch != nil {
		rows = append(rows, row{"records per batch", strconv.Itoa(*cl.RecordsPerBatch), "cluster.records_per_batch"})
	}
	return rows
}

func capacityTitle(c model.Cluster) string {
	t := fmt.Sprintf("capacity (planned up to %s of each", units.Percent(c.MaxUtilization))
	if c.BrokersDown > 0 {
		t += fmt.Sprintf("; ceilings with %d of %d brokers down", c.BrokersDown, c.Brokers)
	}
	return t + ")"
}

func capacityRows(c model.Cluster, r model.Result) []row {
	if r.Bottleneck == nil {
		return nil
	}
	var rows []row
	for _, res := range model.Resources {
		name := resourceName(res)
		if u := perResource(r.Utilization, res); u != nil {
			rows = append(rows, row{name + " utilization", fmt.Sprintf("%s of %s", units.Percent(*u), units.FormatRate(c.Capacity(res))), "utilization." + string(res)})
		}
		if m := perResource(r.MaxProduceByResource, res); m != nil {
			rows = append(rows, row{name + " ceiling", units.Network(*m) + " produced", "max_produce_by_resource." + string(res)})
		}
	}
	rows = append(rows,
		row{"bottleneck", resourceName(*r.Bottleneck), "bottleneck"},
		row{"max produce", units.Network(*r.MaxProduceBytesPerSec), "max_produce_bytes_per_sec"})
	if r.MaxMessagesPerSec != nil {
		rows = append(rows, row{"max messages", units.SI(*r.MaxMessagesPerSec) + "/s", "max_messages_per_sec"})
	}
	return rows
}

func partitionRows(s model.Sizing, p model.Partitions) []row {
	var rows []row
	if p.LittlesLawMin != nil {
		rows = append(rows, row{"at least (Little's law)", strconv.Itoa(*p.LittlesLawMin), "partitions.littles_law_min"})
	}
	if p.ThroughputMin != nil {
		rows = append(rows, row{"at least (per-partition throughput)", strconv.Itoa(*p.ThroughputMin), "partitions.throughput_min"})
	}
	if p.ReplicasPerBroker != nil {
		rows = append(rows, row{"replicas on the busiest broker", strconv.Itoa(*p.ReplicasPerBroker), "partitions.replicas_per_broker"})
	}
	mapCount := s.MaxMapCount
	if mapCount == 0 {
		mapCount = model.DefaultMaxMapCount
	}
	return append(rows, row{fmt.Sprintf("at most per broker (vm.max_map_count %d)", mapCount), strconv.Itoa(p.MaxByMapCount), "partitions.max_by_map_count"})
}

func perResource(p model.PerResource, r model.Resource) *float64 {
	switch r {
	case model.NetworkIn:
		return p.NetworkIn
	case model.NetworkOut:
		return p.NetworkOut
	case model.DiskWrite:
		return p.DiskWrite
	case model.DiskRead:
		return p.DiskRead
	}
	return nil
}

func describeCluster(c model.Cluster) string {
	var parts []string
	if c.Brokers > 0 {
		parts = append(parts, units.Plural(c.Brokers, "broker"))
	}
	if c.Partitions > 0 {
		parts = append(parts, units.Plural(c.Partitions, "partition"))
	}
	if c.ReplicationFactor > 0 {
		parts = append(parts, fmt.Sprintf("replication factor %d", c.ReplicationFactor))
	}
	if c.ConsumerGroups > 0 {
		parts = append(parts, units.Plural(c.ConsumerGroups, "consumer group"))
	}
	if c.LaggingConsumerGroups > 0 {
		parts = append(parts, units.Plural(c.LaggingConsumerGroups, "lagging consumer group"))
	}
	if len(parts) == 0 {
		return "cluster: not given"
	}
	return "cluster: " + strings.Join(parts, ", ")
}

func describeTraffic(t model.Traffic, r model.Result) string {
	var parts []string
	if p := r.Cluster.ProduceBytesPerSec; p != nil {
		parts = append(parts, "produce "+units.Network(*p))
	}
	if m := r.Cluster.MessagesPerSec; m != nil {
		parts = append(parts, units.SI(*m)+" messages/s")
	}
	if t.Message != nil {
		format := t.Message.Format
		if format == "" {
			format = model.FormatV2
		}
		parts = append(parts, fmt.Sprintf("%d-byte values, record format %s", t.Message.PayloadBytes, format))
	}
	if len(parts) == 0 {
		return ""
	}
	return "traffic: " + strings.Join(parts, ", ")
}

// ModelSizing writes the answer of `plimsoll model` without --brokers: the fewest brokers per
// resource and overall, with all up and with c.BrokersDown down, then the busiest broker's load
// at those counts.
func ModelSizing(w io.Writer, c model.Cluster, t model.Traffic, f model.Fleet) {
	fmt.Fprintln(w, describeCluster(c))
	fmt.Fprintln(w, sizingTraffic(t, f))
	fmt.Fprintln(w, capacityLine(c))
	counts := []model.BrokerCount{f.AllUp}
	if f.WithBrokersDown != nil {
		counts = append(counts, *f.WithBrokersDown)
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	head := "\nbrokers needed"
	for _, bc := range counts {
		head += "\t" + downLabel(bc.BrokersDown)
	}
	fmt.Fprintln(tw, head)
	for _, r := range model.Resources {
		if _, ok := f.AllUp.ByResource[r]; !ok {
			continue
		}
		line := "  " + resourceName(r)
		for _, bc := range counts {
			line += "\t" + strconv.Itoa(bc.ByResource[r])
		}
		fmt.Fprintln(tw, line)
	}
	line := "  overall"
	for _, bc := range counts {
		line += fmt.Sprintf("\t%d (%s)", bc.Brokers, resourceName(bc.Bottleneck))
	}
	fmt.Fprintln(tw, line)
	for _, bc := range counts {
		busiestRows(tw, bc)
	}
	tw.Flush()
}

// busiestRows is the busiest broker's load at bc's count: every broker up, or the busiest
// survivor while bc.BrokersDown are down.
func busiestRows(w io.Writer, bc model.BrokerCount) {
	b := bc.Busiest
	title := fmt.Sprintf("busiest broker of %d, all up", bc.Brokers)
	if bc.BrokersDown > 0 {
		title = fmt.Sprintf("busiest broker of %d while %d %s down", bc.Brokers, bc.BrokersDown, isAre(bc.BrokersDown))
	}
	if b.Leaders != nil {
		title += fmt.Sprintf(": %s, %s", units.Plural(*b.Leaders, "leader"), units.Plural(*b.Followers, "follower"))
	}
	fmt.Fprintf(w, "\n%s\n", title)
	for _, r := range brokerRows(b) {
		fmt.Fprintf(w, "  %s\t%s\n", r.label, r.value)
	}
}

func downLabel(n int) string {
	if n == 0 {
		return "all up"
	}
	return fmt.Sprintf("%d down", n)
}

func isAre(n int) string {
	if n == 1 {
		return "is"
	}
	return "are"
}

func resourceName(r model.Resource) string { return strings.ReplaceAll(string(r), "_", " ") }

func sizingTraffic(t model.Traffic, f model.Fleet) string {
	s := "traffic: produce " + units.Network(f.ProduceBytesPerSec)
	if t.MessagesPerSec > 0 {
		s += ", " + units.SI(t.MessagesPerSec) + " messages/s"
	}
	if t.Message != nil {
		format := t.Message.Format
		if format == "" {
			format = model.FormatV2
		}
		s += fmt.Sprintf(", %d-byte values, record format %s", t.Message.PayloadBytes, format)
	}
	return s
}

// capacityLine names each broker's capacities and the share planned up to.
func capacityLine(c model.Cluster) string {
	var parts []string
	if c.NIC > 0 {
		nic := "NIC " + units.Network(c.NIC)
		if c.LinkOverhead > 0 {
			nic += fmt.Sprintf(" less %s link overhead", units.Percent(c.LinkOverhead))
		}
		parts = append(parts, nic)
	}
	if c.DiskWrite > 0 {
		parts = append(parts, "disk write "+units.FormatRate(c.DiskWrite))
	}
	if c.DiskRead > 0 {
		parts = append(parts, "disk read "+units.FormatRate(c.DiskRead))
	}
	u := c.MaxUtilization
	if u == 0 {
		u = model.DefaultMaxUtilization
	}
	return fmt.Sprintf("capacity per broker: %s, planned up to %s of each", strings.Join(parts, ", "), units.Percent(u))
}
