package compare

import (
	"cmp"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/plimsoll/plimsoll/loadgen"
	"github.com/plimsoll/plimsoll/loadgen/hdr"
	"github.com/plimsoll/plimsoll/results"
	"github.com/plimsoll/plimsoll/use"
	"gonum.org/v1/gonum/stat"
)

// runFigure is how one figure is read from runs.
type runFigure struct {
	fig Figure // name, subject, unit and direction
	// rep is the figure of one repetition; ok false when the run lacks it.
	rep func(*results.Trial) (float64, bool)
	// seconds are its values in the measured window's seconds; nil when it has none.
	seconds func(*results.Trial) []float64
	// whole is the side's figure; nil: the median of its repetitions.
	whole func([]*results.Trial) (float64, bool)
}

// runFigures compares two sides of runs, figure by figure.
func runFigures(a, b []*results.Trial, o Options) []Figure {
	var out []Figure
	for _, rf := range runSources(a, b) {
		sa, okA := rf.samples(a)
		sb, okB := rf.samples(b)
		if !okA || !okB {
			continue
		}
		f := rf.fig
		f.A, f.B = rf.central(a, sa), rf.central(b, sb)
		f.judge(sa, sb, o)
		out = append(out, f)
	}
	return out
}

func (rf runFigure) samples(ts []*results.Trial) (samples, bool) {
	var s samples
	for _, t := range ts {
		if v, ok := rf.rep(t); ok {
			s.reps = append(s.reps, v)
		}
		if rf.seconds != nil {
			s.seconds = append(s.seconds, rf.seconds(t)...)
		}
	}
	return s, len(s.reps) > 0
}

func (rf runFigure) central(ts []*results.Trial, s samples) float64 {
	if rf.whole != nil {
		if v, ok := rf.whole(ts); ok {
			return v
		}
	}
	return median(s.reps)
}

// median is the median of x (the mean of the middle two when their number is even).
func median(x []float64) float64 {
	x = slices.Sorted(slices.Values(x))
	n := len(x)
	if n == 0 {
		return 0
	}
	return stat.Mean(x[(n-1)/2:n/2+1], nil)
}

// runSources lists every figure runs can have: the rates, the latency percentiles, CPU per
// message of each broker, broker and wire bytes per message and each utilisation of the USE tables.
func runSources(a, b []*results.Trial) []runFigure {
	out := []runFigure{
		rate("produced", func(r *loadgen.Result) float64 { return r.ProducedMsgsPerSec },
			func(s loadgen.Second) float64 { return s.ProducedMsgsPerSec }),
		rate("consumed", func(r *loadgen.Result) float64 { return r.ConsumedMsgsPerSec },
			func(s loadgen.Second) float64 { return s.ConsumedMsgsPerSec }),
	}
	for _, l := range []struct {
		name string
		hist func(*loadgen.Histograms) *hdr.Hist
		sec  func(loadgen.Second) loadgen.SecondLatency
	}{
		{"publish latency", func(h *loadgen.Histograms) *hdr.Hist { return h.Publish }, func(s loadgen.Second) loadgen.SecondLatency { return s.Publish }},
		{"end-to-end latency", func(h *loadgen.Histograms) *hdr.Hist { return h.EndToEnd }, func(s loadgen.Second) loadgen.SecondLatency { return s.EndToEnd }},
	} {
		out = append(out, latency(l.name, "p50", 0.5, l.hist, func(s loadgen.Second) (float64, bool) { x := l.sec(s); return x.P50, x.Count > 0 }),
			latency(l.name, "p99", 0.99, l.hist, func(s loadgen.Second) (float64, bool) { x := l.sec(s); return x.P99, x.Count > 0 }),
			latency(l.name, "p99.9", 0.999, l.hist, nil))
	}
	for _, p := range brokerProcesses(a, b) {
		out = append(out, cpuPerMessage(p), cpuPerMessageLessJIT(p), userCPUPerMessageLessJIT(p))
	}
	out = append(out, bytesPerMessage(), wireBytesPerMessage())
	for _, k := range utilisationRows(a, b) {
		out = append(out, utilisation(k))
	}
	return out
}

