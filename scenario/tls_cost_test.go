package scenario_test

import (
	"context"
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/plimsoll/plimsoll/scenario"
)

// fakeCompare stands in for compare --a/--b: it writes a recorded comparison into --out, a real
// one of runs (PLAINTEXT against SSL, 1 KB at 3,000 msgs/s, 4 repetitions a side on this
// project's 2-core host) or one of limit searches; broken lists calls that fail without one.
type fakeCompare struct {
	args   [][]string
	broken map[int]bool
}

func (f *fakeCompare) exec(_ context.Context, args ...string) (int, error) {
	f.args = append(f.args, args)
	if f.broken[len(f.args)] {
		return 1, nil
	}
	sep := 0
	for i, a := range args {
		if a == "--" {
			sep = i
		}
	}
	data, err := os.ReadFile(filepath.Join("testdata", "tls-cost", "compare-"+args[sep+1]+".json"))
	if err != nil {
		return 1, err
	}
	out := flagValue(args[:sep], "--out")
	if err := os.MkdirAll(out, 0o755); err != nil {
		return 1, err
	}
	return 0, os.WriteFile(filepath.Join(out, "compare.json"), data, 0o644)
}

func tlsEnv(t *testing.T, f *fakeCompare, cluster string) *scenario.Env {
	at := time.Date(2026, 11, 26, 8, 0, 0, 0, time.UTC)
	return &scenario.Env{Out: t.TempDir(), Mode: scenario.Full, ClusterDir: cluster, Log: io.Discard, Exec: f.exec,
		Now: func() time.Time { at = at.Add(10 * time.Minute); return at }}
}

// TestTLSCost: PLAINTEXT against SSL and against SASL_SSL, each at a fixed rate and over limit
// searches; the brokers' CPU per message summed over the brokers, the rates relative
// to PLAINTEXT's, Instaclustr's figure beside the boundary's; the report's golden text.
func TestTLSCost(t *testing.T) {
	s, err := scenario.Lookup("tls-cost")
	if err != nil {
		t.Fatal(err)
	}
	f := &fakeCompare{}
	env := tlsEnv(t, f, "")
	res, err := scenario.Execute(context.Background(), s, env, map[string]string{"size": "1024", "rate": "3000", "brokers": "3", "repeat": "3", "limit": "ssl,sasl_ssl"})
	if err != nil {
		t.Fatal(err)
	}
	if len(f.args) != 4 {
		t.Fatalf("%d commands, want 4 (run and limit, SSL and SASL_SSL)", len(f.args))
	}
	first := strings.Join(f.args[0], " ")
	for _, want := range []string{"compare --a listener=plaintext,brokers=3,heap=512m --b listener=ssl,brokers=3,heap=512m --repeat 3 --warm-jit 30s --out ",
		"-- run --rate 3000 --message-size 1024 --duration 30s"} {
		if !strings.Contains(first, want) {
			t.Errorf("%q lacks %q", first, want)
		}
	}
	if !strings.Contains(strings.Join(f.args[3], " "), "--b listener=ssl,sasl=scram-sha-512,brokers=3") {
		t.Errorf("the SASL_SSL arm: %q", f.args[3])
	}
	// The recorded run: brokers' CPU per message 193+208+203 µs against 207+207+203 µs.
	cpu := res.Findings[0]
	if cpu.Name != "broker CPU per message, PLAINTEXT" || math.Abs(cpu.Value-604) > 2 {
		t.Errorf("first finding %+v: want PLAINTEXT's 604 µs", cpu)
	}
	if len(res.Charts) != 2 || len(res.Charts[0].Series[0].Points) != 3 || len(res.Charts[1].Series) != 3 {
		t.Errorf("charts %+v: want CPU per listener (3 points) and the relative rates with Instaclustr's", res.Charts)
	}
	checkReport(t, "tls-cost", &res, 2, strings.NewReplacer(env.Out, "OUT"))

	// Full mode's own values: one broker per arm, 4 repetitions, SSL's boundary searched only.
	f = &fakeCompare{}
	if _, err := scenario.Execute(context.Background(), s, tlsEnv(t, f, ""), nil); err != nil {
		t.Fatal(err)
	}
	var steps []string
	for _, a := range f.args {
		steps = append(steps, flagValue(a, "--out"))
	}
	if got := strings.Join(steps, " "); !strings.HasSuffix(got, "run-sasl_ssl") || strings.Contains(got, "limit-sasl_ssl") || !strings.Contains(got, "limit-ssl") {
		t.Errorf("full mode's steps %q: want run-ssl, limit-ssl, run-sasl_ssl", got)
	}
	for i, want := range []string{"--b listener=ssl,brokers=1,heap=512m --repeat 4 ", "-- limit --message-sizes 102400 --producers 4 --slo-p99 0 --tolerance 0.1 --trial-duration 20s --warmup 5s"} {
		if got := strings.Join(f.args[i], " "); !strings.Contains(got, want) {
			t.Errorf("step %d %q lacks %q", i+1, got, want)
		}
	}

	// Behind emulated NICs, each arm's cluster gets compare's nic= key.
	f = &fakeCompare{}
	if _, err := scenario.Execute(context.Background(), s, tlsEnv(t, f, ""), map[string]string{"nic": "1Gbit/s", "limit": "none", "listeners": "sasl_ssl"}); err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(f.args[0], " "); !strings.Contains(got, "--a listener=plaintext,brokers=1,heap=512m,nic=1Gbit/s --b listener=ssl,sasl=scram-sha-512,brokers=1,heap=512m,nic=1Gbit/s ") {
		t.Errorf("with nic=1Gbit/s: %q", got)
	}
}

