package probe

import (
	"encoding/json"
	"errors"
	"math"
	"os"
	"testing"
	"time"
)

var t0 = time.Date(2026, 11, 25, 12, 0, 0, 0, time.UTC)

func tbfAt(handle uint32, bytes uint64, packets, drops, backlog uint32) qdiscReading {
	return qdiscReading{Iface: "eth0", Kind: "tbf", Handle: handle, Rate: 500000, Bytes: bytes,
		Packets: packets, Drops: drops, Overlimits: drops * 3, Backlog: backlog, Qlen: backlog / 1000}
}

func TestDiffShaper(t *testing.T) {
	cases := []struct {
		name       string
		prev, cur  *qdiscReading
		dt         float64
		bytes, drp float64
		backlog    float64
	}{
		{"rates over the interval", ptr(tbfAt(0x8001, 1000, 10, 5, 0)), ptr(tbfAt(0x8001, 501000, 410, 45, 30000)), 2, 250000, 20, 30000},
		{"qdisc replaced: rates missing, levels kept", ptr(tbfAt(0x8001, 1000, 10, 5, 0)), ptr(tbfAt(0x8002, 9000, 9, 0, 2000)), 1, miss, miss, 2000},
		{"drop counter wrapped: that rate missing", ptr(tbfAt(0x8001, 1000, 10, math.MaxUint32-1, 0)), ptr(tbfAt(0x8001, 2000, 20, 3, 0)), 1, 1000, miss, 0},
		{"no previous reading", nil, ptr(tbfAt(0x8001, 1000, 10, 5, 700)), 1, miss, miss, 700},
		{"qdisc gone", ptr(tbfAt(0x8001, 1000, 10, 5, 0)), nil, 1, miss, miss, miss},
		{"zero interval", ptr(tbfAt(0x8001, 1000, 10, 5, 0)), ptr(tbfAt(0x8001, 2000, 10, 5, 0)), 0, miss, miss, 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := diffShaper("eth0", c.prev, c.cur, c.dt)
			for _, x := range []struct {
				what      string
				got, want Num
			}{{"bytes", s.Bytes, Num(c.bytes)}, {"drops", s.Drops, Num(c.drp)}, {"backlog", s.Backlog, Num(c.backlog)}} {
				if x.got.OK() != x.want.OK() || (x.want.OK() && x.got != x.want) {
					t.Errorf("%s = %v, want %v", x.what, x.got, x.want)
				}
			}
		})
	}
}

// miss is a missing value in the table above.
var miss = math.NaN()

func ptr[T any](v T) *T { return &v }

func TestDiffLinksFindsBothEnds(t *testing.T) {
	links := map[int32]Link{2: {Netns: "plimsoll-x-b2", HostIface: "plxd2"}}
	host := func(b uint64) []qdiscReading {
		q := tbfAt(0x8003, b, 0, 0, 0)
		q.Iface = "plxd2"
		return []qdiscReading{q, {Iface: "lo", Kind: "noqueue"}}
	}
	prev := &linkReading{At: t0, Host: host(0), Brokers: map[int32][]qdiscReading{2: {tbfAt(1, 0, 0, 0, 0)}}}
	cur := &linkReading{At: t0.Add(time.Second), Host: host(300), Brokers: map[int32][]qdiscReading{2: {tbfAt(1, 700, 7, 1, 0)}}}
	got := diffLinks(links, prev, cur)[2]
	if got.In.Bytes != 300 || got.In.Iface != "plxd2" || got.Out.Bytes != 700 || got.Out.Drops != 1 || got.Out.Rate != 500000 {
		t.Errorf("diffLinks = %+v", got)
	}
	// A namespace whose dump failed has no qdiscs: its direction is missing, the other is not.
	cur.Brokers = map[int32][]qdiscReading{}
	got = diffLinks(links, prev, cur)[2]
	if got.Out.Bytes.OK() || got.Out.Backlog.OK() || !got.In.Bytes.OK() {
		t.Errorf("after a failed dump: %+v", got)
	}
	if q := diffHostQdiscs(links, prev, cur); len(q) != 0 {
		t.Errorf("host qdiscs = %+v, want none (a link end and noqueue)", q)
	}
}

func TestDiffHostQdiscsKeepsBusyQueues(t *testing.T) {
	fq := func(b uint64, backlog uint32) qdiscReading {
		return qdiscReading{Iface: "ens3", Kind: "fq_codel", Handle: 0, Bytes: b, Backlog: backlog}
	}
	idle := qdiscReading{Iface: "ens4", Kind: "fq_codel", Bytes: 50}
	prev := &linkReading{At: t0, Host: []qdiscReading{fq(0, 0), idle}}
	cur := &linkReading{At: t0.Add(time.Second), Host: []qdiscReading{fq(9000, 1500), idle}}
	got := diffHostQdiscs(nil, prev, cur)
	if len(got) != 1 || got[0].Iface != "ens3" || got[0].Bytes != 9000 || got[0].Backlog != 1500 || got[0].Rate.OK() {
		t.Errorf("diffHostQdiscs = %+v, want ens3 only", got)
	}
}

