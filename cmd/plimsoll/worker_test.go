//go:build !integration

package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/plimsoll/plimsoll/fleet"
	"github.com/plimsoll/plimsoll/fleet/fleettest"
	"github.com/plimsoll/plimsoll/fleet/launch"
	goldenfile "github.com/plimsoll/plimsoll/internal/golden"
	"github.com/plimsoll/plimsoll/loadgen"
	"github.com/plimsoll/plimsoll/target"
	"github.com/twmb/franz-go/pkg/kfake"
)

// The golden files are rewritten with `go test ./cmd/plimsoll -run TestWorkerManifestGolden -update`.

// TestWorkerBadInput: a worker refuses a command line it cannot run with exit 2 and a message
// naming the flag and the fix, before it contacts anything (the bootstrap is a closed port).
func TestWorkerBadInput(t *testing.T) {
	for _, tc := range []struct {
		name string
		env  string
		args []string
		want []string
	}{
		{"no index", "", []string{"--run-id", "20261127t040000-cd34"}, []string{"no worker index", "--index", launch.IndexEnv}},
		{"index in env not a number", "two", []string{"--run-id", "20261127t040000-cd34"}, []string{launch.IndexEnv + `="two"`, "0 to N-1"}},
		{"negative index in env", "-1", []string{"--run-id", "20261127t040000-cd34"}, []string{launch.IndexEnv + `="-1"`}},
		{"negative index", "", []string{"--run-id", "20261127t040000-cd34", "--index", "-2"}, []string{"--index -2", "0 to N-1"}},
		{"no run id", "", []string{"--index", "0"}, []string{"--run-id is required", "the coordinator printed", "--search"}},
		{"run id and search", "0", []string{"--run-id", "20261127t040000-cd34", "--search", "l1a2b3c-081500"}, []string{"--run-id and --search together"}},
		{"bad search id", "0", []string{"--search", "a b"}, []string{"--search:"}},
		{"bad run id", "", []string{"--run-id", "a b", "--index", "0"}, []string{"--run-id:"}},
		{"no bootstrap", "0", []string{"--run-id", "20261127t040000-cd34", "--bootstrap", ""}, []string{"--bootstrap is required"}},
		{"metrics url is not a worker's", "0", []string{"--run-id", "20261127t040000-cd34", "--metrics-url", "1=http://x"}, []string{"unknown flag: --metrics-url"}},
		{"an argument", "0", []string{"--run-id", "20261127t040000-cd34", "extra"}, []string{"unknown command"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv(launch.IndexEnv, tc.env)
			args := append([]string{"worker", "--bootstrap", "127.0.0.1:1"}, tc.args...)
			_, stderr, code := runCLI(t, args...)
			if code != ExitUsage {
				t.Errorf("exit %d, want %d; stderr:\n%s", code, ExitUsage, stderr)
			}
			for _, w := range tc.want {
				if !strings.Contains(stderr, w) {
					t.Errorf("stderr lacks %q:\n%s", w, stderr)
				}
			}
		})
	}
}

// TestWorkerNothingToJoin: a worker given a run id no coordinator opened, or a search id no
// limit --workers opened, finds no control or search topic within its wait, exits 2 naming the
// topic and asks for the id its coordinator printed; it creates nothing.
func TestWorkerNothingToJoin(t *testing.T) {
	short := fleet.DefaultLimits
	short.Find, short.Poll = 500*time.Millisecond, 50*time.Millisecond
	defer func(l fleet.Limits) { workerLimits = l }(workerLimits)
	workerLimits = short
	t.Setenv(launch.IndexEnv, "1")
	for _, tc := range []struct {
		name string
		args []string
		want []string
	}{
		{"run", []string{"--run-id", "20261127t040000-ee99"},
			[]string{fleet.ControlTopic("20261127t040000-ee99"), "the run id the coordinator printed", "hint: give --run-id"}},
		{"search", []string{"--search", "l1a2b3c-081500"},
			[]string{fleet.SearchTopic("l1a2b3c-081500"), "hint: give --search", "limit --workers"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := fleettest.Cluster(t)
			args := append([]string{"worker", "--bootstrap", strings.Join(c.ListenAddrs(), ",")}, tc.args...)
			_, stderr, code := runCLI(t, args...)
			if code != ExitUsage {
				t.Errorf("exit %d, want %d; stderr:\n%s", code, ExitUsage, stderr)
			}
			for _, w := range tc.want {
				if !strings.Contains(stderr, w) {
					t.Errorf("stderr lacks %q:\n%s", w, stderr)
				}
			}
			fleettest.NoneLeft(t, c)
		})
	}
}

