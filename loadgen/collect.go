package loadgen

import (
	"runtime"
	"sort"
	"syscall"
	"time"

	"github.com/plimsoll/plimsoll/loadgen/hdr"
)

// collector drains the workers' interval histograms once a second into the run's totals and
// the timeline. Workers record into per-phase histograms under their own locks; the collector
// takes each lock briefly, merges, and resets, so the hot paths never wait on it for long.
type collector struct {
	run      *runState
	prods    []*producer
	cons     []*consumer
	groups   []*group
	msgBytes int
	target   float64
	base     int64 // clock time of the producers' start; timeline t counts from it
	// warmEnd is the clock time the warm-up ends (0: not known), for the phases of the seconds
	// fed (clockPhase).
	warmEnd int64

	// measured-window totals
	pub, e2e, sched, ack *hdr.Hist
	// this second's histograms, all phases
	sPub, sE2e, sSched *hdr.Hist

	last     counters
	timeline Timeline
	// timelineErr is why the timeline stopped spilling, if it did, and logErr the first error
	// adding to the interval log (its spill failing): notes of the result.
	timelineErr, logErr error
	log                 hdr.IntervalLog // this run's seconds, for histograms.hlog
	maxFlight           int64
	liveBuf             Live // handed to Options.Live each second

	// feeding: build FeedSeconds each second (Options.Feed.Second set); fed are those of the
	// last tick (none when its histograms could not be encoded), fedIndex the last Index fed,
	// empty an empty histogram's encoding.
	feeding  bool
	fed      []FeedSecond
	fedIndex int
	empty    hdr.Encoded
}

// counters are cumulative counts read at an instant.
type counters struct {
	t                             int64 // clock
	sent, acked, consumed, failed int64
	errs                          int64
	fullWaits, fullNs             int64
	cpu                           float64         // process CPU seconds
	win                           []windowReading // each producer's protocol window
}

func newCollector(run *runState, prods []*producer, cons []*consumer, groups []*group, msgBytes int, target float64, base int64) *collector {
	c := &collector{run: run, prods: prods, cons: cons, groups: groups, msgBytes: msgBytes, target: target, base: base,
		pub: hdr.New(), e2e: hdr.New(), sched: hdr.New(), ack: hdr.New(),
		sPub: hdr.New(), sE2e: hdr.New(), sSched: hdr.New()}
	c.last = c.read(base)
	return c
}

// read takes the cumulative counters.
func (c *collector) read(now int64) counters {
	k := counters{t: now, cpu: processCPU()}
	for _, p := range c.prods {
		k.sent += p.sentAll.Load()
		k.acked += p.ackedAll.Load()
		k.fullWaits += p.fullWaits.Load()
		k.fullNs += p.fullNs.Load()
		if p.win != nil {
			k.win = append(k.win, p.win.read(now))
		}
		p.mu.Lock()
		k.failed += p.failed[0] + p.failed[1]
		k.errs += p.errs.n
		p.mu.Unlock()
	}
	for _, cn := range c.cons {
		k.consumed += cn.consumedAll.Load()
		cn.mu.Lock()
		k.errs += cn.fetchErrs.n
		cn.mu.Unlock()
	}
	return k
}

// drainHists moves every worker's interval histograms into this second's and (measured phase)
// the totals.
func (c *collector) drainHists() {
	move := func(sec, total *hdr.Hist, hs *[2]*hdr.Hist) {
		for ph, h := range hs {
			if h.Count() == 0 {
				continue
			}
			if sec != nil {
				sec.Merge(h)
			}
			if ph == phaseMeasured {
				total.Merge(h)
			}
			h.Reset()
		}
	}
	for _, p := range c.prods {
		p.schedMu.Lock()
		move(c.sSched, c.sched, &p.sched)
		p.schedMu.Unlock()
		p.mu.Lock()
		move(c.sPub, c.pub, &p.pub)
		move(nil, c.ack, &p.ackWait)
		p.mu.Unlock()
	}
	for _, cn := range c.cons {
		cn.mu.Lock()
		move(c.sE2e, c.e2e, &cn.e2e)
		cn.mu.Unlock()
	}
}

// tick closes the second ending at now and returns its timeline entry.
func (c *collector) tick(now int64, phase string) Second {
	c.drainHists()
	k := c.read(now)
	dt := float64(now-c.last.t) / 1e9
	if dt <= 0 {
		dt = 1
	}
	rate := func(a, b int64) float64 { return float64(a-b) / dt }
	var flight int64
	for _, p := range c.prods {
		flight += p.inFlight()
	}
	c.maxFlight = max(c.maxFlight, flight)
	backlogs := c.backlogs(k.acked)
	s := Second{
		T:                   float64(now-c.base) / 1e9,
		Phase:               phase,
		TargetMsgsPerSec:    c.target,
		SentMsgsPerSec:      rate(k.sent, c.last.sent),
		ProducedMsgsPerSec:  rate(k.acked, c.last.acked),
		ProducedBytesPerSec: rate(k.acked, c.last.acked) * float64(c.msgBytes),
		ConsumedMsgsPerSec:  rate(k.consumed, c.last.consumed),
		Failed:              k.failed - c.last.failed,
		Errors:              k.errs - c.last.errs,
		Publish:             secondLatency(c.sPub),
		EndToEnd:            secondLatency(c.sE2e),
		ScheduleDelay:       secondLatency(c.sSched),
		BufferFullMs:        float64(k.fullNs-c.last.fullNs) / 1e6,
		InFlight:            flight,
		BacklogMsgs:         largest(backlogs),
		CPUShare:            (k.cpu - c.last.cpu) / dt / float64(runtime.NumCPU()),
	}
	win := c.windowOf(c.last, k)
	s.WindowShare, s.FullBatchShare = win.Share, win.FullBatchShare()
	hists, ok := c.logSecond((c.last.t-c.base)/1e6, (now-c.base)/1e6)
	c.fed = c.fed[:0]
	if c.feeding && ok {
		c.feedSeconds(k, phase, flight, backlogs, win, hists)
	}
	if err := c.timeline.Add(s); err != nil {
		c.timelineErr = err
	}
	c.last = k
	return s
}

