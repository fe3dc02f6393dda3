package loadgen

import (
	"errors"
	"fmt"
	"math"
	"runtime"
	"runtime/debug"
	"time"
)

// groupProgress returns how many acknowledged messages group g has not seen and whether it has
// read to the end of every partition of the share (end offsets taken after the producers
// stopped).
func (r *runner) groupProgress(g *group, prods []*producer, ends map[string]map[int32]int64) (missing uint64, atEnd bool) {
	g.mu.Lock()
	defer g.mu.Unlock()
	for _, p := range prods {
		// producers have stopped: their unacknowledged sets and sequence counts are final
		missing += g.ledger.Missing(int(p.id), &p.unacked, 0, p.pacer.Next())
	}
	if ends == nil {
		return missing, false
	}
	atEnd = true
	for ti, t := range r.topics {
		for part, end := range ends[t] {
			if !r.share.Partitions.Contains(int(part)) {
				continue // another process's partition, which this one neither writes nor reads
			}
			idx := ti*r.partitions + int(part)
			if idx < g.ledger.Partitions() && end > 0 && g.ledger.ReadTo(idx) < end-1 {
				atEnd = false
			}
		}
	}
	return missing, atEnd
}

// result builds the run's Result once it has stopped.
func (r *runner) result(x *execution, st *execState, runErr error) *Result {
	res := &Result{RunID: r.opts.RunID, Notes: st.notes}
	if x.settleNote != "" {
		res.Notes = append(res.Notes, x.settleNote)
	}
	r.fill(res, x.col, x.c.prods, x.c.groups, st)
	res.Window = r.window(x, st)
	if x.backlog {
		res.Backlog = r.backlogResult(st)
	}
	if n := res.Counts.InFlightAtEnd + res.ExcludedCounts.InFlightAtEnd; n > 0 {
		res.Notes = append(res.Notes, fmt.Sprintf("%d messages were still in flight when the producers stopped waiting for them (%s after the window, then %s after closing their clients): counted in_flight_at_end, neither acknowledged nor lost", n, r.opts.DrainTimeout, idleWait))
	}
	if runErr == nil && !st.drainComplete {
		res.Notes = append(res.Notes, fmt.Sprintf("drain timed out after %s: a group had neither consumed every acknowledged message nor reached the end of the log; the rest counts as unconsumed, not lost", r.opts.DrainTimeout))
	}
	if errors.Is(runErr, ErrInterrupted) {
		res.Interrupted = true
	}
	return res
}

// window gives the phases' lengths as they happened.
func (r *runner) window(x *execution, st *execState) Window {
	w := Window{
		SettleSeconds:   x.settled.Seconds(),
		WarmupSeconds:   r.spec.Warmup.Seconds(),
		MeasuredSeconds: float64(st.endK.t-st.startK.t) / 1e9,
		DrainComplete:   st.drainComplete,
		SilentBrokers:   r.silent,
	}
	if st.drainStart != 0 {
		w.DrainSeconds = float64(st.drainEnd-st.drainStart) / 1e9
	}
	if ms := x.run.measureStart.Load(); ms != math.MaxInt64 {
		w.Start = time.Unix(0, x.wallBase+ms).UTC()
	}
	if x.backlog && st.resumeAt > 0 {
		w.BacklogSeconds = float64(st.resumeAt-st.backlogStart) / 1e9
	}
	return w
}

// backlogResult describes the backlog of a backlog-mode run.
func (r *runner) backlogResult(st *execState) *BacklogResult {
	b := &BacklogResult{TargetBytes: r.spec.BacklogBytes, BuiltBytes: st.backlogMsgs * int64(r.payloads.size), DrainSeconds: -1}
	if st.resumeAt > 0 {
		b.BuildSeconds = float64(st.resumeAt-st.backlogStart) / 1e9
	}
	if st.drainedAt >= 0 {
		b.Drained, b.DrainSeconds = true, float64(st.drainedAt-st.resumeAt)/1e9
	}
	if secs := float64(st.endK.t-st.startK.t) / 1e9; secs > 0 {
		b.ConsumedMsgsPerSec = float64(st.endK.consumed-st.startK.consumed) / secs
	}
	return b
}

