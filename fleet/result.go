package fleet

import (
	"fmt"
	"runtime"

	"github.com/plimsoll/plimsoll/loadgen"
	"github.com/plimsoll/plimsoll/loadgen/hdr"
	"github.com/plimsoll/plimsoll/loadgen/topics"
	"github.com/plimsoll/plimsoll/probe"
)

// Assembly builds the coordinator's loadgen.Result of a run with workers from what Collect
// merges: Add takes each merged second (Collect's onSecond) as a timeline row and the HDR
// interval log's histograms; Result adds the merged final. The Result has the shape of a
// single-process run's, so result.json, the timeline, the HDR log and the verdict read it alike.
type Assembly struct {
	plan Plan
	rows []loadgen.Second
	log  hdr.IntervalLog
	err  error // the first interval the log could not keep
	// Over the measured seconds: the acknowledgements and consumptions that arrived, the
	// time producers waited for buffer space.
	measured                int
	drain                   int
	ackedIn, consumedIn     int64
	bufferFullNs, maxFlight int64
	sentIn, failedIn        int64
	windowHists             [3]*hdr.Hist        // the measured seconds' publish, end-to-end and schedule delay
	procs                   map[int]*procWindow // by worker: its process over the measured seconds
	hosts                   map[int]Host        // by worker: where it ran (SetHosts)
}

// procWindow sums one worker's process figures over the measured seconds that measured them,
// and keeps the cores it last said it may use.
type procWindow struct {
	cpu, wait          float64
	nCPU, nWait        int
	gomaxprocs, numCPU int
	sched              probe.SchedHist // the measured seconds' Go scheduler latencies, merged
}

// add takes one second's figures of the worker; measured says whether the second is in the
// window (only those count in the means).
func (w *procWindow) add(p Process, measured bool) {
	w.gomaxprocs, w.numCPU = p.GOMAXPROCS, p.NumCPU
	if !measured {
		return
	}
	if p.CPU.OK() {
		w.cpu, w.nCPU = w.cpu+float64(p.CPU), w.nCPU+1
	}
	if p.RunQueueWait.OK() {
		w.wait, w.nWait = w.wait+float64(p.RunQueueWait), w.nWait+1
	}
	if p.SchedLatency != nil {
		w.sched = probe.MergeSched(&w.sched, p.SchedLatency)
	}
}

// result is the worker's window as the Result records it.
func (w *procWindow) result(worker int) loadgen.WorkerProcess {
	mean := func(sum float64, n int) *float64 {
		if n == 0 {
			return nil
		}
		m := sum / float64(n)
		return &m
	}
	wp := loadgen.WorkerProcess{Worker: worker, CPU: mean(w.cpu, w.nCPU), RunQueueWait: mean(w.wait, w.nWait),
		GOMAXPROCS: w.gomaxprocs, NumCPU: w.numCPU}
	if q := w.sched.Quantile(0.99); q.OK() {
		v := float64(q)
		wp.SchedLatencyP99 = &v
	}
	return wp
}

// NewAssembly starts the assembly of plan p's result.
func NewAssembly(p Plan) *Assembly { return &Assembly{plan: p} }

// Add records merged second m: its timeline row (rates per second of its counts) and its
// interval histograms, timed from the plan's start.
func (a *Assembly) Add(m MergedSecond) {
	t := m.Tally
	a.rows = append(a.rows, loadgen.Second{
		T: float64(m.Index), Phase: m.Phase, TargetMsgsPerSec: a.plan.Spec.Rate,
		SentMsgsPerSec: float64(t.Sent), ProducedMsgsPerSec: float64(t.Acked), ProducedBytesPerSec: float64(t.AckedBytes),
		ConsumedMsgsPerSec: float64(t.Consumed), Failed: t.Failed, Errors: t.Errors,
		Publish: loadgen.SecondLatencyOf(m.Publish), EndToEnd: loadgen.SecondLatencyOf(m.EndToEnd),
		ScheduleDelay: loadgen.SecondLatencyOf(m.ScheduleDelay),
		BufferFullMs:  float64(t.BufferFullNs) / 1e6, InFlight: t.InFlight, BacklogMsgs: largest(t.Backlog),
		CPUShare: busiestShare(m.Processes), WindowShare: t.Window.Share, FullBatchShare: t.Window.FullBatchShare(),
	})
	start, end := int64(m.Index-1)*1000, int64(m.Index)*1000
	for i, h := range []*hdr.Hist{m.Publish, m.EndToEnd, m.ScheduleDelay} {
		if err := a.log.Add(intervalTags[i], start, end, h); err != nil && a.err == nil {
			a.err = err
		}
	}
	a.maxFlight = max(a.maxFlight, t.InFlight)
	a.addProcesses(m)
	switch m.Phase {
	case loadgen.PhaseMeasure:
		a.addMeasured(m)
	case loadgen.PhaseDrain:
		a.drain++
	}
}

