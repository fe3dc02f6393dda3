package probe

import (
	"fmt"
	"math"
	"slices"
	"time"
)

// Table is a USE summary of a series: for each resource of each broker, the cluster and the
// client host, how much work it did (Amount), how busy it was (Utilisation), how much work
// waited (Saturation) and what failed (Errors). docs/use.md lists every row's metrics.
type Table struct {
	From    time.Time `json:"from"`
	To      time.Time `json:"to"`
	Seconds float64   `json:"seconds"`
	Samples int       `json:"samples"`
	Rows    []Row     `json:"rows"`
	Notes   []string  `json:"notes,omitempty"`
}

// Row is one resource of one entity ("broker 1", "cluster", "client host").
type Row struct {
	Entity      string `json:"entity"`
	Resource    string `json:"resource"`
	Amount      Cell   `json:"amount"`
	Utilisation Cell   `json:"utilisation"`
	Saturation  Cell   `json:"saturation"`
	Errors      Cell   `json:"errors"`
}

// Cell is one metric over the window: its mean and maximum over the samples that have it.
// A cell with no samples is blank; Note says why ("capacity unknown", "no metrics endpoint").
type Cell struct {
	Metric  string `json:"metric,omitempty"`
	Mean    Num    `json:"mean"`
	Max     Num    `json:"max"`
	Unit    string `json:"unit,omitempty"`
	Source  string `json:"source,omitempty"`
	Samples int    `json:"samples"`
	Note    string `json:"note,omitempty"`
}

// Blank reports whether the cell holds no value.
func (c Cell) Blank() bool { return c.Samples == 0 }

// Cell units.
const (
	unitPct   = "%"
	unitBps   = "B/s"
	unitBytes = "B"
	unitCores = "cores"
	unitMs    = "ms"
	unitPerS  = "/s"
	unitCount = "count"
)

func blank(note string) Cell { return Cell{Mean: Missing, Max: Missing, Note: note} }

// measure averages f over the samples; scale converts (100 for a fraction shown in %).
func (s *Series) measure(metric, unit, source string, scale float64, f func(Sample) Num) Cell {
	c := Cell{Metric: metric, Unit: unit, Source: source, Mean: Missing, Max: Missing}
	var sum, mx float64
	for _, x := range s.Samples {
		v := f(x)
		if !v.OK() {
			continue
		}
		f := float64(v) * scale
		sum += f
		if c.Samples == 0 || f > mx {
			mx = f
		}
		c.Samples++
	}
	if c.Samples == 0 {
		c.Note = "no data"
		return c
	}
	c.Mean, c.Max = Num(sum/float64(c.Samples)), Num(mx)
	return c
}

// has reports whether f yields a value in any sample.
func (s *Series) has(f func(Sample) Num) bool {
	for _, x := range s.Samples {
		if f(x).OK() {
			return true
		}
	}
	return false
}

// USE summarises the series (usually a Window of it) into the table.
func (s *Series) USE() Table {
	t := Table{Samples: len(s.Samples)}
	if n := len(s.Samples); n > 0 {
		t.From, t.To = s.Samples[0].Start, s.Samples[n-1].Time
		t.Seconds = t.To.Sub(t.From).Seconds()
	}
	for _, id := range s.BrokerIDs() {
		t.Rows = append(t.Rows, s.brokerRows(id)...)
	}
	if s.hasMeta() {
		t.Rows = append(t.Rows, s.clusterRow())
	}
	if s.hasHost() {
		t.Rows = append(t.Rows, s.hostRows()...)
	}
	t.Notes = append(slices.Clone(s.Notes), s.notes()...)
	return t
}

func (s *Series) hasHost() bool {
	return slices.ContainsFunc(s.Samples, func(x Sample) bool { return x.Host != nil })
}

func (s *Series) hasMeta() bool {
	return slices.ContainsFunc(s.Samples, func(x Sample) bool { return x.Meta != nil && x.Meta.Partitions > 0 })
}

// bf lifts a broker metric into a sample function.
func bf(id int32, f func(*BrokerSample) Num) func(Sample) Num {
	return func(x Sample) Num {
		if b := x.Brokers[id]; b != nil {
			return f(b)
		}
		return Missing
	}
}

