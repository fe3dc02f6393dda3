package probe

import (
	"fmt"
	"slices"
	"strings"
	"time"
)

// Link is one broker's emulated link (plimsoll cluster up --nic): a veth pair whose broker end
// (Iface, in the broker's network namespace Netns) is shaped for the broker's outbound traffic
// and whose other end (HostIface, in the probe's namespace) is shaped for its inbound traffic.
type Link struct {
	// Netns is the name of the broker's network namespace (as `ip netns list` shows it).
	Netns string
	// Iface is the broker's end of the link inside Netns; default eth0.
	Iface string
	// HostIface is the link's other end, in the probe's own namespace.
	HostIface string
}

// LinkSample is one broker's emulated link over an interval: the shaper of each direction.
type LinkSample struct {
	// Out shapes what the broker sends: the root qdisc of Iface in the broker's namespace.
	Out ShaperSample `json:"out"`
	// In shapes what the broker receives: the root qdisc of HostIface.
	In ShaperSample `json:"in"`
}

// ShaperSample is one interface's root qdisc over an interval, from its netlink statistics.
// Bytes to Requeues are rates per second; Backlog and BacklogPackets are levels at the end of
// the interval. A qdisc replaced during the interval (a new handle) or a counter that went
// backwards (the kernel's 32-bit packet, drop and queue counters wrap) leaves the interval's
// rates missing, never a spike.
type ShaperSample struct {
	Iface string `json:"iface"`
	Kind  string `json:"kind"`
	// Rate is a tbf shaper's configured rate, bytes/s; missing for other kinds.
	Rate       Num `json:"rate_bytes_per_s"`
	Bytes      Num `json:"bytes"`
	Packets    Num `json:"packets"`
	Drops      Num `json:"drops"`
	Overlimits Num `json:"overlimits"`
	Requeues   Num `json:"requeues"`
	// Backlog is the bytes queued in the qdisc at the end of the interval.
	Backlog        Num `json:"backlog_bytes"`
	BacklogPackets Num `json:"backlog_packets"`
}

// qdiscReading is one root qdisc's cumulative counters at one moment, as netlink reports them.
// It is exported to JSON for recorded replays (testdata).
type qdiscReading struct {
	Iface      string `json:"iface"`
	Kind       string `json:"kind"`
	Handle     uint32 `json:"handle"`
	Rate       uint64 `json:"rate,omitempty"` // tbf only, bytes/s
	Bytes      uint64 `json:"bytes"`
	Packets    uint32 `json:"packets"`
	Drops      uint32 `json:"drops"`
	Overlimits uint32 `json:"overlimits"`
	Requeues   uint32 `json:"requeues"`
	Backlog    uint32 `json:"backlog"`
	Qlen       uint32 `json:"qlen"`
}

// linkReading is one reading of every namespace's root qdiscs.
type linkReading struct {
	At time.Time `json:"at"`
	// Host are the root qdiscs of the probe's own namespace.
	Host []qdiscReading `json:"host"`
	// Brokers are the root qdiscs of each broker's namespace.
	Brokers map[int32][]qdiscReading `json:"brokers"`
	Errs    []string                 `json:"errs,omitempty"`
}

// missingShaper is a shaper without a value.
func missingShaper(iface string) ShaperSample {
	return ShaperSample{Iface: iface, Rate: Missing, Bytes: Missing, Packets: Missing, Drops: Missing,
		Overlimits: Missing, Requeues: Missing, Backlog: Missing, BacklogPackets: Missing}
}

