package scenario

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/plimsoll/plimsoll/loadgen/topics"
	"github.com/plimsoll/plimsoll/units"
)

// partAdmin creates, moves and counts partitions on one cluster for the partition scenarios
// (partition-creation, reassignment, max-partitions), with kadm, under one prefix of plimsoll's:
// every topic it creates, waits for or deletes is named prefix + something.
type partAdmin struct {
	cl        *kgo.Client
	adm       *kadm.Client
	bootstrap []string
	prefix    string
	brokers   []int32
	now       func() time.Time
	timeout   time.Duration
	// poll is how often the wait loops ask the brokers again.
	poll time.Duration
	// asked is every topic a CreateTopics request was sent for, answered or not: the clean-up
	// deletes them by name, since a topic just created (or whose request was cut short by an
	// interruption) may not be in the metadata the clean-up lists yet.
	asked []string
}

// newPartAdmin connects to bootstrap and lists the brokers. timeout bounds each admin request on
// the brokers' side (Kafka's timeout_ms), so a slow controller answers with a timeout error that
// the scenario records rather than hanging.
func newPartAdmin(ctx context.Context, bootstrap []string, prefix string, timeout time.Duration, now func() time.Time) (*partAdmin, error) {
	if err := topics.CheckPrefix(prefix); err != nil {
		return nil, err
	}
	// kgo refuses a request timeout overhead above 15 minutes; one admin request longer than 5 is
	// hung, and the waits for a move or a creation are bounded by the scenario on their own.
	timeout = min(timeout, 5*time.Minute)
	// Topic lists must be fresh: kgo answers a Metadata request from its cache for MetadataMinAge
	// (5 s by default), so a list right after a deletion still showed the deleted topic.
	cl, err := kgo.NewClient(kgo.SeedBrokers(bootstrap...), kgo.RequestTimeoutOverhead(timeout+10*time.Second), kgo.MetadataMinAge(10*time.Millisecond))
	if err != nil {
		return nil, err
	}
	a := &partAdmin{cl: cl, adm: kadm.NewClient(cl), bootstrap: bootstrap, prefix: prefix, now: now, timeout: timeout, poll: 50 * time.Millisecond}
	a.adm.SetTimeoutMillis(int32(timeout.Milliseconds()))
	md, err := a.adm.BrokerMetadata(ctx)
	if err != nil {
		cl.Close()
		return nil, fmt.Errorf("asking %s for its brokers: %w", strings.Join(bootstrap, ","), err)
	}
	for _, b := range md.Brokers {
		a.brokers = append(a.brokers, b.NodeID)
	}
	sort.Slice(a.brokers, func(i, j int) bool { return a.brokers[i] < a.brokers[j] })
	return a, nil
}

func (a *partAdmin) close() { a.cl.Close() }

// leftover names the scenario's topics and how to delete them by hand, for when its clean-up
// did not (kafka-topics' --topic is a regular expression when deleting).
func (a *partAdmin) leftover() string {
	return fmt.Sprintf("topics under %s (delete them with kafka-topics.sh --bootstrap-server %s --delete --topic '%s.*')",
		a.prefix, strings.Join(a.bootstrap, ","), a.prefix)
}

// topic is the name of the scenario's topic called suffix.
func (a *partAdmin) topic(suffix string) string { return a.prefix + suffix }

// createTopic creates one topic of the prefix with n partitions of rf replicas (or the replicas
// of assign, when given) and returns the broker's error for it, if any.
func (a *partAdmin) createTopic(ctx context.Context, name string, n int32, rf int16, assign map[int32][]int32) error {
	if !strings.HasPrefix(name, a.prefix) {
		return fmt.Errorf("topic %s is outside the scenario's prefix %s", name, a.prefix)
	}
	req := kmsg.NewPtrCreateTopicsRequest()
	req.TimeoutMillis = int32(a.timeout.Milliseconds())
	t := kmsg.NewCreateTopicsRequestTopic()
	t.Topic, t.NumPartitions, t.ReplicationFactor = name, n, rf
	if assign != nil {
		t.NumPartitions, t.ReplicationFactor = -1, -1
		for p := int32(0); p < int32(len(assign)); p++ {
			ra := kmsg.NewCreateTopicsRequestTopicReplicaAssignment()
			ra.Partition, ra.Replicas = p, assign[p]
			t.ReplicaAssignment = append(t.ReplicaAssignment, ra)
		}
	}
	req.Topics = append(req.Topics, t)
	if !slices.Contains(a.asked, name) {
		a.asked = append(a.asked, name)
	}
	resp, err := req.RequestWith(ctx, a.cl)
	if err != nil {
		return err
	}
	for _, rt := range resp.Topics {
		if err := kerrOf(rt.ErrorCode, rt.ErrorMessage); err != nil {
			return err
		}
	}
	return nil
}

