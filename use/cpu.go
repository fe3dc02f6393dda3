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
	// User and System split Cores into user and system time (probe.ProcSample.User, System),
	// each averaged over the samples that read them; nil when none did (records from before).
	User   *float64 `json:"user_cores,omitempty"`
	System *float64 `json:"system_cores,omitempty"`
	// CompilerUser is the part of User a broker JVM's JIT compiler threads used, averaged over
	// the samples that read both (probe.ProcSample.CompilerUser); nil when none did.
	CompilerUser *float64 `json:"compiler_user_cores,omitempty"`
}

// ptr is the mean, nil when nothing was added.
func (m mean) ptr() *float64 {
	if m.n == 0 {
		return nil
	}
	v := m.value()
	return &v
}

// procMeans are one process's means over a window.
type procMeans struct{ cpu, jit, user, system, jitUser mean }

// add counts one sample of the process: its CPU, and each part that was read beside it.
func (m *procMeans) add(p probe.ProcSample) {
	if !p.CPU.OK() {
		return
	}
	m.cpu.add(p.CPU)
	if p.Compiler != nil {
		m.jit.add(*p.Compiler)
	}
	if p.User == nil || p.System == nil || !p.User.OK() || !p.System.OK() {
		return
	}
	m.user.add(*p.User)
	m.system.add(*p.System)
	if p.CompilerUser != nil {
		m.jitUser.add(*p.CompilerUser)
	}
}

// row is the process's ProcessCPU.
func (m *procMeans) row(process string, broker int32) ProcessCPU {
	return ProcessCPU{Process: process, Broker: broker, Cores: m.cpu.value(), Samples: m.cpu.n,
		Compiler: m.jit.ptr(), User: m.user.ptr(), System: m.system.ptr(), CompilerUser: m.jitUser.ptr()}
}

// CPU averages each process's CPU over the series: the local brokers' JVMs, by broker id, then
// plimsoll itself. A missing reading (the process gone, a pid reused) is left out, never
// counted as 0; a process with no reading in the window is absent.
func CPU(s *probe.Series) []ProcessCPU {
	if s == nil {
		return nil
	}
	brokers := map[int32]*procMeans{}
	var self procMeans
	for x := range s.All() {
		if x.Host == nil {
			continue
		}
		for id, p := range x.Host.Brokers {
			if brokers[id] == nil {
				brokers[id] = &procMeans{}
			}
			brokers[id].add(p)
		}
		self.add(x.Host.Self)
	}
	out := make([]ProcessCPU, 0, len(brokers)+1)
	for id, m := range brokers {
		if m.cpu.n > 0 {
			out = append(out, m.row(fmt.Sprintf("broker %d", id), id))
		}
	}
	slices.SortFunc(out, func(a, b ProcessCPU) int { return int(a.Broker) - int(b.Broker) })
	if self.cpu.n > 0 {
		out = append(out, self.row("plimsoll", 0))
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
