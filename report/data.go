package report

import (
	"errors"
	"fmt"
	"math"
	"strings"

	"github.com/plimsoll/plimsoll/loadgen"
	"github.com/plimsoll/plimsoll/model"
	"github.com/plimsoll/plimsoll/results"
	"github.com/plimsoll/plimsoll/units"
)

// kv is one labelled value of a configuration or environment table.
type kv struct {
	Key   string
	Value string
}

// cpuShare is the CPU one process used during the trial at a boundary size's safe rate: a
// broker ("broker 1") or the generator ("plimsoll").
type cpuShare struct {
	SizeBytes int
	Who       string
	Cores     float64 // CPU seconds per second
}

// ErrInvalidData is wrapped by every problem Validate finds, for errors.Is.
var ErrInvalidData = errors.New("invalid results for a report")

// FieldError names the figure of a search's results that cannot be drawn, and why.
type FieldError struct {
	Field   string // e.g. "Points[2].Size" or "Trials[4] (results.jsonl:6).Verdict.State"
	Problem string // e.g. "is 0; a message size is at least 1 byte"
}

func (e *FieldError) Error() string { return "report: " + e.Field + " " + e.Problem }

// Unwrap lets errors.Is find ErrInvalidData.
func (e *FieldError) Unwrap() error { return ErrInvalidData }

// Bounds that keep the charts drawable; far beyond any real Kafka figure.
const (
	maxSize    = 1 << 30 // bytes per message
	maxRate    = 1e12    // messages or bytes per second
	maxLatency = 1e9     // ms (HDR histograms stop at an hour, 3.6e6 ms)
	maxCores   = 1e6
	// minPositive is the smallest non-zero figure: a millionth of a message or core per
	// second, or of a millisecond, is below any meaningful resolution, and far smaller values
	// (subnormal floats) break the axis arithmetic.
	minPositive = 1e-6
)

// Validate checks the figures of a search that the report draws and returns every problem
// found (joined), each a *FieldError wrapping ErrInvalidData, or nil. A results file is written
// by plimsoll, but it is a text file a person may edit.
func Validate(sf *results.SearchFile) error {
	var v validator
	cfg := sf.Header.Config
	if cfg != nil {
		v.count("Header.Config.Brokers", cfg.Brokers)
		v.num("Header.Config.HostCores", float64(cfg.HostCores), maxCores)
	}
	seen := map[int]int{}
	for i, p := range sf.Points {
		f := fmt.Sprintf("Points[%d]", i)
		v.size(f+".Size", p.Size)
		if j, dup := seen[p.Size]; dup && p.Size > 0 {
			v.bad(f+".Size", "is %d, as Points[%d] is; a search has one point per size", p.Size, j)
		}
		seen[p.Size] = i
		v.limit(f+".Ceiling", p.Ceiling)
		if p.SLO != nil {
			v.limit(f+".SLO", *p.SLO)
		}
		v.count(f+".Trials", p.Trials)
		if p.Model != nil {
			v.num(f+".Model.MsgsPerSec", p.Model.MsgsPerSec, maxRate)
			v.num(f+".Model.SLOMsgsPerSec", p.Model.SLOMsgsPerSec, maxRate)
			v.num(f+".Model.FramedMsgsPerSec", p.Model.FramedMsgsPerSec, maxRate)
		}
		if p.LinkOverhead != 0 {
			v.num(f+".LinkOverhead", p.LinkOverhead, model.MaxLinkOverhead)
		}
	}
	if r := sf.Recommendation; r != nil {
		v.num("Recommendation.PerBrokerBytesPerSec", r.PerBrokerBytesPerSec, maxRate)
		v.num("Recommendation.ClusterBytesPerSec", r.ClusterBytesPerSec, maxRate)
		v.count("Recommendation.BrokersDown", r.BrokersDown)
	}
	for i := range sf.Trials {
		v.trial(fmt.Sprintf("Trials[%d]", i), &sf.Trials[i])
	}
	return errors.Join(v.errs...)
}

type validator struct{ errs []error }

func (v *validator) bad(field, format string, args ...any) {
	v.errs = append(v.errs, &FieldError{Field: field, Problem: fmt.Sprintf(format, args...)})
}

func (v *validator) num(field string, x, limit float64) {
	if math.IsNaN(x) || math.IsInf(x, 0) || x < 0 || x > limit || x > 0 && x < minPositive {
		v.bad(field, "is %v; it must be 0 or a number from %g to %g", x, minPositive, limit)
	}
}

func (v *validator) limit(field string, l results.Limit) {
	v.num(field+".SafeRate", l.SafeRate, maxRate)
	v.num(field+".UnsafeRate", l.UnsafeRate, maxRate)
	v.num(field+".SafeBytesPerSec", l.SafeBytesPerSec, maxRate)
}

func (v *validator) size(field string, n int) {
	if n <= 0 || n > maxSize {
		v.bad(field, "is %d; a message size is from 1 to %d bytes", n, maxSize)
	}
}

func (v *validator) count(field string, n int) {
	if n < 0 {
		v.bad(field, "is %d; it counts, so it must be >= 0", n)
	}
}

