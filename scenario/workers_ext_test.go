package scenario_test

import (
	"context"
	"strings"
	"testing"

	"github.com/plimsoll/plimsoll/scenario"
)

// TestLocalWorkersSearches: message-overhead's searches get --local-workers 1 (its one
// producer); tls-cost's compares get --local-workers 2 after their "--", the fixed-rate runs 2
// producers and 2 consumers a group, the limit searches their 4 producers and 2 consumers.
func TestLocalWorkersSearches(t *testing.T) {
	mo, _ := scenario.Lookup("message-overhead")
	f := &fakeLimit{skew: []float64{1}}
	env := moEnv(t, fakeNICCluster(t, 2e6), f)
	env.LocalWorkers = 1
	if res, err := scenario.Execute(context.Background(), mo, env, nil); err != nil || len(res.Failures) > 0 {
		t.Fatalf("message-overhead: %v %v", err, res.Failures)
	}
	if load := scenario.CheckWorkerArgs(t, f.args, 1); len(load) != 2 {
		t.Errorf("message-overhead: %d searches, want 2", len(load))
	}

	tls, _ := scenario.Lookup("tls-cost")
	fc := &fakeCompare{}
	env = tlsEnv(t, fc, "")
	env.LocalWorkers = 2
	if res, err := scenario.Execute(context.Background(), tls, env, map[string]string{"listeners": "ssl", "limit": "ssl"}); err != nil || len(res.Failures) > 0 {
		t.Fatalf("tls-cost: %v %v", err, res.Failures)
	}
	load := scenario.CheckWorkerArgs(t, fc.args, 2)
	if len(load) != 2 {
		t.Fatalf("tls-cost: %d compares, want 2", len(load))
	}
	for i, want := range []string{"-- run .* --producers 2 --consumers-per-group 2 ", "-- limit .* --producers 4 .* --consumers-per-group 2 "} {
		got := strings.Join(load[i], " ") + " "
		for _, part := range strings.Split(want, ".* ") {
			if !strings.Contains(got, part) {
				t.Errorf("compare %d %q lacks %q", i, got, part)
			}
		}
	}
}

// TestLocalWorkersSearchRefusals: message-overhead refuses more than one worker, tls-cost fewer
// limit producers or partitions than workers, before any command.
func TestLocalWorkersSearchRefusals(t *testing.T) {
	for _, tc := range []struct {
		name, scenario string
		n              int
		set            map[string]string
		want           string
	}{
		{"message-overhead", "message-overhead", 2, nil, "--local-workers 2: message-overhead's searches run one producer"},
		{"tls-cost limit producers", "tls-cost", 2, map[string]string{"listeners": "ssl", "limit-producers": "1"},
			"the steps run 1 limit producers, and every worker needs at least one: raise --set limit-producers=2"},
		{"tls-cost partitions", "tls-cost", 11, map[string]string{"listeners": "ssl", "limit": "none"}, "raise --set brokers=2"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, _ := scenario.Lookup(tc.scenario)
			fc, fl := &fakeCompare{}, &fakeLimit{skew: []float64{1}}
			env := tlsEnv(t, fc, "")
			if tc.scenario == "message-overhead" {
				env = moEnv(t, fakeNICCluster(t, 2e6), fl)
			}
			env.LocalWorkers = tc.n
			if _, err := scenario.Execute(context.Background(), s, env, tc.set); err == nil || !strings.Contains(err.Error(), tc.want) || len(fc.args)+len(fl.args) > 0 {
				t.Errorf("error %v after %d commands, want %q before any", err, len(fc.args)+len(fl.args), tc.want)
			}
		})
	}
}

// TestLocalWorkersSASL: tls-cost's SASL_SSL arm takes local workers too (they get its password
// from the coordinator, not from a variable of the user's): its compare runs with
// --local-workers 2 after its "--".
func TestLocalWorkersSASL(t *testing.T) {
	tls, _ := scenario.Lookup("tls-cost")
	fc := &fakeCompare{}
	env := tlsEnv(t, fc, "")
	env.LocalWorkers = 2
	if res, err := scenario.Execute(context.Background(), tls, env, map[string]string{"listeners": "sasl_ssl", "limit": "none"}); err != nil || len(res.Failures) > 0 {
		t.Fatalf("tls-cost: %v %v", err, res.Failures)
	}
	load := scenario.CheckWorkerArgs(t, fc.args, 2)
	if len(load) != 1 || !strings.Contains(strings.Join(load[0], " "), "sasl=scram-sha-512") {
		t.Errorf("compares %q: want the SASL_SSL arm's, with 2 local workers", load)
	}
}
