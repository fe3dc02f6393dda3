//go:build integration

package main

import (
	"bytes"
	"context"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/plimsoll/plimsoll/localkafka"
	"github.com/plimsoll/plimsoll/results"
	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"
)

// fixtureTopic is a topic plimsoll did not create: its name, partitions and non-default configs.
type fixtureTopic struct {
	name       string
	partitions int32
	rf         int16
	configs    map[string]string
}

// prefixFixtures are topics plimsoll must leave alone: names that begin like its own without
// being a run's prefix (plimsoll-<run id>-), one of another run of the plimsoll- family, and
// unrelated ones, some with non-default partitions, replication and configs.
var prefixFixtures = []fixtureTopic{
	{"plimsoll", 3, 1, map[string]string{"retention.ms": "3600000"}},
	{"plimsoll-", 1, 1, nil},
	{"plimsollx-a", 2, 2, nil},
	{"plimsoll_foo", 4, 1, map[string]string{"cleanup.policy": "compact", "segment.bytes": "1048576"}},
	{"plimsoll.bar", 1, 1, nil},
	{"Plimsoll-A", 1, 1, nil},
	{"xplimsoll-a", 1, 1, nil},
	{"plimsoll-someone-else-t0", 2, 1, map[string]string{"max.message.bytes": "200000"}},
	{"app.orders", 6, 3, map[string]string{"min.insync.replicas": "2", "retention.bytes": "10485760"}},
}

// prefixGroups are consumer groups with committed offsets plimsoll must leave alone.
var prefixGroups = []string{"plimsoll", "plimsoll-someone-else-g0", "plimsollx-g", "app-consumers"}

// TestInterruptAndPrefixSafety runs, with the real binary on the shared cluster, a `run`, a
// short `limit`, two runs interrupted in their window (SIGINT and SIGTERM) and a scenario
// interrupted (SIGINT) once its first topic exists, and checks that topics and groups plimsoll
// did not create (near-miss names among them) keep their list, partitions, configs, log end
// offsets and committed offsets; that the interrupted runs exit 130 and 143 with result.json
// marked interrupted, and the scenario 130 with its record marked interrupted and its topics
// deleted; and that the cluster they found running still runs.
func TestInterruptAndPrefixSafety(t *testing.T) {
	c := up(t)
	began := time.Now()
	defer func() { t.Logf("%s without the cluster's start", time.Since(began).Round(time.Second)) }()
	bin := plimsollBinary(t)
	adm, cl := admin(t, c.Bootstrap())
	makeFixtures(t, adm, cl)
	before := snapshot(t, adm, cl)
	checkFixtures(t, before)

	dir := t.TempDir()
	common := []string{"--cluster-dir", clusterDir, "--rate", "200", "--message-size", "100", "--warmup", "1s", "--drain-timeout", "5s"}
	var wg sync.WaitGroup
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			interruptedRun(t, bin, adm, sig, filepath.Join(dir, sig.String()), common)
		}()
	}
	wg.Add(1)
	go func() {
		defer wg.Done()
		args := append([]string{"run", "--duration", "3s", "--out", filepath.Join(dir, "run")}, common...)
		if out, code := runBinary(bin, args...); code != ExitOK && code != ExitOverloaded && code != ExitInvalid {
			t.Errorf("run: exit %d\n%s", code, out)
		}
	}()
	wg.Add(1)
	go func() {
		defer wg.Done()
		interruptedScenario(t, bin, adm, filepath.Join(dir, "scenario"))
	}()
	args := []string{"limit", "--cluster-dir", clusterDir, "--message-sizes", "100", "--min-rate", "150", "--max-rate", "200", "--tolerance", "0.5",
		"--trial-duration", "2s", "--warmup", "1s", "--drain-timeout", "5s", "--slo-p99", "0", "--no-hold", "--no-report",
		"--out", filepath.Join(dir, "limit")}
	if out, code := runBinary(bin, args...); code != ExitOK {
		t.Errorf("limit: exit %d\n%s", code, out)
	}
	wg.Wait()

	if after := snapshot(t, adm, cl); !maps.Equal(before, after) {
		for _, k := range slices.Sorted(maps.Keys(mergeKeys(before, after))) {
			if before[k] != after[k] {
				t.Errorf("%s: %q before, %q after", k, before[k], after[k])
			}
		}
	}
	if st, err := localkafka.Open(clusterDir); err != nil || st.Stopped {
		t.Errorf("the cluster the commands found running is not running any more: %v", err)
	}
}