// addMeasured adds a measured second to the window's sums and histograms, which an unfinished
// run's result is drawn from.
func (a *Assembly) addMeasured(m MergedSecond) {
	t := m.Tally
	a.measured++
	a.ackedIn, a.consumedIn, a.bufferFullNs = a.ackedIn+t.Acked, a.consumedIn+t.Consumed, a.bufferFullNs+t.BufferFullNs
	a.sentIn, a.failedIn = a.sentIn+t.Sent, a.failedIn+t.Failed
	for i, h := range []*hdr.Hist{m.Publish, m.EndToEnd, m.ScheduleDelay} {
		if a.windowHists[i] == nil {
			a.windowHists[i] = hdr.New()
		}
		a.windowHists[i].Merge(h)
	}
}

// addProcesses takes the workers' process figures of merged second m.
func (a *Assembly) addProcesses(m MergedSecond) {
	for w, p := range m.Processes {
		if a.procs == nil {
			a.procs = map[int]*procWindow{}
		}
		if a.procs[w] == nil {
			a.procs[w] = &procWindow{}
		}
		a.procs[w].add(p, m.Phase == loadgen.PhaseMeasure)
	}
}

// busiestShare is the largest share of its host's CPUs a worker used over a second: the
// timeline's cpu_share of a merged run. 0 when no worker measured it.
func busiestShare(ps map[int]Process) float64 {
	var share float64
	for _, p := range ps {
		if p.CPU.OK() && p.NumCPU > 0 {
			share = max(share, float64(p.CPU)/float64(p.NumCPU))
		}
	}
	return share
}

// SetHosts records where each worker ran (Coordinator.Hosts), for the Result's workers.
func (a *Assembly) SetHosts(hosts map[int]Host) { a.hosts = hosts }

// workers are the workers' process windows and hosts in index order; nil when none reported
// either.
func (a *Assembly) workers() []loadgen.WorkerProcess {
	seen := map[int]bool{}
	for w := range a.procs {
		seen[w] = true
	}
	for w := range a.hosts {
		seen[w] = true
	}
	var out []loadgen.WorkerProcess
	for _, w := range sortedKeys(seen) {
		wp := loadgen.WorkerProcess{Worker: w}
		if p := a.procs[w]; p != nil {
			wp = p.result(w)
		}
		if h, ok := a.hosts[w]; ok {
			wp.Host, wp.BootID = h.Name, h.BootID
		}
		out = append(out, wp)
	}
	return out
}

// intervalTags are the HDR interval log's tags of a second's histograms, as loadgen writes them.
var intervalTags = [3]string{"publish", "end_to_end", "schedule_delay"}

// largest is the largest of vs, 0 without any.
func largest(vs []int64) int64 {
	var m int64
	for _, v := range vs {
		m = max(m, v)
	}
	return m
}

// Result is the run's result: the merged final's counts, ledgers and histograms, the rates over
// the window, the timeline and interval log of the seconds added. bootstrap is the target's.
func (a *Assembly) Result(f MergedFinal, bootstrap []string) *loadgen.Result {
	return a.result(f, bootstrap, a.plan.Spec.Duration.Seconds())
}

// result is Result with the counts' rates over windowSecs.
func (a *Assembly) result(f MergedFinal, bootstrap []string, windowSecs float64) *loadgen.Result {
	spec := a.plan.Spec
	res := &loadgen.Result{RunID: a.plan.RunID, Counts: f.Counts, ExcludedCounts: f.Excluded,
		Histograms: loadgen.Histograms{Publish: f.Publish, EndToEnd: f.EndToEnd, ScheduleDelay: f.ScheduleDelay, AckWait: f.AckWait},
		Latency: loadgen.Latency{Publish: f.Publish.Percentiles(), EndToEnd: f.EndToEnd.Percentiles(),
			ScheduleDelay: f.ScheduleDelay.Percentiles(), AckWait: f.AckWait.Percentiles()},
		Timeline: loadgen.TimelineOf(a.rows...), Intervals: a.log, Window: a.window(f), Config: a.config(f, bootstrap),
		Notes:   []string{fmt.Sprintf("merged from the reports of %d workers (docs/workers.md): end-to-end latency is measured within each worker; the timeline's cpu_share is the busiest worker's share of its host's CPUs (each worker's CPU and run-queue wait over the window are under workers)", a.plan.Workers)},
		Workers: a.workers(),
	}
	for _, g := range f.Groups {
		res.Groups = append(res.Groups, groupResult(g))
	}
	if a.err != nil {
		res.Notes = append(res.Notes, a.err.Error())
	}
	res.FillRates(spec.Rate, windowSecs, float64(a.measured), a.ackedIn, a.consumedIn, spec.MessageSize)
	res.Client = loadgen.ClientSignals{MaxScheduleDelayMs: float64(f.ScheduleDelay.MaxNs()) / 1e6,
		BufferFullSeconds: float64(a.bufferFullNs) / 1e9, MaxInFlight: a.maxFlight,
		WindowLimit: f.Window.Limit, WindowShare: f.Window.Share, FullBatchShare: f.Window.FullBatchShare(), Batches: f.Window.Batches}
	if a.measured > 0 {
		res.Client.BufferFullShare = res.Client.BufferFullSeconds / (float64(a.measured) * float64(spec.Producers))
	}
	return res
}

