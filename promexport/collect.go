package promexport

import (
	"github.com/plimsoll/plimsoll/loadgen"
	"github.com/plimsoll/plimsoll/verdict"
	"github.com/prometheus/client_golang/prometheus"
)

// Label values with a fixed set of values each (the cardinality is bounded).
var (
	windows  = [2]string{excluded: "excluded", measured: "measured"}
	phases   = []string{loadgen.PhaseWarmup, loadgen.PhaseBacklog, loadgen.PhaseMeasure, loadgen.PhaseDrain}
	verdicts = []verdict.State{verdict.OK, verdict.Overloaded, verdict.Invalid}
)

func desc(name, help string, labels ...string) *prometheus.Desc {
	return prometheus.NewDesc(name, help, labels, nil)
}

// The metrics: docs/prometheus.md lists them with their units; a change here changes it too.
var (
	dTarget   = desc("plimsoll_target_messages_per_second", "Target rate of the running trial (0: as fast as possible).")
	dSent     = desc("plimsoll_sent_messages_per_second", "Messages handed to the Kafka client in the last second.")
	dProduced = desc("plimsoll_produced_messages_per_second", "Messages acknowledged by the cluster in the last second.")
	dProdB    = desc("plimsoll_produced_bytes_per_second", "Message value bytes acknowledged by the cluster in the last second.")
	dConsumed = desc("plimsoll_consumed_messages_per_second", "Messages consumed in the last second, summed over consumer groups.")
	dInFlight = desc("plimsoll_in_flight_messages", "Messages sent and not yet acknowledged, at the end of the last second.")
	dBacklog  = desc("plimsoll_consumer_backlog_messages", "Acknowledged messages the furthest-behind consumer group has not consumed.")
	dCPU      = desc("plimsoll_client_cpu_ratio", "Share of the host's CPUs plimsoll's process used in the last second (0 to 1).")
	dPhase    = desc("plimsoll_run_phase", "1 for the phase the running trial is in, 0 for the others; all 0 between trials.", "phase")

	dMsgs = [...]*prometheus.Desc{
		desc("plimsoll_messages_sent_total", "Messages handed to the Kafka client, by intended send time: window=measured as result.json's counts, excluded as its excluded_counts.", "window"),
		desc("plimsoll_messages_acked_total", "Messages acknowledged by the cluster, by intended send time.", "window"),
		desc("plimsoll_messages_failed_total", "Messages the Kafka client gave up on (never acknowledged), by intended send time.", "window"),
		desc("plimsoll_messages_consumed_total", "Records consumed, repeats included, summed over consumer groups, by intended send time.", "window"),
		desc("plimsoll_messages_duplicated_total", "Records a consumer group saw again, by intended send time.", "window"),
		desc("plimsoll_messages_lost_total", "Acknowledged messages a consumer group never saw though it read to the end; added when a trial is judged.", "window"),
	}
	dBufferFull = desc("plimsoll_producer_buffer_full_seconds_total", "Time producers waited for buffer space (every buffered record in flight), summed over producers.")
	dErrors     = desc("plimsoll_client_errors_total", "Produce and fetch errors the Kafka clients reported.")

	dHists = [nHists]*prometheus.Desc{
		publish:       desc("plimsoll_publish_latency_seconds", "Publish latency of the measured window: intended send time to acknowledgement."),
		endToEnd:      desc("plimsoll_end_to_end_latency_seconds", "End-to-end latency of the measured window: intended send time to consumption."),
		scheduleDelay: desc("plimsoll_schedule_delay_seconds", "Schedule delay of the measured window: intended send time to the send call."),
	}

	dTrialN    = desc("plimsoll_trial_number", "Number of the running or last trial: 1 for a run, the sequence number in a limit search.")
	dTrialSize = desc("plimsoll_trial_message_size_bytes", "Message size of the running or last trial.")
	dVerdict   = desc("plimsoll_last_verdict", "1 for the verdict of the last trial judged, 0 for the others; all 0 before one is judged.", "state")
	dTrials    = desc("plimsoll_trials_total", "Trials judged, by verdict.", "verdict")
)

// collector serves an Exporter's state as const metrics, all read under one lock, so a scrape
// sees one consistent instant.
type collector struct{ e *Exporter }

func (c collector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{dTarget, dSent, dProduced, dProdB, dConsumed, dInFlight, dBacklog, dCPU, dPhase,
		dBufferFull, dErrors, dTrialN, dTrialSize, dVerdict, dTrials} {
		ch <- d
	}
	for _, d := range dMsgs {
		ch <- d
	}
	for _, d := range dHists {
		ch <- d
	}
}

func (c collector) Collect(ch chan<- prometheus.Metric) {
	c.e.mu.Lock()
	defer c.e.mu.Unlock()
	st := &c.e.st
	st.collectSecond(ch)
	st.collectCounts(ch)
	st.collectHists(ch)
	st.collectTrials(ch)
}

func gauge(ch chan<- prometheus.Metric, d *prometheus.Desc, v float64, labels ...string) {
	ch <- prometheus.MustNewConstMetric(d, prometheus.GaugeValue, v, labels...)
}

func counter(ch chan<- prometheus.Metric, d *prometheus.Desc, v float64, labels ...string) {
	ch <- prometheus.MustNewConstMetric(d, prometheus.CounterValue, v, labels...)
}

// collectSecond: the gauges of the last second, and the phase.
func (st *state) collectSecond(ch chan<- prometheus.Metric) {
	s := st.second
	gauge(ch, dTarget, st.rate)
	gauge(ch, dSent, s.SentMsgsPerSec)
	gauge(ch, dProduced, s.ProducedMsgsPerSec)
	gauge(ch, dProdB, s.ProducedBytesPerSec)
	gauge(ch, dConsumed, s.ConsumedMsgsPerSec)
	gauge(ch, dInFlight, float64(s.InFlight))
	gauge(ch, dBacklog, float64(s.BacklogMsgs))
	gauge(ch, dCPU, s.CPUShare)
	for _, p := range phases {
		gauge(ch, dPhase, flag(st.running && s.Phase == p), p)
	}
	counter(ch, dBufferFull, st.bufferFullSec)
	counter(ch, dErrors, st.clientErrors)
}

// collectCounts: the message counters, finished trials plus the running one.
func (st *state) collectCounts(ch chan<- prometheus.Metric) {
	for w, name := range windows {
		var c loadgen.Counts
		addCounts(&c, st.done.counts[w])
		addCounts(&c, st.cur.counts[w])
		for i, v := range []int64{c.Sent, c.Acked, c.Failed, c.Consumed, c.Duplicated, c.Lost} {
			counter(ch, dMsgs[i], float64(v), name)
		}
	}
}

// collectHists: the latency histograms, finished trials plus the running one's copy.
func (st *state) collectHists(ch chan<- prometheus.Metric) {
	for i, d := range dHists {
		b := newBuckets()
		b.add(st.done.hists[i])
		b.addHDR(st.cur.hists[i])
		ch <- prometheus.MustNewConstHistogram(d, b.count, b.sum, b.cumulative())
	}
}

// collectTrials: the running or last trial and the verdicts.
func (st *state) collectTrials(ch chan<- prometheus.Metric) {
	gauge(ch, dTrialN, float64(st.trialN))
	gauge(ch, dTrialSize, float64(st.trialSize))
	for _, v := range verdicts {
		gauge(ch, dVerdict, flag(st.verdict == v), string(v))
		counter(ch, dTrials, float64(st.trials[v]), string(v))
	}
}

func flag(b bool) float64 {
	if b {
		return 1
	}
	return 0
}