// measured returns f of each second of the measured window that has a value.
func measured(t *results.Trial, f func(loadgen.Second) (float64, bool)) []float64 {
	var out []float64
	for s := range t.Timeline.All() {
		if v, ok := f(s); ok && s.Phase == loadgen.PhaseMeasure {
			out = append(out, v)
		}
	}
	return out
}

func rate(name string, whole func(*loadgen.Result) float64, sec func(loadgen.Second) float64) runFigure {
	return runFigure{
		fig: Figure{Name: name, Unit: UnitMsgsPerSec, HigherIsBetter: true, Speed: true, Throughput: true},
		rep: func(t *results.Trial) (float64, bool) { v := whole(&t.Result); return v, v > 0 },
		seconds: func(t *results.Trial) []float64 {
			return measured(t, func(s loadgen.Second) (float64, bool) { return sec(s), true })
		},
	}
}

// latency is a percentile of a latency: of each run's histogram for a repetition, of the side's
// histograms merged for the side (percentiles are never averaged).
func latency(name, pct string, q float64, hist func(*loadgen.Histograms) *hdr.Hist, sec func(loadgen.Second) (float64, bool)) runFigure {
	ms := func(h *hdr.Hist) (float64, bool) {
		if h == nil || h.Count() == 0 {
			return 0, false
		}
		return float64(h.QuantileMicros(q)) / 1000, true
	}
	rf := runFigure{
		fig: Figure{Name: name + " " + pct, Unit: UnitMs, Speed: true},
		rep: func(t *results.Trial) (float64, bool) { return ms(hist(&t.Histograms)) },
		whole: func(ts []*results.Trial) (float64, bool) {
			m := hdr.New()
			for _, t := range ts {
				if h := hist(&t.Histograms); h != nil {
					m.Merge(h)
				}
			}
			return ms(m)
		},
	}
	if sec != nil {
		rf.seconds = func(t *results.Trial) []float64 { return measured(t, sec) }
	}
	return rf
}

// brokerProcesses are the "broker N" processes of the runs' CPU, in broker order.
func brokerProcesses(a, b []*results.Trial) []string {
	set := map[string]bool{}
	for _, t := range slices.Concat(a, b) {
		for k := range t.CPU {
			if strings.HasPrefix(k, "broker ") {
				set[k] = true
			}
		}
	}
	return slices.SortedFunc(maps.Keys(set), func(x, y string) int {
		nx, _ := strconv.Atoi(strings.TrimPrefix(x, "broker "))
		ny, _ := strconv.Atoi(strings.TrimPrefix(y, "broker "))
		return cmp.Or(cmp.Compare(nx, ny), cmp.Compare(x, y))
	})
}

// cpuPerMessage is a process's CPU over the window, cores, per message produced per second:
// the CPU time each message cost it.
func cpuPerMessage(process string) runFigure {
	return runFigure{
		fig: Figure{Name: "CPU per message", Subject: process, Unit: UnitCPUPerMsg},
		rep: func(t *results.Trial) (float64, bool) {
			c, ok := t.CPU[process]
			return c / t.ProducedMsgsPerSec, ok && t.ProducedMsgsPerSec > 0
		},
	}
}

// CPUPerMessageLessJIT names the figure of a broker's CPU per message without its JIT
// compiler threads' share.
const CPUPerMessageLessJIT = "CPU per message less JIT"

// cpuPerMessageLessJIT is a broker's CPU per message without what its JIT compiler threads
// used (results.Trial.CompilerCPU): a fresh broker's compilers take from 0.2 to 1 core for
// minutes under load (docs/warmup.md), work a long-running broker has done, and by an amount
// that differs from one start to the next. A run whose broker's threads were not read has none.
func cpuPerMessageLessJIT(process string) runFigure {
	return lessJITPerMessage(CPUPerMessageLessJIT, process, func(t *results.Trial) (map[string]float64, map[string]float64) { return t.CPU, t.CompilerCPU })
}

// lessJITPerMessage is the figure name of a process's CPU less its JIT compiler threads' per
// message, the two maps (keyed by process) picked out of a run by of; a run lacking either
// reading has none.
func lessJITPerMessage(name, process string, of func(*results.Trial) (cpu, jit map[string]float64)) runFigure {
	return runFigure{
		fig: Figure{Name: name, Subject: process, Unit: UnitCPUPerMsg},
		rep: func(t *results.Trial) (float64, bool) {
			cpus, jits := of(t)
			c, ok := cpus[process]
			jit, ok2 := jits[process]
			return (c - jit) / t.ProducedMsgsPerSec, ok && ok2 && t.ProducedMsgsPerSec > 0
		},
	}
}