// interruptedRun starts a run with its own prefix, sends it sig once its window has begun, and
// checks its exit code and its result, marked interrupted.
func interruptedRun(t *testing.T, bin string, adm *kadm.Client, sig syscall.Signal, out string, common []string) {
	prefix := fmt.Sprintf("plimsoll-it17%s-", strings.ToLower(sig.String()[:4]))
	cmd := exec.Command(bin, append([]string{"run", "--duration", "60s", "--topic-prefix", prefix, "--out", out}, common...)...)
	var log bytes.Buffer
	cmd.Stdout, cmd.Stderr = &log, &log
	if err := cmd.Start(); err != nil {
		t.Error(err)
		return
	}
	// 500 messages at 200 msg/s: past the 1 s warm-up and about 1.5 s into the window.
	if !waitForMessages(adm, prefix, 500, 2*time.Minute) {
		cmd.Process.Kill()
		cmd.Wait()
		t.Errorf("%v: no 500 messages in %s* within 2 minutes:\n%s", sig, prefix, log.String())
		return
	}
	start := time.Now()
	cmd.Process.Signal(sig)
	cmd.Wait()
	want := map[syscall.Signal]int{syscall.SIGINT: ExitSIGINT, syscall.SIGTERM: ExitSIGTERM}[sig]
	if code := cmd.ProcessState.ExitCode(); code != want {
		t.Errorf("%v: exit %d, want %d\n%s", sig, code, want, log.String())
	}
	t.Logf("%v: exited %s after the signal", sig, time.Since(start).Round(100*time.Millisecond))
	res, err := results.LoadTrialDir(out)
	if err != nil {
		t.Errorf("%v: %v\n%s", sig, err, log.String())
		return
	}
	if !res.Interrupted || res.Window.MeasuredSeconds <= 0 || res.Window.MeasuredSeconds >= 60 || res.Counts.Acked == 0 {
		t.Errorf("%v: interrupted %v, measured %v s, acked %d", sig, res.Interrupted, res.Window.MeasuredSeconds, res.Counts.Acked)
	}
}

// interruptedScenario starts partition-creation's short mode on the shared cluster, sends it
// SIGINT once its first topic exists, and checks that it exits 130 with its record stored and
// marked interrupted, and none of its topics left (the snapshots around the test check the rest).
func interruptedScenario(t *testing.T, bin string, adm *kadm.Client, out string) {
	st, err := localkafka.Open(clusterDir)
	if err != nil {
		t.Error(err)
		return
	}
	const prefix = "plimsoll-pc-"
	earlier := prefixedTopics(adm, prefix, 0)
	cmd := exec.Command(bin, "scenario", "run", "partition-creation", "--mode", "short", "--cluster-dir", clusterDir,
		"--set", "clusters=kraft-"+st.KafkaVersion, "--out", out)
	var log bytes.Buffer
	cmd.Stdout, cmd.Stderr = &log, &log
	if err := cmd.Start(); err != nil {
		t.Error(err)
		return
	}
	if len(newTopics(adm, prefix, earlier, 2*time.Minute)) == 0 {
		cmd.Process.Kill()
		cmd.Wait()
		t.Errorf("scenario: no %s* topic within 2 minutes:\n%s", prefix, log.String())
		return
	}
	start := time.Now()
	cmd.Process.Signal(syscall.SIGINT)
	cmd.Wait()
	if code := cmd.ProcessState.ExitCode(); code != ExitSIGINT {
		t.Errorf("scenario: exit %d after SIGINT, want %d\n%s", code, ExitSIGINT, log.String())
	}
	t.Logf("scenario: exited %s after the signal", time.Since(start).Round(100*time.Millisecond))
	if rec, err := results.LoadScenario(out); err != nil || !rec.Interrupted {
		t.Errorf("scenario: record %v, interrupted %v: want it stored and marked interrupted\n%s", err, rec.Interrupted, log.String())
	}
	if left := stillListed(adm, prefix, 15*time.Second); len(left) > 0 {
		t.Errorf("scenario: topics %v are still listed 15 s after it exited (%v were there before it started)", left, earlier)
	}
}

