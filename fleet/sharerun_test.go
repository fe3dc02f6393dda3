package fleet

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/plimsoll/plimsoll/loadgen"
	"github.com/plimsoll/plimsoll/loadgen/pace"
	"github.com/plimsoll/plimsoll/loadgen/topics"
	"github.com/plimsoll/plimsoll/target"
	"github.com/plimsoll/plimsoll/workload"
	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"
)

// shareRunSpec is a small workload for share runs on kfake: 2 topics of 6 partitions, the
// given producers at 1500 msgs/s in all, 2 groups of 3 consumers, keyed messages.
func shareRunSpec(producers int) workload.Spec {
	s := workload.Default()
	s.Topics, s.PartitionsPerTopic, s.ReplicationFactor = 2, 6, 1
	s.Producers, s.Rate, s.MessageSize = producers, 1500, 100
	s.ConsumerGroups, s.ConsumersPerGroup = 2, 3
	s.Keys = workload.KeysRoundRobin
	s.Warmup, s.Duration = 400*time.Millisecond, 1200*time.Millisecond
	// Members learn of a rebalance at their next heartbeat: keep the group's settling short.
	s.ConsumerProps.Set("heartbeat.interval.ms", "100")
	return s
}

// shareOut is what one share run returned and fed.
type shareOut struct {
	share   Share
	res     *loadgen.Result
	err     error
	seconds []Second
	final   *Final
}

// runShares runs every share of plan as its own loadgen run, concurrently, against tgt, the
// topics created beforehand as the coordinator would, and returns what each returned and fed.
// first is closed once every share has fed its first second.
func runShares(t *testing.T, tgt target.Target, p Plan, first chan<- struct{}) []*shareOut {
	t.Helper()
	outs := make([]*shareOut, p.Workers)
	var wg, started sync.WaitGroup
	started.Add(p.Workers)
	for i := range p.Workers {
		s, err := p.Share(i)
		if err != nil {
			t.Fatal(err)
		}
		o := &shareOut{share: s}
		outs[i] = o
		opts := RunOptions(p, s)
		opts.DrainTimeout = 10 * time.Second
		var once sync.Once
		opts.Feed = loadgen.Feed{
			Second: func(fs loadgen.FeedSecond) { o.seconds = append(o.seconds, SecondOf(fs)); once.Do(started.Done) },
			Final:  func(ff loadgen.FeedFinal) { f := FinalOf(ff, s.Producers); o.final = &f },
		}
		began := time.Now()
		opts.Started = func(time.Time, time.Time) {
			t.Logf("worker %d: set-up (topics found, groups joined, settled) took %s", i, time.Since(began).Round(time.Millisecond))
		}
		wg.Go(func() {
			ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
			defer cancel()
			o.res, o.err = loadgen.Run(ctx, p.Spec, tgt, opts)
			once.Do(started.Done)
		})
	}
	go func() { started.Wait(); close(first) }()
	wg.Wait()
	return outs
}

// intended counts the messages producers [lo, hi) of spec intend in [from, to) of a schedule
// starting at 0: what one process running the whole workload sends in its window.
func intended(spec workload.Spec, lo, hi int, from, to int64) int64 {
	var n int64
	for i := lo; i < hi; i++ {
		pc := pace.Pacer{Start: int64(float64(i) * 1e9 / spec.Rate), Rate: spec.Rate / float64(spec.Producers)}
		for seq := uint64(0); ; seq++ {
			at := pc.Intended(seq)
			if at >= to {
				break
			}
			if at >= from {
				n++
			}
		}
	}
	return n
}

// TestShareRuns: a workload split into N shares, each run as its own loadgen run against one
// cluster, adds up to the whole: every message the single-process schedule intends in the
// window sent, acknowledged and consumed once by each group, none lost or duplicated, each
// worker's consumers reading only its own partitions and its own producers' messages, and the
// merge of the workers' final reports consistent with the sum of their results.
func TestShareRuns(t *testing.T) {
	if testing.Short() {
		t.Skip("runs loadgen for several seconds")
	}
	for _, tc := range []struct {
		name               string
		workers, producers int
	}{
		{"2 workers", 2, 4},
		{"3 workers", 3, 3},
		{"uneven: 3 producers, 2 workers", 2, 3},
	} {
		t.Run(tc.name, func(t *testing.T) { shareRun(t, tc.workers, tc.producers) })
	}
}

