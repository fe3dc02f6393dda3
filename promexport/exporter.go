package promexport

import (
	"net/http"
	"sync"

	"github.com/plimsoll/plimsoll/loadgen"
	"github.com/plimsoll/plimsoll/loadgen/hdr"
	"github.com/plimsoll/plimsoll/results"
	"github.com/plimsoll/plimsoll/verdict"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// The counters' windows (label window): result.json's counts and excluded_counts.
const (
	excluded = iota
	measured
)

// The latency histograms, in this order everywhere.
const (
	publish = iota
	endToEnd
	scheduleDelay
	nHists
)

// Exporter holds the figures plimsoll serves and the registry that serves them. Its methods may
// be called on a nil Exporter (the endpoint is off): they do nothing.
type Exporter struct {
	reg     *prometheus.Registry
	scrapes scrapes

	mu sync.Mutex
	st state
}

// state is everything a scrape reads.
type state struct {
	second  loadgen.Second // the last second of the running trial
	running bool           // a trial's seconds are arriving (its phase is second.Phase)

	trialN, trialSize int
	rate              float64 // the running trial's target, before its first second

	done totals  // trials folded in: finished, or superseded by another run
	cur  current // the running trial

	bufferFullSec, clientErrors float64
	verdict                     verdict.State // the last trial's; "" before one is judged
	trials                      map[verdict.State]uint64
}

// totals are counts and histograms summed over trials.
type totals struct {
	counts [2]loadgen.Counts // by window
	hists  [nHists]buckets
}

// current is the running trial's: its run, its counts so far and copies of its histograms.
type current struct {
	runID  string
	counts [2]loadgen.Counts
	hists  [nHists]*hdr.Hist
}

// New returns an Exporter with a registry of its own holding plimsoll's metrics and the
// standard process metrics (process_cpu_seconds_total, process_resident_memory_bytes, ...).
func New() *Exporter {
	e := &Exporter{reg: prometheus.NewRegistry(), scrapes: newScrapes()}
	e.st.trials = map[verdict.State]uint64{}
	for i := range e.st.cur.hists {
		e.st.cur.hists[i] = hdr.New()
	}
	for i := range e.st.done.hists {
		e.st.done.hists[i] = newBuckets()
	}
	e.reg.MustRegister(collector{e}, collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	return e
}

// Register adds a collector of another part of the command (e.g. a watched cluster's) to the
// Exporter's registry.
func (e *Exporter) Register(c prometheus.Collector) error { return e.reg.Register(c) }

// Handler serves the registry in the Prometheus text (or OpenMetrics) format, for /metrics.
func (e *Exporter) Handler() http.Handler {
	h := promhttp.HandlerFor(e.reg, promhttp.HandlerOpts{EnableOpenMetrics: true})
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n := e.scrapes.begin()
		defer e.scrapes.end(n)
		h.ServeHTTP(w, r)
	})
}

// Feed makes the load generator report each second to e (loadgen.Options.Live).
func (e *Exporter) Feed(o *loadgen.Options) {
	if e != nil {
		o.Live = e.Live
	}
}

// Trial says a trial starts: its number (1 for a run; the search's sequence number in a limit
// search), message size and target rate.
func (e *Exporter) Trial(n, size int, rate float64) {
	if e == nil {
		return
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	e.st.trialN, e.st.trialSize, e.st.rate = n, size, rate
}

// Live takes one second of the running trial (loadgen.Options.Live): its gauges, its counts and
// copies of its histograms. A second of another run than the last folds the last one in.
func (e *Exporter) Live(l *loadgen.Live) {
	if e == nil {
		return
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	st := &e.st
	if st.cur.runID != l.RunID {
		st.fold()
		st.cur.runID = l.RunID
	}
	st.cur.counts = [2]loadgen.Counts{excluded: l.Excluded, measured: l.Measured}
	for i, h := range [nHists]*hdr.Hist{publish: l.Publish, endToEnd: l.EndToEnd, scheduleDelay: l.ScheduleDelay} {
		st.cur.hists[i].Reset()
		if h != nil {
			st.cur.hists[i].Merge(h)
		}
	}
	st.second, st.running = l.Second, true
	st.rate = l.Second.TargetMsgsPerSec
	st.bufferFullSec += l.Second.BufferFullMs / 1000
	st.clientErrors += float64(l.Second.Errors)
}

// Done takes a judged trial: the messages it lost (known only now) and its verdict; its figures
// join those of the trials before it.
func (e *Exporter) Done(t *results.Trial) {
	if e == nil || t == nil {
		return
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	st := &e.st
	if st.cur.runID == t.RunID {
		st.cur.counts[excluded].Lost += t.ExcludedCounts.Lost
		st.cur.counts[measured].Lost += t.Counts.Lost
	}
	st.fold()
	st.running = false
	st.verdict = t.Verdict.State
	st.trials[t.Verdict.State]++
}

// fold adds the current trial to the totals and clears it.
func (st *state) fold() {
	if st.cur.runID == "" {
		return
	}
	for w := range st.cur.counts {
		addCounts(&st.done.counts[w], st.cur.counts[w])
	}
	for i, h := range st.cur.hists {
		st.done.hists[i].addHDR(h)
		h.Reset()
	}
	st.cur.counts = [2]loadgen.Counts{}
	st.cur.runID = ""
}

func addCounts(dst *loadgen.Counts, c loadgen.Counts) {
	dst.Sent += c.Sent
	dst.Acked += c.Acked
	dst.Failed += c.Failed
	dst.Consumed += c.Consumed
	dst.Duplicated += c.Duplicated
	dst.Lost += c.Lost
}
