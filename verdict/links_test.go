package verdict

import (
	"strings"
	"testing"

	"github.com/plimsoll/plimsoll/probe"
	"github.com/plimsoll/plimsoll/use"
)

func cellOf(metric string, mean float64, unit string) use.Cell {
	return use.Cell{Metric: metric, Mean: probe.Num(mean), Max: probe.Num(mean * 2), Unit: unit, Samples: 10}
}

// linkRows are a broker's network rows with its link's utilisation, shaper drops in and out and
// TCP retransmits out, per second.
func linkRows(id string, util, dropsIn, dropsOut, retrans float64) []use.Row {
	out := cellOf("shaper drops + TCP retransmits", dropsOut+retrans, use.UnitPerS)
	out.Parts = []use.Cell{cellOf("packets dropped by the shaper", dropsOut, use.UnitPerS), cellOf("TCP segments retransmitted (broker's namespace)", retrans, use.UnitPerS)}
	return []use.Row{
		{Entity: "broker " + id, Resource: "network in", Utilisation: cellOf("link bytes in ÷ NIC", util, use.UnitPct), Errors: cellOf("packets dropped by the shaper", dropsIn, use.UnitPerS)},
		{Entity: "broker " + id, Resource: "network out", Utilisation: cellOf("link bytes out ÷ NIC", util, use.UnitPct), Errors: out},
	}
}

func TestLossyLinks(t *testing.T) {
	tb := &use.Table{Rows: append(append(linkRows("1", 40, 0, 0, 3.6), linkRows("2", 78, 0.5, 41, 35)...), linkRows("3", 60, 2, 0, 0)...)}
	cases := []struct {
		name string
		c    Criteria
		want []string
	}{
		{"defaults: drops or retransmits, dropping links first", DefaultCriteria(), []string{
			"broker 2 network out: 78% of its NIC, the shaper dropping 41 packets/s and TCP retransmitting 35 segments/s",
			"broker 3 network in: 60% of its NIC, the shaper dropping 2 packets/s"}},
		{"retransmits at half a link's rate are not losses", Criteria{LinkRetransPerSec: 5}, []string{
			"broker 2 network out: 78% of its NIC, the shaper dropping 41 packets/s and TCP retransmitting 35 segments/s"}},
		{"a lower retransmit threshold", Criteria{LinkRetransPerSec: 3}, []string{
			"broker 2 network out: 78% of its NIC, the shaper dropping 41 packets/s and TCP retransmitting 35 segments/s",
			"broker 1 network out: 40% of its NIC, the shaper dropping 0 packets/s and TCP retransmitting 3.6 segments/s"}},
		{"both off", Criteria{}, nil},
	}
	// Measured in TestNICVerdicts/slow-link (broker 2 at 4 Mbit/s, the others at 16, 1000 msgs/s of
	// 1 KB): broker 1 retransmitted into broker 2's full link; broker 2's shapers dropped.
	measured := &use.Table{Rows: append(append(linkRows("1", 28, 0, 0.141, 18.8), linkRows("2", 95, 2.85, 6.48, 0.143)...), linkRows("3", 28, 0, 0, 4.1)...)}
	t.Run("the dropping link before the senders that retransmit into it", func(t *testing.T) {
		var got []string
		for _, l := range lossyLinks(measured, DefaultCriteria()) {
			got = append(got, l.name)
		}
		if want := "broker 2 network out, broker 2 network in, broker 1 network out"; strings.Join(got, ", ") != want {
			t.Errorf("lossyLinks order %q, want %q", strings.Join(got, ", "), want)
		}
	})
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var got []string
			for _, l := range lossyLinks(tb, c.c) {
				got = append(got, l.text)
			}
			if strings.Join(got, "\n") != strings.Join(c.want, "\n") {
				t.Errorf("lossyLinks =\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(c.want, "\n"))
			}
		})
	}
	if l := lossyLinks(nil, DefaultCriteria()); l != nil {
		t.Errorf("no table: %v", l)
	}
}

