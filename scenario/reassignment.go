package scenario

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/plimsoll/plimsoll/localkafka"
	"github.com/plimsoll/plimsoll/results"
	"github.com/plimsoll/plimsoll/units"
)

func init() {
	register(Scenario{
		Name:  "reassignment",
		Title: "Time to move every replica off one broker",
		Doc: `Creates a topic of PARTITIONS partitions at replication factor RF, fills it with each size of DATA
(0: empty, as 002 measured), and moves every replica off the last broker with one
AlterPartitionReassignments request (kadm), each to a broker that does not hold the partition yet.
Each move starts from a topic at rest (every replica in sync). It times the request, then until
ListPartitionReassignments is empty and every broker's own metadata shows the new replicas; a
request whose answer is lost (a ZooKeeper controller's long move outlasts the broker's
connections.max.idle.ms, 10 minutes) is followed to its end all the same, and noted. THROTTLE
(e.g. 10MB/s) sets leader/follower.replication.throttled.rate on every broker and the throttled
replicas on the topic for the move, and removes them afterwards.
Each move's topic is deleted before the next move, which waits for the brokers to close its files,
so that each move runs on a cluster holding its own topic only. Topics are under plimsoll-ra-,
deleted at the end unless keep=true (which keeps every move's).`,
		Sources: []results.Source{seed002},
		Params: []Param{
			{Name: "clusters", Short: "kraft-4.1.0", Full: "kraft-4.1.0,zookeeper-3.9.1", Doc: "clusters to measure, MODE-VERSION, as partition-creation"},
			{Name: "partitions", Short: "100", Full: "10000", Doc: "partitions of the topic moved (002: 10,000)"},
			{Name: "rf", Short: "2", Full: "2", Doc: "replication factor (002: 2)"},
			{Name: "data", Short: "0,16MB", Full: "0,1GB", Doc: "bytes produced into the topic before each move; one move per size"},
			{Name: "throttle", Short: "", Full: "", Doc: "replication throttle during the move, e.g. 10MB/s (empty: none)"},
			{Name: "brokers", Short: "3", Full: "3", Doc: "brokers of each cluster the scenario starts (3 or more)"},
			{Name: "heap", Short: "768m", Full: "1g", Doc: "heap of each broker the scenario starts"},
			{Name: "timeout", Short: "120s", Full: "30m", Doc: "how long one move may take before it is recorded as timed out"},
			{Name: "keep", Short: "false", Full: "false", Doc: "true keeps the created topics"},
		},
		Check: checkReassignment,
		Run:   runReassignment,
	})
}

// movePlan is reassignment's parameters, read.
type movePlan struct {
	specs          []clusterSpec
	partitions, rf int
	brokers        int
	data           []float64
	throttle       float64
	heap           string
	timeout        time.Duration
	keep           bool
}

func readMovePlan(p Params) (movePlan, error) {
	var m movePlan
	var err error
	for _, f := range []struct {
		name string
		to   *int
	}{{"partitions", &m.partitions}, {"rf", &m.rf}, {"brokers", &m.brokers}} {
		if *f.to, err = p.Int(f.name); err != nil {
			return m, err
		}
	}
	if m.partitions < 1 || m.rf < 1 || m.brokers <= m.rf {
		return m, fmt.Errorf("--set partitions=%d rf=%d brokers=%d: want a partition or more, and more brokers than rf (a replica needs somewhere to go)", m.partitions, m.rf, m.brokers)
	}
	for _, f := range strings.Split(p["data"], ",") {
		b, err := units.ParseBytes(strings.TrimSpace(f))
		if err != nil || b < 0 {
			return m, fmt.Errorf("--set data=%s: want sizes such as 0,16MB", p["data"])
		}
		m.data = append(m.data, b)
	}
	if p["throttle"] != "" {
		if m.throttle, err = units.ParseRate(p["throttle"]); err != nil || m.throttle <= 0 {
			return m, fmt.Errorf("--set throttle=%s: want a rate such as 10MB/s, or empty for none", p["throttle"])
		}
	}
	if m.timeout, err = p.Duration("timeout"); err != nil {
		return m, err
	}
	m.heap, m.keep = p["heap"], p["keep"] == "true"
	m.specs, err = parseClusterSpecs("clusters", p["clusters"], m.brokers)
	return m, err
}