func shareRun(t *testing.T, workers, producers int) {
	c, err := kfake.NewCluster(kfake.NumBrokers(1))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	tgt := target.Target{Bootstrap: c.ListenAddrs()}
	cl, err := kgo.NewClient(kgo.SeedBrokers(c.ListenAddrs()...))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(cl.Close)
	adm := kadm.NewClient(cl)

	p := Plan{RunID: fmt.Sprintf("20261127t040000-%d%d", workers, producers), Version: "test", Workers: workers, Spec: shareRunSpec(producers),
		Start: time.Now().Add(3 * time.Second)} // set-up took 0.14-0.24 s here: joining the groups, settling
	if err := p.Check(); err != nil {
		t.Fatal(err)
	}
	names := topics.TopicNames(Prefix(p.RunID), p.Spec.Topics) // the coordinator's creation
	if err := topics.Create(context.Background(), adm, names, int32(p.Spec.PartitionsPerTopic), 1, nil); err != nil {
		t.Fatal(err)
	}
	first := make(chan struct{})
	assigned := make(chan map[string]map[string][]int32, 1)
	go func() { <-first; assigned <- groupAssignments(t, adm, p) }()
	outs := runShares(t, tgt, p, first)

	var sum, excl loadgen.Counts
	var finals []Final
	var fedSent int64
	for i, o := range outs {
		if o.err != nil {
			t.Fatalf("worker %d: %v", i, o.err)
		}
		if o.final == nil {
			t.Fatalf("worker %d fed no final report", i)
		}
		checkShare(t, i, p, o)
		addCounts(&sum, o.res.Counts)
		addCounts(&excl, o.res.ExcludedCounts)
		finals = append(finals, *o.final)
		for _, s := range o.seconds {
			fedSent += s.Tally.Sent
		}
	}
	whole := intended(p.Spec, 0, producers, int64(p.Spec.Warmup), int64(p.Spec.Warmup+p.Spec.Duration))
	groups := int64(p.Spec.ConsumerGroups)
	if sum.Sent+sum.Unsent != whole || sum.Acked != sum.Sent || sum.Consumed != groups*sum.Acked || sum.Lost != 0 || sum.Duplicated != 0 || sum.Failed != 0 {
		t.Errorf("the shares' sum %+v; want the whole's %d intended messages sent (or unsent), each acknowledged, consumed by each of %d groups, none lost or duplicated", sum, whole, groups)
	}
	if fedSent != sum.Sent+excl.Sent {
		t.Errorf("the fed seconds sent %d, the results %d (window and excluded)", fedSent, sum.Sent+excl.Sent)
	}
	checkMerge(t, p, finals, sum)
	if merged := collectAll(t, outs); merged != fedSent {
		t.Errorf("the merged seconds sent %d, the workers' seconds %d", merged, fedSent)
	}
	got := <-assigned
	t.Logf("whole %d intended; the shares' sum %+v; assignments %v", whole, sum, got)
	checkAssignments(t, p, outs, got)
	if left, err := topics.Prefixed(context.Background(), adm, Prefix(p.RunID)); err != nil || len(left) != len(names) {
		t.Errorf("after the share runs the prefix holds %v (%v); want the coordinator's %v, for it to delete", left, err, names)
	}
}

// checkShare checks one share's result: its producers' own intended messages, its target rate,
// a caught-up, clean ledger over its producers only, and its seconds numbered from the plan's
// start.
func checkShare(t *testing.T, i int, p Plan, o *shareOut) {
	t.Helper()
	c := o.res.Counts
	own := intended(p.Spec, o.share.Producers.Lo, o.share.Producers.Hi, int64(p.Spec.Warmup), int64(p.Spec.Warmup+p.Spec.Duration))
	if c.Sent+c.Unsent != own {
		t.Errorf("worker %d: sent %d + unsent %d, want its producers' %d", i, c.Sent, c.Unsent, own)
	}
	if o.res.TargetMsgsPerSec != o.share.MsgsPerSec || o.res.Config.ProducerClients != o.share.Producers.Len() {
		t.Errorf("worker %d: target %v with %d producers, want %v with %d", i, o.res.TargetMsgsPerSec, o.res.Config.ProducerClients, o.share.MsgsPerSec, o.share.Producers.Len())
	}
	for _, g := range o.final.Groups {
		if g.Foreign != 0 || !g.CaughtUp || g.Lost != 0 || g.Measured.Consumed != c.Acked || g.Producers != o.share.Producers {
			t.Errorf("worker %d, group %s: %+v; want its producers' %d messages, nothing foreign, caught up", i, g.Name, g, c.Acked)
		}
	}
	for k, s := range o.seconds {
		if s.Index != k+1 {
			t.Errorf("worker %d: its seconds are numbered %d at #%d", i, s.Index, k+1)
			break
		}
	}
	if o.final.Counts != c {
		t.Errorf("worker %d: final counts %+v, result %+v", i, o.final.Counts, c)
	}
}

