package scenario_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/plimsoll/plimsoll/localkafka"
	"github.com/plimsoll/plimsoll/results"
	"github.com/plimsoll/plimsoll/scenario"
)

// fakeNICCluster writes the state of a 3-broker cluster behind links of nic bytes/s (0: none)
// into a directory, as plimsoll cluster up --nic leaves it; nothing runs.
func fakeNICCluster(t *testing.T, nic float64) string {
	t.Helper()
	dir := t.TempDir()
	c := localkafka.State{Dir: dir, KafkaVersion: "4.1.0"}
	for id := int32(1); id <= 3; id++ {
		c.Brokers = append(c.Brokers, &localkafka.Broker{ID: id, NIC: nic})
	}
	data, err := json.Marshal(c)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "cluster.json"), data, 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

// fakeLimit stands in for plimsoll limit on a network-bound cluster: each size's boundary is
// a 2 MB/s link's rate over the size plus 18 bytes of framing, scaled by the next of skew (one
// per search), bracketed 1% wide; broken makes a search fail without a results file.
type fakeLimit struct {
	skew   []float64
	broken map[int]bool
	args   [][]string
}

func (f *fakeLimit) exec(_ context.Context, args ...string) (int, error) {
	f.args = append(f.args, args)
	if args[0] != "limit" {
		return 0, nil
	}
	n := len(f.args)
	if f.broken[n] {
		return 1, nil
	}
	out := flagValue(args, "--out")
	store := filepath.Join(out, "results.jsonl")
	if err := results.Append(store, results.KindSearch, "", results.Search{Tolerance: 0.01}); err != nil {
		return 1, err
	}
	for _, s := range strings.Split(flagValue(args, "--message-sizes"), ",") {
		size, _ := strconv.Atoi(s)
		b := 2e6 / float64(size+18) * f.skew[(n-1)%len(f.skew)]
		bound := results.Boundary{Size: size, Trials: 2, Ceiling: results.Limit{SafeRate: b / 1.005, UnsafeRate: b * 1.005}}
		if err := results.Append(store, results.KindBoundary, s, bound); err != nil {
			return 1, err
		}
	}
	return 0, nil
}

func flagValue(args []string, name string) string {
	for i, a := range args {
		if a == name && i+1 < len(args) {
			return args[i+1]
		}
	}
	return ""
}

func moEnv(t *testing.T, cluster string, f *fakeLimit) *scenario.Env {
	at := time.Date(2026, 11, 26, 8, 0, 0, 0, time.UTC)
	return &scenario.Env{Out: t.TempDir(), Mode: scenario.Short, ClusterDir: cluster, Log: io.Discard, Exec: f.exec,
		Now: func() time.Time { at = at.Add(45 * time.Second); return at }}
}

// TestMessageOverhead: two searches in short mode (100 then 108 B, 108 then 100 B), the second
// starting at the first's 108 B boundary; each size's geometric mean beside the model's rate,
// the ratio beside the wire bytes' and Heroku's; the report's golden text.
func TestMessageOverhead(t *testing.T) {
	s, err := scenario.Lookup("message-overhead")
	if err != nil {
		t.Fatal(err)
	}
	f := &fakeLimit{skew: []float64{1.01, 0.99}}
	env := moEnv(t, fakeNICCluster(t, 2e6), f)
	res, err := scenario.Execute(context.Background(), s, env, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(f.args) != 2 || flagValue(f.args[0], "--message-sizes") != "100,108" || flagValue(f.args[1], "--message-sizes") != "108,100" {
		t.Fatalf("commands %q: want two limit searches, 100,108 then 108,100", f.args)
	}
	// The model's 18,185 msgs/s at 100 B with 66 bytes of framing a 1,448-byte segment: 17,392.
	if got, want := flagValue(f.args[1], "--start-rate"), fmt.Sprint(math.Round(2e6/126*1.01)); flagValue(f.args[0], "--start-rate") != "17392" || got != want {
		t.Errorf("start rates %q then %q: want the framed model's 17392, then the first 108 B boundary, %s", flagValue(f.args[0], "--start-rate"), got, want)
	}
	for _, want := range []string{"--consumer-groups 0", "--producer-prop acks=1", "--slo-p99 0", "--tolerance 0.01", "--trial-duration 6s", "--warmup 2s", "--no-hold"} {
		if !strings.Contains(strings.Join(f.args[0], " "), want) {
			t.Errorf("limit %q lacks %s", f.args[0], want)
		}
	}
	if len(res.Findings) != 3 || len(res.Charts) != 2 || len(res.Failures) != 0 {
		t.Fatalf("findings %+v, %d charts, failures %v: want 3 findings, 2 charts, no failure", res.Findings, len(res.Charts), res.Failures)
	}
	ratio := res.Findings[2]
	if math.Abs(ratio.Value-118.0/126) > 1e-9 || math.Abs(*ratio.Model-109.98/117.98) > 1e-3 || math.Abs(*ratio.Article-2.0/3) > 1e-9 {
		t.Errorf("ratio %v (model %v, article %v): want 118/126, the wire bytes' 0.9322 and Heroku's 0.667", ratio.Value, *ratio.Model, *ratio.Article)
	}
	if m := *res.Findings[0].Model; math.Abs(m-18187) > 20 {
		t.Errorf("the model's 100 B rate %v, want plimsoll model's 18.2k on 16 Mbit/s links", m)
	}
	checkReport(t, "message-overhead", &res, 2, strings.NewReplacer(env.Out, "OUT", env.ClusterDir, "CLUSTER"))
}

// TestMessageOverheadFailures: a search that fails is a failure kept as data, the other's
// figures stand; a cluster without emulated NICs is refused before anything runs.
func TestMessageOverheadFailures(t *testing.T) {
	s, _ := scenario.Lookup("message-overhead")
	f := &fakeLimit{skew: []float64{1}, broken: map[int]bool{2: true}}
	res, err := scenario.Execute(context.Background(), s, moEnv(t, fakeNICCluster(t, 2e6), f), nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Failures) != 1 || !strings.Contains(res.Failures[0], "search 2 (108 B, then 100 B)") || len(res.Findings) != 3 {
		t.Errorf("failures %q, %d findings: want search 2's failure and the first search's figures", res.Failures, len(res.Findings))
	}
	for _, tc := range []struct {
		name string
		nic  float64
		set  map[string]string
		want string
	}{
		{"loopback cluster", 0, nil, "has no emulated NICs, so its network never binds"},
		{"bad repeat", 2e6, map[string]string{"repeat": "0"}, "--set repeat=0"},
		{"bad nic", 2e6, map[string]string{"nic": "fast"}, "--set nic=fast"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := &fakeLimit{skew: []float64{1}}
			env := moEnv(t, fakeNICCluster(t, tc.nic), f)
			_, err := scenario.Execute(context.Background(), s, env, tc.set)
			if err == nil || !strings.Contains(err.Error(), tc.want) || len(f.args) != 0 {
				t.Errorf("error %v after %d commands: want %q before any", err, len(f.args), tc.want)
			}
			if entries, _ := os.ReadDir(env.Out); len(entries) != 0 {
				t.Errorf("a refused scenario created %d entries", len(entries))
			}
		})
	}
}