func TestLinkBottleneck(t *testing.T) {
	links := []lossyLink{{name: "broker 2 network out", text: "broker 2 network out: the shaper dropping 41 packets/s"}}
	cases := []struct {
		name, bottleneck string
		named            string
		want             string
	}{
		{"the same link gets its mechanism", "broker 2 network out: 78% (link bytes out ÷ NIC)", "broker 1", links[0].text},
		{"no broker named: the link is the bottleneck", "broker 1 cpu: 60% (JVM share)", "", links[0].text},
		{"failing criteria name another broker: kept", "broker 1 request handlers: 85% (busy)", "broker 1", "broker 1 request handlers: 85% (busy)"},
		{"failing criteria name the link's broker: the link", "broker 2 request handlers: 93% (busy)", "broker 2", links[0].text},
		{"a busier link of the same broker named: kept", "broker 2 network in: 93% (link bytes in ÷ NIC)", "broker 2", "broker 2 network in: 93% (link bytes in ÷ NIC)"},
		{"another broker's link named: kept", "broker 3 network in: 95% (link bytes in ÷ NIC)", "", "broker 3 network in: 95% (link bytes in ÷ NIC)"},
		{"no lossy link", "broker 1 cpu: 60%", "", "broker 1 cpu: 60%"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ls := links
			if c.name == "no lossy link" {
				ls = nil
			}
			if got := linkBottleneck(c.bottleneck, ls, c.named); got != c.want {
				t.Errorf("linkBottleneck = %q, want %q", got, c.want)
			}
		})
	}
}

func TestJudgeNamesLossyLink(t *testing.T) {
	tb := &use.Table{Rows: append(linkRows("1", 40, 0, 0, 1), linkRows("2", 97, 30, 3, 20)...)}
	overloaded := Judge(Input{Run: run(1000, 800, 30), USE: tb}, DefaultCriteria())
	if overloaded.State != Overloaded || !strings.HasPrefix(overloaded.Bottleneck, "broker 2 network in: 97% of its NIC, the shaper dropping 30 packets/s") {
		t.Errorf("overloaded: %s, bottleneck %q", overloaded.State, overloaded.Bottleneck)
	}
	// Losses judge nothing alone: a trial that kept up stays ok with its evidence.
	ok := Judge(Input{Run: run(1000, 1000, 30), USE: tb}, DefaultCriteria())
	if ok.State != OK || strings.Contains(ok.Bottleneck, "shaper") {
		t.Errorf("kept up: %s, bottleneck %q", ok.State, ok.Bottleneck)
	}
}

// TestLinkBottleneckDropping: when a link's shaper dropped, that full link is the bottleneck,
// even where the failing criteria name another broker. On a clean clone, broker 2's links shaped
// to 4 Mbit/s dropped 3.9 and 3.5 packets/s; broker 3, sending into them, retransmitted 28.6
// segments/s, and the replication criterion named broker 3 as fetching least (its fetches from
// broker 2 cross the full link): the verdict named broker 3's link.
func TestLinkBottleneckDropping(t *testing.T) {
	links := []lossyLink{
		{name: "broker 2 network in", text: "broker 2 network in: the shaper dropping 3.93 packets/s", drops: 3.9, dropped: true},
		{name: "broker 2 network out", text: "broker 2 network out: the shaper dropping 3.5 packets/s", drops: 3.5, dropped: true},
		{name: "broker 3 network out", text: "broker 3 network out: TCP retransmitting 28.6 segments/s", drops: 0.4, retrans: 28.6},
	}
	cases := []struct{ name, bottleneck, named, want string }{
		{"the criteria name the retransmitting broker", "broker 3 network out: 31% (link bytes out ÷ NIC)", "broker 3", links[0].text},
		{"no broker named", "broker 1 cpu: 60% (JVM share)", "", links[0].text},
		{"the bottleneck names a dropping link", "broker 2 network out: 95% (link bytes out ÷ NIC)", "broker 3", links[1].text},
		{"the criteria name the dropping broker", "broker 1 cpu: 60% (JVM share)", "broker 2", links[0].text},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := linkBottleneck(c.bottleneck, links, c.named); got != c.want {
				t.Errorf("linkBottleneck = %q, want %q", got, c.want)
			}
		})
	}
}
