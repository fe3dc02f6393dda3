package use

import (
	"slices"
	"time"

	"github.com/plimsoll/plimsoll/probe"
)

// Table is a USE summary of a series: for each resource of each broker, the cluster and the
// client host, how much work it did (Amount), how busy it was (Utilisation), how much work
// waited (Saturation) and what failed (Errors). docs/use.md lists every row's metrics. The JSON
// form is result.json's "use".
type Table struct {
	From    time.Time `json:"from"`
	To      time.Time `json:"to"`
	Seconds float64   `json:"seconds"`
	Samples int       `json:"samples"`
	Rows    []Row     `json:"rows"`
	Notes   []string  `json:"notes,omitempty"`
}

// Row is one resource of one entity ("broker 1", "cluster", "client host").
type Row struct {
	Entity      string `json:"entity"`
	Resource    string `json:"resource"`
	Amount      Cell   `json:"amount"`
	Utilisation Cell   `json:"utilisation"`
	Saturation  Cell   `json:"saturation"`
	Errors      Cell   `json:"errors"`
}

// Cell is one metric over the window: its mean and maximum over the samples that have it.
// A cell with no samples is blank, and Missing says why (empty: the method has no metric here).
type Cell struct {
	Metric  string    `json:"metric,omitempty"`
	Mean    probe.Num `json:"mean"`
	Max     probe.Num `json:"max"`
	Unit    string    `json:"unit,omitempty"`
	Source  string    `json:"source,omitempty"`
	Samples int       `json:"samples"`
	// Drain is the rate, in the cell's unit per second, at which the queue a backlog cell
	// measures empties (a link's rate, bytes/s), so that a reader can tell the wait it means;
	// 0 when not a backlog or unknown.
	Drain float64 `json:"drain_per_s,omitempty"`
	// Parts are the addends of a cell that sums metrics of different sources (each measured on
	// its own, so their means add up only over the same seconds).
	Parts []Cell `json:"parts,omitempty"`
	// Missing is stored under the JSON key "note", where tables written before the codes
	// existed hold a sentence instead; readers show an unknown value as it is.
	Missing Reason `json:"note,omitempty"`

	// pending is the 1-based index of the deferred pass that fills the cell (0: filled).
	pending int
}

// Blank reports whether the cell holds no value.
func (c Cell) Blank() bool { return c.Samples == 0 }

// Reason says why a cell is blank: a fact, for a renderer to word (and to name the setting that
// would fill the cell).
type Reason string

// The reasons a cell can be blank.
const (
	// NoData: the metric exists but no sample in the window had a value.
	NoData Reason = "no-data"
	// NoMetricsEndpoint: the broker has no Prometheus endpoint configured.
	NoMetricsEndpoint Reason = "no-metrics-endpoint"
	// NoNICCapacity: the network capacity per direction is unknown.
	NoNICCapacity Reason = "no-nic-capacity"
	// NoDiskCapacity: the disk write capacity is unknown.
	NoDiskCapacity Reason = "no-disk-capacity"
	// NotObservableRemotely: the metric needs the broker's host (/proc), not its endpoint.
	NotObservableRemotely Reason = "not-observable-remotely"
	// LoopbackNoCapacity: the busiest interface is loopback, which has no capacity.
	LoopbackNoCapacity Reason = "loopback-no-capacity"
	// NoInterface: the host reported no network interface with traffic.
	NoInterface Reason = "no-interface"
	// NoDisk: the host reported no disk that did I/O.
	NoDisk Reason = "no-disk"
)

// Cell units.
const (
	UnitPct   = "%"
	UnitBps   = "B/s"
	UnitBytes = "B"
	UnitCores = "cores"
	UnitMs    = "ms"
	UnitPerS  = "/s"
	UnitCount = "count"
)

func blank(why Reason) Cell { return Cell{Mean: probe.Missing, Max: probe.Missing, Missing: why} }

// sample reads one value from a sample; probe.Missing when it has none.
type sample func(probe.Sample) probe.Num

// series adds the table's measurements to a probe series. With deferred set, measure only
// registers its cell's pass over the samples, and Summarise makes every registered pass at once
// at the end: one read of a spilled series instead of one per cell.
type series struct {
	*probe.Series
	deferred *passes
}

