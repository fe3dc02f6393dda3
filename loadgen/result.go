package loadgen

import (
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"strconv"
	"time"

	"github.com/plimsoll/plimsoll/kafkaprops"
	"github.com/plimsoll/plimsoll/loadgen/hdr"
	"github.com/plimsoll/plimsoll/workload"
)

// Result is what one run measured. Every figure covers the measured window only: warm-up and
// backlog building are excluded (ExcludedCounts shows them apart), and the drain after the
// window only completes the accounting of messages intended inside it.
type Result struct {
	RunID  string `json:"run_id"`
	Config Config `json:"config"`
	Window Window `json:"window"`

	// The sent rate counts the messages intended inside the window (Counts.Sent) over its
	// length. The produced and consumed rates are each the lesser of two rates: the messages
	// intended inside the window that were acknowledged (consumed) at any time, over its length,
	// and the acknowledgements (consumptions) that arrived inside it, whatever their messages'
	// intended time (ArrivedMsgsPerSec). A backlog from the warm-up acknowledged in the window
	// cannot make them exceed the target, and a cluster that falls behind, its backlog
	// acknowledged only during the drain, cannot read as keeping up. The timeline's rates count
	// by arrival, second by second.
	TargetMsgsPerSec    float64 `json:"target_msgs_per_sec"`    // the spec's rate (a share run's: its share); 0 = as fast as possible
	SentMsgsPerSec      float64 `json:"sent_msgs_per_sec"`      // Counts.Sent per second of the window
	ProducedMsgsPerSec  float64 `json:"produced_msgs_per_sec"`  // the lesser of Counts.Acked and the arrivals, per second
	ProducedBytesPerSec float64 `json:"produced_bytes_per_sec"` // their message value bytes
	ConsumedMsgsPerSec  float64 `json:"consumed_msgs_per_sec"`  // likewise for consumption (summed over groups)
	ConsumedBytesPerSec float64 `json:"consumed_bytes_per_sec"`
	// Arrived are the acknowledgements and consumptions that arrived inside the window, per
	// second of it, whatever their messages' intended time.
	Arrived ArrivedRates `json:"arrived"`

	Counts         Counts         `json:"counts"`          // messages intended inside the window
	ExcludedCounts Counts         `json:"excluded_counts"` // messages of warm-up and backlog building
	Groups         []GroupResult  `json:"groups,omitempty"`
	Latency        Latency        `json:"latency_ms"`
	Client         ClientSignals  `json:"client"`
	Backlog        *BacklogResult `json:"backlog,omitempty"`
	Errors         []ErrorCount   `json:"errors,omitempty"`
	Notes          []string       `json:"notes,omitempty"`
	Interrupted    bool           `json:"interrupted,omitempty"`
	// Workers are, in a run spread over worker processes (package fleet), each worker's own use
	// of its host over the window, by worker index: the load's generators, whose CPU Client and
	// the probe's samples (the coordinator's process) do not show. Empty in a single-process run.
	Workers []WorkerProcess `json:"workers,omitempty"`
	// Timeline is the run's seconds, one row a second; a run with Options.SpillDir spills all
	// but its latest ten minutes (Timeline.All reads them back).
	Timeline Timeline `json:"timeline"`

	// Histograms are the measured window's merged histograms behind Latency, each in its exact
	// encoded form (hdr.Encoded), so that a reader can merge the histograms of several results
	// (percentiles are never averaged). A run always has them; a Result without any (built by
	// hand, or read from a file written before they were recorded) leaves the field out.
	Histograms Histograms `json:"histograms,omitzero"`

	// Intervals are the per-second histograms of the whole run, warm-up and drain included
	// (tags publish, end_to_end, schedule_delay), for WriteHDRLog; not part of result.json.
	// Their times count from the producers' start.
	Intervals hdr.IntervalLog `json:"-"`
}

