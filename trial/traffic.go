package trial

import (
	"github.com/plimsoll/plimsoll/model"
	"github.com/plimsoll/plimsoll/probe"
	"github.com/plimsoll/plimsoll/results"
	"github.com/plimsoll/plimsoll/use"
)

// processCPU is each process's mean CPU over the window, cores: the brokers' JVMs (local
// clusters, use.CPU: a missing reading is left out, never counted as 0) and plimsoll itself (the
// load generator's own figure); and the part of each broker's that its JIT compilers used.
func processCPU(t *results.Trial, w *probe.Series) (cpu, compilers map[string]float64) {
	cpu = map[string]float64{"plimsoll": t.Client.CPUShare * float64(t.Config.NumCPU)}
	for _, p := range use.CPU(w) {
		if p.Broker == 0 {
			continue
		}
		cpu[p.Process] = p.Cores
		if p.Compiler != nil {
			if compilers == nil {
				compilers = map[string]float64{}
			}
			compilers[p.Process] = *p.Compiler
		}
	}
	return cpu, compilers
}

// ModelCluster is the model's view of the cluster a trial ran on: brokers seen, the run's
// replication factor, partitions and consumer groups.
func ModelCluster(t *results.Trial) model.Cluster {
	brokers := len(t.Traffic)
	if t.Series != nil {
		brokers = max(brokers, len(t.Series.BrokerIDs()))
	}
	if brokers == 0 {
		brokers = t.Config.Brokers
	}
	return model.Cluster{
		Brokers: brokers, ReplicationFactor: t.Config.ReplicationFactor,
		Partitions:     t.Config.Partitions * len(t.Config.Topics),
		ConsumerGroups: len(t.Config.Groups),
	}
}
