package scenario

import (
	"context"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// CheckWorkerArgs fails t unless every load command of cmds (run, limit, or compare of either)
// has --local-workers n once, after compare's "--" (never before it), and no other command has
// the flag; it returns the load commands.
func CheckWorkerArgs(t *testing.T, cmds [][]string, n int) [][]string {
	t.Helper()
	var load [][]string
	for _, args := range cmds {
		cmd := args
		if args[0] == "compare" {
			at := slices.Index(args, "--")
			if at < 0 || slices.Contains(args[:at], "--local-workers") {
				t.Errorf("compare %q: want --local-workers only in the command after --", args)
				continue
			}
			cmd = args[at+1:]
		}
		if cmd[0] != "run" && cmd[0] != "limit" {
			if slices.Contains(args, "--local-workers") {
				t.Errorf("%q generates no load, yet has --local-workers", args)
			}
			continue
		}
		load = append(load, args)
		if flagOf(cmd, "--local-workers") != strconv.Itoa(n) || strings.Count(strings.Join(args, " "), "--local-workers") != 1 {
			t.Errorf("%q: want --local-workers %d in its load command, once", args, n)
		}
	}
	if len(load) == 0 {
		t.Errorf("no load command among %q", cmds)
	}
	return load
}

func TestWithLocalWorkers(t *testing.T) {
	for _, tc := range []struct{ args, want string }{
		{"run --rate 1", "run --rate 1 --local-workers 3"},
		{"limit --message-sizes 100", "limit --message-sizes 100 --local-workers 3"},
		{"compare --a x --b y -- run --rate 1", "compare --a x --b y -- run --rate 1 --local-workers 3"},
		{"compare --a x --b y -- limit", "compare --a x --b y -- limit --local-workers 3"},
		{"cluster up --cluster-dir c", "cluster up --cluster-dir c"},
		{"model --brokers 3", "model --brokers 3"},
		{"compare --a x --b y", "compare --a x --b y"},
	} {
		env := &Env{LocalWorkers: 3}
		if got := strings.Join(env.withLocalWorkers(strings.Fields(tc.args)), " "); got != tc.want {
			t.Errorf("%s: got %q, want %q", tc.args, got, tc.want)
		}
		env.LocalWorkers = 0
		if got := strings.Join(env.withLocalWorkers(strings.Fields(tc.args)), " "); got != tc.args {
			t.Errorf("%s without workers: got %q", tc.args, got)
		}
	}
}

// TestLocalWorkersLoadSteps: every load step of partitions-throughput and consumer-fanout (both
// methods) gets --local-workers 2, fanout's also 2 producers and 2 consumers a group, and the
// record names the workers.
func TestLocalWorkersLoadSteps(t *testing.T) {
	for _, tc := range []struct {
		name, scenario, cluster string
		set                     map[string]string
		steps                   int
		want                    []string // in every load step
	}{
		{"partitions-throughput", "partitions-throughput", "testdata/cluster-loopback", nil, 2, []string{"--producers 4 "}},
		{"consumer-fanout runs", "consumer-fanout", "testdata/cluster-nic", nil, 3, []string{"--producers 2 ", "--consumers-per-group 2 "}},
		{"consumer-fanout limit", "consumer-fanout", "testdata/cluster-nic", map[string]string{"method": "limit", "groups": "5"}, 1,
			[]string{"--producers 2 ", "--consumers-per-group 2 "}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := partitionsReplay(t)
			if tc.scenario == "consumer-fanout" {
				r = fanoutReplay(t)
			}
			env := replayEnv(t, tc.cluster, r)
			env.LocalWorkers = 2
			s, _ := Lookup(tc.scenario)
			res, err := Execute(context.Background(), s, env, tc.set)
			if err != nil || len(res.Failures) > 0 {
				t.Fatalf("error %v, failures %v", err, res.Failures)
			}
			load := CheckWorkerArgs(t, r.seen, 2)
			if len(load) != tc.steps {
				t.Errorf("%d load steps, want %d: %q", len(load), tc.steps, load)
			}
			for _, args := range load {
				for _, w := range tc.want {
					if !strings.Contains(strings.Join(args, " "), w) {
						t.Errorf("%q lacks %s", args, w)
					}
				}
			}
			if !strings.HasPrefix(res.Config["local workers"], "2: ") {
				t.Errorf("config %v: want the local workers named", res.Config)
			}
		})
	}
}

// TestLocalWorkersNoLoad: every scenario that drives no load refuses --local-workers, naming
// itself and the fix, before any command; the ones that drive load are exactly the four whose
// steps run plimsoll run or limit.
func TestLocalWorkersNoLoad(t *testing.T) {
	var load []string
	for _, s := range All() {
		if s.Load {
			load = append(load, s.Name)
			continue
		}
		env, cmds := clockEnv(t, "")
		env.LocalWorkers = 2
		_, err := Execute(context.Background(), s, env, nil)
		if err == nil || !strings.Contains(err.Error(), "scenario "+s.Name+" drives no load") || !strings.Contains(err.Error(), "leave --local-workers out") || len(*cmds) > 0 {
			t.Errorf("%s: error %v after %d commands, want a refusal naming it before any", s.Name, err, len(*cmds))
		}
	}
	if got := strings.Join(load, ","); got != "consumer-fanout,message-overhead,partitions-throughput,tls-cost" {
		t.Errorf("load scenarios %s", got)
	}
}

// TestLocalWorkersRefusals: counts the workers cannot share are refused in the check, naming
// the parameter to raise, before any command.
func TestLocalWorkersRefusals(t *testing.T) {
	for _, tc := range []struct {
		name, scenario, cluster string
		n                       int
		set                     map[string]string
		want                    string
	}{
		{"negative", "partitions-throughput", "testdata/cluster-loopback", -1, nil, "--local-workers -1: give a number of workers, 1 or more"},
		{"too few producers", "partitions-throughput", "testdata/cluster-loopback", 5, nil, "the steps run 4 producers, and every worker needs at least one: raise --set producers=5"},
		{"too few partitions", "partitions-throughput", "testdata/cluster-loopback", 2, map[string]string{"total-partitions": "1,100"},
			"the steps run 1 partitions in the smallest topic"},
		{"fanout partitions", "consumer-fanout", "testdata/cluster-nic", 31, nil, "the steps run 30 partitions per topic (plimsoll's default, 10 a broker)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := &replay{t: t}
			env := replayEnv(t, tc.cluster, r)
			env.LocalWorkers = tc.n
			s, _ := Lookup(tc.scenario)
			if _, err := Execute(context.Background(), s, env, tc.set); err == nil || !strings.Contains(err.Error(), tc.want) || len(r.seen) > 0 {
				t.Errorf("error %v after %d commands, want %q before any", err, len(r.seen), tc.want)
			}
		})
	}
}