// fakeErr is a worker whose coordinator is gone from the given call of Err on.
type fakeErr struct {
	goneAt int32
	n      atomic.Int32
}

func (f *fakeErr) Err() error {
	if f.n.Add(1) >= f.goneAt {
		return fleet.ErrCoordinatorGone
	}
	return nil
}

// TestStopWhenGone: the run's context is cancelled, with the worker's error as its cause, once
// Err reports the coordinator gone, and not before.
func TestStopWhenGone(t *testing.T) {
	f := &fakeErr{goneAt: 3}
	ctx, stop := stopWhenGone(context.Background(), f, time.Millisecond)
	defer stop()
	select {
	case <-ctx.Done():
	case <-time.After(10 * time.Second):
		t.Fatal("not cancelled")
	}
	if !errors.Is(context.Cause(ctx), fleet.ErrCoordinatorGone) || f.n.Load() != 3 {
		t.Errorf("cause %v after %d calls; want ErrCoordinatorGone after 3", context.Cause(ctx), f.n.Load())
	}
	ok := &fakeErr{goneAt: 1 << 30}
	ctx2, stop2 := stopWhenGone(context.Background(), ok, time.Millisecond)
	stop2()
	if !errors.Is(context.Cause(ctx2), context.Canceled) {
		t.Errorf("stopped: cause %v, want context.Canceled", context.Cause(ctx2))
	}
}

// TestLeaveReason: a worker's leave record names the signal that interrupted its run, or the
// run's error.
func TestLeaveReason(t *testing.T) {
	runErr := fmt.Errorf("%w: context canceled", loadgen.ErrInterrupted)
	for _, tc := range []struct {
		name  string
		cause error
		want  string
	}{
		{"SIGINT", &signalCause{os.Interrupt}, "interrupted by SIGINT"},
		{"SIGTERM", &signalCause{syscall.SIGTERM}, "interrupted by SIGTERM"},
		{"an error", errors.New("broker gone"), "its run failed: run interrupted: context canceled"},
	} {
		ctx, cancel := context.WithCancelCause(context.Background())
		cancel(tc.cause)
		if got := leaveReason(ctx, runErr); got != tc.want {
			t.Errorf("%s: %q, want %q", tc.name, got, tc.want)
		}
	}
}

