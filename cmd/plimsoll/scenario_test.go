//go:build !integration

package main

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/plimsoll/plimsoll/results"
	"github.com/plimsoll/plimsoll/scenario"
)

// modelScenario is a scenario for the command's tests: one step, plimsoll model --json, whose
// answer it reads back from the log; fail makes its check refuse, empty makes it measure nothing.
func modelScenario(name string, fail, empty bool) scenario.Scenario {
	return scenario.Scenario{
		Name: name, Title: "The model's ceiling", Doc: "Asks the model.",
		Sources: []results.Source{{Seed: "001", Title: "Heroku", Hardware: "m4"}},
		Params:  []scenario.Param{{Name: "size", Short: "100", Full: "1000", Doc: "message size, bytes"}},
		Check: func(context.Context, *scenario.Env, scenario.Params) error {
			if fail {
				return errors.New("vm.max_map_count is 65530, below 262144: raise it with sysctl -w vm.max_map_count=262144")
			}
			return nil
		},
		Run: func(ctx context.Context, env *scenario.Env, p scenario.Params) (results.Scenario, error) {
			code, err := env.Plimsoll(ctx, "", "model", "--brokers", "3", "--replication-factor", "3", "--message-size", p["size"],
				"--messages-per-sec", "1", "--nic", "16Mbit/s", "--consumer-groups", "0", "--json")
			if err != nil || empty {
				return results.Scenario{Failures: []string{"nothing to read"}}, err
			}
			return results.Scenario{Findings: []results.Finding{{Name: "model exit", Value: float64(code), Unit: "count"}},
				Charts: []results.Chart{{Title: "one point", X: "x", Y: "y", Series: []results.Series{{Name: "m", Kind: results.SeriesMeasured, Points: []results.Point{{X: 1, Y: 2}}}}}}}, nil
		},
	}
}

func TestScenarioRun(t *testing.T) {
	defer scenario.Registered(modelScenario("cmd-test", false, false))()
	out := filepath.Join(t.TempDir(), "s")
	stdout, stderr, code := runCLI(t, "scenario", "run", "cmd-test", "--mode", "short", "--out", out)
	if code != ExitOK {
		t.Fatalf("exit %d\n%s\n%s", code, stdout, stderr)
	}
	for _, want := range []string{"The model's ceiling", "model exit", "Commands run", "plimsoll model --brokers 3", "index.html"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("stdout lacks %q:\n%s", want, stdout)
		}
	}
	if !strings.Contains(stderr, "scenario: plimsoll model") {
		t.Errorf("stderr lacks the step's progress line:\n%s", stderr)
	}
	rec, err := results.LoadScenario(out)
	if err != nil {
		t.Fatal(err)
	}
	if rec.Mode != "short" || rec.Params["size"] != "100" || len(rec.Commands) != 1 || rec.Commands[0].Exit != 0 {
		t.Errorf("record %+v: want short mode, size 100, one command that exited 0", rec)
	}
	log, err := os.ReadFile(filepath.Join(out, "scenario.log"))
	if err != nil || !strings.Contains(string(log), `"max_messages_per_sec"`) {
		t.Errorf("scenario.log (%v) lacks the model's JSON:\n%s", err, log)
	}
	if _, err := os.Stat(filepath.Join(out, "index.html")); err != nil {
		t.Error(err)
	}
	text, _, code := runCLI(t, "report", "--text", out)
	if code != ExitOK || !strings.Contains(text, "model exit") {
		t.Errorf("report --text: exit %d\n%s", code, text)
	}
	js, _, code := runCLI(t, "report", "--json", out)
	var back results.Scenario
	if code != ExitOK || json.Unmarshal([]byte(js), &back) != nil || back.Name != "cmd-test" {
		t.Errorf("report --json: exit %d\n%s", code, js)
	}
}

