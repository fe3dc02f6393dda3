package scenario

import (
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/plimsoll/plimsoll/results"
)

func testScenario(check error) Scenario {
	return Scenario{
		Name: "test", Title: "a test",
		Params: []Param{{Name: "count", Short: "2", Full: "10k"}, {Name: "wait", Short: "1s", Full: "1m"}},
		Check:  func(context.Context, *Env, Params) error { return check },
		Run: func(ctx context.Context, env *Env, p Params) (results.Scenario, error) {
			n, err := p.Int("count")
			if err != nil {
				return results.Scenario{}, err
			}
			if _, err := env.Plimsoll(ctx, "step-1", "run", "--rate", "1"); err != nil {
				return results.Scenario{}, err
			}
			return results.Scenario{Findings: []results.Finding{{Name: "count", Value: float64(n), Unit: "count"}}}, nil
		},
	}
}

func testEnv(t *testing.T) *Env {
	at := time.Date(2026, 11, 26, 8, 0, 0, 0, time.UTC)
	return &Env{
		Out: t.TempDir(), Mode: Short, Log: io.Discard,
		Now:  func() time.Time { at = at.Add(time.Second); return at },
		Exec: func(context.Context, ...string) (int, error) { return 0, nil },
	}
}

func TestExecuteWritesRecord(t *testing.T) {
	env := testEnv(t)
	got, err := Execute(context.Background(), testScenario(nil), env, map[string]string{"count": "3k"})
	if err != nil {
		t.Fatal(err)
	}
	back, err := results.LoadScenario(env.Out)
	if err != nil {
		t.Fatal(err)
	}
	if back.Name != "test" || back.Mode != "short" || back.Params["count"] != "3k" || back.Params["wait"] != "1s" {
		t.Errorf("record %+v: want name, mode and params as run", back)
	}
	if len(back.Findings) != 1 || back.Findings[0].Value != 3000 {
		t.Errorf("findings %+v: want count 3000", back.Findings)
	}
	want := []string{"run", "--rate", "1", "--out", filepath.Join(env.Out, "step-1")}
	if len(got.Commands) != 1 || strings.Join(got.Commands[0].Args, " ") != strings.Join(want, " ") || got.Commands[0].Dir != "step-1" {
		t.Errorf("commands %+v: want %v in step-1", got.Commands, want)
	}
	if !back.Finished.After(back.Started) {
		t.Errorf("started %v, finished %v", back.Started, back.Finished)
	}
}

func TestExecuteRefusals(t *testing.T) {
	for _, tc := range []struct {
		name  string
		check error
		set   map[string]string
		want  string
	}{
		{"unknown param", nil, map[string]string{"nope": "1"}, "has no parameter \"nope\"; it has: count, wait"},
		{"precondition", errors.New("vm.max_map_count 65530 is below 262144"), nil, "cannot run here: vm.max_map_count"},
		{"bad value", nil, map[string]string{"count": "many"}, "--set count=many"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			env := testEnv(t)
			_, err := Execute(context.Background(), testScenario(tc.check), env, tc.set)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want it to contain %q", err, tc.want)
			}
			var ce *CheckError
			if errors.As(err, &ce) != (tc.check != nil) {
				t.Errorf("error %v: a CheckError %v, want it only for a failed precondition", err, errors.As(err, &ce))
			}
			if tc.name != "bad value" {
				if entries, _ := os.ReadDir(env.Out); len(entries) != 0 {
					t.Errorf("a refused scenario created %d entries in --out", len(entries))
				}
			}
		})
	}
}

func TestResolveMode(t *testing.T) {
	s := testScenario(nil)
	p, err := Resolve(s, Full, nil)
	if err != nil || p["count"] != "10k" || p["wait"] != "1m" {
		t.Fatalf("full params %v (%v)", p, err)
	}
	if _, err := Resolve(s, "huge", nil); err == nil || !strings.Contains(err.Error(), "--mode") {
		t.Fatalf("mode huge: error %v, want one naming --mode", err)
	}
}

func TestRegistered(t *testing.T) {
	remove := Registered(testScenario(nil))
	if _, err := Lookup("test"); err != nil {
		t.Fatal(err)
	}
	remove()
	if _, err := Lookup("test"); err == nil {
		t.Fatal("a removed scenario is still there")
	}
}

func TestPlimsollOutBeforeSeparator(t *testing.T) {
	env := testEnv(t)
	if _, err := env.Plimsoll(context.Background(), "ab", "compare", "--a", "listener=plaintext", "--b", "listener=ssl", "--", "run", "--rate", "10"); err != nil {
		t.Fatal(err)
	}
	want := "compare --a listener=plaintext --b listener=ssl --out " + filepath.Join(env.Out, "ab") + " -- run --rate 10"
	if got := strings.Join(env.commands[0].Args, " "); got != want {
		t.Errorf("args %q, want %q", got, want)
	}
}
