package scenario

import (
	"context"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/plimsoll/plimsoll/results"
)

// Mode is how big a scenario runs: Short for tests, Full for users.
type Mode string

// The two modes.
const (
	Short Mode = "short"
	Full  Mode = "full"
)

// Param is one parameter of a scenario with its value in each mode.
type Param struct {
	Name  string
	Short string
	Full  string
	Doc   string
}

// Scenario is one named experiment.
type Scenario struct {
	Name  string
	Title string
	// Doc is a paragraph for `scenario list --long` and the report: what it measures and how.
	Doc     string
	Sources []results.Source
	Params  []Param
	// Check verifies the preconditions (root for NICs, sysctl values, disk space) before anything
	// is created; its error says what is missing and how to fix it.
	Check func(ctx context.Context, env *Env, p Params) error
	// Load marks a scenario whose steps generate load (plimsoll run, limit, or compare of
	// either): only such a scenario takes --local-workers (Env.LocalWorkers); its Check refuses a
	// count its steps cannot share among that many workers.
	Load bool
	// Run measures. It fills the charts, findings and failures of the result it returns; the
	// caller (Execute) fills the name, mode, params, times and commands.
	Run func(ctx context.Context, env *Env, p Params) (results.Scenario, error)
}

var registry = map[string]Scenario{}

// register adds a scenario; each scenario's file calls it from init.
func register(s Scenario) {
	if _, dup := registry[s.Name]; dup || s.Run == nil || s.Check == nil {
		panic("scenario: bad or duplicate registration of " + s.Name)
	}
	registry[s.Name] = s
}

// All returns every scenario, by name.
func All() []Scenario {
	out := make([]Scenario, 0, len(registry))
	for _, s := range registry {
		out = append(out, s)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// Lookup returns the scenario called name, or an error listing the ones there are.
func Lookup(name string) (Scenario, error) {
	if s, ok := registry[name]; ok {
		return s, nil
	}
	var names []string
	for _, s := range All() {
		names = append(names, s.Name)
	}
	return Scenario{}, fmt.Errorf("no scenario %q; there are: %s (plimsoll scenario list)", name, strings.Join(names, ", "))
}

// Env is what a scenario runs with.
type Env struct {
	// Out is the scenario's output directory; each step writes below it.
	Out  string
	Mode Mode
	// ClusterDir is a local cluster (plimsoll cluster up) to run on; empty means the scenario
	// starts what it needs below Out and stops it when done.
	ClusterDir string
	// LocalWorkers, when above 0, spreads each load step's load over that many local worker
	// processes: Plimsoll adds --local-workers N to every run and limit, also after compare's
	// "--" (docs/scenarios.md, "Spreading a scenario's load over local workers").
	LocalWorkers int
	// Exec runs one plimsoll command in this process and returns its exit code; its output goes
	// to Log. The command line (cmd/plimsoll) supplies it.
	Exec func(ctx context.Context, args ...string) (int, error)
	Log  io.Writer
	Now  func() time.Time
	// Leaving, when set, notes what the scenario would leave behind were the process to end
	// before its clean-up does (its topics, a cluster it started, and how to remove them), until
	// done is called; the command line prints the notes when a second signal ends it at once.
	Leaving func(what string) (done func())

	commands []results.ScenarioCommand
}

// leaving is Env.Leaving, or nothing when it is not set.
func (e *Env) leaving(what string) (done func()) {
	if e.Leaving == nil {
		return func() {}
	}
	return e.Leaving(what)
}

// Plimsoll runs one plimsoll command and records it; dir, if not empty, is the command's output
// directory relative to Out, and is passed as --out, before a "--" if args have one (compare
// --a/--b takes the command its repetitions run after it, and sets their --out itself). With
// LocalWorkers, a load-generating command gets --local-workers (withLocalWorkers).
func (e *Env) Plimsoll(ctx context.Context, dir string, args ...string) (int, error) {
	args = e.withLocalWorkers(args)
	if dir != "" {
		out := []string{"--out", filepath.Join(e.Out, dir)}
		at := slices.Index(args, "--")
		if at < 0 {
			at = len(args)
		}
		args = slices.Concat(args[:at], out, args[at:])
	}
	fmt.Fprintf(e.Log, "scenario: plimsoll %s\n", strings.Join(args, " "))
	code, err := e.Exec(ctx, args...)
	e.commands = append(e.commands, results.ScenarioCommand{Args: args, Dir: dir, Exit: code})
	return code, err
}

// CheckError is a scenario's precondition that does not hold (Check's error): nothing was
// created, and the command line reports it as bad input.
type CheckError struct {
	Scenario string
	Err      error
}

func (e *CheckError) Error() string {
	return "scenario " + e.Scenario + " cannot run here: " + e.Err.Error()
}

// Unwrap gives the check's own error.
func (e *CheckError) Unwrap() error { return e.Err }

// Execute checks the scenario's preconditions and runs it in the given mode with the given
// overrides (--set name=value), writing its record to Out's results file. An error from the
// check is returned before anything is created.
func Execute(ctx context.Context, s Scenario, env *Env, set map[string]string) (results.Scenario, error) {
	if err := checkLoad(s, env); err != nil {
		return results.Scenario{}, err
	}
	p, err := Resolve(s, env.Mode, set)
	if err != nil {
		return results.Scenario{}, err
	}
	if err := s.Check(ctx, env, p); err != nil {
		return results.Scenario{}, &CheckError{Scenario: s.Name, Err: err}
	}
	started := env.Now()
	res, err := s.Run(ctx, env, p)
	res.Name, res.Title, res.Mode, res.Params = s.Name, s.Title, string(env.Mode), p
	res.Started, res.Finished, res.Commands, res.Sources = started, env.Now(), env.commands, s.Sources
	res.Interrupted = ctx.Err() != nil
	noteWorkers(&res, env)
	if werr := results.Append(filepath.Join(env.Out, results.ScenarioFile), results.KindScenario, s.Name, res); werr != nil && err == nil {
		err = werr
	}
	return res, err
}

// Registered adds s to the scenarios until the returned function removes it: for the command
// line's tests, which need a scenario whose steps they know. Scenarios of the package register
// from their init with register.
func Registered(s Scenario) (remove func()) {
	register(s)
	return func() { delete(registry, s.Name) }
}
