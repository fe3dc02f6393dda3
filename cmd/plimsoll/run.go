package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/plimsoll/plimsoll/fleet"
	"github.com/plimsoll/plimsoll/loadgen"
	"github.com/plimsoll/plimsoll/loadgen/topics"
	"github.com/plimsoll/plimsoll/report"
	"github.com/plimsoll/plimsoll/results"
	"github.com/plimsoll/plimsoll/trial"
	"github.com/plimsoll/plimsoll/units"
	"github.com/plimsoll/plimsoll/verdict"
	"github.com/spf13/cobra"
	"golang.org/x/term"
)

func init() { subcommands = append(subcommands, newRunCmd) }

func newRunCmd() *cobra.Command { return newRunCmdFor(nil) }

// runLong is run's help.
const runLong = `run drives a Kafka cluster with real producers and consumers for a window and reports what
happened: achieved rates, publish and end-to-end latency measured from each message's intended
send time (no coordinated omission), the scheduling delay, a ledger of lost, duplicated and
out-of-order messages, a USE table of every broker and the client host, and a verdict:
ok, overloaded (exit 3) or invalid, e.g. client-bound (exit 4).

Without --bootstrap it uses the local cluster (plimsoll cluster), starting one if none is up.
Topics are named with --topic-prefix, created by the run and deleted after it.`

// newRunCmdFor is `plimsoll run`, steered by the A/B driver when ab is not nil.
func newRunCmdFor(ab *abHook) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "run",
		Short: "Run a workload against a cluster and report rates, latency, loss, the USE table and a verdict",
		Long:  runLong,
		Example: `  plimsoll run --rate 5000 --message-size 1000 --duration 60s
  plimsoll run --workload omb/1-topic-16-partitions-1kb.yaml --driver omb/kafka-throughput.yaml
  plimsoll run --bootstrap b1:9092 --tls --sasl-mechanism scram-sha-512 --sasl-user bench \
      --producer-prop acks=all --producer-prop linger.ms=10 --rate 100000 --out results/base`,
		Args: cobra.NoArgs,
	}
	wf := addWorkloadFlags(cmd.Flags())
	tf := addTargetFlags(cmd.Flags())
	tf.ab = ab
	crit := addCriteriaFlags(cmd.Flags())
	mf := addMetricsFlags(cmd.Flags())
	rf := &runFlags{}
	rf.register(cmd)
	cmd.RunE = func(cmd *cobra.Command, _ []string) error { return rf.run(cmd, wf, tf, crit, mf) }
	return cmd
}

// runFlags are run's own flags.
type runFlags struct {
	out, prefix string
	keep        bool
	lean        bool
	drain       time.Duration
	setup       time.Duration
	faults      []string
	om          *outputMode
	// workers and localWorkers spread the load over worker processes (docs/workers.md).
	workers, localWorkers int
}

// register adds run's own flags to cmd.
func (rf *runFlags) register(cmd *cobra.Command) {
	f := cmd.Flags()
	f.StringVar(&rf.out, "out", "", "directory for result.json, timeline.csv, histograms.hlog and probe.json")
	f.StringVar(&rf.prefix, "topic-prefix", "", "prefix of the run's topics and groups (default plimsoll-<run id>-); plimsoll never touches other topics")
	f.BoolVar(&rf.keep, "keep-topics", false, "keep the run's topics afterwards")
	f.BoolVar(&rf.lean, "lean-producer", false, "experimental: produce through plimsoll's own produce path (its own record batches, up to 5 requests in flight per broker with idempotence; docs/lean-producer.md) instead of franz-go's producer; no acks=0, not with workers")
	f.DurationVar(&rf.drain, "drain-timeout", loadgen.DefaultDrainTimeout, "how long consumers may take to catch up after the window before unseen messages count")
	f.DurationVar(&rf.setup, "setup-timeout", loadgen.DefaultSetupTimeout, "how long creating the run's topics, and its consumer groups' assignment, may take before the run gives up (a broker that answers nothing holds them up)")
	rf.om = addOutputFlags(cmd, "result.json (schema in the README) instead of the summary")
	f.StringArrayVar(&rf.faults, "fault", nil, faultHelp)
	f.IntVar(&rf.workers, "workers", 0, "spread the load over N `plimsoll worker` processes you start (the run id and their command lines are printed on stderr; docs/workers.md)")
	f.IntVar(&rf.localWorkers, "local-workers", 0, "spread the load over N `plimsoll worker` child processes of this binary on this host (their output in OUT/workers)")
}

