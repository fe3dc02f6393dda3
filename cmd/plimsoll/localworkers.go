package main

import (
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/plimsoll/plimsoll/fleet"
	"github.com/plimsoll/plimsoll/fleet/launch"
	"github.com/plimsoll/plimsoll/target"
)

// localWorkers are `plimsoll worker` child processes of this binary, one per index, each
// writing its output to its own log file; stop kills those still running.
type localWorkers struct {
	mu    sync.Mutex
	procs []*exec.Cmd
	wg    sync.WaitGroup
	ended bool // stop was called: an exit from then on is expected
}

// launchTarget is the target as a worker's flags give it (passwordEnv names the variable that
// holds the SASL password where the worker runs).
func launchTarget(t target.Target, passwordEnv string) launch.Target {
	lt := launch.Target{Bootstrap: strings.Join(t.Bootstrap, ",")}
	if t.TLS != nil {
		lt.TLS, lt.CAFile, lt.CertFile, lt.KeyFile = true, t.TLS.CAFile, t.TLS.CertFile, t.TLS.KeyFile
	}
	if t.SASL != nil {
		lt.SASLMechanism, lt.SASLUser, lt.SASLPasswordEnv = t.SASL.Mechanism, t.SASL.User, passwordEnv
	}
	return lt
}

// localPasswordEnv is the variable through which a local worker gets the SASL password: the
// coordinator sets it in each child's environment from the password it holds, however it got
// it (a variable of its own, a file, or a password compare generated for a SASL arm, which is
// in no variable at all).
const localPasswordEnv = "PLIMSOLL_LOCAL_WORKER_SASL_PASSWORD"

// localTarget is t as local workers' flags give it, and the environment entries they need
// beyond the coordinator's own: the SASL password under localPasswordEnv.
func localTarget(t target.Target) (launch.Target, []string) {
	if t.SASL == nil {
		return launchTarget(t, ""), nil
	}
	return launchTarget(t, localPasswordEnv), []string{localPasswordEnv + "=" + t.SASL.Password}
}

// startLocalWorkers starts plan's workers as children of this binary with launch.Args and this
// process's environment with env added, their output in dir/worker-I.log. A child that exits with an error before stop is reported on log,
// by index, with its log's path. On an error the children started are killed.
func startLocalWorkers(plan fleet.Plan, t launch.Target, env []string, dir string, log io.Writer) (*localWorkers, error) {
	exe, err := os.Executable()
	if err != nil {
		return nil, fmt.Errorf("--local-workers: finding plimsoll's own binary: %w", err)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("--local-workers: %w", err)
	}
	lw := &localWorkers{}
	for i := range plan.Workers {
		if err := lw.start(exe, plan, i, t, env, dir, log); err != nil {
			lw.stop(0)
			return nil, err
		}
	}
	fmt.Fprintf(log, "started %d local workers of run %s; their output in %s/worker-*.log\n", plan.Workers, plan.RunID, dir)
	return lw, nil
}

// start starts worker i and watches it.
func (lw *localWorkers) start(exe string, plan fleet.Plan, i int, t launch.Target, env []string, dir string, log io.Writer) error {
	path := filepath.Join(dir, fmt.Sprintf("worker-%d.log", i))
	f, err := os.Create(path)
	if err != nil {
		return fmt.Errorf("--local-workers: %w", err)
	}
	c := exec.Command(exe, launch.Args(plan.RunID, i, t)...)
	c.Env = append(os.Environ(), env...)
	c.Stdout, c.Stderr = f, f
	if err := c.Start(); err != nil {
		f.Close()
		return fmt.Errorf("--local-workers: starting worker %d: %w", i, err)
	}
	lw.mu.Lock()
	lw.procs = append(lw.procs, c)
	lw.mu.Unlock()
	lw.wg.Go(func() {
		err := c.Wait()
		f.Close()
		lw.mu.Lock()
		early := !lw.ended
		lw.mu.Unlock()
		if err != nil && early {
			fmt.Fprintf(log, "worker %d (pid %d) exited early: %v; its output: %s\n", i, c.Process.Pid, err, path)
		}
	})
	return nil
}

// stop waits up to grace for the workers to exit, then kills those still running and waits
// for them all.
func (lw *localWorkers) stop(grace time.Duration) {
	done := make(chan struct{})
	go func() { lw.wg.Wait(); close(done) }()
	select {
	case <-done:
		return
	case <-time.After(grace):
	}
	lw.mu.Lock()
	lw.ended = true
	for _, c := range lw.procs {
		_ = c.Process.Kill() // one that has exited already answers os.ErrProcessDone
	}
	lw.mu.Unlock()
	<-done
}