// createInSteps creates a topic of n partitions as set-up (not as what a scenario measures):
// at most topics.MaxPartitionsPerRequest in the creation, then grown as topics.Create grows
// one, since a KRaft controller refuses an operation of more than 10,000 records
// (reassignment's 10,000-partition topic failed so on Kafka 4.1.0).
func (a *partAdmin) createInSteps(ctx context.Context, name string, n int32, rf int16) error {
	have := min(n, topics.MaxPartitionsPerRequest)
	if err := a.createTopic(ctx, name, have, rf, nil); err != nil {
		return err
	}
	return topics.Grow(ctx, a.adm, []string{name}, have, n)
}

// addPartitions grows a topic of the prefix to total partitions.
func (a *partAdmin) addPartitions(ctx context.Context, name string, total int) error {
	if !strings.HasPrefix(name, a.prefix) {
		return fmt.Errorf("topic %s is outside the scenario's prefix %s", name, a.prefix)
	}
	resp, err := a.adm.UpdatePartitions(ctx, total, name)
	if err != nil {
		return err
	}
	return resp[name].Err
}

// kerrOf is a Kafka error code with the broker's message, or nil.
func kerrOf(code int16, msg *string) error {
	err := kerr.ErrorForCode(code)
	if err == nil {
		return nil
	}
	if msg != nil && *msg != "" {
		return fmt.Errorf("%w: %s", err, *msg)
	}
	return err
}

// brokerView is what one broker's own metadata says of the scenario's topics: partitions with
// a leader, and each partition's replicas.
type brokerView struct {
	led int
	// full counts the partitions with a leader and every replica in sync.
	full     int
	replicas map[string]map[int32][]int32
	// mine counts the led partitions with a replica on this broker, and logs those of them whose
	// log the broker's log directories hold: asked only by a waitTest with logs set.
	mine, logs int
}

// viewOf asks broker id itself (not whichever broker the client prefers) for the metadata of
// names, and with logs, for which of its replicas of them have a log (viewLogs).
func (a *partAdmin) viewOf(ctx context.Context, id int32, names []string, logs bool) (brokerView, error) {
	req := kmsg.NewPtrMetadataRequest()
	for _, n := range names {
		t := kmsg.NewMetadataRequestTopic()
		t.Topic = kmsg.StringPtr(n)
		req.Topics = append(req.Topics, t)
	}
	rctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	r, err := a.cl.Broker(int(id)).Request(rctx, req)
	if err != nil {
		return brokerView{}, err
	}
	v, ours := viewOfMetadata(r.(*kmsg.MetadataResponse), id)
	if !logs {
		return v, nil
	}
	v.mine = countReplicas(ours)
	v.logs, err = a.viewLogs(rctx, id, ours)
	return v, err
}

// viewOfMetadata is what a Metadata response says of the scenario's topics, and the led
// partitions with a replica on broker id.
func viewOfMetadata(r *kmsg.MetadataResponse, id int32) (brokerView, map[string][]int32) {
	v := brokerView{replicas: map[string]map[int32][]int32{}}
	ours := map[string][]int32{}
	for _, t := range r.Topics {
		if t.ErrorCode != 0 || t.Topic == nil {
			continue
		}
		ps := map[int32][]int32{}
		for _, p := range t.Partitions {
			if p.ErrorCode == 0 && p.Leader >= 0 {
				v.led++
				if len(p.ISR) == len(p.Replicas) {
					v.full++
				}
				if slices.Contains(p.Replicas, id) {
					ours[*t.Topic] = append(ours[*t.Topic], p.Partition)
				}
			}
			ps[p.Partition] = p.Replicas
		}
		v.replicas[*t.Topic] = ps
	}
	return v, ours
}