// checkReassignment: the parameters, --cluster-dir's brokers (more than rf), and room for the
// replicas of one move's topic (of every move's with keep=true), the data and one more replica
// per moved partition while it moves.
func checkReassignment(_ context.Context, env *Env, p Params) error {
	m, err := readMovePlan(p)
	if err != nil {
		return err
	}
	if env.ClusterDir != "" {
		st, err := runningCluster(env.ClusterDir)
		if err != nil {
			return err
		}
		if len(st.Brokers) <= m.rf {
			return fmt.Errorf("--cluster-dir %s has %d brokers: moving replicas at rf %d off one needs %d or more", env.ClusterDir, len(st.Brokers), m.rf, m.rf+1)
		}
	}
	topics := 1 // each move's topic is deleted before the next (dropPrevious)
	if m.keep {
		topics = len(m.data)
	}
	if err := checkPartitionRoom(env, m.brokers, topics*m.partitions*(m.rf+1)); err != nil {
		return err
	}
	need := 0.0
	for _, d := range m.data {
		need += d * float64(m.rf+1)
	}
	h, err := readHostLimits(0, env.Out)
	if err == nil && int64(need)+diskSpare > h.DiskFree {
		return fmt.Errorf("--set data=%s: the data and its replicas need %s of disk, %s is free", p["data"], units.FormatBytes(need+diskSpare), units.FormatBytes(float64(h.DiskFree)))
	}
	return err
}

func runReassignment(ctx context.Context, env *Env, p Params) (results.Scenario, error) {
	m, err := readMovePlan(p)
	res := results.Scenario{Config: map[string]string{}}
	if err != nil {
		return res, err
	}
	ch := results.Chart{Title: "Time to move every replica off one broker", X: "bytes in the topic (MB)", Y: "seconds"}
	for _, spec := range m.specs {
		s := results.Series{Name: spec.Label(), Kind: results.SeriesMeasured}
		err := onSpecCluster(ctx, env, spec, []string{"--brokers", fmt.Sprint(m.brokers), "--heap", m.heap, "--warm-jit", "0"},
			func(st *localkafka.State) error { return moveAll(ctx, env, st, spec, m, &s, &res) })
		ch.Series = append(ch.Series, s)
		if err != nil {
			return res, err
		}
	}
	res.Charts = []results.Chart{withArticleMoves(ch, m)}
	res.Findings = append(res.Findings, moveFindings(ch, m)...)
	return res, nil
}

// moveAll runs one move per data size on st, adding a point to s for each.
func moveAll(ctx context.Context, env *Env, st *localkafka.State, spec clusterSpec, m movePlan, s *results.Series, res *results.Scenario) error {
	clusterConfig(res.Config, spec.Label(), st)
	prefix := fmt.Sprintf("plimsoll-ra-%s-", env.Now().UTC().Format("20060102t150405"))
	a, err := newPartAdmin(ctx, strings.Split(st.Bootstrap(), ","), prefix, m.timeout, env.Now)
	if err != nil {
		return err
	}
	defer a.close()
	defer env.leaving(a.leftover())()
	defer finishPartitions(ctx, a, spec, m.keep, res)
	need := uint64(fdsPerPartition * replicasPerBroker(m.partitions*(m.rf+1), len(st.Brokers)))
	for i, data := range m.data {
		if i > 0 && !m.keep {
			if err := dropPrevious(ctx, env, a, st, need); err != nil {
				return err
			}
		}
		pt, err := moveOnce(ctx, env, a, fmt.Sprintf("d%d", i), data, m)
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if err != nil {
			pt.Note = "failed: " + err.Error()
			res.Failures = append(res.Failures, fmt.Sprintf("%s: moving %s partitions with %s in them: %v", spec.Label(), units.Int(m.partitions), units.FormatBytes(data), err))
		}
		fmt.Fprintf(env.Log, "scenario: %s: moved %d partitions with %s in %s s %s\n", spec.Label(), m.partitions, units.FormatBytes(data), units.Sig(pt.Y, 3), pt.Note)
		s.Points = append(s.Points, pt)
	}
	return nil
}

