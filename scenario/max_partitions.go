package scenario

import (
	"context"
	"fmt"
	"math"
	"os"
	"strings"
	"time"

	"github.com/plimsoll/plimsoll/localkafka"
	"github.com/plimsoll/plimsoll/model"
	"github.com/plimsoll/plimsoll/results"
	"github.com/plimsoll/plimsoll/units"
)

func init() {
	register(Scenario{
		Name:  "max-partitions",
		Title: "The partition ceiling and the limit that binds it",
		Doc: `Reads the limits a broker with many partitions meets (vm.max_map_count: two maps per partition, the
offset and time index of its active segment; the brokers' open-files limit: 002 counted two
descriptors per partition; the JVM heap) and each broker's maps and descriptors in use, predicts the
ceiling from them, then climbs in steps of STEP partitions (rf 1, as 002) until the first failure.
It never takes the machine to an OS limit: before each step it projects each broker's maps and
descriptors (at the costs measured so far) and stops when the step would pass STOP-SHARE of a
limit, or would pass STOP-AT partitions; unsafe=true climbs on to the first failure. It reports
which limit bound and how close the prediction was. Topics are under plimsoll-mp-, deleted at the
end unless keep=true.`,
		Sources: []results.Source{seed002},
		Params: []Param{
			{Name: "cluster", Short: "kraft-4.1.0", Full: "kraft-4.1.0", Doc: "the cluster, MODE-VERSION; --cluster-dir's when it matches, else started below --out"},
			{Name: "brokers", Short: "3", Full: "1", Doc: "brokers of the cluster the scenario starts (002: one)"},
			{Name: "heap", Short: "768m", Full: "1g", Doc: "heap of each broker the scenario starts"},
			{Name: "step", Short: "100", Full: "1000", Doc: "partitions per step (one topic each)"},
			{Name: "stop-share", Short: "0.9", Full: "0.9", Doc: "stop before a step would take a broker past this share of vm.max_map_count or its open-files limit"},
			{Name: "stop-at", Short: "300", Full: "0", Doc: "stop before passing this many partitions (0: no such stop)"},
			{Name: "unsafe", Short: "false", Full: "false", Doc: "true climbs past the stop rule to the first failure (the machine may need the cluster killed)"},
			{Name: "timeout", Short: "60s", Full: "120s", Doc: "how long one step may take before it counts as the failure"},
			{Name: "keep", Short: "false", Full: "false", Doc: "true keeps the created topics"},
		},
		Check: checkMaxPartitions,
		Run:   runMaxPartitions,
	})
}

// climbPlan is max-partitions' parameters, read.
type climbPlan struct {
	spec                  clusterSpec
	brokers, step, stopAt int
	stopShare             float64
	unsafe, keep          bool
	heap                  string
	timeout               time.Duration
}

func readClimbPlan(p Params) (climbPlan, error) {
	var c climbPlan
	var err error
	for _, f := range []struct {
		name string
		to   *int
		min  int
	}{{"brokers", &c.brokers, 1}, {"step", &c.step, 1}, {"stop-at", &c.stopAt, 0}} {
		if *f.to, err = p.Int(f.name); err != nil {
			return c, err
		}
		if *f.to < f.min {
			return c, fmt.Errorf("--set %s=%s: want %d or more", f.name, p[f.name], f.min)
		}
	}
	if c.stopShare, err = p.Float("stop-share"); err != nil || c.stopShare <= 0 || c.stopShare > 1 {
		return c, fmt.Errorf("--set stop-share=%s: want a share above 0 and at most 1, e.g. 0.9", p["stop-share"])
	}
	if c.timeout, err = p.Duration("timeout"); err != nil {
		return c, err
	}
	c.unsafe, c.keep, c.heap = p["unsafe"] == "true", p["keep"] == "true", p["heap"]
	specs, err := parseClusterSpecs("cluster", p["cluster"], c.brokers)
	if err == nil && len(specs) != 1 {
		err = fmt.Errorf("--set cluster=%s: give one cluster", p["cluster"])
	}
	if err == nil {
		c.spec = specs[0]
	}
	return c, err
}

// checkMaxPartitions: the parameters, --cluster-dir's cluster running, the limits readable, and
// room for at least one step.
func checkMaxPartitions(_ context.Context, env *Env, p Params) error {
	c, err := readClimbPlan(p)
	if err != nil {
		return err
	}
	return checkPartitionRoom(env, c.brokers, c.step)
}