// viewLogs asks broker id which of the partitions ours its log directories hold. A broker's
// metadata can show a partition led before the broker has made its log: a KRaft broker publishes
// the metadata image, then creates the logs the image gives it, so a new partition is not usable
// (nor its creation done) until DescribeLogDirs lists it.
func (a *partAdmin) viewLogs(ctx context.Context, id int32, ours map[string][]int32) (int, error) {
	if len(ours) == 0 {
		return 0, nil
	}
	req := kmsg.NewPtrDescribeLogDirsRequest()
	for t, ps := range ours {
		rt := kmsg.NewDescribeLogDirsRequestTopic()
		rt.Topic, rt.Partitions = t, ps
		req.Topics = append(req.Topics, rt)
	}
	r, err := a.cl.Broker(int(id)).Request(ctx, req)
	if err != nil {
		return 0, err
	}
	resp := r.(*kmsg.DescribeLogDirsResponse)
	if err := kerr.ErrorForCode(resp.ErrorCode); err != nil {
		return 0, fmt.Errorf("broker %d's log directories: %w", id, err)
	}
	return countLogs(resp, ours), nil
}

// countLogs counts the partitions of ours that a DescribeLogDirs response lists in a directory
// that answered, each once (a partition moving between directories is listed in both).
func countLogs(r *kmsg.DescribeLogDirsResponse, ours map[string][]int32) int {
	seen := map[string]map[int32]bool{}
	n := 0
	for _, d := range r.Dirs {
		if d.ErrorCode != 0 {
			continue
		}
		for _, t := range d.Topics {
			for _, p := range t.Partitions {
				if !slices.Contains(ours[t.Topic], p.Partition) || seen[t.Topic][p.Partition] {
					continue
				}
				if seen[t.Topic] == nil {
					seen[t.Topic] = map[int32]bool{}
				}
				seen[t.Topic][p.Partition] = true
				n++
			}
		}
	}
	return n
}

// countReplicas is how many partitions ours holds.
func countReplicas(ours map[string][]int32) int {
	n := 0
	for _, ps := range ours {
		n += len(ps)
	}
	return n
}

// waitTest is what waitAll waits for on each broker's view; logs asks each broker for its log
// directories too, which ok then reads in the view's mine and logs.
type waitTest struct {
	ok   func(brokerView) bool
	logs bool
}

// waitAll waits until every broker's own view passes test, and returns when that was first
// seen; it gives up at ctx's end with the last broker that did not.
func (a *partAdmin) waitAll(ctx context.Context, names []string, test waitTest) (time.Time, error) {
	pending := append([]int32(nil), a.brokers...)
	for {
		var still []int32
		for _, id := range pending {
			v, err := a.viewOf(ctx, id, names, test.logs)
			if err != nil || !test.ok(v) {
				still = append(still, id)
			}
		}
		if pending = still; len(pending) == 0 {
			return a.now(), nil
		}
		select {
		case <-ctx.Done():
			return a.now(), fmt.Errorf("broker %d's metadata or logs did not show the change: %w", pending[0], ctx.Err())
		case <-time.After(a.poll):
		}
	}
}

// createdAtLeast is a waitAll test: the topics hold at least n partitions with a leader, and
// the broker has made the log of each of its replicas of them.
func createdAtLeast(n int) waitTest {
	return waitTest{logs: true, ok: func(v brokerView) bool { return v.led >= n && v.logs >= v.mine }}
}

// inSyncAtLeast is a waitAll test: the topics hold at least n partitions with a leader and
// every replica in sync (the followers have created their logs and caught up).
func inSyncAtLeast(n int) waitTest {
	return waitTest{ok: func(v brokerView) bool { return v.full >= n }}
}

