package fleettest

import (
	"context"
	"testing"

	"github.com/plimsoll/plimsoll/fleet"
	"github.com/plimsoll/plimsoll/loadgen/topics"
	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"
)

// Open opens p's run on c as the coordinator does (the plan, the control and results topics)
// and creates the workload's topics under the run's prefix. It fails t at once if it cannot.
func Open(t testing.TB, ctx context.Context, c *kfake.Cluster, p fleet.Plan, limits fleet.Limits) *fleet.Coordinator {
	t.Helper()
	co, err := fleet.Open(ctx, seeds(c), p, fleet.WallClock, limits)
	if err != nil {
		t.Fatal(err)
	}
	cl, err := kgo.NewClient(seeds(c)...)
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	names := topics.TopicNames(fleet.Prefix(p.RunID), p.Spec.Topics)
	if err := topics.Create(ctx, kadm.NewClient(cl), names, int32(p.Spec.PartitionsPerTopic), 1, nil); err != nil {
		t.Fatal(err)
	}
	return co
}

// seeds are the client options that reach c.
func seeds(c *kfake.Cluster) []kgo.Opt { return []kgo.Opt{kgo.SeedBrokers(c.ListenAddrs()...)} }
