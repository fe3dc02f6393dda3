package report

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// Data is everything a report shows. All rates are per second; sizes are bytes per message
// (payload, without Kafka's framing); latencies are milliseconds. Slices are rendered in the
// order given, except Boundary and Model, which are drawn and listed by size.
type Data struct {
	Title     string    `json:"title"`
	Generated time.Time `json:"generated"`         // when the results were produced; shown as UTC
	Command   string    `json:"command,omitempty"` // the command line that produced them

	// Brokers is the number of brokers in the cluster; 0 when unknown (no per-broker figures).
	Brokers int `json:"brokers,omitempty"`
	// Config is the full configuration of the run (Kafka version, acks, linger.ms, batch.size,
	// compression.type, rf, min.insync.replicas, partitions, payload entropy, ...), in order.
	Config []KV `json:"config,omitempty"`
	// Environment describes the host(s): cores, memory, NIC emulation rate, ..., in order.
	Environment []KV `json:"environment,omitempty"`

	// CoLocated says the brokers and the load generator ran on one host: the figures then
	// measure the host, not a cluster, and the report says so.
	CoLocated bool `json:"co_located,omitempty"`
	// HostCores is the number of CPUs of that host, to show CPUShare as a share; 0 when unknown.
	HostCores float64 `json:"host_cores,omitempty"`
	// CPUShare is the CPU each process used, per boundary size or averaged over the run.
	CPUShare []CPUShare `json:"cpu_share,omitempty"`

	Boundary       []Point         `json:"boundary,omitempty"`       // measured, one per size
	Model          []ModelPoint    `json:"model,omitempty"`          // predicted; may be empty
	Recommendation *Recommendation `json:"recommendation,omitempty"` // the safe load to plan for
	Trials         []Trial         `json:"trials,omitempty"`         // every trial, in the order run
	Notes          []string        `json:"notes,omitempty"`          // free text shown at the end
}

// KV is one labelled value of a configuration or environment table.
type KV struct {
	Key   string `json:"key"`
	Value string `json:"value"`
}

// CPUShare is the CPU one process used: a broker ("broker 1") or the generator ("plimsoll").
type CPUShare struct {
	// SizeBytes is the boundary size the figure was taken at (during the trial at the safe
	// rate); 0 means averaged over the whole run.
	SizeBytes int     `json:"size_bytes,omitempty"`
	Who       string  `json:"who"`
	Cores     float64 `json:"cores"` // CPU seconds per second
}

// Point is the measured boundary at one message size.
type Point struct {
	SizeBytes int `json:"size_bytes"`
	// SafeMsgsPerSec is the highest rate whose trial was ok; 0 when none was.
	SafeMsgsPerSec float64 `json:"safe_msgs_per_sec"`
	// UnsafeMsgsPerSec is the lowest rate whose trial was overloaded; 0 when none was.
	UnsafeMsgsPerSec float64 `json:"unsafe_msgs_per_sec"`
	// SafeBytesPerSec is SafeMsgsPerSec x SizeBytes; 0 means "compute it".
	SafeBytesPerSec float64 `json:"safe_bytes_per_sec"`
	// Bottleneck is the resource that gave out at the unsafe rate (or the busiest at the safe one).
	Bottleneck string `json:"bottleneck,omitempty"`
	Trials     int    `json:"trials"`
	// ClientBound says the generator could not go higher: SafeMsgsPerSec is then only a lower
	// bound of the cluster's limit, and the report never calls it the limit.
	ClientBound bool   `json:"client_bound,omitempty"`
	Note        string `json:"note,omitempty"`
}

// ModelPoint is the capacity model's prediction at one message size.
type ModelPoint struct {
	SizeBytes   int     `json:"size_bytes"`
	MsgsPerSec  float64 `json:"msgs_per_sec"`
	BytesPerSec float64 `json:"bytes_per_sec"` // 0 means MsgsPerSec x SizeBytes
	Bottleneck  string  `json:"bottleneck,omitempty"`
}

// Recommendation is the load to plan for, with room for brokers down.
type Recommendation struct {
	PerBrokerBytesPerSec float64 `json:"per_broker_bytes_per_sec"`
	ClusterBytesPerSec   float64 `json:"cluster_bytes_per_sec"`
	BrokersDown          int     `json:"brokers_down"`
	Text                 string  `json:"text,omitempty"` // why, in a sentence or two
}

