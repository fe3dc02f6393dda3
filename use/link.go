package use

import "github.com/plimsoll/plimsoll/probe"

// A broker's emulated link (plimsoll cluster up --nic) is shaped by a tbf qdisc per direction:
// the one on the link's host end holds what the broker receives, the one on eth0 in its
// namespace what it sends. A shaper's backlog is the link's queue (saturation) and its drops
// are the link's losses (errors); out of the broker, TCP's retransmits in its namespace count
// too. These cells need the probe's link readings (probe.HostSample.Links); a series recorded
// without them keeps the cells it had.

// linkShaper returns f of the broker's shaper in one direction, or Missing.
func (b broker) linkShaper(in bool, f func(*probe.ShaperSample) probe.Num) sample {
	return func(x probe.Sample) probe.Num {
		if x.Host == nil {
			return probe.Missing
		}
		l, ok := x.Host.Links[b.id]
		if !ok {
			return probe.Missing
		}
		if in {
			return f(&l.In)
		}
		return f(&l.Out)
	}
}

// linksOf is a sample's emulated links by broker (nil without host observations).
func linksOf(x probe.Sample) map[int32]probe.LinkSample {
	if x.Host == nil {
		return nil
	}
	return x.Host.Links
}

// procsOf is a sample's local broker processes by broker (nil without host observations).
func procsOf(x probe.Sample) map[int32]probe.ProcSample {
	if x.Host == nil {
		return nil
	}
	return x.Host.Brokers
}

// shaperSource names where a direction's shaper figures come from.
func shaperSource(in bool) string {
	if in {
		return "netlink qdisc stats: tbf on the link's host end"
	}
	return "netlink qdisc stats: tbf on eth0 (broker's namespace)"
}

// linkBacklog is the saturation of the broker's link in one direction: the bytes queued in its
// shaper, with the link's rate as the drain (the wait the backlog means); fallback when the
// probe read no shaper.
func (b broker) linkBacklog(in bool, fallback Cell) Cell {
	f := b.linkShaper(in, func(s *probe.ShaperSample) probe.Num { return s.Backlog })
	if !b.links || !b.s.has(f) {
		return fallback
	}
	c := b.s.measure("shaper backlog", UnitBytes, shaperSource(in), 1, f)
	c.Drain = b.drain(in)
	return c
}

// drain is the link's rate in one direction, bytes/s: the shaper's own rate when it reports
// one, else the NIC capacity given.
func (b broker) drain(in bool) float64 {
	now := series{Series: b.s.Series} // its figures are needed here, not deferred
	r := now.measure("", "", "", 1, b.linkShaper(in, func(s *probe.ShaperSample) probe.Num { return s.Rate }))
	if r.Samples > 0 {
		return float64(r.Mean)
	}
	return b.nic
}

// linkErrors is the errors of the broker's link in one direction: packets its shaper dropped
// per second, and out of the broker also the TCP segments retransmitted in its namespace (a
// sum kept with its parts: a shaper counts a GSO packet once where TCP counts segments).
func (b broker) linkErrors(in bool) Cell {
	drops := b.linkShaper(in, func(s *probe.ShaperSample) probe.Num { return s.Drops })
	if !b.links || !b.s.has(drops) {
		return blank("")
	}
	dc := b.s.measure("packets dropped by the shaper", UnitPerS, shaperSource(in), 1, drops)
	retrans := b.tcpRetrans()
	if in || !b.s.has(retrans) {
		return dc
	}
	sum := func(x probe.Sample) probe.Num { return drops(x) + retrans(x) }
	c := b.s.measure("shaper drops + TCP retransmits", UnitPerS, shaperSource(in)+" + /proc/PID/net/snmp RetransSegs", 1, sum)
	c.Parts = []Cell{dc, b.s.measure("TCP segments retransmitted (broker's namespace)", UnitPerS, "/proc/PID/net/snmp RetransSegs", 1, retrans)}
	return c
}

// tcpRetrans is the TCP segments retransmitted per second in the broker's namespace.
func (b broker) tcpRetrans() sample {
	return func(x probe.Sample) probe.Num {
		if x.Host == nil {
			return probe.Missing
		}
		if p, ok := x.Host.Brokers[b.id]; ok && p.TCP != nil {
			return p.TCP.RetransSegs
		}
		return probe.Missing
	}
}