func (v *validator) trial(f string, t *results.Trial) {
	if t.Step == nil {
		v.bad(f+".Step", "is missing; a search's trial records its size and rate")
		return
	}
	v.size(f+".Step.Size", t.Step.Size)
	v.num(f+".Step.Rate", t.Step.Rate, maxRate)
	v.num(f+".ProducedMsgsPerSec", t.ProducedMsgsPerSec, maxRate)
	v.num(f+".ProducedBytesPerSec", t.ProducedBytesPerSec, maxRate)
	switch t.Verdict.State {
	case "ok", "overloaded", "invalid":
	default:
		v.bad(f+".Verdict.State", "is %q; it must be one of ok, overloaded, invalid", t.Verdict.State)
	}
	for _, k := range latencyKinds {
		q := k.get(t.Latency)
		for _, x := range []struct {
			name string
			v    float64
		}{{"P50", q.P50}, {"P90", q.P90}, {"P99", q.P99}, {"P999", q.P999}, {"Max", q.Max}} {
			v.num(fmt.Sprintf("%s.Latency.%s.%s", f, k.key, x.name), x.v, maxLatency)
		}
	}
	for who, c := range t.CPU {
		if strings.TrimSpace(who) == "" {
			v.bad(f+".CPU", "names a process with no name")
		}
		v.num(fmt.Sprintf("%s.CPU[%q]", f, who), c, maxCores)
	}
}

// latencyKinds are the latency distributions the report shows, in their order.
var latencyKinds = []struct {
	key, name string
	get       func(loadgen.Latency) loadgen.Percentiles
}{
	{"publish", "publish", func(l loadgen.Latency) loadgen.Percentiles { return l.Publish }},
	{"end_to_end", "end-to-end", func(l loadgen.Latency) loadgen.Percentiles { return l.EndToEnd }},
	{"schedule_delay", "schedule delay", func(l loadgen.Latency) loadgen.Percentiles { return l.ScheduleDelay }},
}

// configKVs is the search's configuration for people.
func configKVs(cfg *results.Config) []kv {
	if cfg == nil {
		return nil
	}
	s := cfg.Spec
	out := []kv{
		{"Kafka version", cfg.KafkaVersion},
		{"brokers", fmt.Sprint(cfg.Brokers)},
		{"topics x partitions", fmt.Sprintf("%d x %d", s.Topics, cfg.Partitions)},
		{"replication factor", fmt.Sprint(cfg.ReplicationFactor)},
		{"min.insync.replicas", orDefault(s.MinInsyncReplicas)},
		{"producers", fmt.Sprint(s.Producers)},
		{"consumer groups x consumers", fmt.Sprintf("%d x %d", s.ConsumerGroups, s.ConsumersPerGroup)},
		{"payload", s.Payload.String()},
		{"keys", s.Keys.String()},
		{"trial window", fmt.Sprintf("%s after %s warm-up", s.Duration, s.Warmup)},
	}
	props := s.EffectiveProducerProps()
	for _, p := range props.Keys() {
		val, _ := props.Get(p)
		out = append(out, kv{"producer " + p, val})
	}
	if cfg.Producer == results.ProducerLean {
		out = append(out, kv{"produce path", "plimsoll's own (--lean-producer)"})
	}
	return append(out, kv{"overload criteria", cfg.Criteria.Describe()})
}

// envKVs is where the search ran, for people.
func envKVs(cfg *results.Config) []kv {
	if cfg == nil {
		return nil
	}
	where := "remote cluster"
	if cfg.Local {
		where = "local cluster, co-located with plimsoll"
	}
	nic := "none (loopback)"
	if cfg.NICBytesPerSec > 0 {
		nic = units.FormatBits(cfg.NICBytesPerSec) + " per direction per broker"
	}
	return []kv{
		{"cluster", where},
		{"host cores", fmt.Sprint(cfg.HostCores)},
		{"emulated NIC", nic},
		{"brokers down planned for", fmt.Sprint(cfg.BrokersDown)},
	}
}

func orDefault(n int) string {
	if n == 0 {
		return "broker default"
	}
	return fmt.Sprint(n)
}

// searchNotes are the notes every search's report ends with.
func searchNotes(cfg *results.Config) []string {
	if cfg == nil {
		return nil
	}
	var notes []string
	if cfg.Local {
		notes = append(notes, "The brokers and plimsoll ran on one host: these limits are the host's, shared by every broker and the load generator, not a production cluster's.")
	}
	if cfg.NICBytesPerSec > 0 {
		notes = append(notes, fmt.Sprintf("Each broker had an emulated NIC of %s per direction (a network namespace and a tbf-shaped link); the model line uses the same rate.", units.FormatBits(cfg.NICBytesPerSec)))
	}
	return notes
}

// recommendationText says where the recommended load comes from, in a sentence or two.
func recommendationText(r *results.Recommendation) string {
	var b strings.Builder
	perBroker := r.MeasuredBytesPerSec / float64(max(r.Brokers, 1))
	within := ""
	if r.RestsOn == results.LimitSLO {
		within = " within the latency SLO"
	}
	fmt.Fprintf(&b, "The lowest safe throughput%s was at %d-byte messages: %s produced across %d brokers, %s per broker.",
		within, r.Size, units.FormatRate(r.MeasuredBytesPerSec), r.Brokers, units.FormatRate(perBroker))
	if r.BrokersDown > 0 {
		fmt.Fprintf(&b, " With %d of %d brokers down the rest must carry their load, so plan for %s per broker.", r.BrokersDown, r.Brokers, units.FormatRate(r.PerBrokerBytesPerSec))
	}
	if r.ClientBound {
		b.WriteString(" The generator limited that search, so the cluster's true limit is higher.")
	}
	return b.String()
}
