package scenario

import (
	"context"
	"strings"
	"testing"

	"github.com/twmb/franz-go/pkg/kfake"

	"github.com/plimsoll/plimsoll/results"
)

// TestMaxPartitionsStopAt climbs on kfake (the brokers' pid is this test's) with the short
// mode's low stop: three steps of 100, then the stop-at rule, every topic deleted after.
func TestMaxPartitionsStopAt(t *testing.T) {
	dir, fc := fakeCluster(t, 3)
	env, _ := clockEnv(t, dir)
	s, _ := Lookup("max-partitions")
	p, _ := Resolve(s, Short, nil)
	res, err := s.Run(context.Background(), env, p)
	if err != nil {
		t.Fatal(err)
	}
	maps := res.Charts[0].Series[0]
	if len(maps.Points) != 3 || maps.Points[2].X != 300 || len(res.Failures) != 0 {
		t.Fatalf("maps %+v, failures %v: want 3 steps to 300, none failed", maps.Points, res.Failures)
	}
	f := findings(res.Findings)
	if f["partitions reached"].Value != 300 || !strings.Contains(f["partitions reached"].Text, "stop-at") {
		t.Errorf("reached %+v: want 300, stopped by stop-at", f["partitions reached"])
	}
	if pr := f["predicted ceiling"]; pr.Value <= 0 || pr.Model == nil || *pr.Model <= 0 {
		t.Errorf("prediction %+v: want one, with the model's map rule beside it", pr)
	}
	for _, k := range []string{"vm.max_map_count", "open files limit", "broker heap"} {
		if res.Config[k] == "" {
			t.Errorf("config %v lacks %s", res.Config, k)
		}
	}
	leftover(t, fc, "plimsoll-mp-")
}

// maxPartitionsRun climbs on kfake in short mode without stop-at, the brokers' use and the host's
// limits read from a fake of known figures: each broker starts with 600 maps and 300 descriptors
// and each partition replica costs 2 of each (002's rules), under vm.max_map_count 1,500 and
// 4,096 open files, so the stop rule ends the climb on the memory maps. It is the record the
// report's golden file shows (TestReportGolden).
func maxPartitionsRun(t *testing.T) (results.Scenario, *Env, *kfake.Cluster) {
	t.Helper()
	dir, fc := fakeCluster(t, 3)
	env, _ := clockEnv(t, dir)
	reads := 0
	old := climbReadings
	t.Cleanup(func() { climbReadings = old })
	climbReadings.use = func(int) (brokerUse, error) {
		replicas := 2 * (reads / 3) * 100 / 3 // 100 partitions a step over 3 brokers, 2 each
		reads++
		return brokerUse{maps: 600 + replicas, fds: 300 + replicas}, nil
	}
	climbReadings.limits = func(int, string) (hostLimits, error) {
		return hostLimits{MaxMapCount: 1500, OpenFiles: 4096, DiskFree: 50e9}, nil
	}
	return executeOnFake(t, "max-partitions", env, map[string]string{"stop-at": "0"}), env, fc
}

// TestMaxPartitionsMapsBind: the climb on the fake's figures stops before the step that would
// pass 90% of vm.max_map_count (1,350 maps: 1,100 partitions, 1,333 maps; 1,200 would be 1,400).
func TestMaxPartitionsMapsBind(t *testing.T) {
	res, _, fc := maxPartitionsRun(t)
	f := findings(res.Findings)
	if r := f["partitions reached"]; r.Value != 1100 || !strings.Contains(r.Text, "vm.max_map_count: the next step would take a broker to 1,400 maps") {
		t.Errorf("reached %+v: want 1,100, stopped by the maps", r)
	}
	if m := f["memory maps per partition, measured"]; m.Value < 1.99 || m.Value > 2.01 {
		t.Errorf("maps per partition %+v, want 2", m)
	}
	leftover(t, fc, "plimsoll-mp-")
}

func findings(fs []results.Finding) map[string]results.Finding {
	out := map[string]results.Finding{}
	for _, f := range fs {
		out[f.Name] = f
	}
	return out
}