// TestWorkerManifestGolden: the command prints launch.Manifest and launch.Lines of the spec its
// flags give (the plain and secured specs of fleet/launch's tests).
func TestWorkerManifestGolden(t *testing.T) {
	plain := []string{"worker", "manifest", "--workers", "3", "--run-id", "20261127t040000-cd34", "--image", "plimsoll:dev",
		"--duration", "90s", "--margin", "30s", "--ttl", "10m", "--bootstrap", "kafka.kafka.svc:9092"}
	secured := []string{"worker", "manifest", "--workers", "2", "--run-id", "20261127t040000-ab12", "--image", "registry.example.com/plimsoll:v1.0.0",
		"--namespace", "load", "--name", "load-workers", "--secret", "kafka-load-client", "--cpu-request", "2", "--memory-request", "2Gi",
		"--cpu-limit", "2", "--memory-limit", "2Gi", "--duration", "40m", "--bootstrap", "broker1:9093,broker2:9093",
		"--tls-ca", "/etc/kafka/ca.pem", "--tls-cert", "/etc/kafka/client.pem", "--tls-key", "/etc/kafka/client-key.pem",
		"--sasl-mechanism", "SCRAM-SHA-512", "--sasl-user", "loadtest", "--sasl-password-env", "KAFKA_PW"}
	for _, tc := range []struct {
		name   string
		args   []string
		golden string
	}{
		{"plain yaml", plain, "testdata/worker/plain.golden.yaml"},
		{"plain shell", append(plain, "--format", "shell"), "testdata/worker/plain.golden.sh"},
		{"secured yaml", secured, "testdata/worker/secured.golden.yaml"},
		{"secured shell", append(secured, "--format", "shell"), "testdata/worker/secured.golden.sh"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			stdout, stderr, code := runCLI(t, tc.args...)
			if code != ExitOK {
				t.Fatalf("exit %d; stderr:\n%s", code, stderr)
			}
			goldenfile.Check(t, tc.golden, []byte(stdout))
		})
	}
	want, err := launch.Manifest(launch.Spec{RunID: "20261127t040000-cd34", Workers: 3, Image: "plimsoll:dev",
		Target: launch.Target{Bootstrap: "kafka.kafka.svc:9092"}, Duration: 90 * time.Second, Margin: 30 * time.Second, TTL: 10 * time.Minute})
	stdout, _, code := runCLI(t, plain...)
	if err != nil || code != ExitOK || stdout != string(want) {
		t.Errorf("the command's manifest differs from launch.Manifest of the same spec (err %v)", err)
	}
}

// TestWorkerManifestBadInput: a spec launch refuses is a usage error naming the fix, nothing
// printed on stdout.
func TestWorkerManifestBadInput(t *testing.T) {
	ok := map[string]string{"--workers": "3", "--run-id": "20261127t040000-cd34", "--image": "plimsoll:dev", "--duration": "90s", "--bootstrap": "kafka:9092"}
	for _, tc := range []struct {
		name string
		set  map[string]string
		want string
	}{
		{"no workers", map[string]string{"--workers": "0"}, "workers 0: give 1 or more"},
		{"no run id", map[string]string{"--run-id": ""}, "run id"},
		{"no image", map[string]string{"--image": ""}, "image \"\""},
		{"no duration", map[string]string{"--duration": "0s"}, "duration 0s"},
		{"no bootstrap", map[string]string{"--bootstrap": ""}, "bootstrap"},
		{"secret without tls or sasl", map[string]string{"--secret": "s"}, "secret \"s\" named"},
		{"sasl without secret", map[string]string{"--sasl-mechanism": "plain", "--sasl-user": "u"}, "no secret is named"},
		{"bad cpu", map[string]string{"--cpu-limit": "lots"}, "lots"},
		{"bad format", map[string]string{"--format": "json"}, "--format \"json\": give one of yaml, shell"},
		{"run id and search", map[string]string{"--search": "l1a2b3c-081500"}, "--run-id and --search together"},
		{"bad search id", map[string]string{"--run-id": "", "--search": "bad id!"}, "bad id!"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			args := []string{"worker", "manifest"}
			for k, v := range ok {
				if _, over := tc.set[k]; !over {
					args = append(args, k, v)
				}
			}
			for k, v := range tc.set {
				args = append(args, k, v)
			}
			stdout, stderr, code := runCLI(t, args...)
			if code != ExitUsage || stdout != "" || !strings.Contains(stderr, tc.want) {
				t.Errorf("exit %d, stdout %q, stderr:\n%s\nwant exit %d and %q", code, stdout, stderr, ExitUsage, tc.want)
			}
		})
	}
}