// hf lifts a host metric into a sample function.
func hf(f func(*HostSample) Num) func(Sample) Num {
	return func(x Sample) Num {
		if x.Host != nil {
			return f(x.Host)
		}
		return Missing
	}
}

func (s *Series) brokerRows(id int32) []Row {
	e := fmt.Sprintf("broker %d", id)
	_, metrics := s.HandlerPools[id]
	noMetrics := blank("no metrics endpoint")
	m := func(metric, unit, source string, scale float64, f func(*BrokerSample) Num) Cell {
		if !metrics {
			return noMetrics
		}
		return s.measure(metric, unit, source, scale, bf(id, f))
	}
	capacity := func(metric, source string, capBps float64, flag string, f func(*BrokerSample) Num) Cell {
		if capBps <= 0 {
			return blank("capacity unknown (" + flag + ")")
		}
		return m(metric, unitPct, source, 100/capBps, f)
	}
	var rows []Row

	// CPU: the JVM's own CPU time, from /proc for a local broker, else from the JVM.
	jvm := func(x Sample) Num {
		if x.Host == nil {
			return Missing
		}
		if p, ok := x.Host.Brokers[id]; ok {
			return p.CPU
		}
		return Missing
	}
	cpu := Row{Entity: e, Resource: "cpu", Errors: blank("")}
	if s.has(jvm) {
		cpu.Amount = s.measure("JVM CPU time", unitCores, "/proc/PID/stat utime+stime", 1, jvm)
		cpu.Utilisation = s.measure("JVM share of the host's cores", unitPct, "/proc/PID/stat ÷ cores", 100, func(x Sample) Num {
			if c := jvm(x); c.OK() && x.Host.Cores > 0 {
				return c / Num(x.Host.Cores)
			}
			return Missing
		})
		cpu.Saturation = s.cpuSaturation("host-wide: ")
	} else {
		cpu.Amount = m("JVM CPU time", unitCores, "jvm_os_processcputime", 1, func(b *BrokerSample) Num { return b.JVMCPU })
		cpu.Utilisation = m("JVM share of its machine", unitPct, "jvm_os_processcpuload", 100, func(b *BrokerSample) Num { return b.CPULoad })
		cpu.Saturation = blank("not observable remotely")
	}
	rows = append(rows, cpu)

	nic := s.NICBytesPerSec
	if v, ok := s.NICByBroker[id]; ok && v > 0 {
		nic = v
	}
	rows = append(rows,
		Row{Entity: e, Resource: "network in",
			Amount: m("produce + replication bytes in", unitBps, "bytesinpersec + replicationbytesinpersec", 1,
				func(b *BrokerSample) Num { return b.BytesIn + b.ReplicationBytesIn }),
			Utilisation: s.linkOr(id, nic, true, capacity("wire bytes in ÷ NIC", "socketservermetrics_incoming_byte ÷ --nic", nic, "--nic",
				func(b *BrokerSample) Num { return b.WireIn })),
			Saturation: s.linkDrops(id, true), Errors: blank(""),
		},
		Row{Entity: e, Resource: "network out",
			Amount: m("consume + replication bytes out", unitBps, "bytesoutpersec + replicationbytesoutpersec", 1,
				func(b *BrokerSample) Num { return b.BytesOut + b.ReplicationBytesOut }),
			Utilisation: s.linkOr(id, nic, false, capacity("wire bytes out ÷ NIC", "socketservermetrics_outgoing_byte ÷ --nic", nic, "--nic",
				func(b *BrokerSample) Num { return b.WireOut })),
			Saturation: s.linkDrops(id, false), Errors: blank(""),
		},
		Row{Entity: e, Resource: "disk",
			Amount: m("log appends (leader + follower)", unitBps, "bytesinpersec + replicationbytesinpersec", 1,
				func(b *BrokerSample) Num { return b.BytesIn + b.ReplicationBytesIn }),
			Utilisation: capacity("log appends ÷ disk write capacity", "÷ --disk-write", s.DiskWriteBytesPerSec, "--disk-write",
				func(b *BrokerSample) Num { return b.BytesIn + b.ReplicationBytesIn }),
			Saturation: blank(""), Errors: blank(""),
		},
		Row{Entity: e, Resource: "memory",
			Amount: m("heap used", unitBytes, "jvm_heap_used_bytes", 1, func(b *BrokerSample) Num { return b.HeapUsed }),
			Utilisation: m("heap used ÷ max", unitPct, "jvm_heap_used_bytes ÷ jvm_heap_max_bytes", 100, func(b *BrokerSample) Num {
				if b.HeapMax > 0 {
					return b.HeapUsed / b.HeapMax
				}
				return Missing
			}),
			Saturation: m("time in GC", unitPct, "jvm_gc_collection_seconds_sum", 100, func(b *BrokerSample) Num { return b.GC }),
			Errors:     blank(""),
		},
		Row{Entity: e, Resource: "request handlers",
			Amount: blank(""),
			Utilisation: m("busy (1 - idle)", unitPct, "requesthandleravgidlepercent_count", 100, func(b *BrokerSample) Num {
				return 1 - b.HandlerIdle
			}),
			Saturation: m("requests waiting for a handler", unitCount, "requestchannel_requestqueuesize", 1, func(b *BrokerSample) Num { return b.RequestQueue }),
			Errors:     blank(""),
		},
		Row{Entity: e, Resource: "network processors",
			Amount: m("wire bytes in + out", unitBps, "socketservermetrics_{incoming,outgoing}_byte", 1, func(b *BrokerSample) Num { return b.WireIn + b.WireOut }),
			Utilisation: m("busy (1 - idle)", unitPct, "networkprocessoravgidlepercent", 100, func(b *BrokerSample) Num {
				return 1 - b.NetworkIdle
			}),
			Saturation: m("responses waiting for a network thread", unitCount, "requestchannel_responsequeuesize", 1, func(b *BrokerSample) Num { return b.ResponseQueue }),
			Errors:     blank(""),
		},
		Row{Entity: e, Resource: "request queue",
			Amount:      m("produce + fetch requests", unitPerS, "totalproducerequestspersec + totalfetchrequestspersec", 1, func(b *BrokerSample) Num { return b.ProduceRequests + b.FetchRequests }),
			Utilisation: blank(""),
			Saturation:  m("produce total time p99", unitMs, "requestmetrics_totaltimems{request=Produce,quantile=0.99}", 1, func(b *BrokerSample) Num { return b.ProduceMs.P99 }),
			Errors:      m("failed produce + fetch requests", unitPerS, "failedproducerequestspersec + failedfetchrequestspersec", 1, func(b *BrokerSample) Num { return b.FailedProduceRequests + b.FailedFetchRequests }),
		},
		s.replicationRow(e, id, m),
	)
	return rows
}

