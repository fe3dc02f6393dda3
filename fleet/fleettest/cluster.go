package fleettest

import (
	"context"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"
)

// Cluster is a one-broker kfake cluster, closed when t ends.
func Cluster(t testing.TB) *kfake.Cluster {
	t.Helper()
	c, err := kfake.NewCluster(kfake.NumBrokers(1))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	return c
}

// NoneLeft fails t when c holds any topic or group, asked by a new client whose metadata is
// never older than 10 ms (kadm answers ListTopics from the client's cache).
func NoneLeft(t testing.TB, c *kfake.Cluster) {
	t.Helper()
	cl, err := kgo.NewClient(kgo.SeedBrokers(c.ListenAddrs()...), kgo.MetadataMinAge(10*time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	adm := kadm.NewClient(cl)
	ts, err := adm.ListTopics(context.Background())
	if err != nil || len(ts) > 0 {
		t.Errorf("topics left: %v (%v)", ts.Names(), err)
	}
	gs, err := adm.ListGroups(context.Background())
	if err != nil || len(gs) > 0 {
		t.Errorf("groups left: %v (%v)", gs.Groups(), err)
	}
}
