package scenario

import (
	"context"
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/plimsoll/plimsoll/localkafka"
	"github.com/plimsoll/plimsoll/results"
	"github.com/plimsoll/plimsoll/units"
)

// seed002 is Instaclustr's talk, whose experiments 2 to 4 the partition scenarios repeat.
var seed002 = instaclustr("3 x AWS r6g.large (2 Graviton2 cores, 16 GiB), Kafka 3.1.1, ZooKeeper and KRaft; the partition ceiling on one large EC2 instance, Kafka 3.2.1")

func init() {
	register(Scenario{
		Name:  "partition-creation",
		Title: "Partition creation time against total partitions, KRaft and ZooKeeper",
		Doc: `Creates partitions in increments (a new topic of INCREMENT partitions each time, 002's fourth
approach) up to TARGET, on each cluster of CLUSTERS (MODE-VERSION: kraft-4.1.0, zookeeper-3.9.1), and
times each increment (after one untimed WARMUP topic) twice: until CreateTopics returns, and until every broker's own metadata shows
each new partition with a leader and every broker's log directories hold its replicas' logs. A failed or timed-out increment is recorded and ends that cluster's
climb; the cluster's health is checked afterwards. Topics are under plimsoll-pc-, deleted at the end
unless keep=true.`,
		Sources: []results.Source{seed002},
		Params: []Param{
			{Name: "clusters", Short: "kraft-4.1.0", Full: "kraft-4.1.0,kraft-3.9.1,zookeeper-3.9.1", Doc: "clusters to measure, MODE-VERSION; --cluster-dir's is used when it matches, the others are started below --out"},
			{Name: "increment", Short: "100", Full: "1000", Doc: "partitions per increment (one topic each)"},
			{Name: "target", Short: "400", Full: "20000", Doc: "total partitions to reach on each cluster"},
			{Name: "rf", Short: "1", Full: "1", Doc: "replication factor (002 used 1)"},
			{Name: "brokers", Short: "3", Full: "3", Doc: "brokers of each cluster the scenario starts"},
			{Name: "heap", Short: "768m", Full: "1g", Doc: "heap of each broker the scenario starts"},
			{Name: "timeout", Short: "60s", Full: "120s", Doc: "how long one increment may take (the brokers' request timeout, then the wait for metadata)"},
			{Name: "method", Short: "topics", Full: "topics", Doc: "topics: a new topic per increment (CreateTopics); partitions: one topic grown by each increment (CreatePartitions)"},
			{Name: "warmup", Short: "1000", Full: "3000", Doc: "at most this many untimed partitions created first on each cluster, an increment at a time, until the creation path has settled (0: none): a fresh broker JVM's creation path is slowest over its first hundreds of partitions (docs/scenarios.md)"},
			{Name: "settle", Short: "0.1", Full: "0.1", Doc: "the warm-up ends once two increments in a row each took at least 1-settle of the one before (the creation path no longer speeding up)"},
			{Name: "keep", Short: "false", Full: "false", Doc: "true keeps the created topics"},
		},
		Check: checkPartitionCreation,
		Run:   runPartitionCreation,
	})
}

// creationPlan is partition-creation's parameters, read.
type creationPlan struct {
	specs                 []clusterSpec
	increment, target, rf int
	warmup                int
	settle                float64
	grow                  bool
	brokers               int
	heap                  string
	timeout               time.Duration
	keep                  bool
}

func readCreationPlan(p Params) (creationPlan, error) {
	var c creationPlan
	var err error
	for _, f := range []struct {
		name string
		to   *int
	}{{"increment", &c.increment}, {"target", &c.target}, {"rf", &c.rf}, {"brokers", &c.brokers}, {"warmup", &c.warmup}} {
		if *f.to, err = p.Int(f.name); err != nil {
			return c, err
		}
		if *f.to < 1 && f.name != "warmup" {
			return c, fmt.Errorf("--set %s=%s: want 1 or more", f.name, p[f.name])
		}
	}
	if c.increment > c.target {
		return c, fmt.Errorf("--set increment=%d: larger than target %d", c.increment, c.target)
	}
	if c.timeout, err = p.Duration("timeout"); err != nil {
		return c, err
	}
	if c.settle, err = p.Float("settle"); err != nil {
		return c, err
	}
	if c.settle <= 0 || c.settle >= 1 {
		return c, fmt.Errorf("--set settle=%s: want a share between 0 and 1, e.g. 0.1", p["settle"])
	}
	c.heap, c.keep, c.grow = p["heap"], p["keep"] == "true", p["method"] == "partitions"
	if m := p["method"]; m != "topics" && m != "partitions" {
		return c, fmt.Errorf("--set method=%s: want topics (CreateTopics per increment) or partitions (CreatePartitions)", m)
	}
	c.specs, err = parseClusterSpecs("clusters", p["clusters"], c.brokers)
	return c, err
}