func (s *Series) replicationRow(e string, id int32, m func(string, string, string, float64, func(*BrokerSample) Num) Cell) Row {
	r := Row{Entity: e, Resource: "replication", Utilisation: blank(""),
		Amount: m("follower fetch bytes in", unitBps, "replicationbytesinpersec", 1, func(b *BrokerSample) Num { return b.ReplicationBytesIn }),
		Errors: m("ISR shrinks + expands", unitPerS, "isrshrinkspersec + isrexpandspersec", 1, func(b *BrokerSample) Num { return b.ISRShrinks + b.ISRExpands }),
	}
	// Kafka's metadata names the follower that fell out of the ISR, even when that broker's
	// own metrics endpoint is frozen with it; the metric counts on the leader instead.
	if s.hasMeta() {
		r.Saturation = s.measure("partitions with this replica out of the ISR", unitCount, "Kafka metadata (run's topics)", 1, func(x Sample) Num {
			if x.Meta == nil || x.Meta.Err != "" {
				return Missing
			}
			return Num(x.Meta.OutOfISR[id])
		})
	} else {
		r.Saturation = m("under-replicated partitions led here", unitCount, "replicamanager_underreplicatedpartitions", 1, func(b *BrokerSample) Num { return b.UnderReplicated })
	}
	return r
}