// logSecond adds this second's histograms to the interval log and resets them. Each is encoded
// once, for the log and, when feeding, for the feed (an empty one too); ok is false if one
// could not be: it is then left out of the log, and the first error is noted (as a spill that
// cannot be written, which keeps the intervals in memory).
func (c *collector) logSecond(startMs, endMs int64) (hists [3]hdr.Encoded, ok bool) {
	ok = true
	for i, h := range []*hdr.Hist{c.sPub, c.sE2e, c.sSched} {
		empty := h.HDR().TotalCount() == 0
		var err error
		if !empty || c.feeding {
			hists[i], err = h.Encode()
			ok = ok && err == nil
		}
		if err == nil && !empty {
			err = c.log.AddEncoded(intervalTags[i], startMs, endMs, hists[i])
		}
		if err != nil && c.logErr == nil {
			c.logErr = err
		}
		h.Reset()
	}
	return hists, ok
}

func secondLatency(h *hdr.Hist) SecondLatency {
	return SecondLatency{
		P50:   float64(h.QuantileMicros(0.5)) / 1000,
		P99:   float64(h.QuantileMicros(0.99)) / 1000,
		Max:   float64(h.MaxNs()) / 1e6,
		Count: h.Count(),
	}
}

// backlog is the largest number of acknowledged messages a group has not consumed.
func (c *collector) backlog(acked int64) int64 { return largest(c.backlogs(acked)) }

// largest is the largest of vs, 0 when there are none.
func largest(vs []int64) int64 {
	var m int64
	for _, v := range vs {
		m = max(m, v)
	}
	return m
}

// backlogs are the acknowledged messages each group has not consumed.
func (c *collector) backlogs(acked int64) []int64 {
	bs := make([]int64, len(c.groups))
	for i, g := range c.groups {
		g.mu.Lock()
		seen := g.ledger.Seen()
		g.mu.Unlock()
		bs[i] = acked - int64(seen)
	}
	return bs
}

// errorCounts gathers the distinct errors the workers saw.
func (c *collector) errorCounts() []ErrorCount {
	agg := map[[2]string]int64{}
	for _, p := range c.prods {
		p.mu.Lock()
		for m, n := range p.errs.kinds {
			agg[[2]string{"produce", m}] += n
		}
		p.mu.Unlock()
	}
	for _, cn := range c.cons {
		cn.mu.Lock()
		for m, n := range cn.fetchErrs.kinds {
			agg[[2]string{"fetch", m}] += n
		}
		cn.mu.Unlock()
	}
	var out []ErrorCount
	for k, n := range agg {
		out = append(out, ErrorCount{Source: k[0], Message: k[1], Count: n})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Count > out[j].Count })
	return out
}

// processCPU returns this process's user + system CPU time in seconds.
func processCPU() float64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()).Seconds()
}

// windowSignals are the producers' protocol-window readings between a and b: the largest share
// of the interval one producer's connection to one broker spent at its window, the share of the
// batches written that were full, and how many batches were written.
func windowSignals(a, b counters) (share, full float64, batches int64) {
	w := windowBetween(a, b)
	return w.Share, w.FullBatchShare(), w.Batches
}

// windowOf is the producers' protocol window between a and b, with its limit.
func (c *collector) windowOf(a, b counters) ProduceWindow {
	w := windowBetween(a, b)
	w.Limit = c.windowLimit()
	return w
}

// windowLimit is the produce requests each producer may have in flight per broker; 0 when not
// metered (acks=0) or without producers.
func (c *collector) windowLimit() int {
	if len(c.prods) > 0 && c.prods[0].win != nil {
		return c.prods[0].win.limit
	}
	return 0
}

// windowBetween is the producers' protocol window between a and b as counts a worker's report
// carries (ProduceWindow), so that reports merge exactly.
func windowBetween(a, b counters) ProduceWindow {
	var w ProduceWindow
	for i := range min(len(a.win), len(b.win)) {
		w.Share = max(w.Share, windowShare(a.win[i], b.win[i], b.t-a.t))
		w.Batches += b.win[i].batches - a.win[i].batches
		w.FullBatches += b.win[i].full - a.win[i].full
	}
	return w
}
