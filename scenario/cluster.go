package scenario

import (
	"context"
	"fmt"
	"path/filepath"

	"github.com/plimsoll/plimsoll/localkafka"
	"github.com/plimsoll/plimsoll/units"
)

// onCluster runs fn on the scenario's local cluster: env.ClusterDir's when it is set, else one
// it starts below Out with `plimsoll cluster up --cluster-dir OUT/cluster upArgs...` and stops
// with `cluster down` when fn returns (onClusterIn).
func onCluster(ctx context.Context, env *Env, upArgs []string, fn func(st *localkafka.State) error) error {
	return onClusterIn(ctx, env, "cluster", func(*localkafka.State) bool { return true }, upArgs, fn)
}

// onClusterIn runs fn on env.ClusterDir's cluster when one is given and fit says it will do (a
// given cluster that cannot be read is an error, never a reason to start another);
// else on a cluster it starts in OUT/name (`plimsoll cluster up --cluster-dir OUT/name
// upArgs...`) and stops with `cluster down` when fn returns, on error and on interrupt too (the
// stop runs on a context that is not cancelled with ctx). A cluster that failed half-way up is
// taken down as well.
func onClusterIn(ctx context.Context, env *Env, name string, fit func(*localkafka.State) bool, upArgs []string,
	fn func(st *localkafka.State) error) (err error) {
	if env.ClusterDir != "" {
		st, err := localkafka.Open(env.ClusterDir)
		if err != nil {
			return fmt.Errorf("--cluster-dir: %w", err)
		}
		if fit(st) {
			return fn(st)
		}
	}
	dir, err := filepath.Abs(filepath.Join(env.Out, name))
	if err != nil {
		return err
	}
	defer env.leaving(fmt.Sprintf("the cluster in %s, running (stop it with plimsoll cluster down --cluster-dir %s)", dir, dir))()
	// cluster down is bounded on its own: each group of processes (brokers, controllers,
	// ZooKeeper) gets its --timeout, 30 s, to stop, then SIGKILL.
	defer func() {
		code, derr := env.Plimsoll(context.WithoutCancel(ctx), "", "cluster", "down", "--cluster-dir", dir)
		if err == nil && (derr != nil || code != 0) {
			err = fmt.Errorf("cluster down --cluster-dir %s: exit %d: %v", dir, code, derr)
		}
	}()
	args := append([]string{"cluster", "up", "--cluster-dir", dir}, upArgs...)
	if code, err := env.Plimsoll(ctx, "", args...); err != nil || code != 0 {
		return fmt.Errorf("cluster up --cluster-dir %s: exit %d (its output is in scenario.log): %v", dir, code, err)
	}
	st, err := localkafka.Open(dir)
	if err != nil {
		return fmt.Errorf("the scenario's cluster: %w", err)
	}
	return fn(st)
}

// openCluster opens the cluster of --cluster-dir for a scenario's check from its recorded state
// (cluster.json), which must not say stopped; the error names the fix.
func openCluster(dir string) (*localkafka.State, error) {
	st, err := localkafka.Open(dir)
	if err != nil {
		return nil, fmt.Errorf("--cluster-dir: %w (or leave --cluster-dir out: the scenario starts its own)", err)
	}
	if st.Stopped {
		return nil, fmt.Errorf("--cluster-dir %s: the cluster is stopped (plimsoll cluster up --cluster-dir %s starts it again)", dir, dir)
	}
	return st, nil
}

// runningCluster is openCluster that also requires every broker's process to be running, for the
// scenarios that talk to the brokers before their first command.
func runningCluster(dir string) (*localkafka.State, error) {
	st, err := openCluster(dir)
	if err != nil {
		return nil, err
	}
	for _, b := range st.Brokers {
		if b.ProcState() != localkafka.ProcRunning {
			return nil, fmt.Errorf("--cluster-dir %s: broker %d is %s; start the cluster (plimsoll cluster up --cluster-dir %s) or leave --cluster-dir out", dir, b.ID, b.ProcState(), dir)
		}
	}
	return st, nil
}

// nicRate is the emulated NIC rate, bytes/s per direction, every broker of the cluster in dir
// has; an error names the fix when the cluster has none or its links differ.
func nicRate(dir string) (*localkafka.State, float64, error) {
	c, err := localkafka.Open(dir)
	if err != nil {
		return nil, 0, err
	}
	if len(c.Brokers) == 0 || c.Brokers[0].NIC <= 0 {
		return nil, 0, fmt.Errorf("the cluster in %s has no emulated NICs, so its network never binds: start one with `plimsoll cluster up --nic 16Mbit/s --cluster-dir DIR`, or leave out --cluster-dir", dir)
	}
	for _, b := range c.Brokers[1:] {
		if b.NIC != c.Brokers[0].NIC {
			return nil, 0, fmt.Errorf("the brokers of the cluster in %s have links of different rates (broker %d: %s, broker %d: %s): shape them alike with `plimsoll cluster shape`", dir, c.Brokers[0].ID, units.Network(c.Brokers[0].NIC), b.ID, units.Network(b.NIC))
		}
	}
	return c, c.Brokers[0].NIC, nil
}
