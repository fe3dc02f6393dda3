package main

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/plimsoll/plimsoll/fleet"
	"github.com/plimsoll/plimsoll/target"
	"github.com/twmb/franz-go/pkg/kgo"
)

// checkID refuses a worker without a run to join or a search to follow, with both, or with an
// id that breaks the prefix rule.
func (wf *workerFlags) checkID() error {
	switch {
	case wf.runID != "" && wf.search != "":
		return usageErrf("--run-id and --search together: give --run-id to join one run, --search to follow a limit search")
	case wf.search != "":
		if err := fleet.CheckRunID(wf.search); err != nil {
			return usageErrf("--search: %v", err)
		}
	case wf.runID == "":
		return usageErrf("--run-id is required: give the run id the coordinator printed (or --search, the search id limit --workers printed)")
	default:
		if err := fleet.CheckRunID(wf.runID); err != nil {
			return usageErrf("--run-id: %v", err)
		}
	}
	return nil
}

// follow follows limit search id: it joins each trial the search announces, in turn, until the
// search ends (nil) or its coordinator goes silent. A trial it could not join, or whose run
// failed, is logged and the worker waits for the next (the coordinator judges that trial); a
// refusal of the worker's version ends it, as would every later trial's; so does an
// interruption.
func follow(ctx context.Context, base []kgo.Opt, id string, j fleet.Joining, tg target.Target, log io.Writer) error {
	f, err := fleet.Follow(ctx, base, id, j, workerClock, workerLimits)
	if err != nil {
		return searchErr(err, id)
	}
	defer f.Close()
	fmt.Fprintf(log, "worker %d following search %s\n", j.Index, id)
	for {
		run, err := f.Next(ctx)
		if errors.Is(err, fleet.ErrSearchOver) {
			fmt.Fprintf(log, "worker %d: %v\n", j.Index, err)
			return nil
		}
		if err != nil {
			return fmt.Errorf("worker %d: %w", j.Index, err)
		}
		j.RunID = run
		err = joinAndRun(ctx, base, j, tg, log)
		if err != nil && (ctx.Err() != nil || errors.Is(err, fleet.ErrVersion)) {
			return err
		}
		if err != nil {
			fmt.Fprintf(log, "worker %d: run %s: %v; waiting for the search's next trial\n", j.Index, run, err)
		}
	}
}

// searchErr is a failure to find search id, with the fix.
func searchErr(err error, id string) error {
	if errors.Is(err, fleet.ErrNoRun) {
		return &cliError{code: ExitUsage, err: err, hint: fmt.Sprintf("give --search the search id `plimsoll limit --workers` printed (this worker has %s), and start the search first", id)}
	}
	return err
}