// dropPrevious deletes the previous move's topic, so that each move runs on a cluster holding
// its own topic only (as 002 measured) and the brokers' open files stay within what Check
// allowed for one. Kafka closes a deleted partition's files only after
// log.segment.delete.delay.ms (60 s by default), so when the files still open and the next
// move's need (open files per broker) would pass limitShare of a broker's open-files limit, it
// waits for them to close; otherwise it goes straight on. A wait past releaseTimeout is logged,
// not an error: the next move then runs with more files open than planned.
func dropPrevious(ctx context.Context, env *Env, a *partAdmin, st *localkafka.State, need uint64) error {
	start := time.Now() // a log line's, not a figure's: env.Now is the record's clock
	if n, err := boundedCleanup(ctx, a); err != nil {
		return fmt.Errorf("deleting the previous move's topic (%d under %s): %w", n, a.prefix, err)
	}
	deadline := time.Now().Add(releaseTimeout)
	for waited := false; ; waited = true {
		if roomFor(brokerOpenFiles(st), need) {
			if waited {
				fmt.Fprintf(env.Log, "scenario: deleted the previous move's topic; enough of its files were closed %s s later\n", units.Sig(time.Since(start).Seconds(), 3))
			}
			return nil
		}
		if time.Now().After(deadline) {
			fmt.Fprintf(env.Log, "scenario: %v after deleting the previous move's topic, a broker's open files and the next move's %d would still pass %s of its open-files limit; moving on\n", releaseTimeout, need, units.Pct(limitShare))
			return nil
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(releasePoll):
		}
	}
}

// releaseTimeout bounds dropPrevious' wait: twice Kafka's default log.segment.delete.delay.ms.
// releasePoll is how often it reads the brokers' open files.
var releaseTimeout, releasePoll = 2 * time.Minute, time.Second

// roomFor: every broker read can open need more files and stay within limitShare of its
// open-files limit (the allowance Check's checkRoom used).
func roomFor(now []brokerFiles, need uint64) bool {
	for _, n := range now {
		if float64(n.open+need) > limitShare*float64(n.limit) {
			return false
		}
	}
	return true
}

// moveOnce creates the topic, fills it, and moves every replica off the last broker. The point's
// Y is from the request to the moment every broker's metadata shows the new replicas.
func moveOnce(ctx context.Context, env *Env, a *partAdmin, suffix string, data float64, m movePlan) (results.Point, error) {
	pt := results.Point{X: data / 1e6}
	name := a.topic(suffix)
	if err := a.createInSteps(ctx, name, int32(m.partitions), int16(m.rf)); err != nil {
		return pt, fmt.Errorf("creating the topic: %w", err)
	}
	wctx, cancel := context.WithTimeout(ctx, m.timeout)
	defer cancel()
	// Each move starts from a topic at rest: every replica created and in sync, the data too, so
	// it times the move and not the tail of the creation or of the produce.
	if _, err := a.waitAll(wctx, []string{name}, inSyncAtLeast(m.partitions)); err != nil {
		return pt, err
	}
	if err := a.fill(wctx, name, m.partitions, data); err != nil {
		return pt, fmt.Errorf("producing %s: %w", units.FormatBytes(data), err)
	}
	if _, err := a.waitAll(wctx, []string{name}, inSyncAtLeast(m.partitions)); err != nil {
		return pt, err
	}
	from := a.brokers[len(a.brokers)-1]
	target, err := a.offBroker(wctx, name, from)
	if err != nil {
		return pt, err
	}
	if m.throttle > 0 {
		defer func() {
			if err := a.unthrottle(context.WithoutCancel(ctx), name); err != nil {
				fmt.Fprintf(env.Log, "scenario: %v\n", err)
			}
		}()
		if err := a.throttle(wctx, name, m.throttle); err != nil {
			return pt, err
		}
	}
	t0 := env.Now()
	pt.Note, err = a.reassign(wctx, name, target, t0)
	pt.Y = env.Now().Sub(t0).Seconds()
	return pt, err
}

