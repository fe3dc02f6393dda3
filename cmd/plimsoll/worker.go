package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"time"

	"github.com/plimsoll/plimsoll/fleet"
	"github.com/plimsoll/plimsoll/fleet/launch"
	"github.com/plimsoll/plimsoll/loadgen"
	"github.com/plimsoll/plimsoll/target"
	"github.com/plimsoll/plimsoll/trial"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"github.com/twmb/franz-go/pkg/kgo"
)

func init() { subcommands = append(subcommands, newWorkerCmd) }

// workerLimits and workerClock bound a worker's waits (its run's control topic, the
// coordinator's heartbeats); tests shorten them.
var (
	workerLimits             = fleet.DefaultLimits
	workerClock  fleet.Clock = fleet.WallClock
)

const workerLong = `worker runs one share of a run spread over several processes (docs/workers.md): it finds the
run's control topic on the cluster under test, reads the plan the coordinator wrote, joins,
runs its share of the workload from the plan's start and publishes its reports to the run's
results topic. It stops when the coordinator ends the run or goes silent.

With --search instead of --run-id it follows a limit search (plimsoll limit --workers): it
joins each trial the search announces, in turn, and exits at the search's end.

Its index, 0 to N-1, comes from --index or, without it, from $` + launch.IndexEnv + ` (set by
a Kubernetes Indexed Job). Its version must be the coordinator's. It creates no topic.`

func newWorkerCmd() *cobra.Command {
	wf := &workerFlags{}
	cmd := &cobra.Command{
		Use:   "worker",
		Short: "Run one worker's share of a run spread over several processes",
		Long:  workerLong,
		Example: `  plimsoll worker --run-id 20261127t040000-cd34 --index 0 --bootstrap kafka:9092
  JOB_COMPLETION_INDEX=2 plimsoll worker --run-id 20261127t040000-cd34 --bootstrap kafka:9092
  plimsoll worker --search l1a2b3c-081500 --index 0 --bootstrap kafka:9092`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			ctx, stop := interruptible()
			defer stop()
			return wf.run(ctx, cmd.ErrOrStderr(), os.Getenv)
		},
	}
	cmd.Flags().StringVar(&wf.runID, "run-id", "", "the run to join: the id the coordinator printed (this or --search)")
	cmd.Flags().StringVar(&wf.search, "search", "", "instead of --run-id, the limit search to follow: the `SEARCH_ID` limit --workers printed; each of its trials is joined in turn")
	cmd.Flags().IntVar(&wf.index, "index", 0, "this worker's index, 0 to N-1; without it, $"+launch.IndexEnv)
	wf.target = addWorkerTargetFlags(cmd.Flags())
	wf.fs = cmd.Flags()
	cmd.AddCommand(newWorkerManifestCmd())
	return cmd
}

// workerFlags are a worker's command line: the run, its index and the target.
type workerFlags struct {
	runID  string
	search string // --search: follow this limit search's trials
	index  int
	target *targetFlags
	fs     *pflag.FlagSet
}

// targetFlagNames are the target flags a worker takes: the connection only (the coordinator,
// not a worker, reads the brokers' metrics).
var targetFlagNames = []string{"bootstrap", "tls", "tls-ca", "tls-cert", "tls-key", "sasl-mechanism", "sasl-user", "sasl-password-env"}

// addWorkerTargetFlags registers on fs the target flags of targetFlagNames, as every command
// that reaches a cluster defines them; --bootstrap is required.
func addWorkerTargetFlags(fs *pflag.FlagSet) *targetFlags {
	all := pflag.NewFlagSet("target", pflag.ContinueOnError)
	t := addTargetFlags(all)
	for _, name := range targetFlagNames {
		fs.AddFlag(all.Lookup(name))
	}
	b := fs.Lookup("bootstrap")
	b.Usage = "bootstrap servers host:port,... of the cluster under test (required)"
	delete(b.Annotations, flagGroupKey) // its group's title offers the local cluster, which a worker never starts
	return t
}