// brokerUse is what one broker's JVM holds: memory maps and open descriptors.
type brokerUse struct{ maps, fds int }

// climbReadings are where the climb reads each broker's use and the host's limits: /proc, or in
// tests a fake of known figures (kfake's brokers are the test process, whose use drifts).
var climbReadings = struct {
	use    func(pid int) (brokerUse, error)
	limits func(pid int, dir string) (hostLimits, error)
}{readUse, readHostLimits}

// readUse counts /proc/PID/maps lines and /proc/PID/fd entries.
func readUse(pid int) (brokerUse, error) {
	maps, err := os.ReadFile(fmt.Sprintf("/proc/%d/maps", pid))
	if err != nil {
		return brokerUse{}, fmt.Errorf("reading the memory maps of broker pid %d: %w", pid, err)
	}
	fds, err := os.ReadDir(fmt.Sprintf("/proc/%d/fd", pid))
	if err != nil {
		return brokerUse{}, fmt.Errorf("reading the open files of broker pid %d: %w", pid, err)
	}
	return brokerUse{maps: strings.Count(string(maps), "\n"), fds: len(fds)}, nil
}

// climbState is the climb as it goes: the limits, the use at the start and now, the partitions.
type climbState struct {
	limits     hostLimits
	pids       []int
	start, now []brokerUse
	total      int
}

// busiest is the highest use of any broker now, and what a broker of it held at the start.
func (s *climbState) busiest() (now, start brokerUse) {
	for i, u := range s.now {
		if u.maps > now.maps {
			now.maps, start.maps = u.maps, s.start[i].maps
		}
		if u.fds > now.fds {
			now.fds, start.fds = u.fds, s.start[i].fds
		}
	}
	return now, start
}

// perPartition is the maps and descriptors one partition replica has cost so far (the rules'
// 2 maps and 1 descriptor before the first step).
func (s *climbState) perPartition() (maps, fds float64) {
	maps, fds = model.MapsPerPartition, fdsPerPartition
	perBroker := float64(s.total) / float64(len(s.pids))
	if perBroker >= 50 { // fewer replicas measure the JVM's own drift more than their cost
		now, start := s.busiest()
		maps, fds = float64(now.maps-start.maps)/perBroker, float64(now.fds-start.fds)/perBroker
	}
	return maps, fds
}

// stopBefore says why the next step must not be taken ("" if it may): it would pass stop-at, or
// take the busiest broker past stop-share of vm.max_map_count or of its open-files limit.
func (s *climbState) stopBefore(c climbPlan) string {
	if c.stopAt > 0 && s.total+c.step > c.stopAt {
		return fmt.Sprintf("stop-at: the next step would pass %s partitions", units.Count(float64(c.stopAt)))
	}
	if c.unsafe {
		return ""
	}
	now, _ := s.busiest()
	maps, fds := s.perPartition()
	add := float64(c.step) / float64(len(s.pids))
	if m := float64(now.maps) + add*maps; m > c.stopShare*float64(s.limits.MaxMapCount) {
		return fmt.Sprintf("vm.max_map_count: the next step would take a broker to %s maps, past %s of %s", units.Count(m), units.Pct(c.stopShare), units.Count(float64(s.limits.MaxMapCount)))
	}
	if f := float64(now.fds) + add*fds; f > c.stopShare*float64(s.limits.OpenFiles) {
		return fmt.Sprintf("open files: the next step would take a broker to %s descriptors, past %s of %s", units.Count(f), units.Pct(c.stopShare), units.Count(float64(s.limits.OpenFiles)))
	}
	return ""
}

// predict is the ceiling the limits allow the cluster (rf 1) before the climb, by each rule: the
// busiest broker's free maps and descriptors at the rules' 2 per partition, times the brokers.
func (s *climbState) predict() (byMaps, byFiles float64) {
	now, _ := s.busiest()
	n := float64(len(s.pids))
	byMaps = n * float64(s.limits.MaxMapCount-now.maps) / model.MapsPerPartition
	byFiles = n * float64(s.limits.OpenFiles-now.fds) / fdsPerPartition
	return byMaps, byFiles
}

func runMaxPartitions(ctx context.Context, env *Env, p Params) (results.Scenario, error) {
	c, err := readClimbPlan(p)
	res := results.Scenario{Config: map[string]string{}}
	if err != nil {
		return res, err
	}
	err = onSpecCluster(ctx, env, c.spec, []string{"--brokers", fmt.Sprint(c.brokers), "--heap", c.heap, "--warm-jit", "0"},
		func(st *localkafka.State) error { return climbPartitions(ctx, env, st, c, &res) })
	return res, err
}