func TestCheckLinks(t *testing.T) {
	for _, l := range []Link{{HostIface: "a"}, {Netns: "x"}, {Netns: "a/b", HostIface: "c"}} {
		err := (&Config{Interval: time.Second, ScrapeTimeout: time.Second, HandlerPools: 1, Links: map[int32]Link{3: l}}).check()
		var ce *ConfigError
		if !errors.As(err, &ce) || ce.Field != "Links" || ce.Broker != 3 {
			t.Errorf("check(%+v) = %v, want a Links[3] error", l, err)
		}
	}
}

// FuzzDiffShaper: rates are never negative, and a counter that went backwards gives a missing
// rate, never a spike.
func FuzzDiffShaper(f *testing.F) {
	f.Add(uint64(0), uint64(1000), uint32(0), uint32(10), uint32(math.MaxUint32), uint32(2), uint32(1), uint32(1), 1.0)
	f.Add(uint64(5000), uint64(10), uint32(7), uint32(3), uint32(0), uint32(0), uint32(1), uint32(2), 0.5)
	f.Fuzz(func(t *testing.T, b0, b1 uint64, p0, p1, d0, d1, h0, h1 uint32, dt float64) {
		prev := qdiscReading{Kind: "tbf", Handle: h0, Bytes: b0, Packets: p0, Drops: d0, Overlimits: d0, Requeues: p0}
		cur := qdiscReading{Kind: "tbf", Handle: h1, Bytes: b1, Packets: p1, Drops: d1, Overlimits: d1, Requeues: p1}
		s := diffShaper("eth0", &prev, &cur, dt)
		for _, n := range []Num{s.Bytes, s.Packets, s.Drops, s.Overlimits, s.Requeues, s.Backlog} {
			if n.OK() && n < 0 {
				t.Fatalf("negative value in %+v", s)
			}
		}
		for _, c := range []struct {
			back bool
			got  Num
		}{{b1 < b0, s.Bytes}, {p1 < p0, s.Packets}, {d1 < d0, s.Drops}} {
			if c.back && c.got.OK() {
				t.Fatalf("a counter went backwards but its rate is %v: %+v", c.got, s)
			}
		}
	})
}

// TestLinkReplay diffs the readings recorded from a shaped link flooded both ways (see
// TestLinkShapersLive) and compares the intervals with a golden file.
func TestLinkReplay(t *testing.T) {
	var rec struct {
		Link     Link          `json:"link"`
		Readings []linkReading `json:"readings"`
	}
	data, err := os.ReadFile("testdata/links-flood.json")
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, &rec); err != nil {
		t.Fatal(err)
	}
	links := map[int32]Link{1: rec.Link}
	var out []LinkSample
	var drops, backlog float64
	for i := 1; i < len(rec.Readings); i++ {
		s := diffLinks(links, &rec.Readings[i-1], &rec.Readings[i])[1]
		out = append(out, s)
		drops += s.Out.Drops.Or(0) + s.In.Drops.Or(0)
		backlog = max(backlog, s.Out.Backlog.Or(0), s.In.Backlog.Or(0))
	}
	if drops == 0 || backlog == 0 {
		t.Errorf("a flooded link shows drops %v/s and backlog %v B: want both above 0", drops, backlog)
	}
	got, _ := json.MarshalIndent(out, "", "  ")
	golden(t, "links-flood.golden.json", append(got, '\n'))
}

// TestBrokerNamespaceTCP: a broker in its own namespace gets its namespace's TCP rates; the
// first reading, or a counter that went backwards (a new namespace), is missing.
func TestBrokerNamespaceTCP(t *testing.T) {
	reading := func(at time.Time, tcp map[int32]tcpCounters) *hostReading {
		st := &pidStat{state: 'S', starttime: 7}
		return &hostReading{at: at, pids: map[int32]int{1: 11, 2: 12},
			brokers: map[int32]*pidStat{1: st, 2: st}, brErr: map[int32]string{}, brTCP: tcp}
	}
	prev := reading(t0, map[int32]tcpCounters{1: {outSegs: 1000, retransSegs: 10}, 2: {outSegs: 900, retransSegs: 50}})
	cur := reading(t0.Add(2*time.Second), map[int32]tcpCounters{1: {outSegs: 3000, retransSegs: 16}, 2: {outSegs: 100, retransSegs: 1}})
	got := diffBrokerProcs(prev, cur, 2)
	if tcp := got[1].TCP; tcp == nil || tcp.OutSegs != 1000 || tcp.RetransSegs != 3 {
		t.Errorf("broker 1 TCP %+v, want 1000 segments/s and 3 retransmits/s", tcp)
	}
	if tcp := got[2].TCP; tcp == nil || tcp.OutSegs.OK() || tcp.RetransSegs.OK() {
		t.Errorf("broker 2 TCP %+v, want missing after its counters went backwards", tcp)
	}
	first := diffBrokerProcs(reading(t0, nil), cur, 2)
	if tcp := first[1].TCP; tcp == nil || tcp.RetransSegs.OK() {
		t.Errorf("first reading: TCP %+v, want present but missing", tcp)
	}
}