// offBroker plans the move of every replica of topic name off broker from: each goes to a broker
// that does not hold the partition, spread round-robin; the other replicas keep their order.
func (a *partAdmin) offBroker(ctx context.Context, name string, from int32) (map[int32][]int32, error) {
	td, err := a.adm.ListTopics(ctx, name)
	if err != nil {
		return nil, err
	}
	plan := map[int32][]int32{}
	for _, p := range td[name].Partitions.Sorted() {
		if !slices.Contains(p.Replicas, from) {
			continue
		}
		var to []int32
		for _, b := range a.brokers {
			if b != from && !slices.Contains(p.Replicas, b) {
				to = append(to, b)
			}
		}
		if len(to) == 0 {
			return nil, fmt.Errorf("partition %d of %s has replicas %v: no broker left to move the one on broker %d to", p.Partition, name, p.Replicas, from)
		}
		next := slices.Clone(p.Replicas)
		next[slices.Index(next, from)] = to[int(p.Partition)%len(to)]
		plan[p.Partition] = next
	}
	return plan, nil
}

// reassign sends the plan in one AlterPartitionReassignments request and waits until
// ListPartitionReassignments is empty and every broker's metadata shows the new replicas. A
// request whose answer was lost (the broker closed its connection, or the client's wait ran out)
// may still be carried out: a ZooKeeper controller moving 10,000 partitions had not answered
// when the broker closed the connection at 600 s, connections.max.idle.ms' default. The move is
// then followed as an answered one, and the note says so, with the time since t0.
func (a *partAdmin) reassign(ctx context.Context, name string, plan map[int32][]int32, t0 time.Time) (string, error) {
	req := kadm.AlterPartitionAssignmentsReq{}
	set := kadm.TopicsSet{}
	for p, rs := range plan {
		req.Assign(name, p, rs)
		set.Add(name, p)
	}
	note := ""
	resp, err := a.adm.AlterPartitionAssignments(ctx, req)
	if err == nil {
		err = resp.Error()
	}
	switch {
	case err != nil && lostAnswer(err) && ctx.Err() == nil:
		note = fmt.Sprintf("the request's answer was lost after %s s (%v); the move was followed to its end all the same",
			units.Sig(a.now().Sub(t0).Seconds(), 3), err)
	case err != nil:
		return "", fmt.Errorf("AlterPartitionReassignments: %w", err)
	}
	if err := a.waitMoved(ctx, name, set, plan); err != nil {
		if note != "" {
			err = fmt.Errorf("%s; %w", note, err)
		}
		return "", err
	}
	return note, nil
}

