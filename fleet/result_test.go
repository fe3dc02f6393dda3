package fleet

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/plimsoll/plimsoll/loadgen"
	"github.com/plimsoll/plimsoll/loadgen/hdr"
	"github.com/plimsoll/plimsoll/probe"
	"github.com/plimsoll/plimsoll/workload"
)

// histOf records each value (ns) in a new histogram.
func histOf(ns ...int64) *hdr.Hist {
	h := hdr.New()
	for _, v := range ns {
		h.Record(v)
	}
	return h
}

// TestAssemblyResult: the assembled Result holds the merged final's counts, ledgers and
// histograms (percentiles of the merged histograms), one timeline row and three interval
// histograms per merged second, and rates over the window as a run computes them.
func TestAssemblyResult(t *testing.T) {
	spec := workload.Default()
	spec.Rate, spec.Producers, spec.MessageSize, spec.Topics, spec.PartitionsPerTopic = 100, 2, 10, 1, 2
	spec.ConsumerGroups, spec.ConsumersPerGroup = 1, 2
	spec.Warmup, spec.Duration = time.Second, 2*time.Second
	p := Plan{RunID: "20261127t050000-cc01", Workers: 2, Spec: spec, Start: time.Unix(1_800_000_000, 0)}
	a := NewAssembly(p)
	phases := []string{loadgen.PhaseWarmup, loadgen.PhaseMeasure, loadgen.PhaseMeasure, loadgen.PhaseDrain}
	for i, ph := range phases {
		a.Add(MergedSecond{Index: i + 1, Phase: ph, Workers: 2,
			Tally:   Tally{Sent: 100, Acked: 90 + int64(i), AckedBytes: 900, Consumed: 80, BufferFullNs: 2e8, InFlight: int64(i), Backlog: []int64{int64(3 * i)}},
			Publish: histOf(1e6, 2e6), EndToEnd: histOf(3e6), ScheduleDelay: histOf(1e3)})
	}
	counts := loadgen.Counts{Sent: 200, Acked: 190, Consumed: 190}
	f := MergedFinal{Counts: counts, Excluded: loadgen.Counts{Sent: 100, Acked: 100},
		Publish: histOf(1e6, 5e6), EndToEnd: histOf(4e6), ScheduleDelay: histOf(2e6), AckWait: histOf(1e6),
		Groups: []GroupLedger{{Name: "plimsoll-20261127t050000-cc01-g0", Measured: LedgerCounts{Consumed: 190}, CaughtUp: true}}}
	res := a.Result(f, []string{"b:9092"})

	if res.Counts != counts || res.ExcludedCounts != f.Excluded || res.RunID != p.RunID {
		t.Errorf("counts %+v excluded %+v run %s", res.Counts, res.ExcludedCounts, res.RunID)
	}
	if res.Latency.Publish != f.Publish.Percentiles() || res.Latency.EndToEnd != f.EndToEnd.Percentiles() || res.Histograms.AckWait != f.AckWait {
		t.Errorf("latency %+v, want the merged histograms' percentiles", res.Latency)
	}
	if len(res.Groups) != 1 || res.Groups[0].Counts.Consumed != 190 || !res.Groups[0].CaughtUp || !res.Window.DrainComplete {
		t.Errorf("groups %+v, window %+v", res.Groups, res.Window)
	}
	// Rates: the window's counts over its 2 s, and at most what arrived in the measured seconds.
	for _, c := range []struct {
		name      string
		got, want float64
	}{
		{"sent", res.SentMsgsPerSec, 100}, {"produced", res.ProducedMsgsPerSec, 91.5}, {"consumed", res.ConsumedMsgsPerSec, 80},
		{"produced bytes", res.ProducedBytesPerSec, 915}, {"target", res.TargetMsgsPerSec, 100},
		{"buffer full share", res.Client.BufferFullShare, 0.1}, {"max schedule delay ms", res.Client.MaxScheduleDelayMs, 2},
		{"measured s", res.Window.MeasuredSeconds, 2}, {"warm-up s", res.Window.WarmupSeconds, 1}, {"drain s", res.Window.DrainSeconds, 1},
	} {
		if c.got < c.want-1e-9 || c.got > c.want+1e-9 {
			t.Errorf("%s %v, want %v", c.name, c.got, c.want)
		}
	}
	rows := slices.Collect(res.Timeline.All())
	if len(rows) != 4 || rows[2].T != 3 || rows[2].Phase != loadgen.PhaseMeasure || rows[2].ProducedMsgsPerSec != 92 || rows[3].BacklogMsgs != 9 || rows[1].Publish.Count != 2 {
		t.Errorf("timeline %+v", rows)
	}
	if res.Intervals.Len() != 12 || !res.Window.Start.Equal(p.Start.Add(time.Second)) {
		t.Errorf("%d intervals (want 3 a second), window start %s", res.Intervals.Len(), res.Window.Start)
	}
	if res.Config.ProducerClients != 2 || res.Config.ConsumerClients != 2 || len(res.Config.Topics) != 1 || res.Config.Groups[0] != f.Groups[0].Name {
		t.Errorf("config %+v", res.Config)
	}
}