// checkMerge merges the workers' finals as the coordinator does and checks it against the sum
// of their results.
func checkMerge(t *testing.T, p Plan, finals []Final, sum loadgen.Counts) {
	t.Helper()
	m, err := MergeFinals(finals, p.Spec.Producers)
	if err != nil {
		t.Fatal(err)
	}
	if m.Counts != sum {
		t.Errorf("merged counts %+v, the results' sum %+v", m.Counts, sum)
	}
	if m.Publish.Count() != sum.Acked || m.ScheduleDelay.Count() != sum.Sent || m.EndToEnd.Count() != sum.Consumed {
		t.Errorf("merged histograms hold %d publish, %d schedule delay, %d end-to-end values; want %d acked, %d sent, %d consumed",
			m.Publish.Count(), m.ScheduleDelay.Count(), m.EndToEnd.Count(), sum.Acked, sum.Sent, sum.Consumed)
	}
	if len(m.Groups) != p.Spec.ConsumerGroups {
		t.Fatalf("merged %d groups, want %d", len(m.Groups), p.Spec.ConsumerGroups)
	}
	for _, g := range m.Groups {
		if g.Measured.Consumed != sum.Acked || g.Measured.Duplicated != 0 || g.Lost != 0 || !g.CaughtUp || g.Foreign != 0 {
			t.Errorf("merged group %s: %+v; want %d consumed once, caught up", g.Name, g, sum.Acked)
		}
	}
}

// collectAll hands every worker's seconds and final report to the coordinator's collector,
// the workers in step, and returns what the merged seconds sent: each second must merge (one
// phase across workers), whichever worker's drain ends first.
func collectAll(t *testing.T, outs []*shareOut) int64 {
	t.Helper()
	col := &collector{n: len(outs), next: 1, pending: map[int]map[int]Second{}, last: map[int]int{}, heard: map[int]time.Time{}, finals: map[int]Final{}}
	var sent int64
	onSecond := func(m MergedSecond) { sent += m.Tally.Sent }
	for k := 0; ; k++ {
		more := false
		for w, o := range outs {
			var m Message
			switch {
			case k < len(o.seconds):
				m = Message{Worker: w, Kind: KindSecond, Second: &o.seconds[k]}
			case k == len(o.seconds):
				m = Message{Worker: w, Kind: KindFinal, Final: o.final}
			default:
				continue
			}
			more = true
			if err := col.add(m, time.Time{}, onSecond); err != nil {
				t.Fatalf("collecting worker %d's %s #%d: %v", w, m.Kind, k+1, err)
			}
		}
		if !more {
			break
		}
	}
	if len(col.pending) != 0 {
		t.Errorf("seconds left unmerged: %v", sortedKeys(col.pending))
	}
	return sent
}

// groupAssignments describes the run's groups while every worker's consumers are in them:
// by group, by member client id, the partitions of each topic assigned.
func groupAssignments(t *testing.T, adm *kadm.Client, p Plan) map[string]map[string][]int32 {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	out := map[string]map[string][]int32{}
	dg, err := adm.DescribeGroups(ctx, topics.GroupNames(Prefix(p.RunID), p.Spec.ConsumerGroups)...)
	if err != nil {
		t.Error(err)
		return out
	}
	for name, g := range dg {
		out[name] = map[string][]int32{}
		for _, m := range g.Members {
			a, ok := m.Assigned.AsConsumer()
			if !ok {
				t.Errorf("group %s member %s: no consumer assignment", name, m.ClientID)
				continue
			}
			for _, tp := range a.Topics {
				out[name][m.ClientID] = append(out[name][m.ClientID], tp.Partitions...)
			}
		}
	}
	return out
}

// checkAssignments: each member (named by its global consumer index in its client id) holds
// only partitions of its worker, and each group has every worker's consumers.
func checkAssignments(t *testing.T, p Plan, outs []*shareOut, got map[string]map[string][]int32) {
	t.Helper()
	for name, members := range got {
		if len(members) != p.Spec.ConsumersPerGroup {
			t.Errorf("group %s has %d members, want %d", name, len(members), p.Spec.ConsumersPerGroup)
		}
		for client, parts := range members {
			ci, err := strconv.Atoi(client[strings.LastIndex(client, "-c")+2:])
			if err != nil {
				t.Fatalf("client id %s: %v", client, err)
			}
			for _, o := range outs {
				if !o.share.Consumers.Contains(ci) {
					continue
				}
				for _, part := range parts {
					if !o.share.Partitions.Contains(int(part)) {
						t.Errorf("group %s: consumer %d of worker %d holds partition %d, outside its %+v", name, ci, o.share.Worker, part, o.share.Partitions)
					}
				}
			}
		}
	}
	if len(got) != p.Spec.ConsumerGroups {
		t.Errorf("described %d groups, want %d", len(got), p.Spec.ConsumerGroups)
	}
}
