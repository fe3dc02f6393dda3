package scenario

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"

	"github.com/prometheus/procfs"

	"github.com/plimsoll/plimsoll/localkafka"
	"github.com/plimsoll/plimsoll/model"
	"github.com/plimsoll/plimsoll/results"
	"github.com/plimsoll/plimsoll/units"
)

func init() {
	register(Scenario{
		Name:  "partitions-throughput",
		Title: "Throughput and latency against partitions",
		Doc: "The producers' sustained rate (as fast as they go, compression and batching on, no consumers) and " +
			"their p99 publish latency against leader partitions per broker, and against the topic's total " +
			"partitions on a log axis: where throughput peaks, where latency turns up (Instaclustr saw a cliff " +
			"past about 1,000 partitions), and whether throughput rises with leader partitions per broker as " +
			"Netflix found when each partition's appends were serialised. Each point is one plimsoll run.",
		Sources: []results.Source{
			{Seed: "000", Title: "Netflix: the number of Kafka partitions when using compression/batching (2014)",
				Hardware: "3 brokers on i2.2xlarge (8 cores), Kafka 0.8.1.1, rf 2, snappy, batch 8192, acks 1, 300 producers of 2-2.5 KB JSON"},
			instaclustr("3 nodes of AWS r6g.large, Kafka 3.1.1, ZooKeeper and KRaft"),
		},
		Params: []Param{
			{Name: "leaders-per-broker", Short: "1,8", Full: "1,2,3,4,5,6,8,12,16", Doc: "leader partitions per broker, one run each"},
			{Name: "total-partitions", Short: "none", Full: "1,10,100,300,1000,3000,10000", Doc: "total partitions of the topic, one run each (none: only the runs above)"},
			{Name: "replication-factor", Short: "2", Full: "2", Doc: "replicas of each partition (000 used 2)"},
			{Name: "message-size", Short: "1000", Full: "2000", Doc: "bytes per message (000's were 2-2.5 KB)"},
			{Name: "producers", Short: "4", Full: "8", Doc: "producer clients"},
			{Name: "compression", Short: "lz4", Full: "lz4", Doc: "the producers' compression.type"},
			{Name: "batch-size", Short: "65536", Full: "65536", Doc: "the producers' batch.size, bytes"},
			{Name: "linger", Short: "5", Full: "5", Doc: "the producers' linger.ms"},
			{Name: "buffer-memory", Short: "1048576", Full: "4194304", Doc: "the producers' buffer.memory, bytes: what each may hold unsent, which bounds the queue in front of the brokers that p99 would otherwise measure"},
			{Name: "duration", Short: "4s", Full: "30s", Doc: "each run's measured window"},
			{Name: "warmup", Short: "2s", Full: "10s", Doc: "each run's warm-up"},
			{Name: "min-free-disk", Short: "1GB", Full: "20GB", Doc: "free space the runs' data need on the cluster's disk (each run's topic is deleted after it)"},
		},
		Load:  true,
		Check: checkPartitionsThroughput,
		Run:   runPartitionsThroughput,
	})
}

// ptPlan is what partitions-throughput will run: the partition counts, each one run.
type ptPlan struct {
	brokers, rf int
	// counts are the topic's total partitions, ascending; perBroker marks the ones asked for as
	// leader partitions per broker.
	counts    []int
	perBroker map[int]bool
}

func planPartitions(p Params, brokers int) (ptPlan, error) {
	lpb, err := p.Ints("leaders-per-broker")
	if err != nil {
		return ptPlan{}, err
	}
	rf, err := p.Int("replication-factor")
	if err != nil {
		return ptPlan{}, err
	}
	if rf < 1 || rf > brokers {
		return ptPlan{}, fmt.Errorf("--set replication-factor=%d: want 1 to the cluster's %d brokers", rf, brokers)
	}
	pl := ptPlan{brokers: brokers, rf: rf, perBroker: map[int]bool{}}
	for _, n := range lpb {
		if n < 1 {
			return ptPlan{}, fmt.Errorf("--set leaders-per-broker=%s: want counts of at least 1", p["leaders-per-broker"])
		}
		pl.perBroker[n*brokers] = true
		pl.counts = append(pl.counts, n*brokers)
	}
	if p["total-partitions"] != "none" {
		totals, err := p.Ints("total-partitions")
		if err != nil {
			return ptPlan{}, err
		}
		for _, n := range totals {
			if n < 1 {
				return ptPlan{}, fmt.Errorf("--set total-partitions=%s: want counts of at least 1, or none", p["total-partitions"])
			}
		}
		pl.counts = append(pl.counts, totals...)
	}
	slices.Sort(pl.counts)
	pl.counts = slices.Compact(pl.counts)
	return pl, nil
}

