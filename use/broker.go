package use

import (
	"fmt"

	"github.com/plimsoll/plimsoll/probe"
)

type brokerMetric = func(*probe.BrokerSample) probe.Num

// broker measures one broker's rows.
type broker struct {
	s       series
	id      int32
	entity  string
	metrics bool    // the broker has a metrics endpoint
	nic     float64 // its NIC capacity per direction, B/s; 0 unknown
	// links and nics say whether any sample has the broker's emulated link (its shapers) and
	// its emulated NIC's counters: without them, none of their cells has a value to look for.
	links, nics bool
}

func (s series) brokerRows(id int32) []Row {
	_, metrics := s.HandlerPools[id]
	b := broker{s: s, id: id, entity: fmt.Sprintf("broker %d", id), metrics: metrics, nic: s.NICBytesPerSec}
	if v, ok := s.NICByBroker[id]; ok && v > 0 {
		b.nic = v
	}
	b.links = s.any(func(x probe.Sample) bool { _, ok := linksOf(x)[id]; return ok })
	b.nics = s.any(func(x probe.Sample) bool { p, ok := procsOf(x)[id]; return ok && p.NIC != nil })
	return []Row{b.cpuRow(), b.networkRow(true), b.networkRow(false), b.diskRow(), b.memoryRow(),
		b.handlerRow(), b.processorRow(), b.requestRow(), b.replicationRow()}
}

// m measures a metric of the broker's endpoint; blank when it has none.
func (b broker) m(metric, unit, source string, scale float64, f brokerMetric) Cell {
	if !b.metrics {
		return blank(NoMetricsEndpoint)
	}
	return b.s.measure(metric, unit, source, scale, bf(b.id, f))
}

// capacity measures f as a share of capBps; blank with why when the capacity is unknown.
func (b broker) capacity(metric, source string, capBps float64, why Reason, f brokerMetric) Cell {
	if capBps <= 0 {
		return blank(why)
	}
	return b.m(metric, UnitPct, source, 100/capBps, f)
}

func (b broker) row(resource string, amount, util, sat, errs Cell) Row {
	return Row{Entity: b.entity, Resource: resource, Amount: amount, Utilisation: util, Saturation: sat, Errors: errs}
}

// jvm is the broker JVM's CPU from /proc, for a local broker.
func (b broker) jvm(x probe.Sample) probe.Num {
	if x.Host == nil {
		return probe.Missing
	}
	if p, ok := x.Host.Brokers[b.id]; ok {
		return p.CPU
	}
	return probe.Missing
}

// cpuRow is the JVM's own CPU time: from /proc for a local broker, else from the JVM.
func (b broker) cpuRow() Row {
	if !b.s.has(b.jvm) {
		return b.row("cpu",
			b.m("JVM CPU time", UnitCores, "jvm_os_processcputime", 1, func(x *probe.BrokerSample) probe.Num { return x.JVMCPU }),
			b.m("JVM share of its machine", UnitPct, "jvm_os_processcpuload", 100, func(x *probe.BrokerSample) probe.Num { return x.CPULoad }),
			blank(NotObservableRemotely), blank(""))
	}
	share := func(x probe.Sample) probe.Num {
		if c := b.jvm(x); c.OK() && x.Host.Cores > 0 {
			return c / probe.Num(x.Host.Cores)
		}
		return probe.Missing
	}
	return b.row("cpu",
		b.s.measure("JVM CPU time", UnitCores, "/proc/PID/stat utime+stime", 1, b.jvm),
		b.s.measure("JVM share of the host's cores", UnitPct, "/proc/PID/stat ÷ cores", 100, share),
		b.s.cpuSaturation("host-wide: "), blank(""))
}

// networkRow is the broker's traffic in (in) or out: Kafka's bytes as the amount, the wire or
// its emulated link against the NIC's capacity as the utilisation.
func (b broker) networkRow(in bool) Row {
	if in {
		return b.row("network in",
			b.m("produce + replication bytes in", UnitBps, "bytesinpersec + replicationbytesinpersec", 1,
				func(x *probe.BrokerSample) probe.Num { return x.BytesIn + x.ReplicationBytesIn }),
			b.linkOr(true, b.capacity("wire bytes in ÷ NIC", "socketservermetrics_incoming_byte ÷ NIC capacity", b.nic, NoNICCapacity,
				func(x *probe.BrokerSample) probe.Num { return x.WireIn })),
			b.linkBacklog(true, b.linkDrops(true)), b.linkErrors(true))
	}
	return b.row("network out",
		b.m("consume + replication bytes out", UnitBps, "bytesoutpersec + replicationbytesoutpersec", 1,
			func(x *probe.BrokerSample) probe.Num { return x.BytesOut + x.ReplicationBytesOut }),
		b.linkOr(false, b.capacity("wire bytes out ÷ NIC", "socketservermetrics_outgoing_byte ÷ NIC capacity", b.nic, NoNICCapacity,
			func(x *probe.BrokerSample) probe.Num { return x.WireOut })),
		b.linkBacklog(false, b.linkDrops(false)), b.linkErrors(false))
}

func (b broker) diskRow() Row {
	appends := func(x *probe.BrokerSample) probe.Num { return x.BytesIn + x.ReplicationBytesIn }
	return b.row("disk",
		b.m("log appends (leader + follower)", UnitBps, "bytesinpersec + replicationbytesinpersec", 1, appends),
		b.capacity("log appends ÷ disk write capacity", "÷ disk write capacity", b.s.DiskWriteBytesPerSec, NoDiskCapacity, appends),
		blank(""), blank(""))
}