// fill computes the result's figures from the collector and the ledgers.
func (r *runner) fill(res *Result, col *collector, prods []*producer, groups []*group, st *execState) {
	spec := r.spec
	res.Counts, res.ExcludedCounts = producerCounts(prods)
	for gi, g := range groups {
		gr, excl := groupResult(g, prods, st.caughtUp[gi])
		res.Groups = append(res.Groups, gr)
		addConsumer(&res.Counts, gr.Counts)
		addConsumer(&res.ExcludedCounts, excl)
	}
	r.fillRates(res, st)
	fillLatency(res, col)
	r.fillClient(&res.Client, col, st, len(prods), res.Counts.Unsent)

	res.Config = Config{
		Spec: spec, ClientProps: r.clients.Effective(),
		Bootstrap: r.tgt.Bootstrap, Brokers: r.brokers, Topics: r.topics, Partitions: r.partitions,
		ReplicationFactor: r.rf, TopicConfigs: r.topicConfigs, Groups: r.groupNames,
		ProducerClients: len(prods), ConsumerClients: len(groups) * r.share.Consumers.Len(),
		Payload: r.payloads.info, KeyBytes: r.keys.size(),
		GoVersion: runtime.Version(), FranzGoVersion: moduleVersion("github.com/twmb/franz-go"),
		GOMAXPROCS: runtime.GOMAXPROCS(0), NumCPU: runtime.NumCPU(),
	}
	if r.ownFetch() && len(groups) > 0 {
		res.Config.ConsumerFetch = FetchPlimsoll
	}
}

// fillRates computes the window's rates. The sent rate counts the messages intended inside the
// window (res.Counts, filled first). The produced and consumed rates are each the lesser of two
// counts over the window's length: the messages intended inside it that were acknowledged
// (consumed) at any time, and the acknowledgements (consumptions) that arrived inside it,
// whatever their messages' intended time. The first keeps a backlog from the warm-up, arriving
// in the window, from reading as faster than the target; the second keeps a cluster that falls
// behind, its backlog acknowledged only in the drain, from reading as keeping up. The
// timeline's rates, second by second, count by arrival.
func (r *runner) fillRates(res *Result, st *execState) {
	arrivalSecs := float64(st.endK.t-st.startK.t) / 1e9
	res.FillRates(r.share.rate(r.spec), float64(st.windowEnd-st.windowStart)/1e9, arrivalSecs,
		st.endK.acked-st.startK.acked, st.endK.consumed-st.startK.consumed, r.payloads.size)
}

// producerCounts sums the producers' counts, by phase.
func producerCounts(prods []*producer) (measured, excluded Counts) {
	for _, p := range prods {
		p.schedMu.Lock()
		excluded.Sent += p.sent[phaseExcluded]
		measured.Sent += p.sent[phaseMeasured]
		measured.Unsent += p.unsent
		p.schedMu.Unlock()
		p.mu.Lock()
		excluded.Acked += p.acked[phaseExcluded]
		measured.Acked += p.acked[phaseMeasured]
		excluded.Failed += p.failed[phaseExcluded]
		measured.Failed += p.failed[phaseMeasured]
		excluded.InFlightAtEnd += p.inFlightEnd[phaseExcluded]
		measured.InFlightAtEnd += p.inFlightEnd[phaseMeasured]
		p.mu.Unlock()
	}
	return measured, excluded
}

