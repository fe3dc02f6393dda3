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

func ifaceNames(h *probe.HostSample) []string {
	out := make([]string, len(h.Net))
	for i, n := range h.Net {
		out[i] = n.Name
	}
	return out
}

func iface(h *probe.HostSample, name string) *probe.IfaceSample {
	for i := range h.Net {
		if h.Net[i].Name == name {
			return &h.Net[i]
		}
	}
	return nil
}

// nicRow is one direction of the busiest interface. A remote cluster's traffic leaves through a
// real interface; a local one's stays on loopback, which is then the busiest and has no
// capacity.
func (s series) nicRow(dir nicDir) Row {
	skip := func(n string) bool { return n == "lo" && !s.Local }
	name := s.busiest(ifaceNames, func(h *probe.HostSample, n string) probe.Num {
		if i := iface(h, n); i != nil {
			return dir.bytes(i)
		}
		return probe.Missing
	}, skip)
	if name == "" {
		return Row{Entity: hostEntity, Resource: dir.resource, Amount: blank(NoInterface), Utilisation: blank(""), Saturation: blank(""), Errors: blank("")}
	}
	on := func(f func(*probe.HostSample, *probe.IfaceSample) probe.Num) sample {
		return hf(func(h *probe.HostSample) probe.Num {
			if i := iface(h, name); i != nil {
				return f(h, i)
			}
			return probe.Missing
		})
	}
	bytes := on(func(_ *probe.HostSample, i *probe.IfaceSample) probe.Num { return dir.bytes(i) })
	src := "/proc/net/dev " + name
	return Row{Entity: hostEntity, Resource: dir.resource,
		Amount:      s.measure("bytes on "+name, UnitBps, src, 1, bytes),
		Utilisation: s.nicUtilisation(name, src, bytes),
		Saturation:  s.measure(dir.satName, UnitPerS, dir.satSrc, 1, on(dir.sat)),
		Errors:      s.measure(dir.errName, UnitPerS, src, 1, on(dir.errs)),
	}
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
