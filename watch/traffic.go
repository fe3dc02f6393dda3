package watch

import (
	"time"

	"github.com/plimsoll/plimsoll/probe"
	"github.com/plimsoll/plimsoll/use"
)

// span is the time a broker's traffic figures cover: from the reading before its first sample
// in the interval to its last reading.
type span struct{ from, to time.Time }

// traffic is each broker's traffic over the interval, each sample's rates weighted by the time
// they cover (BrokerSample.Interval): the growth of Kafka's counters over the span, per second,
// whatever the samples' lengths. An unweighted mean of per-second rates (use.BrokerTraffic)
// differs from it when a slow scrape makes one sample longer than another while the rate moves.
// A missing value is left out (the next good scrape's sample covers its time).
func traffic(s *probe.Series) ([]use.Traffic, map[int32]span) {
	var out []use.Traffic
	spans := map[int32]span{}
	for _, id := range s.BrokerIDs() {
		var sum [4]float64
		var secs [4]float64
		n := 0
		var sp span
		for x := range s.All() {
			b := x.Brokers[id]
			if b == nil || b.Err != "" || b.Interval <= 0 {
				continue
			}
			for i, v := range [4]probe.Num{b.BytesIn, b.ReplicationBytesIn, b.ReplicationBytesOut, b.BytesOut} {
				if v.OK() {
					sum[i] += float64(v) * b.Interval
					secs[i] += b.Interval
				}
			}
			if !b.BytesIn.OK() {
				continue
			}
			n++
			if !b.At.IsZero() {
				if from := b.At.Add(-time.Duration(b.Interval * float64(time.Second))); sp.from.IsZero() || from.Before(sp.from) {
					sp.from = from
				}
				if b.At.After(sp.to) {
					sp.to = b.At
				}
			}
		}
		if n == 0 {
			continue
		}
		per := func(i int) float64 {
			if secs[i] == 0 {
				return 0
			}
			return sum[i] / secs[i]
		}
		out = append(out, use.Traffic{Broker: id, ProduceIn: per(0), ReplicationIn: per(1), ReplicationOut: per(2), ConsumeOut: per(3), Samples: n})
		if !sp.to.IsZero() {
			spans[id] = sp
		}
	}
	return out, spans
}
