package report

import (
	"time"

	"github.com/plimsoll/plimsoll/loadgen"
	"github.com/plimsoll/plimsoll/probe"
	"github.com/plimsoll/plimsoll/results"
	"github.com/plimsoll/plimsoll/use"
	"github.com/plimsoll/plimsoll/verdict"
	"github.com/plimsoll/plimsoll/workload"
)

// lat is a trial's latencies with the given publish p50 and p99, ms; the rest follows from them.
func lat(p50, p99 float64) loadgen.Latency {
	return loadgen.Latency{
		Publish:       loadgen.Percentiles{P50: p50, P90: p50 * 1.8, P99: p99, P999: p99 * 1.9, Max: p99 * 3.1},
		EndToEnd:      loadgen.Percentiles{P50: p50 * 1.4, P90: p50 * 2.5, P99: p99 * 1.3, P999: p99 * 2.4, Max: p99 * 3.6},
		ScheduleDelay: loadgen.Percentiles{P50: 0.01, P90: 0.02, P99: 0.08, P999: 0.4, Max: 2.1},
	}
}

// cell is a USE cell with a mean and max in unit.
func cell(mean, mx float64, unit string) use.Cell {
	return use.Cell{Mean: probe.Num(mean), Max: probe.Num(mx), Unit: unit, Samples: 20}
}

// useTable is a small USE table with the host's CPU utilisation and run queue.
func useTable(cpu, queue float64) *use.Table {
	return &use.Table{Seconds: 20, Samples: 20, Rows: []use.Row{
		{Entity: "client host", Resource: "cpu", Utilisation: cell(cpu, cpu+5, "%"), Saturation: cell(queue, queue*2, "count"), Errors: cell(0, 0, "count")},
		{Entity: "broker 1", Resource: "request handlers", Utilisation: cell(41, 55, "%"), Saturation: cell(0.4, 2, "count"), Errors: cell(0, 0, "count")},
		{Entity: "broker 2", Resource: "network in", Utilisation: cell(3.1, 4, "%"), Saturation: use.Cell{Mean: probe.Missing, Max: probe.Missing}, Errors: cell(0, 0, "/s")},
		{Entity: "cluster", Resource: "ISR", Utilisation: use.Cell{Mean: probe.Missing, Max: probe.Missing}, Saturation: cell(0, 0, "count"), Errors: cell(0, 0, "/s")},
	}}
}

// tr is a trial of a search.
type tr struct {
	seq, size      int
	rate, achieved float64
	state          verdict.State
	clientBound    bool
	bottleneck     string
	reasons        []string
	lat            loadgen.Latency
	use            *use.Table
	cpu            map[string]float64
}

func (x tr) trial() results.Trial {
	t := results.Trial{Step: &results.Step{Seq: x.seq, Size: x.size, Rate: x.rate, Phase: results.PhaseBisect, Attempt: 1},
		Verdict: verdict.Verdict{State: x.state, Bottleneck: x.bottleneck, Reasons: []verdict.Reason{}}, USE: x.use, CPU: x.cpu}
	t.TargetMsgsPerSec, t.ProducedMsgsPerSec, t.ProducedBytesPerSec = x.rate, x.achieved, x.achieved*float64(x.size)
	t.Latency = x.lat
	if x.clientBound {
		t.Verdict.Reasons = append(t.Verdict.Reasons, verdict.Reason{Criterion: verdict.CritClientBound, Text: "p99 schedule delay 31 ms > 10 ms"})
	}
	for _, r := range x.reasons {
		t.Verdict.Reasons = append(t.Verdict.Reasons, verdict.Reason{Criterion: verdict.CritLag, Text: r})
	}
	return t
}

func trials(xs ...tr) []results.Trial {
	out := make([]results.Trial, len(xs))
	for i, x := range xs {
		out[i] = x.trial()
	}
	return out
}

func cores(b1, b2, b3, gen float64) map[string]float64 {
	return map[string]float64{"broker 1": b1, "broker 2": b2, "broker 3": b3, "plimsoll": gen}
}