// groupResult is one group's ledger over the window, and its counts of the excluded phase. A
// message acknowledged and never seen is lost if the group caught up (read to the end of every
// partition), otherwise unconsumed.
func groupResult(g *group, prods []*producer, caughtUp bool) (GroupResult, Counts) {
	g.mu.Lock()
	defer g.mu.Unlock()
	gr := GroupResult{Name: g.name, CaughtUp: caughtUp, Foreign: g.ledger.Foreign}
	var excl Counts
	for ph, c := range g.ledger.Counts {
		dst := &gr.Counts
		if ph == phaseExcluded {
			dst = &excl
		}
		dst.Consumed, dst.Duplicated, dst.Redelivered, dst.OutOfOrder = c.Consumed, c.Duplicated, c.Redelivered, c.OutOfOrder
	}
	for _, p := range prods {
		sent := p.pacer.Next()
		first := sent
		if p.measSeen {
			first = p.firstMeasSeq
		}
		m := int64(g.ledger.Missing(int(p.id), &p.unacked, first, sent))
		x := int64(g.ledger.Missing(int(p.id), &p.unacked, 0, first))
		if caughtUp {
			gr.Counts.Lost += m
			excl.Lost += x
		} else {
			gr.Counts.Unconsumed += m
			excl.Unconsumed += x
		}
	}
	return gr, excl
}

// fillLatency copies the window's merged histograms and their percentiles, the timeline, the
// interval log and the errors from the collector.
func fillLatency(res *Result, col *collector) {
	res.Histograms = Histograms{Publish: col.pub, EndToEnd: col.e2e, ScheduleDelay: col.sched, AckWait: col.ack}
	res.Latency = Latency{
		Publish: col.pub.Percentiles(), EndToEnd: col.e2e.Percentiles(),
		ScheduleDelay: col.sched.Percentiles(), AckWait: col.ack.Percentiles(),
	}
	res.Timeline = col.timeline
	for _, err := range []error{col.timelineErr, col.logErr} {
		if err != nil {
			res.Notes = append(res.Notes, err.Error())
		}
	}
	res.Intervals = col.log
	res.Errors = col.errorCounts()
}

// fillClient computes the generator's own signals over the window: buffer-full waits, CPU, GC,
// and whether it fell behind its schedule, and why.
func (r *runner) fillClient(cs *ClientSignals, col *collector, st *execState, producers int, unsent int64) {
	startK, endK := st.startK, st.endK
	secs := float64(endK.t-startK.t) / 1e9
	cs.MaxScheduleDelayMs = float64(col.sched.MaxNs()) / 1e6
	cs.BufferFullWaits = endK.fullWaits - startK.fullWaits
	cs.BufferFullSeconds = float64(endK.fullNs-startK.fullNs) / 1e9
	if secs > 0 {
		cs.BufferFullShare = cs.BufferFullSeconds / (secs * float64(producers))
		cs.CPUShare = (endK.cpu - startK.cpu) / secs / float64(runtime.NumCPU())
	}
	cs.MaxInFlight = col.maxFlight
	cs.WindowShare, cs.FullBatchShare, cs.Batches = windowSignals(startK, endK)
	cs.WindowLimit = col.windowLimit()
	cs.LeanMaxInFlight, cs.LeanSessions = leanMaxInFlight(col.prods)
	cs.CPUSeconds = endK.cpu - startK.cpu
	if acked := endK.acked - startK.acked; acked > 0 {
		cs.CPUPerMillion = cs.CPUSeconds / float64(acked) * 1e6
	}
	cs.GCCycles = st.endGC.NumGC - st.startGC.NumGC
	cs.GCPauseMs = float64(st.endGC.PauseTotalNs-st.startGC.PauseTotalNs) / 1e6
}

func addConsumer(dst *Counts, c Counts) {
	dst.Consumed += c.Consumed
	dst.Lost += c.Lost
	dst.Unconsumed += c.Unconsumed
	dst.Duplicated += c.Duplicated
	dst.Redelivered += c.Redelivered
	dst.OutOfOrder += c.OutOfOrder
}

func moduleVersion(path string) string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return ""
	}
	for _, m := range bi.Deps {
		if m.Path == path {
			return m.Version
		}
	}
	return ""
}