// Unfinished is the result of a run that ended without every worker's final report (a worker
// lost, the coordinator interrupted), drawn from the measured seconds merged: their counts by
// arrival (sent, acknowledged, failed, consumed), their histograms and the rates over them,
// with the timeline and interval log of every second added. Loss, duplicates and the groups'
// ledgers are in the final reports only: they are not counted, and a note says so. Its window
// is the measured seconds merged, not the plan's, and its drain incomplete.
func (a *Assembly) Unfinished(bootstrap []string) *loadgen.Result {
	f := MergedFinal{Counts: loadgen.Counts{Sent: a.sentIn, Acked: a.ackedIn, Failed: a.failedIn, Consumed: a.consumedIn},
		Publish: a.windowHist(0), EndToEnd: a.windowHist(1), ScheduleDelay: a.windowHist(2), AckWait: hdr.New()}
	res := a.result(f, bootstrap, float64(a.measured))
	res.Window.MeasuredSeconds, res.Window.DrainComplete = float64(a.measured), false
	res.Notes = append(res.Notes, fmt.Sprintf("the run ended before every worker's final report: its figures are the %d measured seconds merged, "+
		"counted by arrival; loss, duplicates and the groups' ledgers are in the final reports only, so they are not counted here", a.measured))
	return res
}

// windowHist is the measured seconds' histogram i (publish, end-to-end, schedule delay),
// empty before any.
func (a *Assembly) windowHist(i int) *hdr.Hist {
	if a.windowHists[i] == nil {
		return hdr.New()
	}
	return a.windowHists[i]
}

// window is the run's phases as the plan set them and the seconds reported them.
func (a *Assembly) window(f MergedFinal) loadgen.Window {
	w := loadgen.Window{Start: a.plan.Start.Add(a.plan.Spec.Warmup).UTC(), WarmupSeconds: a.plan.Spec.Warmup.Seconds(),
		MeasuredSeconds: a.plan.Spec.Duration.Seconds(), DrainSeconds: float64(a.drain), DrainComplete: true}
	for _, g := range f.Groups {
		w.DrainComplete = w.DrainComplete && g.CaughtUp
	}
	return w
}

// config records the run as a whole: the spec, its topics and groups, every worker's clients.
func (a *Assembly) config(f MergedFinal, bootstrap []string) loadgen.Config {
	spec, prefix := a.plan.Spec, Prefix(a.plan.RunID)
	c := loadgen.Config{Spec: spec, Bootstrap: bootstrap, Topics: topics.TopicNames(prefix, spec.Topics),
		Partitions: spec.PartitionsPerTopic, ReplicationFactor: spec.ReplicationFactor,
		ProducerClients: spec.Producers, ConsumerClients: spec.ConsumerGroups * spec.ConsumersPerGroup,
		GoVersion: runtime.Version(), GOMAXPROCS: runtime.GOMAXPROCS(0), NumCPU: runtime.NumCPU()}
	for _, g := range f.Groups {
		c.Groups = append(c.Groups, g.Name)
	}
	return c
}

// groupResult is a united ledger as a run's group result.
func groupResult(g GroupLedger) loadgen.GroupResult {
	m := g.Measured
	return loadgen.GroupResult{Name: g.Name, CaughtUp: g.CaughtUp, Foreign: g.Foreign, Counts: loadgen.Counts{
		Consumed: m.Consumed, Duplicated: m.Duplicated, Redelivered: m.Redelivered, OutOfOrder: m.OutOfOrder,
		Lost: g.Lost, Unconsumed: g.Unconsumed}}
}
