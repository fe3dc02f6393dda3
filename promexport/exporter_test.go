package promexport

import (
	"math"
	"strings"
	"testing"
	"time"

	"github.com/plimsoll/plimsoll/loadgen"
	"github.com/plimsoll/plimsoll/loadgen/hdr"
	"github.com/plimsoll/plimsoll/results"
	"github.com/plimsoll/plimsoll/verdict"
	"github.com/prometheus/client_golang/prometheus/testutil"
	dto "github.com/prometheus/client_model/go"
)

// hist records each value, in milliseconds.
func hist(ms ...float64) *hdr.Hist {
	h := hdr.New()
	for _, v := range ms {
		h.Record(int64(v * float64(time.Millisecond)))
	}
	return h
}

// second is a second of a run at 5000 msgs/s of 1000 bytes.
var second = loadgen.Second{T: 12, Phase: loadgen.PhaseMeasure, TargetMsgsPerSec: 5000, SentMsgsPerSec: 4990,
	ProducedMsgsPerSec: 4980, ProducedBytesPerSec: 4.98e6, ConsumedMsgsPerSec: 9960, Errors: 2,
	BufferFullMs: 1500, InFlight: 12, BacklogMsgs: 30, CPUShare: 0.25}

func liveOf(runID string, measured, excluded loadgen.Counts, pub *hdr.Hist) *loadgen.Live {
	return &loadgen.Live{RunID: runID, Second: second, Measured: measured, Excluded: excluded,
		Publish: pub, EndToEnd: hist(3, 4), ScheduleDelay: hist()}
}

func judged(runID string, lost int64, state verdict.State) *results.Trial {
	return &results.Trial{Result: loadgen.Result{RunID: runID, Counts: loadgen.Counts{Lost: lost}}, Verdict: verdict.Verdict{State: state}}
}

// TestFedSamples: a trial's second and its verdict, as a scrape reads them.
func TestFedSamples(t *testing.T) {
	e := New()
	e.Trial(3, 1000, 5000)
	e.Live(liveOf("r1", loadgen.Counts{Sent: 100, Acked: 98, Failed: 1, Consumed: 196, Duplicated: 3},
		loadgen.Counts{Sent: 50, Acked: 50, Consumed: 100}, hist(0.5, 1, 1, 2, 2.5, 99)))
	const gauges = `
# HELP plimsoll_client_cpu_ratio Share of the host's CPUs plimsoll's process used in the last second (0 to 1).
# TYPE plimsoll_client_cpu_ratio gauge
plimsoll_client_cpu_ratio 0.25
# HELP plimsoll_consumer_backlog_messages Acknowledged messages the furthest-behind consumer group has not consumed.
# TYPE plimsoll_consumer_backlog_messages gauge
plimsoll_consumer_backlog_messages 30
# HELP plimsoll_produced_bytes_per_second Message value bytes acknowledged by the cluster in the last second.
# TYPE plimsoll_produced_bytes_per_second gauge
plimsoll_produced_bytes_per_second 4.98e+06
# HELP plimsoll_run_phase 1 for the phase the running trial is in, 0 for the others; all 0 between trials.
# TYPE plimsoll_run_phase gauge
plimsoll_run_phase{phase="backlog"} 0
plimsoll_run_phase{phase="drain"} 0
plimsoll_run_phase{phase="measure"} 1
plimsoll_run_phase{phase="warmup"} 0
# HELP plimsoll_target_messages_per_second Target rate of the running trial (0: as fast as possible).
# TYPE plimsoll_target_messages_per_second gauge
plimsoll_target_messages_per_second 5000
# HELP plimsoll_trial_message_size_bytes Message size of the running or last trial.
# TYPE plimsoll_trial_message_size_bytes gauge
plimsoll_trial_message_size_bytes 1000
# HELP plimsoll_producer_buffer_full_seconds_total Time producers waited for buffer space (every buffered record in flight), summed over producers.
# TYPE plimsoll_producer_buffer_full_seconds_total counter
plimsoll_producer_buffer_full_seconds_total 1.5
`
	names := []string{"plimsoll_client_cpu_ratio", "plimsoll_consumer_backlog_messages", "plimsoll_produced_bytes_per_second",
		"plimsoll_run_phase", "plimsoll_target_messages_per_second", "plimsoll_trial_message_size_bytes", "plimsoll_producer_buffer_full_seconds_total"}
	if err := testutil.GatherAndCompare(e.reg, strings.NewReader(gauges), names...); err != nil {
		t.Error(err)
	}
	checkCounter(t, e, "plimsoll_messages_sent_total", "measured", 100)
	checkCounter(t, e, "plimsoll_messages_consumed_total", "excluded", 100)
	checkCounter(t, e, "plimsoll_messages_duplicated_total", "measured", 3)
	checkCounter(t, e, "plimsoll_messages_lost_total", "measured", 0)
	h := family(t, e, "plimsoll_publish_latency_seconds").Metric[0].Histogram
	// 0.5 ms <= 0.5 ms; 1 ms <= 1 ms (twice); 2 ms; 2.5 ms <= 3 ms; 99 ms <= 0.1 s
	for le, want := range map[float64]uint64{0.0003: 0, 0.0005: 1, 0.0007: 1, 0.001: 3, 0.002: 4, 0.003: 5, 0.07: 5, 0.1: 6, 60: 6} {
		if got := bucket(t, h, le); got != want {
			t.Errorf("publish bucket le=%v holds %d, want %d", le, got, want)
		}
	}
	if h.GetSampleCount() != 6 || math.Abs(h.GetSampleSum()-0.106) > 0.106e-3 {
		t.Errorf("publish count %d sum %v s, want 6 and 0.106 s within 0.1%%", h.GetSampleCount(), h.GetSampleSum())
	}

	e.Done(judged("r1", 2, verdict.Overloaded))
	const after = `
# HELP plimsoll_last_verdict 1 for the verdict of the last trial judged, 0 for the others; all 0 before one is judged.
# TYPE plimsoll_last_verdict gauge
plimsoll_last_verdict{state="invalid"} 0
plimsoll_last_verdict{state="ok"} 0
plimsoll_last_verdict{state="overloaded"} 1
# HELP plimsoll_run_phase 1 for the phase the running trial is in, 0 for the others; all 0 between trials.
# TYPE plimsoll_run_phase gauge
plimsoll_run_phase{phase="backlog"} 0
plimsoll_run_phase{phase="drain"} 0
plimsoll_run_phase{phase="measure"} 0
plimsoll_run_phase{phase="warmup"} 0
# HELP plimsoll_trial_number Number of the running or last trial: 1 for a run, the sequence number in a limit search.
# TYPE plimsoll_trial_number gauge
plimsoll_trial_number 3
# HELP plimsoll_trials_total Trials judged, by verdict.
# TYPE plimsoll_trials_total counter
plimsoll_trials_total{verdict="invalid"} 0
plimsoll_trials_total{verdict="ok"} 0
plimsoll_trials_total{verdict="overloaded"} 1
`
	if err := testutil.GatherAndCompare(e.reg, strings.NewReader(after), "plimsoll_last_verdict", "plimsoll_run_phase", "plimsoll_trial_number", "plimsoll_trials_total"); err != nil {
		t.Error(err)
	}
	checkCounter(t, e, "plimsoll_messages_lost_total", "measured", 2)
	checkCounter(t, e, "plimsoll_messages_sent_total", "measured", 100)
	if n := family(t, e, "plimsoll_publish_latency_seconds").Metric[0].Histogram.GetSampleCount(); n != 6 {
		t.Errorf("after the verdict the publish histogram holds %d values, want the trial's 6", n)
	}
}

