package limit

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/plimsoll/plimsoll/model"
	"github.com/plimsoll/plimsoll/probe"
	"github.com/plimsoll/plimsoll/report"
	"github.com/plimsoll/plimsoll/results"
	"github.com/plimsoll/plimsoll/units"
	"github.com/plimsoll/plimsoll/verdict"
	"github.com/plimsoll/plimsoll/workload"
)

// SearchConfig is what `plimsoll limit` stores in the search header (Options.Config): the rest
// of the configuration the boundary depends on, so the results file describes itself and a
// resume with different settings is refused.
type SearchConfig struct {
	Command      string           `json:"command"`
	Spec         workload.Spec    `json:"spec"`
	Criteria     verdict.Criteria `json:"criteria"`
	KafkaVersion string           `json:"kafka_version"`
	Brokers      int              `json:"brokers"`
	// ReplicationFactor and Partitions are the values trials use (the spec's, resolved).
	ReplicationFactor int     `json:"replication_factor"`
	Partitions        int     `json:"partitions"`
	Local             bool    `json:"local"`
	NICBytesPerSec    float64 `json:"nic_bytes_per_sec,omitempty"`
	BrokersDown       int     `json:"brokers_down"`
	HostCores         int     `json:"host_cores"`
}

// Prediction is the model's sustainable rate for size-byte messages under cfg, or 0 when the
// model has no capacity to go on (no NIC rate: a CPU-bound loopback cluster).
func Prediction(cfg SearchConfig, size int) (float64, string) {
	if cfg.NICBytesPerSec <= 0 || cfg.Brokers == 0 {
		return 0, ""
	}
	c := cfg.cluster()
	rate, err := model.MaxMessagesPerSec(c, cfg.message(size))
	if err != nil {
		return 0, ""
	}
	ceil, err := model.MaxProduce(c)
	if err != nil {
		return rate, ""
	}
	return rate, string(ceil.Bottleneck)
}

func (cfg SearchConfig) cluster() model.Cluster {
	return model.Cluster{
		Brokers: cfg.Brokers, Partitions: cfg.Partitions, ReplicationFactor: cfg.ReplicationFactor,
		ConsumerGroups: cfg.Spec.ConsumerGroups, NIC: cfg.NICBytesPerSec, MaxUtilization: 1,
	}
}

func (cfg SearchConfig) message(size int) model.Message {
	m := model.Message{PayloadBytes: size, BatchSize: BatchSize(cfg.Spec, size)}
	if cfg.Spec.Keys != workload.KeysNone {
		m.KeyBytes = keyBytes(cfg.Spec.KeyCount)
	}
	return m
}

// keyBytes is the length of the decimal keys the generator uses for count distinct keys.
func keyBytes(count int) int { return len(fmt.Sprint(max(count-1, 0))) }

// Recommend turns the boundary into a safe load to plan for: Dropbox's rule, the measured
// per-broker limit scaled for brokers down, computed by the model. The worst size (lowest safe
// bytes/s) sets it.
func Recommend(cfg SearchConfig, points []Point) *report.Recommendation {
	var best *Point
	for i := range points {
		p := &points[i]
		if p.SafeRate <= 0 {
			continue
		}
		if best == nil || p.SafeBytesPerSec < best.SafeBytesPerSec {
			best = p
		}
	}
	if best == nil || cfg.Brokers == 0 {
		return nil
	}
	perBroker := best.SafeBytesPerSec / float64(cfg.Brokers)
	res, err := model.Evaluate(model.Cluster{Brokers: cfg.Brokers, ReplicationFactor: min(cfg.ReplicationFactor, cfg.Brokers), BrokersDown: cfg.BrokersDown},
		model.Traffic{}, model.Sizing{BrokerLimit: perBroker})
	if err != nil || res.Headroom == nil {
		return nil
	}
	h := res.Headroom
	var b strings.Builder
	fmt.Fprintf(&b, "The lowest safe throughput was at %d-byte messages: %s produced across %d brokers, %s per broker.",
		best.Size, units.FormatRate(best.SafeBytesPerSec), cfg.Brokers, units.FormatRate(perBroker))
	if cfg.BrokersDown > 0 {
		fmt.Fprintf(&b, " With %d of %d brokers down the rest must carry their load, so plan for %s per broker.", cfg.BrokersDown, cfg.Brokers, units.FormatRate(h.SafePerBrokerBytesPerSec))
	}
	if best.ClientBound {
		b.WriteString(" The generator limited that search, so the cluster's true limit is higher.")
	}
	return &report.Recommendation{PerBrokerBytesPerSec: h.SafePerBrokerBytesPerSec, ClusterBytesPerSec: h.SafeClusterBytesPerSec,
		BrokersDown: cfg.BrokersDown, Text: b.String()}
}

