package watch

import (
	"fmt"
	"slices"
	"time"

	"github.com/plimsoll/plimsoll/probe"
	"github.com/plimsoll/plimsoll/use"
)

// Interval is one interval's observation of the cluster: the JSON object `plimsoll watch
// --json` prints per interval (fields documented in docs/use.md).
type Interval struct {
	// Seq counts intervals from 1.
	Seq int `json:"seq"`
	// From and To bound the probe samples summarised: the first one's start and the last one's
	// end. Every sample belongs to exactly one interval.
	From    time.Time `json:"from"`
	To      time.Time `json:"to"`
	Seconds float64   `json:"seconds"`
	Samples int       `json:"samples"`
	// Final marks the last interval, cut short by --for or a signal.
	Final bool `json:"final,omitempty"`
	// Brokers are each broker's traffic and headroom, by broker id.
	Brokers []Broker `json:"brokers"`
	// Busiest is the broker nearest a ceiling (or, with no ceiling known, carrying the most
	// record bytes); nil when no broker has figures.
	Busiest *Busiest `json:"busiest,omitempty"`
	// Model is the capacity model's view of the interval's traffic; nil with no produce traffic
	// (ModelNote says why).
	Model     *ModelView `json:"model,omitempty"`
	ModelNote string     `json:"model_note,omitempty"`
	// USE is the interval's USE table, the same shape as result.json's "use".
	USE use.Table `json:"use"`
}

// Broker is one broker's traffic (Kafka's BrokerTopicMetrics, mean bytes/s over the interval's
// samples that have it) and how far its resources are from their ceilings.
type Broker struct {
	ID                  int32   `json:"id"`
	BytesIn             float64 `json:"bytes_in_per_sec"`              // bytesinpersec: clients' produce
	ReplicationBytesIn  float64 `json:"replication_bytes_in_per_sec"`  // fetched as a follower
	ReplicationBytesOut float64 `json:"replication_bytes_out_per_sec"` // fetched by followers
	BytesOut            float64 `json:"bytes_out_per_sec"`             // fetched by consumers
	// ProduceShare is this broker's share of the cluster's produce bytes in: the share of the
	// traffic it leads.
	ProduceShare float64 `json:"produce_share"`
	// Samples counts the samples with produce bytes in; 0: no traffic figures at all.
	Samples int `json:"samples"`
	// From and To are the span the traffic figures cover: from the reading of Kafka's counters
	// before the interval's first sample to its last reading (each at the middle of its scrape).
	// The figures are the counters' growth over this span per second (each sample's rate
	// weighted by its length), so Kafka's own counters read at From and To give the same rates.
	From     time.Time  `json:"from,omitzero"`
	To       time.Time  `json:"to,omitzero"`
	Headroom []Headroom `json:"headroom,omitempty"`
}

// Headroom is one resource's mean utilisation against its ceiling, in percent.
type Headroom struct {
	Resource    string  `json:"resource"` // the USE row: cpu, network in, network out, disk, request handlers
	Metric      string  `json:"metric"`   // the utilisation cell's metric
	Utilisation float64 `json:"utilisation_pct"`
	Ceiling     float64 `json:"ceiling_pct"`
	// CeilingFrom names what sets the ceiling: a verdict criterion (min_handler_idle,
	// host_busy) or a capacity (nic, disk_write).
	CeilingFrom string `json:"ceiling_from"`
	// Headroom is Ceiling - Utilisation, percentage points (negative: over the ceiling).
	Headroom float64 `json:"headroom_pct"`
}

// Near is how near the ceiling the resource is: utilisation / ceiling (1 at the ceiling).
func (h Headroom) Near() float64 { return h.Utilisation / h.Ceiling }

// Ceilings are the verdict's criteria watch judges utilisation against, percent.
type Ceilings struct {
	// HandlerBusy is 100 x (1 - verdict.Criteria.MinHandlerIdle).
	HandlerBusy float64
	// CPU is 100 x verdict.Criteria.HostBusy: a broker JVM using this share of its machine.
	CPU float64
}

// ceiling is the ceiling of a USE row's utilisation and what sets it; false for a resource
// watch does not judge (memory, network processors: no criterion).
func (c Ceilings) ceiling(resource string) (float64, string, bool) {
	switch resource {
	case "cpu":
		return c.CPU, "host_busy", c.CPU > 0
	case "request handlers":
		return c.HandlerBusy, "min_handler_idle", c.HandlerBusy > 0
	case "network in", "network out":
		return 100, "nic", true
	case "disk":
		return 100, "disk_write", true
	}
	return 0, "", false
}

