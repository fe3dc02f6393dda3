package report

import (
	"math"
	"strings"
	"testing"

	"github.com/plimsoll/plimsoll/results"
	"github.com/plimsoll/plimsoll/verdict"
	"github.com/plimsoll/plimsoll/workload"
)

// search is a search of the given points on a cluster of brokers (0: unknown), co-located or not.
func search(brokers int, local bool, pts ...results.Boundary) *results.SearchFile {
	return &results.SearchFile{Points: pts,
		Header: results.Search{Config: &results.Config{Brokers: brokers, Local: local, Spec: workload.Default()}}}
}

func TestHeadline(t *testing.T) {
	found := results.Boundary{Size: 1000, Trials: 6, Ceiling: results.Limit{SafeRate: 60000, UnsafeRate: 66000, Bottleneck: "network in on broker 2"}}
	tests := []struct {
		name string
		d    *results.SearchFile
		want []string // in the headline
		not  []string // never in the headline
	}{
		{"found, per broker", search(3, false, found),
			[]string{"This cluster sustains 20.0 MB/s per broker at 1 KB messages", "60,000 msgs/s over 3 brokers", "overloaded at 66,000 msgs/s", "bottleneck: network in on broker 2"},
			[]string{"at least"}},
		{"found, brokers unknown", search(0, false, found),
			[]string{"This cluster sustains 60.0 MB/s at 1 KB messages (60,000 msgs/s)"},
			[]string{"per broker"}},
		{"client-bound is never the limit", search(0, false, results.Boundary{Size: 1000, Ceiling: results.Limit{SafeRate: 30000, UnsafeRate: 50000, ClientBound: true}}),
			[]string{"sustains at least 30.0 MB/s", "the load generator, not the cluster, was the limit"},
			[]string{"overloaded at"}},
		{"no overloaded rate", search(0, false, results.Boundary{Size: 1000, Ceiling: results.Limit{SafeRate: 30000}}),
			[]string{"sustains at least 30.0 MB/s", "no rate tried overloaded it"}, nil},
		{"co-located measures the host", search(0, true, found),
			[]string{"This host (brokers and load generator on one machine) sustains"},
			[]string{"This cluster"}},
		{"nearest 1 KB, smaller on a tie",
			search(0, false, results.Boundary{Size: 10000, Ceiling: results.Limit{SafeRate: 5000, UnsafeRate: 5500}}, results.Boundary{Size: 100, Ceiling: results.Limit{SafeRate: 90000, UnsafeRate: 99000}}),
			[]string{"at 100 B messages"}, nil},
		{"nothing sustained", search(0, false, results.Boundary{Size: 100, Ceiling: results.Limit{UnsafeRate: 1000}}),
			[]string{"at 100 B messages", "overloaded even at the lowest rate tried, 1,000 msgs/s", "Lower the search's minimum rate"}, nil},
		{"no points", &results.SearchFile{},
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
	v := newView(fullSearch())
	all := strings.Join(v.Warnings, "\n")
	for _, w := range []string{"Co-located run", "one host of 2 cores", "measure this host, not a Kafka cluster",
		"Client-bound at 100 B", clientBoundNote} {
		if !strings.Contains(all, w) {
			t.Errorf("warnings lack %q:\n%s", w, all)
		}
	}
	if w := newView(remoteSearch()).Warnings; len(w) != 0 {
		t.Errorf("a remote run with no client-bound point warns: %q", w)
	}
}

func TestRecommendation(t *testing.T) {
	d := &results.SearchFile{Recommendation: &results.Recommendation{PerBrokerBytesPerSec: 40e6, ClusterBytesPerSec: 120e6,
		Size: 1000, MeasuredBytesPerSec: 120e6, Brokers: 3}}
	want := "Recommended safe load: 40.0 MB/s per broker, 120 MB/s for the cluster. The lowest safe throughput was at 1000-byte messages: 120 MB/s produced across 3 brokers, 40.0 MB/s per broker."
	if got := newView(d).Recommend; got != want {
		t.Errorf("Recommend = %q, want %q", got, want)
	}
	d.Recommendation.BrokersDown, d.Recommendation.PerBrokerBytesPerSec = 1, 60e6
	got := newView(d).Recommend
	for _, w := range []string{"with room for 1 broker down", "With 1 of 3 brokers down the rest must carry their load, so plan for 60.0 MB/s per broker."} {
		if !strings.Contains(got, w) {
			t.Errorf("Recommend = %q, lacks %q", got, w)
		}
	}
	d.Recommendation.ClientBound = true
	if got := newView(d).Recommend; !strings.Contains(got, "the cluster's true limit is higher") {
		t.Errorf("a client-bound recommendation does not say so: %q", got)
	}
	if got := newView(&results.SearchFile{}).Recommend; got != "" {
		t.Errorf("Recommend without one = %q", got)
	}
}

func TestFindTrial(t *testing.T) {
	ts := trials(
		tr{seq: 1, size: 100, rate: 5000, state: verdict.OK},
		tr{seq: 2, size: 1000, rate: 5000, state: verdict.OK},
		tr{seq: 3, size: 1000, rate: 5000.000000001, state: verdict.OK}, // retried, JSON-rounded
		tr{seq: 4, size: 1000, rate: 6000, state: verdict.OK, clientBound: true},
		tr{seq: 5, size: 1000, rate: 6000, state: verdict.Overloaded},
	)
	tests := []struct {
		size  int
		rate  float64
		state verdict.State
		want  int // seq, 0 = none
	}{
		{1000, 5000, verdict.OK, 3},         // the last one wins
		{100, 5000, verdict.OK, 1},          // by size
		{1000, 6000, verdict.OK, 0},         // a client-bound trial is no boundary trial
		{1000, 6000, verdict.Overloaded, 5}, // by state
		{1000, 5100, verdict.OK, 0},         // by rate
		{1000, 0, verdict.OK, 0},            // no rate, no trial
	}
	for _, tt := range tests {
		got := 0
		if tr := findTrial(ts, tt.size, tt.rate, tt.state, func(t *results.Trial) verdict.State { return t.Verdict.State }); tr != nil {
			got = tr.Step.Seq
		}
		if got != tt.want {
			t.Errorf("findTrial(%d, %v, %s) = trial %d, want %d", tt.size, tt.rate, tt.state, got, tt.want)
		}
	}
}

func TestCPUTable(t *testing.T) {
	v := &view{HostCores: 2, CPUShare: []cpuShare{
		{SizeBytes: 0, Who: "plimsoll", Cores: 0.5},
		{SizeBytes: 1000, Who: "broker 1", Cores: 0.4},
		{SizeBytes: 100, Who: "plimsoll", Cores: 1.0},
		{SizeBytes: 100, Who: "plimsoll", Cores: 0.1}, // listed twice: adds up
		{SizeBytes: 100, Who: "broker 1", Cores: 0.3},
	}}
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
	if newView(&results.SearchFile{}).cpu() != nil {
		t.Error("a CPU table without figures")
	}
	// The view takes each process's CPU from the trial at each size's safe rate.
	full := newView(fullSearch()).cpu()
	if len(full.Columns) != 3 || full.Columns[0] != 100 || len(full.Rows) != 4 || full.Rows[3].Who != "plimsoll" {
		t.Errorf("CPU table of the full search: columns %v, rows %+v", full.Columns, full.Rows)
	}
}

func TestEnvironment(t *testing.T) {
	v := &view{CoLocated: true, Brokers: 3, HostCores: 2, Environment: []kv{{Key: "memory", Value: "8 GiB"}}}
	got := v.env()
	if len(got) != 4 || got[0].Key != "co-located" || !strings.HasPrefix(got[0].Value, "yes") ||
		got[1] != (kv{"brokers", "3"}) || got[2] != (kv{"host cores", "2"}) || got[3].Key != "memory" {
		t.Errorf("env = %v", got)
	}
	// Figures the configuration already lists are not repeated.
	v.Config = []kv{{Key: "Brokers", Value: "3"}}
	v.Environment = append(v.Environment, kv{Key: "host cores", Value: "2"})
	got = v.env()
	if len(got) != 3 || got[1].Key != "memory" || got[2].Key != "host cores" {
		t.Errorf("env with brokers and cores listed = %v", got)
	}
}

// TestConfigProducePath: a search whose trials produced through plimsoll's own path says so in
// its settings; one on franz-go's producer lists no produce path.
func TestConfigProducePath(t *testing.T) {
	has := func(kvs []kv) bool {
		for _, x := range kvs {
			if x.Key == "produce path" {
				return true
			}
		}
		return false
	}
	cfg := &results.Config{Spec: workload.Default()}
	if has(configKVs(cfg)) {
		t.Errorf("franz-go's producer: settings list a produce path: %v", configKVs(cfg))
	}
	cfg.Producer = results.ProducerLean
	if !has(configKVs(cfg)) {
		t.Errorf("the lean producer: settings lack the produce path: %v", configKVs(cfg))
	}
}
