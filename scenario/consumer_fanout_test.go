package scenario

import (
	"context"
	"fmt"
	"math"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/plimsoll/plimsoll/model"
	"github.com/plimsoll/plimsoll/results"
)

// fanoutReplay answers each run with the result.json of a real run of as many groups, recorded on
// 3 brokers behind emulated 16 Mbit/s NICs at 1.3 times the model's boundary (1,000 B messages).
func fanoutReplay(t *testing.T) *replay {
	return &replay{t: t, pick: func(args []string) (string, string) {
		if args[0] == "limit" {
			return "testdata/consumer-fanout/limit.jsonl", "results.jsonl"
		}
		return filepath.Join("testdata/consumer-fanout", "groups-"+flagOf(args, "--consumer-groups"), "result.json"), "result.json"
	}}
}

func chartNamed(t *testing.T, res results.Scenario, prefix string) results.Chart {
	t.Helper()
	for _, c := range res.Charts {
		if strings.HasPrefix(c.Title, prefix) {
			return c
		}
	}
	t.Fatalf("no chart %q in %+v", prefix, res.Charts)
	return results.Chart{}
}

func findingNamed(t *testing.T, res results.Scenario, name string) results.Finding {
	t.Helper()
	for _, f := range res.Findings {
		if f.Name == name {
			return f
		}
	}
	t.Fatalf("no finding %q in %+v", name, res.Findings)
	return results.Finding{}
}

// fanoutRun runs consumer-fanout in short mode on the recorded runs (or searches), with set; its
// record is the one the report's golden files show (TestReportGolden).
func fanoutRun(t *testing.T, set map[string]string) (results.Scenario, *replay, *Env) {
	t.Helper()
	r := fanoutReplay(t)
	env := replayEnv(t, "testdata/cluster-nic", r)
	s, _ := Lookup("consumer-fanout")
	res, err := Execute(context.Background(), s, env, set)
	if err != nil || len(res.Failures) > 0 {
		t.Fatalf("error %v, failures %v", err, res.Failures)
	}
	return res, r, env
}

func TestFanoutRuns(t *testing.T) {
	res, r, _ := fanoutRun(t, nil)
	// The rates asked for: 1.3 times the model's 1,975, 1,481 and 987 msgs/s.
	for i, want := range []string{"2567", "1925", "1284"} {
		if got := flagOf(r.seen[i], "--rate"); got != want {
			t.Errorf("run %d: --rate %s, want %s (%v)", i+1, got, want, r.seen[i])
		}
	}
	rate := chartNamed(t, res, "Sustainable rate")
	measured, model := rate.Series[0].Points, rate.Series[1].Points
	// Carried: produced with 0 groups, the groups' consumption per group with 2 and 4 (the
	// recorded runs produced 1,647, 1,107 and 769 msgs/s; consumed 2,184 and 3,014 in all).
	for i, want := range []float64{1647, 1092, 753} {
		if math.Abs(measured[i].Y-want) > 1 {
			t.Errorf("point %d: %.0f msgs/s, want about %.0f", i, measured[i].Y, want)
		}
	}
	if len(model) != 5 || math.Abs(model[4].Y-987.35) > 0.1 || model[4].Note != "network out" || model[0].Note != "network in" {
		t.Errorf("model line %+v: want 0..4 groups, 987 msgs/s and network out at 4", model)
	}
	if len(rate.Series) != 3 || !strings.Contains(rate.Series[2].Name, "framing") {
		t.Errorf("series %+v: want the model with the measured framing", rate.Series)
	}
	links := chartNamed(t, res, "The busiest broker's link")
	in, out := links.Series[0].Points, links.Series[1].Points
	if in[0].Y <= out[0].Y || out[2].Y <= in[2].Y {
		t.Errorf("links in %+v out %+v: want in busier with 0 groups, out with 4", in, out)
	}
	f := findingNamed(t, res, "network out binds from")
	// The 2-group run was judged host noise, its busiest link out-bound: 2 measured, as modelled.
	if f.Value != 2 || f.Model == nil || *f.Model != 2 {
		t.Errorf("finding %+v: want 2 measured, 2 by the model", f)
	}
	if w := findingNamed(t, res, "measured / model, furthest apart"); math.Abs(w.Value-1092.0/1481) > 0.01 {
		t.Errorf("furthest %+v: want 2 groups at %.3f", w, 1092.0/1481)
	}
}

func TestFanoutLimit(t *testing.T) {
	res, r, _ := fanoutRun(t, map[string]string{"method": "limit", "groups": "5"})
	if r.seen[0][0] != "limit" || flagOf(r.seen[0], "--consumer-groups") != "5" || flagOf(r.seen[0], "--message-sizes") != "1000" {
		t.Errorf("command %v: want a limit search of 1000 B with 5 groups", r.seen[0])
	}
	// The recorded search bracketed 1,000 B between 1,834 and 1,915 msgs/s.
	pt := chartNamed(t, res, "Sustainable rate").Series[0].Points[0]
	if want := math.Sqrt(1834.00808 * 1915.20655); math.Abs(pt.Y-want) > 0.01 || pt.X != 5 {
		t.Errorf("point %+v, want %.1f at 5 groups", pt, want)
	}
	f := findingNamed(t, res, "produce per broker with 5 consumer groups")
	if f.Article == nil || *f.Article != 60e6 || f.Model == nil || math.Abs(*f.Model-846.3*1000/3) > 100 {
		t.Errorf("Dropbox's finding %+v", f)
	}
}