// WorkerProcess is one worker process's use of its host over the measured window: the means of
// the seconds it measured, CPU in cores (CPU seconds per second, user + system) and its threads'
// run-queue wait in thread-seconds per second, with the cores it may use (its last report's),
// and the p99 of its goroutines' Go scheduler latency over the window's merged histogram,
// seconds; and where it ran, as its join said (its host name and its kernel's boot id, which two
// containers on one machine share). A figure no second measured is nil: unknown, not 0.
type WorkerProcess struct {
	Worker          int      `json:"worker"`
	Host            string   `json:"host,omitempty"`
	BootID          string   `json:"boot_id,omitempty"`
	CPU             *float64 `json:"cpu_cores"`
	RunQueueWait    *float64 `json:"runq_wait"`
	SchedLatencyP99 *float64 `json:"sched_latency_p99_s"`
	GOMAXPROCS      int      `json:"gomaxprocs"`
	NumCPU          int      `json:"num_cpu"`
}

// Usable is the cores the worker may use: min(GOMAXPROCS, NumCPU), either unknown (0) left out.
func (w WorkerProcess) Usable() int {
	switch {
	case w.GOMAXPROCS <= 0:
		return w.NumCPU
	case w.NumCPU <= 0:
		return w.GOMAXPROCS
	}
	return min(w.GOMAXPROCS, w.NumCPU)
}

// Config records everything the figures depend on.
type Config struct {
	Spec              workload.Spec             `json:"spec"`
	ClientProps       kafkaprops.EffectiveProps `json:"client_props"`
	Bootstrap         []string                  `json:"bootstrap"`
	Brokers           int                       `json:"brokers"`
	Topics            []string                  `json:"topics"`
	Partitions        int                       `json:"partitions_per_topic"`
	ReplicationFactor int                       `json:"replication_factor"`
	TopicConfigs      map[string]string         `json:"topic_configs,omitempty"`
	Groups            []string                  `json:"groups,omitempty"`
	ProducerClients   int                       `json:"producer_clients"`
	ConsumerClients   int                       `json:"consumer_clients"`
	// ConsumerFetch is the consumers' fetch path when it is plimsoll's own (FetchPlimsoll);
	// empty: franz-go's.
	ConsumerFetch  string      `json:"consumer_fetch,omitempty"`
	Payload        PayloadInfo `json:"payload"`
	KeyBytes       int         `json:"key_bytes"`
	GoVersion      string      `json:"go_version"`
	FranzGoVersion string      `json:"franz_go_version"`
	GOMAXPROCS     int         `json:"gomaxprocs"`
	NumCPU         int         `json:"num_cpu"`
}

// Window gives the phases' lengths as they happened.
type Window struct {
	Start time.Time `json:"start"` // wall clock at the start of the measured window
	// SettleSeconds: writing one record per partition with acks=all before the schedule starts
	// (see Run), so that a fresh topic's first slow acknowledgements fall outside the load.
	SettleSeconds float64 `json:"settle_seconds"`
	// SilentBrokers answered nothing, not even their API versions, when the topics did not settle
	// (a paused or hung broker the cluster still lists): the run measured a cluster without them.
	SilentBrokers   []int32 `json:"silent_brokers,omitempty"`
	WarmupSeconds   float64 `json:"warmup_seconds"`
	BacklogSeconds  float64 `json:"backlog_seconds,omitempty"` // building the backlog (consumers paused)
	MeasuredSeconds float64 `json:"measured_seconds"`
	DrainSeconds    float64 `json:"drain_seconds"`
	// DrainComplete: every group consumed every acknowledged message, or read to the end of
	// every partition, before the drain timeout.
	DrainComplete bool `json:"drain_complete"`
}

// ArrivedRates are the window's acknowledgements and consumptions by arrival, per second.
type ArrivedRates struct {
	AckedMsgsPerSec    float64 `json:"acked_msgs_per_sec"`
	ConsumedMsgsPerSec float64 `json:"consumed_msgs_per_sec"`
}

