package scenario

import (
	"context"
	"fmt"
	"path/filepath"

	"github.com/plimsoll/plimsoll/localkafka"
)

// onCluster runs fn on the scenario's local cluster: env.ClusterDir when it is set, else a
// cluster it starts below Out with `plimsoll cluster up --cluster-dir OUT/cluster upArgs...` and
// stops with `cluster down` when fn returns, on error and on interrupt too (the stop runs on a
// context that is not cancelled with ctx).
func onCluster(ctx context.Context, env *Env, upArgs []string, fn func(st *localkafka.State) error) (err error) {
	dir := env.ClusterDir
	if dir == "" {
		dir = filepath.Join(env.Out, "cluster")
		defer func() {
			code, derr := env.Plimsoll(context.WithoutCancel(ctx), "", "cluster", "down", "--cluster-dir", dir)
			if err == nil && (derr != nil || code != 0) {
				err = fmt.Errorf("cluster down --cluster-dir %s: exit %d: %v", dir, code, derr)
			}
		}()
		args := append([]string{"cluster", "up", "--cluster-dir", dir}, upArgs...)
		if code, err := env.Plimsoll(ctx, "", args...); err != nil || code != 0 {
			return fmt.Errorf("cluster up --cluster-dir %s: exit %d: %v", dir, code, err)
		}
	}
	st, err := localkafka.Open(dir)
	if err != nil {
		return fmt.Errorf("the scenario's cluster: %w", err)
	}
	return fn(st)
}

// openCluster opens the cluster of --cluster-dir for a scenario's check; its error names the fix.
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
