package report

import (
	"strings"
	"testing"
	"time"

	"github.com/plimsoll/plimsoll/limit"
	"github.com/plimsoll/plimsoll/loadgen"
	"github.com/plimsoll/plimsoll/results"
	"github.com/plimsoll/plimsoll/verdict"
)

// The progress lines format every figure through units, and a search's lines end with the
// time it has left once a trial has been timed.
func TestProgressLines(t *testing.T) {
	s := loadgen.Second{T: 75, Phase: "measure", TargetMsgsPerSec: 12000, ProducedMsgsPerSec: 11999.6, ProducedBytesPerSec: 12.3e6,
		ConsumedMsgsPerSec: 11000, Publish: loadgen.SecondLatency{P99: 2.345}, EndToEnd: loadgen.SecondLatency{P99: 1234.5}}
	p := limit.Progress{Trial: 3, About: 12, Size: 1024, Rate: 12000}
	done := p
	done.Done, done.OK = true, 3
	done.Result = &results.Trial{}
	done.Result.ProducedMsgsPerSec, done.Result.Verdict.State = 11999.6, verdict.OK
	for _, tc := range []struct{ name, got, want string }{
		{"run", ProgressLine(s, 90),
			"1 min 15 s eta 15 s measure target 12,000  produced 12,000 msgs/s 12.3 MB/s  consumed 11,000 msgs/s  p99 publish 2.35 ms  e2e 1,230 ms  errors 0"},
		{"trial, time left", TrialProgress(p, s, 0, 4*time.Minute+30*time.Second),
			"trial 3 of ~12, 1 KiB at 12,000 msgs/s (search ~4 min 30 s left): 1 min 15 s measure target 12,000  produced 12,000 msgs/s 12.3 MB/s  consumed 11,000 msgs/s  p99 publish 2.35 ms  e2e 1,230 ms  errors 0"},
		{"trial done", SearchProgress(done, 9*time.Minute),
			"trial 3 of ~12     1 KiB      12,000 msgs/s  achieved     12,000  ok   [ok 3, overloaded 0, invalid 0]  search ~9 min left"},
		{"time not known", SearchProgress(done, 0),
			"trial 3 of ~12     1 KiB      12,000 msgs/s  achieved     12,000  ok   [ok 3, overloaded 0, invalid 0]"},
	} {
		if tc.got != tc.want {
			t.Errorf("%s:\n got %q\nwant %q", tc.name, tc.got, tc.want)
		}
	}
}

// A run with workers lists each worker's figures over the window and where it ran, "-" for
// what it did not measure.
func TestRunSummaryWorkers(t *testing.T) {
	cpu, wait, sched := 1.5, 0.02, 0.0004
	tr := &results.Trial{}
	tr.Verdict.State = verdict.OK
	tr.Workers = []loadgen.WorkerProcess{
		{Worker: 0, CPU: &cpu, RunQueueWait: &wait, SchedLatencyP99: &sched, GOMAXPROCS: 4, NumCPU: 8, Host: "pod-0", BootID: "b-1"},
		{Worker: 1, GOMAXPROCS: 2, NumCPU: 2},
	}
	got := summary(t, tr)
	for _, want := range []string{
		"worker  CPU cores  of  run-queue wait s/s  Go scheduler p99 ms  host   boot id",
		"0       1.50       4   0.0200              0.400                pod-0  b-1",
		"1       -          2   -                   -                    -      -",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("the summary lacks %q:\n%s", want, got)
		}
	}
	if tr.Workers = nil; strings.Contains(summary(t, tr), "the workers") {
		t.Error("a run without workers lists workers")
	}
}

func summary(t *testing.T, tr *results.Trial) string {
	t.Helper()
	var b strings.Builder
	if err := RunSummary(&b, tr); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// A run's summary formats its rates, counts, times and latencies through units.
func TestRunSummaryUnits(t *testing.T) {
	tr := &results.Trial{}
	tr.TargetMsgsPerSec, tr.ProducedMsgsPerSec, tr.ConsumedMsgsPerSec = 12000, 11999.6, 12000
	tr.Window.MeasuredSeconds, tr.Window.WarmupSeconds = 60, 10
	tr.Counts.Sent, tr.Counts.Acked = 720000, 719999
	tr.Latency.Publish = loadgen.Percentiles{P50: 2.345, P99: 1234.5, Count: 720000}
	tr.Client.CPUShare, tr.Client.CPUSeconds = 0.123, 7.891
	tr.Verdict.State = verdict.OK
	var b strings.Builder
	if err := RunSummary(&b, tr); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"window 1 min after 10 s warm-up; target 12,000 msgs/s", "produced  12,000", "sent 720,000  acked 719,999",
		"publish               2.35         0     1,230", "   720,000", "plimsoll itself: 7.89 CPU s (12% of the host)"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("the summary lacks %q:\n%s", want, b.String())
		}
	}
}