// Counts are message counts. Consumer-side counts are summed over the groups.
type Counts struct {
	Sent   int64 `json:"sent"`   // handed to the client
	Acked  int64 `json:"acked"`  // acknowledged by the cluster
	Failed int64 `json:"failed"` // the client gave up (not lost: never acknowledged)
	// Unsent were scheduled in the window but never sent: the generator fell further behind
	// than it could catch up on.
	Unsent int64 `json:"unsent"`
	// InFlightAtEnd were sent and had neither been acknowledged nor failed when the producers
	// stopped waiting (the flush until the drain timeout, then 5 s after closing the client):
	// their outcome is unknown, so they count neither as acknowledged nor as lost.
	InFlightAtEnd int64 `json:"in_flight_at_end"`
	Consumed      int64 `json:"consumed"` // records received, repeats included
	// Lost: acknowledged, yet the group read to the end of every partition without seeing it.
	// Failed and in-flight messages are never lost (Sent = Acked + Failed + InFlightAtEnd).
	Lost int64 `json:"lost"`
	// Unconsumed: acknowledged and not seen, but the group had not reached the end of the log
	// when the drain timed out (consumers too slow): not known to be lost.
	Unconsumed  int64 `json:"unconsumed"`
	Duplicated  int64 `json:"duplicated"`   // a (producer, sequence) seen again by the same group
	Redelivered int64 `json:"redelivered"`  // of duplicated: an offset the group had read before
	OutOfOrder  int64 `json:"out_of_order"` // below the highest sequence already seen on that partition
}

// GroupResult is one consumer group's ledger over the measured window.
type GroupResult struct {
	Name   string `json:"name"`
	Counts Counts `json:"counts"` // consumer-side fields only
	// CaughtUp: the group read to the end of every partition during the drain.
	CaughtUp bool  `json:"caught_up"`
	Foreign  int64 `json:"foreign,omitempty"` // records without a plimsoll stamp
}

// Latency holds the measured window's percentiles (ms). Publish and end-to-end latency count
// from the intended send time, so a message the generator sent late still counts its wait.
type Latency struct {
	Publish       Percentiles `json:"publish"`        // intended send time -> acknowledged
	EndToEnd      Percentiles `json:"end_to_end"`     // intended send time -> consumed
	ScheduleDelay Percentiles `json:"schedule_delay"` // intended send time -> the send call
	AckWait       Percentiles `json:"ack_wait"`       // the send call -> acknowledged
}

// Percentiles summarises one latency histogram in milliseconds (hdr.Hist.Percentiles).
type Percentiles = hdr.Percentiles

// Histograms are the measured window's merged histograms, the ones Latency summarises. In JSON
// each is an hdr.Encoded: {"hdr": V2 compressed and base64, values in µs; "overflow"; "max_ns"}.
type Histograms struct {
	Publish       *hdr.Hist `json:"publish"`
	EndToEnd      *hdr.Hist `json:"end_to_end"`
	ScheduleDelay *hdr.Hist `json:"schedule_delay"`
	AckWait       *hdr.Hist `json:"ack_wait"`
}

// ClientSignals are what the verdict reads to tell whether the generator itself limited the run
// (client-bound, INVALID) rather than the cluster: its own CPU, how late it sent (the schedule
// delay percentiles are in Latency, with Counts.Unsent), and how long its producers waited for
// buffer space (held back by the cluster's acknowledgements). The thresholds are the verdict's
// criteria, not the generator's.
type ClientSignals struct {
	MaxScheduleDelayMs float64 `json:"max_schedule_delay_ms"`
	// Producer buffer full: the times producers found every buffered record in flight, and the
	// time they waited (summed over producers) during the window; the share is of
	// producers x window.
	BufferFullWaits   int64   `json:"buffer_full_waits"`
	BufferFullSeconds float64 `json:"buffer_full_seconds"`
	BufferFullShare   float64 `json:"buffer_full_share"`
	// Waiting on acks: the ack-wait percentiles are in Latency; this is the most records
	// in flight (sent, not yet acknowledged) seen at a one-second sample.
	MaxInFlight int64 `json:"max_in_flight"`
	// The protocol window: produce requests each producer may have in flight per broker (1
	// for an idempotent producer; 0 with acks=0, not metered), the largest share of the window
	// one producer's connection to one broker spent with all of them in flight, and the share
	// of the window's batches that had no room for another record. Both near 1, the producers
	// could not send faster whatever the cluster could take.
	WindowLimit    int     `json:"window_limit"`
	WindowShare    float64 `json:"window_share"`
	FullBatchShare float64 `json:"full_batch_share"`
	Batches        int64   `json:"batches"`
	// LeanMaxInFlight is the most produce requests one producer had in flight to one broker
	// at once in one of its sessions over the run, on plimsoll's own produce path
	// (Options.LeanProducer) only; there WindowLimit is 5 per session times the most sessions.
	LeanMaxInFlight int `json:"lean_max_in_flight,omitempty"`
	// LeanSessions is the most sessions one lean producer ran (each its own connections and
	// producer id, added while every session's window was full; loadgen/produce).
	LeanSessions int `json:"lean_sessions,omitempty"`
	// CPU used by this process (user + system) during the window, its share of the host's
	// CPUs, and per million messages acknowledged during the window (by arrival, like the CPU).
	CPUSeconds    float64 `json:"cpu_seconds"`
	CPUShare      float64 `json:"cpu_share"`
	CPUPerMillion float64 `json:"cpu_seconds_per_million"`
	GCCycles      uint32  `json:"gc_cycles"`
	GCPauseMs     float64 `json:"gc_pause_ms"`
}