// run is run's command: every flag checked before any side effect, then the trial.
func (rf *runFlags) run(cmd *cobra.Command, wf *workloadFlags, tf *targetFlags, crit *verdict.Criteria, mf *metricsFlags) error {
	cfg, err := runConfig(wf, crit, rf.prefix, cmd.ErrOrStderr())
	if err != nil {
		return err
	}
	if cfg.Faults, err = faultPlan(rf.faults, cfg.Spec, tf.bootstrap, tf.clusterDir); err != nil {
		return err
	}
	if err := checkOut(rf.out); err != nil {
		return err
	}
	if rf.setup <= 0 {
		return usageErrf("--setup-timeout %v: give a positive duration, e.g. 60s", rf.setup)
	}
	if err := rf.checkWorkers(cfg); err != nil {
		return err
	}
	if rf.lean && rf.workerCount() > 0 {
		return errLeanWithWorkers()
	}
	if tf.checkOnly() {
		return nil
	}
	cfg.Load.KeepTopics, cfg.Load.DrainTimeout, cfg.Load.SetupTimeout = rf.keep, rf.drain, rf.setup
	cfg.Load.LeanProducer = rf.lean
	stderr := cmd.ErrOrStderr()
	exp, stopMetrics, err := mf.open(stderr, tf.ab)
	if err != nil {
		return err
	}
	defer stopMetrics()
	exp.Feed(&cfg.Load)
	exp.Trial(1, cfg.Spec.MessageSize, cfg.Spec.Rate)
	ctx, cancel := interruptible()
	defer cancel()
	tgt, err := tf.resolve(ctx, stderr)
	if err != nil {
		return err
	}
	defer release(tgt, stderr)
	cfg.Target, cfg.KafkaVersion, cfg.Probe = tgt.Target, tgt.KafkaVersion(), tgt.ProbeConfig()
	cfg.Probe.Spill.Dir = rf.out // a long run's samples and histograms spill where its files go (a temporary file without --out)
	if len(cfg.Faults) > 0 {
		if cfg.FaultTarget, err = faultTarget(tgt, tf.clusterDir); err != nil {
			return err
		}
	}
	var res *results.Trial
	if rf.workerCount() > 0 {
		res, err = rf.runWithWorkers(ctx, cfg, tgt.Target, tf.saslPassEnv, stderr)
	} else {
		res, err = runTrial(ctx, cfg, stderr)
	}
	if res != nil {
		defer res.Close()
	}
	if errors.Is(err, loadgen.ErrInterrupted) || interruptedBy(ctx) != nil {
		return runInterrupted(ctx, cmd.OutOrStdout(), res, rf.out, rf.om.json)
	}
	if err != nil {
		return runErr(tf.deniedErr(err, rf.prefix))
	}
	exp.Done(res)
	if err := writeRun(cmd.OutOrStdout(), res, rf.out, rf.om.json); err != nil {
		return err
	}
	return verdictExit(res.Verdict)
}

// runConfig checks the run's flags and turns them into a trial (without its cluster).
func runConfig(wf *workloadFlags, crit *verdict.Criteria, prefix string, stderr io.Writer) (trial.Config, error) {
	spec, err := wf.spec()
	if err != nil {
		return trial.Config{}, err
	}
	if err := checkCriteria(crit); err != nil {
		return trial.Config{}, err
	}
	if prefix != "" {
		if err := topics.CheckPrefix(prefix); err != nil {
			return trial.Config{}, usageErrf("--topic-prefix: %w", err)
		}
	}
	for _, w := range spec.Warnings() {
		fmt.Fprintf(stderr, "warning: %s\n", w)
	}
	return trial.Config{Spec: spec, Criteria: *crit, Load: loadgen.Options{TopicPrefix: prefix}}, nil
}

