package fleet

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/plimsoll/plimsoll/loadgen/topics"
)

// Coordinator is the coordinating side of a run: it owns the run's two topics, reads the
// workers' records and merges them.
type Coordinator struct {
	plan   Plan
	cl     *kgo.Client
	adm    *kadm.Client
	clock  Clock
	limits Limits
	hosts  map[int]Host // joined workers: where each ran
	stop   context.CancelFunc
	beats  chan struct{} // closed when the heartbeats have stopped; nil before they start
}

// Open checks the plan, refuses a run whose prefix is in use, creates the control and results
// topics (one partition, replication min(3, brokers)), writes the plan and starts writing a
// heartbeat every Limits.Beat. Close stops them and deletes the topics; on an error Open
// deletes what it created.
func Open(ctx context.Context, base []kgo.Opt, p Plan, clock Clock, limits Limits) (*Coordinator, error) {
	enc, err := p.Encode()
	if err != nil {
		return nil, err
	}
	// The results topic is consumed once created: a client that asks for a topic before it
	// exists learns of it only at its next metadata refresh (busMetadataAge).
	cl, err := kgo.NewClient(busClient(base, kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()))...)
	if err != nil {
		return nil, err
	}
	bctx, stop := context.WithCancel(context.Background())
	c := &Coordinator{plan: p, cl: cl, adm: kadm.NewClient(cl), clock: clock, limits: p.limits(limits), hosts: map[int]Host{}, stop: stop}
	if err := topics.EnsureNone(ctx, c.adm, Prefix(p.RunID)); err != nil {
		stop()
		cl.Close()
		return nil, err
	}
	if err := c.create(ctx); err != nil {
		return nil, errors.Join(err, c.Close(ctx))
	}
	cl.AddConsumeTopics(ResultsTopic(p.RunID))
	rec := &kgo.Record{Topic: ControlTopic(p.RunID), Key: []byte(keyPlan), Value: enc}
	if err := cl.ProduceSync(ctx, rec).FirstErr(); err != nil {
		return nil, errors.Join(fmt.Errorf("writing the plan: %w", err), c.Close(ctx))
	}
	c.beats = make(chan struct{}) // after the plan, which must be the control topic's first record
	go heartbeats(bctx, cl, ControlTopic(p.RunID), limits.Beat, c.beats)
	return c, nil
}

func (c *Coordinator) create(ctx context.Context) error {
	bm, err := c.adm.BrokerMetadata(ctx)
	if err != nil {
		return fmt.Errorf("%w: %w", topics.ErrSetup, err)
	}
	rf := int16(min(3, len(bm.Brokers)))
	return topics.Create(ctx, c.adm, []string{ControlTopic(c.plan.RunID), ResultsTopic(c.plan.RunID)}, 1, rf, nil)
}

// Close ends the run for any worker still listening and deletes the run's two topics, never a
// name outside the run's prefix.
func (c *Coordinator) Close(ctx context.Context) error {
	defer c.cl.Close()
	c.stop()
	if c.beats != nil {
		<-c.beats
	}
	run := c.plan.RunID
	end := &kgo.Record{Topic: ControlTopic(run), Key: []byte(keyEnd), Value: []byte("the coordinator closed the run")}
	ectx, cancel := context.WithTimeout(ctx, 2*time.Second)
	_ = c.cl.ProduceSync(ectx, end).FirstErr() // best effort: after a failed Open the topic may not exist
	cancel()
	return topics.DeleteOwned(ctx, c.adm, Prefix(run), []string{ControlTopic(run), ResultsTopic(run)}, nil)
}

// AwaitJoins reads the results topic until every worker has joined. A refusal, a worker
// leaving, two workers of one index or the join limit passing first is an error naming the
// workers.
func (c *Coordinator) AwaitJoins(ctx context.Context) error {
	deadline := c.clock.Now().Add(c.limits.Join)
	for len(c.hosts) < c.plan.Workers {
		recs, err := poll(ctx, c.cl, c.limits.Poll)
		if err != nil {
			return err
		}
		for _, r := range recs {
			if err := c.join(r); err != nil {
				return err
			}
		}
		if len(c.hosts) < c.plan.Workers && !c.clock.Now().Before(deadline) {
			return fmt.Errorf("%w: %s of %d never joined run %s in %s; start each with this run id and its index",
				ErrMissing, c.missing(), c.plan.Workers, c.plan.RunID, c.limits.Join)
		}
	}
	return nil
}

func (c *Coordinator) join(r *kgo.Record) error {
	m, err := c.decode(r)
	if err != nil {
		return err
	}
	switch m.Kind {
	case KindRefuse:
		if m.Version != c.plan.Version {
			return fmt.Errorf("%w (%w): worker %d runs plimsoll %s, the coordinator %s: %s", ErrRefused, ErrVersion, m.Worker, m.Version, c.plan.Version, m.Reason)
		}
		return fmt.Errorf("%w: worker %d: %s", ErrRefused, m.Worker, m.Reason)
	case KindJoin:
		if h, ok := c.hosts[m.Worker]; ok {
			return fmt.Errorf("%w: worker %d joined from %s and from %s; give each launcher its own index", ErrDuplicate, m.Worker, h.Name, m.Host)
		}
		c.hosts[m.Worker] = Host{Name: m.Host, BootID: m.BootID}
		return nil
	case KindLeave: // its set-up failed, or it was interrupted, before the others joined
		return fmt.Errorf("worker %d left run %s before every worker joined: %s", m.Worker, c.plan.RunID, m.Reason)
	}
	return fmt.Errorf("%w: worker %d sent a %s record before every worker joined", ErrPlan, m.Worker, m.Kind)
}

// Hosts are where the joined workers ran, by index, as their joins said.
func (c *Coordinator) Hosts() map[int]Host {
	out := make(map[int]Host, len(c.hosts))
	for w, h := range c.hosts {
		out[w] = h
	}
	return out
}

// decode reads a results record of this run from a worker of the plan.
func (c *Coordinator) decode(r *kgo.Record) (Message, error) {
	m, err := DecodeMessage(r.Value)
	switch {
	case err != nil:
		return m, err
	case m.RunID != c.plan.RunID:
		return m, fmt.Errorf("%w: a record of run %s on run %s's results topic", ErrPlan, m.RunID, c.plan.RunID)
	case m.Worker >= c.plan.Workers && m.Kind != KindRefuse: // a refusal may be of its index
		return m, fmt.Errorf("%w: a record of worker %d in a run of %d workers", ErrPlan, m.Worker, c.plan.Workers)
	}
	return m, nil
}

// missing names the workers that have not joined.
func (c *Coordinator) missing() string {
	joined := map[int]bool{}
	for i := range c.hosts {
		joined[i] = true
	}
	return absent(joined, c.plan.Workers)
}

// sortedKeys returns m's keys in order.
func sortedKeys[V any](m map[int]V) []int {
	ks := make([]int, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	slices.Sort(ks)
	return ks
}
