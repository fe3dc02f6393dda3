package watch

import (
	"math"

	"github.com/plimsoll/plimsoll/model"
	"github.com/plimsoll/plimsoll/use"
)

// ModelView is the capacity model's view of the interval's traffic: model.Against on the
// brokers' measured traffic, as `plimsoll model --against` does for a stored run.
type ModelView struct {
	// Comparison's ReplicationFactor and ConsumerGroups are inferred from the traffic, since
	// watch cannot know which topics carried it: 1 + replication bytes in / produce bytes in, and
	// consume bytes out / produce bytes in, summed over the brokers and rounded (a mix of topics
	// with different replication factors gives their traffic-weighted mean). Its PerBroker compares
	// each broker's measured network in and out with the model's, balanced (the assignment the
	// model assumes) and corrected (with the broker's measured leader share).
	model.Comparison
	// Over is the broker whose measured traffic exceeds the model's balanced figure the most, by
	// more than OverShare; nil when none does.
	Over *Over `json:"over,omitempty"`
}

// OverShare is how far above the model's balanced figure a broker's network in or out must be
// for watch to say it carries more than its share: 10%, above the few percent by which the
// model and Kafka's metrics differ on a balanced run (docs/model.md).
const OverShare = 0.10

// Over is a broker that carries more than its share, and why.
type Over struct {
	Broker int32 `json:"broker"`
	// Direction is "in" or "out"; Error is (measured - balanced) / balanced in that direction,
	// CorrectedError the same against the model given the broker's measured leader share.
	Direction      string  `json:"direction"`
	Error          float64 `json:"error"`
	CorrectedError float64 `json:"corrected_error"`
	// ProduceShare is its share of the produce traffic (what it leads); BalancedShare 1/brokers.
	ProduceShare  float64 `json:"produce_share"`
	BalancedShare float64 `json:"balanced_share"`
	// LeaderSkew: the leader share explains the excess (the corrected error is within
	// OverShare), so the partitions' leaders or the producers' keys are uneven, not the broker.
	LeaderSkew bool `json:"leader_skew"`
}

// modelView runs the model against the interval's traffic; nil with a note when it cannot.
func modelView(traffic []use.Traffic, brokers int) (*ModelView, string) {
	var produce, replIn, consume float64
	ms := make([]model.Measured, 0, len(traffic))
	for _, t := range traffic {
		produce += t.ProduceIn
		replIn += t.ReplicationIn
		consume += t.ConsumeOut
		ms = append(ms, model.Measured{Broker: t.Broker, ProduceIn: t.ProduceIn, ReplicationIn: t.ReplicationIn,
			ReplicationOut: t.ReplicationOut, ConsumeOut: t.ConsumeOut})
	}
	switch {
	case len(ms) == 0:
		return nil, "no broker metrics: the model needs Kafka's BrokerTopicMetrics from every broker"
	case len(ms) < brokers:
		return nil, "not every broker's metrics were read: the model compares whole clusters"
	case produce <= 0:
		return nil, "no produce traffic"
	}
	c := model.Cluster{Brokers: len(ms),
		ReplicationFactor: min(max(int(math.Round(1+replIn/produce)), 1), len(ms)),
		ConsumerGroups:    int(math.Round(consume / produce))}
	cmp, err := model.Compare(c, ms)
	if err != nil {
		return nil, err.Error()
	}
	v := &ModelView{Comparison: cmp}
	if math.IsInf(v.MaxError, 0) || math.IsInf(v.MaxCorrectedError, 0) {
		// JSON has no infinity: a broker measured traffic where the model, with the replication
		// factor and consumers inferred, predicts none (e.g. a little consuming, rounded to 0 groups).
		return nil, "the model predicts no traffic where some was measured (replication factor and consumer groups are inferred from the traffic and rounded)"
	}
	v.Over = over(cmp.PerBroker, traffic, cmp.ProduceBytesPerSec)
	return v, ""
}

// over finds the broker furthest above the model's balanced figure, in or out.
func over(ag []model.Agreement, traffic []use.Traffic, produce float64) *Over {
	var o *Over
	for _, a := range ag {
		for _, d := range []struct {
			dir       string
			err, corr float64
		}{{"in", a.InError, a.CorrectedInError}, {"out", a.OutError, a.CorrectedOutError}} {
			if d.err <= OverShare || (o != nil && d.err <= o.Error) {
				continue
			}
			o = &Over{Broker: a.Broker, Direction: d.dir, Error: d.err, CorrectedError: d.corr,
				BalancedShare: 1 / float64(len(ag)), LeaderSkew: math.Abs(d.corr) <= OverShare}
		}
	}
	if o != nil {
		for _, t := range traffic {
			if t.Broker == o.Broker {
				o.ProduceShare = t.ProduceIn / produce
			}
		}
	}
	return o
}
