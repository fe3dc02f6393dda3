package report

import (
	"math"
	"strings"
	"testing"
)

func TestHeadline(t *testing.T) {
	found := Point{SizeBytes: 1000, SafeMsgsPerSec: 60000, UnsafeMsgsPerSec: 66000, Bottleneck: "network in on broker 2", Trials: 6}
	tests := []struct {
		name string
		d    Data
		want []string // in the headline
		not  []string // never in the headline
	}{
		{"found, per broker",
			Data{Brokers: 3, Boundary: []Point{found}},
			[]string{"This cluster sustains 20.0 MB/s per broker at 1 KB messages", "60,000 msgs/s over 3 brokers", "overloaded at 66,000 msgs/s", "bottleneck: network in on broker 2"},
			[]string{"at least"}},
		{"found, brokers unknown",
			Data{Boundary: []Point{found}},
			[]string{"This cluster sustains 60.0 MB/s at 1 KB messages (60,000 msgs/s)"},
			[]string{"per broker"}},
		{"client-bound is never the limit",
			Data{Boundary: []Point{{SizeBytes: 1000, SafeMsgsPerSec: 30000, UnsafeMsgsPerSec: 50000, ClientBound: true}}},
			[]string{"sustains at least 30.0 MB/s", "the load generator, not the cluster, was the limit"},
			[]string{"overloaded at"}},
		{"no overloaded rate",
			Data{Boundary: []Point{{SizeBytes: 1000, SafeMsgsPerSec: 30000}}},
			[]string{"sustains at least 30.0 MB/s", "no rate tried overloaded it"}, nil},
		{"co-located measures the host",
			Data{CoLocated: true, Boundary: []Point{found}},
			[]string{"This host (brokers and load generator on one machine) sustains"},
			[]string{"This cluster"}},
		{"nearest 1 KB, smaller on a tie",
			Data{Boundary: []Point{{SizeBytes: 10000, SafeMsgsPerSec: 5000, UnsafeMsgsPerSec: 5500}, {SizeBytes: 100, SafeMsgsPerSec: 90000, UnsafeMsgsPerSec: 99000}}},
			[]string{"at 100 B messages"}, nil},
		{"nothing sustained",
			Data{Boundary: []Point{{SizeBytes: 100, UnsafeMsgsPerSec: 1000}}},
			[]string{"at 100 B messages", "overloaded even at the lowest rate tried, 1,000 msgs/s", "Lower the search's minimum rate"}, nil},
		{"no points",
			Data{},
			[]string{"No trial has a verdict yet"}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newView(tt.d).Headline
			for _, w := range tt.want {
				if !strings.Contains(h, w) {
					t.Errorf("headline %q lacks %q", h, w)
				}
			}
			for _, w := range tt.not {
				if strings.Contains(h, w) {
					t.Errorf("headline %q says %q", h, w)
				}
			}
		})
	}
}

func TestWarnings(t *testing.T) {
	v := newView(fullData())
	all := strings.Join(v.Warnings, "\n")
	for _, w := range []string{"Co-located run", "one host of 2 cores", "measure this host, not a Kafka cluster",
		"Client-bound at 100 B", clientBoundNote} {
		if !strings.Contains(all, w) {
			t.Errorf("warnings lack %q:\n%s", w, all)
		}
	}
	if w := newView(remoteData()).Warnings; len(w) != 0 {
		t.Errorf("a remote run with no client-bound point warns: %q", w)
	}
}

func TestRecommendation(t *testing.T) {
	d := Data{Recommendation: &Recommendation{PerBrokerBytesPerSec: 40e6, ClusterBytesPerSec: 120e6, BrokersDown: 0, Text: " Plan for this. "}}
	if got, want := newView(d).Recommend, "Recommended safe load: 40.0 MB/s per broker, 120 MB/s for the cluster. Plan for this."; got != want {
		t.Errorf("Recommend = %q, want %q", got, want)
	}
	d.Recommendation.BrokersDown = 2
	if got := newView(d).Recommend; !strings.Contains(got, "with room for 2 brokers down") {
		t.Errorf("Recommend = %q", got)
	}
	if got := newView(Data{}).Recommend; got != "" {
		t.Errorf("Recommend without one = %q", got)
	}
}

