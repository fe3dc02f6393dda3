package limit

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strconv"
	"sync/atomic"

	"github.com/plimsoll/plimsoll/loadgen"
	"github.com/plimsoll/plimsoll/probe"
	"github.com/plimsoll/plimsoll/trial"
	"github.com/plimsoll/plimsoll/verdict"
	"github.com/plimsoll/plimsoll/workload"
)

// TrialData is what the search keeps of each real trial in results.jsonl (Outcome.Data): the
// figures, the USE table and the verdict. The full result (timeline, histograms, probe samples)
// is in its own directory, TrialsDir/Dir.
type TrialData struct {
	RunID               string                `json:"run_id"`
	Dir                 string                `json:"dir"`
	KafkaVersion        string                `json:"kafka_version"`
	TargetMsgsPerSec    float64               `json:"target_msgs_per_sec"`
	ProducedMsgsPerSec  float64               `json:"produced_msgs_per_sec"`
	ProducedBytesPerSec float64               `json:"produced_bytes_per_sec"`
	ConsumedMsgsPerSec  float64               `json:"consumed_msgs_per_sec"`
	Counts              loadgen.Counts        `json:"counts"`
	Latency             loadgen.Latency       `json:"latency_ms"`
	Client              loadgen.ClientSignals `json:"client"`
	Config              loadgen.Config        `json:"config"`
	USE                 *probe.Table          `json:"use,omitempty"`
	Verdict             verdict.Verdict       `json:"verdict"`
	// CPU is each process's mean CPU over the measured window, cores: "broker N" and "plimsoll".
	CPU map[string]float64 `json:"cpu_cores,omitempty"`
}

// Runner is the Trialer that runs real trials with package trial: Base with the message size and
// rate of each trial, its topics named with a prefix of their own.
type Runner struct {
	// Base is every trial's configuration; Spec.MessageSize and Spec.Rate are set per trial.
	Base trial.Config
	// TrialsDir receives one directory per trial (result.json, timeline.csv, ...); empty: none.
	TrialsDir string
	// SearchID names the search; each trial's topics start with plimsoll-<SearchID>-tN-.
	SearchID string
	// Done, when set, is called with each finished trial's full result.
	Done func(size int, rate float64, r *trial.Result)
	n    atomic.Int64
}

// Trial runs one trial at size bytes and rate msgs/s.
func (r *Runner) Trial(ctx context.Context, size int, rate float64) (Outcome, error) {
	n := r.n.Add(1)
	cfg := r.Base
	cfg.Spec = r.Base.Spec.Clone()
	cfg.Spec.MessageSize, cfg.Spec.Rate = size, rate
	if err := batchFor(&cfg.Spec, size); err != nil {
		return Outcome{}, err
	}
	cfg.Load.RunID = fmt.Sprintf("%s-t%d", r.SearchID, n)
	cfg.Load.TopicPrefix = fmt.Sprintf("plimsoll-%s-t%d-", r.SearchID, n)
	res, err := trial.Run(ctx, cfg)
	if err != nil {
		if ctx.Err() != nil {
			return Outcome{}, err
		}
		// A trial that could not run (set-up failed, a broker gone) says nothing about this
		// rate: the search retries it once, then moves on.
		return Outcome{State: Invalid, Reasons: []string{"trial failed: " + err.Error()}}, nil
	}
	dir := ""
	if r.TrialsDir != "" {
		dir = fmt.Sprintf("%d-%dB-%s", n, size, strconv.FormatFloat(rate, 'f', 0, 64))
		if err := res.WriteDir(filepath.Join(r.TrialsDir, dir)); err != nil {
			return Outcome{}, fmt.Errorf("writing trial %d: %w", n, err)
		}
	}
	if r.Done != nil {
		r.Done(size, rate, res)
	}
	return outcomeOf(res, dir)
}

// MinBatchMessages is how many messages a producer batch holds at least in a search, unless the
// workload sets batch.size itself. Kafka's default batch.size (16 KB) holds a single 10 KB
// message, and a search would then measure the cost of requests, not of bytes.
const MinBatchMessages = 16

// batchFor raises batch.size to hold MinBatchMessages messages of size bytes, when the workload
// leaves batch.size at its default. The trial's recorded config shows the value used.
func batchFor(spec *workload.Spec, size int) error {
	if _, set := spec.EffectiveProducerProps().Get("batch.size"); set {
		return nil
	}
	if b := BatchSize(*spec, size); b != 16384 {
		return spec.ProducerProps.Set("batch.size", strconv.Itoa(b))
	}
	return nil
}

// BatchSize is the batch.size a search's trials use for size-byte messages: the workload's own
// if it sets one, else Kafka's 16384 raised to hold MinBatchMessages messages, at most 1 MB
// (the brokers' default message.max.bytes).
func BatchSize(spec workload.Spec, size int) int {
	if v, set := spec.EffectiveProducerProps().Get("batch.size"); set {
		if n, err := strconv.Atoi(v); err == nil {
			return n
		}
	}
	return min(max(16384, MinBatchMessages*(size+64)), 1000000)
}

// outcomeOf turns a trial's result into the search's Outcome.
func outcomeOf(res *trial.Result, dir string) (Outcome, error) {
	v := res.Verdict
	o := Outcome{State: State(v.State), Bottleneck: v.Bottleneck, Achieved: res.ProducedMsgsPerSec}
	for _, reason := range v.Reasons {
		o.Reasons = append(o.Reasons, reason.Criterion+": "+reason.Text)
		if reason.Criterion == verdict.CritClientBound {
			o.ClientBound = true
		}
	}
	d := TrialData{
		RunID: res.RunID, Dir: dir, KafkaVersion: res.KafkaVersion,
		TargetMsgsPerSec: res.TargetMsgsPerSec, ProducedMsgsPerSec: res.ProducedMsgsPerSec,
		ProducedBytesPerSec: res.ProducedBytesPerSec, ConsumedMsgsPerSec: res.ConsumedMsgsPerSec,
		Counts: res.Counts, Latency: res.Latency, Client: res.Client, Config: res.Config,
		USE: res.USE, Verdict: v, CPU: cpuShares(res),
	}
	data, err := json.Marshal(d)
	if err != nil {
		return o, err
	}
	o.Data = data
	return o, nil
}

// cpuShares averages each process's CPU over the measured window: the brokers' JVMs (local
// clusters) and plimsoll itself.
func cpuShares(res *trial.Result) map[string]float64 {
	out := map[string]float64{"plimsoll": res.Client.CPUShare * float64(res.Config.NumCPU)}
	w := res.MeasuredWindow()
	if w == nil {
		return out
	}
	sums, counts := map[int32]float64{}, map[int32]int{}
	for _, x := range w.Samples {
		if x.Host == nil {
			continue
		}
		for id, p := range x.Host.Brokers {
			if p.CPU.OK() {
				sums[id] += float64(p.CPU)
				counts[id]++
			}
		}
	}
	for id, s := range sums {
		out[fmt.Sprintf("broker %d", id)] = s / float64(counts[id])
	}
	return out
}