// newTopics waits up to wait for a topic starting with prefix that is not among earlier, and
// returns those: a test that signals a command once its topic exists must not take a topic an
// earlier test left for it.
func newTopics(adm *kadm.Client, prefix string, earlier []string, wait time.Duration) []string {
	for deadline := time.Now().Add(wait); ; time.Sleep(100 * time.Millisecond) {
		var fresh []string
		for _, name := range prefixedTopics(adm, prefix, 0) {
			if !slices.Contains(earlier, name) {
				fresh = append(fresh, name)
			}
		}
		if len(fresh) > 0 || !time.Now().Before(deadline) {
			return fresh
		}
	}
}

// stillListed waits up to wait for no topic starting with prefix to be listed, and returns
// those listed last. A topic deleted by the controller is listed by a broker until its metadata
// catches up: on the loaded test host the check, run as the scenario exited, saw its deleted
// warm-up topic, which the snapshot taken a few seconds later no longer held. A listing the
// cluster did not answer is never taken for an empty one.
func stillListed(adm *kadm.Client, prefix string, wait time.Duration) []string {
	deadline := time.Now().Add(wait)
	for {
		left, err := listPrefixed(adm, prefix)
		if err == nil && len(left) == 0 {
			return nil
		}
		if !time.Now().Before(deadline) {
			if err != nil {
				return []string{fmt.Sprintf("(unknown: the cluster did not list its topics: %v)", err)}
			}
			return left
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// prefixedTopics lists the topics starting with prefix, waiting up to wait for one to exist; a
// listing the cluster did not answer is tried again for up to 10 s even when wait is shorter.
func prefixedTopics(adm *kadm.Client, prefix string, wait time.Duration) []string {
	start := time.Now()
	for ; ; time.Sleep(100 * time.Millisecond) {
		ours, err := listPrefixed(adm, prefix)
		waited := time.Since(start)
		if err == nil && (len(ours) > 0 || waited >= wait) || waited >= max(wait, 10*time.Second) {
			return ours
		}
	}
}

// listPrefixed lists the topics starting with prefix, in one request.
func listPrefixed(adm *kadm.Client, prefix string) ([]string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	ts, err := adm.ListTopics(ctx)
	if err != nil {
		return nil, err
	}
	var ours []string
	for _, name := range ts.Names() {
		if strings.HasPrefix(name, prefix) {
			ours = append(ours, name)
		}
	}
	return ours, nil
}

// waitForMessages waits until the topics starting with prefix hold n messages.
func waitForMessages(adm *kadm.Client, prefix string, n int64, timeout time.Duration) bool {
	for deadline := time.Now().Add(timeout); time.Now().Before(deadline); time.Sleep(200 * time.Millisecond) {
		ts, err := adm.ListTopics(context.Background())
		if err != nil {
			continue
		}
		var ours []string
		for _, name := range ts.Names() {
			if strings.HasPrefix(name, prefix) {
				ours = append(ours, name)
			}
		}
		if len(ours) == 0 {
			continue
		}
		ends, err := adm.ListEndOffsets(context.Background(), ours...)
		if err != nil {
			continue
		}
		var sum int64
		ends.Each(func(o kadm.ListedOffset) { sum += max(o.Offset, 0) })
		if sum >= n {
			return true
		}
	}
	return false
}

// runBinary runs the binary to its end and returns its output and exit code.
func runBinary(bin string, args ...string) (string, int) {
	cmd := exec.Command(bin, args...)
	out, _ := cmd.CombinedOutput()
	return string(out), cmd.ProcessState.ExitCode()
}

var (
	buildOnce sync.Once
	built     string
	buildErr  error
)

// plimsollBinary is bin/plimsoll when make built it, else a binary built once for the tests.
func plimsollBinary(t *testing.T) string {
	t.Helper()
	if bin, err := filepath.Abs("../../bin/plimsoll"); err == nil {
		if _, err := os.Stat(bin); err == nil {
			return bin
		}
	}
	buildOnce.Do(func() {
		built = filepath.Join(filepath.Dir(clusterDir), "plimsoll")
		out, err := exec.Command("go", "build", "-o", built, ".").CombinedOutput()
		if err != nil {
			buildErr = fmt.Errorf("go build: %v\n%s", err, out)
		}
	})
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	return built
}

// admin is an admin client of the cluster whose metadata is at most 100 ms old.
func admin(t *testing.T, bootstrap string) (*kadm.Client, *kgo.Client) {
	t.Helper()
	cl, err := kgo.NewClient(kgo.SeedBrokers(strings.Split(bootstrap, ",")...), kgo.MetadataMinAge(100*time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(cl.Close)
	return kadm.NewClient(cl), cl
}

// makeFixtures creates the fixture topics with a few records each and commits offsets for the
// fixture groups, unless the cluster holds them already. They stay until the cluster is stopped,
// so that every later test on it runs beside them and a scenario's can check them (runScenario).
func makeFixtures(t *testing.T, adm *kadm.Client, cl *kgo.Client) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	td, err := adm.ListTopics(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if td.Has(prefixFixtures[len(prefixFixtures)-1].name) {
		return
	}
	var names []string
	for _, f := range prefixFixtures {
		cfg := map[string]*string{}
		for k, v := range f.configs {
			cfg[k] = kadm.StringPtr(v)
		}
		if _, err := adm.CreateTopic(ctx, f.partitions, f.rf, cfg, f.name); err != nil {
			t.Fatalf("creating fixture %s: %v", f.name, err)
		}
		names = append(names, f.name)
	}
	for _, n := range names {
		for i := range 5 {
			r := &kgo.Record{Topic: n, Key: []byte(fmt.Sprint(i)), Value: []byte("fixture")}
			if err := cl.ProduceSync(ctx, r).FirstErr(); err != nil {
				t.Fatalf("producing to %s: %v", n, err)
			}
		}
	}
	ends, err := adm.ListEndOffsets(ctx, names...)
	if err != nil {
		t.Fatal(err)
	}
	for i, g := range prefixGroups {
		offs := kadm.Offsets{}
		ends.Each(func(o kadm.ListedOffset) {
			if o.Offset > 0 && (int(o.Partition)+i)%2 == 0 { // each group a different subset
				offs.AddOffset(o.Topic, o.Partition, o.Offset-1, -1)
			}
		})
		resp, err := adm.CommitOffsets(ctx, g, offs)
		if err == nil {
			err = resp.Error()
		}
		if err != nil {
			t.Fatalf("committing offsets for %s: %v", g, err)
		}
	}
}

// snapshot is the cluster's topics (partitions, replication, every config with its source, log
// end offsets but those of internal topics) and groups (committed offsets), one entry per fact.
func snapshot(t *testing.T, adm *kadm.Client, cl *kgo.Client) map[string]string {
	t.Helper()
	agreed := agreedTopics(t, cl)
	return snapshotOf(t, adm, func(name string) bool { return agreed[name] }, func(string) bool { return true })
}

// agreedTopics is the topics every broker lists, once each broker lists the same ones twice in
// a row. A broker's listing can lag the controller's: right after TestFaultsUnderLoad (a broker
// killed, another paused), one broker still listed a topic a run had deleted about 10 s
// before, whose partitions no broker hosted any more (ListEndOffsets: UNKNOWN_TOPIC_OR_PARTITION),
// and the snapshot taken from it counted that topic as left behind.
func agreedTopics(t *testing.T, cl *kgo.Client) map[string]bool {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	md, err := kadm.NewClient(cl).BrokerMetadata(ctx)
	cancel()
	if err != nil {
		t.Fatal(err)
	}
	var listings []string
	last, lastSame := "", false // the previous round's listing, and whether every broker gave it
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(250 * time.Millisecond) {
		listings = listings[:0]
		for _, id := range md.Brokers.NodeIDs() {
			resp, err := brokerMetadata(cl, id, nil)
			if err != nil {
				t.Fatalf("broker %d's topics: %v", id, err)
			}
			var names []string
			for _, rt := range resp.Topics {
				if rt.ErrorCode == 0 && rt.Topic != nil {
					names = append(names, *rt.Topic)
				}
			}
			slices.Sort(names)
			listings = append(listings, strings.Join(names, " "))
		}
		same := !slices.ContainsFunc(listings, func(l string) bool { return l != listings[0] })
		if same && lastSame && listings[0] == last {
			agreed := map[string]bool{}
			for _, n := range strings.Fields(last) {
				agreed[n] = true
			}
			return agreed
		}
		last, lastSame = listings[0], same
		if time.Now().After(deadline) {
			t.Fatalf("the brokers' topic listings did not agree within 30 s: %q", listings)
		}
	}
}

// fixtureSnapshot is snapshot's facts about the fixture topics and groups only: other tests'
// topics come and go meanwhile (a topic being deleted fails ListEndOffsets).
func fixtureSnapshot(t *testing.T, adm *kadm.Client) map[string]string {
	t.Helper()
	return snapshotOf(t, adm, func(name string) bool {
		return slices.ContainsFunc(prefixFixtures, func(f fixtureTopic) bool { return f.name == name })
	}, func(group string) bool { return slices.Contains(prefixGroups, group) })
}

// snapshotOf is snapshot of the topics and groups the two functions keep.
func snapshotOf(t *testing.T, adm *kadm.Client, topic, group func(string) bool) map[string]string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	s := map[string]string{}
	all, err := adm.ListTopicsWithInternal(ctx)
	if err != nil {
		t.Fatal(err)
	}
	td := kadm.TopicDetails{}
	for name, d := range all {
		if topic(name) {
			td[name] = d
		}
	}
	var user []string
	for _, d := range td.Sorted() {
		rf := 0
		if p, ok := d.Partitions[0]; ok {
			rf = len(p.Replicas)
		}
		s["topic "+d.Topic] = fmt.Sprintf("%d partitions, rf %d, internal %v", len(d.Partitions), rf, d.IsInternal)
		if !d.IsInternal {
			user = append(user, d.Topic)
		}
	}
	cfgs, err := adm.DescribeTopicConfigs(ctx, td.Names()...)
	if err != nil {
		t.Fatal(err)
	}
	for _, rc := range cfgs {
		for _, c := range rc.Configs {
			s["config "+rc.Name+" "+c.Key] = fmt.Sprintf("%s (%v)", c.MaybeValue(), c.Source)
		}
	}
	ends, err := adm.ListEndOffsets(ctx, user...)
	if err != nil {
		t.Fatal(err)
	}
	ends.Each(func(o kadm.ListedOffset) {
		s[fmt.Sprintf("end %s/%d", o.Topic, o.Partition)] = fmt.Sprint(o.Offset, o.Err)
	})
	groups, err := adm.ListGroups(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, g := range groups.Groups() {
		if !group(g) {
			continue
		}
		offs, err := adm.FetchOffsets(ctx, g)
		if err != nil {
			t.Fatal(err)
		}
		s["group "+g] = "exists"
		offs.Each(func(o kadm.OffsetResponse) {
			s[fmt.Sprintf("committed %s %s/%d", g, o.Topic, o.Partition)] = fmt.Sprint(o.At, o.Err)
		})
	}
	return s
}

// checkFixtures fails t unless the snapshot holds what makeFixtures made: each topic with its
// partitions and non-default configs, and committed offsets of each group.
func checkFixtures(t *testing.T, s map[string]string) {
	t.Helper()
	for _, f := range prefixFixtures {
		if got, want := s["topic "+f.name], fmt.Sprintf("%d partitions, rf %d, internal false", f.partitions, f.rf); got != want {
			t.Errorf("fixture %s: %q, want %q", f.name, got, want)
		}
		for k, v := range f.configs {
			if got := s["config "+f.name+" "+k]; !strings.HasPrefix(got, v+" ") {
				t.Errorf("fixture %s: %s = %q, want %s", f.name, k, got, v)
			}
		}
	}
	for _, g := range prefixGroups {
		n := 0
		for k := range s {
			if strings.HasPrefix(k, "committed "+g+" ") {
				n++
			}
		}
		if n == 0 {
			t.Errorf("fixture group %s has no committed offsets", g)
		}
	}
}

// fixturesUntouched makes the fixtures on the cluster at bootstrap (makeFixtures) and returns a
// check, to call after the command under test, that fails t unless their topics, configs, end
// offsets and groups' committed offsets are as before it.
func fixturesUntouched(t *testing.T, bootstrap string) func() {
	t.Helper()
	adm, cl := admin(t, bootstrap)
	makeFixtures(t, adm, cl)
	before := fixtureSnapshot(t, adm)
	checkFixtures(t, before)
	return func() {
		t.Helper()
		after := fixtureSnapshot(t, adm)
		for _, k := range slices.Sorted(maps.Keys(mergeKeys(before, after))) {
			if before[k] != after[k] {
				t.Errorf("a fixture plimsoll did not create changed: %s: %q before, %q after", k, before[k], after[k])
			}
		}
	}
}

// mergeKeys is the union of two snapshots' keys.
func mergeKeys(a, b map[string]string) map[string]string {
	m := maps.Clone(a)
	maps.Copy(m, b)
	return m
}