// Trial states, as the verdict names them.
const (
	StateOK         = "ok"
	StateOverloaded = "overloaded"
	StateInvalid    = "invalid"
)

// Latency kinds with a fixed place in tables and charts; other keys of Trial.Latency follow them
// in sorted order.
const (
	LatencyPublish       = "publish"        // intended send time -> acknowledged
	LatencyEndToEnd      = "end_to_end"     // intended send time -> consumed
	LatencyScheduleDelay = "schedule_delay" // intended send time -> the send call
)

// Trial is one trial of the search.
type Trial struct {
	N                   int      `json:"n"` // 1-based, in the order run
	SizeBytes           int      `json:"size_bytes"`
	TargetMsgsPerSec    float64  `json:"target_msgs_per_sec"`
	AchievedMsgsPerSec  float64  `json:"achieved_msgs_per_sec"`
	AchievedBytesPerSec float64  `json:"achieved_bytes_per_sec"` // 0 means achieved x size
	State               string   `json:"state"`                  // ok | overloaded | invalid
	ClientBound         bool     `json:"client_bound,omitempty"` // the generator fell behind
	Reasons             []string `json:"reasons,omitempty"`
	Bottleneck          string   `json:"bottleneck,omitempty"`
	// Latency by kind (LatencyPublish, LatencyEndToEnd, ...), in ms.
	Latency map[string]Percentiles `json:"latency,omitempty"`
	USE     *UseTable              `json:"use,omitempty"`
}

// Percentiles of one latency distribution, in milliseconds.
type Percentiles struct {
	P50  float64 `json:"p50"`
	P90  float64 `json:"p90"`
	P99  float64 `json:"p99"`
	P999 float64 `json:"p999"`
	Max  float64 `json:"max"`
}

// UseTable is a USE summary (utilisation, saturation, errors per resource), rendered as is.
type UseTable struct {
	// Columns are the four header labels; empty means Resource, Utilisation, Saturation, Errors.
	Columns []string `json:"columns,omitempty"`
	Rows    []UseRow `json:"rows"`
}

// UseRow is one resource of a USE table, its cells already formatted.
type UseRow struct {
	Resource    string `json:"resource"`
	Utilisation string `json:"utilisation"`
	Saturation  string `json:"saturation"`
	Errors      string `json:"errors"`
}

// ErrInvalidData is wrapped by every problem Validate finds, for errors.Is.
var ErrInvalidData = errors.New("invalid report data")

