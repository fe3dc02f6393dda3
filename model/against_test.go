package model

import (
	"math"
	"testing"
)

func TestAgainst(t *testing.T) {
	c := Cluster{Brokers: 3, Partitions: 30, ReplicationFactor: 3, ConsumerGroups: 2}
	// A perfect cluster: 3 MB/s produced, every broker leads a third.
	perfect := []Measured{
		{Broker: 1, ProduceIn: 1e6, ReplicationIn: 2e6, ReplicationOut: 2e6, ConsumeOut: 2e6},
		{Broker: 2, ProduceIn: 1e6, ReplicationIn: 2e6, ReplicationOut: 2e6, ConsumeOut: 2e6},
		{Broker: 3, ProduceIn: 1e6, ReplicationIn: 2e6, ReplicationOut: 2e6, ConsumeOut: 2e6},
	}
	ag, total, err := Against(c, perfect)
	if err != nil || total != 3e6 {
		t.Fatalf("Against = %v, %v, %v", ag, total, err)
	}
	for _, a := range ag {
		if a.InError != 0 || a.OutError != 0 || a.PredictedIn != 3e6 || a.PredictedOut != 4e6 {
			t.Errorf("perfect cluster broker %d: %+v", a.Broker, a)
		}
	}
	// A skewed leader share: the balanced prediction is off, the corrected one is exact.
	skewed := []Measured{
		{Broker: 1, ProduceIn: 1.1e6, ReplicationIn: 1.9e6, ReplicationOut: 2.2e6, ConsumeOut: 2.2e6},
		{Broker: 2, ProduceIn: 1.0e6, ReplicationIn: 2.0e6, ReplicationOut: 2.0e6, ConsumeOut: 2.0e6},
		{Broker: 3, ProduceIn: 0.9e6, ReplicationIn: 2.1e6, ReplicationOut: 1.8e6, ConsumeOut: 1.8e6},
	}
	ag, _, err = Against(c, skewed)
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(ag[0].OutError-0.1) > 1e-9 || math.Abs(ag[2].OutError+0.1) > 1e-9 {
		t.Errorf("skewed out errors: %+v %+v", ag[0], ag[2])
	}
	for _, a := range ag {
		if math.Abs(a.CorrectedInError) > 1e-9 || math.Abs(a.CorrectedOutError) > 1e-9 {
			t.Errorf("corrected prediction should be exact: %+v", a)
		}
	}
	// The corrected prediction of network in is a prediction: followers that do not take the
	// traffic the leaders send (replication falling behind on broker 3) show as an error there.
	behind := append([]Measured(nil), skewed...)
	behind[2].ReplicationIn = 1.5e6
	ag, _, err = Against(c, behind)
	if err != nil {
		t.Fatal(err)
	}
	if want := (2.4e6 - 3e6) / 3e6; math.Abs(ag[2].CorrectedInError-want) > 1e-9 || ag[0].CorrectedInError != 0 {
		t.Errorf("broker 3 follows 1.5 of the 2.1 MB/s the others lead: corrected in errors %v, %v; want %v on broker 3 only",
			ag[0].CorrectedInError, ag[2].CorrectedInError, want)
	}
	// With r < N a broker follows (r-1)/(N-1) of what the others lead.
	c4 := Cluster{Brokers: 4, Partitions: 40, ReplicationFactor: 2}
	four := []Measured{
		{Broker: 1, ProduceIn: 1.3e6, ReplicationIn: 0.9e6, ReplicationOut: 1.3e6},
		{Broker: 2, ProduceIn: 1.0e6, ReplicationIn: 1.0e6, ReplicationOut: 1.0e6},
		{Broker: 3, ProduceIn: 0.9e6, ReplicationIn: 31e5 / 3, ReplicationOut: 0.9e6},
		{Broker: 4, ProduceIn: 0.8e6, ReplicationIn: 3.2e6 / 3, ReplicationOut: 0.8e6},
	}
	ag, _, err = Against(c4, four)
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range ag {
		if math.Abs(a.CorrectedInError) > 1e-9 || math.Abs(a.CorrectedOutError) > 1e-9 {
			t.Errorf("r=2 of 4 brokers, uniform placement: %+v", a)
		}
	}
	if _, _, err := Against(c, perfect[:2]); err == nil {
		t.Error("2 measured brokers for a 3-broker model accepted")
	}
	if _, _, err := Against(c, []Measured{{Broker: 1}, {Broker: 2}, {Broker: 3}}); err == nil {
		t.Error("no traffic accepted")
	}
}

// TestCompare: the summary carries the cluster as given, the traffic and the largest errors.
func TestCompare(t *testing.T) {
	c := Cluster{Brokers: 3, Partitions: 30, ReplicationFactor: 3, ConsumerGroups: 2}
	m := []Measured{
		{Broker: 1, ProduceIn: 1.1e6, ReplicationIn: 1.9e6, ReplicationOut: 2.2e6, ConsumeOut: 2.2e6},
		{Broker: 2, ProduceIn: 1.0e6, ReplicationIn: 2.0e6, ReplicationOut: 2.0e6, ConsumeOut: 2.0e6},
		{Broker: 3, ProduceIn: 0.9e6, ReplicationIn: 2.1e6, ReplicationOut: 1.8e6, ConsumeOut: 1.8e6},
	}
	cmp, err := Compare(c, m)
	if err != nil {
		t.Fatal(err)
	}
	if cmp.Brokers != 3 || cmp.ReplicationFactor != 3 || cmp.ConsumerGroups != 2 || cmp.ProduceBytesPerSec != 3e6 || len(cmp.PerBroker) != 3 {
		t.Errorf("comparison %+v: want the cluster as given, 3 MB/s and three brokers", cmp)
	}
	if math.Abs(cmp.MaxError-0.1) > 1e-9 || cmp.MaxCorrectedError > 1e-9 {
		t.Errorf("max errors %v, %v: want 0.1 balanced, 0 corrected", cmp.MaxError, cmp.MaxCorrectedError)
	}
	if _, err := Compare(c, m[:2]); err == nil {
		t.Error("two brokers measured against a model of three: no error")
	}
}
