package scenario

import (
	"context"
	"fmt"
	"math"
	"path/filepath"
	"strings"
	"testing"

	"github.com/plimsoll/plimsoll/results"
)

// partitionsReplay answers each run with the result.json of a real run of as many partitions:
// the short mode's on the integration tests' shared 3-broker loopback cluster of this 2-core
// host (rf 2, 1,000 B, 4 producers, lz4, 64 KiB batches, 1 MiB buffer.memory).
func partitionsReplay(t *testing.T) *replay {
	return &replay{t: t, pick: func(args []string) (string, string) {
		return filepath.Join("testdata/partitions-throughput", "partitions-"+flagOf(args, "--partitions"), "result.json"), "result.json"
	}}
}

// partitionsRun runs partitions-throughput in short mode on the recorded runs; its record is the
// one the report's golden file shows (TestReportGolden).
func partitionsRun(t *testing.T) (results.Scenario, *replay, *Env) {
	t.Helper()
	r := partitionsReplay(t)
	env := replayEnv(t, "testdata/cluster-loopback", r)
	s, _ := Lookup("partitions-throughput")
	res, err := Execute(context.Background(), s, env, nil)
	if err != nil || len(res.Failures) > 0 {
		t.Fatalf("%v %v", err, res.Failures)
	}
	return res, r, env
}

func TestPartitionsThroughput(t *testing.T) {
	res, r, _ := partitionsRun(t)
	var asked []string
	for _, args := range r.seen {
		asked = append(asked, flagOf(args, "--partitions"))
		for _, want := range []string{"--rate 0", "--replication-factor 2", "--consumer-groups 0", "compression.type=lz4", "linger.ms=5", "batch.size=65536", "buffer.memory=1048576"} {
			if !strings.Contains(strings.Join(args, " "), want) {
				t.Errorf("run %v: want %s", args, want)
			}
		}
	}
	if strings.Join(asked, ",") != "3,24" {
		t.Errorf("partitions run %v, want 3,24 (1 and 8 per broker)", asked)
	}
	perBroker := chartNamed(t, res, "Sustained rate against leader partitions per broker")
	// The recorded runs produced 3,920 and 5,740 msgs/s, p99 2,482 and 1,143 ms.
	if pts := perBroker.Series[0].Points; len(pts) != 2 || pts[0].X != 1 || pts[1].X != 8 || math.Abs(pts[1].Y-5740.19/3) > 0.1 || pts[0].Note != "invalid" {
		t.Errorf("per-broker points %+v: want 1 and 8, 1,913 msgs/s at 8, the first judged invalid", pts)
	}
	if a := perBroker.Series[1]; a.Kind != "article" || len(a.Points) != 4 || !strings.HasPrefix(a.Source, "000") {
		t.Errorf("article series %+v: want Netflix's four points", a)
	}
	total := chartNamed(t, res, "p99 publish latency against total partitions")
	if pts := total.Series[0].Points; !total.LogX || len(pts) != 2 || pts[1].X != 24 || math.Abs(pts[1].Y-1142.8) > 0.1 {
		t.Errorf("total chart %+v: want 2 points on a log axis, 1,143 ms at 24", total)
	}
	if f := findingNamed(t, res, "throughput peaks at"); f.Value != 24 || !strings.Contains(f.Text, "the runs at 3 partitions were judged invalid") {
		t.Errorf("peak %+v, want 24 partitions, the run at 3 named invalid", f)
	}
	if f := findingNamed(t, res, "rate at 8 / at 1 leader partitions per broker"); math.Abs(f.Value-1.4644) > 0.0001 || *f.Article != 1.35 {
		t.Errorf("serialisation %+v: want 1.464 beside 000's 1.35", f)
	}
	for _, f := range res.Findings {
		if f.Name == "p99 latency turns up from" {
			t.Errorf("p99 fell from 3 to 24 partitions, yet %+v", f)
		}
	}
}

func TestPlanPartitions(t *testing.T) {
	p := Params{"leaders-per-broker": "1,2,4", "total-partitions": "1,6,10,12", "replication-factor": "2"}
	pl, err := planPartitions(p, 3)
	if err != nil || fmt.Sprint(pl.counts) != "[1 3 6 10 12]" || !pl.perBroker[6] || pl.perBroker[10] {
		t.Errorf("plan %+v (%v): want the union, ascending, once each; 3, 6 and 12 per broker", pl, err)
	}
}

