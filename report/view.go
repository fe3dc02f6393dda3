package report

import (
	"time"

	"cmp"
	"fmt"
	"github.com/plimsoll/plimsoll/results"
	"github.com/plimsoll/plimsoll/units"
	"github.com/plimsoll/plimsoll/verdict"
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

// point is a boundary point with what the report derives from it. Its Limit is the one a safe
// load rests on: the SLO limit when the search had a latency objective, else the ceiling.
type point struct {
	results.Limit
	Size         int
	Trials       int
	Note         string
	Status       string
	NonMonotonic []results.Contradiction
	// Ceiling is the throughput ceiling when Limit is the SLO limit; nil otherwise.
	Ceiling       *results.Limit
	CeilingStatus string
	Model         *modelPoint    // at the same size, if the model has one
	SafeTrial     *results.Trial // the trial at SafeRate, if listed
	UnsafeTrial   *results.Trial // the trial at UnsafeRate, if listed
}

// modelPoint is the capacity model's prediction at one message size: its throughput ceiling and,
// when calibrated, the SLO limit it predicted before the size was measured.
type modelPoint struct {
	SizeBytes     int
	MsgsPerSec    float64 // the model's ceiling, with the measured link overhead when there is one
	BytesPerSec   float64
	Bottleneck    string
	SLOMsgsPerSec float64
	// LinkOverhead is the link overhead measured in the size's trials and counted in
	// MsgsPerSec, Unframed the ceiling without it; both 0 without a measurement.
	LinkOverhead, Unframed float64
}

// view is a search prepared for rendering: sorted, derived figures filled in, sentences written.
// Both the HTML and the text rendering use it, so they say the same thing.
type view struct {
	Title       string
	Generated   time.Time // when the search began; shown as UTC
	Command     string
	Brokers     int // 0 when unknown
	Config      []kv
	Environment []kv
	CoLocated   bool    // brokers and generator on one host: the figures measure the host
	HostCores   float64 // 0 when unknown
	CPUShare    []cpuShare
	Trials      []results.Trial // in the order run
	Notes       []string

	Points    []point      // by size
	ModelPts  []modelPoint // by size
	Headline  string       // the answer, first thing on the page
	Others    []string     // the boundary at the other sizes, one phrase each
	Recommend string       // the recommended safe load, or ""
	Warnings  []string     // co-located run, client-bound points
	rec       *results.Recommendation
}

func newView(sf *results.SearchFile) *view {
	cfg := sf.Header.Config
	v := &view{Title: "plimsoll limit", Generated: sf.Written, Trials: sf.Trials, rec: sf.Recommendation,
		Config: configKVs(cfg), Environment: envKVs(cfg), Notes: searchNotes(cfg)}
	if cfg != nil {
		v.Command, v.Brokers, v.CoLocated, v.HostCores = cfg.Command, cfg.Brokers, cfg.Local, float64(cfg.HostCores)
	}
	for _, b := range sf.Points {
		pt := newPoint(b, sf.Trials)
		if m := b.Model; m != nil {
			mp := modelPoint{SizeBytes: b.Size, MsgsPerSec: m.Ceiling(), BytesPerSec: m.Ceiling() * float64(b.Size),
				Bottleneck: m.Bottleneck, SLOMsgsPerSec: m.SLOMsgsPerSec}
			if m.FramedMsgsPerSec > 0 {
				mp.LinkOverhead, mp.Unframed = b.LinkOverhead, m.MsgsPerSec
			}
			v.ModelPts = append(v.ModelPts, mp)
		}
		v.Points = append(v.Points, pt)
	}
	slices.SortStableFunc(v.ModelPts, func(a, b modelPoint) int { return cmp.Compare(a.SizeBytes, b.SizeBytes) })
	slices.SortStableFunc(v.Points, func(a, b point) int { return cmp.Compare(a.Size, b.Size) })
	for i := range v.Points {
		for j := range v.ModelPts {
			if v.ModelPts[j].SizeBytes == v.Points[i].Size {
				v.Points[i].Model = &v.ModelPts[j]
			}
		}
		if t := v.Points[i].SafeTrial; t != nil {
			v.CPUShare = append(v.CPUShare, cpuAt(v.Points[i].Size, t)...)
		}
	}
	v.Headline, v.Others = v.answer()
	v.Recommend = v.recommendation()
	v.Warnings = v.warnings()
	return v
}

// newPoint prepares a boundary point: the limit a safe load rests on, the ceiling beside it, and
// the trials at its safe and unsafe rates.
func newPoint(b results.Boundary, trials []results.Trial) point {
	safe := b.Safe()
	if safe.SafeBytesPerSec == 0 {
		safe.SafeBytesPerSec = safe.SafeRate * float64(b.Size)
	}
	pt := point{Limit: safe, Size: b.Size, Trials: b.Trials, Note: b.Note, NonMonotonic: b.NonMonotonic, Status: pointStatus(safe)}
	if b.SLO != nil {
		c := b.Ceiling
		pt.Ceiling, pt.CeilingStatus = &c, pointStatus(c)
	}
	judge := func(t *results.Trial) verdict.State { return t.Verdict.State }
	if b.SLO == nil {
		judge = func(t *results.Trial) verdict.State { return ceilingOf(t.Verdict) }
	}
	pt.SafeTrial = findTrial(trials, b.Size, safe.SafeRate, verdict.OK, judge)
	pt.UnsafeTrial = findTrial(trials, b.Size, safe.UnsafeRate, verdict.Overloaded, judge)
	return pt
}

// ceilingOf is a verdict's judgement of the throughput ceiling.
func ceilingOf(v verdict.Verdict) verdict.State {
	if v.Ceiling == "" {
		return v.State
	}
	return v.Ceiling
}

// cpuAt is each process's CPU during trial t, at a boundary size, processes sorted by name.
func cpuAt(size int, t *results.Trial) []cpuShare {
	names := make([]string, 0, len(t.CPU))
	for who := range t.CPU {
		names = append(names, who)
	}
	slices.Sort(names)
	out := make([]cpuShare, 0, len(names))
	for _, who := range names {
		out = append(out, cpuShare{SizeBytes: size, Who: who, Cores: t.CPU[who]})
	}
	return out
}

func pointStatus(p results.Limit) string {
	switch {
	case p.ClientBound:
		return statusClientBound
	case p.SafeRate > 0 && p.UnsafeRate > 0:
		return statusFound
	case p.SafeRate > 0:
		return statusLowerBound
	}
	return statusNone
}

// findTrial returns the last trial of that size run at rate (to 1e-9 relative, as the rates went
// through JSON) that judge calls state, or nil. The last one, because a retried trial or a hold
// supersedes the first.
func findTrial(ts []results.Trial, size int, rate float64, state verdict.State, judge func(*results.Trial) verdict.State) *results.Trial {
	if rate <= 0 {
		return nil
	}
	for i := len(ts) - 1; i >= 0; i-- {
		t := &ts[i]
		if t.Step != nil && t.Step.Size == size && judge(t) == state && !t.ClientBound() &&
			math.Abs(t.Step.Rate-rate) <= 1e-9*rate {
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
		if p.SafeRate <= 0 {
			continue
		}
		if d := math.Abs(math.Log10(float64(p.Size) / 1000)); d < bestDist {
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
			units.MBps(p.SafeBytesPerSec/float64(v.Brokers)), units.Size(p.Size),
			units.MBps(p.SafeBytesPerSec), units.Count(p.SafeRate), units.Plural(v.Brokers, "broker"))
	}
	return fmt.Sprintf("%s MB/s at %s messages (%s msgs/s)",
		units.MBps(p.SafeBytesPerSec), units.Size(p.Size), units.Count(p.SafeRate))
}

func (v *view) answer() (string, []string) {
	ref := v.reference()
	if ref == nil {
		for _, p := range v.Points {
			if p.UnsafeRate > 0 {
				return fmt.Sprintf("%s sustained no rate tried: at %s messages it overloaded even at the lowest rate tried, %s msgs/s. Lower the search's minimum rate.",
					v.subject(), units.Size(p.Size), units.Count(p.UnsafeRate)), nil
			}
		}
		return "No trial has a verdict yet, so there is no boundary to report.", nil
	}
	var h string
	switch ref.Status {
	case statusFound:
		within, over := "", "it overloaded at"
		if ref.Ceiling != nil {
			within, over = " within its latency SLO", "it missed the SLO at"
		}
		h = fmt.Sprintf("%s sustains %s%s; %s %s msgs/s", v.subject(), v.sustains(ref), within, over, units.Count(ref.UnsafeRate))
		if ref.Bottleneck != "" {
			h += " (bottleneck: " + ref.Bottleneck + ")"
		}
		h += "." + ceilingPhrase(ref)
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
			s = fmt.Sprintf("%s: %s MB/s (%s msgs/s)", units.Size(p.Size), units.MBps(p.SafeBytesPerSec), units.Count(p.SafeRate))
		case statusClientBound, statusLowerBound:
			s = fmt.Sprintf("%s: at least %s MB/s (%s msgs/s, %s)", units.Size(p.Size), units.MBps(p.SafeBytesPerSec), units.Count(p.SafeRate), p.Status)
		default:
			s = fmt.Sprintf("%s: no rate tried was sustained", units.Size(p.Size))
		}
		others = append(others, s)
	}
	return h, others
}

// ceilingPhrase says where a point's throughput ceiling is, when the point's limit is its SLO
// limit.
func ceilingPhrase(p *point) string {
	c := p.Ceiling
	if c == nil || c.SafeRate <= 0 {
		return ""
	}
	s := fmt.Sprintf(" Without the latency objective, its throughput ceiling is %s msgs/s (%s MB/s)", units.Count(c.SafeRate), units.MBps(c.SafeBytesPerSec))
	switch {
	case c.Found():
		s += fmt.Sprintf(", overloaded at %s msgs/s", units.Count(c.UnsafeRate))
	case c.ClientBound:
		s += " at least (the load generator was the limit above it)"
	default:
		s += " at least"
	}
	return s + "."
}

func (v *view) recommendation() string {
	r := v.rec
	if r == nil {
		return ""
	}
	s := fmt.Sprintf("Recommended safe load: %s MB/s per broker, %s MB/s for the cluster", units.MBps(r.PerBrokerBytesPerSec), units.MBps(r.ClusterBytesPerSec))
	if r.BrokersDown > 0 {
		s += ", with room for " + units.Plural(r.BrokersDown, "broker") + " down"
	}
	return s + ". " + recommendationText(r)
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
			cb = append(cb, units.Size(p.Size))
		}
	}
	if len(cb) > 0 {
		w = append(w, "Client-bound at "+strings.Join(cb, ", ")+": "+clientBoundNote+
			". Those points are lower bounds of the cluster's limit (orange squares on the charts), not the limit.")
	}
	for _, p := range v.Points {
		for _, c := range p.NonMonotonic {
			w = append(w, fmt.Sprintf("Non-monotonic at %s (%s): trial %d was ok at %s msgs/s, though trial %d was overloaded at %s msgs/s. The verdicts contradict each other; the bracket trusts the overloaded trial, and both are in the trials table.",
				units.Size(p.Size), limitName(c.Limit), c.OK, units.Count(c.OKRate), c.Overloaded, units.Count(c.OverRate)))
		}
	}
	return w
}

