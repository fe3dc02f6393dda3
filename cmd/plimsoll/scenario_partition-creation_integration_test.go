//go:build integration

package main

import (
	"strings"
	"testing"

	"github.com/plimsoll/plimsoll/results"
)

// scenpartsSeries returns the points of the series called name on the chart titled title.
func scenpartsSeries(t *testing.T, res results.Scenario, title, name string) []results.Point {
	t.Helper()
	for _, c := range res.Charts {
		for _, s := range c.Series {
			if c.Title == title && s.Name == name {
				return s.Points
			}
		}
	}
	t.Fatalf("no series %q on a chart %q in %+v", name, title, res.Charts)
	return nil
}

// TestScenarioPartitionCreation runs partition-creation's short mode on the shared cluster
// (KRaft 4.1.0, 3 brokers) and on two 1-broker Kafka 3.9.1 clusters it starts, KRaft and
// ZooKeeper: three increments of 100 partitions at rf 1 on each. The sane shape: on each
// cluster, creation time per increment does not fall as the total grows; the check is that the
// last increment takes at least half as long as the first (see risesOrHolds).
func TestScenarioPartitionCreation(t *testing.T) {
	st := up(t)
	res, _ := runScenario(t, "partition-creation", clusterDir, map[string]string{
		"clusters": "kraft-" + st.KafkaVersion + ",kraft-3.9.1,zookeeper-3.9.1", "brokers": "1", "heap": "512m"})
	for _, name := range []string{"KRaft " + st.KafkaVersion, "KRaft 3.9.1", "ZooKeeper 3.9.1"} {
		pts := scenpartsSeries(t, res, "Time to create each increment until every broker sees it", name)
		for _, p := range pts {
			t.Logf("%s: %g partitions: %.3f s %s", name, p.X, p.Y, p.Note)
		}
		if len(pts) != 4 || pts[3].X != 400 {
			t.Fatalf("%s: points %+v: want 4 increments to 400 partitions", name, pts)
		}
		if !risesOrHolds(pts) {
			t.Errorf("%s: creation time per increment fell as partitions grew: %+v", name, pts)
		}
	}
	if len(res.Failures) > 0 {
		t.Errorf("failures %v: want none at 400 partitions", res.Failures)
	}
	for _, f := range res.Findings {
		t.Logf("finding %s: %.3g %s %s", f.Name, f.Value, f.Unit, f.Text)
		if strings.HasSuffix(f.Name, "healthy afterwards") && f.Value != 1 {
			t.Errorf("%s: %s", f.Name, f.Text)
		}
	}
}

// risesOrHolds is the sane shape of creation time against total partitions: the last two
// increments take at least half as long as the first two, on the mean. Increments of 100 are a
// second or so, where the host's noise is large: after the scenario's warm-up had settled, one
// increment took from 0.52 to 1.22 times the time of the one two before it (three runs of this
// test, three clusters each), and a fresh broker's JVM still speeds up slowly past its warm-up
// (docs/scenarios.md). The means of two increments halve that spread's effect on the check,
// while a fall to half would still fail it.
func risesOrHolds(pts []results.Point) bool {
	n := len(pts)
	return pts[n-1].Y+pts[n-2].Y >= 0.5*(pts[0].Y+pts[1].Y)
}