// startClimb reads the limits and every broker's use before anything is created.
func startClimb(st *localkafka.State) (*climbState, error) {
	s := &climbState{}
	for _, b := range st.Brokers {
		u, err := climbReadings.use(b.PID)
		if err != nil {
			return nil, err
		}
		s.pids, s.start, s.now = append(s.pids, b.PID), append(s.start, u), append(s.now, u)
	}
	var err error
	s.limits, err = climbReadings.limits(st.Brokers[0].PID, st.Dir)
	return s, err
}

// climbPartitions climbs on st until the stop rule or the first failure, then reports.
func climbPartitions(ctx context.Context, env *Env, st *localkafka.State, c climbPlan, res *results.Scenario) error {
	clusterConfig(res.Config, c.spec.Label(), st)
	s, err := startClimb(st)
	if err != nil {
		return err
	}
	s.limits.config(res.Config)
	res.Config["broker heap"] = st.Heap
	byMaps, byFiles := s.predict()
	prefix := fmt.Sprintf("plimsoll-mp-%s-", env.Now().UTC().Format("20060102t150405"))
	a, err := newPartAdmin(ctx, strings.Split(st.Bootstrap(), ","), prefix, c.timeout, env.Now)
	if err != nil {
		return err
	}
	defer a.close()
	defer env.leaving(a.leftover())()
	defer finishPartitions(ctx, a, c.spec, c.keep, res)
	maps := results.Series{Name: "memory maps, busiest broker", Kind: results.SeriesMeasured}
	fds := results.Series{Name: "open files, busiest broker", Kind: results.SeriesMeasured}
	stop, failure := "", ""
	for i := 0; ; i++ {
		if stop = s.stopBefore(c); stop != "" {
			break
		}
		if failure = climbStep(ctx, a, st, s, c, i); failure != "" || ctx.Err() != nil {
			break
		}
		now, _ := s.busiest()
		maps.Points = append(maps.Points, results.Point{X: float64(s.total), Y: float64(now.maps)})
		fds.Points = append(fds.Points, results.Point{X: float64(s.total), Y: float64(now.fds)})
		fmt.Fprintf(env.Log, "scenario: %s partitions: busiest broker %d maps, %d open files\n", units.Count(float64(s.total)), now.maps, now.fds)
	}
	if failure != "" {
		res.Failures = append(res.Failures, failure)
	}
	res.Charts = []results.Chart{climbChart(s, maps, fds)}
	res.Findings = append(res.Findings, climbFindings(s, c, byMaps, byFiles, stop, failure)...)
	return ctx.Err()
}

// climbStep creates one step's topic and waits for its leaders everywhere, then reads the
// brokers' use. A failure is returned as a sentence naming the limit the brokers' logs blame.
func climbStep(ctx context.Context, a *partAdmin, st *localkafka.State, s *climbState, c climbPlan, i int) string {
	name := a.topic(fmt.Sprintf("s%05d", i))
	err := a.createTopic(ctx, name, int32(c.step), 1, nil)
	if err == nil {
		wctx, cancel := context.WithTimeout(ctx, c.timeout)
		_, err = a.waitAll(wctx, []string{name}, createdAtLeast(c.step))
		cancel()
	}
	if err == nil {
		for j, pid := range s.pids {
			var u brokerUse
			if u, err = climbReadings.use(pid); err != nil {
				break
			}
			s.now[j] = u
		}
	}
	if err != nil {
		return fmt.Sprintf("the step to %s partitions failed: %v; %s", units.Count(float64(s.total+c.step)), err, blame(st))
	}
	s.total += c.step
	return ""
}

// blame names the limit the brokers' logs show was hit: memory maps ("Map failed"), open files,
// or the heap; or says none is named.
func blame(st *localkafka.State) string {
	for _, b := range st.Brokers {
		data, _ := os.ReadFile(b.LogPath())
		if len(data) > 1<<20 {
			data = data[len(data)-1<<20:]
		}
		log := string(data) + tailFile(b.Dir+"/stdout.log")
		switch {
		case strings.Contains(log, "Map failed") || strings.Contains(log, "failed to map"):
			return fmt.Sprintf("limit: vm.max_map_count (broker %d's log: Map failed)", b.ID)
		case strings.Contains(log, "Too many open files"):
			return fmt.Sprintf("limit: open files (broker %d's log: Too many open files)", b.ID)
		case strings.Contains(log, "OutOfMemoryError"):
			return fmt.Sprintf("limit: the JVM heap (broker %d's log: OutOfMemoryError)", b.ID)
		}
	}
	return "no limit named in the brokers' logs"
}

