package use

import (
	"testing"

	"github.com/plimsoll/plimsoll/probe"
)

// withLinks adds broker 1's link shapers, its namespace's TCP and the client host's eth0 qdisc
// to a synthetic series: second i has backlog[i] bytes queued each way and drops[i] drops/s.
func withLinks(s *probe.Series, backlog, drops, retrans []probe.Num) *probe.Series {
	s.NICByBroker = map[int32]float64{1: 1e6}
	s.Local = false // eth0, not loopback, is the busiest interface
	for i, x := range s.Samples {
		sh := func(iface string) probe.ShaperSample {
			return probe.ShaperSample{Iface: iface, Kind: "tbf", Rate: 500000, Bytes: 4e5, Drops: drops[i], Backlog: backlog[i]}
		}
		x.Host.Links = map[int32]probe.LinkSample{1: {Out: sh("eth0"), In: sh("pl1d1")}}
		p := x.Host.Brokers[1]
		p.TCP = &probe.TCPSample{OutSegs: 300, RetransSegs: retrans[i], InErrs: 0}
		x.Host.Brokers[1] = p
		x.Host.Qdiscs = []probe.ShaperSample{{Iface: "eth0", Kind: "fq_codel", Rate: probe.Missing, Bytes: 2e6, Backlog: backlog[i] / 2, Drops: 0}}
	}
	return s
}

func TestLinkCells(t *testing.T) {
	n := 4
	idle := []probe.Num{0.5, 0.5, 0.5, 0.5}
	s := withLinks(synthetic(n, idle, make([]probe.Num, n)),
		[]probe.Num{0, 60000, probe.Missing, 120000}, []probe.Num{0, 4, probe.Missing, 8}, []probe.Num{1, 1, 1, probe.Missing})
	tb := Summarise(s)
	in, out := row(t, tb, "broker 1", "network in"), row(t, tb, "broker 1", "network out")
	q := row(t, tb, hostEntity, "network out queue")
	cases := []struct {
		name      string
		c         Cell
		metric    string
		mean, max float64
		samples   int
		drain     float64
		parts     int
	}{
		{"in saturation", in.Saturation, "shaper backlog", 60000, 120000, 3, 500000, 0},
		{"out saturation", out.Saturation, "shaper backlog", 60000, 120000, 3, 500000, 0},
		{"in errors", in.Errors, "packets dropped by the shaper", 4, 8, 3, 0, 0},
		// Only seconds with both addends count for the sum: 0+1, 4+1.
		{"out errors", out.Errors, "shaper drops + TCP retransmits", 3, 5, 2, 0, 2},
		{"client host queue", q.Saturation, "qdisc backlog", 30000, 60000, 3, 0, 0},
		{"client host drops", q.Errors, "packets dropped by the qdisc", 0, 0, 4, 0, 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if c.c.Metric != c.metric || !approx(c.c.Mean, c.mean) || !approx(c.c.Max, c.max) || c.c.Samples != c.samples || c.c.Drain != c.drain || len(c.c.Parts) != c.parts {
				t.Errorf("cell %+v, want %s %v / %v over %d, drain %v, %d parts", c.c, c.metric, c.mean, c.max, c.samples, c.drain, c.parts)
			}
		})
	}
	if p := out.Errors.Parts; p[0].Metric != "packets dropped by the shaper" || !approx(p[0].Mean, 4) || !approx(p[1].Mean, 1) {
		t.Errorf("out errors' parts %+v: want drops 4/s and retransmits 1/s", p)
	}
}

func TestLinkCellsWithoutLinks(t *testing.T) {
	// A series recorded before the probe read links keeps its old cells, and the client host has
	// no queue row.
	tb := Summarise(synthetic(2, []probe.Num{0.5, 0.5}, []probe.Num{1, 1}))
	for _, r := range tb.Rows {
		if r.Resource == "network out queue" {
			t.Errorf("queue row without qdiscs: %+v", r)
		}
	}
	if out := row(t, tb, "broker 1", "network out"); out.Saturation.Metric == "shaper backlog" || !out.Errors.Blank() {
		t.Errorf("network out without links: %+v", out)
	}
}