// TestTrialsAddUp: counters and histograms add up over trials, whether a trial was judged or
// another run's seconds superseded it; a run's later seconds replace its earlier ones.
func TestTrialsAddUp(t *testing.T) {
	e := New()
	e.Live(liveOf("r1", loadgen.Counts{Sent: 10}, loadgen.Counts{}, hist(1)))
	e.Live(liveOf("r1", loadgen.Counts{Sent: 20}, loadgen.Counts{}, hist(1, 2)))
	e.Done(judged("r1", 1, verdict.OK))
	e.Live(liveOf("r2", loadgen.Counts{Sent: 5}, loadgen.Counts{Sent: 7}, hist(3, 4, 4.9)))
	e.Live(liveOf("r3", loadgen.Counts{Sent: 1}, loadgen.Counts{}, hist(6)))
	checkCounter(t, e, "plimsoll_messages_sent_total", "measured", 26)
	checkCounter(t, e, "plimsoll_messages_sent_total", "excluded", 7)
	checkCounter(t, e, "plimsoll_messages_lost_total", "measured", 1)
	h := family(t, e, "plimsoll_publish_latency_seconds").Metric[0].Histogram
	if h.GetSampleCount() != 6 || bucket(t, h, 0.005) != 5 {
		t.Errorf("publish: %d values, %d up to 5 ms; want 6 and 5", h.GetSampleCount(), bucket(t, h, 0.005))
	}
	if n := family(t, e, "plimsoll_end_to_end_latency_seconds").Metric[0].Histogram.GetSampleCount(); n != 6 {
		t.Errorf("end-to-end: %d values, want 2 per run", n)
	}
}

// TestNilExporter: with the endpoint off, the command calls an Exporter it does not have.
func TestNilExporter(t *testing.T) {
	var e *Exporter
	var o loadgen.Options
	e.Feed(&o)
	e.Trial(1, 100, 10)
	e.Live(liveOf("r", loadgen.Counts{}, loadgen.Counts{}, hist()))
	e.Done(judged("r", 0, verdict.OK))
	if o.Live != nil {
		t.Error("a nil Exporter set Options.Live")
	}
}

func family(t *testing.T, e *Exporter, name string) *dto.MetricFamily {
	t.Helper()
	mfs, err := e.reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, mf := range mfs {
		if mf.GetName() == name {
			return mf
		}
	}
	t.Fatalf("no metric %s", name)
	return nil
}

func checkCounter(t *testing.T, e *Exporter, name, window string, want float64) {
	t.Helper()
	for _, m := range family(t, e, name).Metric {
		if m.Label[0].GetValue() == window {
			if got := m.Counter.GetValue(); got != want {
				t.Errorf("%s{window=%q} = %v, want %v", name, window, got, want)
			}
			return
		}
	}
	t.Errorf("%s has no window=%q", name, window)
}

func bucket(t *testing.T, h *dto.Histogram, le float64) uint64 {
	t.Helper()
	for _, b := range h.Bucket {
		if b.GetUpperBound() == le {
			return b.GetCumulativeCount()
		}
	}
	t.Fatalf("no bucket le=%v", le)
	return 0
}
