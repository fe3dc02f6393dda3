package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/plimsoll/plimsoll/localkafka"
	"github.com/plimsoll/plimsoll/report"
	"github.com/plimsoll/plimsoll/results"
	"github.com/plimsoll/plimsoll/scenario"
	"github.com/spf13/cobra"
)

func init() { subcommands = append(subcommands, newScenarioCmd) }

const scenarioLong = `scenario runs the named experiments of the field reports plimsoll's design rests on (partitions
against throughput, partition creation and reassignment, the partition ceiling, consumer
fan-out, the cost of TLS, a few bytes per message near NIC saturation), each built on plimsoll's
own commands (run, limit, compare, cluster, model), so that every step is a command you could
type. Each has a short mode (small counts, short trials: the tests') and a full mode (what to run
on your own hardware). Its record lands in --out/results.jsonl; plimsoll report --out renders it
with the article's figure beside ours. See docs/scenarios.md.`

func newScenarioCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "scenario",
		Short: "Run the field reports' experiments (partitions, TLS, fan-out, message overhead, ...) on this cluster",
		Long:  scenarioLong,
		Example: `  plimsoll scenario list
  plimsoll scenario run message-overhead --out mo1          # full mode, on a cluster of its own
  plimsoll report mo1                                        # mo1/index.html`,
	}
	cmd.AddCommand(newScenarioListCmd(), newScenarioRunCmd())
	return cmd
}

func newScenarioListCmd() *cobra.Command {
	var om *outputMode
	cmd := &cobra.Command{
		Use:     "list",
		Short:   "List the scenarios: what each measures, the articles it repeats, its parameters in each mode",
		Example: "  plimsoll scenario list\n  plimsoll scenario list --json | jq -r '.scenarios[].name'",
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if om.json {
				return report.ScenarioListJSON(cmd.OutOrStdout(), scenario.All())
			}
			return report.ScenarioList(cmd.OutOrStdout(), scenario.All())
		},
	}
	om = addOutputFlags(cmd, "{\"scenarios\": [...]}, each with name, title, doc, sources, params (name, short, full, doc)")
	return cmd
}

// scenarioFlags are scenario run's flags.
type scenarioFlags struct {
	mode, clusterDir, out string
	set                   []string
	output                *outputMode
	// localWorkers spreads each load step over that many local workers (scenario.Env's
	// LocalWorkers); workers is the --workers scenario run refuses.
	localWorkers, workers int
}

func newScenarioRunCmd() *cobra.Command {
	sf := &scenarioFlags{}
	cmd := &cobra.Command{
		Use:   "run NAME",
		Short: "Run one scenario and print its findings; its record and each step's output land in --out",
		Long: `run checks the scenario's preconditions (root for emulated NICs, sysctls, disk space, the
cluster given by --cluster-dir) and refuses with nothing created when one does not hold; then
it runs each step as a plimsoll command in this process (their output in --out/scenario.log,
each step's results in a directory below --out), appends the scenario's record to
--out/results.jsonl, writes --out/index.html and prints the findings. Without --cluster-dir a
scenario starts the cluster it needs below --out and stops it when it ends. Steps that fail are
recorded as data; the exit code is 1 only when nothing was measured.`,
		Example: `  plimsoll scenario run message-overhead --mode short --out mo1
  plimsoll scenario run tls-cost --set repeat=3 --out tls1
  plimsoll scenario run message-overhead --cluster-dir /tmp/nic-cluster --out mo2
  plimsoll scenario run partitions-throughput --mode short --local-workers 2 --out pt1`,
		Args:              argsNamed(1, "NAME", "a scenario's name (plimsoll scenario list)"),
		ValidArgsFunction: completeScenarioNames,
		RunE:              func(cmd *cobra.Command, args []string) error { return sf.run(cmd, args[0]) },
	}
	f := cmd.Flags()
	f.StringVar(&sf.mode, "mode", string(scenario.Full), "`MODE`: short (small counts, short trials: the tests') or full (what a user runs)")
	f.StringArrayVar(&sf.set, "set", nil, "`NAME=VALUE`: a parameter's value instead of its mode's (repeatable; plimsoll scenario list names them)")
	f.StringVar(&sf.clusterDir, "cluster-dir", "", "`DIR` of a running local cluster (plimsoll cluster up) to run on; without it the scenario starts its own below --out")
	f.StringVar(&sf.out, "out", "", "`DIR` for the record (results.jsonl), each step's results, scenario.log and index.html; new or empty")
	f.IntVar(&sf.localWorkers, "local-workers", 0, "spread each load step (run, limit, compare's repetitions) over `N` plimsoll worker child processes of this binary; scenarios that drive no load refuse it (docs/scenarios.md)")
	f.IntVar(&sf.workers, "workers", 0, "not taken: a scenario starts its own clusters; use --local-workers")
	_ = f.MarkHidden("workers")
	sf.output = addOutputFlags(cmd, "the scenario's record as stored in results.jsonl (results.Scenario)")
	_ = cmd.RegisterFlagCompletionFunc("mode", cobra.FixedCompletions([]string{string(scenario.Short), string(scenario.Full)}, cobra.ShellCompDirectiveNoFileComp))
	_ = cmd.RegisterFlagCompletionFunc("set", completeScenarioParams)
	return cmd
}