// TestAssemblyUnfinished: a run that ended without the final reports (a worker lost, the
// coordinator interrupted) keeps the seconds merged: their timeline rows and intervals, and
// the measured seconds' counts by arrival, histograms and rates; its window is the measured
// seconds merged, its drain incomplete; it has no ledgers, and a note says loss is not counted.
func TestAssemblyUnfinished(t *testing.T) {
	spec := workload.Default()
	spec.Rate, spec.Producers, spec.MessageSize, spec.Topics, spec.PartitionsPerTopic = 100, 2, 10, 1, 2
	spec.Warmup, spec.Duration = time.Second, 10*time.Second
	a := NewAssembly(Plan{RunID: "20261127t050000-cc02", Workers: 2, Spec: spec, Start: time.Unix(1_800_000_000, 0)})
	for i, ph := range []string{loadgen.PhaseWarmup, loadgen.PhaseMeasure, loadgen.PhaseMeasure} {
		a.Add(MergedSecond{Index: i + 1, Phase: ph, Workers: 2, Tally: Tally{Sent: 100, Acked: 96, Failed: 1, Consumed: 94, Backlog: []int64{}},
			Publish: histOf(int64(i+1) * 1e6), EndToEnd: histOf(3e6), ScheduleDelay: histOf(1e3)})
	}
	res := a.Unfinished([]string{"b:9092"})
	rows := slices.Collect(res.Timeline.All())
	want := loadgen.Counts{Sent: 200, Acked: 192, Failed: 2, Consumed: 188}
	if res.Window.MeasuredSeconds != 2 || res.Window.DrainComplete || res.Counts != want || len(res.Groups) != 0 {
		t.Errorf("window %+v, counts %+v, groups %+v; want 2 s measured, drain incomplete, counts %+v, no groups", res.Window, res.Counts, res.Groups, want)
	}
	if len(rows) != 3 || res.Intervals.Len() != 9 || res.SentMsgsPerSec != 100 || res.ProducedMsgsPerSec != 96 || res.ConsumedMsgsPerSec != 94 {
		t.Errorf("%d rows, %d intervals, rates %v %v %v; want 3, 9, 100, 96, 94 a second", len(rows), res.Intervals.Len(), res.SentMsgsPerSec, res.ProducedMsgsPerSec, res.ConsumedMsgsPerSec)
	}
	if p := res.Histograms.Publish; p.Count() != 2 || p.MaxNs() != 3e6 || res.Histograms.AckWait.Count() != 0 {
		t.Errorf("publish %+v, ack wait %d; want the 2 measured seconds' (2 and 3 ms), no ack wait", p.Percentiles(), res.Histograms.AckWait.Count())
	}
	if !strings.Contains(strings.Join(res.Notes, "\n"), "loss, duplicates and the groups' ledgers are in the final reports only") {
		t.Errorf("notes %q; want one saying loss is not counted", res.Notes)
	}
}

