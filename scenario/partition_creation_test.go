package scenario

import (
	"context"
	"strings"
	"testing"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/plimsoll/plimsoll/results"
)

func TestPartitionCreationOnFake(t *testing.T) {
	dir, fc := fakeCluster(t, 3)
	env, cmds := clockEnv(t, dir)
	res := executeOnFake(t, "partition-creation", env, map[string]string{"target": "250"})
	if len(*cmds) != 0 {
		t.Errorf("commands %v: the --cluster-dir cluster matches kraft-4.1.0, nothing should be started", *cmds)
	}
	seen, back := res.Charts[0].Series[0], res.Charts[1].Series[0]
	// Each increment reads the clock at the request, its return and when every broker saw it.
	want := []struct{ x, seen, back float64 }{{100, 2, 1}, {200, 2, 1}, {250, 2, 1}}
	if seen.Name != "KRaft 4.1.0" || len(seen.Points) != len(want) {
		t.Fatalf("series %+v: want 3 increments to 250 on KRaft 4.1.0", seen)
	}
	for i, w := range want {
		if seen.Points[i].X != w.x || seen.Points[i].Y != w.seen || back.Points[i].Y != w.back {
			t.Errorf("increment %d: %+v / %+v, want %+v", i, seen.Points[i], back.Points[i], w)
		}
	}
	if len(res.Failures) != 0 || res.Findings[0].Value != 1 || !strings.Contains(res.Findings[0].Text, "all 3 brokers answer and see a leader for each of the scenario's 550 partitions") {
		t.Errorf("failures %v, findings %+v: want none, healthy", res.Failures, res.Findings)
	}
	// The fake clock makes every increment take 2 s, so the warm-up settles at its third: 300
	// untimed partitions, and the 250 charted.
	if res.Findings[1].Value != 20 { // 2 s per 100 partitions
		t.Errorf("seconds per 1,000 at the first increment %v, want 20", res.Findings[1].Value)
	}
	leftover(t, fc, "plimsoll-pc-")
}

// creationRun runs partition-creation to 250 partitions on the full mode's three clusters: a
// kfake KRaft 4.1.0 given by --cluster-dir, and KRaft 3.9.1 and ZooKeeper 3.9.1 that it starts
// (more kfakes, through a fake cluster up): the record the report's golden file shows
// (TestReportGolden). It returns the record, the environment and the fakes, the given one first.
func creationRun(t *testing.T) (results.Scenario, *Env, []*kfake.Cluster) {
	t.Helper()
	dir, fc := fakeCluster(t, 3)
	env, _ := clockEnv(t, dir)
	fakes := []*kfake.Cluster{fc}
	env.Exec = fakeUp(t, &fakes)
	res := executeOnFake(t, "partition-creation", env, map[string]string{"target": "250", "clusters": "kraft-4.1.0,kraft-3.9.1,zookeeper-3.9.1"})
	return res, env, fakes
}

// TestPartitionCreationClusters: each cluster --cluster-dir does not match is started below Out
// and stopped; each climbs, and ZooKeeper's time is set against KRaft's on the same release.
func TestPartitionCreationClusters(t *testing.T) {
	res, env, fakes := creationRun(t)
	var ran []string
	for _, c := range res.Commands {
		ran = append(ran, strings.Join(c.Args[:2], " ")+" "+strings.TrimPrefix(flagOf(c.Args, "--cluster-dir"), env.Out))
	}
	if want := "cluster up /cluster-kraft-3.9.1|cluster down /cluster-kraft-3.9.1|cluster up /cluster-zookeeper-3.9.1|cluster down /cluster-zookeeper-3.9.1"; strings.Join(ran, "|") != want || len(fakes) != 3 {
		t.Errorf("commands %q, %d clusters: want %q", ran, len(fakes), want)
	}
	if ch := res.Charts[0]; len(ch.Series) != 3 || ch.Series[2].Name != "ZooKeeper 3.9.1" || len(ch.Series[2].Points) != 3 || len(res.Failures) != 0 {
		t.Errorf("series %+v, failures %v: want 3 increments on each cluster, ZooKeeper 3.9.1 last", ch.Series, res.Failures)
	}
	if f := findingNamed(t, res, "ZooKeeper / KRaft mean increment time, Kafka 3.9.1"); f.Value != 1 {
		t.Errorf("ratio %+v: want 1, every increment 2 clock readings on both", f)
	}
	for _, f := range fakes {
		leftover(t, f, "plimsoll-pc-")
	}
}

