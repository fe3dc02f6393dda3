package trial

import (
	"math"
	"testing"
	"time"

	"github.com/plimsoll/plimsoll/loadgen"
	"github.com/plimsoll/plimsoll/localkafka"
	"github.com/plimsoll/plimsoll/probe"
	"github.com/plimsoll/plimsoll/verdict"
)

var t0 = time.Date(2026, 11, 24, 10, 0, 0, 0, time.UTC)

// sample is one second of probe data from t0+sec: broker 1's CPU (missing when cpu < 0) and
// produce traffic in, broker 2's produce traffic in.
func sample(sec int, cpu float64, in1, in2 float64) probe.Sample {
	start := t0.Add(time.Duration(sec) * time.Second)
	b1cpu := probe.Num(cpu)
	if cpu < 0 {
		b1cpu = probe.Missing
	}
	return probe.Sample{Start: start, Time: start.Add(time.Second),
		Host: &probe.HostSample{Brokers: map[int32]probe.ProcSample{1: {CPU: b1cpu}, 2: {CPU: 0.2}}},
		Brokers: map[int32]*probe.BrokerSample{
			1: {Interval: 1, BytesIn: probe.Num(in1), ReplicationBytesIn: probe.Num(2 * in2), ReplicationBytesOut: probe.Num(in1), BytesOut: probe.Num(in1)},
			2: {Interval: 1, BytesIn: probe.Num(in2), ReplicationBytesIn: probe.Num(2 * in1), ReplicationBytesOut: probe.Num(in2), BytesOut: probe.Num(in2)},
		}}
}

// TestJudge: the record's USE table, CPU, traffic and verdict come from the measured window only.
func TestJudge(t *testing.T) {
	lr := &loadgen.Result{RunID: "r1", TargetMsgsPerSec: 1000, ProducedMsgsPerSec: 1000}
	lr.Window.Start, lr.Window.MeasuredSeconds = t0.Add(10*time.Second), 5
	lr.Config.NumCPU, lr.Client.CPUShare = 2, 0.25
	s := &probe.Series{Interval: 1, Cores: 2}
	for sec := range 20 {
		in1, cpu := 1e6, 0.4
		switch {
		case sec < 10: // warm-up: figures far off, to show if they leak in
			in1, cpu = 9e6, 1.9
		case sec == 12: // one second without broker 1's CPU
			cpu = -1
		}
		s.Samples = append(s.Samples, sample(sec, cpu, in1, 2e6))
	}
	cfg := Config{Criteria: verdict.DefaultCriteria()}
	cfg.Probe.NICByBroker = map[int32]float64{1: 2e6, 2: 3e6}
	tr := judge(lr, s, cfg, "4.1.0", nil)
	if tr.USE == nil || tr.USE.Samples != 5 {
		t.Fatalf("USE table over %v samples, want the 5 of the window", tr.USE)
	}
	if got := tr.CPU["broker 1"]; math.Abs(got-0.4) > 1e-9 {
		t.Errorf("broker 1 CPU %v, want 0.4: the window's samples only, the missing one left out", got)
	}
	if got := tr.CPU["plimsoll"]; got != 0.5 {
		t.Errorf("plimsoll CPU %v, want 0.25 x 2 cores", got)
	}
	if len(tr.Traffic) != 2 || tr.Traffic[0].ProduceIn != 1e6 || tr.Traffic[1].ReplicationIn != 2e6 {
		t.Errorf("traffic %+v, want the window's means", tr.Traffic)
	}
	if tr.Cluster.NICBytesPerSec != 3e6 || tr.KafkaVersion != "4.1.0" || tr.Verdict.Criteria != cfg.Criteria {
		t.Errorf("record: cluster %+v, version %q, criteria %+v", tr.Cluster, tr.KafkaVersion, tr.Verdict.Criteria)
	}
	c := ModelCluster(tr)
	if c.Brokers != 2 {
		t.Errorf("model cluster %+v, want the 2 brokers seen", c)
	}
}

// TestJudgeUnprobed: without probe samples the record still has its verdict and the generator's
// CPU, and no table.
func TestJudgeUnprobed(t *testing.T) {
	lr := &loadgen.Result{TargetMsgsPerSec: 1000, ProducedMsgsPerSec: 1000}
	lr.Config.NumCPU, lr.Client.CPUShare = 4, 0.1
	tr := judge(lr, nil, Config{Criteria: verdict.DefaultCriteria()}, "", nil)
	if tr.USE != nil || len(tr.Traffic) != 0 || tr.CPU["plimsoll"] != 0.4 || tr.Verdict.State == "" || len(tr.Verdict.Skipped) == 0 {
		t.Errorf("unprobed record: use %v traffic %v cpu %v verdict %+v", tr.USE, tr.Traffic, tr.CPU, tr.Verdict)
	}
}

func TestProbeConfig(t *testing.T) {
	remote := (&Where{NIC: 1.25e9, DiskWrite: 5e8}).ProbeConfig()
	if remote.NICBytesPerSec != 1.25e9 || remote.DiskWriteBytesPerSec != 5e8 || remote.BrokerPIDs != nil {
		t.Errorf("remote probe config %+v", remote)
	}
	local := &Where{NIC: 2e6, Local: &localkafka.State{NIC: 2e6, Brokers: []*localkafka.Broker{
		{ID: 1, PID: 100, Controller: true, NIC: 2e6, Netns: "plimsoll-ab12-b1", HostIface: "plab12d1"}, {ID: 4, PID: 0, NIC: 1e6},
	}}}
	c := local.ProbeConfig()
	if l := c.Links[1]; len(c.Links) != 1 || l != (probe.Link{Netns: "plimsoll-ab12-b1", Iface: "eth0", HostIface: "plab12d1"}) {
		t.Errorf("links %+v, want broker 1's namespace and link ends only", c.Links)
	}
	if c.NICBytesPerSec != 0 || c.NICByBroker[1] != 2e6 || c.NICByBroker[4] != 1e6 {
		t.Errorf("emulated NICs: client host %v, brokers %v; want the brokers' own links only", c.NICBytesPerSec, c.NICByBroker)
	}
	if c.BrokerPIDs[1] != 100 || len(c.BrokerPIDs) != 1 || c.HandlerPoolsByBroker[1] != 2 || c.HandlerPoolsByBroker[4] != 1 {
		t.Errorf("pids %v, handler pools %v", c.BrokerPIDs, c.HandlerPoolsByBroker)
	}
	if v := local.KafkaVersion(); v != "" || (&Where{Local: &localkafka.State{KafkaVersion: "3.9.1"}}).KafkaVersion() != "3.9.1" {
		t.Errorf("KafkaVersion: %q", v)
	}
	if err := (&Where{}).Release(); err != nil {
		t.Errorf("releasing a cluster nobody started: %v", err)
	}
}
