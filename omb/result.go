package omb

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
)

// Result is OMB's result file (TestResult in OMB's benchmark-framework, as of commit e95bb86 of
// github.com/openmessaging/benchmark): the same JSON names and types. The series hold one value
// per 10-second window. Publish and end-to-end latency are in milliseconds; publish delay
// latency (OMB: the time a message waited past its intended send time) in whole microseconds.
type Result struct {
	Workload          string `json:"workload"`
	Driver            string `json:"driver"`
	MessageSize       int64  `json:"messageSize"`
	Topics            int    `json:"topics"`
	Partitions        int    `json:"partitions"`
	ProducersPerTopic int    `json:"producersPerTopic"`
	ConsumersPerTopic int    `json:"consumersPerTopic"`

	PublishRate      []float64 `json:"publishRate"`
	PublishErrorRate []float64 `json:"publishErrorRate"`
	ConsumeRate      []float64 `json:"consumeRate"`
	Backlog          []int64   `json:"backlog"`

	PublishLatencyAvg     []float64 `json:"publishLatencyAvg"`
	PublishLatency50pct   []float64 `json:"publishLatency50pct"`
	PublishLatency75pct   []float64 `json:"publishLatency75pct"`
	PublishLatency95pct   []float64 `json:"publishLatency95pct"`
	PublishLatency99pct   []float64 `json:"publishLatency99pct"`
	PublishLatency999pct  []float64 `json:"publishLatency999pct"`
	PublishLatency9999pct []float64 `json:"publishLatency9999pct"`
	PublishLatencyMax     []float64 `json:"publishLatencyMax"`

	PublishDelayLatencyAvg     []float64 `json:"publishDelayLatencyAvg"`
	PublishDelayLatency50pct   []int64   `json:"publishDelayLatency50pct"`
	PublishDelayLatency75pct   []int64   `json:"publishDelayLatency75pct"`
	PublishDelayLatency95pct   []int64   `json:"publishDelayLatency95pct"`
	PublishDelayLatency99pct   []int64   `json:"publishDelayLatency99pct"`
	PublishDelayLatency999pct  []int64   `json:"publishDelayLatency999pct"`
	PublishDelayLatency9999pct []int64   `json:"publishDelayLatency9999pct"`
	PublishDelayLatencyMax     []int64   `json:"publishDelayLatencyMax"`

	AggregatedPublishLatencyAvg     float64 `json:"aggregatedPublishLatencyAvg"`
	AggregatedPublishLatency50pct   float64 `json:"aggregatedPublishLatency50pct"`
	AggregatedPublishLatency75pct   float64 `json:"aggregatedPublishLatency75pct"`
	AggregatedPublishLatency95pct   float64 `json:"aggregatedPublishLatency95pct"`
	AggregatedPublishLatency99pct   float64 `json:"aggregatedPublishLatency99pct"`
	AggregatedPublishLatency999pct  float64 `json:"aggregatedPublishLatency999pct"`
	AggregatedPublishLatency9999pct float64 `json:"aggregatedPublishLatency9999pct"`
	AggregatedPublishLatencyMax     float64 `json:"aggregatedPublishLatencyMax"`

	AggregatedPublishDelayLatencyAvg     float64 `json:"aggregatedPublishDelayLatencyAvg"`
	AggregatedPublishDelayLatency50pct   int64   `json:"aggregatedPublishDelayLatency50pct"`
	AggregatedPublishDelayLatency75pct   int64   `json:"aggregatedPublishDelayLatency75pct"`
	AggregatedPublishDelayLatency95pct   int64   `json:"aggregatedPublishDelayLatency95pct"`
	AggregatedPublishDelayLatency99pct   int64   `json:"aggregatedPublishDelayLatency99pct"`
	AggregatedPublishDelayLatency999pct  int64   `json:"aggregatedPublishDelayLatency999pct"`
	AggregatedPublishDelayLatency9999pct int64   `json:"aggregatedPublishDelayLatency9999pct"`
	AggregatedPublishDelayLatencyMax     int64   `json:"aggregatedPublishDelayLatencyMax"`

	AggregatedPublishLatencyQuantiles      Quantiles `json:"aggregatedPublishLatencyQuantiles"`
	AggregatedPublishDelayLatencyQuantiles Quantiles `json:"aggregatedPublishDelayLatencyQuantiles"`

	EndToEndLatencyAvg     []float64 `json:"endToEndLatencyAvg"`
	EndToEndLatency50pct   []float64 `json:"endToEndLatency50pct"`
	EndToEndLatency75pct   []float64 `json:"endToEndLatency75pct"`
	EndToEndLatency95pct   []float64 `json:"endToEndLatency95pct"`
	EndToEndLatency99pct   []float64 `json:"endToEndLatency99pct"`
	EndToEndLatency999pct  []float64 `json:"endToEndLatency999pct"`
	EndToEndLatency9999pct []float64 `json:"endToEndLatency9999pct"`
	EndToEndLatencyMax     []float64 `json:"endToEndLatencyMax"`

	AggregatedEndToEndLatencyQuantiles Quantiles `json:"aggregatedEndToEndLatencyQuantiles"`

	AggregatedEndToEndLatencyAvg     float64 `json:"aggregatedEndToEndLatencyAvg"`
	AggregatedEndToEndLatency50pct   float64 `json:"aggregatedEndToEndLatency50pct"`
	AggregatedEndToEndLatency75pct   float64 `json:"aggregatedEndToEndLatency75pct"`
	AggregatedEndToEndLatency95pct   float64 `json:"aggregatedEndToEndLatency95pct"`
	AggregatedEndToEndLatency99pct   float64 `json:"aggregatedEndToEndLatency99pct"`
	AggregatedEndToEndLatency999pct  float64 `json:"aggregatedEndToEndLatency999pct"`
	AggregatedEndToEndLatency9999pct float64 `json:"aggregatedEndToEndLatency9999pct"`
	AggregatedEndToEndLatencyMax     float64 `json:"aggregatedEndToEndLatencyMax"`
}