// fullSearch is a co-located search on a 2-core host, 3 brokers, rf 3, four sizes: 100 B is
// client-bound, the others bracket the limit; the model predicts every size, and a broker may
// be down.
func fullSearch() *results.SearchFile {
	spec := workload.Default()
	spec.Topics, spec.PartitionsPerTopic, spec.ReplicationFactor, spec.MinInsyncReplicas = 1, 30, 3, 2
	spec.ConsumerGroups, spec.ConsumersPerGroup = 2, 1
	spec.Duration, spec.Warmup = 20*time.Second, 10*time.Second
	if err := spec.ProducerProps.Set("linger.ms", "5"); err != nil {
		panic(err)
	}
	cfg := &results.Config{Command: "plimsoll limit --message-sizes 100,1000,10000,100000 --out results/demo", Spec: spec,
		Criteria: verdict.DefaultCriteria(), KafkaVersion: "4.1.0", Brokers: 3, ReplicationFactor: 3, Partitions: 30,
		Local: true, BrokersDown: 1, HostCores: 2}
	model := func(rate, slo float64) *results.Prediction {
		return &results.Prediction{MsgsPerSec: rate, Bottleneck: "cpu", SLOMsgsPerSec: slo}
	}
	framed := func(p *results.Prediction, o float64) *results.Prediction {
		p.FramedMsgsPerSec = p.MsgsPerSec / (1 + o)
		return p
	}
	return &results.SearchFile{
		Path:    "results/demo/results.jsonl",
		Written: time.Date(2026, 3, 14, 9, 26, 53, 0, time.UTC),
		Header:  results.Search{Sizes: []int{1000, 100, 10000, 100000}, Tolerance: 0.08, SLO: true, Confirm: true, Config: cfg},
		Points: []results.Boundary{
			{Size: 1000, Trials: 5, Model: framed(model(6100, 5200), 0.118), LinkOverhead: 0.118,
				SLO:     &results.Limit{SafeRate: 5000, UnsafeRate: 5400, SafeBytesPerSec: 5e6, Bottleneck: "cpu (host)", Confirmed: true},
				Ceiling: results.Limit{SafeRate: 5000, UnsafeRate: 5400, SafeBytesPerSec: 5e6, Bottleneck: "cpu (host)"}},
			{Size: 100, Trials: 4, Model: model(62000, 0),
				SLO:     &results.Limit{SafeRate: 40000, ClientBound: true, Bottleneck: "cpu (plimsoll)"},
				Ceiling: results.Limit{SafeRate: 40000, ClientBound: true, Bottleneck: "cpu (plimsoll)"},
				Note:    "plimsoll fell behind its schedule above 40,000 msgs/s (p99 schedule delay 31 ms)"},
			{Size: 10000, Trials: 4, Model: model(610, 540),
				SLO:          &results.Limit{SafeRate: 560, UnsafeRate: 600, Bottleneck: "cpu (host)"},
				Ceiling:      results.Limit{SafeRate: 600, UnsafeRate: 640, SafeBytesPerSec: 6e6, Bottleneck: "cpu (host)"},
				NonMonotonic: []results.Contradiction{{Limit: results.LimitSLO, OK: 12, OKRate: 560, Overloaded: 11, OverRate: 540}}},
			{Size: 100000, Trials: 3, Model: model(61, 55),
				SLO:     &results.Limit{SafeRate: 58, UnsafeRate: 62, Bottleneck: "disk write on broker 2"},
				Ceiling: results.Limit{SafeRate: 58, UnsafeRate: 62, Bottleneck: "disk write on broker 2"}},
		},
		Recommendation: &results.Recommendation{PerBrokerBytesPerSec: 1.11e6, ClusterBytesPerSec: 3.33e6, BrokersDown: 1,
			Size: 1000, MeasuredBytesPerSec: 5e6, Brokers: 3, RestsOn: results.LimitSLO},
		Trials: trials(
			tr{seq: 1, size: 100, rate: 10000, achieved: 10000, state: verdict.OK, lat: lat(1.1, 4.2)},
			tr{seq: 2, size: 100, rate: 20000, achieved: 19990, state: verdict.OK, lat: lat(1.3, 5.5)},
			tr{seq: 3, size: 100, rate: 40000, achieved: 39950, state: verdict.OK, lat: lat(1.9, 9.8), bottleneck: "cpu (plimsoll)", cpu: cores(0.3, 0.28, 0.29, 1.05)},
			tr{seq: 4, size: 100, rate: 80000, achieved: 51200, state: verdict.Invalid, clientBound: true, lat: lat(14, 95)},
			tr{seq: 5, size: 1000, rate: 2500, achieved: 2500, state: verdict.OK, lat: lat(1.4, 6.1)},
			tr{seq: 6, size: 1000, rate: 5000, achieved: 4999, state: verdict.OK, lat: lat(2.2, 14.5), use: useTable(81, 1.6), cpu: cores(0.41, 0.39, 0.4, 0.72)},
			tr{seq: 7, size: 1000, rate: 10000, achieved: 6120, state: verdict.Overloaded, bottleneck: "cpu (host)",
				reasons: []string{"backlog grew 3,900 msgs/s"}, lat: lat(180, 2400)},
			tr{seq: 8, size: 1000, rate: 7071, achieved: 6010, state: verdict.Overloaded, bottleneck: "cpu (host)",
				reasons: []string{"backlog grew 1,050 msgs/s"}, lat: lat(95, 1300)},
			tr{seq: 9, size: 1000, rate: 5400, achieved: 5380, state: verdict.Overloaded, bottleneck: "cpu (host)",
				reasons: []string{"backlog grew 120 msgs/s"}, lat: lat(9.5, 740), use: useTable(99, 4.8)},
			tr{seq: 10, size: 10000, rate: 250, achieved: 250, state: verdict.OK, lat: lat(2.9, 11)},
			tr{seq: 11, size: 10000, rate: 500, achieved: 500, state: verdict.OK, lat: lat(3.4, 16)},
			tr{seq: 12, size: 10000, rate: 560, achieved: 560, state: verdict.OK, lat: lat(3.9, 22), cpu: cores(0.45, 0.44, 0.46, 0.5)},
			tr{seq: 13, size: 10000, rate: 600, achieved: 571, state: verdict.Overloaded, bottleneck: "cpu (host)",
				reasons: []string{"backlog grew 9 msgs/s"}, lat: lat(40, 910)},
			tr{seq: 14, size: 100000, rate: 25, achieved: 25, state: verdict.OK, lat: lat(9, 31)},
			tr{seq: 15, size: 100000, rate: 58, achieved: 58, state: verdict.OK, lat: lat(12, 48)},
			tr{seq: 16, size: 100000, rate: 62, achieved: 59.5, state: verdict.Overloaded, bottleneck: "disk write on broker 2",
				reasons: []string{"backlog grew 2.4 msgs/s"}, lat: lat(60, 1500)},
		),
	}
}