func tailFile(path string) string {
	data, _ := os.ReadFile(path)
	if len(data) > 64<<10 {
		data = data[len(data)-64<<10:]
	}
	return string(data)
}

// climbChart: the busiest broker's maps and descriptors against partitions, with each limit.
func climbChart(s *climbState, maps, fds results.Series) results.Chart {
	end := math.Max(float64(s.total), 1)
	line := func(name string, y float64) results.Series {
		return results.Series{Name: name, Kind: results.SeriesLimit, Points: []results.Point{{X: 0, Y: y}, {X: end, Y: y}}}
	}
	return results.Chart{Title: "Memory maps and open files of the busiest broker against partitions", X: "partitions", Y: "count",
		Series: []results.Series{maps, fds,
			line("vm.max_map_count", float64(s.limits.MaxMapCount)), line("open files limit", float64(s.limits.OpenFiles))}}
}

// climbFindings: the ceiling reached and why the climb ended, the prediction by each limit (the
// model's map rule beside it, 002's 32,765 per broker), and the costs per partition measured.
func climbFindings(s *climbState, c climbPlan, byMaps, byFiles float64, stop, failure string) []results.Finding {
	bound, predicted := "open files", byFiles
	if byMaps < byFiles {
		bound, predicted = "vm.max_map_count", byMaps
	}
	why := "stopped by the rule: " + stop
	if failure != "" {
		why = "failed: " + failure
	}
	ruleMaps := float64(len(s.pids) * s.limits.MaxMapCount / model.MapsPerPartition)
	per002 := 32765.0
	maps, fds := s.perPartition()
	return []results.Finding{
		{Name: "partitions reached", Value: float64(s.total), Unit: "partitions", Text: why},
		{Name: "predicted ceiling", Value: predicted, Unit: "partitions", Model: &ruleMaps,
			Text: fmt.Sprintf("%s binds first: %s partitions by memory maps, %s by open files (%d descriptor each, as measured here; 002 counted 2), from the busiest broker's free maps and descriptors; the model's rule (vm.max_map_count / %d per broker) is beside it; the heap (%s) has no rule and is named only if a broker runs out",
				bound, units.Count(byMaps), units.Count(byFiles), fdsPerPartition, model.MapsPerPartition, c.heap)},
		closeness(float64(s.total), predicted, c.stopShare, stop, failure),
		{Name: "memory maps per partition, measured", Value: maps, Unit: "count", Article: f64p(2.0),
			ArticleNote: "002 (slide 46): each partition uses 2 map areas"},
		{Name: "open files per partition, measured", Value: fds, Unit: "count", Article: f64p(2.0),
			ArticleNote: "002 (slide 45): 2 descriptors used per partition"},
		{Name: "partitions per broker allowed by vm.max_map_count", Value: float64(s.limits.MaxMapCount / model.MapsPerPartition), Unit: "partitions", Article: &per002,
			ArticleNote: "002 (slide 46): the default 65,530 allows at most 32,765 partitions; Map failed near 30,000 on one broker, Kafka 3.2.1 on a large EC2 instance"},
	}
}

// closeness compares the partitions reached with the prediction: at a failure, with the ceiling;
// at the OS stop rule, with the stop point the prediction gives (stop-share of the ceiling, the
// rules' costs at their measured values being what the rule used); at stop-at, it says the
// climb never came near enough to test it.
func closeness(reached, predicted, share float64, stop, failure string) results.Finding {
	f := results.Finding{Name: "partitions reached / predicted", Unit: "ratio", Value: reached / predicted}
	switch {
	case failure != "":
		f.Text = fmt.Sprintf("the first failure came at %s of the predicted ceiling", units.Pct(f.Value))
	case strings.HasPrefix(stop, "stop-at"):
		f.Text = "stopped by stop-at, far below the ceiling: the climb did not test the prediction"
	default:
		f.Value = reached / (share * predicted)
		f.Text = fmt.Sprintf("the stop rule ended the climb at %s of the stop point predicted (%s of the predicted ceiling)", units.Pct(f.Value), units.Pct(share))
	}
	return f
}

func f64p(v float64) *float64 { return &v }
