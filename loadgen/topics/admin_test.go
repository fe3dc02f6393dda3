package topics

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
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

// TestCreateAfterTimeout: Kafka can answer REQUEST_TIMED_OUT and create the topic all the same,
// and a resent request then meets TOPIC_ALREADY_EXISTS. Both are the run's own topics (the
// names carry its id): Create waits for them and checks their shape instead of failing the run.
func TestCreateAfterTimeout(t *testing.T) {
	for _, tc := range []struct {
		name       string
		seed       int32 // partitions of a topic run-t1 already there; 0 = none
		err        *kerr.Error
		wantErrHas string
	}{
		{name: "timed out but created", err: kerr.RequestTimedOut},
		{name: "already created by a resent request", seed: 3},
		{name: "already there with another shape", seed: 5, wantErrHas: "topic run-t1 has 5 partitions, not the 3 asked for"},
		{name: "another error", err: kerr.PolicyViolation, wantErrHas: "POLICY_VIOLATION"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			adm, cluster := fakeAdmin(t)
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			if tc.seed > 0 {
				if err := cluster.CreateTopic("run-t1", tc.seed, nil); err != nil {
					t.Fatal(err)
				}
			}
			if tc.err != nil {
				cluster.Fault(kfake.Fault{Keys: []kmsg.Key{kmsg.CreateTopics}, Topic: "run-t1", Err: tc.err})
			}
			err := Create(ctx, adm, TopicNames("run-", 2), 3, 2, nil) // 2: the seeded topic has the default, every broker
			switch {
			case tc.wantErrHas == "" && err != nil:
				t.Fatalf("Create: %v", err)
			case tc.wantErrHas != "" && (!errors.Is(err, ErrSetup) || !strings.Contains(err.Error(), tc.wantErrHas)):
				t.Fatalf("Create: %v, want ErrSetup saying %q", err, tc.wantErrHas)
			case tc.wantErrHas == "" && (cluster.TopicInfo("run-t0") == nil || cluster.TopicInfo("run-t1") == nil):
				t.Fatal("Create succeeded without both topics")
			}
		})
	}
}

// TestCreateInSteps: a topic of more partitions than one request may ask for (a KRaft controller
// refuses more than 10,000 records per operation) is created with MaxPartitionsPerRequest, then
// grown by at most that many per CreatePartitions request, and checked whole.
func TestCreateInSteps(t *testing.T) {
	defer func(n int32) { MaxPartitionsPerRequest = n }(MaxPartitionsPerRequest)
	MaxPartitionsPerRequest = 3
	adm, cluster := fakeAdmin(t)
	var created []int32
	cluster.ControlKey(kmsg.CreateTopics.Int16(), func(r kmsg.Request) (kmsg.Response, error, bool) {
		cluster.KeepControl()
		for _, tp := range r.(*kmsg.CreateTopicsRequest).Topics {
			created = append(created, tp.NumPartitions)
		}
		return nil, nil, false
	})
	var grown []int32
	cluster.ControlKey(kmsg.CreatePartitions.Int16(), func(r kmsg.Request) (kmsg.Response, error, bool) {
		cluster.KeepControl()
		for _, tp := range r.(*kmsg.CreatePartitionsRequest).Topics {
			grown = append(grown, tp.Count)
		}
		return nil, nil, false
	})
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if err := Create(ctx, adm, []string{"run-t0"}, 8, 1, nil); err != nil {
		t.Fatal(err)
	}
	if len(created) != 1 || created[0] != 3 || len(grown) != 2 || grown[0] != 6 || grown[1] != 8 {
		t.Errorf("CreateTopics asked for %v partitions, CreatePartitions for %v: want [3], then [6 8]", created, grown)
	}
	// A growth the cluster refuses names the step and the limit.
	cluster.ControlKey(kmsg.CreatePartitions.Int16(), func(r kmsg.Request) (kmsg.Response, error, bool) {
		req := r.(*kmsg.CreatePartitionsRequest)
		resp := req.ResponseKind().(*kmsg.CreatePartitionsResponse)
		for _, tp := range req.Topics {
			rt := kmsg.NewCreatePartitionsResponseTopic()
			rt.Topic, rt.ErrorCode = tp.Topic, kerr.PolicyViolation.Code
			resp.Topics = append(resp.Topics, rt)
		}
		return resp, nil, true
	})
	err := Create(ctx, adm, []string{"run-t1"}, 5, 1, nil)
	if !errors.Is(err, ErrSetup) || !strings.Contains(err.Error(), "growing topics run-t1 from 3 to 5 partitions (at most 3 per request)") ||
		!errors.Is(err, kerr.PolicyViolation) {
		t.Errorf("a refused growth: %v", err)
	}
}

// TestDeleteTopicsAnyBroker: with the first broker holding every DeleteTopics it is sent (as a
// paused broker does), the deletion goes through another broker after that one's time is up,
// and the topic is gone; nothing outside the prefix is sent.
func TestDeleteTopicsAnyBroker(t *testing.T) {
	c, err := kfake.NewCluster(kfake.NumBrokers(3))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	cl, err := kgo.NewClient(kgo.SeedBrokers(c.ListenAddrs()...), kgo.MetadataMinAge(10*time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	adm := kadm.NewClient(cl)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	for _, n := range []string{"run-t0", "other-t0"} {
		if _, err := adm.CreateTopic(ctx, 2, 1, nil, n); err != nil {
			t.Fatal(err)
		}
	}
	wake := make(chan struct{})
	defer close(wake)
	var asked []string
	c.ControlKey(kmsg.DeleteTopics.Int16(), func(r kmsg.Request) (kmsg.Response, error, bool) {
		c.KeepControl()
		for _, tp := range r.(*kmsg.DeleteTopicsRequest).Topics {
			asked = append(asked, *tp.Topic)
		}
		if c.CurrentNode() == 0 {
			c.SleepControl(func() { <-wake })
		}
		return nil, nil, false
	})
	start := time.Now()
	if err := DeleteTopicsAnyBroker(ctx, cl, "run-", []string{"run-t0", "other-t0"}, 300*time.Millisecond); err != nil {
		t.Fatal(err)
	}
	if took := time.Since(start); took > 5*time.Second {
		t.Errorf("took %v: the held broker must be passed over after its 300 ms", took)
	}
	for _, n := range asked {
		if n != "run-t0" {
			t.Errorf("asked to delete %s, outside the prefix", n)
		}
	}
	td, err := adm.ListTopics(ctx)
	if err != nil || td.Has("run-t0") || !td.Has("other-t0") {
		t.Errorf("topics after: %v (%v): want run-t0 gone, other-t0 kept", td.Names(), err)
	}
}
