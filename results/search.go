package results

import (
	"errors"
	"fmt"
	"time"

	"github.com/plimsoll/plimsoll/verdict"
	"github.com/plimsoll/plimsoll/workload"
)

// Search is the first record of a limit search (kind "search"): everything that determines which
// trials it runs, so the results file describes itself and a resume with other settings is
// refused.
type Search struct {
	Sizes            []int     `json:"sizes"`
	Tolerance        float64   `json:"tolerance"`
	MinRate          float64   `json:"min_rate"`
	MaxRate          float64   `json:"max_rate"`
	Growth           float64   `json:"growth"`
	MaxTrialsPerSize int       `json:"max_trials_per_size"`
	FirstStep        float64   `json:"first_step"`
	SLO              bool      `json:"slo"`     // the SLO limit is searched besides the ceiling
	Confirm          bool      `json:"confirm"` // safe rates are held before they are reported
	MaxHolds         int       `json:"max_holds"`
	Starts           []float64 `json:"starts,omitempty"` // the first rate of each size; absent when derived from the previous size
	Config           *Config   `json:"config,omitempty"`
}

// Config is the rest of a search's configuration: the workload, the criteria and the cluster the
// boundary depends on.
type Config struct {
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
	// Producer is the produce path every trial used: "" for franz-go's producer, ProducerLean for
	// plimsoll's own (--lean-producer).
	Producer string `json:"producer,omitempty"`
}

// ProducerLean is Config.Producer of a search whose trials produced through plimsoll's own
// produce path (loadgen.Options.LeanProducer).
const ProducerLean = "lean"

// Boundary is a limit search's answer for one message size (kind "boundary"): its two limits.
type Boundary struct {
	Size int `json:"size"` // bytes per message
	// Ceiling is the throughput ceiling: the rates judged by every criterion but the latency
	// SLO (Dropbox's: shortfall, consumers and followers falling behind, request handlers, ISR).
	Ceiling Limit `json:"ceiling"`
	// SLO is the limit with the latency objective too; nil when the search had no latency SLO.
	// It is at or below the ceiling.
	SLO *Limit `json:"slo,omitempty"`
	// Trials counts the trials this size used, retries, holds and trials reused on resume
	// included.
	Trials int `json:"trials"`
	// Note says why the search stopped when it did not find tight brackets, and what to change.
	Note string `json:"note,omitempty"`
	// NonMonotonic lists pairs of trials that contradict each other: ok at a rate at or above
	// one that was overloaded. The brackets trust the overloaded one.
	NonMonotonic []Contradiction `json:"non_monotonic,omitempty"`
	// LinkOverhead is what the emulated links carried beyond the records, per record byte, in
	// this size's trials: the median over the trials the ceiling judged ok (over all its trials
	// when none was); 0 without emulated links.
	LinkOverhead float64 `json:"link_overhead,omitempty"`
	// Model is the capacity model's prediction for this size, when it had a capacity to go on.
	Model *Prediction `json:"model,omitempty"`
}

// Limit is one limit of one message size: the highest rate ok by its judgement and the lowest
// overloaded.
type Limit struct {
	// SafeRate is the highest rate, messages/s, whose trial was ok (below every overloaded
	// one); 0 when none was.
	SafeRate float64 `json:"safe_rate"`
	// UnsafeRate is the lowest rate, messages/s, whose trial was overloaded; 0 when none was.
	// When both are found and ClientBound is false, the limit lies in [SafeRate, UnsafeRate),
	// a bracket no wider than the search's tolerance.
	UnsafeRate float64 `json:"unsafe_rate"`
	// SafeBytesPerSec is SafeRate x Size: message payload bytes, without Kafka's framing.
	SafeBytesPerSec float64 `json:"safe_bytes_per_sec"`
	// Bottleneck is the resource that gave out at UnsafeRate, or, without an unsafe point, the
	// busiest one at SafeRate.
	Bottleneck string `json:"bottleneck,omitempty"`
	// ClientBound says a trial above SafeRate was client-bound, so the search could not learn
	// where the limit is; SafeRate is then only a lower bound of it.
	ClientBound bool `json:"client_bound,omitempty"`
	// Confirmed says the safe rate held in a longer trial (a hold) after the bracket closed.
	Confirmed bool `json:"confirmed,omitempty"`
}

// Found reports whether the limit is bracketed: an ok and an overloaded rate, neither limited by
// the load generator.
func (l Limit) Found() bool { return l.SafeRate > 0 && l.UnsafeRate > 0 && !l.ClientBound }

// Safe is the limit a safe load rests on: the SLO limit when there is one, else the ceiling.
func (b Boundary) Safe() Limit {
	if b.SLO != nil {
		return *b.SLO
	}
	return b.Ceiling
}