func (s *Series) clusterRow() Row {
	meta := func(f func(*MetaSample) Num) func(Sample) Num {
		return func(x Sample) Num {
			if x.Meta == nil || x.Meta.Err != "" {
				return Missing
			}
			return f(x.Meta)
		}
	}
	return Row{Entity: "cluster", Resource: "replication",
		Amount:      s.measure("partitions of the run's topics", unitCount, "Kafka metadata", 1, meta(func(m *MetaSample) Num { return Num(m.Partitions) })),
		Utilisation: blank(""),
		Saturation:  s.measure("under-replicated partitions", unitCount, "Kafka metadata: ISR < replicas", 1, meta(func(m *MetaSample) Num { return Num(m.UnderReplicated) })),
		Errors: s.measure("partitions whose ISR changed", unitPerS, "Kafka metadata, second to second", 1, func(x Sample) Num {
			if x.Meta == nil || x.Meta.Err != "" {
				return Missing
			}
			return Num(float64(x.Meta.ISRChanges) / x.Time.Sub(x.Start).Seconds())
		}),
	}
}

// cpuSaturation is CPU pressure where the kernel reports it, else runnable tasks beyond cores.
func (s *Series) cpuSaturation(prefix string) Cell {
	psi := hf(func(h *HostSample) Num { return h.CPUPressure })
	if s.has(psi) {
		return s.measure(prefix+"time some task waited for a CPU", unitPct, "/proc/pressure/cpu some", 100, psi)
	}
	return s.measure(prefix+"runnable tasks beyond cores", unitCount, "/proc/stat procs_running - cores", 1, hf(func(h *HostSample) Num {
		if !h.RunQueue.OK() {
			return Missing
		}
		return Num(math.Max(0, float64(h.RunQueue)-float64(h.Cores)))
	}))
}

func (s *Series) hostRows() []Row {
	const e = "client host"
	rows := []Row{{Entity: e, Resource: "cpu",
		Amount:      s.measure("busy cores", unitCores, "/proc/stat", 1, hf(func(h *HostSample) Num { return h.CPU.Busy * Num(h.Cores) })),
		Utilisation: s.measure("busy", unitPct, "/proc/stat", 100, hf(func(h *HostSample) Num { return h.CPU.Busy })),
		Saturation:  s.cpuSaturation(""),
		Errors:      s.measure("stolen by the hypervisor", unitPct, "/proc/stat steal", 100, hf(func(h *HostSample) Num { return h.CPU.Steal })),
	}}
	procs := max(1, min(s.GOMAXPROCS, s.Cores))
	rows = append(rows, Row{Entity: e, Resource: "plimsoll",
		Amount: s.measure("plimsoll CPU time", unitCores, "/proc/self/stat utime+stime", 1, hf(func(h *HostSample) Num { return h.Self.CPU })),
		Utilisation: s.measure(fmt.Sprintf("share of min(GOMAXPROCS, cores) = %d", procs), unitPct, "/proc/self/stat", 100/float64(procs),
			hf(func(h *HostSample) Num { return h.Self.CPU })),
		Saturation: s.measure("goroutine scheduling latency p99", unitMs, "runtime/metrics /sched/latencies:seconds", 1000,
			hf(func(h *HostSample) Num { return h.Self.SchedLatencyP99 })),
		Errors: blank(""),
	})
	rows = append(rows, s.nicRows(e)...)
	rows = append(rows, s.diskRow(e))
	rows = append(rows, Row{Entity: e, Resource: "memory",
		Amount: s.measure("page cache", unitBytes, "/proc/meminfo Cached", 1, hf(func(h *HostSample) Num { return h.Memory.Cached })),
		Utilisation: s.measure("used (total - available)", unitPct, "/proc/meminfo", 100, hf(func(h *HostSample) Num {
			if h.Memory.Total > 0 {
				return 1 - h.Memory.Available/h.Memory.Total
			}
			return Missing
		})),
		Saturation: s.memSaturation(),
		Errors:     blank(""),
	})
	return rows
}

func (s *Series) memSaturation() Cell {
	psi := hf(func(h *HostSample) Num { return h.MemoryPressure })
	if s.has(psi) {
		return s.measure("time some task waited for memory", unitPct, "/proc/pressure/memory some", 100, psi)
	}
	return s.measure("dirty + writeback", unitBytes, "/proc/meminfo", 1, hf(func(h *HostSample) Num { return h.Memory.Dirty + h.Memory.Writeback }))
}