// run is scenario run: every input checked before anything is created, then the scenario.
func (sf *scenarioFlags) run(cmd *cobra.Command, name string) error {
	s, set, err := sf.check(name)
	if err != nil {
		return err
	}
	stderr := cmd.ErrOrStderr()
	ctx, cancel := interruptible()
	defer cancel()
	log := &lazyLog{path: filepath.Join(sf.out, "scenario.log")}
	defer log.Close()
	env := &scenario.Env{Out: sf.out, Mode: scenario.Mode(sf.mode), ClusterDir: sf.clusterDir, LocalWorkers: sf.localWorkers,
		Log: io.MultiWriter(stderr, log), Now: time.Now, Exec: log.exec, Leaving: hub.leaving}
	res, err := scenario.Execute(ctx, s, env, set)
	var ce *scenario.CheckError
	if errors.As(err, &ce) {
		return usageErr(err)
	}
	if res.Name == "" { // Execute refused before running: nothing was written
		return usageErr(err)
	}
	if perr := sf.print(cmd.OutOrStdout(), stderr, &res); perr != nil && err == nil {
		err = perr
	}
	return scenarioExit(ctx, err, &res, sf.out)
}

// check refuses bad input before anything exists: the name, --workers, --mode, --set, --out,
// --cluster-dir (--local-workers is the scenario's to check: scenario.Execute).
func (sf *scenarioFlags) check(name string) (scenario.Scenario, map[string]string, error) {
	s, err := scenario.Lookup(name)
	if err != nil {
		return s, nil, usageErr(err)
	}
	if sf.workers != 0 {
		return s, nil, usageErrf("--workers: scenario run takes no workers you start: a scenario starts its own clusters (or runs on --cluster-dir's) and its steps' runs, "+
			"which such workers could not join; spread its load over children of this plimsoll with --local-workers %d", sf.workers)
	}
	set := map[string]string{}
	for _, kv := range sf.set {
		k, v, ok := strings.Cut(kv, "=")
		if !ok || strings.TrimSpace(k) == "" {
			return s, nil, usageErrf("--set %q: give NAME=VALUE, e.g. --set %s=%s", kv, firstParam(s), firstValue(s))
		}
		set[strings.TrimSpace(k)] = strings.TrimSpace(v)
	}
	if _, err := scenario.Resolve(s, scenario.Mode(sf.mode), set); err != nil {
		return s, nil, usageErr(err)
	}
	if err := checkScenarioOut(sf.out); err != nil {
		return s, nil, err
	}
	if sf.clusterDir != "" {
		c, err := localkafka.Open(sf.clusterDir)
		if err != nil {
			return s, nil, usageErrf("--cluster-dir %s: %v; start one with `plimsoll cluster up --cluster-dir %s`, or leave out --cluster-dir and the scenario starts its own", sf.clusterDir, err, sf.clusterDir)
		}
		if c.Stopped {
			return s, nil, usageErrf("--cluster-dir %s: the cluster is stopped; start it with `plimsoll cluster up --cluster-dir %s`", sf.clusterDir, sf.clusterDir)
		}
	}
	return s, set, nil
}

// checkScenarioOut wants --out given, writable, and new or empty: a scenario's steps write
// directories of their own below it, which an earlier run's would mix with.
func checkScenarioOut(dir string) error {
	if dir == "" {
		return usageErrf("--out: give the directory for the scenario's results, e.g. --out scen1 (new or empty)")
	}
	if err := checkOut(dir); err != nil {
		return err
	}
	entries, err := os.ReadDir(dir)
	if err == nil && len(entries) > 0 {
		what := "it holds " + entries[0].Name()
		if _, err := os.Stat(filepath.Join(dir, results.ScenarioFile)); err == nil {
			what = "it holds a scenario's results (render them with plimsoll report " + dir + ")"
		}
		return usageErrf("--out %s is not empty (%s); give a new or empty directory", dir, what)
	}
	return nil
}

