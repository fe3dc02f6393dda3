package trial

import (
	"github.com/plimsoll/plimsoll/model"
	"github.com/plimsoll/plimsoll/probe"
	"github.com/plimsoll/plimsoll/results"
	"github.com/plimsoll/plimsoll/use"
)

// processCPU sets each process's mean CPU over the window, cores: the brokers' JVMs (local
// clusters, use.CPU: a missing reading is left out, never counted as 0) and plimsoll itself (the
// load generator's own figure); and for each broker the part its JIT compilers used, its user and
// system time, and the user time of its JIT compilers, where the probe read them.
func processCPU(t *results.Trial, w *probe.Series) {
	t.CPU = map[string]float64{"plimsoll": t.Client.CPUShare * float64(t.Config.NumCPU)}
	for _, p := range use.CPU(w) {
		if p.Broker == 0 {
			continue
		}
		t.CPU[p.Process] = p.Cores
		setPart(&t.CompilerCPU, p.Process, p.Compiler)
		setPart(&t.UserCPU, p.Process, p.User)
		setPart(&t.SystemCPU, p.Process, p.System)
		setPart(&t.CompilerUserCPU, p.Process, p.CompilerUser)
	}
}

// setPart sets (*m)[process] to *v, making the map on first use; nothing when v is nil.
func setPart(m *map[string]float64, process string, v *float64) {
	if v == nil {
		return
	}
	if *m == nil {
		*m = map[string]float64{}
	}
	(*m)[process] = *v
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
