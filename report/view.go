package report

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strings"
)

// status of a boundary point, for people.
const (
	statusFound       = "found"        // an ok and an overloaded rate bracket the limit
	statusClientBound = "client-bound" // the generator was the limit: a lower bound only
	statusLowerBound  = "lower bound"  // no rate tried overloaded the cluster
	statusNone        = "none"         // no rate tried was ok
)

// clientBoundNote is what every client-bound point says about itself.
const clientBoundNote = "the generator, not the cluster, was the limit here"

// point is a boundary point with what the report derives from it.
type point struct {
	Point
	Status      string
	Model       *ModelPoint // at the same size, if the model has one
	SafeTrial   *Trial      // the trial at SafeMsgsPerSec, if listed
	UnsafeTrial *Trial      // the trial at UnsafeMsgsPerSec, if listed
}

// view is Data prepared for rendering: sorted, derived figures filled in, sentences written.
// Both the HTML and the text rendering use it, so they say the same thing.
type view struct {
	Data
	Points    []point      // by size
	ModelPts  []ModelPoint // by size, BytesPerSec filled
	Headline  string       // the answer, first thing on the page
	Others    []string     // the boundary at the other sizes, one phrase each
	Recommend string       // the recommended safe load, or ""
	Warnings  []string     // co-located run, client-bound points
}

func newView(d Data) *view {
	v := &view{Data: d}
	v.ModelPts = slices.Clone(d.Model)
	for i := range v.ModelPts {
		if m := &v.ModelPts[i]; m.BytesPerSec == 0 {
			m.BytesPerSec = m.MsgsPerSec * float64(m.SizeBytes)
		}
	}
	slices.SortStableFunc(v.ModelPts, func(a, b ModelPoint) int { return cmp.Compare(a.SizeBytes, b.SizeBytes) })
	for _, p := range d.Boundary {
		if p.SafeBytesPerSec == 0 {
			p.SafeBytesPerSec = p.SafeMsgsPerSec * float64(p.SizeBytes)
		}
		pt := point{Point: p, Status: pointStatus(p)}
		for i := range v.ModelPts {
			if v.ModelPts[i].SizeBytes == p.SizeBytes {
				pt.Model = &v.ModelPts[i]
			}
		}
		pt.SafeTrial = findTrial(d.Trials, p.SizeBytes, p.SafeMsgsPerSec, StateOK)
		pt.UnsafeTrial = findTrial(d.Trials, p.SizeBytes, p.UnsafeMsgsPerSec, StateOverloaded)
		v.Points = append(v.Points, pt)
	}
	slices.SortStableFunc(v.Points, func(a, b point) int { return cmp.Compare(a.SizeBytes, b.SizeBytes) })
	v.Headline, v.Others = v.answer()
	v.Recommend = v.recommendation()
	v.Warnings = v.warnings()
	return v
}

func pointStatus(p Point) string {
	switch {
	case p.ClientBound:
		return statusClientBound
	case p.SafeMsgsPerSec > 0 && p.UnsafeMsgsPerSec > 0:
		return statusFound
	case p.SafeMsgsPerSec > 0:
		return statusLowerBound
	}
	return statusNone
}

// findTrial returns the last trial of that size and state run at rate (to 1e-9 relative, as the
// rates went through JSON), or nil. The last one, because a retried trial supersedes the first.
func findTrial(ts []Trial, size int, rate float64, state string) *Trial {
	if rate <= 0 {
		return nil
	}
	for i := len(ts) - 1; i >= 0; i-- {
		t := &ts[i]
		if t.SizeBytes == size && t.State == state && !t.ClientBound &&
			math.Abs(t.TargetMsgsPerSec-rate) <= 1e-9*rate {
			return t
		}
	}
	return nil
}

// subject is who the figures are about: a co-located run measures the host.
func (v *view) subject() string {
	if v.CoLocated {
		return "This host (brokers and load generator on one machine)"
	}
	return "This cluster"
}

// reference picks the point the headline is about: the one nearest 1 KB (log distance) with a
// safe rate, as 1 KB is the size most published figures use; ties go to the smaller size.
func (v *view) reference() *point {
	var best *point
	bestDist := math.Inf(1)
	for i := range v.Points {
		p := &v.Points[i]
		if p.SafeMsgsPerSec <= 0 {
			continue
		}
		if d := math.Abs(math.Log10(float64(p.SizeBytes) / 1000)); d < bestDist {
			best, bestDist = p, d
		}
	}
	return best
}