// openTestRun opens a run of n workers on kfake as the coordinator does: the plan, the control
// and results topics, the workload's topics.
func openTestRun(t *testing.T, ctx context.Context, c *kfake.Cluster, runID string, n int) (*fleet.Coordinator, fleet.Plan) {
	t.Helper()
	p := fleet.Plan{RunID: runID, Version: plimsollVersion(), Workers: n, Spec: fleettest.Spec(), Start: time.Now().Add(4 * time.Second)}
	return fleettest.Open(t, ctx, c, p, workerLimits), p
}

// workerOut is what one in-process `plimsoll worker` printed and returned.
type workerOut struct {
	stderr string
	code   int
}

// startWorkers runs `plimsoll worker` for each index in-process against c.
func startWorkers(t *testing.T, c *kfake.Cluster, runID string, n int) func() []workerOut {
	outs := make([]workerOut, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			_, outs[i].stderr, outs[i].code = runCLI(t, "worker", "--run-id", runID, "--index", strconv.Itoa(i), "--bootstrap", strings.Join(c.ListenAddrs(), ","))
		})
	}
	return func() []workerOut { wg.Wait(); return outs }
}

// TestWorkerCommandRunsItsShare: two `plimsoll worker` commands join a run a coordinator opened
// on kfake, run their shares and exit 0; the coordinator's merge holds every message, none
// lost or duplicated. A worker whose coordinator ends the run mid-way stops and exits 1 saying
// so.
func TestWorkerCommandRunsItsShare(t *testing.T) {
	if testing.Short() {
		t.Skip("runs loadgen for several seconds")
	}
	defer func(l fleet.Limits) { workerLimits = l }(workerLimits)
	workerLimits = fleet.Limits{Join: 20 * time.Second, Silence: 5 * time.Second, Lag: 4, Find: 10 * time.Second, Poll: 50 * time.Millisecond, Beat: 200 * time.Millisecond}
	c := fleettest.Cluster(t)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()

	co, _ := openTestRun(t, ctx, c, "20261127t050000-aa01", 2)
	wait := startWorkers(t, c, "20261127t050000-aa01", 2)
	if err := co.AwaitJoins(ctx); err != nil {
		t.Fatal(err)
	}
	merged, err := co.Collect(ctx, func(fleet.MergedSecond) {})
	outs := wait()
	if cerr := co.Close(ctx); err != nil || cerr != nil {
		t.Fatalf("collect: %v; close: %v", err, cerr)
	}
	for i, o := range outs {
		if o.code != ExitOK || !strings.Contains(o.stderr, fmt.Sprintf("worker %d done", i)) {
			t.Errorf("worker %d: exit %d, stderr:\n%s", i, o.code, o.stderr)
		}
		if !readyBefore.MatchString(o.stderr) {
			t.Errorf("worker %d did not say how long before the start it was ready:\n%s", i, o.stderr)
		}
	}
	if merged.Counts.Sent == 0 || merged.Counts.Lost != 0 || merged.Counts.Duplicated != 0 || merged.Counts.Consumed != merged.Counts.Acked {
		t.Errorf("merged counts %+v; want messages sent, all consumed once", merged.Counts)
	}

	co, p := openTestRun(t, ctx, c, "20261127t050000-aa02", 1)
	wait = startWorkers(t, c, p.RunID, 1)
	if err := co.AwaitJoins(ctx); err != nil {
		t.Fatal(err)
	}
	if err := co.Close(ctx); err != nil { // ends the run before the worker's start
		t.Fatal(err)
	}
	o := wait()[0]
	if o.code != ExitError || !strings.Contains(o.stderr, "the coordinator is gone") {
		t.Errorf("worker of an ended run: exit %d, stderr:\n%s", o.code, o.stderr)
	}
	for _, id := range []string{"20261127t050000-aa01", p.RunID} { // the workload's topics and groups: the coordinator's to delete
		if _, _, err := loadgen.DeletePrefixed(ctx, target.Target{Bootstrap: c.ListenAddrs()}, fleet.Prefix(id)); err != nil {
			t.Fatal(err)
		}
	}
	fleettest.NoneLeft(t, c)
}