// Busiest is the broker nearest a ceiling, and why.
type Busiest struct {
	Broker int32 `json:"broker"`
	// Headroom is its resource nearest a ceiling; nil when no ceiling is known for any broker
	// resource (ByTraffic).
	Headroom *Headroom `json:"headroom,omitempty"`
	// ByTraffic: ranked by record bytes in + out, as no utilisation against a ceiling is known.
	ByTraffic bool `json:"by_traffic,omitempty"`
	// BytesPerSec is its record bytes in + out (produce, replication, consume).
	BytesPerSec float64 `json:"bytes_per_sec"`
	// ProduceShare is its share of the cluster's produce; BalancedShare is 1/brokers.
	ProduceShare  float64 `json:"produce_share"`
	BalancedShare float64 `json:"balanced_share"`
}

// Summarise turns one interval's samples into an Interval (Seq and Final are the caller's).
func Summarise(s *probe.Series, c Ceilings) Interval {
	iv := Interval{USE: use.Summarise(s), Samples: s.Len()}
	iv.From, iv.To, iv.Seconds = iv.USE.From, iv.USE.To, iv.USE.Seconds
	traffic, spans := traffic(s)
	iv.Brokers = brokers(s, traffic, headroom(&iv.USE, c))
	for i, b := range iv.Brokers {
		iv.Brokers[i].From, iv.Brokers[i].To = spans[b.ID].from, spans[b.ID].to
	}
	iv.Busiest = busiest(iv.Brokers)
	iv.Model, iv.ModelNote = modelView(traffic, len(iv.Brokers))
	return iv
}

// brokers joins each broker's traffic and headroom, every broker the series saw included.
func brokers(s *probe.Series, traffic []use.Traffic, room map[int32][]Headroom) []Broker {
	total := 0.0
	for _, t := range traffic {
		total += t.ProduceIn
	}
	var out []Broker
	for _, id := range s.BrokerIDs() {
		b := Broker{ID: id, Headroom: room[id]}
		if i := slices.IndexFunc(traffic, func(t use.Traffic) bool { return t.Broker == id }); i >= 0 {
			t := traffic[i]
			b.BytesIn, b.ReplicationBytesIn, b.ReplicationBytesOut, b.BytesOut = t.ProduceIn, t.ReplicationIn, t.ReplicationOut, t.ConsumeOut
			b.Samples = t.Samples
			if total > 0 {
				b.ProduceShare = t.ProduceIn / total
			}
		}
		out = append(out, b)
	}
	return out
}

// headroom reads every judged broker resource's utilisation off the table.
func headroom(t *use.Table, c Ceilings) map[int32][]Headroom {
	out := map[int32][]Headroom{}
	for _, r := range t.Rows {
		var id int32
		if _, err := fmt.Sscanf(r.Entity, "broker %d", &id); err != nil {
			continue
		}
		u := r.Utilisation
		ceil, from, ok := c.ceiling(r.Resource)
		if !ok || u.Blank() || !u.Mean.OK() || u.Unit != use.UnitPct {
			continue
		}
		v := float64(u.Mean)
		out[id] = append(out[id], Headroom{Resource: r.Resource, Metric: u.Metric, Utilisation: v,
			Ceiling: ceil, CeilingFrom: from, Headroom: ceil - v})
	}
	return out
}

// busiest is the broker whose resource is nearest its ceiling; with no ceiling known, the one
// carrying the most record bytes. Ties go to the lower broker id.
func busiest(bs []Broker) *Busiest {
	var best *Busiest
	bestNear, bestBytes := -1.0, -1.0
	for _, b := range bs {
		bytes := b.BytesIn + b.ReplicationBytesIn + b.ReplicationBytesOut + b.BytesOut
		for _, h := range b.Headroom {
			if h.Near() > bestNear {
				bestNear = h.Near()
				best = &Busiest{Broker: b.ID, Headroom: &h, BytesPerSec: bytes, ProduceShare: b.ProduceShare}
			}
		}
		if bestNear < 0 && b.Samples > 0 && bytes > bestBytes {
			bestBytes = bytes
			best = &Busiest{Broker: b.ID, ByTraffic: true, BytesPerSec: bytes, ProduceShare: b.ProduceShare}
		}
	}
	if best != nil {
		best.BalancedShare = 1 / float64(len(bs))
	}
	return best
}