// checkPartitionCreation: the parameters, --cluster-dir's cluster running, and room for target
// partitions on every cluster (memory maps, open files, disk).
func checkPartitionCreation(_ context.Context, env *Env, p Params) error {
	c, err := readCreationPlan(p)
	if err != nil {
		return err
	}
	return checkPartitionRoom(env, c.brokers, (c.target+c.warmup)*c.rf)
}

// checkPartitionRoom checks --cluster-dir (if given) and the host's limits for replicas partition
// replicas spread over the brokers of the cluster used (brokers, for one the scenario starts).
func checkPartitionRoom(env *Env, brokers, replicas int) error {
	pid, dir := 0, env.Out
	if env.ClusterDir != "" {
		st, err := runningCluster(env.ClusterDir)
		if err != nil {
			return err
		}
		brokers, pid, dir = len(st.Brokers), st.Brokers[0].PID, st.Dir
	}
	h, err := readHostLimits(pid, dir)
	if err != nil {
		return err
	}
	return h.checkRoom(replicasPerBroker(replicas, brokers), replicas)
}

func runPartitionCreation(ctx context.Context, env *Env, p Params) (results.Scenario, error) {
	c, err := readCreationPlan(p)
	res := results.Scenario{Config: map[string]string{}}
	if err != nil {
		return res, err
	}
	created := results.Chart{Title: "Time to create each increment until every broker sees it", X: "total partitions", Y: "seconds per increment"}
	returned := results.Chart{Title: "Time until CreateTopics returns, per increment", X: "total partitions", Y: "seconds per increment"}
	for _, spec := range c.specs {
		err := onSpecCluster(ctx, env, spec, []string{"--brokers", fmt.Sprint(c.brokers), "--heap", c.heap, "--warm-jit", "0"},
			func(st *localkafka.State) error {
				seen, back, err := climbCreation(ctx, env, st, spec, c, &res)
				created.Series = append(created.Series, seen)
				returned.Series = append(returned.Series, back)
				return err
			})
		if err != nil {
			return res, err
		}
	}
	res.Charts = []results.Chart{created, returned}
	res.Findings = append(res.Findings, creationFindings(created, c)...)
	return res, nil
}

// climbCreation creates c.target partitions on st in increments and returns the two series (until
// every broker sees them, until the call returned). A failed increment is a failure and a note,
// and ends the climb.
func climbCreation(ctx context.Context, env *Env, st *localkafka.State, spec clusterSpec, c creationPlan, res *results.Scenario) (seen, back results.Series, err error) {
	clusterConfig(res.Config, spec.Label(), st)
	seen = results.Series{Name: spec.Label(), Kind: results.SeriesMeasured}
	back = results.Series{Name: spec.Label(), Kind: results.SeriesMeasured}
	prefix := fmt.Sprintf("plimsoll-pc-%s-", env.Now().UTC().Format("20060102t150405"))
	a, err := newPartAdmin(ctx, strings.Split(st.Bootstrap(), ","), prefix, c.timeout, env.Now)
	if err != nil {
		return seen, back, err
	}
	defer a.close()
	defer env.leaving(a.leftover())()
	defer finishPartitions(ctx, a, spec, c.keep, res)
	if err := warmCreation(ctx, env, a, spec, c); err != nil {
		res.Failures = append(res.Failures, fmt.Sprintf("%s: the untimed warm-up topic: %v", spec.Label(), err))
		return seen, back, nil
	}
	for total, i := 0, 0; total < c.target; i++ {
		n := min(c.increment, c.target-total)
		t0 := env.Now()
		name, want, err := a.increment(ctx, c, i, total, n)
		t1, t2 := env.Now(), time.Time{}
		if err == nil {
			wctx, cancel := context.WithTimeout(ctx, c.timeout)
			t2, err = a.waitAll(wctx, []string{name}, createdAtLeast(want))
			cancel()
		}
		if err != nil {
			t2 = env.Now()
		}
		if ctx.Err() != nil {
			return seen, back, ctx.Err()
		}
		total += n
		pt := results.Point{X: float64(total), Y: t2.Sub(t0).Seconds()}
		if err != nil {
			pt.Note = "failed: " + err.Error()
			res.Failures = append(res.Failures, fmt.Sprintf("%s: the increment to %d partitions failed after %s: %v", spec.Label(), total, units.Sig(pt.Y, 3)+" s", err))
		}
		seen.Points = append(seen.Points, pt)
		back.Points = append(back.Points, results.Point{X: float64(total), Y: t1.Sub(t0).Seconds(), Note: pt.Note})
		fmt.Fprintf(env.Log, "scenario: %s: %d partitions, increment %s s (returned in %s s)\n", spec.Label(), total, units.Sig(pt.Y, 3), units.Sig(t1.Sub(t0).Seconds(), 3))
		if err != nil {
			break
		}
	}
	return seen, back, nil
}

