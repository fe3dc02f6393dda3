package scenario

import (
	"context"
	"encoding/json"
	"io"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kfake"

	"github.com/plimsoll/plimsoll/localkafka"
)

// fakeCluster is a kfake cluster of n brokers recorded as a local KRaft 4.1.0 cluster in a
// directory (cluster.json), each broker's pid this test process, so the partition scenarios run
// on it through --cluster-dir. It returns the directory and the fake.
func fakeCluster(t *testing.T, n int) (string, *kfake.Cluster) {
	t.Helper()
	fc, err := kfake.NewCluster(kfake.NumBrokers(n), kfake.SeedTopics(1, "theirs"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(fc.Close)
	dir := t.TempDir()
	st := localkafka.State{Dir: dir, KafkaVersion: "4.1.0", Heap: "768m"}
	for i, addr := range fc.ListenAddrs() {
		host, port, _ := net.SplitHostPort(addr)
		p, _ := strconv.Atoi(port)
		st.Brokers = append(st.Brokers, &localkafka.Broker{ID: int32(i), Host: host, Port: p, PID: os.Getpid(), Dir: filepath.Join(dir, "broker")})
	}
	data, _ := json.Marshal(st)
	if err := os.WriteFile(filepath.Join(dir, "cluster.json"), data, 0o644); err != nil {
		t.Fatal(err)
	}
	return dir, fc
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