// FieldError names the field of Data that is wrong and how to fix it.
type FieldError struct {
	Field   string // e.g. "Boundary[2].SizeBytes"
	Problem string // e.g. "is 0; give the message size in bytes (> 0)"
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

// Validate checks d and returns every problem found (joined), each a *FieldError wrapping
// ErrInvalidData, or nil.
func Validate(d Data) error {
	var errs []error
	bad := func(field, format string, args ...any) {
		errs = append(errs, &FieldError{Field: field, Problem: fmt.Sprintf(format, args...)})
	}
	num := func(field string, v, limit float64) {
		if math.IsNaN(v) || math.IsInf(v, 0) || v < 0 || v > limit || v > 0 && v < minPositive {
			bad(field, "is %v; it must be 0 or a number from %g to %g", v, minPositive, limit)
		}
	}
	size := func(field string, v int) {
		if v <= 0 || v > maxSize {
			bad(field, "is %d; give the message size in bytes, from 1 to %d", v, maxSize)
		}
	}
	if d.Brokers < 0 {
		bad("Brokers", "is %d; give the number of brokers, or 0 when unknown", d.Brokers)
	}
	num("HostCores", d.HostCores, maxCores)
	for i, c := range d.CPUShare {
		f := fmt.Sprintf("CPUShare[%d]", i)
		if strings.TrimSpace(c.Who) == "" {
			bad(f+".Who", "is empty; name the process, e.g. \"broker 1\" or \"plimsoll\"")
		}
		if c.SizeBytes != 0 {
			size(f+".SizeBytes", c.SizeBytes)
		}
		num(f+".Cores", c.Cores, maxCores)
	}
	seen := map[int]int{}
	for i, p := range d.Boundary {
		f := fmt.Sprintf("Boundary[%d]", i)
		size(f+".SizeBytes", p.SizeBytes)
		if j, dup := seen[p.SizeBytes]; dup && p.SizeBytes > 0 {
			bad(f+".SizeBytes", "is %d, as Boundary[%d] is; give one point per size", p.SizeBytes, j)
		}
		seen[p.SizeBytes] = i
		num(f+".SafeMsgsPerSec", p.SafeMsgsPerSec, maxRate)
		num(f+".UnsafeMsgsPerSec", p.UnsafeMsgsPerSec, maxRate)
		num(f+".SafeBytesPerSec", p.SafeBytesPerSec, maxRate)
		if p.Trials < 0 {
			bad(f+".Trials", "is %d; it counts trials, so it must be >= 0", p.Trials)
		}
	}
	seen = map[int]int{}
	for i, m := range d.Model {
		f := fmt.Sprintf("Model[%d]", i)
		size(f+".SizeBytes", m.SizeBytes)
		if j, dup := seen[m.SizeBytes]; dup && m.SizeBytes > 0 {
			bad(f+".SizeBytes", "is %d, as Model[%d] is; give one prediction per size", m.SizeBytes, j)
		}
		seen[m.SizeBytes] = i
		num(f+".MsgsPerSec", m.MsgsPerSec, maxRate)
		num(f+".BytesPerSec", m.BytesPerSec, maxRate)
	}
	if r := d.Recommendation; r != nil {
		num("Recommendation.PerBrokerBytesPerSec", r.PerBrokerBytesPerSec, maxRate)
		num("Recommendation.ClusterBytesPerSec", r.ClusterBytesPerSec, maxRate)
		if r.BrokersDown < 0 {
			bad("Recommendation.BrokersDown", "is %d; it must be >= 0", r.BrokersDown)
		}
	}
	for i, t := range d.Trials {
		f := fmt.Sprintf("Trials[%d]", i)
		size(f+".SizeBytes", t.SizeBytes)
		switch t.State {
		case StateOK, StateOverloaded, StateInvalid:
		default:
			bad(f+".State", "is %q; it must be one of ok, overloaded, invalid", t.State)
		}
		num(f+".TargetMsgsPerSec", t.TargetMsgsPerSec, maxRate)
		num(f+".AchievedMsgsPerSec", t.AchievedMsgsPerSec, maxRate)
		num(f+".AchievedBytesPerSec", t.AchievedBytesPerSec, maxRate)
		for _, k := range latencyKinds(t.Latency) {
			lf := fmt.Sprintf("%s.Latency[%q]", f, k)
			if strings.TrimSpace(k) == "" {
				bad(lf, "has an empty kind; use e.g. %q or %q", LatencyPublish, LatencyEndToEnd)
			}
			q := t.Latency[k]
			for _, v := range []struct {
				name string
				v    float64
			}{{"P50", q.P50}, {"P90", q.P90}, {"P99", q.P99}, {"P999", q.P999}, {"Max", q.Max}} {
				num(lf+"."+v.name, v.v, maxLatency)
			}
		}
		if t.USE != nil && len(t.USE.Columns) != 0 && len(t.USE.Columns) != 4 {
			bad(f+".USE.Columns", "has %d labels; give 4 (resource, utilisation, saturation, errors) or none", len(t.USE.Columns))
		}
	}
	return errors.Join(errs...)
}

// ReadData decodes the JSON that WriteDir stores as data.json and validates it. Unknown fields
// are an error (they are most likely a misspelt field of a hand-edited file).
func ReadData(r io.Reader) (Data, error) {
	dec := json.NewDecoder(r)
	dec.DisallowUnknownFields()
	var d Data
	if err := dec.Decode(&d); err != nil {
		return Data{}, fmt.Errorf("report: decoding data: %w", err)
	}
	if dec.More() {
		return Data{}, fmt.Errorf("report: decoding data: %w: more than one JSON value", ErrInvalidData)
	}
	if err := Validate(d); err != nil {
		return Data{}, err
	}
	return d, nil
}

// LoadDir reads dir/data.json, as WriteDir wrote it.
func LoadDir(dir string) (Data, error) {
	b, err := os.ReadFile(filepath.Join(dir, dataFile))
	if err != nil {
		return Data{}, fmt.Errorf("report: %w", err)
	}
	d, err := ReadData(bytes.NewReader(b))
	if err != nil {
		return Data{}, fmt.Errorf("%s: %w", filepath.Join(dir, dataFile), err)
	}
	return d, nil
}