// checkPartitionsThroughput: the parameters, and that the largest topic fits the OS limits the
// brokers run under (vm.max_map_count by the model's rule, open files) and the disk's free space.
func checkPartitionsThroughput(_ context.Context, env *Env, p Params) error {
	brokers, fds, disk := 3, []brokerFiles{}, env.Out // cluster up's default
	if env.ClusterDir != "" {
		st, err := openCluster(env.ClusterDir)
		if err != nil {
			return err
		}
		brokers, fds, disk = len(st.Brokers), brokerOpenFiles(st), env.ClusterDir
	}
	pl, err := planPartitions(p, brokers)
	if err != nil {
		return err
	}
	for _, name := range []string{"message-size", "producers", "batch-size", "linger", "buffer-memory"} {
		if _, err := p.Int(name); err != nil {
			return err
		}
	}
	if err := ptCheckWorkers(env, p, pl); err != nil {
		return err
	}
	for _, name := range []string{"duration", "warmup"} {
		if _, err := p.Duration(name); err != nil {
			return err
		}
	}
	largest := pl.counts[len(pl.counts)-1]
	maps, err := readMapCount()
	if err != nil {
		return err
	}
	replicas, err := checkMapCount(brokers, largest, pl.rf, maps)
	if err != nil {
		return err
	}
	if err := checkOpenFiles(fds, replicas); err != nil {
		return err
	}
	return checkFreeDisk(disk, p["min-free-disk"])
}

// ptCheckWorkers: with --local-workers N every run needs N producers and its topic N
// partitions (no consumers run). Both are the scenario's own parameters, raised by the user, not
// by the scenario: the producers' count and the partition counts are what it measures against.
func ptCheckWorkers(env *Env, p Params, pl ptPlan) error {
	producers, _ := p.Int("producers")
	n := env.LocalWorkers
	if err := checkWorkerShare(env, producers, "producers", fmt.Sprintf("raise --set producers=%d", n)); err != nil {
		return err
	}
	return checkWorkerShare(env, pl.counts[0], "partitions in the smallest topic",
		fmt.Sprintf("give every count at least %d partitions (--set leaders-per-broker=, each x %d brokers, and --set total-partitions=)", n, pl.brokers))
}

// readMapCount is this host's vm.max_map_count.
func readMapCount() (int, error) {
	raw, err := os.ReadFile("/proc/sys/vm/max_map_count")
	if err != nil {
		return 0, fmt.Errorf("cannot read vm.max_map_count: %w", err)
	}
	maps, err := strconv.Atoi(strings.TrimSpace(string(raw)))
	if err != nil {
		return 0, fmt.Errorf("vm.max_map_count %q: %w", raw, err)
	}
	return maps, nil
}

// checkMapCount applies the model's memory-map rule (model.Evaluate: two maps per partition
// replica) to the busiest broker of a topic of n partitions under vm.max_map_count maps; it
// returns that broker's replicas.
func checkMapCount(brokers, n, rf, maps int) (int, error) {
	res, err := model.Evaluate(model.Cluster{Brokers: brokers, Partitions: n, ReplicationFactor: rf}, model.Traffic{}, model.Sizing{MaxMapCount: maps})
	if err != nil {
		return 0, err
	}
	replicas := *res.Partitions.ReplicasPerBroker
	if replicas > res.Partitions.MaxByMapCount {
		return 0, fmt.Errorf("%d partitions at rf %d put %d replicas on a broker, more than vm.max_map_count %d allows (%d, %d maps each): "+
			"raise it (sysctl -w vm.max_map_count=%d) or lower --set total-partitions / leaders-per-broker",
			n, rf, replicas, maps, res.Partitions.MaxByMapCount, model.MapsPerPartition, 2*replicas*model.MapsPerPartition)
	}
	return replicas, nil
}

