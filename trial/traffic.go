package trial

import (
	"github.com/plimsoll/plimsoll/model"
	"github.com/plimsoll/plimsoll/probe"
)

// BrokerTraffic is each broker's mean traffic over the measured window, from Kafka's own
// metrics as the probe read them, for comparison with the model (model.Against). Brokers
// without metrics in the window are left out.
func (r *Result) BrokerTraffic() []model.Measured {
	w := r.MeasuredWindow()
	if w == nil {
		return nil
	}
	var out []model.Measured
	for _, id := range w.BrokerIDs() {
		m := model.Measured{Broker: id}
		n := 0
		for _, x := range w.Samples {
			b := x.Brokers[id]
			if b == nil || b.Err != "" || !b.BytesIn.OK() {
				continue
			}
			m.ProduceIn += float64(b.BytesIn)
			m.ReplicationIn += ok0(b.ReplicationBytesIn)
			m.ReplicationOut += ok0(b.ReplicationBytesOut)
			m.ConsumeOut += ok0(b.BytesOut)
			n++
		}
		if n == 0 {
			continue
		}
		f := 1 / float64(n)
		m.ProduceIn, m.ReplicationIn, m.ReplicationOut, m.ConsumeOut = m.ProduceIn*f, m.ReplicationIn*f, m.ReplicationOut*f, m.ConsumeOut*f
		out = append(out, m)
	}
	return out
}

func ok0(n probe.Num) float64 { return n.Or(0) }

// ModelCluster is the model's view of the cluster the trial ran on: brokers seen, the run's
// replication factor, partitions and consumer groups.
func (r *Result) ModelCluster() model.Cluster {
	brokers := 0
	if r.Series != nil {
		brokers = len(r.Series.BrokerIDs())
	}
	if brokers == 0 {
		brokers = r.Config.Brokers
	}
	return model.Cluster{
		Brokers: brokers, ReplicationFactor: r.Config.ReplicationFactor,
		Partitions:     r.Config.Partitions * len(r.Config.Topics),
		ConsumerGroups: len(r.Config.Groups),
	}
}