func TestFindTrial(t *testing.T) {
	ts := []Trial{
		{N: 1, SizeBytes: 100, TargetMsgsPerSec: 5000, State: StateOK},
		{N: 2, SizeBytes: 1000, TargetMsgsPerSec: 5000, State: StateOK},
		{N: 3, SizeBytes: 1000, TargetMsgsPerSec: 5000.000000001, State: StateOK}, // retried, JSON-rounded
		{N: 4, SizeBytes: 1000, TargetMsgsPerSec: 6000, State: StateOK, ClientBound: true},
		{N: 5, SizeBytes: 1000, TargetMsgsPerSec: 6000, State: StateOverloaded},
	}
	tests := []struct {
		size  int
		rate  float64
		state string
		want  int // N, 0 = none
	}{
		{1000, 5000, StateOK, 3},         // the last one wins
		{100, 5000, StateOK, 1},          // by size
		{1000, 6000, StateOK, 0},         // a client-bound trial is no boundary trial
		{1000, 6000, StateOverloaded, 5}, // by state
		{1000, 5100, StateOK, 0},         // by rate
		{1000, 0, StateOK, 0},            // no rate, no trial
	}
	for _, tt := range tests {
		got := 0
		if tr := findTrial(ts, tt.size, tt.rate, tt.state); tr != nil {
			got = tr.N
		}
		if got != tt.want {
			t.Errorf("findTrial(%d, %v, %s) = trial %d, want %d", tt.size, tt.rate, tt.state, got, tt.want)
		}
	}
}

func TestCPUTable(t *testing.T) {
	v := newView(Data{HostCores: 2, CPUShare: []CPUShare{
		{SizeBytes: 0, Who: "plimsoll", Cores: 0.5},
		{SizeBytes: 1000, Who: "broker 1", Cores: 0.4},
		{SizeBytes: 100, Who: "plimsoll", Cores: 1.0},
		{SizeBytes: 100, Who: "plimsoll", Cores: 0.1}, // listed twice: adds up
		{SizeBytes: 100, Who: "broker 1", Cores: 0.3},
	}})
	c := v.cpu()
	if got := c.Columns; len(got) != 3 || got[0] != 100 || got[1] != 1000 || got[2] != 0 {
		t.Fatalf("columns %v, want [100 1000 0] (whole run last)", got)
	}
	if c.Rows[0].Who != "plimsoll" || c.Rows[1].Who != "broker 1" {
		t.Errorf("rows %q, %q: want first-seen order", c.Rows[0].Who, c.Rows[1].Who)
	}
	if got := c.Rows[0].Cores[0]; math.Abs(got-1.1) > 1e-9 {
		t.Errorf("plimsoll at 100 B = %v, want 1.1", got)
	}
	if !math.IsNaN(c.Rows[0].Cores[1]) || !math.IsNaN(c.Rows[1].Cores[2]) {
		t.Errorf("missing figures must stay missing: %v %v", c.Rows[0].Cores, c.Rows[1].Cores)
	}
	if got := c.Total; math.Abs(got[0]-1.4) > 1e-9 || math.Abs(got[1]-0.4) > 1e-9 || math.Abs(got[2]-0.5) > 1e-9 {
		t.Errorf("totals %v, want [1.4 0.4 0.5]", got)
	}
	pg := cpuPage(v)
	if want := "At 100 B messages the brokers used 0.30 cores and plimsoll 1.1 of the host's 2 cores."; pg.Summary != want {
		t.Errorf("summary %q, want %q", pg.Summary, want)
	}
	if got := pg.Rows[1].Cells[2]; got != "—" {
		t.Errorf("a missing figure shows as %q", got)
	}
	if newView(Data{}).cpu() != nil {
		t.Error("a CPU table without figures")
	}
}

func TestEnvironment(t *testing.T) {
	d := Data{CoLocated: true, Brokers: 3, HostCores: 2, Environment: []KV{{Key: "memory", Value: "8 GiB"}}}
	got := newView(d).env()
	if len(got) != 4 || got[0].Key != "co-located" || !strings.HasPrefix(got[0].Value, "yes") ||
		got[1] != (KV{"brokers", "3"}) || got[2] != (KV{"host cores", "2"}) || got[3].Key != "memory" {
		t.Errorf("env = %v", got)
	}
	// Figures the caller already lists are not repeated.
	d.Config = []KV{{Key: "Brokers", Value: "3"}}
	d.Environment = append(d.Environment, KV{Key: "host cores", Value: "2"})
	got = newView(d).env()
	if len(got) != 3 || got[1].Key != "memory" || got[2].Key != "host cores" {
		t.Errorf("env with brokers and cores listed = %v", got)
	}
}