// increment adds n partitions, the i-th increment, with total already made: a new topic, or
// (method partitions) one topic grown to total+n. It returns the topic and the partitions it
// must show led.
func (a *partAdmin) increment(ctx context.Context, c creationPlan, i, total, n int) (string, int, error) {
	if !c.grow {
		name := a.topic(fmt.Sprintf("i%05d", i))
		return name, n, a.createTopic(ctx, name, int32(n), int16(c.rf), nil)
	}
	name := a.topic("grown")
	if i == 0 {
		return name, n, a.createTopic(ctx, name, int32(n), int16(c.rf), nil)
	}
	return name, total + n, a.addPartitions(ctx, name, total+n)
}

// warmCreation creates untimed warm-up topics of c.increment partitions each (the last one
// smaller if c.warmup is not a multiple), waiting for each until every broker has its logs, until
// two in a row each took at least 1-c.settle of the time of the one before (settled), or c.warmup
// partitions are made.
// A fresh broker's creation path speeds up over its first hundreds of partitions, by a different
// amount on each start (docs/scenarios.md); a fixed warm-up left the charted increments still
// falling. The warm-up partitions are not counted in the chart's totals.
func warmCreation(ctx context.Context, env *Env, a *partAdmin, spec clusterSpec, c creationPlan) error {
	var took []float64
	for made := 0; made < c.warmup; {
		n := min(c.increment, c.warmup-made)
		name := a.topic(fmt.Sprintf("warmup%02d", len(took)))
		t0 := env.Now()
		if err := a.createTopic(ctx, name, int32(n), int16(c.rf), nil); err != nil {
			return err
		}
		wctx, cancel := context.WithTimeout(ctx, c.timeout)
		t1, err := a.waitAll(wctx, []string{name}, createdAtLeast(n))
		cancel()
		if err != nil {
			return err
		}
		made += n
		took = append(took, t1.Sub(t0).Seconds())
		if settled(took, c.settle) {
			break
		}
	}
	if len(took) > 0 {
		fmt.Fprintf(env.Log, "scenario: %s: warm-up of %d increments, %s s each (not charted)%s\n", spec.Label(), len(took), sigs(took), unsettled(took, c.settle))
	}
	return nil
}

// settled says whether the last two of the warm-up's increments each took at least 1-share of
// the time of the one before it: one such step proved too little, as a noisy slow increment then
// looked like the end of the warming (ZooKeeper 3.9.1: 2.94 and 2.99 s, then 2.64, 1.70, 1.68).
func settled(took []float64, share float64) bool {
	n := len(took)
	return n >= 3 && took[n-1] >= (1-share)*took[n-2] && took[n-2] >= (1-share)*took[n-3]
}

// unsettled is the log's warning when the warm-up ran out before the creation path settled.
func unsettled(took []float64, share float64) string {
	if settled(took, share) {
		return ""
	}
	return "; still speeding up at its end: the charted increments may fall with the total"
}

// sigs is xs at 3 significant figures, comma-separated.
func sigs(xs []float64) string {
	s := make([]string, len(xs))
	for i, x := range xs {
		s[i] = units.Sig(x, 3)
	}
	return strings.Join(s, ", ")
}

// finisher is what finishPartitions asks of a partAdmin.
type finisher interface {
	health(ctx context.Context) (string, bool)
	cleanup(ctx context.Context) (int, error)
	leftover() string
}

// finishBound bounds a partition scenario's clean-up, the health check and then the deletion of
// its topics, after an interruption, an error or a normal end alike. The health check gives up
// at 30 s on its own; deleting the topics (the controller answers once it has accepted the
// deletion, then the listing is polled up to cleanupSettle) takes seconds on a cluster that
// answers. Beyond that the cluster is stuck: with no bound, the clean-up after an interrupted
// 10,000-partition move on ZooKeeper 3.9 waited on its admin requests for many minutes.
const finishBound = 2 * time.Minute