// cleanup deletes every topic of the prefix (what the scenario created, and nothing else) and
// returns how many there were: those the brokers list and those it asked to create (a broker
// answering the listing may not show a topic the controller has just created), then, for up to
// cleanupSettle, any that a later listing still shows.
func (a *partAdmin) cleanup(ctx context.Context) (int, error) {
	listed, err := a.prefixed(ctx)
	if err != nil {
		return 0, err
	}
	names := slices.Clone(a.asked)
	for _, n := range listed {
		if !slices.Contains(names, n) {
			names = append(names, n)
		}
	}
	if err := topics.DeleteOwned(ctx, a.adm, a.prefix, names, nil); err != nil {
		return len(names), err
	}
	for polls := time.Duration(0); ; polls++ {
		left, err := a.prefixed(ctx)
		if err != nil || len(left) == 0 {
			return len(names), err
		}
		if polls*a.poll >= cleanupSettle {
			return len(names), fmt.Errorf("%d topics still listed after deleting them: %s", len(left), strings.Join(left, ", "))
		}
		if err := topics.DeleteOwned(ctx, a.adm, a.prefix, left, nil); err != nil {
			return len(names), err
		}
		select {
		case <-ctx.Done():
			return len(names), ctx.Err()
		case <-time.After(a.poll):
		}
	}
}

// cleanupSettle bounds how long the clean-up waits for its deleted topics to leave the brokers'
// metadata.
const cleanupSettle = 10 * time.Second

// prefixed lists the topics of the prefix the brokers know.
func (a *partAdmin) prefixed(ctx context.Context) ([]string, error) {
	return topics.Prefixed(ctx, a.adm, a.prefix)
}

// health checks the cluster after a scenario: every broker answers, each in its own metadata
// lists every broker, and every partition of the scenario's topics has a leader. It returns a
// sentence for the finding, which is named "healthy afterwards" (so the sentence says what was
// seen, not that again), and whether the cluster is healthy.
func (a *partAdmin) health(ctx context.Context) (string, bool) {
	hctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	td, err := a.adm.ListTopics(hctx)
	if err != nil {
		return fmt.Sprintf("listing topics failed: %v", err), false
	}
	var mine []string
	want := 0
	for _, t := range td.Sorted() {
		if strings.HasPrefix(t.Topic, a.prefix) {
			mine = append(mine, t.Topic)
			want += len(t.Partitions)
		}
	}
	var bad []string
	for _, id := range a.brokers {
		v, err := a.viewOf(hctx, id, mine, false)
		switch {
		case err != nil:
			bad = append(bad, fmt.Sprintf("broker %d does not answer (%v)", id, err))
		case v.led < want:
			bad = append(bad, fmt.Sprintf("broker %d sees %s of %s partitions with a leader", id, units.Int(v.led), units.Int(want)))
		}
	}
	if len(bad) > 0 {
		return strings.Join(bad, "; "), false
	}
	return fmt.Sprintf("all %d brokers answer and see a leader for each of the scenario's %s partitions", len(a.brokers), units.Int(want)), true
}

// bounded returns f's result, or gaveUp once ctx has ended without it (at once, f not called,
// when ctx has ended already). kgo ends a request when
// its context ends, but not the opening of a connection, whose handshake waits out the client's
// request timeout overhead (a partAdmin's is its timeout + 10 s, up to 5 min 10 s): a request
// to a broker that a paused process holds the port of could outlast ctx by that much. f goes on
// in the background until then; the caller's results do not wait for it.
func bounded[T any](ctx context.Context, f func(context.Context) T, gaveUp T) T {
	if ctx.Err() != nil {
		return gaveUp
	}
	got := make(chan T, 1)
	go func() { got <- f(ctx) }()
	select {
	case v := <-got:
		return v
	case <-ctx.Done():
		select {
		case v := <-got:
			return v
		default:
			return gaveUp
		}
	}
}

// boundedCleanup is a's cleanup, given up with ctx's error once ctx has ended without it: a
// deletion sent to a paused broker's port cannot hold a scenario past its bound or its interruption.
func boundedCleanup(ctx context.Context, a interface {
	cleanup(context.Context) (int, error)
}) (int, error) {
	type deleted struct {
		n      int
		err    error
		gaveUp bool
	}
	d := bounded(ctx, func(ctx context.Context) deleted {
		n, err := a.cleanup(ctx)
		return deleted{n: n, err: err}
	}, deleted{gaveUp: true})
	if d.gaveUp {
		return 0, ctx.Err()
	}
	return d.n, d.err
}