// WindowSeconds is the length of the windows of OMB's series.
const WindowSeconds = 10

// Quantile is one point of a latency distribution: the percentile (0..100) and the value at it.
type Quantile struct {
	Percentile float64
	Value      float64
}

// Quantiles is a distribution as OMB writes it: a JSON object from percentile to value (a Java
// TreeMap<Double, ...>, so its keys are Java's Double.toString: "50.0", "99.90234375"), in
// ascending order of percentile.
type Quantiles []Quantile

// MarshalJSON writes the object in ascending order of percentile, each key as Java writes it.
func (q Quantiles) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, x := range q {
		if i > 0 {
			b.WriteByte(',')
		}
		k, err := json.Marshal(javaDouble(x.Percentile))
		if err != nil {
			return nil, err
		}
		v, err := json.Marshal(x.Value)
		if err != nil {
			return nil, err
		}
		b.Write(k)
		b.WriteByte(':')
		b.Write(v)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// UnmarshalJSON reads the object; every key must be a number.
func (q *Quantiles) UnmarshalJSON(data []byte) error {
	var m map[string]float64
	if err := json.Unmarshal(data, &m); err != nil {
		return err
	}
	out := make(Quantiles, 0, len(m))
	for k, v := range m {
		p, err := strconv.ParseFloat(k, 64)
		if err != nil {
			return fmt.Errorf("quantile key %q is not a number", k)
		}
		out = append(out, Quantile{Percentile: p, Value: v})
	}
	slices.SortFunc(out, func(a, b Quantile) int {
		switch {
		case a.Percentile < b.Percentile:
			return -1
		case a.Percentile > b.Percentile:
			return 1
		}
		return 0
	})
	*q = out
	return nil
}

// javaDouble formats v as Java's Double.toString does for the values a percentile takes (0 to
// 100): the shortest decimal that reads back as v, with at least one digit after the point.
func javaDouble(v float64) string {
	s := strconv.FormatFloat(v, 'f', -1, 64)
	if !bytes.ContainsAny([]byte(s), ".") {
		s += ".0"
	}
	return s
}

// Marshal writes r as OMB's file: indented JSON ending in a newline.
func Marshal(r *Result) ([]byte, error) {
	b, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return nil, err
	}
	return append(b, '\n'), nil
}
