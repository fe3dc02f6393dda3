package omb

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"

	"github.com/plimsoll/plimsoll/internal/smallfile"
)

// ErrNotOMB: the data is not an OMB result file.
var ErrNotOMB = errors.New("not an OpenMessaging Benchmark result file")

// identifying are fields every OMB result file has had since end-to-end latency was added to
// OMB (December 2017), which together no plimsoll file has.
var identifying = []string{"workload", "driver", "publishRate", "consumeRate", "publishLatency99pct",
	"aggregatedPublishLatency99pct", "endToEndLatency99pct"}

// Looks reports whether data is a JSON object with OMB's identifying fields, whatever their
// values: a cheap test to choose a reader, not a check.
func Looks(data []byte) bool {
	var m map[string]json.RawMessage
	if json.Unmarshal(data, &m) != nil {
		return false
	}
	for _, k := range identifying {
		if _, ok := m[k]; !ok {
			return false
		}
	}
	return true
}

// Parse reads an OMB result file. Fields of other OMB versions are ignored; a missing
// identifying field, a field of the wrong type, series of different lengths, a negative or
// non-finite figure are errors wrapping ErrNotOMB that name the field.
func Parse(data []byte) (*Result, error) {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(data, &m); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrNotOMB, err)
	}
	for _, k := range identifying {
		if v, ok := m[k]; !ok || bytes.Equal(bytes.TrimSpace(v), []byte("null")) {
			return nil, fmt.Errorf("%w: no %q field", ErrNotOMB, k)
		}
	}
	var r Result
	if err := json.Unmarshal(data, &r); err != nil {
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) {
			return nil, fmt.Errorf("%w: field %q holds a JSON %s, not a %s", ErrNotOMB, te.Field, te.Value, te.Type)
		}
		return nil, fmt.Errorf("%w: %v", ErrNotOMB, err)
	}
	if err := r.check(); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrNotOMB, err)
	}
	return &r, nil
}

// check refuses what no OMB run writes: series of different lengths, negative or non-finite
// figures.
func (r *Result) check() error {
	n := len(r.PublishRate)
	for name, s := range r.floatSeries() {
		if len(s) != n && len(s) != 0 && name != "aggregated" {
			return fmt.Errorf("%s has %d windows, publishRate %d", name, len(s), n)
		}
		for i, v := range s {
			if v < 0 || math.IsNaN(v) || math.IsInf(v, 0) {
				return fmt.Errorf("%s[%d] is %v", name, i, v)
			}
		}
	}
	for name, q := range map[string]Quantiles{"aggregatedPublishLatencyQuantiles": r.AggregatedPublishLatencyQuantiles,
		"aggregatedEndToEndLatencyQuantiles": r.AggregatedEndToEndLatencyQuantiles} {
		for _, x := range q {
			if x.Percentile < 0 || x.Percentile > 100 || x.Value < 0 {
				return fmt.Errorf("%s: %v at percentile %v", name, x.Value, x.Percentile)
			}
		}
	}
	if r.MessageSize < 0 || r.Topics < 0 || r.Partitions < 0 || r.ProducersPerTopic < 0 || r.ConsumersPerTopic < 0 {
		return errors.New("a negative messageSize, topics, partitions or clients per topic")
	}
	return nil
}

// floatSeries are the series of figures a reader uses, by OMB name.
func (r *Result) floatSeries() map[string][]float64 {
	return map[string][]float64{
		"publishRate": r.PublishRate, "publishErrorRate": r.PublishErrorRate, "consumeRate": r.ConsumeRate,
		"publishLatencyAvg": r.PublishLatencyAvg, "publishLatency50pct": r.PublishLatency50pct,
		"publishLatency99pct": r.PublishLatency99pct, "publishLatency999pct": r.PublishLatency999pct,
		"publishLatencyMax":  r.PublishLatencyMax,
		"endToEndLatencyAvg": r.EndToEndLatencyAvg, "endToEndLatency50pct": r.EndToEndLatency50pct,
		"endToEndLatency99pct": r.EndToEndLatency99pct, "endToEndLatency999pct": r.EndToEndLatency999pct,
		"endToEndLatencyMax": r.EndToEndLatencyMax,
		"aggregated": {r.AggregatedPublishLatency50pct, r.AggregatedPublishLatency99pct, r.AggregatedPublishLatency999pct,
			r.AggregatedEndToEndLatency50pct, r.AggregatedEndToEndLatency99pct, r.AggregatedEndToEndLatency999pct},
	}
}

// MeanPublishRate is the mean of the publish rate's windows, messages/s: the messages
// acknowledged over the test's length, as OMB's windows are all 10 s long.
func (r *Result) MeanPublishRate() float64 { return mean(r.PublishRate) }

// MeanConsumeRate is the mean of the consume rate's windows, messages/s.
func (r *Result) MeanConsumeRate() float64 { return mean(r.ConsumeRate) }

// MeanPublishErrorRate is the mean of the publish error rate's windows, errors/s.
func (r *Result) MeanPublishErrorRate() float64 { return mean(r.PublishErrorRate) }

func mean(x []float64) float64 {
	if len(x) == 0 {
		return 0
	}
	var s float64
	for _, v := range x {
		s += v
	}
	return s / float64(len(x))
}

// MaxFileBytes bounds the OMB file ReadFile reads: a long test's file with its quantile maps is
// a few hundred kilobytes.
const MaxFileBytes = 64 << 20

// ReadFile reads and parses the OMB result file at path; errors name the file.
func ReadFile(path string) (*Result, error) {
	data, err := smallfile.Read(path, MaxFileBytes)
	if err != nil {
		return nil, err
	}
	r, err := Parse(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return r, nil
}
