package fleet

import (
	"encoding/json"
	"fmt"
	"sort"

	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// BalancerName is the group protocol of a run with workers. Every member of the run's groups
// uses it, so a member of another plimsoll or of another balancer cannot join them silently
// (the coordinator answers INCONSISTENT_GROUP_PROTOCOL).
const BalancerName = "plimsoll-fleet-v1"

// Balancer returns the group balancer of one worker's consumers: whichever member leads the
// group gives each partition to a member of the worker that owns it (the members say which
// partitions their worker owns in their join metadata), round robin among that worker's
// members, so that each worker consumes what it produced while the group stays one group of
// the workload's name. A partition no member owns (its worker not in the group yet, or gone
// after its drain) stays unassigned: failing the balance instead, the members of the workers
// still draining would rebalance for ever once the first worker left, reading nothing.
func Balancer(own Range) kgo.GroupBalancer { return &balancer{own: own} }

type balancer struct{ own Range }

// ownership is a member's join metadata user data: the partitions its worker owns.
type ownership struct {
	Partitions Range `json:"partitions"`
}

func (*balancer) ProtocolName() string { return BalancerName }
func (*balancer) IsCooperative() bool  { return false }

func (b *balancer) JoinGroupMetadata(interests []string, _ map[string][]int32, generation int32) []byte {
	meta := kmsg.NewConsumerMemberMetadata()
	meta.Version = 3
	meta.Topics = interests
	meta.Generation = generation
	meta.UserData, _ = json.Marshal(ownership{Partitions: b.own}) // a struct of two ints always marshals
	return meta.AppendTo(nil)
}

func (*balancer) ParseSyncAssignment(assignment []byte) (map[string][]int32, error) {
	return kgo.ParseConsumerSyncAssignment(assignment)
}

func (b *balancer) MemberBalancer(members []kmsg.JoinGroupResponseMember) (kgo.GroupMemberBalancer, map[string]struct{}, error) {
	cb, err := kgo.NewConsumerBalancer(b, members)
	if err != nil {
		return nil, nil, err
	}
	return cb, cb.MemberTopics(), nil
}

// Balance gives partition p of each topic to the members whose worker owns p, in turn, and
// leaves it unassigned if no member's worker owns it.
func (*balancer) Balance(cb *kgo.ConsumerBalancer, topics map[string]int32) kgo.IntoSyncAssignment {
	type member struct {
		m    *kmsg.JoinGroupResponseMember
		own  Range
		subs map[string]bool
	}
	var ms []member
	var bad error
	cb.EachMember(func(m *kmsg.JoinGroupResponseMember, meta *kmsg.ConsumerMemberMetadata) {
		var o ownership
		if err := strictJSON(meta.UserData, &o); err != nil && bad == nil {
			bad = fmt.Errorf("%w: group member %s has no partition ownership (%v): every member of a run with workers must be a plimsoll worker", ErrPlan, m.MemberID, err)
		}
		subs := map[string]bool{}
		for _, t := range meta.Topics {
			subs[t] = true
		}
		ms = append(ms, member{m, o.Partitions, subs})
	})
	if bad != nil {
		cb.SetError(bad)
		return nil
	}
	names := make([]string, 0, len(topics))
	for t := range cb.MemberTopics() {
		names = append(names, t)
	}
	sort.Strings(names)
	plan := cb.NewPlan()
	turn := map[Range]int{} // by worker (its partitions): the next of its members to take one
	for _, t := range names {
		for p := range int(topics[t]) {
			var owners []member
			for _, m := range ms {
				if m.subs[t] && m.own.Contains(p) {
					owners = append(owners, m)
				}
			}
			if len(owners) == 0 {
				continue // its worker is not in the group (yet, or any more): no one else may read it
			}
			own := owners[0].own
			plan.AddPartition(owners[turn[own]%len(owners)].m, t, int32(p))
			turn[own]++
		}
	}
	return plan
}
