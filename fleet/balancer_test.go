package fleet

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// members returns join-group members with the metadata of balancers owning the given ranges.
func members(owns ...Range) []kmsg.JoinGroupResponseMember {
	var out []kmsg.JoinGroupResponseMember
	for i, own := range owns {
		m := kmsg.NewJoinGroupResponseMember()
		m.MemberID = fmt.Sprintf("m%d", i)
		m.ProtocolMetadata = Balancer(own).JoinGroupMetadata([]string{"t0", "t1"}, nil, 1)
		out = append(out, m)
	}
	return out
}

// balance runs the leader's balance over topics t0 and t1 of n partitions each.
func balance(t *testing.T, ms []kmsg.JoinGroupResponseMember, n int32) (map[string]map[string][]int32, error) {
	t.Helper()
	gb, _, err := Balancer(Range{}).MemberBalancer(ms)
	if err != nil {
		t.Fatal(err)
	}
	plan, err := gb.(kgo.GroupMemberBalancerOrError).BalanceOrError(map[string]int32{"t0": n, "t1": n})
	if err != nil {
		return nil, err
	}
	return plan.(*kgo.BalancePlan).AsMemberIDMap(), nil
}

// TestBalancerKeepsPartitionsWithTheirWorker: every partition goes to a member of the worker
// that owns it, a worker's members share its partitions evenly, and every partition is
// assigned once.
func TestBalancerKeepsPartitionsWithTheirWorker(t *testing.T) {
	w0, w1 := Split(12, 2, 0), Split(12, 2, 1)
	got, err := balance(t, members(w0, w1, w0, w1, w1), 12)
	if err != nil {
		t.Fatal(err)
	}
	own := map[string]Range{"m0": w0, "m1": w1, "m2": w0, "m3": w1, "m4": w1}
	seen := map[string]int{}
	for id, topics := range got {
		n := 0
		for topic, parts := range topics {
			for _, p := range parts {
				if !own[id].Contains(int(p)) {
					t.Errorf("%s (worker of %v) has partition %d of %s", id, own[id], p, topic)
				}
				seen[fmt.Sprint(topic, p)]++
			}
			n += len(parts)
		}
		if want := map[Range]int{w0: 6, w1: 4}[own[id]]; n != want {
			t.Errorf("%s has %d partitions, want %d (its worker's 12 over its members)", id, n, want)
		}
	}
	if len(seen) != 24 {
		t.Errorf("%d partitions assigned, want 24", len(seen))
	}
	for tp, n := range seen {
		if n != 1 {
			t.Errorf("%s assigned %d times", tp, n)
		}
	}
}

// TestBalancerWithoutAWorker: the partitions of a worker missing from the group (not joined
// yet, or gone after its drain) stay unassigned, the others go to their owners.
func TestBalancerWithoutAWorker(t *testing.T) {
	got, err := balance(t, members(Split(12, 3, 0), Split(12, 3, 2)), 12)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]map[string][]int32{
		"m0": {"t0": {0, 1, 2, 3}, "t1": {0, 1, 2, 3}},
		"m1": {"t0": {8, 9, 10, 11}, "t1": {8, 9, 10, 11}},
	}
	for m, ts := range got {
		for tp := range ts {
			slices.Sort(ts[tp])
		}
		got[m] = ts
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("assignment %v, want %v (partitions 4..7 unassigned)", got, want)
	}
}

func TestBalancerRefuses(t *testing.T) {
	foreign := members(Range{0, 12})
	meta := kmsg.NewConsumerMemberMetadata()
	meta.Topics = []string{"t0"}
	foreign[0].ProtocolMetadata = meta.AppendTo(nil)
	if _, err := balance(t, foreign, 12); !errors.Is(err, ErrPlan) || !strings.Contains(err.Error(), "group member m0 has no partition ownership") {
		t.Errorf("a member without ownership: err = %v", err)
	}
}

// TestBalancerOnKfake: real consumers of two workers join one group through the balancer and
// each reads only its worker's partitions; when worker 0's member leaves (its drain over), it
// closes promptly and worker 1's members get their partitions back.
func TestBalancerOnKfake(t *testing.T) {
	c, err := kfake.NewCluster(kfake.NumBrokers(1), kfake.SeedTopics(6, "plimsoll-r-t0"))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	var mu sync.Mutex
	assigned := map[int][]int32{}
	own := []Range{Split(6, 2, 0), Split(6, 2, 1), Split(6, 2, 1)} // worker 0 has one member, worker 1 two
	var cls []*kgo.Client
	for i, r := range own {
		cl, err := kgo.NewClient(kgo.SeedBrokers(c.ListenAddrs()...), kgo.ConsumerGroup("plimsoll-r-g0"), kgo.ConsumeTopics("plimsoll-r-t0"),
			kgo.Balancers(Balancer(r)), kgo.OnPartitionsAssigned(func(_ context.Context, _ *kgo.Client, a map[string][]int32) {
				mu.Lock()
				assigned[i] = slices.Sorted(slices.Values(a["plimsoll-r-t0"]))
				mu.Unlock()
			}))
		if err != nil {
			t.Fatal(err)
		}
		defer cl.Close()
		cls = append(cls, cl)
		go func() {
			for ctx := context.Background(); !cl.PollFetches(ctx).IsClientClosed(); {
			}
		}()
	}
	total := func() int { // under mu
		n := 0
		for _, ps := range assigned {
			n += len(ps)
		}
		return n
	}
	waitFor(func() bool {
		mu.Lock()
		defer mu.Unlock()
		return len(assigned) == 3 && total() == 6
	})
	check := func(when string, want int) {
		mu.Lock()
		defer mu.Unlock()
		if total() != want {
			t.Fatalf("%s: assignments %v, want %d partitions", when, assigned, want)
		}
		for i, ps := range assigned {
			for _, p := range ps {
				if !own[i].Contains(int(p)) {
					t.Errorf("%s: member %d (worker of %v) was assigned partition %d", when, i, own[i], p)
				}
			}
		}
	}
	check("all in", 6)
	mu.Lock()
	assigned = map[int][]int32{}
	mu.Unlock()
	closed := make(chan struct{})
	go func() { cls[0].Close(); close(closed) }()
	select {
	case <-closed:
	case <-time.After(10 * time.Second):
		t.Fatal("worker 0's member did not close within 10 s")
	}
	waitFor(func() bool {
		mu.Lock()
		defer mu.Unlock()
		return total() == 3
	})
	check("worker 0 gone", 3)
}
