package model

import (
	"fmt"
	"math"
	"slices"
)

// Measured is one broker's traffic as observed on a real cluster, bytes per second, from Kafka's
// own BrokerTopicMetrics: BytesIn (ProduceIn), ReplicationBytesIn, ReplicationBytesOut and
// BytesOut (ConsumeOut).
type Measured struct {
	Broker                                               int32
	ProduceIn, ReplicationIn, ReplicationOut, ConsumeOut float64
}

// Agreement compares one broker's measured network in and out with the model's.
type Agreement struct {
	Broker int32 `json:"broker"`
	// Predicted uses the balanced assignment the model assumes. Corrected uses the broker's
	// measured share of leader traffic (the producer's partitioner is never perfectly even):
	// out is that share times (r-1 + groups); in is that share plus the broker's following of
	// the others' traffic, (r-1)/(N-1) of it, as a uniform placement of replicas has it (exact
	// for r = N and r = 1). Neither repeats a measured figure, so either can disagree with it.
	// Network in and out, bytes per second.
	MeasuredIn   float64 `json:"measured_in_bytes_per_sec"`
	PredictedIn  float64 `json:"predicted_in_bytes_per_sec"`
	CorrectedIn  float64 `json:"corrected_in_bytes_per_sec"`
	MeasuredOut  float64 `json:"measured_out_bytes_per_sec"`
	PredictedOut float64 `json:"predicted_out_bytes_per_sec"`
	CorrectedOut float64 `json:"corrected_out_bytes_per_sec"`

	InError           float64 `json:"in_error"`            // (measured - predicted) / predicted
	OutError          float64 `json:"out_error"`           // likewise for network out
	CorrectedInError  float64 `json:"corrected_in_error"`  // with the measured leader share
	CorrectedOutError float64 `json:"corrected_out_error"` // with the measured leader share
}

// Against predicts each broker's network in and out for the traffic the cluster actually took
// (the sum of the brokers' ProduceIn) and compares them with what was measured. Brokers are
// matched to the balanced assignment's shares busiest first. c needs Brokers,
// ReplicationFactor, ConsumerGroups and, for uneven assignments, Partitions.
func Against(c Cluster, m []Measured) ([]Agreement, float64, error) {
	c = c.withDefaults()
	if err := c.validate(true); err != nil {
		return nil, 0, err
	}
	if len(m) != c.Brokers {
		return nil, 0, fmt.Errorf("%w: %d brokers measured, the model has %d", ErrInput, len(m), c.Brokers)
	}
	t := 0.0
	for _, b := range m {
		t += b.ProduceIn
	}
	if t <= 0 {
		return nil, 0, fmt.Errorf("%w: the brokers took no produce traffic, nothing to compare", ErrInput)
	}
	order := slices.Clone(m)
	slices.SortStableFunc(order, func(a, b Measured) int {
		switch {
		case a.ProduceIn > b.ProduceIn:
			return -1
		case a.ProduceIn < b.ProduceIn:
			return 1
		}
		return int(a.Broker - b.Broker)
	})
	shares := BalancedShares(c.Brokers, c.Partitions, c.ReplicationFactor)
	out := make([]Agreement, 0, len(order))
	for i, b := range order {
		p := LoadFor(c, t, shares[i])
		corr := LoadFor(c, t, ShareOf(b.ProduceIn/t, followed(c, b.ProduceIn/t)))
		a := Agreement{Broker: b.Broker,
			MeasuredIn: b.ProduceIn + b.ReplicationIn, MeasuredOut: b.ReplicationOut + b.ConsumeOut,
			PredictedIn: p.NetworkIn, PredictedOut: p.NetworkOut, CorrectedIn: corr.NetworkIn, CorrectedOut: corr.NetworkOut}
		a.InError, a.OutError = relErr(a.MeasuredIn, a.PredictedIn), relErr(a.MeasuredOut, a.PredictedOut)
		a.CorrectedInError, a.CorrectedOutError = relErr(a.MeasuredIn, a.CorrectedIn), relErr(a.MeasuredOut, a.CorrectedOut)
		out = append(out, a)
	}
	slices.SortFunc(out, func(a, b Agreement) int { return int(a.Broker - b.Broker) })
	return out, t, nil
}

// followed is the share of the cluster's produce traffic a broker follows when it leads the
// share lead: of the traffic the other brokers lead, the fraction (r-1)/(N-1) of their
// partitions it holds a replica of, placed uniformly.
func followed(c Cluster, lead float64) float64 {
	if c.Brokers < 2 {
		return 0
	}
	return float64(c.ReplicationFactor-1) / float64(c.Brokers-1) * (1 - lead)
}

// relErr is (measured - predicted) / predicted; 0 when both are 0, +Inf when only predicted is.
func relErr(measured, predicted float64) float64 {
	if predicted == 0 {
		if measured == 0 {
			return 0
		}
		return math.Inf(1)
	}
	return (measured - predicted) / predicted
}

// MaxErrors is the largest relative error, in or out, over the brokers: with the balanced
// assignment the model assumes, and with each broker's measured leader share.
func MaxErrors(ag []Agreement) (balanced, corrected float64) {
	for _, a := range ag {
		balanced = math.Max(balanced, math.Max(math.Abs(a.InError), math.Abs(a.OutError)))
		corrected = math.Max(corrected, math.Max(math.Abs(a.CorrectedInError), math.Abs(a.CorrectedOutError)))
	}
	return balanced, corrected
}

// Comparison is the model held against one measured span, as `model --against` and `watch`
// report it: the cluster the model assumed, the produce traffic the brokers took, each broker's
// agreement and the largest errors (MaxErrors).
type Comparison struct {
	Brokers            int         `json:"brokers"`
	ReplicationFactor  int         `json:"replication_factor"`
	ConsumerGroups     int         `json:"consumer_groups"`
	ProduceBytesPerSec float64     `json:"produce_bytes_per_sec"`
	PerBroker          []Agreement `json:"per_broker"`
	MaxError           float64     `json:"max_error"`
	MaxCorrectedError  float64     `json:"max_corrected_error"`
}

// Compare runs Against and summarises it as a Comparison of c.
func Compare(c Cluster, m []Measured) (Comparison, error) {
	ag, t, err := Against(c, m)
	if err != nil {
		return Comparison{}, err
	}
	cmp := Comparison{Brokers: c.Brokers, ReplicationFactor: c.ReplicationFactor, ConsumerGroups: c.ConsumerGroups,
		ProduceBytesPerSec: t, PerBroker: ag}
	cmp.MaxError, cmp.MaxCorrectedError = MaxErrors(ag)
	return cmp, nil
}