// waitMoved waits until ListPartitionReassignments holds none of set and every broker's
// metadata shows plan's replicas. A list whose answer was lost is asked again: behind a
// ZooKeeper controller's long move it waits its turn in the controller's queue.
func (a *partAdmin) waitMoved(ctx context.Context, name string, set kadm.TopicsSet, plan map[int32][]int32) error {
	for left := -1; left != 0; {
		got, err := a.adm.ListPartitionReassignments(ctx, set)
		switch {
		case err == nil:
			left = len(got.Sorted())
		case !lostAnswer(err) || ctx.Err() != nil:
			return fmt.Errorf("ListPartitionReassignments: %w", err)
		}
		if left == 0 {
			break
		}
		select {
		case <-ctx.Done():
			if left < 0 {
				return fmt.Errorf("ListPartitionReassignments never answered: %w", ctx.Err())
			}
			return fmt.Errorf("%d partitions were still moving: %w", left, ctx.Err())
		case <-time.After(a.poll):
		}
	}
	_, err := a.waitAll(ctx, []string{name}, waitTest{ok: func(v brokerView) bool {
		for p, rs := range plan {
			if !sameSet(v.replicas[name][p], rs) {
				return false
			}
		}
		return true
	}})
	return err
}

// lostAnswer reports whether err says a request's answer never came, rather than Kafka refusing
// it: the connection closed or reset under it, or a wait for it timed out. The request may have
// been carried out.
func lostAnswer(err error) bool {
	var ne net.Error
	return errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, syscall.ECONNRESET) ||
		errors.Is(err, os.ErrDeadlineExceeded) || (errors.As(err, &ne) && ne.Timeout())
}

func sameSet(a, b []int32) bool {
	if len(a) != len(b) {
		return false
	}
	for _, x := range a {
		if !slices.Contains(b, x) {
			return false
		}
	}
	return true
}

// fill produces bytes into topic name, 1 KiB records spread evenly over its partitions.
func (a *partAdmin) fill(ctx context.Context, name string, partitions int, bytes float64) error {
	if bytes <= 0 {
		return nil
	}
	cl, err := kgo.NewClient(kgo.SeedBrokers(a.cl.OptValue(kgo.SeedBrokers).([]string)...), kgo.DefaultProduceTopic(name),
		kgo.RecordPartitioner(kgo.ManualPartitioner()), kgo.ProducerLinger(5*time.Millisecond))
	if err != nil {
		return err
	}
	defer cl.Close()
	value := make([]byte, 1024)
	n := int(bytes / float64(len(value)))
	errs := make(chan error, 1)
	for i := 0; i < n; i++ {
		cl.Produce(ctx, &kgo.Record{Value: value, Partition: int32(i % partitions)}, func(_ *kgo.Record, err error) {
			if err != nil {
				select {
				case errs <- err:
				default:
				}
			}
		})
	}
	if err := cl.Flush(ctx); err != nil {
		return err
	}
	select {
	case err := <-errs:
		return err
	default:
		return nil
	}
}

// throttle limits replication on every broker to rate and marks every replica of topic name as
// throttled; unthrottle undoes both.
func (a *partAdmin) throttle(ctx context.Context, name string, rate float64) error {
	r := fmt.Sprint(int64(rate))
	all := "*"
	set := []kadm.AlterConfig{{Op: kadm.SetConfig, Name: "leader.replication.throttled.rate", Value: &r},
		{Op: kadm.SetConfig, Name: "follower.replication.throttled.rate", Value: &r}}
	if _, err := a.adm.AlterBrokerConfigs(ctx, set, a.brokers...); err != nil {
		return fmt.Errorf("setting the replication throttle: %w", err)
	}
	topic := []kadm.AlterConfig{{Op: kadm.SetConfig, Name: "leader.replication.throttled.replicas", Value: &all},
		{Op: kadm.SetConfig, Name: "follower.replication.throttled.replicas", Value: &all}}
	if _, err := a.adm.AlterTopicConfigs(ctx, topic, name); err != nil {
		return fmt.Errorf("throttling the replicas of %s: %w", name, err)
	}
	return nil
}