// diffShaper is one qdisc's interval from two readings; either may be nil (not found).
func diffShaper(iface string, prev, cur *qdiscReading, dt float64) ShaperSample {
	s := missingShaper(iface)
	if cur == nil {
		return s
	}
	s.Kind = cur.Kind
	if cur.Rate > 0 {
		s.Rate = Num(cur.Rate)
	}
	s.Backlog, s.BacklogPackets = Num(cur.Backlog), Num(cur.Qlen)
	if prev == nil || prev.Handle != cur.Handle || prev.Kind != cur.Kind {
		return s // a new or replaced qdisc: its counters started again
	}
	s.Bytes = urate(prev.Bytes, cur.Bytes, dt)
	s.Packets = urate(uint64(prev.Packets), uint64(cur.Packets), dt)
	s.Drops = urate(uint64(prev.Drops), uint64(cur.Drops), dt)
	s.Overlimits = urate(uint64(prev.Overlimits), uint64(cur.Overlimits), dt)
	s.Requeues = urate(uint64(prev.Requeues), uint64(cur.Requeues), dt)
	return s
}

// findQdisc is the root qdisc of iface in qs, or nil.
func findQdisc(qs []qdiscReading, iface string) *qdiscReading {
	for i := range qs {
		if qs[i].Iface == iface {
			return &qs[i]
		}
	}
	return nil
}

// diffLinks turns two readings into each broker link's interval.
func diffLinks(links map[int32]Link, prev, cur *linkReading) map[int32]LinkSample {
	if len(links) == 0 || cur == nil {
		return nil
	}
	dt := 0.0
	var pHost []qdiscReading
	var pBr map[int32][]qdiscReading
	if prev != nil {
		dt, pHost, pBr = cur.At.Sub(prev.At).Seconds(), prev.Host, prev.Brokers
	}
	out := make(map[int32]LinkSample, len(links))
	for id, l := range links {
		iface := l.iface()
		out[id] = LinkSample{
			Out: diffShaper(iface, findQdisc(pBr[id], iface), findQdisc(cur.Brokers[id], iface), dt),
			In:  diffShaper(l.HostIface, findQdisc(pHost, l.HostIface), findQdisc(cur.Host, l.HostIface), dt),
		}
	}
	return out
}

// diffHostQdiscs is the interval of each root qdisc of the probe's namespace that queues and
// carried traffic, leaving out the broker links' host ends (they are in LinkSample.In).
func diffHostQdiscs(links map[int32]Link, prev, cur *linkReading) []ShaperSample {
	if prev == nil || cur == nil {
		return nil
	}
	skip := map[string]bool{}
	for _, l := range links {
		skip[l.HostIface] = true
	}
	dt := cur.At.Sub(prev.At).Seconds()
	var out []ShaperSample
	for i := range cur.Host {
		c := &cur.Host[i]
		if skip[c.Iface] || c.Kind == "noqueue" || c.Kind == "noop" {
			continue
		}
		s := diffShaper(c.Iface, findQdisc(prev.Host, c.Iface), c, dt)
		if s.Bytes.Or(0) == 0 && s.Backlog.Or(0) == 0 {
			continue // idle (or new): nothing to say about its queue
		}
		out = append(out, s)
	}
	slices.SortFunc(out, func(a, b ShaperSample) int { return strings.Compare(a.Iface, b.Iface) })
	return out
}

func (l Link) iface() string {
	if l.Iface == "" {
		return "eth0"
	}
	return l.Iface
}

// checkLinks is the first Links entry the probe cannot work with.
func checkLinks(links map[int32]Link) error {
	for id, l := range links {
		switch {
		case l.Netns == "" || strings.ContainsAny(l.Netns, "/ "):
			return &ConfigError{Field: "Links", Broker: id, PerBroker: true, Value: l.Netns, Want: "the name of the broker's network namespace (ip netns list)"}
		case l.HostIface == "" || strings.ContainsAny(l.HostIface, "/ "):
			return &ConfigError{Field: "Links", Broker: id, PerBroker: true, Value: l.HostIface, Want: "the interface name of the link's end in the probe's namespace"}
		}
	}
	return nil
}

// linkErr names a namespace's failed dump.
func linkErr(ns string, err error) string {
	if ns == "" {
		return fmt.Sprintf("qdiscs: %v", err)
	}
	return fmt.Sprintf("qdiscs of netns %s: %v", ns, err)
}