// indexOf is the worker's index: --index, else $JOB_COMPLETION_INDEX; with neither, a usage
// error naming both.
func (wf *workerFlags) indexOf(indexSet bool, getenv func(string) string) (int, error) {
	if indexSet {
		if wf.index < 0 {
			return 0, usageErrf("--index %d: give the worker's index, 0 to N-1", wf.index)
		}
		return wf.index, nil
	}
	v := getenv(launch.IndexEnv)
	if v == "" {
		return 0, usageErrf("no worker index: give --index I (0 to N-1), or set $%s (a Kubernetes Indexed Job sets it)", launch.IndexEnv)
	}
	i, err := strconv.Atoi(v)
	if err != nil || i < 0 {
		return 0, usageErrf("$%s=%q: give the worker's index, 0 to N-1, or --index", launch.IndexEnv, v)
	}
	return i, nil
}

// joining checks the command line and says who the worker is.
func (wf *workerFlags) joining(indexSet bool, getenv func(string) string) (fleet.Joining, target.Target, error) {
	var tg target.Target
	if err := wf.checkID(); err != nil {
		return fleet.Joining{}, tg, err
	}
	i, err := wf.indexOf(indexSet, getenv)
	if err != nil {
		return fleet.Joining{}, tg, err
	}
	if wf.target.bootstrap == "" {
		return fleet.Joining{}, tg, usageErrf("--bootstrap is required: give the cluster under test's bootstrap servers, as the coordinator was given them")
	}
	if tg, err = wf.target.target(); err != nil {
		return fleet.Joining{}, tg, err
	}
	host := fleet.SelfHost()
	return fleet.Joining{RunID: wf.runID, Index: i, Version: plimsollVersion(), Host: host.Name, BootID: host.BootID}, tg, nil
}

// run joins the run, runs the worker's share and publishes its reports.
func (wf *workerFlags) run(ctx context.Context, log io.Writer, getenv func(string) string) error {
	j, tg, err := wf.joining(wf.fs.Changed("index"), getenv)
	if err != nil {
		return err
	}
	if _, err := trial.Remote(ctx, tg); err != nil {
		return wf.target.reachErr(err)
	}
	base, err := tg.ClientOpts()
	if err != nil {
		return usageErr(err)
	}
	if wf.search != "" {
		return follow(ctx, base, wf.search, j, tg, log)
	}
	return joinAndRun(ctx, base, j, tg, log)
}

// joinAndRun joins the run j names, runs the worker's share and publishes its reports.
func joinAndRun(ctx context.Context, base []kgo.Opt, j fleet.Joining, tg target.Target, log io.Writer) error {
	w, err := fleet.Join(ctx, base, j, workerClock, workerLimits)
	if err != nil {
		return joinErr(err, j)
	}
	defer w.Close()
	fmt.Fprintf(log, "worker %d of %d joined run %s: %d producers, partitions [%d, %d), from %s\n", j.Index, w.Plan.Workers, j.RunID,
		w.Share.Producers.Len(), w.Share.Partitions.Lo, w.Share.Partitions.Hi, w.Plan.Start.Format(time.RFC3339Nano))
	return runShare(ctx, w, tg, log)
}

// runShare runs the worker's share until it ends or the coordinator is gone, then flushes its
// reports.
func runShare(ctx context.Context, w *fleet.Worker, tg target.Target, log io.Writer) error {
	rctx, stop := stopWhenGone(ctx, w, workerLimits.Poll)
	defer stop()
	res, err := loadgen.Run(rctx, w.Plan.Spec, tg, readyLine(w.RunOptions(), w.Share.Worker, time.Now(), log))
	if cause := context.Cause(rctx); err != nil && errors.Is(cause, fleet.ErrCoordinatorGone) {
		return fmt.Errorf("worker %d stopped: %w", w.Share.Worker, cause)
	}
	if err != nil {
		return leave(ctx, w, err, log)
	}
	fctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	if err := w.Flush(fctx); err != nil {
		return fmt.Errorf("worker %d: its reports: %w", w.Share.Worker, err)
	}
	fmt.Fprintf(log, "worker %d done: %d sent, %d acknowledged, %d consumed in the window\n", w.Share.Worker, res.Counts.Sent, res.Counts.Acked, res.Counts.Consumed)
	return nil
}