// TestAssemblyWorkers: the Result records each worker's process over the measured seconds only
// (means of the seconds that measured each figure, nil when none did) with the cores it last
// said it may use; a run whose workers reported no Process records none.
func TestAssemblyWorkers(t *testing.T) {
	spec := workload.Default()
	spec.Rate, spec.Producers, spec.Topics, spec.PartitionsPerTopic = 100, 2, 1, 2
	p := Plan{RunID: "20261127t050000-cc02", Workers: 2, Spec: spec, Start: time.Unix(1_800_000_000, 0)}
	proc := func(cpu, wait probe.Num, procs int) Process {
		return Process{CPU: cpu, RunQueueWait: wait, GOMAXPROCS: procs, NumCPU: 8}
	}
	// sched is a second of n fast latencies and k of about 20 ms.
	sched := func(p Process, n, k uint64) Process {
		p.SchedLatency = &probe.SchedHist{Buckets: []probe.SchedBucket{{Lo: 0, Hi: 1e-6, N: n}, {Lo: 0.01, Hi: 0.02, N: k}}}
		return p
	}
	miss := probe.Missing
	f := MergedFinal{Publish: hdr.New(), EndToEnd: hdr.New(), ScheduleDelay: hdr.New(), AckWait: hdr.New()}
	fp := func(v float64) string { return fmt.Sprintf("%.3g", v) }
	for _, tc := range []struct {
		name    string
		seconds []MergedSecond
		want    string
	}{
		{"none reported", []MergedSecond{{Phase: loadgen.PhaseMeasure}}, "[]"},
		{"measured seconds only", []MergedSecond{
			{Phase: loadgen.PhaseWarmup, Processes: map[int]Process{0: proc(7, 7, 4), 1: proc(7, 7, 4)}},
			{Phase: loadgen.PhaseMeasure, Processes: map[int]Process{0: proc(1, 0.1, 4), 1: proc(2, miss, 4)}},
			{Phase: loadgen.PhaseMeasure, Processes: map[int]Process{0: proc(3, 0.3, 4), 1: proc(miss, miss, 4)}},
			{Phase: loadgen.PhaseDrain, Processes: map[int]Process{0: proc(7, 7, 2)}},
		}, "[0 cpu 2 wait 0.2 sched nil of 2/8 1 cpu 2 wait nil sched nil of 4/8]"},
		// The window's p99 is of its merged latencies: worker 0's 2 slow of 200 (1%) leave its
		// p99 fast, though one second's alone (2 of 100) is slow; the warm-up's are left out.
		{"scheduler latencies merged over the window", []MergedSecond{
			{Phase: loadgen.PhaseWarmup, Processes: map[int]Process{0: sched(proc(1, 0, 4), 0, 100)}},
			{Phase: loadgen.PhaseMeasure, Processes: map[int]Process{0: sched(proc(1, 0, 4), 98, 2), 1: sched(proc(1, 0, 4), 90, 10)}},
			{Phase: loadgen.PhaseMeasure, Processes: map[int]Process{0: sched(proc(1, 0, 4), 100, 0), 1: proc(1, 0, 4)}},
		}, "[0 cpu 1 wait 0 sched 1e-06 of 4/8 1 cpu 1 wait 0 sched 0.02 of 4/8]"},
		{"nothing in the window", []MergedSecond{
			{Phase: loadgen.PhaseWarmup, Processes: map[int]Process{1: proc(1, 1, 4)}},
			{Phase: loadgen.PhaseMeasure, Processes: map[int]Process{1: proc(miss, miss, 4)}},
		}, "[1 cpu nil wait nil sched nil of 4/8]"},
	} {
		a := NewAssembly(p)
		for i, m := range tc.seconds {
			m.Index, m.Workers, m.Tally.Backlog = i+1, 2, []int64{0}
			m.Publish, m.EndToEnd, m.ScheduleDelay = hdr.New(), hdr.New(), hdr.New()
			a.Add(m)
		}
		var got []string
		for _, w := range a.Result(f, nil).Workers {
			cpu, wait, sched := "nil", "nil", "nil"
			if w.CPU != nil {
				cpu = fp(*w.CPU)
			}
			if w.RunQueueWait != nil {
				wait = fp(*w.RunQueueWait)
			}
			if w.SchedLatencyP99 != nil {
				sched = fp(*w.SchedLatencyP99)
			}
			got = append(got, fmt.Sprintf("%d cpu %s wait %s sched %s of %d/%d", w.Worker, cpu, wait, sched, w.GOMAXPROCS, w.NumCPU))
		}
		if s := "[" + strings.Join(got, " ") + "]"; s != tc.want {
			t.Errorf("%s: workers %s, want %s", tc.name, s, tc.want)
		}
	}
	// Where each worker ran is recorded beside its process, also for a worker that measured none.
	a := NewAssembly(p)
	a.Add(MergedSecond{Index: 1, Phase: loadgen.PhaseMeasure, Workers: 2, Tally: Tally{Backlog: []int64{0}},
		Processes: map[int]Process{0: proc(1, 0, 4)}, Publish: hdr.New(), EndToEnd: hdr.New(), ScheduleDelay: hdr.New()})
	a.SetHosts(map[int]Host{0: {"pod-0", "b-1"}, 1: {"pod-1", ""}})
	ws := a.Result(f, nil).Workers
	if len(ws) != 2 || ws[0].Host != "pod-0" || ws[0].BootID != "b-1" || ws[0].CPU == nil || ws[1].Host != "pod-1" || ws[1].BootID != "" || ws[1].CPU != nil {
		t.Errorf("workers with hosts %+v", ws)
	}
}

