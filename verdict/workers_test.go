package verdict

import (
	"strings"
	"testing"

	"github.com/plimsoll/plimsoll/loadgen"
	"github.com/plimsoll/plimsoll/probe"
)

// worker is a worker's process over the window: cpu cores and run-queue wait, negative for
// unknown, of GOMAXPROCS procs on 8 cores.
func worker(i int, cpu, wait float64, procs int) loadgen.WorkerProcess {
	w := loadgen.WorkerProcess{Worker: i, GOMAXPROCS: procs, NumCPU: 8}
	if cpu >= 0 {
		w.CPU = &cpu
	}
	if wait >= 0 {
		w.RunQueueWait = &wait
	}
	return w
}

// withSched is w with p99 its Go scheduler latency over the window, seconds.
func withSched(w loadgen.WorkerProcess, p99 float64) loadgen.WorkerProcess {
	w.SchedLatencyP99 = &p99
	return w
}

// workersRun is r as a run with workers: the coordinator's own CPU share is coordinator's,
// the load's generators ws.
func workersRun(r *loadgen.Result, coordinator float64, ws ...loadgen.WorkerProcess) *loadgen.Result {
	r.Client.CPUShare, r.Workers = coordinator, ws
	return r
}

// behind is a run that fell a little behind its schedule (p99 300 ms, not far) short of its target.
func behind() *loadgen.Result {
	r := run(20000, 15000, 20)
	r.Client.MaxScheduleDelayMs, r.Latency.ScheduleDelay.P99 = 400, 300
	return r
}

