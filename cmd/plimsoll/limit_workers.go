package main

import (
	"cmp"
	"context"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"time"

	"github.com/plimsoll/plimsoll/fleet"
	"github.com/plimsoll/plimsoll/fleet/launch"
	"github.com/plimsoll/plimsoll/limit"
	"github.com/plimsoll/plimsoll/results"
	"github.com/plimsoll/plimsoll/trial"
)

// followLead is the time from a trial's plan to its producers' start in a search whose workers
// you started: every one follows the search before its first trial opens (plimsoll worker
// --search), so they join and set up within it, as --local-workers' children do (localLead).
const followLead = localLead

// searchWorkers spreads each trial of a limit search over workers: the N workers you start
// (--workers), which follow the search's topic, or N children of this binary per trial
// (--local-workers).
type searchWorkers struct {
	lf          *limitFlags
	passwordEnv string
	log         io.Writer
	search      *fleet.Search // with --workers, once the search's id is known
}

// wire sets the job's hooks for the flags' workers; nothing without them.
func (sw *searchWorkers) wire(ctx context.Context, job *limit.Job) {
	switch {
	case sw.lf.localWorkers > 0:
		job.RunTrial = func(ctx context.Context, cfg trial.Config) (*results.Trial, error) {
			return runLocalWorkers(ctx, cfg, sw.lf.localWorkers, filepath.Join(sw.lf.out, "workers", cfg.Load.RunID), sw.log)
		}
	case sw.lf.workers > 0:
		job.Opened = func(id string) error { return sw.open(ctx, job.Where, id) }
		job.RunTrial = sw.trial
	}
}

// open opens the search's topic and prints the command lines of the workers to start.
func (sw *searchWorkers) open(ctx context.Context, where *trial.Where, id string) error {
	base, err := where.Target.ClientOpts()
	if err != nil {
		return err
	}
	if sw.search, err = fleet.OpenSearch(ctx, base, id, searchLimits()); err != nil {
		return err
	}
	lines, err := launch.Lines(launch.Spec{RunID: id, Workers: sw.lf.workers, Target: launchTarget(where.Target, sw.passwordEnv), Search: true})
	if err != nil {
		return err
	}
	limits := searchLimits()
	wait := limits.Join + 10*time.Second // as long as a run with --workers leads, for you to start them
	fmt.Fprintf(sw.log, "search id %s: start these %d workers within %s, each with plimsoll %s; they follow the search's trials and exit at its end (`plimsoll worker manifest --search %s` writes a Kubernetes Job):\n  %s\n",
		id, sw.lf.workers, wait, plimsollVersion(), id, strings.Join(lines, "\n  "))
	if err := sw.search.AwaitFollowers(ctx, sw.lf.workers, plimsollVersion(), fleet.WallClock, limits, wait); err != nil {
		return err
	}
	fmt.Fprintf(sw.log, "search %s: all %d workers follow it\n", id, sw.lf.workers)
	return nil
}

// trial runs one trial over the followers: the run is announced on the search's topic once open.
func (sw *searchWorkers) trial(ctx context.Context, cfg trial.Config) (*results.Trial, error) {
	ws := trial.Workers{N: sw.lf.workers, Version: plimsollVersion(), Limits: coordinatorLimits, Lead: cmp.Or(coordinatorLead, followLead), Spread: true}
	ws.Opened = func(p fleet.Plan) error { return sw.search.Announce(ctx, p.RunID) }
	t, err := trial.RunWorkers(ctx, cfg, ws)
	if derr := sw.search.Done(context.WithoutCancel(ctx), cfg.Load.RunID); derr != nil {
		fmt.Fprintf(sw.log, "warning: %v (a worker started now may wait for that run first)\n", derr)
	}
	return t, err
}

// close ends the search for its followers and deletes its topic; a failure is a warning, the
// search's results stand.
func (sw *searchWorkers) close(err error) {
	if sw.search == nil {
		return
	}
	reason := "the search ended"
	if err != nil {
		reason = fmt.Sprintf("the search stopped: %v", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if cerr := sw.search.Close(ctx, reason); cerr != nil {
		fmt.Fprintf(sw.log, "warning: deleting the search's topic %s: %v\n", fleet.SearchTopic(sw.search.ID()), cerr)
	}
}

// searchLimits are the search topic's limits: the coordinator's, where a test set them.
func searchLimits() fleet.Limits {
	if coordinatorLimits.Beat > 0 {
		return coordinatorLimits
	}
	return fleet.DefaultLimits
}