// sustains says what the point's safe rate means in a phrase: "20.0 MB/s per broker at 1 KB
// messages (60.0 MB/s, 60,000 msgs/s over 3 brokers)".
func (v *view) sustains(p *point) string {
	if v.Brokers > 0 {
		return fmt.Sprintf("%s MB/s per broker at %s messages (%s MB/s, %s msgs/s over %s)",
			fmtMBps(p.SafeBytesPerSec/float64(v.Brokers)), fmtSize(p.SizeBytes),
			fmtMBps(p.SafeBytesPerSec), fmtRate(p.SafeMsgsPerSec), plural(v.Brokers, "broker"))
	}
	return fmt.Sprintf("%s MB/s at %s messages (%s msgs/s)",
		fmtMBps(p.SafeBytesPerSec), fmtSize(p.SizeBytes), fmtRate(p.SafeMsgsPerSec))
}

func (v *view) answer() (string, []string) {
	ref := v.reference()
	if ref == nil {
		for _, p := range v.Points {
			if p.UnsafeMsgsPerSec > 0 {
				return fmt.Sprintf("%s sustained no rate tried: at %s messages it overloaded even at the lowest rate tried, %s msgs/s. Lower the search's minimum rate.",
					v.subject(), fmtSize(p.SizeBytes), fmtRate(p.UnsafeMsgsPerSec)), nil
			}
		}
		return "No trial has a verdict yet, so there is no boundary to report.", nil
	}
	var h string
	switch ref.Status {
	case statusFound:
		h = fmt.Sprintf("%s sustains %s; it overloaded at %s msgs/s", v.subject(), v.sustains(ref), fmtRate(ref.UnsafeMsgsPerSec))
		if ref.Bottleneck != "" {
			h += " (bottleneck: " + ref.Bottleneck + ")"
		}
		h += "."
	case statusClientBound:
		h = fmt.Sprintf("%s sustains at least %s. Above that the load generator, not the cluster, was the limit, so the cluster's limit is higher and unknown.",
			v.subject(), v.sustains(ref))
	default:
		h = fmt.Sprintf("%s sustains at least %s; no rate tried overloaded it.", v.subject(), v.sustains(ref))
	}
	var others []string
	for i := range v.Points {
		p := &v.Points[i]
		if p == ref {
			continue
		}
		var s string
		switch p.Status {
		case statusFound:
			s = fmt.Sprintf("%s: %s MB/s (%s msgs/s)", fmtSize(p.SizeBytes), fmtMBps(p.SafeBytesPerSec), fmtRate(p.SafeMsgsPerSec))
		case statusClientBound, statusLowerBound:
			s = fmt.Sprintf("%s: at least %s MB/s (%s msgs/s, %s)", fmtSize(p.SizeBytes), fmtMBps(p.SafeBytesPerSec), fmtRate(p.SafeMsgsPerSec), p.Status)
		default:
			s = fmt.Sprintf("%s: no rate tried was sustained", fmtSize(p.SizeBytes))
		}
		others = append(others, s)
	}
	return h, others
}

func (v *view) recommendation() string {
	r := v.Recommendation
	if r == nil {
		return ""
	}
	s := fmt.Sprintf("Recommended safe load: %s MB/s per broker, %s MB/s for the cluster", fmtMBps(r.PerBrokerBytesPerSec), fmtMBps(r.ClusterBytesPerSec))
	if r.BrokersDown > 0 {
		s += ", with room for " + plural(r.BrokersDown, "broker") + " down"
	}
	s += "."
	if t := strings.TrimSpace(r.Text); t != "" {
		s += " " + t
	}
	return s
}

func (v *view) warnings() []string {
	var w []string
	if v.CoLocated {
		host := "one host"
		if v.HostCores > 0 {
			host = "one host of " + v.HostCoresText() + " cores"
		}
		w = append(w, "Co-located run: the brokers and the load generator shared "+host+
			", so these figures measure this host, not a Kafka cluster. The CPU table shows how the host's CPU was shared.")
	}
	var cb []string
	for _, p := range v.Points {
		if p.Status == statusClientBound {
			cb = append(cb, fmtSize(p.SizeBytes))
		}
	}
	if len(cb) > 0 {
		w = append(w, "Client-bound at "+strings.Join(cb, ", ")+": "+clientBoundNote+
			". Those points are lower bounds of the cluster's limit (orange squares on the charts), not the limit.")
	}
	return w
}