// leftover fails the test if a topic under prefix is left on the fake, or one outside it is gone.
func leftover(t *testing.T, fc *kfake.Cluster, prefix string) {
	t.Helper()
	cl, _ := kgo.NewClient(kgo.SeedBrokers(fc.ListenAddrs()...))
	defer cl.Close()
	td, err := kadm.NewClient(cl).ListTopics(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range td.Names() {
		if strings.HasPrefix(n, prefix) {
			t.Errorf("topic %s left behind", n)
		}
	}
	if !td.Has("theirs") {
		t.Errorf("topics %v: the user's topic theirs was touched", td.Names())
	}
}

func TestPartitionCreationGrow(t *testing.T) {
	dir, fc := fakeCluster(t, 3)
	env, _ := clockEnv(t, dir)
	s, _ := Lookup("partition-creation")
	p, _ := Resolve(s, Short, map[string]string{"method": "partitions", "keep": "true"})
	res, err := s.Run(context.Background(), env, p)
	if err != nil || len(res.Failures) > 0 || len(res.Charts[0].Series[0].Points) != 4 {
		t.Fatalf("error %v, failures %v, chart %+v: want 4 increments", err, res.Failures, res.Charts)
	}
	cl, _ := kgo.NewClient(kgo.SeedBrokers(fc.ListenAddrs()...))
	defer cl.Close()
	td, _ := kadm.NewClient(cl).ListTopics(context.Background())
	grown := 0
	for _, d := range td.Sorted() {
		if strings.HasSuffix(d.Topic, "-grown") {
			grown = len(d.Partitions)
		}
	}
	if grown != 400 {
		t.Errorf("the grown topic has %d partitions, want 400", grown)
	}
}

// TestZKOverKRaftEmpty: a series left empty by an interrupted run gives no ratio (a NaN would
// make the record unwritable; the full run at 08:38 lost its record so).
func TestZKOverKRaftEmpty(t *testing.T) {
	ch := results.Chart{Series: []results.Series{
		{Name: "KRaft 3.9.1", Points: []results.Point{{X: 1000, Y: 3}}},
		{Name: "ZooKeeper 3.9.1"},
	}}
	if got := zkOverKRaft(ch); len(got) != 0 {
		t.Errorf("findings %+v: want none with the ZooKeeper series empty", got)
	}
	ch.Series[1].Points = []results.Point{{X: 1000, Y: 6}}
	if got := zkOverKRaft(ch); len(got) != 1 || got[0].Value != 2 {
		t.Errorf("findings %+v: want a ratio of 2", got)
	}
}

func TestPartitionCreationChecks(t *testing.T) {
	s, _ := Lookup("partition-creation")
	for _, tc := range []struct {
		set  map[string]string
		want string
	}{
		{map[string]string{"clusters": "zookeeper-4.1.0"}, "Kafka 4.1.0 has no ZooKeeper mode"},
		{map[string]string{"clusters": "etcd-3.9.1"}, "MODE-VERSION"},
		{map[string]string{"increment": "500"}, "larger than target"},
		{map[string]string{"target": "10M"}, "vm.max_map_count"},
		{map[string]string{"rf": "0"}, "--set rf=0"},
		{map[string]string{"method": "alter"}, "--set method=alter"},
	} {
		env, _ := clockEnv(t, "")
		_, err := Execute(context.Background(), s, env, tc.set)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v: error %v, want %q", tc.set, err, tc.want)
		}
	}
	env, _ := clockEnv(t, t.TempDir())
	if _, err := Execute(context.Background(), s, env, nil); err == nil || !strings.Contains(err.Error(), "--cluster-dir") {
		t.Errorf("an empty --cluster-dir: error %v, want one naming --cluster-dir", err)
	}
}

func TestWarmUpSettled(t *testing.T) {
	for _, tc := range []struct {
		took []float64
		want bool
	}{
		{nil, false},
		{[]float64{1}, false},
		{[]float64{1, 1}, false}, // one step proves too little
		{[]float64{2.07, 1.39, 1.22}, false},
		{[]float64{2.07, 1.39, 1.22, 1.26}, false}, // 1.22 was 12% faster than 1.39
		{[]float64{2.07, 1.39, 1.22, 1.26, 1.34}, true},
		{[]float64{2.94, 2.99, 2.64}, false}, // a slow second increment, then warming again
		{[]float64{2.94, 2.99, 2.64, 1.70, 1.68}, false},
		{[]float64{2.94, 2.99, 2.64, 1.70, 1.68, 1.66}, true},
		{[]float64{1, 0.9, 0.81}, true}, // exactly 1-settle of the one before, twice
		{[]float64{1, 0.9, 0.80}, false},
		{[]float64{0.5, 0.7, 0.9}, true}, // slower: not speeding up
	} {
		if got := settled(tc.took, 0.1); got != tc.want {
			t.Errorf("settled(%v, 0.1) = %v, want %v", tc.took, got, tc.want)
		}
	}
}