// fanoutSearches runs consumer-fanout's full mode (a limit search for each of 0 to 8 groups) on a
// fake limit: each search brackets, 2% wide, the model's rate with the links' framing the
// recorded runs measured (0.0636 bytes per record byte), its bottleneck the busiest link the
// model names. It is the record the report's golden file shows for the method (TestReportGolden):
// the recorded search TestFanoutLimit replays was not made with consumer groups, so beside the
// model's line and Dropbox's figure it read as 2.2 times the model's rate with 5 groups.
func fanoutSearches(t *testing.T) (results.Scenario, *Env) {
	t.Helper()
	r := &replay{t: t}
	env := replayEnv(t, "testdata/cluster-nic", r)
	st := mustOpen(t, env.ClusterDir)
	c := model.Cluster{Brokers: 3, ReplicationFactor: 3, NIC: st.NIC, MaxUtilization: 1, LinkOverhead: 0.0636}
	env.Exec = func(ctx context.Context, args ...string) (int, error) {
		g, _ := strconv.Atoi(flagOf(args, "--consumer-groups"))
		size, _ := strconv.Atoi(flagOf(args, "--message-sizes"))
		b := modelRate(c, g, size)
		bound := results.Boundary{Size: size, Trials: 6, Ceiling: results.Limit{SafeRate: b / 1.01, UnsafeRate: b * 1.01,
			Bottleneck: fmt.Sprintf("broker %d %s: 95%% of its NIC", g%3+1, modelBottleneck(c, g))}}
		store := filepath.Join(flagOf(args, "--out"), "results.jsonl")
		if err := results.Append(store, results.KindSearch, "", results.Search{Tolerance: 0.05}); err != nil {
			return 1, err
		}
		return 0, results.Append(store, results.KindBoundary, strconv.Itoa(size), bound)
	}
	s, _ := Lookup("consumer-fanout")
	res, err := Execute(context.Background(), s, env, map[string]string{"method": "limit", "groups": "0,1,2,3,4,5,6,7,8"})
	if err != nil || len(res.Failures) > 0 {
		t.Fatalf("error %v, failures %v", err, res.Failures)
	}
	return res, env
}

// TestFanoutSearches: network out binds from 2 groups, as the model has it, and Dropbox's case
// is set beside the model's figure for 5 groups.
func TestFanoutSearches(t *testing.T) {
	res, _ := fanoutSearches(t)
	if f := findingNamed(t, res, "network out binds from"); f.Value != 2 || f.Model == nil || *f.Model != 2 {
		t.Errorf("finding %+v: want 2 measured, 2 by the model", f)
	}
	if f := findingNamed(t, res, "produce per broker with 5 consumer groups"); f.Article == nil || math.Abs(f.Value / *f.Model - 0.94) > 0.01 {
		t.Errorf("Dropbox's finding %+v: want the framed rate, 94%% of the model's", f)
	}
}

func TestFanoutRefusals(t *testing.T) {
	s, _ := Lookup("consumer-fanout")
	for _, tc := range []struct {
		name, cluster string
		set           map[string]string
		want          string
	}{
		{"loopback", "testdata/cluster-loopback", nil, "runs on loopback, where the network never binds"},
		{"no cluster", "testdata/none", nil, "--cluster-dir"},
		{"method", "testdata/cluster-nic", map[string]string{"method": "guess"}, "--set method=guess"},
		{"above", "testdata/cluster-nic", map[string]string{"above": "0.9"}, "--set above=0.9"},
		{"groups", "testdata/cluster-nic", map[string]string{"groups": "2,-1"}, "--set groups=2,-1"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := fanoutReplay(t)
			_, err := Execute(context.Background(), s, replayEnv(t, tc.cluster, r), tc.set)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want %q", err, tc.want)
			}
			if len(r.seen) > 0 {
				t.Errorf("ran %v before refusing", r.seen)
			}
		})
	}
}

func TestFanoutBinding(t *testing.T) {
	for _, tc := range []struct {
		pt   fanPoint
		want string
	}{
		{fanPoint{bottleneck: "broker 3 network out: 67% of its NIC, TCP retransmitting 7.75 segments/s", in: 90, out: 67}, "network in"},
		{fanPoint{bottleneck: "broker 2 network out: 83% of its NIC"}, "network out"},
		{fanPoint{bottleneck: "broker 1 network in: 86% (link bytes in ÷ NIC)"}, "network in"},
		{fanPoint{bottleneck: "other processes on the host", in: 59, out: 83}, "network out"},
		{fanPoint{bottleneck: "other processes on the host", in: 90, out: 61}, "network in"},
		{fanPoint{bottleneck: "client host cpu"}, ""},
	} {
		if got := tc.pt.binding(); got != tc.want {
			t.Errorf("%+v: %q, want %q", tc.pt, got, tc.want)
		}
	}
	pts := []fanPoint{{groups: 0, bottleneck: "network in"}, {groups: 2, bottleneck: "network out"}, {groups: 3, bottleneck: "x"}, {groups: 4, bottleneck: "network out"}}
	if g, ok := outBindsFrom(pts); !ok || g != 4 {
		t.Errorf("binds from %d (%v), want 4: every count from it on", g, ok)
	}
}
