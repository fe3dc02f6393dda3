//go:build integration

package main

import (
	"strings"
	"testing"
)

// TestScenarioMaxPartitions runs max-partitions' short mode on the shared cluster: steps of 100
// partitions stopped by the short mode's stop-at 300, long before any OS limit; the brokers'
// maps per partition measured near the model's 2 or below it.
func TestScenarioMaxPartitions(t *testing.T) {
	up(t)
	res, _ := runScenario(t, "max-partitions", clusterDir, nil)
	f := map[string]float64{}
	for _, x := range res.Findings {
		f[x.Name] = x.Value
		t.Logf("finding %s: %.4g %s %s", x.Name, x.Value, x.Unit, x.Text)
		if x.Name == "partitions reached" && !strings.Contains(x.Text, "stop-at") {
			t.Errorf("the climb ended %q, want the stop-at rule", x.Text)
		}
	}
	t.Logf("config %v", res.Config)
	if f["partitions reached"] != 300 || len(res.Failures) > 0 {
		t.Fatalf("reached %v, failures %v: want 300, none", f["partitions reached"], res.Failures)
	}
	// Kafka maps a segment's indexes when first used (LazyIndex), so fresh empty partitions may
	// hold fewer than the model's 2: 1.66 measured at 100 per broker (Kafka 4.1.0).
	if m := f["memory maps per partition, measured"]; m < 1 || m > 3 {
		t.Errorf("maps per partition %.2f, want between 1 and the model's 2, and not far above", m)
	}
	if f["predicted ceiling"] < 1000 {
		t.Errorf("predicted ceiling %v: want the host's limits read", f["predicted ceiling"])
	}
	if f["KRaft 4.1.0 healthy afterwards"] != 1 {
		t.Error("the cluster is not healthy after the climb")
	}
}
