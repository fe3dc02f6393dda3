package watch

import (
	"time"

	"github.com/plimsoll/plimsoll/probe"
	"math"
	"testing"

	"github.com/plimsoll/plimsoll/use"
)

var ceilings = Ceilings{HandlerBusy: 80, CPU: 90}

func TestSummariseRecorded(t *testing.T) {
	s := recorded(t)
	iv := Summarise(s, ceilings)
	if iv.Samples != len(s.Samples) || len(iv.Brokers) != 3 {
		t.Fatalf("samples %d brokers %d", iv.Samples, len(iv.Brokers))
	}
	share := 0.0
	for i, tr := range use.BrokerTraffic(s) {
		b := iv.Brokers[i]
		if b.ID != tr.Broker || b.Samples != tr.Samples || b.BytesIn <= 0 {
			t.Errorf("broker %d: %+v, traffic %+v", b.ID, b, tr)
		}
		share += b.ProduceShare
		// Local brokers without a NIC capacity: cpu and request handlers are judged.
		if len(b.Headroom) != 2 || b.Headroom[0].Resource != "cpu" || b.Headroom[1].Resource != "request handlers" {
			t.Errorf("broker %d headroom %+v", b.ID, b.Headroom)
		}
		for _, h := range b.Headroom {
			if h.Headroom != h.Ceiling-h.Utilisation {
				t.Errorf("broker %d %s: headroom %v", b.ID, h.Resource, h.Headroom)
			}
		}
	}
	if math.Abs(share-1) > 1e-9 {
		t.Errorf("produce shares sum to %v", share)
	}
	// The busiest is the resource nearest its ceiling over every broker.
	best := 0.0
	for _, b := range iv.Brokers {
		for _, h := range b.Headroom {
			best = math.Max(best, h.Near())
		}
	}
	if iv.Busiest == nil || iv.Busiest.Headroom.Near() != best || iv.Busiest.BalancedShare != 1.0/3 {
		t.Errorf("busiest %+v, want the resource at %v of its ceiling", iv.Busiest, best)
	}
	// A balanced run with replication factor 3 (the recorded one).
	if iv.Model == nil || iv.Model.ReplicationFactor != 3 || iv.Model.ConsumerGroups != 1 {
		t.Errorf("model %+v (%s)", iv.Model, iv.ModelNote)
	}
}

// Traffic is the counters' growth over the samples' time: a 1 s sample at 100 B/s and a 3 s
// one at 400 B/s moved 1300 bytes in 4 s, 325 B/s (their unweighted mean, 250, is not what
// Kafka's counter shows over those 4 s). A failed scrape is left out; the span runs from the
// reading before the first sample to the last.
func TestTrafficWeighted(t *testing.T) {
	t0 := time.Date(2026, 11, 26, 4, 0, 0, 0, time.UTC)
	b := func(at time.Duration, secs float64, in float64) *probe.BrokerSample {
		return &probe.BrokerSample{At: t0.Add(at), Interval: secs, BytesIn: probe.Num(in), BytesOut: probe.Missing,
			ReplicationBytesIn: probe.Num(in / 2), ReplicationBytesOut: probe.Num(0)}
	}
	s := &probe.Series{Samples: []probe.Sample{
		{Brokers: map[int32]*probe.BrokerSample{7: b(time.Second, 1, 100)}},
		{Brokers: map[int32]*probe.BrokerSample{7: {Err: "scrape of x still running", BytesIn: probe.Missing}}},
		{Brokers: map[int32]*probe.BrokerSample{7: b(4*time.Second, 3, 400)}},
	}}
	tr, spans := traffic(s)
	if len(tr) != 1 || tr[0].ProduceIn != 325 || tr[0].ReplicationIn != 162.5 || tr[0].ConsumeOut != 0 || tr[0].Samples != 2 {
		t.Errorf("traffic %+v, want 325 B/s in over 2 samples", tr)
	}
	if sp := spans[7]; !sp.from.Equal(t0) || !sp.to.Equal(t0.Add(4*time.Second)) {
		t.Errorf("span %v to %v, want %v to %v", sp.from, sp.to, t0, t0.Add(4*time.Second))
	}
}

func TestBusiestByTraffic(t *testing.T) {
	b := busiest([]Broker{{ID: 1, BytesIn: 10, Samples: 3}, {ID: 2, BytesIn: 30, ReplicationBytesOut: 5, Samples: 3}, {ID: 3}})
	if b == nil || b.Broker != 2 || !b.ByTraffic || b.BytesPerSec != 35 {
		t.Fatalf("busiest %+v", b)
	}
	// Any known ceiling outranks traffic.
	b = busiest([]Broker{{ID: 1, BytesIn: 100, Samples: 3}, {ID: 2, Samples: 3, Headroom: []Headroom{{Resource: "cpu", Utilisation: 1, Ceiling: 90}}}})
	if b == nil || b.Broker != 2 || b.ByTraffic {
		t.Fatalf("busiest %+v", b)
	}
	if busiest(nil) != nil {
		t.Error("busiest of no brokers")
	}
}

func TestModelView(t *testing.T) {
	const mb = 1e6
	for _, c := range []struct {
		name    string
		traffic []use.Traffic
		rf      int
		over    int32
		dir     string
		skew    bool
		note    bool
	}{
		// Every partition led by broker 1, replication factor 1: all produce on one broker.
		{name: "one leader", traffic: []use.Traffic{{Broker: 1, ProduceIn: 3 * mb}, {Broker: 2}, {Broker: 3}}, rf: 1, over: 1, dir: "in", skew: true},
		{name: "balanced", traffic: []use.Traffic{{Broker: 1, ProduceIn: mb, ReplicationIn: 2 * mb, ReplicationOut: 2 * mb},
			{Broker: 2, ProduceIn: mb, ReplicationIn: 2 * mb, ReplicationOut: 2 * mb}, {Broker: 3, ProduceIn: mb, ReplicationIn: 2 * mb, ReplicationOut: 2 * mb}}, rf: 3},
		// Leaders even, but broker 3 serves a consumer group alone: not explained by leaders.
		{name: "consumers", traffic: []use.Traffic{{Broker: 1, ProduceIn: mb}, {Broker: 2, ProduceIn: mb}, {Broker: 3, ProduceIn: mb, ConsumeOut: 3 * mb}},
			rf: 1, over: 3, dir: "out"},
		{name: "idle", traffic: []use.Traffic{{Broker: 1}, {Broker: 2}, {Broker: 3}}, note: true},
	} {
		t.Run(c.name, func(t *testing.T) {
			v, note := modelView(c.traffic, 3)
			if c.note {
				if v != nil || note == "" {
					t.Fatalf("view %+v note %q, want a note", v, note)
				}
				return
			}
			if v == nil {
				t.Fatalf("no view: %s", note)
			}
			if v.ReplicationFactor != c.rf {
				t.Errorf("replication factor %d, want %d", v.ReplicationFactor, c.rf)
			}
			switch {
			case c.over == 0 && v.Over != nil:
				t.Errorf("over %+v, want none", v.Over)
			case c.over != 0 && (v.Over == nil || v.Over.Broker != c.over || v.Over.Direction != c.dir || v.Over.LeaderSkew != c.skew):
				t.Errorf("over %+v, want broker %d %s skew %v", v.Over, c.over, c.dir, c.skew)
			}
		})
	}
	if v, _ := modelView([]use.Traffic{{Broker: 1, ProduceIn: 1}}, 3); v != nil {
		t.Error("a model of 1 broker out of 3")
	}
}
