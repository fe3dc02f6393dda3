package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/plimsoll/plimsoll/model"
	"github.com/plimsoll/plimsoll/model/input"
	"github.com/plimsoll/plimsoll/units"
)

// modelSchema names the JSON layout of `plimsoll model --json` (docs/model.md).
const modelSchema = "plimsoll.model/v1"

func init() { subcommands = append(subcommands, newModelCmd) }

func newModelCmd() *cobra.Command {
	var file, against string
	var asJSON, explain bool
	cmd := &cobra.Command{
		Use:   "model",
		Short: "Size a Kafka cluster: per-broker load, bottleneck, produce ceiling, partitions, headroom",
		Long: `model computes, without touching a cluster, what a Kafka cluster of a given shape carries for a
given traffic: each broker's produce, replication and consumer traffic, network and disk load,
the resource that gives out first and the produce ceiling it sets, the wire bytes a message
costs in each record format, how many partitions the traffic needs, and the safe rate left by
a measured per-broker limit when brokers are down. Rates are bytes per second: MB = 10^6 B,
MiB = 2^20 B, Mbit = 10^6 bits. The model and its assumptions are in docs/model.md.`,
		Example: `  plimsoll model --brokers 3 --partitions 3 --replication-factor 2 --produce 300MB/s
  plimsoll model --brokers 6 --replication-factor 3 --consumer-groups 2 --produce 200MB/s --nic 1Gbit/s --explain
  plimsoll model --brokers 3 --replication-factor 3 --messages-per-sec 1.5M --message-size 100 --record-format v1 --json
  plimsoll model --brokers 5 --brokers-down 20% --broker-limit 60MB/s
  plimsoll model --messages-per-sec 1M --consumer-latency 10ms
  plimsoll model --file cluster.yaml --produce 500MB/s     # flags override the file
  plimsoll model --against results/run1                    # model vs what a plimsoll run measured`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if against != "" {
				return runAgainst(cmd, against, asJSON)
			}
			return runModel(cmd, file, asJSON, explain)
		},
	}
	f := cmd.Flags()
	f.SortFlags = false
	f.StringVarP(&file, "file", "f", "", "read inputs from a YAML `FILE` whose keys are these flag names; flags override it")
	f.BoolVar(&asJSON, "json", false, "print the result as JSON (schema "+modelSchema+", see docs/model.md)")
	f.BoolVar(&explain, "explain", false, "show the formula behind each figure")
	f.StringVar(&against, "against", "", "compare the model with a run's measured per-broker traffic: a `DIR` written by plimsoll run --out")
	for _, k := range input.Keys {
		f.Var(&inputFlag{key: k.Name, arg: k.Arg, value: k.Default}, k.Name, k.Usage)
	}
	return cmd
}

// inputFlag is a model input given on the command line. Its value is checked as it is parsed
// (so a bad one is a flag error, exit 2) and applied after the --file, which it overrides.
type inputFlag struct{ key, arg, value string }

func (f *inputFlag) String() string { return f.value }
func (f *inputFlag) Type() string   { return f.arg }
func (f *inputFlag) Set(v string) error {
	if err := input.Check(f.key, v); err != nil {
		return err
	}
	f.value = v
	return nil
}

