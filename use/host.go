package use

import (
	"fmt"
	"math"

	"github.com/plimsoll/plimsoll/probe"
)

const hostEntity = "client host"

func (s series) clusterRow() Row {
	return Row{Entity: "cluster", Resource: "replication",
		Amount: s.measure("partitions of the run's topics", UnitCount, "Kafka metadata", 1,
			mf(func(_ probe.Sample, m *probe.MetaSample) probe.Num { return probe.Num(m.Partitions) })),
		Utilisation: blank(""),
		Saturation: s.measure("under-replicated partitions", UnitCount, "Kafka metadata: ISR < replicas", 1,
			mf(func(_ probe.Sample, m *probe.MetaSample) probe.Num { return probe.Num(m.UnderReplicated) })),
		Errors: s.measure("partitions whose ISR changed", UnitPerS, "Kafka metadata, second to second", 1,
			mf(func(x probe.Sample, m *probe.MetaSample) probe.Num {
				return probe.Num(float64(m.ISRChanges) / x.Time.Sub(x.Start).Seconds())
			})),
	}
}

// cpuSaturation is CPU pressure where the kernel reports it, else runnable tasks beyond cores.
func (s series) cpuSaturation(prefix string) Cell {
	psi := hf(func(h *probe.HostSample) probe.Num { return h.CPUPressure })
	if s.has(psi) {
		return s.measure(prefix+"time some task waited for a CPU", UnitPct, "/proc/pressure/cpu some", 100, psi)
	}
	return s.measure(prefix+"runnable tasks beyond cores", UnitCount, "/proc/stat procs_running - cores", 1, hf(func(h *probe.HostSample) probe.Num {
		if !h.RunQueue.OK() {
			return probe.Missing
		}
		return probe.Num(math.Max(0, float64(h.RunQueue)-float64(h.Cores)))
	}))
}

func (s series) hostRows() []Row {
	rows := []Row{s.hostCPURow(), s.selfRow()}
	rows = append(rows, s.nicRow(rxDir), s.nicRow(txDir))
	if q, ok := s.queueRow(); ok {
		rows = append(rows, q)
	}
	return append(rows, s.diskRow(), s.memoryRow())
}

func (s series) hostCPURow() Row {
	return Row{Entity: hostEntity, Resource: "cpu",
		Amount:      s.measure("busy cores", UnitCores, "/proc/stat", 1, hf(func(h *probe.HostSample) probe.Num { return h.CPU.Busy * probe.Num(h.Cores) })),
		Utilisation: s.measure("busy", UnitPct, "/proc/stat", 100, hf(func(h *probe.HostSample) probe.Num { return h.CPU.Busy })),
		Saturation:  s.cpuSaturation(""),
		Errors:      s.measure("stolen by the hypervisor", UnitPct, "/proc/stat steal", 100, hf(func(h *probe.HostSample) probe.Num { return h.CPU.Steal })),
	}
}

// selfRow is plimsoll's own process, its CPU as a share of what it may use.
func (s series) selfRow() Row {
	procs := max(1, min(s.GOMAXPROCS, s.Cores))
	cpu := hf(func(h *probe.HostSample) probe.Num { return h.Self.CPU })
	return Row{Entity: hostEntity, Resource: "plimsoll",
		Amount:      s.measure("plimsoll CPU time", UnitCores, "/proc/self/stat utime+stime", 1, cpu),
		Utilisation: s.measure(fmt.Sprintf("share of min(GOMAXPROCS, cores) = %d", procs), UnitPct, "/proc/self/stat", 100/float64(procs), cpu),
		Saturation: s.measure("goroutine scheduling latency p99", UnitMs, "runtime/metrics /sched/latencies:seconds", 1000,
			hf(func(h *probe.HostSample) probe.Num { return h.Self.SchedLatencyP99 })),
		Errors: blank(""),
	}
}

func (s series) memoryRow() Row {
	return Row{Entity: hostEntity, Resource: "memory",
		Amount: s.measure("page cache", UnitBytes, "/proc/meminfo Cached", 1, hf(func(h *probe.HostSample) probe.Num { return h.Memory.Cached })),
		Utilisation: s.measure("used (total - available)", UnitPct, "/proc/meminfo", 100, hf(func(h *probe.HostSample) probe.Num {
			if h.Memory.Total > 0 {
				return 1 - h.Memory.Available/h.Memory.Total
			}
			return probe.Missing
		})),
		Saturation: s.memSaturation(),
		Errors:     blank(""),
	}
}

func (s series) memSaturation() Cell {
	psi := hf(func(h *probe.HostSample) probe.Num { return h.MemoryPressure })
	if s.has(psi) {
		return s.measure("time some task waited for memory", UnitPct, "/proc/pressure/memory some", 100, psi)
	}
	return s.measure("dirty + writeback", UnitBytes, "/proc/meminfo", 1, hf(func(h *probe.HostSample) probe.Num { return h.Memory.Dirty + h.Memory.Writeback }))
}

// busiest returns the name whose metric has the highest mean over the window.
func (s series) busiest(names func(*probe.HostSample) []string, f func(h *probe.HostSample, name string) probe.Num, skip func(string) bool) string {
	sums := map[string]float64{}
	for x := range s.All() {
		if x.Host == nil {
			continue
		}
		for _, n := range names(x.Host) {
			if v := f(x.Host, n); v.OK() && !skip(n) {
				sums[n] += float64(v)
			}
		}
	}
	best, bv := "", -1.0
	for n, v := range sums {
		if v > bv || (v == bv && n < best) {
			best, bv = n, v
		}
	}
	return best
}

func (s series) diskRow() Row {
	name := s.busiest(diskNames, func(h *probe.HostSample, n string) probe.Num {
		if d := disk(h, n); d != nil {
			return d.Util + (d.ReadBytes+d.WriteBytes)*1e-12 // bytes break ties between idle disks
		}
		return probe.Missing
	}, func(string) bool { return false })
	if name == "" {
		return Row{Entity: hostEntity, Resource: "disk", Amount: blank(NoDisk), Utilisation: blank(""), Saturation: blank(""), Errors: blank("")}
	}
	on := func(f func(*probe.DiskSample) probe.Num) sample {
		return onNamed(disk, name, func(_ *probe.HostSample, d *probe.DiskSample) probe.Num { return f(d) })
	}
	src := "/proc/diskstats " + name
	r := Row{Entity: hostEntity, Resource: "disk",
		Amount:     s.measure("bytes read + written on "+name, UnitBps, src, 1, on(func(d *probe.DiskSample) probe.Num { return d.ReadBytes + d.WriteBytes })),
		Saturation: s.measure("requests in flight (average)", UnitCount, src+" weighted time", 1, on(func(d *probe.DiskSample) probe.Num { return d.Queue })),
		Errors:     blank(""),
	}
	if c := s.DiskWriteBytesPerSec; c > 0 {
		r.Utilisation = s.measure("bytes written ÷ disk write capacity", UnitPct, src+" ÷ disk write capacity", 100/c, on(func(d *probe.DiskSample) probe.Num { return d.WriteBytes }))
	} else {
		r.Utilisation = s.measure("time busy", UnitPct, src+" io_ticks", 100, on(func(d *probe.DiskSample) probe.Num { return d.Util }))
	}
	return r
}

func diskName(d *probe.DiskSample) string { return d.Name }

func diskNames(h *probe.HostSample) []string { return namesOf(h.Disks, diskName) }

func disk(h *probe.HostSample, name string) *probe.DiskSample { return find(h.Disks, diskName, name) }