// TestJudgeWorkers: the client-bound criteria of a run with workers read the workers' own
// processes, not the probe's (the coordinator's), the busiest standing for the client and
// named; with the thresholds a single process is judged by.
func TestJudgeWorkers(t *testing.T) {
	schedSeries := func() *probe.Series {
		s := withHost(series(20, nil), 0.95, 1.0)
		for i := range s.Samples { // the coordinator's goroutines waited 30-40 ms: not the load's
			s.Samples[i].Host.Self.SchedLatency = &probe.SchedHist{Buckets: []probe.SchedBucket{{Lo: 0, Hi: 1e-5, N: 980}, {Lo: 0.03, Hi: 0.04, N: 20}}}
		}
		return s
	}
	cases := []struct {
		name   string
		in     Input
		want   State
		crit   string // a criterion among the reasons, "" for none wanted
		says   string // in the reasons' or the skipped criteria's text
		absent string // a criterion that must not be among the reasons
		unsaid string // in no reason's or skipped criterion's text
	}{
		{name: "the busiest worker at its cores", in: Input{Run: workersRun(run(200000, 150000, 20), 0.01, worker(0, 1.0, 0, 4), worker(1, 3.8, 0, 4)), Series: series(20, nil)},
			want: Invalid, crit: CritClientBound, says: "worker 1 used 3.80 of the 4 cores it may use (GOMAXPROCS 4)"},
		{name: "a busy coordinator, idle workers", in: Input{Run: workersRun(run(200000, 150000, 20), 0.95, worker(0, 1.0, 0, 4), worker(1, 1.2, 0, 8)), Series: series(20, nil)},
			want: Overloaded, crit: CritShortfall, absent: CritClientBound},
		{name: "a starved worker behind", in: Input{Run: workersRun(behind(), 0.01, worker(0, 0.5, 0.02, 4), worker(1, 0.3, 0.4, 4)), Series: starved(withHost(series(20, nil), 0.5, 0.6), 0, 0.1)},
			want: Invalid, crit: CritClientBound, says: "worker 1's threads waited 0.400 s per second for a CPU while it used 0.30 cores"},
		{name: "no worker starved: jitter", in: Input{Run: workersRun(behind(), 0.01, worker(0, 0.5, 0.02, 4), worker(1, 0.3, 0.03, 4)), Series: starved(withHost(series(20, nil), 0.5, 0.6), 0.4, 0.3)},
			want: Overloaded, crit: CritShortfall, says: "worker 1's threads waited only 0.030 s per second", absent: CritClientBound},
		{name: "a worker squeezed by the brokers", in: Input{Run: workersRun(burstyRun(), 0.01, worker(0, 0.1, 0.29, 2), worker(1, 0.05, 0, 2)), Series: starved(withHost(series(20, nil), 0.73, 1.29), 0, 0.1)},
			want: Overloaded, crit: CritHostCPU, says: "worker 0's threads waited 0.29 s per second for a CPU while plimsoll used 0.15 cores"},
		{name: "the coordinator's scheduler latency", in: Input{Run: func() *loadgen.Result {
			r := workersRun(run(40000, 36000, 20), 0.01, worker(0, 0.4, 0, 2), worker(1, 0.4, 0, 2))
			r.Client.BufferFullShare = 0.2
			return r
		}(), Series: schedSeries()}, want: Overloaded, crit: CritShortfall, says: "the Go scheduler's latency: no worker reported its own", absent: CritClientBound},
		{name: "a worker's scheduler latency", in: Input{Run: workersRun(run(40000, 36000, 20), 0.01, withSched(worker(0, 0.4, 0, 2), 0.002), withSched(worker(1, 0.4, 0, 2), 0.04), worker(2, 0.4, 0, 2)),
			Series: series(20, nil)}, want: Invalid, crit: CritClientBound,
			says: "worker 1's goroutines waited 40 ms (p99 over the window) for one of its 2 Go scheduler threads"},
		{name: "the workers' scheduler fast, the coordinator's slow", in: Input{Run: func() *loadgen.Result {
			r := workersRun(run(40000, 36000, 20), 0.01, withSched(worker(0, 0.4, 0, 2), 0.002), withSched(worker(1, 0.4, 0, 2), 0.025))
			r.Client.BufferFullShare = 0.2
			return r
		}(), Series: schedSeries()}, want: Overloaded, crit: CritShortfall, absent: CritClientBound, unsaid: "Go scheduler"},
		{name: "far behind, workers unmeasured", in: Input{Run: func() *loadgen.Result {
			r := workersRun(behind(), 0.01, worker(0, -1, -1, 4), worker(1, -1, -1, 4))
			r.Counts.Unsent = 1000
			return r
		}(), Series: series(20, nil)}, want: Invalid, crit: CritClientBound, says: "it could not keep up, not the cluster"},
		{name: "far behind, the busiest named", in: Input{Run: func() *loadgen.Result {
			r := workersRun(behind(), 0.01, worker(0, 1.5, 0.01, 4), worker(1, 2.5, 0.2, 8), worker(2, -1, -1, 4))
			r.Counts.Unsent = 1000
			return r
		}(), Series: series(20, nil)}, want: Invalid, crit: CritClientBound,
			says: "the busiest worker was worker 0 (1.50 of the 4 cores it may use), and worker 1's threads waited 0.200 s per second for a CPU while it used 2.50 cores"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			v := Judge(c.in, DefaultCriteria())
			if v.State != c.want {
				t.Errorf("state %s, want %s (reasons %+v, skipped %v)", v.State, c.want, v.Reasons, v.Skipped)
			}
			var texts []string
			has := map[string]bool{}
			for _, r := range v.Reasons {
				has[r.Criterion] = true
				texts = append(texts, r.Text)
			}
			texts = append(texts, v.Skipped...)
			if c.crit != "" && !has[c.crit] {
				t.Errorf("no %s reason in %+v", c.crit, v.Reasons)
			}
			if c.absent != "" && has[c.absent] {
				t.Errorf("a %s reason in %+v", c.absent, v.Reasons)
			}
			if all := strings.Join(texts, "\n"); !strings.Contains(all, c.says) {
				t.Errorf("no text saying %q in:\n%s", c.says, all)
			}
			if all := strings.Join(texts, "\n"); c.unsaid != "" && strings.Contains(all, c.unsaid) {
				t.Errorf("a text saying %q in:\n%s", c.unsaid, all)
			}
		})
	}
}
