package limit

import (
	"fmt"

	"github.com/plimsoll/plimsoll/kafkaprops"
	"github.com/plimsoll/plimsoll/model"
	"github.com/plimsoll/plimsoll/results"
	"github.com/plimsoll/plimsoll/workload"
)

// Predict is the model's sustainable rate for size-byte messages on the search's cluster, or nil
// when the model has no capacity to go on (no NIC rate: a CPU-bound loopback cluster).
func Predict(cfg results.Config, size int) *results.Prediction {
	if cfg.NICBytesPerSec <= 0 || cfg.Brokers == 0 {
		return nil
	}
	c := modelCluster(cfg)
	rate, err := model.MaxMessagesPerSec(c, modelMessage(cfg.Spec, size))
	if err != nil || rate <= 0 {
		return nil
	}
	p := &results.Prediction{MsgsPerSec: rate}
	if ceil, err := model.MaxProduce(c); err == nil {
		p.Bottleneck = string(ceil.Bottleneck)
	}
	return p
}

// framedRate is the model's sustainable rate with the link overhead o counted against the NICs,
// 0 when the model cannot say.
func framedRate(cfg results.Config, size int, o float64) float64 {
	c := modelCluster(cfg)
	c.LinkOverhead = o
	rate, err := model.MaxMessagesPerSec(c, modelMessage(cfg.Spec, size))
	if err != nil {
		return 0
	}
	return rate
}

func modelCluster(cfg results.Config) model.Cluster {
	return model.Cluster{
		Brokers: cfg.Brokers, Partitions: cfg.Partitions, ReplicationFactor: cfg.ReplicationFactor,
		ConsumerGroups: cfg.Spec.ConsumerGroups, NIC: cfg.NICBytesPerSec, MaxUtilization: 1,
	}
}

func modelMessage(spec workload.Spec, size int) model.Message {
	m := model.Message{PayloadBytes: size, BatchSize: kafkaprops.BatchSize(spec.EffectiveProducerProps())}
	if spec.Keys != workload.KeysNone {
		m.KeyBytes = keyBytes(spec.KeyCount)
	}
	return m
}

// keyBytes is the length of the decimal keys the generator uses for count distinct keys.
func keyBytes(count int) int { return len(fmt.Sprint(max(count-1, 0))) }

// Recommend turns the boundary into a safe load to plan for: Dropbox's rule, the measured
// per-broker limit scaled for brokers down, computed by the model. Each size's safe limit (its
// SLO limit when the search had a latency objective, else its ceiling) counts, and the worst size
// (lowest safe bytes/s) sets it. Nil when no size had a safe rate.
func Recommend(cfg results.Config, points []results.Boundary) *results.Recommendation {
	var best *results.Boundary
	for i := range points {
		p := &points[i]
		if p.Safe().SafeRate <= 0 {
			continue
		}
		if best == nil || p.Safe().SafeBytesPerSec < best.Safe().SafeBytesPerSec {
			best = p
		}
	}
	if best == nil || cfg.Brokers == 0 {
		return nil
	}
	safe := best.Safe()
	perBroker := safe.SafeBytesPerSec / float64(cfg.Brokers)
	res, err := model.Evaluate(model.Cluster{Brokers: cfg.Brokers, ReplicationFactor: min(cfg.ReplicationFactor, cfg.Brokers), BrokersDown: cfg.BrokersDown},
		model.Traffic{}, model.Sizing{BrokerLimit: perBroker})
	if err != nil || res.Headroom == nil {
		return nil
	}
	h := res.Headroom
	return &results.Recommendation{PerBrokerBytesPerSec: h.SafePerBrokerBytesPerSec, ClusterBytesPerSec: h.SafeClusterBytesPerSec,
		BrokersDown: cfg.BrokersDown, Size: best.Size, MeasuredBytesPerSec: safe.SafeBytesPerSec, Brokers: cfg.Brokers,
		ClientBound: safe.ClientBound, RestsOn: best.RestsOn()}
}
