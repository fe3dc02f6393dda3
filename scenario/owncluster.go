package scenario

import (
	"context"
	"fmt"
	"path/filepath"
	"time"

	"github.com/plimsoll/plimsoll/localkafka"
	"github.com/plimsoll/plimsoll/units"
)

// clusterDirName is where a scenario without --cluster-dir starts its cluster, below Out.
const clusterDirName = "cluster"

// useCluster returns the cluster a scenario runs on: env.ClusterDir when set, else one it
// starts below env.Out with `plimsoll cluster up` and upArgs (after --cluster-dir), and the
// function that stops it (a no-op for the user's). The stop runs on a context of its own, so
// it also runs after an interruption.
func useCluster(ctx context.Context, env *Env, upArgs ...string) (string, func(), error) {
	if env.ClusterDir != "" {
		return env.ClusterDir, func() {}, nil
	}
	dir, err := filepath.Abs(filepath.Join(env.Out, clusterDirName))
	if err != nil {
		return "", func() {}, err
	}
	stop := func() {
		down, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel()
		_, _ = env.Plimsoll(down, "", "cluster", "down", "--cluster-dir", dir)
	}
	code, err := env.Plimsoll(ctx, "", append([]string{"cluster", "up", "--cluster-dir", dir}, upArgs...)...)
	if err == nil && code != 0 {
		err = fmt.Errorf("plimsoll cluster up exited %d (its output is in scenario.log)", code)
	}
	if err != nil {
		stop() // a half-started cluster is taken down too
		return "", func() {}, err
	}
	return dir, stop, nil
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