// BacklogResult describes a backlog run (OMB's consumerBacklogSizeGB).
type BacklogResult struct {
	TargetBytes  int64   `json:"target_bytes"`
	BuiltBytes   int64   `json:"built_bytes"`
	BuildSeconds float64 `json:"build_seconds"`
	// DrainSeconds is the time from resuming consumers until the backlog fell to the
	// drain-ratio level; -1 if that did not happen within the measured window.
	DrainSeconds float64 `json:"drain_seconds"`
	Drained      bool    `json:"drained"`
	// ConsumedMsgsPerSec is how fast the consumers caught up: records consumed during the
	// window by arrival, the backlog's included, summed over groups. (Result's consumed rate
	// counts only messages intended in the window.)
	ConsumedMsgsPerSec float64 `json:"consumed_msgs_per_sec"`
}

// ErrorCount is one kind of error and how often it occurred.
type ErrorCount struct {
	Source  string `json:"source"` // produce or fetch
	Message string `json:"message"`
	Count   int64  `json:"count"`
}

// Second is one second of the run, for the timeline and the live progress line. Its rates count
// by arrival: what was sent, acknowledged or consumed during that second, whatever its
// intended time.
type Second struct {
	T                   float64       `json:"t"` // seconds since the producers started, at the end of this second
	Phase               string        `json:"phase"`
	TargetMsgsPerSec    float64       `json:"target_msgs_per_sec"`
	SentMsgsPerSec      float64       `json:"sent_msgs_per_sec"`
	ProducedMsgsPerSec  float64       `json:"produced_msgs_per_sec"`
	ProducedBytesPerSec float64       `json:"produced_bytes_per_sec"`
	ConsumedMsgsPerSec  float64       `json:"consumed_msgs_per_sec"`
	Failed              int64         `json:"failed"`
	Errors              int64         `json:"errors"` // produce and fetch errors
	Publish             SecondLatency `json:"publish"`
	EndToEnd            SecondLatency `json:"end_to_end"`
	ScheduleDelay       SecondLatency `json:"schedule_delay"`
	BufferFullMs        float64       `json:"buffer_full_ms"` // summed over producers
	InFlight            int64         `json:"in_flight"`
	BacklogMsgs         int64         `json:"backlog_msgs"` // acknowledged, not yet consumed (largest group)
	CPUShare            float64       `json:"cpu_share"`    // this process's share of the host CPUs
	// WindowShare is the largest share of the second one producer's connection to one broker
	// had its produce-request window full; FullBatchShare the share of batches written that had
	// no room for another record (ClientSignals).
	WindowShare    float64 `json:"window_share"`
	FullBatchShare float64 `json:"full_batch_share"`
	// Fault names the planned faults (package fault) active during the second, "; " between
	// them; empty in most runs. The load generator leaves it empty: the trial marks it.
	Fault string `json:"fault,omitempty"`
}

// SecondLatency is a one-second latency summary (ms), all phases included.
type SecondLatency struct {
	P50   float64 `json:"p50"`
	P99   float64 `json:"p99"`
	Max   float64 `json:"max"`
	Count int64   `json:"count"`
}

// intervalTags are the tags of the interval log's histograms, in the order the collector adds
// them each second.
var intervalTags = [3]string{"publish", "end_to_end", "schedule_delay"}