// limitName is a limit for people.
func limitName(l string) string {
	if l == results.LimitSLO {
		return "the SLO limit"
	}
	return "the throughput ceiling"
}

// cpuTable is view.CPUShare pivoted: a row per process (in first-seen order), a column per
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
	return "at " + units.Size(size)
}

// HostCoresText is HostCores for people ("" when unknown).
func (v *view) HostCoresText() string {
	if v.HostCores <= 0 {
		return ""
	}
	return units.Trim(v.HostCores)
}

// drawable says whether the boundary charts have anything to draw: a measured or predicted rate.
func (v *view) drawable() bool {
	for _, p := range v.Points {
		if p.SafeRate > 0 || p.UnsafeRate > 0 {
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
func (v *view) env() []kv {
	listed := func(key string) bool {
		for _, e := range append(slices.Clip(v.Config), v.Environment...) {
			if strings.EqualFold(strings.TrimSpace(e.Key), key) {
				return true
			}
		}
		return false
	}
	co := "no"
	if v.CoLocated {
		co = "yes: brokers and load generator on one host, so the figures measure the host"
	}
	out := []kv{{Key: "co-located", Value: co}}
	if v.Brokers > 0 && !listed("brokers") {
		out = append(out, kv{Key: "brokers", Value: fmt.Sprint(v.Brokers)})
	}
	if v.HostCores > 0 && !listed("host cores") {
		out = append(out, kv{Key: "host cores", Value: v.HostCoresText()})
	}
	return append(out, v.Environment...)
}
