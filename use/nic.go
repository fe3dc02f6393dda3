package use

import "github.com/plimsoll/plimsoll/probe"

// nicDir is one direction of the client host's busiest interface.
type nicDir struct {
	resource        string
	bytes           func(*probe.IfaceSample) probe.Num
	sat, errs       func(*probe.HostSample, *probe.IfaceSample) probe.Num
	satName, satSrc string
	errName         string
}

var (
	rxDir = nicDir{"network in", func(i *probe.IfaceSample) probe.Num { return i.RxBytes },
		func(_ *probe.HostSample, i *probe.IfaceSample) probe.Num { return i.RxDrops },
		func(_ *probe.HostSample, i *probe.IfaceSample) probe.Num { return i.RxErrs },
		"packets dropped on receive", "/proc/net/dev", "receive errors"}
	txDir = nicDir{"network out", func(i *probe.IfaceSample) probe.Num { return i.TxBytes },
		func(h *probe.HostSample, _ *probe.IfaceSample) probe.Num { return h.TCP.RetransSegs },
		func(_ *probe.HostSample, i *probe.IfaceSample) probe.Num { return i.TxErrs },
		"TCP segments retransmitted (host-wide)", "/proc/net/snmp RetransSegs", "transmit errors"}
)

func ifName(i *probe.IfaceSample) string { return i.Name }

func ifaceNames(h *probe.HostSample) []string { return namesOf(h.Net, ifName) }

func iface(h *probe.HostSample, name string) *probe.IfaceSample { return find(h.Net, ifName, name) }

func qdisc(h *probe.HostSample, name string) *probe.ShaperSample {
	return find(h.Qdiscs, func(q *probe.ShaperSample) string { return q.Iface }, name)
}

// namesOf lists the names of a host sample's devices.
func namesOf[T any](items []T, name func(*T) string) []string {
	out := make([]string, len(items))
	for i := range items {
		out[i] = name(&items[i])
	}
	return out
}

// find returns the device called want, or nil.
func find[T any](items []T, name func(*T) string, want string) *T {
	for i := range items {
		if name(&items[i]) == want {
			return &items[i]
		}
	}
	return nil
}

// onNamed lifts f of the named device of a host sample (found by get) into a sample function.
func onNamed[T any](get func(*probe.HostSample, string) *T, name string, f func(*probe.HostSample, *T) probe.Num) sample {
	return hf(func(h *probe.HostSample) probe.Num {
		if v := get(h, name); v != nil {
			return f(h, v)
		}
		return probe.Missing
	})
}

// busiestIface is the interface with the most traffic in dir. A remote cluster's traffic leaves
// through a real interface; a local one's stays on loopback, which is then the busiest.
func (s series) busiestIface(dir nicDir) string {
	skip := func(n string) bool { return n == "lo" && !s.Local }
	return s.busiest(ifaceNames, func(h *probe.HostSample, n string) probe.Num {
		if i := iface(h, n); i != nil {
			return dir.bytes(i)
		}
		return probe.Missing
	}, skip)
}

// nicRow is one direction of the busiest interface (loopback has no capacity).
func (s series) nicRow(dir nicDir) Row {
	name := s.busiestIface(dir)
	if name == "" {
		return Row{Entity: hostEntity, Resource: dir.resource, Amount: blank(NoInterface), Utilisation: blank(""), Saturation: blank(""), Errors: blank("")}
	}
	on := func(f func(*probe.HostSample, *probe.IfaceSample) probe.Num) sample { return onNamed(iface, name, f) }
	bytes := on(func(_ *probe.HostSample, i *probe.IfaceSample) probe.Num { return dir.bytes(i) })
	src := "/proc/net/dev " + name
	return Row{Entity: hostEntity, Resource: dir.resource,
		Amount:      s.measure("bytes on "+name, UnitBps, src, 1, bytes),
		Utilisation: s.nicUtilisation(name, src, bytes),
		Saturation:  s.measure(dir.satName, UnitPerS, dir.satSrc, 1, on(dir.sat)),
		Errors:      s.measure(dir.errName, UnitPerS, src, 1, on(dir.errs)),
	}
}

// queueRow is the qdisc of the busiest outgoing interface, when it has one that queued traffic
// (probe.HostSample.Qdiscs): its bytes, its backlog (drained at the interface's capacity when
// known) and its drops.
func (s series) queueRow() (Row, bool) {
	name := s.busiestIface(txDir)
	on := func(f func(*probe.ShaperSample) probe.Num) sample {
		return onNamed(qdisc, name, func(_ *probe.HostSample, q *probe.ShaperSample) probe.Num { return f(q) })
	}
	bytes := on(func(q *probe.ShaperSample) probe.Num { return q.Bytes })
	backlog := on(func(q *probe.ShaperSample) probe.Num { return q.Backlog })
	if name == "" || !s.has(backlog) {
		return Row{}, false
	}
	src := "netlink qdisc stats: root qdisc of " + name
	r := Row{Entity: hostEntity, Resource: "network out queue",
		Amount:      s.measure("bytes through the qdisc of "+name, UnitBps, src, 1, bytes),
		Utilisation: blank(""),
		Saturation:  s.measure("qdisc backlog", UnitBytes, src, 1, backlog),
		Errors:      s.measure("packets dropped by the qdisc", UnitPerS, src, 1, on(func(q *probe.ShaperSample) probe.Num { return q.Drops })),
	}
	r.Saturation.Drain = s.NICBytesPerSec
	if r.Saturation.Drain <= 0 {
		r.Saturation.Drain = s.NICSpeeds[name]
	}
	return r, true
}

// nicUtilisation is the interface's bytes against the NIC capacity given, else its link speed.
func (s series) nicUtilisation(name, src string, bytes sample) Cell {
	capBps, capSrc := s.NICBytesPerSec, "NIC capacity"
	if capBps <= 0 {
		capBps, capSrc = s.NICSpeeds[name], "/sys/class/net/"+name+"/speed"
	}
	switch {
	case name == "lo":
		return blank(LoopbackNoCapacity)
	case capBps <= 0:
		return blank(NoNICCapacity)
	}
	return s.measure("bytes ÷ link capacity", UnitPct, src+" ÷ "+capSrc, 100/capBps, bytes)
}
