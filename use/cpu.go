package use

import (
	"fmt"
	"slices"

	"github.com/plimsoll/plimsoll/probe"
)

// ProcessCPU is one process's mean CPU over a window, from the host's /proc.
type ProcessCPU struct {
	// Process is "broker N" (a local broker's JVM) or "plimsoll".
	Process string `json:"process"`
	// Broker is the broker id; 0 for plimsoll.
	Broker int32 `json:"broker,omitempty"`
	// Cores is CPU seconds per second averaged over the samples that had a reading.
	Cores float64 `json:"cores"`
	// Samples counts those samples.
	Samples int `json:"samples"`
	// Compiler is the part of Cores a broker JVM's JIT compiler threads used, averaged over the
	// samples that read both (probe.ProcSample.Compiler); nil when none did.
	Compiler *float64 `json:"compiler_cores,omitempty"`
}

// CPU averages each process's CPU over the series: the local brokers' JVMs, by broker id, then
// plimsoll itself. A missing reading (the process gone, a pid reused) is left out, never
// counted as 0; a process with no reading in the window is absent.
func CPU(s *probe.Series) []ProcessCPU {
	if s == nil {
		return nil
	}
	sums, counts := map[int32]float64{}, map[int32]int{}
	jit, jitN := map[int32]float64{}, map[int32]int{}
	var self float64
	selfN := 0
	for x := range s.All() {
		if x.Host == nil {
			continue
		}
		for id, p := range x.Host.Brokers {
			if p.CPU.OK() {
				sums[id] += float64(p.CPU)
				counts[id]++
			}
			if p.CPU.OK() && p.Compiler != nil && p.Compiler.OK() {
				jit[id] += float64(*p.Compiler)
				jitN[id]++
			}
		}
		if x.Host.Self.CPU.OK() {
			self += float64(x.Host.Self.CPU)
			selfN++
		}
	}
	out := make([]ProcessCPU, 0, len(sums)+1)
	for id, sum := range sums {
		pc := ProcessCPU{Process: fmt.Sprintf("broker %d", id), Broker: id, Cores: sum / float64(counts[id]), Samples: counts[id]}
		if n := jitN[id]; n > 0 {
			c := jit[id] / float64(n)
			pc.Compiler = &c
		}
		out = append(out, pc)
	}
	slices.SortFunc(out, func(a, b ProcessCPU) int { return int(a.Broker) - int(b.Broker) })
	if selfN > 0 {
		out = append(out, ProcessCPU{Process: "plimsoll", Cores: self / float64(selfN), Samples: selfN})
	}
	return out
}

// BrokersCPU sums the brokers' mean CPU (cores) and counts the brokers that had one.
func BrokersCPU(ps []ProcessCPU) (cores float64, brokers int) {
	for _, p := range ps {
		if p.Broker != 0 {
			cores += p.Cores
			brokers++
		}
	}
	return cores, brokers
}