// readyLine makes the run say, once the worker's share is set up (its topics found, its groups
// joined, settled), how long before the plan's start that was: the slack left of the run's lead.
// A worker ready after the start fails its run ("ready ... after the start"), so this is the
// margin to watch.
func readyLine(o loadgen.Options, worker int, began time.Time, log io.Writer) loadgen.Options {
	o.Started = func(producers, _ time.Time) {
		now := time.Now()
		slack, when := producers.Sub(now).Round(10*time.Millisecond), "before"
		if slack < 0 {
			slack, when = -slack, "after"
		}
		fmt.Fprintf(log, "worker %d ready %s %s the start (set-up took %s)\n", worker, slack, when, now.Sub(began).Round(10*time.Millisecond))
	}
	return o
}

// leave tells the coordinator that the worker's run ended before its final report, and why: the
// signal that interrupted it, or the run's error. The coordinator then judges it lost at once,
// naming the reason, with the seconds it reported merged. It returns the run's error.
// It gives up once the coordinator is gone (interrupted with it, say), as nobody is listening.
func leave(ctx context.Context, w *fleet.Worker, runErr error, log io.Writer) error {
	tctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
	defer cancel()
	lctx, stop := stopWhenGone(tctx, w, workerLimits.Poll)
	defer stop()
	err := w.Leave(lctx, leaveReason(ctx, runErr))
	if err != nil && !errors.Is(context.Cause(lctx), fleet.ErrCoordinatorGone) {
		fmt.Fprintf(log, "worker %d: telling the coordinator it left: %v (it will find the worker silent)\n", w.Share.Worker, err)
	}
	return fmt.Errorf("worker %d: %w", w.Share.Worker, runErr)
}

// leaveReason says why a worker's run ended early: the signal that ended ctx, or the run's
// error.
func leaveReason(ctx context.Context, runErr error) string {
	if sig := interruptedBy(ctx); sig != nil {
		return "interrupted by " + signalName(sig)
	}
	return fmt.Sprintf("its run failed: %v", runErr)
}

// stopWhenGone returns a context of ctx cancelled, with w.Err as its cause, once the
// coordinator has ended the run or gone silent, looked at every poll.
func stopWhenGone(ctx context.Context, w interface{ Err() error }, poll time.Duration) (context.Context, context.CancelFunc) {
	rctx, cancel := context.WithCancelCause(ctx)
	done := make(chan struct{})
	go func() {
		t := time.NewTicker(poll)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-t.C:
				if err := w.Err(); err != nil {
					cancel(err)
					return
				}
			}
		}
	}()
	return rctx, func() { close(done); cancel(context.Canceled) }
}

// joinErr explains a join that failed: a run not found or a plan refused is the launcher's
// input to fix (exit 2), with a hint.
func joinErr(err error, j fleet.Joining) error {
	switch {
	case errors.Is(err, fleet.ErrNoRun):
		return &cliError{code: ExitUsage, err: err, hint: fmt.Sprintf("give --run-id the id `plimsoll run --workers` printed (this worker has %s), and start the coordinator first", j.RunID)}
	case errors.Is(err, fleet.ErrVersion):
		return &cliError{code: ExitUsage, err: err, hint: fmt.Sprintf("this worker is plimsoll %s: start workers of the coordinator's version", j.Version)}
	case errors.Is(err, fleet.ErrLate), errors.Is(err, fleet.ErrRunID), errors.Is(err, fleet.ErrPlan):
		return &cliError{code: ExitUsage, err: err, hint: "the refusal is published: the coordinator stops too; start the run again with its workers together"}
	}
	return err
}