// brokerFiles is a broker's open-files limit and how many it holds open now.
type brokerFiles struct {
	id          int32
	limit, open uint64
}

// brokerOpenFiles reads each running broker's limit and open files from /proc; brokers it
// cannot read are left out.
func brokerOpenFiles(st *localkafka.State) []brokerFiles {
	var out []brokerFiles
	for _, b := range st.Brokers {
		proc, err := procfs.NewProc(b.PID)
		if err != nil {
			continue
		}
		lim, err1 := proc.Limits()
		open, err2 := proc.FileDescriptorsLen()
		if err1 == nil && err2 == nil {
			out = append(out, brokerFiles{id: b.ID, limit: lim.OpenFiles, open: uint64(open)})
		}
	}
	return out
}

// checkOpenFiles: each broker must have room for fdsPerPartition descriptors per new replica
// beside what it holds open now. Without running brokers (the scenario starts its own, which
// inherit this process's limit) this process's limit is the one.
func checkOpenFiles(fds []brokerFiles, replicas int) error {
	if len(fds) == 0 {
		var lim syscall.Rlimit
		if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &lim); err != nil {
			return fmt.Errorf("cannot read the open-files limit: %w", err)
		}
		fds = []brokerFiles{{limit: lim.Cur}}
	}
	need := uint64(fdsPerPartition * replicas)
	for _, f := range fds {
		if f.open+need > f.limit {
			who := "this process"
			if f.id != 0 {
				who = fmt.Sprintf("broker %d", f.id)
			}
			return fmt.Errorf("%s may open %d files and holds %d; %d partition replicas need %d more: raise its limit (ulimit -n, then restart the cluster) or lower --set total-partitions / leaders-per-broker",
				who, f.limit, f.open, replicas, need)
		}
	}
	return nil
}

// checkFreeDisk: the file system of dir (or of its nearest existing parent) has at least want free.
func checkFreeDisk(dir, want string) error {
	need, err := units.ParseBytes(want)
	if err != nil {
		return fmt.Errorf("--set min-free-disk=%s: %w", want, err)
	}
	for {
		if _, err := os.Stat(dir); err == nil || filepath.Dir(dir) == dir {
			break
		}
		dir = filepath.Dir(dir)
	}
	var fs syscall.Statfs_t
	if err := syscall.Statfs(dir, &fs); err != nil {
		return fmt.Errorf("cannot read the free space of %s: %w", dir, err)
	}
	free := float64(fs.Bavail) * float64(fs.Bsize)
	if free < need {
		return fmt.Errorf("%s has %s free, the runs need %s (--set min-free-disk): free some space or point --out / --cluster-dir elsewhere",
			dir, units.FormatBytes(free), units.FormatBytes(need))
	}
	return nil
}

// ptPoint is one run of partitions-throughput: its topic's partitions and what it measured.
type ptPoint struct {
	partitions int
	// msgs is the produced rate, messages/s over the cluster; p99 the publish latency, ms.
	msgs, p99 float64
	state     string
	// hostBound: brokers and generator shared a host whose CPU was saturated (results.Trial's
	// HostSaturated), whatever the state.
	hostBound bool
}

func runPartitionsThroughput(ctx context.Context, env *Env, p Params) (results.Scenario, error) {
	var res results.Scenario
	err := onCluster(ctx, env, nil, func(st *localkafka.State) error {
		pl, err := planPartitions(p, len(st.Brokers))
		if err != nil {
			return err
		}
		res.Config = map[string]string{"kafka": st.KafkaVersion, "brokers": strconv.Itoa(pl.brokers), "cluster": st.Dir, "nic": nicText(st.NIC)}
		var pts []ptPoint
		for _, n := range pl.counts {
			if ctx.Err() != nil {
				break
			}
			t, err := runStep(ctx, env, fmt.Sprintf("partitions-%d", n), ptRunArgs(st.Dir, p, n, pl.rf)...)
			if err != nil {
				res.Failures = append(res.Failures, err.Error())
				continue
			}
			pts = append(pts, ptPoint{partitions: n, msgs: t.ProducedMsgsPerSec, p99: t.Latency.Publish.P99, state: string(t.Verdict.State), hostBound: t.HostSaturated()})
		}
		res.Charts, res.Findings = ptCharts(pts, pl), ptFindings(pts, pl)
		return nil
	})
	return res, err
}

