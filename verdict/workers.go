package verdict

import (
	"fmt"
	"strings"

	"github.com/plimsoll/plimsoll/loadgen"
)

// In a run spread over worker processes (loadgen.Result.Workers) the load generator is the
// workers, not the process the probe samples (the coordinator, which generates no load): the
// client-bound criteria read the workers' own reports of their processes, the busiest standing
// for the client, with the same thresholds a single process is judged by.

// runQueue is the generator's threads' run-queue wait (thread-seconds per second) and CPU
// (cores) over the window, and whose threads they are, as a verdict's text names them.
type runQueue struct {
	wait, cpu float64
	whose     string
}

// starvedBy says whether threads that waited wait s per second for a CPU while their process
// used cpu cores were short of CPU: at least ClientMinWaitS, and at least ClientStarvedWait per
// second of CPU they got. Below either, a lateness is timer jitter.
func starvedBy(wait, cpu float64, c Criteria) bool {
	return wait >= c.ClientMinWaitS && wait >= c.ClientStarvedWait*cpu
}

// generatorRunQueue is the generator's run-queue wait: plimsoll's own from the probe's samples,
// or in a run with workers the waiting worker's (waitingWorker); false when not measured.
func generatorRunQueue(in Input, c Criteria) (runQueue, bool) {
	if ws := in.Run.Workers; len(ws) > 0 {
		w, ok := waitingWorker(ws, c)
		if !ok {
			return runQueue{}, false
		}
		return runQueue{wait: *w.RunQueueWait, cpu: *w.CPU, whose: fmt.Sprintf("worker %d's threads", w.Worker)}, true
	}
	wait, cpu, ok := selfRunQueue(in.Series)
	return runQueue{wait: wait, cpu: cpu, whose: "its threads"}, ok
}

// generatorCores is the CPU the load generator used over the window, cores: plimsoll's own,
// or in a run with workers the workers' together (those that measured it). On a co-located
// cluster the workers run on its host, the only one that reaches it.
func generatorCores(r *loadgen.Result) float64 {
	if len(r.Workers) == 0 {
		return r.Client.CPUShare * float64(r.Config.NumCPU)
	}
	var sum float64
	for _, w := range r.Workers {
		if w.CPU != nil {
			sum += *w.CPU
		}
	}
	return sum
}

// busiestWorker is the worker that used the largest share of the cores it may use over the
// window, and that share; false when no worker measured its CPU.
func busiestWorker(ws []loadgen.WorkerProcess) (loadgen.WorkerProcess, float64, bool) {
	var best loadgen.WorkerProcess
	share, found := 0.0, false
	for _, w := range ws {
		if w.CPU == nil || w.Usable() <= 0 {
			continue
		}
		if s := *w.CPU / float64(w.Usable()); !found || s > share {
			best, share, found = w, s, true
		}
	}
	return best, share, found
}

// waitingWorker is the worker whose threads the run-queue criteria judge: of the starved ones
// (starvedBy, each on its own figures) the longest-waiting, else the longest-waiting of all;
// false when no worker measured both its wait and its CPU.
func waitingWorker(ws []loadgen.WorkerProcess, c Criteria) (loadgen.WorkerProcess, bool) {
	var best loadgen.WorkerProcess
	found, bestStarved := false, false
	for _, w := range ws {
		if w.CPU == nil || w.RunQueueWait == nil {
			continue
		}
		st := starvedBy(*w.RunQueueWait, *w.CPU, c)
		if !found || st && !bestStarved || st == bestStarved && *w.RunQueueWait > *best.RunQueueWait {
			best, bestStarved, found = w, st, true
		}
	}
	return best, found
}

// workersCPUBound is the client-bound reason of a run with workers whose busiest worker used
// at least ClientMaxCPU of the cores it may use (min(GOMAXPROCS, cores)), naming it.
func workersCPUBound(ws []loadgen.WorkerProcess, c Criteria) *Reason {
	w, share, ok := busiestWorker(ws)
	if !ok || c.ClientMaxCPU <= 0 || share < c.ClientMaxCPU {
		return nil
	}
	return &Reason{Criterion: CritClientBound, Text: fmt.Sprintf(
		"worker %d used %.2f of the %d cores it may use (GOMAXPROCS %d): give the workers more cores, or run more of them", w.Worker, *w.CPU, w.Usable(), w.GOMAXPROCS)}
}

// slowestScheduler is the worker whose goroutines waited longest for its Go scheduler threads
// (the p99 over the window of each worker's merged latencies, seconds); false when no worker
// measured it.
func slowestScheduler(ws []loadgen.WorkerProcess) (loadgen.WorkerProcess, bool) {
	var best loadgen.WorkerProcess
	found := false
	for _, w := range ws {
		if w.SchedLatencyP99 != nil && (!found || *w.SchedLatencyP99 > *best.SchedLatencyP99) {
			best, found = w, true
		}
	}
	return best, found
}

// workersSchedBound is the client-bound reason of a run with workers whose slowest worker's
// goroutines waited beyond ClientSchedP99Ms (p99) for one of its Go scheduler threads, naming
// it: a single process's criterion (schedBound), judged on the worker that generated the load.
// measured is false when no worker reported its latency.
func workersSchedBound(ws []loadgen.WorkerProcess, c Criteria) (reason *Reason, measured bool) {
	w, ok := slowestScheduler(ws)
	if !ok {
		return nil, false
	}
	if ms := 1000 * *w.SchedLatencyP99; ms > c.ClientSchedP99Ms {
		return &Reason{Criterion: CritClientBound, Text: fmt.Sprintf(
			"worker %d's goroutines waited %.0f ms (p99 over the window) for one of its %d Go scheduler threads: its CPU is the limit; give the workers more cores (GOMAXPROCS), or run more of them",
			w.Worker, ms, w.GOMAXPROCS)}, true
	}
	return nil, true
}

// workersNamed says, for a client-bound reason of a run with workers, which worker was the
// busiest and which one's threads the run-queue criteria judge (waitingWorker), with their
// figures; "" when no worker measured them.
func workersNamed(r *loadgen.Result, c Criteria) string {
	var parts []string
	if w, _, ok := busiestWorker(r.Workers); ok {
		parts = append(parts, fmt.Sprintf("the busiest worker was worker %d (%.2f of the %d cores it may use)", w.Worker, *w.CPU, w.Usable()))
	}
	if w, ok := waitingWorker(r.Workers, c); ok {
		parts = append(parts, fmt.Sprintf("worker %d's threads waited %.3f s per second for a CPU while it used %.2f cores", w.Worker, *w.RunQueueWait, *w.CPU))
	}
	if len(parts) == 0 {
		return ""
	}
	return "; " + strings.Join(parts, ", and ")
}
