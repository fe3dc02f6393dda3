package report

import (
	"strings"
	"testing"

	"github.com/plimsoll/plimsoll/model"
)

// TestAgainst: the table has a row per broker, and the link overhead line appears only when
// the run measured one.
func TestAgainst(t *testing.T) {
	c := model.Cluster{Brokers: 3, ReplicationFactor: 3, ConsumerGroups: 1}
	m := []model.Measured{{Broker: 1, ProduceIn: 1e6, ReplicationIn: 2e6, ReplicationOut: 2e6, ConsumeOut: 1e6},
		{Broker: 2, ProduceIn: 1e6, ReplicationIn: 2e6, ReplicationOut: 2e6, ConsumeOut: 1e6},
		{Broker: 3, ProduceIn: 1e6, ReplicationIn: 2e6, ReplicationOut: 2e6, ConsumeOut: 1e6}}
	ag, produced, err := model.Against(c, m)
	if err != nil {
		t.Fatal(err)
	}
	for _, o := range []float64{0, 0.118} {
		c.LinkOverhead = o
		var b strings.Builder
		if err := Against(&b, "run-a", c, produced, ag); err != nil {
			t.Fatal(err)
		}
		out := b.String()
		const line = "the emulated links carried 11.8% more than these record bytes (headers, acknowledgements, requests): plimsoll model --link-overhead 0.118"
		if strings.Contains(out, line) != (o > 0) || strings.Count(out, "\n") < 5 {
			t.Errorf("overhead %v:\n%s", o, out)
		}
	}
}
