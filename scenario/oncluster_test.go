package scenario

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/plimsoll/plimsoll/localkafka"
)

// TestOnClusterStartsAndStops: without --cluster-dir the scenario starts its cluster below Out
// and stops it when done, also when its work fails or the context is cancelled.
func TestOnClusterStartsAndStops(t *testing.T) {
	for _, tc := range []struct {
		name   string
		fail   error
		cancel bool
	}{{"done", nil, false}, {"failed", errors.New("boom"), false}, {"interrupted", nil, true}} {
		t.Run(tc.name, func(t *testing.T) {
			var seen []string
			env := replayEnv(t, "", &replay{t: t})
			env.Exec = func(ctx context.Context, args ...string) (int, error) {
				seen = append(seen, strings.Join(args[:2], " ")+" "+filepath.Base(flagOf(args, "--cluster-dir"))+" "+flagOf(args, "--nic"))
				if args[1] == "up" {
					data, _ := os.ReadFile("testdata/cluster-nic/cluster.json")
					os.MkdirAll(flagOf(args, "--cluster-dir"), 0o755)
					os.WriteFile(filepath.Join(flagOf(args, "--cluster-dir"), "cluster.json"), data, 0o644)
				}
				if args[1] == "down" && ctx.Err() != nil {
					t.Error("cluster down ran on a cancelled context")
				}
				return 0, nil
			}
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			err := onCluster(ctx, env, []string{"--nic", "16Mbit/s"}, func(st *localkafka.State) error {
				if st.NIC != 2e6 || len(st.Brokers) != 3 {
					t.Errorf("state %+v", st)
				}
				if tc.cancel {
					cancel()
				}
				return tc.fail
			})
			if !errors.Is(err, tc.fail) {
				t.Errorf("error %v, want %v", err, tc.fail)
			}
			if want := "cluster up cluster 16Mbit/s|cluster down cluster "; strings.Join(seen, "|") != want {
				t.Errorf("commands %q, want %q", strings.Join(seen, "|"), want)
			}
		})
	}
}

// TestOnClusterGiven: with --cluster-dir nothing is started or stopped.
func TestOnClusterGiven(t *testing.T) {
	r := &replay{t: t}
	env := replayEnv(t, "testdata/cluster-nic", r)
	if err := onCluster(context.Background(), env, nil, func(st *localkafka.State) error { return nil }); err != nil || len(r.seen) > 0 {
		t.Errorf("error %v, commands %v: want none", err, r.seen)
	}
}