func TestLatencyTurnsUp(t *testing.T) {
	pts := func(p99s ...float64) []ptPoint {
		var out []ptPoint
		for i, v := range p99s {
			out = append(out, ptPoint{partitions: 10 * (i + 1), p99: v})
		}
		return out
	}
	for _, tc := range []struct {
		p99s []float64
		at   int
		ok   bool
	}{
		{[]float64{5, 4, 4.5, 9}, 20, true},
		{[]float64{5, 6, 7}, 10, true},
		{[]float64{5, 9, 4}, 0, false},
		{[]float64{5}, 0, false},
	} {
		got, ok := latencyTurnsUp(pts(tc.p99s...))
		if ok != tc.ok || got.partitions != tc.at {
			t.Errorf("%v: turns up at %d (%v), want %d (%v)", tc.p99s, got.partitions, ok, tc.at, tc.ok)
		}
	}
}

func TestPartitionsChecks(t *testing.T) {
	if _, err := checkMapCount(3, 100_000, 2, 65530); err == nil || !strings.Contains(err.Error(), "66668 replicas on a broker, more than vm.max_map_count 65530 allows (32765") {
		t.Errorf("100,000 partitions under 65530 maps: %v", err)
	}
	if n, err := checkMapCount(3, 30_000, 2, 65530); err != nil || n != 20000 {
		t.Errorf("30,000 partitions at rf 2: %d replicas (%v), want 20000 and no error", n, err)
	}
	err := checkOpenFiles([]brokerFiles{{id: 2, limit: 20000, open: 900}}, 19200)
	if err == nil || !strings.Contains(err.Error(), "broker 2 may open 20000 files and holds 900; 19200 partition replicas need 19200 more") {
		t.Errorf("open files: %v", err)
	}
	if err := checkOpenFiles([]brokerFiles{{id: 2, limit: 20000, open: 900}}, 9000); err != nil {
		t.Errorf("9,000 replicas in 20,000 files: %v", err)
	}
	if err := checkFreeDisk(filepath.Join(t.TempDir(), "not", "yet"), "1000PB"); err == nil || !strings.Contains(err.Error(), "--set min-free-disk") {
		t.Errorf("1000 PB free: %v", err)
	}
	s, _ := Lookup("partitions-throughput")
	for set, want := range map[string]string{"replication-factor=4": "want 1 to the cluster's 3 brokers", "leaders-per-broker=0": "at least 1",
		"total-partitions=lots": "--set total-partitions=lots", "duration=long": "--set duration=long"} {
		k, v, _ := strings.Cut(set, "=")
		r := partitionsReplay(t)
		_, err := Execute(context.Background(), s, replayEnv(t, "testdata/cluster-loopback", r), map[string]string{k: v})
		if err == nil || !strings.Contains(err.Error(), want) || len(r.seen) > 0 {
			t.Errorf("--set %s: error %v after %d commands, want %q and none", set, err, len(r.seen), want)
		}
	}
}

// TestSerialisationCaveat: a ratio drawn from a run judged invalid (the generator set its rate)
// or from a run on a saturated shared host says which; one from runs the cluster bound on a host
// with CPU to spare says neither.
func TestSerialisationCaveat(t *testing.T) {
	pl := ptPlan{brokers: 3, perBroker: map[int]bool{3: true, 24: true}}
	for _, c := range []struct {
		states    [2]string
		hostBound [2]bool
		caveat    string
	}{
		{[2]string{"ok", "overloaded"}, [2]bool{}, ""},
		{[2]string{"invalid", "ok"}, [2]bool{}, invalidCaveat},
		{[2]string{"ok", "invalid"}, [2]bool{true, true}, invalidCaveat},
		{[2]string{"ok", "overloaded"}, [2]bool{false, true}, hostCaveat},
		{[2]string{"ok", "ok"}, [2]bool{true, false}, hostCaveat},
	} {
		pts := []ptPoint{{partitions: 3, msgs: 30000, p99: 5, state: c.states[0], hostBound: c.hostBound[0]},
			{partitions: 24, msgs: 36000, p99: 6, state: c.states[1], hostBound: c.hostBound[1]}}
		f := ptSerialisation(pts, pl)
		if len(f) != 1 || f[0].Value != 1.2 {
			t.Fatalf("states %v: finding %+v, want one, ratio 1.2", c.states, f)
		}
		for _, caveat := range []string{invalidCaveat, hostCaveat} {
			if strings.Contains(f[0].Text, caveat) != (caveat == c.caveat) {
				t.Errorf("states %v, host saturated %v: %q, want the caveat %q", c.states, c.hostBound, f[0].Text, c.caveat)
			}
		}
	}
}
