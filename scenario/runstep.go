package scenario

import (
	"context"
	"fmt"
	"path/filepath"

	"github.com/plimsoll/plimsoll/results"
)

// Exit codes of `plimsoll run` that still leave a judged result behind (cmd/plimsoll's ExitOK,
// ExitOverloaded, ExitInvalid).
const (
	runOK         = 0
	runOverloaded = 3
	runInvalid    = 4
)

// runStep runs one `plimsoll run` into Out/dir and reads its result back. A run that ended
// without a verdict (any other exit code, or no result.json) is an error the caller records as a
// failure.
func runStep(ctx context.Context, env *Env, dir string, args ...string) (*results.Trial, error) {
	code, err := env.Plimsoll(ctx, dir, append([]string{"run"}, args...)...)
	if err != nil && code == runOK {
		return nil, fmt.Errorf("plimsoll run into %s: %w", dir, err)
	}
	if code != runOK && code != runOverloaded && code != runInvalid {
		return nil, fmt.Errorf("plimsoll run into %s: exit %d%s", dir, code, stepWhy(err))
	}
	t, lerr := results.LoadTrialDir(filepath.Join(env.Out, dir))
	if lerr != nil {
		return nil, fmt.Errorf("plimsoll run into %s (exit %d): %w", dir, code, lerr)
	}
	return t, nil
}

// stepWhy is what a failed step's record says beside its exit code: the error, or where its
// message went (the step's output is in scenario.log; "exit 1 (<nil>)" said neither).
func stepWhy(err error) string {
	if err != nil {
		return ": " + err.Error()
	}
	return " (its message is in scenario.log)"
}