// remoteSearch is a cluster on its own hosts with no model, one size, and no CPU figures.
func remoteSearch() *results.SearchFile {
	spec := workload.Default()
	if err := spec.ProducerProps.Set("acks", "1"); err != nil {
		panic(err)
	}
	cfg := &results.Config{Command: "plimsoll limit --bootstrap prod-eu-1:9092 --message-sizes 1024", Spec: spec,
		Criteria: verdict.DefaultCriteria(), KafkaVersion: "3.9.1", Brokers: 6, ReplicationFactor: 3, Partitions: 60, HostCores: 16}
	return &results.SearchFile{
		Written: time.Date(2026, 1, 2, 3, 4, 5, 0, time.FixedZone("CET", 3600)),
		Header:  results.Search{Sizes: []int{1024}, Tolerance: 0.05, Config: cfg},
		Points: []results.Boundary{{Size: 1024, Trials: 7, Ceiling: results.Limit{SafeRate: 412000, UnsafeRate: 437000,
			Bottleneck: "network out on broker 4"}}},
		Trials: trials(tr{seq: 7, size: 1024, rate: 412000, achieved: 411800, state: verdict.OK,
			lat: loadgen.Latency{Publish: loadgen.Percentiles{P50: 3, P90: 5, P99: 12, P999: 40, Max: 95}}}),
	}
}