func runModel(cmd *cobra.Command, file string, asJSON, explain bool) error {
	if asJSON && explain {
		return usageErrf("--explain annotates the table; --json has a fixed schema: give one of them")
	}
	in := input.New()
	if file != "" {
		data, err := os.ReadFile(file)
		if err != nil {
			return usageErrf("--file: %w", err)
		}
		if err := in.LoadYAML(file, data); err != nil {
			return usageErr(err)
		}
	}
	var setErr error
	cmd.Flags().Visit(func(fl *pflag.Flag) {
		if _, ok := input.Lookup(fl.Name); ok && setErr == nil {
			setErr = in.Set(fl.Name, fl.Value.String(), "--"+fl.Name)
		}
	})
	if setErr != nil {
		return usageErr(setErr)
	}
	c, t, s, err := in.Model()
	if err != nil {
		return usageErr(err)
	}
	res, err := model.Evaluate(c, t, s)
	var ie *model.InputError
	switch {
	case errors.As(err, &ie):
		return usageErr(fmt.Errorf("%s: %s", in.Where(ie.Field), ie.Msg))
	case errors.Is(err, model.ErrNoCapacity): // Evaluate asks for a ceiling only with a capacity
		return usageErrf("%s: the only capacity given is disk read, and nothing reads from disk: add --lagging-consumer-groups, or give --nic or --disk-write", in.Where("disk-read"))
	case err != nil:
		return err
	}
	var out bytes.Buffer // nothing reaches stdout unless all of it is ready
	if asJSON {
		enc := json.NewEncoder(&out)
		enc.SetIndent("", "  ")
		if err := enc.Encode(modelOutput{Schema: modelSchema, Inputs: in.Given(), Result: res}); err != nil {
			return err
		}
	} else {
		renderModel(&out, c, t, s, res, explain)
	}
	_, err = cmd.OutOrStdout().Write(out.Bytes())
	return err
}

// modelOutput is the JSON document: the schema name, the inputs as given, then the result.
type modelOutput struct {
	Schema string            `json:"schema"`
	Inputs map[string]string `json:"inputs"`
	model.Result
}

// row is one figure of the table: its label, value and the key of its formula.
type row struct{ label, value, key string }

// renderModel writes the human-readable table.
func renderModel(w io.Writer, c model.Cluster, t model.Traffic, s model.Sizing, r model.Result, explain bool) {
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
			title = fmt.Sprintf("busiest broker (of %d, all up): %s, %s", c.Brokers, plural(*b.Leaders, "leader"), plural(*b.Followers, "follower"))
		}
		const p = "busiest_broker."
		section(title, []row{
			{"produce in", units.FormatRate(b.ProduceInBytesPerSec), p + "produce_in_bytes_per_sec"},
			{"replication in", units.FormatRate(b.ReplicationInBytesPerSec), p + "replication_in_bytes_per_sec"},
			{"replication out", units.FormatRate(b.ReplicationOutBytesPerSec), p + "replication_out_bytes_per_sec"},
			{"consume out", units.FormatRate(b.ConsumeOutBytesPerSec), p + "consume_out_bytes_per_sec"},
			{"network in", network(b.NetworkInBytesPerSec), p + "network_in_bytes_per_sec"},
			{"network out", network(b.NetworkOutBytesPerSec), p + "network_out_bytes_per_sec"},
			{"disk write", units.FormatRate(b.DiskWriteBytesPerSec), p + "disk_write_bytes_per_sec"},
			{"disk read", units.FormatRate(b.DiskReadBytesPerSec), p + "disk_read_bytes_per_sec"},
		})
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

func clusterRows(cl model.ClusterLoad) []row {
	var rows []row
	add := func(label string, v *float64, format func(float64) string, key string) {
		if v != nil {
			rows = append(rows, row{label, format(*v), "cluster." + key})
		}
	}
	add("produce", cl.ProduceBytesPerSec, network, "produce_bytes_per_sec")
	add("messages", cl.MessagesPerSec, func(v float64) string { return count(v) + "/s" }, "messages_per_sec")
	add("network in", cl.NetworkInBytesPerSec, network, "network_in_bytes_per_sec")
	add("network out", cl.NetworkOutBytesPerSec, network, "network_out_bytes_per_sec")
	add("disk write", cl.DiskWriteBytesPerSec, units.FormatRate, "disk_write_bytes_per_sec")
	add("disk read", cl.DiskReadBytesPerSec, units.FormatRate, "disk_read_bytes_per_sec")
	add("wire bytes per message", cl.WireBytesPerMessage, byteCount, "wire_bytes_per_message")
	add("overhead per message", cl.OverheadBytesPerMessage, byteCount, "overhead_bytes_per_message")
	if cl.RecordsPerBatch != nil {
		rows = append(rows, row{"records per batch", strconv.Itoa(*cl.RecordsPerBatch), "cluster.records_per_batch"})
	}
	return rows
}