// TestRunWorkersBadInput: `run --workers/--local-workers` and `limit --workers/--local-workers` refuse what a run with workers
// cannot do with exit 2, before it contacts anything (the bootstrap is a closed port).
func TestRunWorkersBadInput(t *testing.T) {
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"both", []string{"--workers", "2", "--local-workers", "2"}, "--workers and --local-workers together"},
		{"negative", []string{"--workers", "-1"}, "--workers -1"},
		{"more workers than producers", []string{"--local-workers", "3", "--producers", "2", "--partitions", "6"}, "3 workers with 2 producers"},
		{"more workers than partitions", []string{"--workers", "4", "--producers", "4", "--partitions", "3"}, "4 workers with 3 partitions per topic"},
		{"topic prefix", []string{"--workers", "1", "--topic-prefix", "plimsoll-x-"}, "--topic-prefix with workers"},
		{"keep topics", []string{"--local-workers", "1", "--keep-topics"}, "--keep-topics with workers"},
		{"limit: more workers than producers", []string{"limit", "--local-workers", "2"}, "2 workers with 1 producers"},
		{"limit: negative", []string{"limit", "--local-workers", "-2"}, "--local-workers -2"},
		{"limit: both", []string{"limit", "--workers", "2", "--local-workers", "2", "--producers", "2"}, "--workers and --local-workers together"},
		{"limit: more workers than producers, yours", []string{"limit", "--workers", "3", "--producers", "2"}, "3 workers with 2 producers"},
		{"limit: negative, yours", []string{"limit", "--workers", "-1"}, "--workers -1"},
		{"lean producer", []string{"--local-workers", "1", "--lean-producer"}, "--lean-producer runs in this process only"},
		{"limit: lean producer", []string{"limit", "--workers", "1", "--lean-producer"}, "--lean-producer runs in this process only"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			args := append([]string{"run"}, tc.args...)
			if tc.args[0] == "limit" {
				args = append(tc.args, "--out", filepath.Join(t.TempDir(), "out"))
			}
			args = slices.Insert(args, 1, "--bootstrap", "127.0.0.1:1")
			_, stderr, code := runCLI(t, args...)
			if code != ExitUsage || !strings.Contains(stderr, tc.want) {
				t.Errorf("exit %d, stderr:\n%s\nwant exit %d and %q", code, stderr, ExitUsage, tc.want)
			}
		})
	}
}

// TestLaunchTarget: the coordinator's target becomes the workers' flags, TLS files and SASL
// named, the password never (only its variable).
func TestLaunchTarget(t *testing.T) {
	for _, tc := range []struct {
		name string
		in   target.Target
		want launch.Target
	}{
		{"plaintext", target.Target{Bootstrap: []string{"a:9092", "b:9092"}}, launch.Target{Bootstrap: "a:9092,b:9092"}},
		{"tls", target.Target{Bootstrap: []string{"a:9093"}, TLS: &target.TLS{CAFile: "ca.pem", CertFile: "c.pem", KeyFile: "k.pem"}},
			launch.Target{Bootstrap: "a:9093", TLS: true, CAFile: "ca.pem", CertFile: "c.pem", KeyFile: "k.pem"}},
		{"sasl", target.Target{Bootstrap: []string{"a:9094"}, SASL: &target.SASL{Mechanism: "plain", User: "u", Password: "secret"}},
			launch.Target{Bootstrap: "a:9094", SASLMechanism: "plain", SASLUser: "u", SASLPasswordEnv: "PW"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := launchTarget(tc.in, "PW"); got != tc.want {
				t.Errorf("got %+v, want %+v", got, tc.want)
			}
		})
	}
}

