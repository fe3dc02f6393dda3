package topics

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"
)

// fakeAdmin is an admin client of an in-process kfake cluster.
func fakeAdmin(t *testing.T) (*kadm.Client, *kfake.Cluster) {
	t.Helper()
	c, err := kfake.NewCluster(kfake.NumBrokers(2))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	cl, err := kgo.NewClient(kgo.SeedBrokers(c.ListenAddrs()...))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(cl.Close)
	return kadm.NewClient(cl), c
}

func TestCreateEnsureNoneDeleteOwned(t *testing.T) {
	adm, cluster := fakeAdmin(t)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if _, err := adm.CreateTopic(ctx, 1, 1, nil, "other-t0"); err != nil {
		t.Fatal(err)
	}
	if err := EnsureNone(ctx, adm, "run-"); err != nil {
		t.Fatalf("no topic has the prefix yet: %v", err)
	}
	names := TopicNames("run-", 2)
	if err := Create(ctx, adm, names, 3, 1, nil); err != nil {
		t.Fatal(err)
	}
	td, err := adm.ListTopics(ctx, names...)
	if err != nil || len(td) != 2 || len(td["run-t0"].Partitions) != 3 {
		t.Fatalf("created %v, %v", td, err)
	}
	err = EnsureNone(ctx, adm, "run-")
	if !errors.Is(err, ErrTopicsExist) || !strings.Contains(err.Error(), "run-t0, run-t1") {
		t.Errorf("EnsureNone with the run's topics there: %v", err)
	}
	// A name outside the prefix is never deleted, even when the caller lists it.
	if err := DeleteOwned(ctx, adm, "run-", append(names, "other-t0"), GroupNames("run-", 1)); err != nil {
		t.Fatal(err)
	}
	// Asked of the cluster itself: kadm's metadata is cached for a while.
	for _, name := range append(names, "other-t0") {
		if exists := cluster.TopicInfo(name) != nil; exists != (name == "other-t0") {
			t.Errorf("after DeleteOwned topic %s exists: %v", name, exists)
		}
	}
}

// TestDeletePrefixed: what an interrupted run left under its prefix goes, nothing else does: not
// another run's topics whose names begin alike, nor a topic of the user's.
func TestDeletePrefixed(t *testing.T) {
	adm, cluster := fakeAdmin(t)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	keep := []string{"plimsoll-l1a2b3c-other", "plimsoll-l1a2b3cd-t0", "orders"}
	left := []string{"plimsoll-l1a2b3c-t1-t0", "plimsoll-l1a2b3c-t2-t0"}
	for _, name := range append(append([]string{}, keep...), left...) {
		if _, err := adm.CreateTopic(ctx, 1, 1, nil, name); err != nil {
			t.Fatal(err)
		}
	}
	if _, _, err := DeletePrefixed(ctx, adm, "plimsoll-l1a2b3c"); !errors.Is(err, ErrBadPrefix) {
		t.Fatalf("a prefix without its '-': %v, want ErrBadPrefix", err)
	}
	n, _, err := DeletePrefixed(ctx, adm, "plimsoll-l1a2b3c-t")
	if err == nil {
		t.Fatalf("a prefix ending in a letter deleted %d topics", n)
	}
	n, _, err = DeletePrefixed(ctx, adm, "plimsoll-l1a2b3c-t1-")
	if err != nil || n != 1 {
		t.Fatalf("DeletePrefixed = %d topics, %v; want 1", n, err)
	}
	for _, name := range append(append([]string{}, keep...), left[1]) {
		if cluster.TopicInfo(name) == nil {
			t.Errorf("%s was deleted", name)
		}
	}
	if cluster.TopicInfo(left[0]) != nil {
		t.Errorf("%s, left by the run, is still there", left[0])
	}
}