// print writes the findings (or the record with --json) and the page, index.html.
func (sf *scenarioFlags) print(stdout, stderr io.Writer, res *results.Scenario) error {
	if err := report.WriteScenarioDir(sf.out, res); err != nil {
		return err
	}
	if sf.output.json {
		err := report.ScenarioJSON(stdout, res)
		fmt.Fprintf(stderr, "wrote %s\n", filepath.Join(sf.out, "index.html"))
		return err
	}
	if err := report.ScenarioText(stdout, res); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "\nwrote %s (the step's output is in %s)\n", filepath.Join(sf.out, "index.html"), filepath.Join(sf.out, "scenario.log"))
	return nil
}

// scenarioExit is the exit of a scenario that ran: 130/143 when a signal stopped it, 1 when it
// failed or measured nothing, 0 otherwise (steps that failed are data, in its record).
func scenarioExit(ctx context.Context, err error, res *results.Scenario, out string) error {
	if interruptedBy(ctx) != nil {
		return interruptedErr(ctx, fmt.Sprintf("scenario %s interrupted; what it measured is in %s", res.Name, out), "run it again with another --out")
	}
	if err != nil {
		return withHint(fmt.Errorf("scenario %s: %w", res.Name, err), "see "+filepath.Join(out, "scenario.log")+" for the steps' output")
	}
	if !measured(res) {
		return withHint(fmt.Errorf("scenario %s measured nothing: %s", res.Name, strings.Join(res.Failures, "; ")),
			"see "+filepath.Join(out, "scenario.log")+" for the steps' output")
	}
	return nil
}

// measured says whether a scenario has a finding or a measured point.
func measured(res *results.Scenario) bool {
	if len(res.Findings) > 0 {
		return true
	}
	for _, c := range res.Charts {
		for _, s := range c.Series {
			if s.Kind == results.SeriesMeasured && len(s.Points) > 0 {
				return true
			}
		}
	}
	return false
}

// lazyLog is --out/scenario.log, opened on the first write (after the preconditions held, as
// a scenario's steps run only then), and the Exec that runs a step in this process with its
// stdout and stderr appended to it.
type lazyLog struct {
	path string
	mu   sync.Mutex
	f    *os.File
}

func (l *lazyLog) file() (*os.File, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.f == nil {
		if err := os.MkdirAll(filepath.Dir(l.path), 0o755); err != nil {
			return nil, err
		}
		f, err := os.OpenFile(l.path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
		if err != nil {
			return nil, err
		}
		l.f = f
	}
	return l.f, nil
}

func (l *lazyLog) Write(p []byte) (int, error) {
	f, err := l.file()
	if err != nil {
		return 0, err
	}
	return f.Write(p)
}

func (l *lazyLog) Close() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.f == nil {
		return nil
	}
	return l.f.Close()
}

// exec runs one plimsoll command line through a fresh command tree, as a user would type it,
// and returns its exit code; its error message and hint go to the log as main prints them.
func (l *lazyLog) exec(ctx context.Context, args ...string) (int, error) {
	f, err := l.file()
	if err != nil {
		return ExitError, err
	}
	root := newRootCmd()
	root.SetOut(f)
	root.SetErr(f)
	root.SetArgs(args)
	return exitCode(root.ExecuteContext(ctx), f), nil
}

// completeScenarioNames completes scenario run's NAME.
func completeScenarioNames(_ *cobra.Command, args []string, _ string) ([]cobra.Completion, cobra.ShellCompDirective) {
	if len(args) > 0 {
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
	var out []cobra.Completion
	for _, s := range scenario.All() {
		out = append(out, cobra.CompletionWithDesc(s.Name, s.Title))
	}
	return out, cobra.ShellCompDirectiveNoFileComp
}

// completeScenarioParams completes --set with the named scenario's parameters.
func completeScenarioParams(_ *cobra.Command, args []string, _ string) ([]cobra.Completion, cobra.ShellCompDirective) {
	if len(args) == 0 {
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
	s, err := scenario.Lookup(args[0])
	if err != nil {
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
	var out []cobra.Completion
	for _, p := range s.Params {
		out = append(out, cobra.CompletionWithDesc(p.Name+"=", p.Doc))
	}
	return out, cobra.ShellCompDirectiveNoFileComp | cobra.ShellCompDirectiveNoSpace
}

func firstParam(s scenario.Scenario) string {
	if len(s.Params) == 0 {
		return "name"
	}
	return s.Params[0].Name
}

func firstValue(s scenario.Scenario) string {
	if len(s.Params) == 0 {
		return "value"
	}
	return s.Params[0].Full
}