// RestsOn names the limit Safe returns: "slo" or "ceiling".
func (b Boundary) RestsOn() string {
	if b.SLO != nil {
		return LimitSLO
	}
	return LimitCeiling
}

// The two limits of a size, as trials and contradictions name them.
const (
	LimitCeiling = "ceiling"
	LimitSLO     = "slo"
)

// Contradiction is a pair of trials of one size whose verdicts, by one limit, contradict each
// other: ok at a rate at or above one that was overloaded.
type Contradiction struct {
	Limit      string  `json:"limit"` // LimitCeiling or LimitSLO
	OK         int     `json:"ok_trial"`
	OKRate     float64 `json:"ok_rate"`
	Overloaded int     `json:"overloaded_trial"`
	OverRate   float64 `json:"overloaded_rate"`
}

// Prediction is the capacity model's rates for one message size: the throughput ceiling, and,
// once calibrated on the search's trials, the rate at which p99 latency reaches the SLO.
type Prediction struct {
	MsgsPerSec float64 `json:"msgs_per_sec"`
	Bottleneck string  `json:"bottleneck,omitempty"` // the resource the model saw give out first
	// SLOMsgsPerSec is the calibrated prediction of the SLO limit, made before this size was
	// measured; 0 without a calibration.
	SLOMsgsPerSec float64 `json:"slo_msgs_per_sec,omitempty"`
	// FramedMsgsPerSec is the model's ceiling with the link overhead measured in this size's
	// trials (Boundary.LinkOverhead) counted against the NICs; 0 without a measurement.
	// MsgsPerSec counts none: it is the prediction the search started from.
	FramedMsgsPerSec float64 `json:"framed_msgs_per_sec,omitempty"`
}

// Ceiling is the model's ceiling to compare a measured ceiling with: FramedMsgsPerSec when the
// link overhead was measured, else MsgsPerSec.
func (p Prediction) Ceiling() float64 {
	if p.FramedMsgsPerSec > 0 {
		return p.FramedMsgsPerSec
	}
	return p.MsgsPerSec
}

// Recommendation is the load to plan for (kind "recommendation"): Dropbox's rule, the lowest
// measured per-broker limit over the sizes, scaled for brokers down by the model.
type Recommendation struct {
	PerBrokerBytesPerSec float64 `json:"per_broker_bytes_per_sec"`
	ClusterBytesPerSec   float64 `json:"cluster_bytes_per_sec"`
	BrokersDown          int     `json:"brokers_down"`
	// Size is the message size whose boundary set it, MeasuredBytesPerSec its safe rate over
	// the whole cluster, and Brokers the cluster's size.
	Size                int     `json:"size"`
	MeasuredBytesPerSec float64 `json:"measured_bytes_per_sec"`
	Brokers             int     `json:"brokers"`
	// ClientBound says the generator limited that size's search: the cluster can take more.
	ClientBound bool `json:"client_bound,omitempty"`
	// RestsOn names the limit the safe load rests on: LimitSLO or LimitCeiling.
	RestsOn string `json:"rests_on"`
}

// SearchFile is a limit search as read back from its results file.
type SearchFile struct {
	Path    string    // the results file
	Written time.Time // when its header was written
	Header  Search
	Trials  []Trial    // in the order run
	Points  []Boundary // in the order found
	// Recommendation is nil until the search has finished (or when no size had a safe rate).
	Recommendation *Recommendation
	Warnings       []Warning // problems Load worked around (a torn last line)
}

// ErrNoSearch is returned by LoadSearch for a results file without a search header.
var ErrNoSearch = errors.New("no limit search in the results file")

// LoadSearch reads a limit search's results file.
func LoadSearch(path string) (*SearchFile, error) {
	recs, warns, err := Load(path)
	if err != nil {
		return nil, err
	}
	sf := &SearchFile{Path: path, Warnings: warns}
	for _, r := range recs {
		if err := sf.add(r); err != nil {
			return nil, err
		}
	}
	if sf.Written.IsZero() {
		return nil, fmt.Errorf("results: %s: %w", path, ErrNoSearch)
	}
	return sf, nil
}

func (sf *SearchFile) add(r Record) error {
	switch r.Kind {
	case KindSearch:
		if !sf.Written.IsZero() {
			return fmt.Errorf("results: %s: %w: a second search header (one search per file)", r.Pos, ErrCorrupt)
		}
		sf.Written = r.Time.UTC()
		return r.Decode(&sf.Header)
	case KindTrial:
		var t Trial
		if err := r.Decode(&t); err != nil {
			return err
		}
		sf.Trials = append(sf.Trials, t)
	case KindBoundary:
		var b Boundary
		if err := r.Decode(&b); err != nil {
			return err
		}
		sf.Points = append(sf.Points, b)
	case KindRecommendation:
		var rec Recommendation
		if err := r.Decode(&rec); err != nil {
			return err
		}
		sf.Recommendation = &rec
	}
	return nil
}
