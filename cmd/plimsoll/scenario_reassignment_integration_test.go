//go:build integration

package main

import (
	"testing"
)

// TestScenarioReassignment runs reassignment's short mode on the shared cluster: 100 partitions
// at rf 2, every replica on the last broker moved to the broker that lacks the partition, once
// empty and once holding 16 MB.
func TestScenarioReassignment(t *testing.T) {
	up(t)
	res, _ := runScenario(t, "reassignment", clusterDir, nil)
	pts := scenpartsSeries(t, res, "Time to move every replica off one broker", "KRaft 4.1.0")
	for _, p := range pts {
		t.Logf("%g MB: %.3f s %s", p.X, p.Y, p.Note)
	}
	if len(pts) != 2 || pts[0].X != 0 || pts[1].X != 16 || len(res.Failures) > 0 {
		t.Fatalf("points %+v, failures %v: want an empty and a 16 MB move, none failed", pts, res.Failures)
	}
	for _, p := range pts {
		if p.Y <= 0 || p.Note != "" {
			t.Errorf("move %+v: want a measured time, no note", p)
		}
	}
	for _, f := range res.Findings {
		t.Logf("finding %s: %.3g %s %s", f.Name, f.Value, f.Unit, f.Text)
		if f.Name == "KRaft 4.1.0 healthy afterwards" && f.Value != 1 {
			t.Errorf("%s", f.Text)
		}
	}
}
