package loadgen

import (
	"runtime"
	"runtime/debug"
	"time"
)

// groupProgress returns how many acknowledged messages group g has not seen and whether it has
// read to the end of every partition (end offsets taken after the producers stopped).
func (r *runner) groupProgress(g *group, prods []*producer, ends map[string]map[int32]int64) (missing uint64, atEnd bool) {
	g.mu.Lock()
	defer g.mu.Unlock()
	for i, p := range prods {
		// producers have stopped: their failed sets and sequence counts are final
		missing += g.ledger.missing(i, &p.failedSeq, 0, p.pacer.Next())
	}
	if ends == nil {
		return missing, false
	}
	atEnd = true
	for ti, t := range r.topics {
		for part, end := range ends[t] {
			idx := ti*r.partitions + int(part)
			if idx < len(g.ledger.offs) && end > 0 && g.ledger.offs[idx] < end-1 {
				atEnd = false
			}
		}
	}
	return missing, atEnd
}

// fill computes the result's figures from the collector and the ledgers.
func (r *runner) fill(res *Result, col *collector, prods []*producer, groups []*group, st *execState) {
	spec := r.spec
	startK, endK, startGC, endGC, caughtUp := st.startK, st.endK, &st.startGC, &st.endGC, st.caughtUp
	secs := float64(endK.t-startK.t) / 1e9
	per := func(a, b int64) float64 {
		if secs <= 0 {
			return 0
		}
		return float64(a-b) / secs
	}
	res.TargetMsgsPerSec = spec.Rate
	res.SentMsgsPerSec = per(endK.sent, startK.sent)
	res.ProducedMsgsPerSec = per(endK.acked, startK.acked)
	res.ProducedBytesPerSec = res.ProducedMsgsPerSec * float64(r.payloads.size)
	res.ConsumedMsgsPerSec = per(endK.consumed, startK.consumed)
	res.ConsumedBytesPerSec = res.ConsumedMsgsPerSec * float64(r.payloads.size)

	// Producer side, by phase.
	for _, p := range prods {
		p.schedMu.Lock()
		res.ExcludedCounts.Sent += p.sent[phaseExcluded]
		res.Counts.Sent += p.sent[phaseMeasured]
		res.Counts.Unsent += p.unsent
		p.schedMu.Unlock()
		p.mu.Lock()
		res.ExcludedCounts.Acked += p.acked[phaseExcluded]
		res.Counts.Acked += p.acked[phaseMeasured]
		res.ExcludedCounts.Failed += p.failed[phaseExcluded]
		res.Counts.Failed += p.failed[phaseMeasured]
		p.mu.Unlock()
	}
	// Consumer side, per group.
	for gi, g := range groups {
		g.mu.Lock()
		gr := GroupResult{Name: g.name, CaughtUp: caughtUp[gi], Foreign: g.ledger.foreign}
		var excl Counts
		for ph, c := range g.ledger.counts {
			dst := &gr.Counts
			if ph == phaseExcluded {
				dst = &excl
			}
			dst.Consumed, dst.Duplicated, dst.Redelivered, dst.OutOfOrder = c.Consumed, c.Duplicated, c.Redelivered, c.OutOfOrder
		}
		for i, p := range prods {
			sent := p.pacer.Next()
			first := sent
			if p.measSeen {
				first = p.firstMeasSeq
			}
			m := int64(g.ledger.missing(i, &p.failedSeq, first, sent))
			x := int64(g.ledger.missing(i, &p.failedSeq, 0, first))
			if caughtUp[gi] {
				gr.Counts.Lost += m
				excl.Lost += x
			} else {
				gr.Counts.Unconsumed += m
				excl.Unconsumed += x
			}
		}
		g.mu.Unlock()
		res.Groups = append(res.Groups, gr)
		addConsumer(&res.Counts, gr.Counts)
		addConsumer(&res.ExcludedCounts, excl)
	}

	res.Histograms = Histograms{Publish: col.pub, EndToEnd: col.e2e, ScheduleDelay: col.sched, AckWait: col.ack}
	res.Latency = Latency{
		Publish: col.pub.Percentiles(), EndToEnd: col.e2e.Percentiles(),
		ScheduleDelay: col.sched.Percentiles(), AckWait: col.ack.Percentiles(),
	}
	res.Timeline = col.timeline
	res.intervals = col.intervals
	res.Errors = col.errorCounts()

	cs := &res.Client
	cs.MaxScheduleDelayMs = float64(col.sched.MaxNs()) / 1e6
	cs.BufferFullWaits = endK.fullWaits - startK.fullWaits
	cs.BufferFullSeconds = float64(endK.fullNs-startK.fullNs) / 1e9
	if secs > 0 {
		cs.BufferFullShare = cs.BufferFullSeconds / (secs * float64(len(prods)))
		cs.CPUShare = (endK.cpu - startK.cpu) / secs / float64(runtime.NumCPU())
	}
	cs.MaxInFlight = col.maxFlight
	cs.CPUSeconds = endK.cpu - startK.cpu
	if acked := endK.acked - startK.acked; acked > 0 {
		cs.CPUPerMillion = cs.CPUSeconds / float64(acked) * 1e6
	}
	cs.GCCycles = endGC.NumGC - startGC.NumGC
	cs.GCPauseMs = float64(endGC.PauseTotalNs-startGC.PauseTotalNs) / 1e6
	p99 := time.Duration(col.sched.QuantileMicros(0.99)) * time.Microsecond
	if spec.Rate > 0 && (res.Counts.Unsent > 0 || p99 > r.opts.BehindThreshold) {
		cs.BehindSchedule = true
		cs.BehindCause = "client"
		if cs.BufferFullShare > 0.01 {
			cs.BehindCause = "buffer-full"
		}
	}

	res.Config = Config{
		Spec: spec, ClientProps: EffectiveProps{Producer: r.pset.props, Consumer: r.cset.props},
		Bootstrap: r.tgt.Bootstrap, Brokers: r.brokers, Topics: r.topics, Partitions: r.partitions,
		ReplicationFactor: r.rf, TopicConfigs: r.topicConfigs, Groups: r.groupNames,
		ProducerClients: len(prods), ConsumerClients: len(groups) * spec.ConsumersPerGroup,
		Payload: r.payloads.info, KeyBytes: r.keys.size(),
		GoVersion: runtime.Version(), FranzGoVersion: moduleVersion("github.com/twmb/franz-go"),
		GOMAXPROCS: runtime.GOMAXPROCS(0), NumCPU: runtime.NumCPU(),
	}
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
