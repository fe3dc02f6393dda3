package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/plimsoll/plimsoll/fleet"
	"github.com/plimsoll/plimsoll/fleet/launch"
	"github.com/plimsoll/plimsoll/results"
	"github.com/plimsoll/plimsoll/target"
	"github.com/plimsoll/plimsoll/trial"
	"github.com/plimsoll/plimsoll/workload"
)

// localLead is the time from the plan to the producers' start with --local-workers: the
// children start, join and set up their shares on this host within it. Measured: 3 local
// workers on a 3-broker local cluster, the 2-core host at a load average of 15-19, were ready
// 1.3-5.8 s after the plan (each worker's "ready ... before the start" line); a worker ready
// after the start fails its trial, naming itself, rather than starting late.
const localLead = 10 * time.Second

// coordinatorLimits and coordinatorLead bound a run with workers' waits as its coordinator
// keeps them (zero: trial.Workers' defaults; --local-workers' lead is localLead); tests shorten
// them.
var (
	coordinatorLimits fleet.Limits
	coordinatorLead   time.Duration
)

// workerCount is N of --workers or --local-workers, 0 without them.
func (rf *runFlags) workerCount() int { return max(rf.workers, rf.localWorkers) }

// checkWorkers refuses --workers and --local-workers together, below 0, with the flags a run
// with workers cannot take, or with a workload N workers cannot share.
func (rf *runFlags) checkWorkers(cfg trial.Config) error {
	switch {
	case rf.workers < 0 || rf.localWorkers < 0:
		return usageErrf("--workers %d, --local-workers %d: give a number of workers, 1 or more", rf.workers, rf.localWorkers)
	case rf.workers > 0 && rf.localWorkers > 0:
		return usageErrf("--workers and --local-workers together: give one (--workers for workers you start, --local-workers for children of this plimsoll)")
	case rf.workerCount() == 0:
		return nil
	case rf.prefix != "":
		return usageErrf("--topic-prefix with workers: a run with workers lives under plimsoll-<run id>-, which its workers find; leave --topic-prefix out")
	case rf.keep:
		return usageErrf("--keep-topics with workers: the run's topics are deleted with its control topics; leave --keep-topics out")
	}
	return checkWorkerSpec(cfg.Spec, rf.workerCount())
}

// runWithWorkers runs the trial with its load spread over workers: printed command lines for
// --workers, children of this binary for --local-workers.
func (rf *runFlags) runWithWorkers(ctx context.Context, cfg trial.Config, tgt target.Target, passwordEnv string, stderr io.Writer) (*results.Trial, error) {
	if rf.localWorkers == 0 {
		lt := launchTarget(tgt, passwordEnv)
		ws := trial.Workers{N: rf.workers, Version: plimsollVersion(), Limits: coordinatorLimits, Lead: coordinatorLead, Spread: true}
		ws.Opened = func(p fleet.Plan) error { return printWorkerLines(stderr, p, lt) }
		return trial.RunWorkers(ctx, cfg, ws)
	}
	dir, err := rf.workersDir()
	if err != nil {
		return nil, err
	}
	return runLocalWorkers(ctx, cfg, rf.localWorkers, dir, stderr)
}

// runLocalWorkers runs the trial cfg (its target resolved) with its load spread over n
// children of this binary, their output in dir; they are killed when it ends.
func runLocalWorkers(ctx context.Context, cfg trial.Config, n int, dir string, stderr io.Writer) (*results.Trial, error) {
	lt, env := localTarget(cfg.Target)
	ws := trial.Workers{N: n, Version: plimsollVersion(), Limits: coordinatorLimits, Lead: localLead}
	var lw *localWorkers
	ws.Opened = func(p fleet.Plan) error {
		fmt.Fprintf(stderr, "run id %s: %d local workers\n", p.RunID, p.Workers)
		var err error
		lw, err = startLocalWorkers(p, lt, env, dir, stderr)
		return err
	}
	res, err := trial.RunWorkers(ctx, cfg, ws)
	if lw != nil {
		lw.stop(10 * time.Second)
	}
	return res, err
}

// checkWorkerSpec refuses a workload n workers cannot share (its partitions, when left to the
// cluster's size, are checked again once sized).
func checkWorkerSpec(spec workload.Spec, n int) error {
	if spec.PartitionsPerTopic == 0 {
		spec.PartitionsPerTopic = n
	}
	if err := fleet.CheckWorkers(spec, n); err != nil {
		return usageErr(err)
	}
	return nil
}

// workersDir is where local workers write their output: OUT/workers, or a new temporary
// directory without --out.
func (rf *runFlags) workersDir() (string, error) {
	if rf.out != "" {
		return filepath.Join(rf.out, "workers"), nil
	}
	return os.MkdirTemp("", "plimsoll-workers-")
}

// printWorkerLines prints the run id and the command line of each worker, to start before the
// plan's start.
func printWorkerLines(w io.Writer, p fleet.Plan, t launch.Target) error {
	lines, err := launch.Lines(launch.Spec{RunID: p.RunID, Workers: p.Workers, Target: t})
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "run id %s: start these %d workers before %s (each with plimsoll %s; `plimsoll worker manifest` writes a Kubernetes Job):\n",
		p.RunID, p.Workers, p.Start.Format(time.RFC3339), p.Version)
	for _, l := range lines {
		fmt.Fprintln(w, l)
	}
	return nil
}