// TestStopBefore: the stop rule against each limit, at the costs measured or, before any step,
// the rules' two maps and one descriptor per partition.
func TestStopBefore(t *testing.T) {
	c := climbPlan{step: 1000, stopShare: 0.9}
	for _, tc := range []struct {
		name string
		s    climbState
		c    climbPlan
		want string
	}{
		// 1,000 more partitions on 1 broker: 2,000 maps over 5,000 -> 7,000 > 0.9 x 7,500.
		{"maps", climbState{limits: hostLimits{MaxMapCount: 7500, OpenFiles: 1 << 20}, pids: []int{1}, start: []brokerUse{{5000, 100}}, now: []brokerUse{{5000, 100}}}, c, "vm.max_map_count"},
		// 1,000 more partitions on 1 broker: 1,000 descriptors over 100 -> 1,100 > 0.9 x 1,200.
		{"files", climbState{limits: hostLimits{MaxMapCount: 1 << 20, OpenFiles: 1200}, pids: []int{1}, start: []brokerUse{{500, 100}}, now: []brokerUse{{500, 100}}}, c, "open files"},
		// measured: 1 descriptor per partition (2,000 over 2,000 replicas), so 1,000 more reach 3,100 < 0.9 x 3,500
		{"files measured", climbState{limits: hostLimits{MaxMapCount: 1 << 20, OpenFiles: 3500}, pids: []int{1}, total: 2000, start: []brokerUse{{500, 100}}, now: []brokerUse{{4500, 2100}}}, c, ""},
		{"room", climbState{limits: hostLimits{MaxMapCount: 65530, OpenFiles: 20000}, pids: []int{1, 2}, start: []brokerUse{{500, 100}, {500, 100}}, now: []brokerUse{{500, 100}, {500, 100}}}, c, ""},
		{"unsafe", climbState{limits: hostLimits{MaxMapCount: 600, OpenFiles: 20000}, pids: []int{1}, start: []brokerUse{{500, 100}}, now: []brokerUse{{500, 100}}}, climbPlan{step: 1000, stopShare: 0.9, unsafe: true}, ""},
		{"stop-at", climbState{limits: hostLimits{MaxMapCount: 65530, OpenFiles: 20000}, pids: []int{1}, total: 2000, start: []brokerUse{{500, 100}}, now: []brokerUse{{4500, 2100}}}, climbPlan{step: 1000, stopShare: 0.9, stopAt: 2500}, "stop-at"},
	} {
		got := tc.s.stopBefore(tc.c)
		if (tc.want == "") != (got == "") || !strings.Contains(got, tc.want) {
			t.Errorf("%s: stop %q, want %q", tc.name, got, tc.want)
		}
	}
}

func TestMaxPartitionsChecks(t *testing.T) {
	s, _ := Lookup("max-partitions")
	for _, tc := range []struct {
		set  map[string]string
		want string
	}{
		{map[string]string{"stop-share": "2"}, "--set stop-share=2"},
		{map[string]string{"cluster": "kraft-4.1.0,kraft-3.9.1"}, "give one cluster"},
		{map[string]string{"step": "0"}, "--set step=0"},
	} {
		env, _ := clockEnv(t, "")
		if _, err := Execute(context.Background(), s, env, tc.set); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v: error %v, want %q", tc.set, err, tc.want)
		}
	}
}

func TestCloseness(t *testing.T) {
	for _, tc := range []struct {
		stop, failure string
		want          float64
		text          string
	}{
		{"", "the step to 20,000 partitions failed", 0.5, "first failure"},
		{"open files: the next step would ...", "", 0.5 / 0.9, "stop point predicted"},
		{"stop-at: the next step would pass 300 partitions", "", 0.5, "did not test"},
	} {
		f := closeness(10000, 20000, 0.9, tc.stop, tc.failure)
		if f.Value != tc.want || !strings.Contains(f.Text, tc.text) {
			t.Errorf("stop %q failure %q: %+v, want %v and %q", tc.stop, tc.failure, f, tc.want, tc.text)
		}
	}
}