func capacityTitle(c model.Cluster) string {
	t := fmt.Sprintf("capacity (planned up to %s of each", percent(c.MaxUtilization))
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
		name := strings.ReplaceAll(string(res), "_", " ")
		if u := perResource(r.Utilization, res); u != nil {
			rows = append(rows, row{name + " utilization", fmt.Sprintf("%s of %s", percent(*u), units.FormatRate(c.Capacity(res))), "utilization." + string(res)})
		}
		if m := perResource(r.MaxProduceByResource, res); m != nil {
			rows = append(rows, row{name + " ceiling", network(*m) + " produced", "max_produce_by_resource." + string(res)})
		}
	}
	rows = append(rows,
		row{"bottleneck", strings.ReplaceAll(string(*r.Bottleneck), "_", " "), "bottleneck"},
		row{"max produce", network(*r.MaxProduceBytesPerSec), "max_produce_bytes_per_sec"})
	if r.MaxMessagesPerSec != nil {
		rows = append(rows, row{"max messages", count(*r.MaxMessagesPerSec) + "/s", "max_messages_per_sec"})
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
		parts = append(parts, plural(c.Brokers, "broker"))
	}
	if c.Partitions > 0 {
		parts = append(parts, plural(c.Partitions, "partition"))
	}
	if c.ReplicationFactor > 0 {
		parts = append(parts, fmt.Sprintf("replication factor %d", c.ReplicationFactor))
	}
	if c.ConsumerGroups > 0 {
		parts = append(parts, plural(c.ConsumerGroups, "consumer group"))
	}
	if c.LaggingConsumerGroups > 0 {
		parts = append(parts, plural(c.LaggingConsumerGroups, "lagging consumer group"))
	}
	if len(parts) == 0 {
		return "cluster: not given"
	}
	return "cluster: " + strings.Join(parts, ", ")
}

func describeTraffic(t model.Traffic, r model.Result) string {
	var parts []string
	if p := r.Cluster.ProduceBytesPerSec; p != nil {
		parts = append(parts, "produce "+network(*p))
	}
	if m := r.Cluster.MessagesPerSec; m != nil {
		parts = append(parts, count(*m)+" messages/s")
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

// network shows a rate in bytes and in bits, as NICs are sold in bits.
func network(bps float64) string {
	if bps == 0 {
		return units.FormatRate(0)
	}
	return units.FormatRate(bps) + " (" + units.FormatBits(bps) + ")"
}

func byteCount(v float64) string { return strconv.FormatFloat(v, 'f', 2, 64) + " B" }

// percent shows a fraction as a percentage to one decimal ("66.7%", "80%").
func percent(f float64) string { return strconv.FormatFloat(math.Round(1000*f)/10, 'f', -1, 64) + "%" }

// count renders a message count with an SI prefix and three significant digits ("1.50M").
func count(v float64) string {
	switch a := v; {
	case a >= 1e9:
		return strconv.FormatFloat(v/1e9, 'f', 3-digits(v/1e9), 64) + "G"
	case a >= 1e6:
		return strconv.FormatFloat(v/1e6, 'f', 3-digits(v/1e6), 64) + "M"
	case a >= 1e4:
		return strconv.FormatFloat(v/1e3, 'f', 3-digits(v/1e3), 64) + "k"
	case v == math.Trunc(v):
		return strconv.FormatFloat(v, 'f', 0, 64)
	}
	return strconv.FormatFloat(v, 'f', 1, 64)
}

// digits is the number of digits before the decimal point of v >= 1, at most 3.
func digits(v float64) int {
	switch {
	case v >= 100:
		return 3
	case v >= 10:
		return 2
	}
	return 1
}

func plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return strconv.Itoa(n) + " " + word + "s"
}