// busiest returns the name whose metric has the highest mean over the window.
func (s *Series) busiest(names func(*HostSample) []string, f func(h *HostSample, name string) Num, skip func(string) bool) string {
	sums := map[string]float64{}
	for _, x := range s.Samples {
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

func iface(h *HostSample, name string) *IfaceSample {
	for i := range h.Net {
		if h.Net[i].Name == name {
			return &h.Net[i]
		}
	}
	return nil
}

func (s *Series) nicRows(e string) []Row {
	names := func(h *HostSample) []string {
		out := make([]string, len(h.Net))
		for i, n := range h.Net {
			out[i] = n.Name
		}
		return out
	}
	// A remote cluster's traffic leaves through a real interface; a local one's stays on
	// loopback, which is then the busiest and has no capacity.
	skip := func(n string) bool { return n == "lo" && !s.Local }
	var rows []Row
	for _, dir := range []struct {
		res       string
		bytes     func(*IfaceSample) Num
		sat, errs func(*HostSample, *IfaceSample) Num
		satName   string
		satSrc    string
		errName   string
	}{
		{"network in", func(i *IfaceSample) Num { return i.RxBytes },
			func(_ *HostSample, i *IfaceSample) Num { return i.RxDrops },
			func(_ *HostSample, i *IfaceSample) Num { return i.RxErrs },
			"packets dropped on receive", "/proc/net/dev", "receive errors"},
		{"network out", func(i *IfaceSample) Num { return i.TxBytes },
			func(h *HostSample, _ *IfaceSample) Num { return h.TCP.RetransSegs },
			func(_ *HostSample, i *IfaceSample) Num { return i.TxErrs },
			"TCP segments retransmitted (host-wide)", "/proc/net/snmp RetransSegs", "transmit errors"},
	} {
		name := s.busiest(names, func(h *HostSample, n string) Num {
			if i := iface(h, n); i != nil {
				return dir.bytes(i)
			}
			return Missing
		}, skip)
		if name == "" {
			rows = append(rows, Row{Entity: e, Resource: dir.res, Amount: blank("no interface"), Utilisation: blank(""), Saturation: blank(""), Errors: blank("")})
			continue
		}
		on := func(f func(*HostSample, *IfaceSample) Num) func(Sample) Num {
			return hf(func(h *HostSample) Num {
				if i := iface(h, name); i != nil {
					return f(h, i)
				}
				return Missing
			})
		}
		src := "/proc/net/dev " + name
		r := Row{Entity: e, Resource: dir.res,
			Amount:     s.measure("bytes on "+name, unitBps, src, 1, on(func(_ *HostSample, i *IfaceSample) Num { return dir.bytes(i) })),
			Saturation: s.measure(dir.satName, unitPerS, dir.satSrc, 1, on(dir.sat)),
			Errors:     s.measure(dir.errName, unitPerS, src, 1, on(dir.errs)),
		}
		capBps, capSrc := s.NICBytesPerSec, "--nic"
		if capBps <= 0 {
			capBps, capSrc = s.NICSpeeds[name], "/sys/class/net/"+name+"/speed"
		}
		switch {
		case name == "lo":
			r.Utilisation = blank("loopback has no capacity")
		case capBps <= 0:
			r.Utilisation = blank("capacity unknown (--nic)")
		default:
			r.Utilisation = s.measure("bytes ÷ link capacity", unitPct, src+" ÷ "+capSrc, 100/capBps, on(func(_ *HostSample, i *IfaceSample) Num { return dir.bytes(i) }))
		}
		rows = append(rows, r)
	}
	return rows
}

func (s *Series) diskRow(e string) Row {
	disk := func(h *HostSample, name string) *DiskSample {
		for i := range h.Disks {
			if h.Disks[i].Name == name {
				return &h.Disks[i]
			}
		}
		return nil
	}
	name := s.busiest(func(h *HostSample) []string {
		out := make([]string, len(h.Disks))
		for i, d := range h.Disks {
			out[i] = d.Name
		}
		return out
	}, func(h *HostSample, n string) Num {
		if d := disk(h, n); d != nil {
			return d.Util + (d.ReadBytes+d.WriteBytes)*1e-12 // bytes break ties between idle disks
		}
		return Missing
	}, func(string) bool { return false })
	if name == "" {
		return Row{Entity: e, Resource: "disk", Amount: blank("no disk"), Utilisation: blank(""), Saturation: blank(""), Errors: blank("")}
	}
	on := func(f func(*DiskSample) Num) func(Sample) Num {
		return hf(func(h *HostSample) Num {
			if d := disk(h, name); d != nil {
				return f(d)
			}
			return Missing
		})
	}
	src := "/proc/diskstats " + name
	r := Row{Entity: e, Resource: "disk",
		Amount:     s.measure("bytes read + written on "+name, unitBps, src, 1, on(func(d *DiskSample) Num { return d.ReadBytes + d.WriteBytes })),
		Saturation: s.measure("requests in flight (average)", unitCount, src+" weighted time", 1, on(func(d *DiskSample) Num { return d.Queue })),
		Errors:     blank(""),
	}
	if c := s.DiskWriteBytesPerSec; c > 0 {
		r.Utilisation = s.measure("bytes written ÷ disk write capacity", unitPct, src+" ÷ --disk-write", 100/c, on(func(d *DiskSample) Num { return d.WriteBytes }))
	} else {
		r.Utilisation = s.measure("time busy", unitPct, src+" io_ticks", 100, on(func(d *DiskSample) Num { return d.Util }))
	}
	return r
}

// notes explains gaps: failed scrapes and metadata requests, unknown capacities, shared hosts.
func (s *Series) notes() []string {
	var out []string
	if s.Local {
		out = append(out, "the brokers run on the client host: its cpu, disk, memory and network rows include theirs; broker rows use each broker's own metrics and JVM CPU")
	}
	for _, id := range s.BrokerIDs() {
		missing, last := 0, ""
		for _, x := range s.Samples {
			if b := x.Brokers[id]; b != nil && b.Err != "" {
				missing++
				last = b.Err
			}
		}
		if missing > 0 {
			out = append(out, fmt.Sprintf("broker %d: %d of %d intervals without metrics (last: %s)", id, missing, len(s.Samples), last))
		}
	}
	metaErr, offline := 0, 0
	for _, x := range s.Samples {
		if x.Meta != nil && x.Meta.Err != "" {
			metaErr++
		}
		if x.Meta != nil {
			offline = max(offline, x.Meta.Offline)
		}
	}
	if metaErr > 0 {
		out = append(out, fmt.Sprintf("%d of %d metadata requests failed", metaErr, len(s.Samples)))
	}
	if offline > 0 {
		out = append(out, fmt.Sprintf("up to %d partitions had no leader", offline))
	}
	return out
}

// brokerNIC returns f of the broker's emulated NIC sample, or Missing.
func brokerNIC(id int32, f func(*IfaceSample) Num) func(Sample) Num {
	return func(x Sample) Num {
		if x.Host == nil {
			return Missing
		}
		if p, ok := x.Host.Brokers[id]; ok && p.NIC != nil {
			return f(p.NIC)
		}
		return Missing
	}
}

// linkOr measures a broker's utilisation of its emulated NIC from the link's own counters (every
// byte on the wire, Ethernet frames included) when the probe saw them, else returns fallback.
func (s *Series) linkOr(id int32, capBps float64, in bool, fallback Cell) Cell {
	f := brokerNIC(id, func(n *IfaceSample) Num { return n.TxBytes })
	metric, src := "link bytes out ÷ NIC", "/proc/PID/net/dev eth0 (broker's namespace) ÷ --nic"
	if in {
		f = brokerNIC(id, func(n *IfaceSample) Num { return n.RxBytes })
		metric = "link bytes in ÷ NIC"
	}
	if capBps <= 0 || !s.has(f) {
		return fallback
	}
	return s.measure(metric, unitPct, src, 100/capBps, f)
}

// linkDrops is the packets the broker's emulated NIC dropped per second, when seen.
func (s *Series) linkDrops(id int32, in bool) Cell {
	f := brokerNIC(id, func(n *IfaceSample) Num { return n.TxDrops })
	if in {
		f = brokerNIC(id, func(n *IfaceSample) Num { return n.RxDrops })
	}
	if !s.has(f) {
		return blank("")
	}
	return s.measure("packets dropped", unitPerS, "/proc/PID/net/dev eth0", 1, f)
}