// ptRunArgs is the plimsoll run of one partition count: one topic, as fast as the producers go,
// compressible payloads, no consumers (000 ran none, to show the append lock).
func ptRunArgs(dir string, p Params, partitions, rf int) []string {
	return []string{"--cluster-dir", dir, "--topics", "1", "--partitions", strconv.Itoa(partitions),
		"--replication-factor", strconv.Itoa(rf), "--rate", "0", "--message-size", p["message-size"],
		"--producers", p["producers"], "--consumer-groups", "0", "--payload", "text",
		"--producer-prop", "compression.type=" + p["compression"], "--producer-prop", "batch.size=" + p["batch-size"],
		"--producer-prop", "linger.ms=" + p["linger"], "--producer-prop", "buffer.memory=" + p["buffer-memory"],
		"--duration", p["duration"], "--warmup", p["warmup"], "--drain-timeout", "5s"}
}

func nicText(bytesPerSec float64) string {
	if bytesPerSec <= 0 {
		return "loopback"
	}
	return units.FormatBits(bytesPerSec)
}

// ptCharts: throughput per broker and p99 against leader partitions per broker (with 000's
// figures), and both against total partitions on a log axis.
func ptCharts(pts []ptPoint, pl ptPlan) []results.Chart {
	var perBroker, perBrokerP99, total, totalP99 []results.Point
	b := float64(pl.brokers)
	for _, pt := range pts {
		note := ""
		if pt.state != "ok" {
			note = pt.state
		}
		if pl.perBroker[pt.partitions] {
			perBroker = append(perBroker, results.Point{X: float64(pt.partitions) / b, Y: pt.msgs / b, Note: note})
			perBrokerP99 = append(perBrokerP99, results.Point{X: float64(pt.partitions) / b, Y: pt.p99, Note: note})
		}
		total = append(total, results.Point{X: float64(pt.partitions), Y: pt.msgs, Note: note})
		totalP99 = append(totalP99, results.Point{X: float64(pt.partitions), Y: pt.p99, Note: note})
	}
	netflix := []results.Point{{X: 2, Y: 40000}, {X: 3, Y: 48000}, {X: 4, Y: 50000}, {X: 5, Y: 54000}}
	return []results.Chart{
		{Title: "Sustained rate against leader partitions per broker", X: "leader partitions per broker", Y: "msgs/s per broker",
			Series: []results.Series{{Name: "measured", Kind: results.SeriesMeasured, Points: perBroker},
				{Name: "Netflix, 3 x i2.2xlarge", Kind: results.SeriesArticle, Points: netflix, Source: "000, throughput per broker (AllTopicsMessagesPerSecond) at 6, 9, 12 and 15 partitions"}}},
		{Title: "p99 publish latency against leader partitions per broker", X: "leader partitions per broker", Y: "ms",
			Series: []results.Series{{Name: "measured", Kind: results.SeriesMeasured, Points: perBrokerP99}}},
		{Title: "Sustained rate against total partitions", X: "partitions", Y: "msgs/s", LogX: true,
			Series: []results.Series{{Name: "measured", Kind: results.SeriesMeasured, Points: total}}},
		{Title: "p99 publish latency against total partitions", X: "partitions", Y: "ms", LogX: true,
			Series: []results.Series{{Name: "measured", Kind: results.SeriesMeasured, Points: totalP99}}},
	}
}

