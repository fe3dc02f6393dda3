package scenario

import (
	"context"
	"encoding/json"
	"io"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/plimsoll/plimsoll/localkafka"
	"github.com/plimsoll/plimsoll/results"
)

// fakeCluster is a kfake cluster of n brokers recorded as a local KRaft 4.1.0 cluster in a
// directory (cluster.json), each broker's pid this test process, so the partition scenarios run
// on it through --cluster-dir. It returns the directory and the fake.
func fakeCluster(t *testing.T, n int) (string, *kfake.Cluster) {
	t.Helper()
	dir := t.TempDir()
	return dir, fakeClusterIn(t, dir, n, localkafka.MetadataKRaft, "4.1.0")
}

// fakeClusterIn records a new kfake cluster of n brokers in dir as a local cluster of the given
// metadata mode and Kafka release, as plimsoll cluster up would leave it, and returns the fake.
func fakeClusterIn(t *testing.T, dir string, n int, metadata, version string) *kfake.Cluster {
	t.Helper()
	fc, err := kfake.NewCluster(kfake.NumBrokers(n), kfake.SeedTopics(1, "theirs"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(fc.Close)
	st := localkafka.State{Dir: dir, KafkaVersion: version, Heap: "768m"}
	if metadata == localkafka.MetadataZooKeeper {
		st.ZooKeeper = &localkafka.ZooKeeper{Host: "127.0.0.1", Port: 2181, Dir: filepath.Join(dir, "zookeeper"), PID: os.Getpid()}
	}
	for i, addr := range fc.ListenAddrs() {
		host, port, _ := net.SplitHostPort(addr)
		p, _ := strconv.Atoi(port)
		st.Brokers = append(st.Brokers, &localkafka.Broker{ID: int32(i), Host: host, Port: p, PID: os.Getpid(), Dir: filepath.Join(dir, "broker")})
	}
	data, _ := json.Marshal(st)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "cluster.json"), data, 0o644); err != nil {
		t.Fatal(err)
	}
	return fc
}

// fakeUp is an Exec that answers plimsoll cluster up with a kfake cluster of --brokers brokers
// recorded in its --cluster-dir, of its --metadata and --kafka-version, and every command with
// exit 0; it keeps the fakes it started.
func fakeUp(t *testing.T, started *[]*kfake.Cluster) func(context.Context, ...string) (int, error) {
	return func(_ context.Context, args ...string) (int, error) {
		if len(args) > 1 && args[0] == "cluster" && args[1] == "up" {
			n, _ := strconv.Atoi(flagOf(args, "--brokers"))
			fc := fakeClusterIn(t, flagOf(args, "--cluster-dir"), n, flagOf(args, "--metadata"), flagOf(args, "--kafka-version"))
			*started = append(*started, fc)
		}
		return 0, nil
	}
}

// clockEnv is an Env on clusterDir whose clock moves one second per reading, so every time a
// scenario measures on a fake cluster is a count of its clock readings.
func clockEnv(t *testing.T, clusterDir string) (*Env, *[][]string) {
	at := time.Date(2026, 11, 26, 8, 0, 0, 0, time.UTC)
	var cmds [][]string
	return &Env{Out: t.TempDir(), Mode: Short, ClusterDir: clusterDir, Log: io.Discard,
		Now:  func() time.Time { at = at.Add(time.Second); return at },
		Exec: func(_ context.Context, args ...string) (int, error) { cmds = append(cmds, args); return 0, nil }}, &cmds
}

// executeOnFake executes the scenario called name with set on env as Execute does, all but its
// precondition check, which asks for the brokers' JVMs running (kfake's brokers are this test).
func executeOnFake(t *testing.T, name string, env *Env, set map[string]string) results.Scenario {
	t.Helper()
	s, err := Lookup(name)
	if err != nil {
		t.Fatal(err)
	}
	s.Check = func(context.Context, *Env, Params) error { return nil }
	res, err := Execute(context.Background(), s, env, set)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// newTestAdmin is a partAdmin on env's fake cluster under plimsoll-test-.
func newTestAdmin(t *testing.T, env *Env) *partAdmin {
	t.Helper()
	st, err := localkafka.Open(env.ClusterDir)
	if err != nil {
		t.Fatal(err)
	}
	a, err := newPartAdmin(context.Background(), []string{st.Brokers[0].Address()}, "plimsoll-test-", 10*time.Second, env.Now)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(a.close)
	return a
}

func mustOpen(t *testing.T, dir string) *localkafka.State {
	t.Helper()
	st, err := localkafka.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	return st
}

// TestCleanupDeletesUnlisted: a topic the scenario asked for is deleted by its name even when
// the brokers' listing does not show it yet (a broker's metadata lagging the controller's, or a
// request an interruption cut short): interrupted just after asking for its first topic,
// partition-creation's clean-up listed the topics without it and left it behind.
func TestCleanupDeletesUnlisted(t *testing.T) {
	dir, fc := fakeCluster(t, 3)
	env, _ := clockEnv(t, dir)
	a := newTestAdmin(t, env)
	ctx := context.Background()
	name := a.topic("fresh")
	if err := a.createTopic(ctx, name, 2, 1, nil); err != nil {
		t.Fatal(err)
	}
	var hide atomic.Bool
	hide.Store(true)
	fc.ControlKey(kmsg.Metadata.Int16(), func(r kmsg.Request) (kmsg.Response, error, bool) {
		fc.KeepControl()
		if !hide.Load() {
			return nil, nil, false
		}
		resp := r.(*kmsg.MetadataRequest).ResponseKind().(*kmsg.MetadataResponse)
		for i, addr := range fc.ListenAddrs() {
			host, port, _ := net.SplitHostPort(addr)
			p, _ := strconv.Atoi(port)
			b := kmsg.NewMetadataResponseBroker()
			b.NodeID, b.Host, b.Port = int32(i), host, int32(p)
			resp.Brokers = append(resp.Brokers, b)
		}
		return resp, nil, true
	})
	if listed, err := a.prefixed(ctx); err != nil || len(listed) != 0 {
		t.Fatalf("listed %v (%v): the fake's listings must leave the topic out", listed, err)
	}
	n, err := a.cleanup(ctx)
	if err != nil || n != 1 {
		t.Fatalf("cleanup: %d topics, %v: want the one asked for", n, err)
	}
	hide.Store(false)
	if left, err := a.prefixed(ctx); err != nil || len(left) != 0 {
		t.Errorf("left after the clean-up: %v (%v)", left, err)
	}
}