// TestAssemblyWindowAndCPU: a merged run's timeline rows carry the merged produce window (its
// largest share, the share of all batches full) and the busiest worker's share of its host's
// CPUs; the Result's client signals carry the merged final's window, so that the verdict's
// produce-window criterion judges a run with workers as it judges one process.
func TestAssemblyWindowAndCPU(t *testing.T) {
	spec := workload.Default()
	spec.Rate, spec.Producers, spec.Topics, spec.PartitionsPerTopic = 100, 2, 1, 2
	a := NewAssembly(Plan{RunID: "20261127t050000-cc03", Workers: 3, Spec: spec, Start: time.Unix(1_800_000_000, 0)})
	a.Add(MergedSecond{Index: 1, Phase: loadgen.PhaseMeasure, Workers: 3,
		Tally: Tally{Backlog: []int64{}, Window: loadgen.ProduceWindow{Limit: 1, Share: 0.75, Batches: 40, FullBatches: 10}},
		Processes: map[int]Process{
			0: {CPU: 1.5, NumCPU: 2}, // 0.75 of its host: the busiest
			1: {CPU: 3, NumCPU: 8},
			2: {CPU: probe.Missing, NumCPU: 1},
		},
		Publish: hdr.New(), EndToEnd: hdr.New(), ScheduleDelay: hdr.New()})
	a.Add(MergedSecond{Index: 2, Phase: loadgen.PhaseMeasure, Workers: 3, Tally: Tally{Backlog: []int64{}},
		Publish: hdr.New(), EndToEnd: hdr.New(), ScheduleDelay: hdr.New()})
	f := MergedFinal{Publish: hdr.New(), EndToEnd: hdr.New(), ScheduleDelay: hdr.New(), AckWait: hdr.New(),
		Window: loadgen.ProduceWindow{Limit: 1, Share: 0.95, Batches: 1000, FullBatches: 900}}
	res := a.Result(f, nil)
	rows := slices.Collect(res.Timeline.All())
	if r := rows[0]; r.WindowShare != 0.75 || r.FullBatchShare != 0.25 || r.CPUShare != 0.75 {
		t.Errorf("second 1: window share %v, full batches %v, cpu share %v; want 0.75, 0.25, 0.75", r.WindowShare, r.FullBatchShare, r.CPUShare)
	}
	if r := rows[1]; r.WindowShare != 0 || r.FullBatchShare != 0 || r.CPUShare != 0 {
		t.Errorf("second 2 (no batches, no process figures): %v %v %v, want zeros", r.WindowShare, r.FullBatchShare, r.CPUShare)
	}
	if c := res.Client; c.WindowLimit != 1 || c.WindowShare != 0.95 || c.FullBatchShare != 0.9 || c.Batches != 1000 {
		t.Errorf("client signals %+v; want the final's window: limit 1, share 0.95, 0.9 of 1000 batches full", c)
	}
}