// ReportData builds the report's view of a search from its results file's records.
func ReportData(recs []results.Record) (report.Data, error) {
	d := report.Data{Title: "plimsoll limit"}
	var cfg SearchConfig
	var points []Point
	for _, r := range recs {
		switch r.Kind {
		case results.KindSearch:
			var h Header
			if err := r.Decode(&h); err != nil {
				return d, err
			}
			if len(h.Config) > 0 {
				if err := json.Unmarshal(h.Config, &cfg); err != nil {
					return d, fmt.Errorf("%s: search config: %w", r.Pos, err)
				}
			}
			d.Generated = r.Time.UTC()
		case results.KindTrial:
			var t Trial
			if err := r.Decode(&t); err != nil {
				return d, err
			}
			d.Trials = append(d.Trials, reportTrial(t))
		case results.KindBoundary:
			var p Point
			if err := r.Decode(&p); err != nil {
				return d, err
			}
			points = append(points, p)
		}
	}
	d.Command, d.Brokers, d.CoLocated, d.HostCores = cfg.Command, cfg.Brokers, cfg.Local, float64(cfg.HostCores)
	d.Config = configKVs(cfg)
	d.Environment = envKVs(cfg)
	for _, p := range points {
		d.Boundary = append(d.Boundary, report.Point{SizeBytes: p.Size, SafeMsgsPerSec: p.SafeRate, UnsafeMsgsPerSec: p.UnsafeRate,
			SafeBytesPerSec: p.SafeBytesPerSec, Bottleneck: p.Bottleneck, Trials: p.Trials, ClientBound: p.ClientBound, Note: p.Note})
		if rate, bottleneck := Prediction(cfg, p.Size); rate > 0 {
			d.Model = append(d.Model, report.ModelPoint{SizeBytes: p.Size, MsgsPerSec: rate, Bottleneck: bottleneck})
		}
		d.CPUShare = append(d.CPUShare, cpuAtSafe(recs, p)...)
	}
	d.Recommendation = Recommend(cfg, points)
	if cfg.Local {
		d.Notes = append(d.Notes, "The brokers and plimsoll ran on one host: these limits are the host's, shared by every broker and the load generator, not a production cluster's.")
	}
	if cfg.NICBytesPerSec > 0 {
		d.Notes = append(d.Notes, fmt.Sprintf("Each broker had an emulated NIC of %s per direction (a network namespace and a tbf-shaped link); the model line uses the same rate.", units.FormatBits(cfg.NICBytesPerSec)))
	}
	return d, nil
}

// cpuAtSafe gives each process's CPU during the trial at the point's safe rate.
func cpuAtSafe(recs []results.Record, p Point) []report.CPUShare {
	for _, r := range recs {
		if r.Kind != results.KindTrial {
			continue
		}
		var t Trial
		if r.Decode(&t) != nil || t.Size != p.Size || !sameRate(t.Rate, p.SafeRate) || t.Outcome.State != OK {
			continue
		}
		var td TrialData
		if json.Unmarshal(t.Outcome.Data, &td) != nil {
			return nil
		}
		var out []report.CPUShare
		names := make([]string, 0, len(td.CPU))
		for who := range td.CPU {
			names = append(names, who)
		}
		slices.Sort(names)
		for _, who := range names {
			out = append(out, report.CPUShare{SizeBytes: p.Size, Who: who, Cores: td.CPU[who]})
		}
		return out
	}
	return nil
}

