package limit

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/plimsoll/plimsoll/fleet"
	"github.com/plimsoll/plimsoll/loadgen"
	"github.com/plimsoll/plimsoll/results"
	"github.com/plimsoll/plimsoll/trial"
)

// Runner is the Trialer that runs real trials with package trial: Base with the message size and
// rate of each trial, its topics named with a prefix of their own.
type Runner struct {
	// Base is every trial's configuration; Spec.MessageSize and Spec.Rate are set per trial.
	Base trial.Config
	// TrialsDir receives one directory per trial (result.json, timeline.csv, ...); empty: none.
	// Each trial's record names its directory relative to TrialsDir's parent (the results file's
	// directory).
	TrialsDir string
	// SearchID names the search; each trial's topics start with plimsoll-<SearchID>-tN-.
	SearchID string
	// Hold is the measured window of a confirmation (a Request with Hold); 0: twice the base's.
	Hold time.Duration
	// Run runs one trial; nil: trial.Run.
	Run func(context.Context, trial.Config) (*results.Trial, error)
	n   atomic.Int64
}

// Trial runs one trial at req.Size bytes and req.Rate msgs/s, for the hold's window when
// req.Hold is set.
func (r *Runner) Trial(ctx context.Context, req Request) (*results.Trial, error) {
	n := r.n.Add(1)
	size, rate := req.Size, req.Rate
	cfg := r.Base
	cfg.Spec = r.Base.Spec.Clone()
	cfg.Spec.MessageSize, cfg.Spec.Rate = size, rate // batch.size follows the size (kafkaprops.BatchSize)
	if req.Hold {
		cfg.Spec.Duration = r.Hold
		if r.Hold <= 0 {
			cfg.Spec.Duration = 2 * r.Base.Spec.Duration
		}
	}
	cfg.Load.RunID = fmt.Sprintf("%s-t%d", r.SearchID, n)
	cfg.Load.TopicPrefix = fmt.Sprintf("plimsoll-%s-t%d-", r.SearchID, n)
	if cfg.Probe.Spill.Dir == "" {
		cfg.Probe.Spill.Dir = r.TrialsDir // a long hold's samples spill beside the trials' files
	}
	run := r.Run
	if run == nil {
		run = trial.Run
	}
	t, err := run(ctx, cfg)
	if err != nil {
		if ctx.Err() != nil {
			return nil, r.interrupted(n, req, t, err)
		}
		if errors.Is(err, loadgen.ErrNotAuthorized) { // every other rate would be refused too
			return nil, err
		}
		if errors.Is(err, fleet.ErrMissing) || errors.Is(err, fleet.ErrRefused) {
			return nil, err // workers that did not join, or refused the plan, will not join the next trial either
		}
		// A trial that could not run (set-up failed, a broker gone) says nothing about this
		// rate: the search retries it once, then moves on.
		return failed(fmt.Errorf("trial failed: %w", err)), nil
	}
	if r.TrialsDir != "" {
		name := r.dirName(n, req)
		err := results.WriteTrialDir(filepath.Join(r.TrialsDir, name), t)
		t.Close() // written: the search reads the record, never the samples again
		if err != nil {
			return nil, fmt.Errorf("writing trial %d: %w", n, err)
		}
		t.Dir = filepath.Join(filepath.Base(r.TrialsDir), name)
	}
	return t, nil
}

// ContinueNumbering makes the runner's trials number on from the highest-numbered directory
// already in TrialsDir, so that a resumed search's new trials never reuse an earlier process's
// names (and never write into an earlier trial's directory).
func (r *Runner) ContinueNumbering() error {
	entries, err := os.ReadDir(r.TrialsDir)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		return err
	}
	var last int64
	for _, e := range entries {
		head, _, _ := strings.Cut(e.Name(), "-")
		if n, err := strconv.ParseInt(head, 10, 64); err == nil && e.IsDir() {
			last = max(last, n)
		}
	}
	r.n.Store(last)
	return nil
}

// dirName names the directory of the runner's n-th trial.
func (r *Runner) dirName(n int64, req Request) string {
	name := fmt.Sprintf("%d-%dB-%s", n, req.Size, strconv.FormatFloat(req.Rate, 'f', 0, 64))
	if req.Hold {
		name += "-hold"
	}
	return name
}

// interrupted keeps what an interrupted trial measured in a directory of its own, marked
// interrupted (never in the results file: a resumed search runs the trial again), and returns
// err saying where it is.
func (r *Runner) interrupted(n int64, req Request, t *results.Trial, err error) error {
	if t == nil || t.Window.MeasuredSeconds <= 0 || r.TrialsDir == "" {
		return fmt.Errorf("%w (before its window began; nothing of it kept)", err)
	}
	defer t.Close()
	dir := filepath.Join(r.TrialsDir, r.dirName(n, req)+"-interrupted")
	if werr := results.WriteTrialDir(dir, t); werr != nil {
		return errors.Join(err, fmt.Errorf("writing the interrupted trial: %w", werr))
	}
	return &InterruptedError{Dir: dir, Err: err}
}

// InterruptedError is a trial interrupted in its window whose partial figures were kept in Dir.
type InterruptedError struct {
	Dir string // the trial's directory, its result.json marked interrupted
	Err error  // wraps loadgen.ErrInterrupted
}

func (e *InterruptedError) Error() string {
	return fmt.Sprintf("%v; what it measured is in %s, marked interrupted, and not used by the search", e.Err, e.Dir)
}

// Unwrap lets errors.Is find loadgen.ErrInterrupted and the context's error.
func (e *InterruptedError) Unwrap() error { return e.Err }