// unthrottle runs after an interruption or an error too, so it gives up at unthrottleBound; the
// error then names the broker configs left and how to delete them (the topic's go with it).
func (a *partAdmin) unthrottle(ctx context.Context, name string) error {
	ctx, cancel := context.WithTimeout(ctx, unthrottleBound)
	defer cancel()
	err := bounded(ctx, func(ctx context.Context) error { return a.unthrottleNow(ctx, name) }, context.DeadlineExceeded)
	if err != nil {
		return fmt.Errorf("removing the replication throttle: %w; left on brokers %v (delete it with kafka-configs.sh --bootstrap-server %s --alter --entity-type brokers --entity-name ID --delete-config leader.replication.throttled.rate,follower.replication.throttled.rate)",
			err, a.brokers, strings.Join(a.bootstrap, ","))
	}
	return nil
}

// unthrottleNow removes the brokers' throttle rates and the topic's throttled replicas; the
// error is the brokers' (the topic's configs go with the topic).
func (a *partAdmin) unthrottleNow(ctx context.Context, name string) error {
	del := []kadm.AlterConfig{{Op: kadm.DeleteConfig, Name: "leader.replication.throttled.rate"},
		{Op: kadm.DeleteConfig, Name: "follower.replication.throttled.rate"}}
	resp, err := a.adm.AlterBrokerConfigs(ctx, del, a.brokers...)
	for _, r := range resp {
		if err == nil && r.Err != nil {
			err = fmt.Errorf("broker %s: %w", r.Name, r.Err)
		}
	}
	a.adm.AlterTopicConfigs(ctx, []kadm.AlterConfig{{Op: kadm.DeleteConfig, Name: "leader.replication.throttled.replicas"},
		{Op: kadm.DeleteConfig, Name: "follower.replication.throttled.replicas"}}, name)
	return err
}

// unthrottleBound bounds unthrottle's two AlterConfigs requests, which a controller that answers
// at all answers in well under a second; the health check allows 30 s too.
const unthrottleBound = 30 * time.Second

// article002Moves are 002's times to reassign 10,000 empty partitions at rf 2 from one broker to
// the other two (slide 44), Kafka 3.1.1 on 3 x r6g.large.
var article002Moves = map[string]float64{"ZooKeeper": 600, "KRaft": 42}

// withArticleMoves adds 002's figures as article points at 0 bytes, when the run moved as many
// partitions at the same rf as 002 did (otherwise they would not compare).
func withArticleMoves(ch results.Chart, m movePlan) results.Chart {
	if m.partitions != 10000 || m.rf != 2 {
		return ch
	}
	for _, mode := range []string{"KRaft", "ZooKeeper"} {
		ch.Series = append(ch.Series, results.Series{Name: "002: " + mode + " 3.1.1, 3 x r6g.large", Kind: results.SeriesArticle,
			Source: "002, slide 44", Points: []results.Point{{X: 0, Y: article002Moves[mode]}}})
	}
	return ch
}

// moveFindings: each cluster's time for each data size, beside 002's for 10,000 empty partitions.
// A move that failed (a point whose note starts "failed: ") is named so, its time the time until it failed, with
// no article figure beside it: it is not a time to move.
func moveFindings(ch results.Chart, m movePlan) []results.Finding {
	var out []results.Finding
	for _, s := range ch.Series {
		for _, p := range s.Points {
			what := fmt.Sprintf("%s: %s partitions with %s", s.Name, units.Int(m.partitions), units.FormatBytes(p.X*1e6))
			f := results.Finding{Name: what + " moved off one broker", Value: p.Y, Unit: "s", Text: p.Note}
			if why, failed := strings.CutPrefix(p.Note, "failed: "); failed {
				f.Name, f.Text = what+": the move failed after", why
				out = append(out, f)
				continue
			}
			mode, _, _ := strings.Cut(s.Name, " ")
			if v, ok := article002Moves[mode]; ok && p.X == 0 && m.partitions == 10000 && m.rf == 2 {
				f.Article, f.ArticleNote = &v, "002 (slide 44): 10,000 empty partitions at rf 2 from one broker to the other two, Kafka 3.1.1 on 3 x r6g.large"
			}
			out = append(out, f)
		}
	}
	return out
}