// finishContext is the context of finishPartitions: not cancelled with ctx, so that it runs
// after an interruption too, and ended at finishBound. The tests end it themselves.
var finishContext = func(ctx context.Context) (context.Context, context.CancelFunc) {
	return context.WithTimeout(context.WithoutCancel(ctx), finishBound)
}

// finishPartitions checks the cluster's health (a finding) and deletes the scenario's topics
// unless keep, within finishBound; a deletion that failed or ran out of time is a failure that
// names the topics left and how to delete them.
func finishPartitions(ctx context.Context, a finisher, spec clusterSpec, keep bool, res *results.Scenario) {
	ctx, cancel := finishContext(ctx)
	defer cancel()
	type health struct {
		text string
		ok   bool
	}
	h := bounded(ctx, func(ctx context.Context) health {
		text, ok := a.health(ctx)
		return health{text, ok}
	}, health{text: fmt.Sprintf("no answer within the clean-up's bound (%v)", finishBound)})
	res.Findings = append(res.Findings, results.Finding{Name: spec.Label() + " healthy afterwards", Value: b2f(h.ok), Unit: "yes/no", Text: h.text})
	if keep {
		return
	}
	n, err := boundedCleanup(ctx, a)
	if err == nil {
		return
	}
	if ctx.Err() != nil { // not cancelled with the scenario's context: ended at the bound
		err = fmt.Errorf("gave up at the clean-up's bound (%v): %w", finishBound, err)
	}
	what := "topics"
	if n > 0 {
		what = fmt.Sprintf("%d topics", n)
	}
	res.Failures = append(res.Failures, fmt.Sprintf("%s: deleting the scenario's %s: %v; left: %s", spec.Label(), what, err, a.leftover()))
}

func b2f(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

// creationFindings: per cluster, the seconds per 1,000 partitions at the first and the last
// increment, and the partitions reached; ZooKeeper against KRaft where both ran on one release.
func creationFindings(ch results.Chart, c creationPlan) []results.Finding {
	var out []results.Finding
	per1000 := 1000 / float64(c.increment)
	for _, s := range ch.Series {
		if len(s.Points) == 0 {
			continue
		}
		first, last := s.Points[0], s.Points[len(s.Points)-1]
		ceiling := 80000.0
		out = append(out,
			results.Finding{Name: s.Name + ": seconds per 1,000 partitions, first increment", Value: first.Y * per1000, Unit: "s",
				Text: fmt.Sprintf("the first %s partitions took %s until every broker saw them", units.Count(first.X), units.Sig(first.Y, 3)+" s")},
			results.Finding{Name: s.Name + ": seconds per 1,000 partitions, last increment", Value: last.Y * per1000, Unit: "s",
				Text: fmt.Sprintf("the increment to %s partitions took %s", units.Count(last.X), units.Sig(last.Y, 3)+" s")},
			results.Finding{Name: s.Name + ": partitions created", Value: last.X, Unit: "partitions", Article: &ceiling,
				ArticleNote: "002 (slide 42): a limit of around 80,000 partitions on both ZooKeeper and KRaft, Kafka 3.1.1 on 3 x r6g.large, rf 1; creation time per 1,000 rose with the total, ZooKeeper slower than KRaft (slide 41)"})
	}
	return append(out, zkOverKRaft(ch)...)
}

// zkOverKRaft is the ratio of ZooKeeper's mean increment time to KRaft's on the same release,
// where both measured something (an interrupted run may leave a series empty, and a NaN would
// make the record unwritable).
func zkOverKRaft(ch results.Chart) []results.Finding {
	var out []results.Finding
	for _, zk := range ch.Series {
		v, ok := strings.CutPrefix(zk.Name, "ZooKeeper ")
		if !ok {
			continue
		}
		for _, kr := range ch.Series {
			if kr.Name == "KRaft "+v && len(zk.Points) > 0 && len(kr.Points) > 0 && meanY(kr) > 0 {
				out = append(out, results.Finding{Name: "ZooKeeper / KRaft mean increment time, Kafka " + v, Value: meanY(zk) / meanY(kr), Unit: "ratio",
					Text: "above 1: ZooKeeper slower to create partitions, as 002 found (slide 41)"})
			}
		}
	}
	return out
}

func meanY(s results.Series) float64 {
	if len(s.Points) == 0 {
		return math.NaN()
	}
	sum := 0.0
	for _, p := range s.Points {
		sum += p.Y
	}
	return sum / float64(len(s.Points))
}