// UserCPUPerMessageLessJIT names the figure of a broker's user CPU per message without its JIT
// compiler threads' user time.
const UserCPUPerMessageLessJIT = "user CPU per message less JIT"

// userCPUPerMessageLessJIT is a broker's user CPU (results.Trial.UserCPU) less its JIT compiler
// threads' user CPU (CompilerUserCPU), per message: CPU per message less JIT without the system
// time. On a kernel without CONFIG_IRQ_TIME_ACCOUNTING the softirq work of moving the bytes
// (veth pairs, shapers) is charged as system time to whichever process it interrupts, an amount
// that differs between two fresh brokers as much as TLS's cost; crypto and SASL are user time.
// A run whose broker's user time was not read has none.
func userCPUPerMessageLessJIT(process string) runFigure {
	return lessJITPerMessage(UserCPUPerMessageLessJIT, process, func(t *results.Trial) (map[string]float64, map[string]float64) {
		return t.UserCPU, t.CompilerUserCPU
	})
}

// bytesPerMessage is the traffic Kafka counted on every broker (produce and replication in,
// replication and consume out: BytesIn/BytesOut, record batches as Kafka stores and sends
// them) per message produced.
func bytesPerMessage() runFigure {
	return runFigure{
		fig: Figure{Name: "broker traffic per message", Unit: UnitBytesPerMsg},
		rep: trafficPerMessage,
	}
}

// wireBytesPerMessage is what the brokers' emulated links carried both ways per message
// produced: the broker traffic per message with the links' framing (Trial.LinkOverhead) added,
// the bytes a NIC must carry. Runs without emulated links have no such figure.
func wireBytesPerMessage() runFigure {
	return runFigure{
		fig: Figure{Name: "wire bytes per message", Unit: UnitBytesPerMsg},
		rep: func(t *results.Trial) (float64, bool) {
			b, ok := trafficPerMessage(t)
			if !ok || t.LinkOverhead == nil {
				return 0, false
			}
			return b * (1 + *t.LinkOverhead), true
		},
	}
}

func trafficPerMessage(t *results.Trial) (float64, bool) {
	var sum float64
	for _, m := range t.Traffic {
		sum += m.ProduceIn + m.ReplicationIn + m.ReplicationOut + m.ConsumeOut
	}
	return sum / t.ProducedMsgsPerSec, len(t.Traffic) > 0 && t.ProducedMsgsPerSec > 0
}

// rowKey names a USE row: its entity and resource.
type rowKey struct{ entity, resource string }

func (k rowKey) String() string { return k.entity + " " + k.resource }

// utilisationRows are the rows with a utilisation in % in any table of either side, in the
// order of the first table that has each.
func utilisationRows(a, b []*results.Trial) []rowKey {
	var out []rowKey
	for _, t := range slices.Concat(a, b) {
		if t.USE == nil {
			continue
		}
		for _, r := range t.USE.Rows {
			k := rowKey{r.Entity, r.Resource}
			if pctCell(r.Utilisation) && !slices.Contains(out, k) {
				out = append(out, k)
			}
		}
	}
	return out
}

func pctCell(c use.Cell) bool { return c.Unit == use.UnitPct && !c.Blank() }

// utilisationOf is the mean utilisation of a row in a run's USE table, %.
func utilisationOf(t *results.Trial, k rowKey) (use.Cell, bool) {
	if t.USE == nil {
		return use.Cell{}, false
	}
	for _, r := range t.USE.Rows {
		if r.Entity == k.entity && r.Resource == k.resource && pctCell(r.Utilisation) {
			return r.Utilisation, true
		}
	}
	return use.Cell{}, false
}

func utilisation(k rowKey) runFigure {
	return runFigure{
		fig: Figure{Name: "utilisation", Subject: k.String(), Unit: UnitPct},
		rep: func(t *results.Trial) (float64, bool) {
			c, ok := utilisationOf(t, k)
			return float64(c.Mean), ok
		},
	}
}