// runTrial runs the trial with a live progress line on a terminal.
func runTrial(ctx context.Context, cfg trial.Config, stderr io.Writer) (*results.Trial, error) {
	tty := isTTY(stderr)
	if tty {
		total := (cfg.Spec.Warmup + cfg.Spec.Duration).Seconds()
		cfg.Load.Progress = func(s loadgen.Second) { fmt.Fprintf(stderr, "\r\033[K%s", report.ProgressLine(s, total)) }
	}
	res, err := trial.Run(ctx, cfg)
	if tty {
		fmt.Fprint(stderr, "\r\033[K")
	}
	return res, err
}

// writeRun writes the trial's directory (when out is set) and prints its summary or its JSON.
// When the directory cannot be written, what was measured is still printed before the error.
func writeRun(w io.Writer, res *results.Trial, out string, asJSON bool) error {
	var werr error
	if out != "" {
		werr = results.WriteTrialDir(out, res)
	}
	if werr == nil || !asJSON { // --json: stdout stays empty on an error
		if err := printRun(w, res, asJSON); err != nil {
			return err
		}
	}
	if werr != nil {
		return fullErr(out, fmt.Errorf("writing %s: %w", out, werr),
			"nothing of this run was written there; its topics were deleted", "run it again")
	}
	if out != "" && !asJSON {
		fmt.Fprintf(w, "\nwrote %s/result.json, timeline.csv, histograms.hlog, probe.json\n", out)
	}
	return nil
}

// printRun prints the trial's summary, or its JSON.
func printRun(w io.Writer, res *results.Trial, asJSON bool) error {
	if asJSON {
		return printJSON(w, res)
	}
	return report.RunSummary(w, res)
}

// runInterrupted keeps what an interrupted run measured: its result (marked interrupted) is
// written and summarised when its window had begun; otherwise it says nothing was kept.
func runInterrupted(ctx context.Context, w io.Writer, res *results.Trial, out string, asJSON bool) error {
	const hint = "run it again; its topics and groups were deleted"
	if res == nil || res.Window.MeasuredSeconds <= 0 {
		return interruptedErr(ctx, "interrupted before the measured window began: nothing was measured, nothing kept", hint)
	}
	if err := writeRun(w, res, out, asJSON); err != nil {
		return err
	}
	where := "the summary above"
	switch {
	case out != "":
		where = out + "/result.json"
	case asJSON:
		where = "the JSON above"
	}
	return interruptedErr(ctx, fmt.Sprintf("interrupted after %s s of the %s s window: what it measured is in %s, marked interrupted",
		units.Short(res.Window.MeasuredSeconds), units.Short(res.Config.Spec.Duration.Seconds()), where), hint)
}

// verdictExit maps a verdict to the documented exit codes, silently: the summary said it.
func verdictExit(v verdict.Verdict) error {
	switch v.State {
	case verdict.Overloaded:
		return &cliError{code: ExitOverloaded, err: errors.New("overloaded"), silent: true}
	case verdict.Invalid:
		return &cliError{code: ExitInvalid, err: errors.New("invalid"), silent: true}
	}
	return nil
}

// runErr gives the load generator's input errors exit code 2.
func runErr(err error) error {
	switch {
	case errors.Is(err, loadgen.ErrTopicsExist):
		return &cliError{code: ExitUsage, err: err, hint: "pick another --topic-prefix, or delete those topics if they are left from an earlier run"}
	case errors.Is(err, loadgen.ErrUnknownProperty), errors.Is(err, loadgen.ErrBadProperty), errors.Is(err, loadgen.ErrBadPrefix), errors.Is(err, fleet.ErrPlan):
		return usageErr(err)
	}
	return probeErr(err)
}

func isTTY(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

// errLeanWithWorkers refuses --lean-producer beside workers (run and limit alike): the lean path
// runs in this process only.
func errLeanWithWorkers() error {
	return usageErrf("--lean-producer runs in this process only, not with --workers or --local-workers")
}