// TestTLSCostRefusals: a failed compare is a failure kept as data; --cluster-dir and bad
// parameters are refused before anything runs.
func TestTLSCostRefusals(t *testing.T) {
	s, _ := scenario.Lookup("tls-cost")
	f := &fakeCompare{broken: map[int]bool{1: true}}
	res, err := scenario.Execute(context.Background(), s, tlsEnv(t, f, ""), map[string]string{"limit": "none", "listeners": "ssl"})
	if err != nil || len(res.Failures) != 1 || !strings.Contains(res.Failures[0], "SSL against PLAINTEXT (run): compare exited 1 without a comparison") {
		t.Errorf("error %v, failures %q: want the failed compare kept as data", err, res.Failures)
	}
	for _, tc := range []struct {
		name, cluster string
		set           map[string]string
		want          string
	}{
		{"a cluster given", "/tmp/c", nil, "--cluster-dir /tmp/c: tls-cost starts a fresh cluster per arm"},
		{"unknown listener", "", map[string]string{"listeners": "ssl,tls"}, `"tls" is not one; give ssl, sasl_ssl`},
		{"bad limit", "", map[string]string{"limit": "maybe"}, `--set limit=maybe: "maybe" is not among listeners=ssl,sasl_ssl; give some of them, comma-separated, or none`},
		{"limit outside listeners", "", map[string]string{"listeners": "ssl", "limit": "sasl_ssl"}, `"sasl_ssl" is not among listeners=ssl`},
		{"bad tolerance", "", map[string]string{"tolerance": "1.5"}, "--set tolerance=1.5: give a share between 0 and 1"},
		{"bad nic", "", map[string]string{"nic": "fast"}, "--set nic=fast: give a rate such as 1Gbit/s, or none"},
		{"zero nic", "", map[string]string{"nic": "0bit/s"}, "--set nic=0bit/s: give a rate"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := &fakeCompare{}
			env := tlsEnv(t, f, tc.cluster)
			if _, err := scenario.Execute(context.Background(), s, env, tc.set); err == nil || !strings.Contains(err.Error(), tc.want) || len(f.args) > 0 {
				t.Errorf("error %v after %d commands, want %q before any", err, len(f.args), tc.want)
			}
		})
	}
}
