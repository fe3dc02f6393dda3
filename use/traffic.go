package use

import "github.com/plimsoll/plimsoll/probe"

// Traffic is one broker's mean traffic over a window, bytes per second, from Kafka's own
// metrics as the probe read them: what model.Against compares with the model.
type Traffic struct {
	Broker         int32   `json:"broker"`
	ProduceIn      float64 `json:"produce_in"`      // bytesinpersec: clients' produce
	ReplicationIn  float64 `json:"replication_in"`  // replicationbytesinpersec: fetched as a follower
	ReplicationOut float64 `json:"replication_out"` // replicationbytesoutpersec: fetched by followers
	ConsumeOut     float64 `json:"consume_out"`     // bytesoutpersec: fetched by consumers
	// Samples counts the seconds with produce bytes in, the figure a broker is kept for.
	Samples int `json:"samples"`
}

// BrokerTraffic averages each broker's traffic over the series. Each figure is the mean of the
// samples that have it (a missing value is never counted as 0); a broker without produce bytes
// in any sample (no metrics endpoint, every scrape failed) is left out.
func BrokerTraffic(s *probe.Series) []Traffic {
	if s == nil {
		return nil
	}
	var out []Traffic
	for _, id := range s.BrokerIDs() {
		var m [4]mean
		for x := range s.All() {
			b := x.Brokers[id]
			if b == nil || b.Err != "" {
				continue
			}
			for i, v := range [4]probe.Num{b.BytesIn, b.ReplicationBytesIn, b.ReplicationBytesOut, b.BytesOut} {
				m[i].add(v)
			}
		}
		if m[0].n == 0 {
			continue
		}
		out = append(out, Traffic{Broker: id, ProduceIn: m[0].value(), ReplicationIn: m[1].value(),
			ReplicationOut: m[2].value(), ConsumeOut: m[3].value(), Samples: m[0].n})
	}
	return out
}

// mean accumulates the values that are present.
type mean struct {
	sum float64
	n   int
}

func (m *mean) add(v probe.Num) {
	if v.OK() {
		m.sum += float64(v)
		m.n++
	}
}

// value is the mean, 0 when nothing was added.
func (m mean) value() float64 {
	if m.n == 0 {
		return 0
	}
	return m.sum / float64(m.n)
}

// LinkOverhead is what the brokers' emulated links carried beyond Kafka's record bytes, per
// record byte (model.Cluster.LinkOverhead): the bytes their shapers sent both ways over the
// record bytes the same brokers counted in (produce and replication) and out (replication and
// consumers), summed over the seconds in which every one of those figures is present. False
// when the series has no such second (no emulated links, no broker metrics) or no records moved.
func LinkOverhead(s *probe.Series) (float64, bool) {
	if s == nil {
		return 0, false
	}
	var link, records float64
	for x := range s.All() {
		if x.Host == nil {
			continue
		}
		for id, l := range x.Host.Links {
			b := x.Brokers[id]
			if b == nil || b.Err != "" {
				continue
			}
			vs := [...]probe.Num{l.In.Bytes, l.Out.Bytes, b.BytesIn, b.ReplicationBytesIn, b.BytesOut, b.ReplicationBytesOut}
			if !allOK(vs[:]) {
				continue
			}
			link += float64(vs[0] + vs[1])
			records += float64(vs[2] + vs[3] + vs[4] + vs[5])
		}
	}
	if records <= 0 {
		return 0, false
	}
	return link/records - 1, true
}

func allOK(vs []probe.Num) bool {
	for _, v := range vs {
		if !v.OK() {
			return false
		}
	}
	return true
}