func TestScenarioExitCodes(t *testing.T) {
	defer scenario.Registered(modelScenario("cmd-refused", true, false))()
	defer scenario.Registered(modelScenario("cmd-empty", false, true))()
	defer scenario.Registered(modelScenario("cmd-ok", false, false))()
	full := t.TempDir()
	if err := os.WriteFile(filepath.Join(full, "x"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		args []string
		code int
		want string
	}{
		{"unknown scenario", []string{"nope", "--out", "OUT"}, ExitUsage, `no scenario "nope"; there are: `},
		{"bad mode", []string{"cmd-ok", "--mode", "huge", "--out", "OUT"}, ExitUsage, `--mode "huge": want short or full`},
		{"unknown parameter", []string{"cmd-ok", "--set", "sise=10", "--out", "OUT"}, ExitUsage, `--set sise: scenario cmd-ok has no parameter "sise"; it has: size`},
		{"--set without =", []string{"cmd-ok", "--set", "size", "--out", "OUT"}, ExitUsage, `--set "size": give NAME=VALUE, e.g. --set size=1000`},
		{"no --out", []string{"cmd-ok"}, ExitUsage, "--out: give the directory"},
		{"--out not empty", []string{"cmd-ok", "--out", full}, ExitUsage, "is not empty (it holds x)"},
		{"no cluster", []string{"cmd-ok", "--cluster-dir", "OUT-cluster", "--out", "OUT"}, ExitUsage, "start one with `plimsoll cluster up --cluster-dir"},
		{"precondition", []string{"cmd-refused", "--out", "OUT"}, ExitUsage, "cannot run here: vm.max_map_count"},
		{"nothing measured", []string{"cmd-empty", "--out", "OUT"}, ExitError, "measured nothing: nothing to read"},
		{"two arguments", []string{"cmd-ok", "cmd-ok", "--out", "OUT"}, ExitUsage, "takes NAME, got 2"},
		{"--local-workers without load", []string{"cmd-ok", "--local-workers", "2", "--out", "OUT"}, ExitUsage, "scenario cmd-ok drives no load"},
		{"--local-workers below 0", []string{"cmd-ok", "--local-workers", "-1", "--out", "OUT"}, ExitUsage, "--local-workers -1: give a number of workers"},
		{"--workers", []string{"cmd-ok", "--workers", "3", "--out", "OUT"}, ExitUsage, "scenario run takes no workers you start"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			out := filepath.Join(dir, "out")
			args := []string{"scenario", "run"}
			for _, a := range tc.args {
				args = append(args, strings.ReplaceAll(a, "OUT", out))
			}
			_, stderr, code := runCLI(t, args...)
			if code != tc.code || !strings.Contains(stderr, tc.want) {
				t.Fatalf("exit %d, want %d with %q:\n%s", code, tc.code, tc.want, stderr)
			}
			_, err := os.Stat(out)
			if created := err == nil; created != (tc.code == ExitError) {
				t.Errorf("--out created: %v; want it only for a scenario that ran", created)
			}
		})
	}
}

func TestScenarioList(t *testing.T) {
	defer scenario.Registered(modelScenario("cmd-list", false, false))()
	text, _, code := runCLI(t, "scenario", "list")
	if code != ExitOK || !strings.Contains(text, "cmd-list: The model's ceiling") || !strings.Contains(text, "repeats 001: Heroku (m4)") {
		t.Errorf("list: exit %d\n%s", code, text)
	}
	js, _, code := runCLI(t, "scenario", "list", "--json")
	var doc struct {
		Scenarios []struct {
			Name   string `json:"name"`
			Params []struct{ Name, Short, Full string }
		} `json:"scenarios"`
	}
	if err := json.Unmarshal([]byte(js), &doc); err != nil || code != ExitOK {
		t.Fatalf("list --json: exit %d, %v\n%s", code, err, js)
	}
	found := false
	for _, s := range doc.Scenarios {
		found = found || s.Name == "cmd-list" && len(s.Params) == 1 && s.Params[0].Short == "100" && s.Params[0].Full == "1000"
	}
	if !found {
		t.Errorf("list --json lacks cmd-list with its parameter: %s", js)
	}
	comp, _, _ := runCLI(t, "__complete", "scenario", "run", "")
	if !strings.Contains(comp, "cmd-list\tThe model's ceiling") {
		t.Errorf("completion of NAME lacks cmd-list:\n%s", comp)
	}
	comp, _, _ = runCLI(t, "__complete", "scenario", "run", "cmd-list", "--set", "")
	if !strings.Contains(comp, "size=\tmessage size, bytes") {
		t.Errorf("completion of --set lacks size=:\n%s", comp)
	}
}

// TestScenarioLocalWorkers: --local-workers reaches a load scenario's steps through its Env, and
// its step's command line carries it (the fake scenario's step is plimsoll model, which takes no
// --local-workers, so the scenario reads it from Env).
func TestScenarioLocalWorkers(t *testing.T) {
	s := modelScenario("cmd-load", false, false)
	s.Load = true
	run := s.Run
	s.Run = func(ctx context.Context, env *scenario.Env, p scenario.Params) (results.Scenario, error) {
		res, err := run(ctx, env, p)
		res.Findings = append(res.Findings, results.Finding{Name: "workers", Value: float64(env.LocalWorkers), Unit: "count"})
		return res, err
	}
	defer scenario.Registered(s)()
	out := filepath.Join(t.TempDir(), "s")
	stdout, stderr, code := runCLI(t, "scenario", "run", "cmd-load", "--local-workers", "3", "--out", out)
	if code != ExitOK {
		t.Fatalf("exit %d\n%s\n%s", code, stdout, stderr)
	}
	rec, err := results.LoadScenario(out)
	if err != nil {
		t.Fatal(err)
	}
	if f := rec.Findings[len(rec.Findings)-1]; f.Name != "workers" || f.Value != 3 || !strings.HasPrefix(rec.Config["local workers"], "3: ") {
		t.Errorf("findings %+v, config %v: want 3 workers in Env and the record", rec.Findings, rec.Config)
	}
}