// ptFindings: where throughput peaks, where latency turns up (002's cliff), and how throughput
// moved from the fewest to the most leader partitions per broker (000's append serialisation).
func ptFindings(pts []ptPoint, pl ptPlan) []results.Finding {
	if len(pts) == 0 {
		return nil
	}
	peak := pts[0]
	for _, pt := range pts {
		if pt.msgs > peak.msgs {
			peak = pt
		}
	}
	cliff := 1000.0
	out := []results.Finding{{Name: "throughput peaks at", Value: float64(peak.partitions), Unit: "partitions",
		Text: fmt.Sprintf("the highest sustained rate, %s msgs/s, was at %s partitions", units.Count(peak.msgs), units.Int(peak.partitions)) + invalidAt(pts)}}
	if at, ok := latencyTurnsUp(pts); ok {
		out = append(out, results.Finding{Name: "p99 latency turns up from", Value: float64(at.partitions), Unit: "partitions",
			Article: &cliff, ArticleNote: "002: throughput fell and latency rose past about 1,000 partitions (3 x r6g.large, Kafka 3.1.1)",
			Text: fmt.Sprintf("p99 publish latency rises at every count from %d partitions on (%s ms there)", at.partitions, units.Ms(at.p99))})
	}
	return append(out, ptSerialisation(pts, pl)...)
}

// invalidAt names the partition counts whose runs were judged invalid, after "; ", or is "":
// where the load generator set a run's rate, the peak may lie elsewhere.
func invalidAt(pts []ptPoint) string {
	var at []string
	for _, pt := range pts {
		if pt.state == "invalid" {
			at = append(at, units.Int(pt.partitions))
		}
	}
	if len(at) == 0 {
		return ""
	}
	return fmt.Sprintf("; the runs at %s partitions were judged invalid (the load generator, not the cluster, set their rate), so the peak may lie elsewhere", strings.Join(at, ", "))
}

// latencyTurnsUp is the start of the rising stretch that ends the latency curve: the count after
// which p99 only rises, when the last point is above the lowest. ok is false when latency does
// not end rising.
func latencyTurnsUp(pts []ptPoint) (ptPoint, bool) {
	i := len(pts) - 1
	for i > 0 && pts[i-1].p99 < pts[i].p99 {
		i--
	}
	if i == len(pts)-1 {
		return ptPoint{}, false
	}
	return pts[i], true
}

// ptSerialisation compares the rate at the most leader partitions per broker with the fewest;
// 000 measured 54,000 against 40,000 msgs/s per broker from 2 to 5 (1.35).
func ptSerialisation(pts []ptPoint, pl ptPlan) []results.Finding {
	var first, last *ptPoint
	for i := range pts {
		if pl.perBroker[pts[i].partitions] {
			if first == nil {
				first = &pts[i]
			}
			last = &pts[i]
		}
	}
	if first == nil || first == last || first.msgs <= 0 {
		return nil
	}
	article := 54000.0 / 40000
	b := pl.brokers
	text := fmt.Sprintf("%s msgs/s per broker with %d leader partitions per broker, %s with %d", units.Count(last.msgs/float64(b)), last.partitions/b, units.Count(first.msgs/float64(b)), first.partitions/b)
	switch {
	case first.state == "invalid" || last.state == "invalid":
		text += "; " + invalidCaveat
	case first.hostBound || last.hostBound:
		text += "; " + hostCaveat
	}
	return []results.Finding{{Name: fmt.Sprintf("rate at %d / at %d leader partitions per broker", last.partitions/b, first.partitions/b),
		Value: last.msgs / first.msgs, Unit: "ratio", Article: &article,
		ArticleNote: "000: 54,000 against 40,000 msgs/s per broker at 5 and 2 leader partitions per broker, appends to a partition serialised under its lock (3 x i2.2xlarge, 8 cores)",
		Text:        text}}
}

// invalidCaveat says what a ratio of runs judged invalid is worth: where the load generator (on a
// small host, its CPU) set the rate, the ratio measures the client, not the brokers' appends.
const invalidCaveat = "a run was judged invalid (the load generator, not the cluster, set its rate: on a host this small its CPU binds first), so this ratio says nothing of the brokers' per-partition append serialisation; run it with the generator on another host"

// hostCaveat says what a ratio of runs on a saturated shared host is worth: the brokers and the
// generator split one CPU, so each rate is what that CPU allowed at its partition count (the
// work per message), not what the brokers' appends allowed. Six short-mode pairs on this 2-core
// host were all 98-100% busy, their ratios 0.77-1.06, the verdicts ok, overloaded or invalid.
const hostCaveat = "the host's CPU, shared by the brokers and the load generator, was saturated in a run, so this ratio is what that CPU allowed at each partition count and says nothing of the brokers' per-partition append serialisation; run it with the generator on another host"