// measure averages f over the samples; scale converts (100 for a fraction shown in %).
func (s series) measure(metric, unit, source string, scale float64, f sample) Cell {
	c := Cell{Metric: metric, Unit: unit, Source: source, Mean: probe.Missing, Max: probe.Missing}
	a := &cellPass{f: f, scale: scale}
	if s.deferred != nil {
		s.deferred.means = append(s.deferred.means, a)
		c.pending = len(s.deferred.means)
		return c
	}
	for x := range s.All() {
		a.add(x)
	}
	a.fill(&c)
	return c
}

// cellPass is one cell's mean and max over the samples, accumulated a sample at a time.
type cellPass struct {
	f       sample
	scale   float64
	sum, mx float64
	n       int
}

func (a *cellPass) add(x probe.Sample) {
	v := a.f(x)
	if !v.OK() {
		return
	}
	f := float64(v) * a.scale
	a.sum += f
	if a.n == 0 || f > a.mx {
		a.mx = f
	}
	a.n++
}

// fill sets the cell's figures.
func (a *cellPass) fill(c *Cell) {
	c.Samples = a.n
	if a.n == 0 {
		c.Missing = NoData
		return
	}
	c.Mean, c.Max = probe.Num(a.sum/float64(a.n)), probe.Num(a.mx)
}

// passes are the cells' passes measure deferred.
type passes struct{ means []*cellPass }

// fill makes every deferred pass in one read of s and fills the table's cells from them.
func (p *passes) fill(s *probe.Series, t *Table) {
	for x := range s.All() {
		for _, a := range p.means {
			a.add(x)
		}
	}
	for i := range t.Rows {
		r := &t.Rows[i]
		for _, c := range []*Cell{&r.Amount, &r.Utilisation, &r.Saturation, &r.Errors} {
			p.fillCell(c)
		}
	}
}

func (p *passes) fillCell(c *Cell) {
	if c.pending > 0 {
		p.means[c.pending-1].fill(c)
		c.pending = 0
	}
	for i := range c.Parts {
		p.fillCell(&c.Parts[i])
	}
}

// has reports whether f yields a value in any sample.
func (s series) has(f sample) bool {
	return s.any(func(x probe.Sample) bool { return f(x).OK() })
}

// Summarise builds the USE table of s (usually a Window of a series).
func Summarise(ps *probe.Series) Table {
	s := series{Series: ps, deferred: &passes{}}
	t := Table{Samples: s.Len()}
	if t.Samples > 0 {
		t.From, t.To = s.Span()
		t.Seconds = t.To.Sub(t.From).Seconds()
	}
	for _, id := range s.BrokerIDs() {
		t.Rows = append(t.Rows, s.brokerRows(id)...)
	}
	if s.hasMeta() {
		t.Rows = append(t.Rows, s.clusterRow())
	}
	if s.hasHost() {
		t.Rows = append(t.Rows, s.hostRows()...)
	}
	t.Notes = append(slices.Clone(s.Notes), s.notes()...)
	s.deferred.fill(ps, &t)
	return t
}

func (s series) hasHost() bool {
	return s.any(func(x probe.Sample) bool { return x.Host != nil })
}

func (s series) hasMeta() bool {
	return s.any(func(x probe.Sample) bool { return x.Meta != nil && x.Meta.Partitions > 0 })
}

// any reports whether f holds for a sample; it reads no further than the first that does.
func (s series) any(f func(probe.Sample) bool) bool {
	for x := range s.All() {
		if f(x) {
			return true
		}
	}
	return false
}

// bf lifts a broker metric into a sample function.
func bf(id int32, f func(*probe.BrokerSample) probe.Num) sample {
	return func(x probe.Sample) probe.Num {
		if b := x.Brokers[id]; b != nil {
			return f(b)
		}
		return probe.Missing
	}
}

// hf lifts a host metric into a sample function.
func hf(f func(*probe.HostSample) probe.Num) sample {
	return func(x probe.Sample) probe.Num {
		if x.Host != nil {
			return f(x.Host)
		}
		return probe.Missing
	}
}

// mf lifts a metadata figure into a sample function; a failed request is missing.
func mf(f func(probe.Sample, *probe.MetaSample) probe.Num) sample {
	return func(x probe.Sample) probe.Num {
		if x.Meta == nil || x.Meta.Err != "" {
			return probe.Missing
		}
		return f(x, x.Meta)
	}
}

// HostCPU is the client host's cpu row (busy cores, busy share, run-queue saturation); ok is
// false when the table has none (nothing probed the host).
func (t *Table) HostCPU() (Row, bool) {
	if t == nil {
		return Row{}, false
	}
	for _, r := range t.Rows {
		if r.Entity == hostEntity && r.Resource == "cpu" {
			return r, true
		}
	}
	return Row{}, false
}