// latencyKinds returns the keys of m: publish, end_to_end and schedule_delay first when present,
// then the rest sorted, so output never depends on map order.
func latencyKinds(m map[string]Percentiles) []string {
	var ks []string
	for _, k := range []string{LatencyPublish, LatencyEndToEnd, LatencyScheduleDelay} {
		if _, ok := m[k]; ok {
			ks = append(ks, k)
		}
	}
	var rest []string
	for k := range m {
		if k != LatencyPublish && k != LatencyEndToEnd && k != LatencyScheduleDelay {
			rest = append(rest, k)
		}
	}
	slices.Sort(rest)
	return append(ks, rest...)
}

// latencyName is a kind for people.
func latencyName(k string) string {
	switch k {
	case LatencyPublish:
		return "publish"
	case LatencyEndToEnd:
		return "end-to-end"
	case LatencyScheduleDelay:
		return "schedule delay"
	}
	return strings.ReplaceAll(k, "_", " ")
}

// cpuTable is Data.CPUShare pivoted: a row per process (in first-seen order), a column per
// boundary size (by size; the whole-run average last).
type cpuTable struct {
	Columns []int // SizeBytes; 0 = whole run
	Rows    []cpuRow
	Total   []float64 // per column; NaN where no process has a figure
}

type cpuRow struct {
	Who   string
	Cores []float64 // per column; NaN = no figure
}

func (v *view) cpu() *cpuTable {
	if len(v.CPUShare) == 0 {
		return nil
	}
	t := &cpuTable{}
	for _, c := range v.CPUShare {
		if !slices.Contains(t.Columns, c.SizeBytes) {
			t.Columns = append(t.Columns, c.SizeBytes)
		}
	}
	slices.SortFunc(t.Columns, func(a, b int) int {
		if (a == 0) != (b == 0) { // the average goes last
			return cmp.Compare(b, a)
		}
		return cmp.Compare(a, b)
	})
	row := map[string]int{}
	for _, c := range v.CPUShare {
		i, ok := row[c.Who]
		if !ok {
			i = len(t.Rows)
			row[c.Who] = i
			r := cpuRow{Who: c.Who, Cores: make([]float64, len(t.Columns))}
			for j := range r.Cores {
				r.Cores[j] = math.NaN()
			}
			t.Rows = append(t.Rows, r)
		}
		j := slices.Index(t.Columns, c.SizeBytes)
		if math.IsNaN(t.Rows[i].Cores[j]) {
			t.Rows[i].Cores[j] = 0
		}
		t.Rows[i].Cores[j] += c.Cores // the same process listed twice: its figures add up
	}
	t.Total = make([]float64, len(t.Columns))
	for j := range t.Columns {
		t.Total[j] = math.NaN()
		for _, r := range t.Rows {
			if !math.IsNaN(r.Cores[j]) {
				t.Total[j] = nanZero(t.Total[j]) + r.Cores[j]
			}
		}
	}
	return t
}

func nanZero(v float64) float64 {
	if math.IsNaN(v) {
		return 0
	}
	return v
}

// cpuColumn names a CPU table column.
func cpuColumn(size int) string {
	if size == 0 {
		return "whole run"
	}
	return "at " + fmtSize(size)
}

// HostCoresText is HostCores for people ("" when unknown).
func (v *view) HostCoresText() string {
	if v.HostCores <= 0 {
		return ""
	}
	return trimFloat(v.HostCores)
}

// drawable says whether the boundary charts have anything to draw: a measured or predicted rate.
func (v *view) drawable() bool {
	for _, p := range v.Points {
		if p.SafeMsgsPerSec > 0 || p.UnsafeMsgsPerSec > 0 {
			return true
		}
	}
	for _, m := range v.ModelPts {
		if m.MsgsPerSec > 0 {
			return true
		}
	}
	return false
}

// env is the environment table: whether the run was co-located, the broker count and the host's
// cores (unless Config or Environment already list them), then Environment as given.
func (v *view) env() []KV {
	listed := func(key string) bool {
		for _, kv := range append(slices.Clip(v.Config), v.Environment...) {
			if strings.EqualFold(strings.TrimSpace(kv.Key), key) {
				return true
			}
		}
		return false
	}
	co := "no"
	if v.CoLocated {
		co = "yes: brokers and load generator on one host, so the figures measure the host"
	}
	kv := []KV{{Key: "co-located", Value: co}}
	if v.Brokers > 0 && !listed("brokers") {
		kv = append(kv, KV{Key: "brokers", Value: fmt.Sprint(v.Brokers)})
	}
	if v.HostCores > 0 && !listed("host cores") {
		kv = append(kv, KV{Key: "host cores", Value: v.HostCoresText()})
	}
	return append(kv, v.Environment...)
}
