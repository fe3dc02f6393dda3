package results

import (
	"errors"
	"time"

	"github.com/plimsoll/plimsoll/fault"
	"github.com/plimsoll/plimsoll/loadgen"
	"github.com/plimsoll/plimsoll/model"
	"github.com/plimsoll/plimsoll/probe"
	"github.com/plimsoll/plimsoll/use"
	"github.com/plimsoll/plimsoll/verdict"
)

// Trial is one measured trial, the one record of it that plimsoll keeps: `plimsoll run` writes
// it as result.json, a limit search appends it to results.jsonl (kind "trial"), and the report,
// `model --against` and compare read it back. Everything the load generator measured is inlined
// (run_id, config, window, rates, counts, latency_ms, histograms, client, timeline, ...), followed
// by what the trial knew of the cluster, the USE table of the measured window and the verdict.
type Trial struct {
	loadgen.Result
	KafkaVersion string          `json:"kafka_version"`
	Cluster      Cluster         `json:"cluster"`
	USE          *use.Table      `json:"use,omitempty"`
	Verdict      verdict.Verdict `json:"verdict"`
	// CPU is each process's mean CPU over the measured window, cores: "broker N" (local
	// clusters) and "plimsoll".
	CPU map[string]float64 `json:"cpu_cores,omitempty"`
	// CompilerCPU is the part of CPU each local broker's JIT compiler threads used, cores ("broker
	// N"); absent for a broker whose threads were not read, and in records from before it.
	CompilerCPU map[string]float64 `json:"compiler_cores,omitempty"`
	// UserCPU and SystemCPU split each local broker's CPU into user and system time, cores
	// ("broker N"): crypto is user time, while the kernel's network work (softirq) is charged as
	// system time to whichever process it interrupts. CompilerUserCPU is the part of UserCPU its
	// JIT compiler threads used. Each is absent for a broker not read so, and in records from
	// before them.
	UserCPU         map[string]float64 `json:"user_cores,omitempty"`
	SystemCPU       map[string]float64 `json:"system_cores,omitempty"`
	CompilerUserCPU map[string]float64 `json:"compiler_user_cores,omitempty"`
	// Traffic is each broker's mean traffic over the measured window from Kafka's own metrics,
	// bytes/s, for comparison with the model; empty without broker metrics.
	Traffic []model.Measured `json:"broker_traffic,omitempty"`
	// LinkOverhead is what the brokers' emulated links carried beyond the records, per record
	// byte, over the measured window (use.LinkOverhead); nil without emulated links.
	LinkOverhead *float64 `json:"link_overhead,omitempty"`
	// Faults are the run's planned faults as they happened (plimsoll run --fault): when each
	// began and ended, the figures during it and outside every fault, and the time until the
	// ISR was full again; absent without faults.
	Faults []fault.Window `json:"faults,omitempty"`
	// Step places the trial in a limit search; nil for a run.
	Step *Step `json:"search,omitempty"`
	// Dir holds the trial's files (timeline.csv, histograms.hlog, probe.json), relative to the
	// results file's directory; empty when they were not written.
	Dir string `json:"dir,omitempty"`

	// Series is every probe sample of the trial, warm-up included, written as probe.json beside
	// result.json; not part of the record.
	Series *probe.Series `json:"-"`
}

// Close releases what the trial's figures were spilled to (its probe samples, its interval
// histograms, its timeline); afterwards they yield only what is held in memory. Write its
// directory first.
func (t *Trial) Close() error {
	return errors.Join(t.Series.Close(), t.Intervals.Close(), t.Timeline.Close())
}

// HostSaturated reports a trial on a local cluster whose host's CPU was, over the measured
// window, at least its verdict's HostBusy busy: brokers and generator shared a saturated CPU, so
// the rate is what that CPU allowed, whatever the verdict's state.
func (t *Trial) HostSaturated() bool {
	r, ok := t.USE.HostCPU()
	busy := t.Verdict.Criteria.HostBusy
	return t.Cluster.Local && ok && busy > 0 && r.Utilisation.Unit == use.UnitPct && !r.Utilisation.Blank() &&
		float64(r.Utilisation.Mean) >= 100*busy
}

// Cluster is what a trial knew of the cluster it ran on.
type Cluster struct {
	Bootstrap      []string `json:"bootstrap"`
	Local          bool     `json:"local"`
	NICBytesPerSec float64  `json:"nic_bytes_per_sec,omitempty"`
	MetricsURLs    int      `json:"metrics_endpoints"`
}

// Phase is the step of a limit search a trial belongs to.
type Phase string

// Phases of the search for one size.
const (
	PhaseBracket Phase = "bracket" // stepping until an ok and an overloaded rate are known
	PhaseBisect  Phase = "bisect"  // halving the bracket (in log space) until it is within tolerance
	PhaseConfirm Phase = "confirm" // holding the safe rate for longer before it is reported
)

// Step is where a trial stands in a limit search.
type Step struct {
	Seq     int     `json:"seq"`            // 1-based position in the whole search
	Size    int     `json:"size"`           // bytes per message
	Rate    float64 `json:"rate"`           // messages/s asked for
	Phase   Phase   `json:"phase"`          // bracket, bisect or confirm
	Limit   string  `json:"limit"`          // the limit the trial was asked for: LimitCeiling or LimitSLO
	Hold    bool    `json:"hold,omitempty"` // a confirmation, held longer than a trial
	Attempt int     `json:"attempt"`        // 1, or 2 for the retry of an invalid trial
}

// MeasuredWindow is the probe's samples over the load generator's measured window (warm-up and
// drain left out): what the verdict, the USE table and every per-broker figure are drawn from.
// Nil when nothing was probed.
func (t *Trial) MeasuredWindow() *probe.Series {
	if t.Series == nil {
		return nil
	}
	from := t.Window.Start
	return t.Series.Window(from, from.Add(time.Duration(t.Window.MeasuredSeconds*float64(time.Second))))
}

// BrokerTraffic is each broker's mean traffic over the measured window, from Kafka's own
// metrics as the probe read them (use.BrokerTraffic), for comparison with the model
// (model.Against). Brokers without metrics in the window are left out.
func (t *Trial) BrokerTraffic() []model.Measured {
	var out []model.Measured
	for _, b := range use.BrokerTraffic(t.MeasuredWindow()) {
		out = append(out, model.Measured{Broker: b.Broker, ProduceIn: b.ProduceIn, ReplicationIn: b.ReplicationIn,
			ReplicationOut: b.ReplicationOut, ConsumeOut: b.ConsumeOut})
	}
	return out
}

// ClientBound reports whether the verdict found the load generator, not the cluster, to be the
// limit of the trial.
func (t *Trial) ClientBound() bool {
	for _, r := range t.Verdict.Reasons {
		if r.Criterion == verdict.CritClientBound {
			return true
		}
	}
	return false
}