func (b broker) memoryRow() Row {
	return b.row("memory",
		b.m("heap used", UnitBytes, "jvm_heap_used_bytes", 1, func(x *probe.BrokerSample) probe.Num { return x.HeapUsed }),
		b.m("heap used ÷ max", UnitPct, "jvm_heap_used_bytes ÷ jvm_heap_max_bytes", 100, func(x *probe.BrokerSample) probe.Num {
			if x.HeapMax > 0 {
				return x.HeapUsed / x.HeapMax
			}
			return probe.Missing
		}),
		b.m("time in GC", UnitPct, "jvm_gc_collection_seconds_sum", 100, func(x *probe.BrokerSample) probe.Num { return x.GC }),
		blank(""))
}

func (b broker) handlerRow() Row {
	return b.row("request handlers", blank(""),
		b.m("busy (1 - idle)", UnitPct, "requesthandleravgidlepercent_count", 100, func(x *probe.BrokerSample) probe.Num { return 1 - x.HandlerIdle }),
		b.m("requests waiting for a handler", UnitCount, "requestchannel_requestqueuesize", 1, func(x *probe.BrokerSample) probe.Num { return x.RequestQueue }),
		blank(""))
}

func (b broker) processorRow() Row {
	return b.row("network processors",
		b.m("wire bytes in + out", UnitBps, "socketservermetrics_{incoming,outgoing}_byte", 1, func(x *probe.BrokerSample) probe.Num { return x.WireIn + x.WireOut }),
		b.m("busy (1 - idle)", UnitPct, "networkprocessoravgidlepercent", 100, func(x *probe.BrokerSample) probe.Num { return 1 - x.NetworkIdle }),
		b.m("responses waiting for a network thread", UnitCount, "requestchannel_responsequeuesize", 1, func(x *probe.BrokerSample) probe.Num { return x.ResponseQueue }),
		blank(""))
}

func (b broker) requestRow() Row {
	return b.row("request queue",
		b.m("produce + fetch requests", UnitPerS, "totalproducerequestspersec + totalfetchrequestspersec", 1,
			func(x *probe.BrokerSample) probe.Num { return x.ProduceRequests + x.FetchRequests }),
		blank(""),
		b.m("produce total time p99", UnitMs, "requestmetrics_totaltimems{request=Produce,quantile=0.99}", 1,
			func(x *probe.BrokerSample) probe.Num { return x.ProduceMs.P99 }),
		b.m("failed produce + fetch requests", UnitPerS, "failedproducerequestspersec + failedfetchrequestspersec", 1,
			func(x *probe.BrokerSample) probe.Num { return x.FailedProduceRequests + x.FailedFetchRequests }))
}

// replicationRow's saturation comes from Kafka's metadata, which names the follower that fell
// out of the ISR even when that broker's own metrics endpoint is frozen with it; the metric
// counts on the leader instead.
func (b broker) replicationRow() Row {
	var sat Cell
	if b.s.hasMeta() {
		sat = b.s.measure("partitions with this replica out of the ISR", UnitCount, "Kafka metadata (run's topics)", 1,
			mf(func(_ probe.Sample, m *probe.MetaSample) probe.Num { return probe.Num(m.OutOfISR[b.id]) }))
	} else {
		sat = b.m("under-replicated partitions led here", UnitCount, "replicamanager_underreplicatedpartitions", 1,
			func(x *probe.BrokerSample) probe.Num { return x.UnderReplicated })
	}
	return b.row("replication",
		b.m("follower fetch bytes in", UnitBps, "replicationbytesinpersec", 1, func(x *probe.BrokerSample) probe.Num { return x.ReplicationBytesIn }),
		blank(""), sat,
		b.m("ISR shrinks + expands", UnitPerS, "isrshrinkspersec + isrexpandspersec", 1, func(x *probe.BrokerSample) probe.Num { return x.ISRShrinks + x.ISRExpands }))
}

// nicSample returns f of the broker's emulated NIC sample, or Missing.
func (b broker) nicSample(f func(*probe.IfaceSample) probe.Num) sample {
	return func(x probe.Sample) probe.Num {
		if x.Host == nil {
			return probe.Missing
		}
		if p, ok := x.Host.Brokers[b.id]; ok && p.NIC != nil {
			return f(p.NIC)
		}
		return probe.Missing
	}
}

// linkOr measures the broker's utilisation of its emulated NIC from the link's own counters
// (every byte on the wire, Ethernet frames included) when the probe saw them, else returns
// fallback.
func (b broker) linkOr(in bool, fallback Cell) Cell {
	f := b.nicSample(func(n *probe.IfaceSample) probe.Num { return n.TxBytes })
	metric, src := "link bytes out ÷ NIC", "/proc/PID/net/dev eth0 (broker's namespace) ÷ NIC capacity"
	if in {
		f = b.nicSample(func(n *probe.IfaceSample) probe.Num { return n.RxBytes })
		metric = "link bytes in ÷ NIC"
	}
	if b.nic <= 0 || !b.nics || !b.s.has(f) {
		return fallback
	}
	return b.s.measure(metric, UnitPct, src, 100/b.nic, f)
}

// linkDrops is the packets the broker's emulated NIC dropped per second, when seen.
func (b broker) linkDrops(in bool) Cell {
	f := b.nicSample(func(n *probe.IfaceSample) probe.Num { return n.TxDrops })
	if in {
		f = b.nicSample(func(n *probe.IfaceSample) probe.Num { return n.RxDrops })
	}
	if !b.nics || !b.s.has(f) {
		return blank("")
	}
	return b.s.measure("packets dropped", UnitPerS, "/proc/PID/net/dev eth0", 1, f)
}