// WriteHDRLog writes the per-second interval histograms (tags publish, end_to_end,
// schedule_delay) as an HdrHistogram interval log, through hdrhistogram-go's log writer
// (hdr.IntervalLog.Write): readable by HistogramLogAnalyzer and hdrhistogram-go's log reader.
// Values are in microseconds; the writer's max column is in seconds.
func (r *Result) WriteHDRLog(w io.Writer) error {
	return r.Intervals.Write(w, fmt.Sprintf("[plimsoll run %s: one-second interval histograms; values in microseconds, max column in seconds]", r.RunID))
}

var timelineHeader = []string{"t", "phase", "target_msgs_per_sec", "sent_msgs_per_sec", "produced_msgs_per_sec",
	"produced_bytes_per_sec", "consumed_msgs_per_sec", "failed", "errors",
	"publish_p50_ms", "publish_p99_ms", "publish_max_ms",
	"end_to_end_p50_ms", "end_to_end_p99_ms", "end_to_end_max_ms",
	"schedule_delay_p50_ms", "schedule_delay_p99_ms", "schedule_delay_max_ms",
	"buffer_full_ms", "in_flight", "backlog_msgs", "cpu_share", "window_share", "full_batch_share", "fault"}

// WriteTimelineCSV writes the timeline, one row per second, with a header row, a row at a time.
func (r *Result) WriteTimelineCSV(w io.Writer) error {
	cw := csv.NewWriter(w)
	if err := cw.Write(timelineHeader); err != nil {
		return err
	}
	f := func(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }
	i := func(v int64) string { return strconv.FormatInt(v, 10) }
	for s := range r.Timeline.All() {
		row := []string{f(s.T), s.Phase, f(s.TargetMsgsPerSec), f(s.SentMsgsPerSec), f(s.ProducedMsgsPerSec),
			f(s.ProducedBytesPerSec), f(s.ConsumedMsgsPerSec), i(s.Failed), i(s.Errors),
			f(s.Publish.P50), f(s.Publish.P99), f(s.Publish.Max),
			f(s.EndToEnd.P50), f(s.EndToEnd.P99), f(s.EndToEnd.Max),
			f(s.ScheduleDelay.P50), f(s.ScheduleDelay.P99), f(s.ScheduleDelay.Max),
			f(s.BufferFullMs), i(s.InFlight), i(s.BacklogMsgs), f(s.CPUShare), f(s.WindowShare), f(s.FullBatchShare), s.Fault}
		if err := cw.Write(row); err != nil {
			return err
		}
	}
	cw.Flush()
	return errors.Join(cw.Error(), r.Timeline.Err())
}

// SecondLatencyOf is one second's latency summary of h, as the timeline records it.
func SecondLatencyOf(h *hdr.Hist) SecondLatency { return secondLatency(h) }

// FillRates sets the window's rates from its counts (r.Counts, filled first), as a run
// computes them (see Result's rates): the sent rate is Counts.Sent over windowSecs; the produced
// and consumed rates the lesser of their counts over windowSecs and the acknowledgements and
// consumptions that arrived inside the window (acked, consumed) over arrivalSecs; their bytes
// at msgBytes a message. target is the run's target rate.
func (r *Result) FillRates(target, windowSecs, arrivalSecs float64, acked, consumed int64, msgBytes int) {
	per := func(n int64, secs float64) float64 {
		if secs <= 0 {
			return 0
		}
		return float64(n) / secs
	}
	r.Arrived = ArrivedRates{AckedMsgsPerSec: per(acked, arrivalSecs), ConsumedMsgsPerSec: per(consumed, arrivalSecs)}
	r.TargetMsgsPerSec = target
	r.SentMsgsPerSec = per(r.Counts.Sent, windowSecs)
	r.ProducedMsgsPerSec = min(per(r.Counts.Acked, windowSecs), r.Arrived.AckedMsgsPerSec)
	r.ProducedBytesPerSec = r.ProducedMsgsPerSec * float64(msgBytes)
	r.ConsumedMsgsPerSec = min(per(r.Counts.Consumed, windowSecs), r.Arrived.ConsumedMsgsPerSec)
	r.ConsumedBytesPerSec = r.ConsumedMsgsPerSec * float64(msgBytes)
}