// TestLocalTarget: local workers get the coordinator's SASL password in their environment under
// localPasswordEnv, whatever variable (or none: compare's generated password) it came from; a
// target without SASL adds nothing.
func TestLocalTarget(t *testing.T) {
	lt, env := localTarget(target.Target{Bootstrap: []string{"a:9094"}, SASL: &target.SASL{Mechanism: "SCRAM-SHA-512", User: "u", Password: "s3cret"}})
	want := launch.Target{Bootstrap: "a:9094", SASLMechanism: "SCRAM-SHA-512", SASLUser: "u", SASLPasswordEnv: localPasswordEnv}
	if lt != want || !slices.Equal(env, []string{localPasswordEnv + "=s3cret"}) {
		t.Errorf("got %+v and %q, want %+v and the password under %s", lt, env, want, localPasswordEnv)
	}
	if args := strings.Join(launch.Args("r1", 0, lt), " "); strings.Contains(args, "s3cret") {
		t.Errorf("the password is in the worker's arguments: %s", args)
	}
	if lt, env := localTarget(target.Target{Bootstrap: []string{"a:9092"}}); lt.SASLPasswordEnv != "" || env != nil {
		t.Errorf("plaintext: %+v, %q; want no password variable", lt, env)
	}
}

// TestPrintWorkerLines: `run --workers` prints the run id, the start and one command line per
// worker, with its index.
func TestPrintWorkerLines(t *testing.T) {
	var b strings.Builder
	p := fleet.Plan{RunID: "20261127t040000-cd34", Version: "v1.2.3", Workers: 2, Start: time.Date(2026, 11, 27, 4, 1, 10, 0, time.UTC)}
	if err := printWorkerLines(&b, p, launch.Target{Bootstrap: "k:9092"}); err != nil {
		t.Fatal(err)
	}
	want := "run id 20261127t040000-cd34: start these 2 workers before 2026-11-27T04:01:10Z (each with plimsoll v1.2.3; `plimsoll worker manifest` writes a Kubernetes Job):\n" +
		"plimsoll worker --run-id 20261127t040000-cd34 --index 0 --bootstrap k:9092\n" +
		"plimsoll worker --run-id 20261127t040000-cd34 --index 1 --bootstrap k:9092\n"
	if b.String() != want {
		t.Errorf("got\n%s\nwant\n%s", b.String(), want)
	}
}

var readyBefore = regexp.MustCompile(`worker \d ready ([\d.]+m?s) (before|after) the start \(set-up took ([\d.]+m?s)\)`)

// TestReadyLine: the line a worker writes once set up gives the slack left before the start
// (negative when it is late) and how long its set-up took.
func TestReadyLine(t *testing.T) {
	for _, c := range []struct {
		name             string
		start            time.Duration // from now
		slackLo, slackHi time.Duration
	}{
		{"early", 4 * time.Second, 3800 * time.Millisecond, 4 * time.Second},
		{"late", -2 * time.Second, -2200 * time.Millisecond, -2 * time.Second},
	} {
		t.Run(c.name, func(t *testing.T) {
			var log strings.Builder
			o := readyLine(loadgen.Options{}, 2, time.Now().Add(-1500*time.Millisecond), &log)
			o.Started(time.Now().Add(c.start), time.Now().Add(c.start+2*time.Second))
			m := readyBefore.FindStringSubmatch(log.String())
			if m == nil {
				t.Fatalf("ready line %q", log.String())
			}
			slack, err1 := time.ParseDuration(m[1])
			if m[2] == "after" {
				slack = -slack
			}
			setup, err2 := time.ParseDuration(m[3])
			if err1 != nil || err2 != nil || slack < c.slackLo || slack > c.slackHi || setup < 1500*time.Millisecond || setup > 1700*time.Millisecond {
				t.Errorf("ready line %q: want a slack in [%s, %s] and a set-up of about 1.5 s", log.String(), c.slackLo, c.slackHi)
			}
		})
	}
}