func reportTrial(t Trial) report.Trial {
	rt := report.Trial{N: t.Seq, SizeBytes: t.Size, TargetMsgsPerSec: t.Rate, AchievedMsgsPerSec: t.Outcome.Achieved,
		State: string(t.Outcome.State), ClientBound: t.Outcome.ClientBound, Reasons: t.Outcome.Reasons, Bottleneck: t.Outcome.Bottleneck}
	var td TrialData
	if len(t.Outcome.Data) > 0 && json.Unmarshal(t.Outcome.Data, &td) == nil {
		rt.AchievedBytesPerSec = td.ProducedBytesPerSec
		rt.Latency = map[string]report.Percentiles{
			report.LatencyPublish:       pct(td.Latency.Publish.P50, td.Latency.Publish.P90, td.Latency.Publish.P99, td.Latency.Publish.P999, td.Latency.Publish.Max),
			report.LatencyEndToEnd:      pct(td.Latency.EndToEnd.P50, td.Latency.EndToEnd.P90, td.Latency.EndToEnd.P99, td.Latency.EndToEnd.P999, td.Latency.EndToEnd.Max),
			report.LatencyScheduleDelay: pct(td.Latency.ScheduleDelay.P50, td.Latency.ScheduleDelay.P90, td.Latency.ScheduleDelay.P99, td.Latency.ScheduleDelay.P999, td.Latency.ScheduleDelay.Max),
		}
		rt.USE = useTable(td.USE)
	}
	return rt
}

func pct(p50, p90, p99, p999, mx float64) report.Percentiles {
	return report.Percentiles{P50: p50, P90: p90, P99: p99, P999: p999, Max: mx}
}

// useTable renders the probe's USE table cells as the report shows them.
func useTable(t *probe.Table) *report.UseTable {
	if t == nil {
		return nil
	}
	u := &report.UseTable{}
	for _, r := range t.Rows {
		u.Rows = append(u.Rows, report.UseRow{Resource: r.Entity + " " + r.Resource,
			Utilisation: r.Utilisation.Text(), Saturation: r.Saturation.Text(), Errors: r.Errors.Text()})
	}
	return u
}

func configKVs(cfg SearchConfig) []report.KV {
	s := cfg.Spec
	kv := []report.KV{
		{Key: "Kafka version", Value: cfg.KafkaVersion},
		{Key: "brokers", Value: fmt.Sprint(cfg.Brokers)},
		{Key: "topics x partitions", Value: fmt.Sprintf("%d x %d", s.Topics, cfg.Partitions)},
		{Key: "replication factor", Value: fmt.Sprint(cfg.ReplicationFactor)},
		{Key: "min.insync.replicas", Value: orDefault(s.MinInsyncReplicas)},
		{Key: "producers", Value: fmt.Sprint(s.Producers)},
		{Key: "consumer groups x consumers", Value: fmt.Sprintf("%d x %d", s.ConsumerGroups, s.ConsumersPerGroup)},
		{Key: "payload", Value: s.Payload.String()},
		{Key: "keys", Value: s.Keys.String()},
		{Key: "trial window", Value: fmt.Sprintf("%s after %s warm-up", s.Duration, s.Warmup)},
	}
	props := s.EffectiveProducerProps()
	for _, p := range props.Keys() {
		v, _ := props.Get(p)
		kv = append(kv, report.KV{Key: "producer " + p, Value: v})
	}
	c := cfg.Criteria
	kv = append(kv, report.KV{Key: "overload criteria", Value: c.Describe()})
	return kv
}

func envKVs(cfg SearchConfig) []report.KV {
	where := "remote cluster"
	if cfg.Local {
		where = "local cluster, co-located with plimsoll"
	}
	nic := "none (loopback)"
	if cfg.NICBytesPerSec > 0 {
		nic = units.FormatBits(cfg.NICBytesPerSec) + " per direction per broker"
	}
	return []report.KV{
		{Key: "cluster", Value: where},
		{Key: "host cores", Value: fmt.Sprint(cfg.HostCores)},
		{Key: "emulated NIC", Value: nic},
		{Key: "brokers down planned for", Value: fmt.Sprint(cfg.BrokersDown)},
	}
}

func orDefault(n int) string {
	if n == 0 {
		return "broker default"
	}
	return fmt.Sprint(n)
}
