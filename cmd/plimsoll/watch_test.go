//go:build !integration

package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/plimsoll/plimsoll/watch"
	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// fakeWatched is a fake 3-broker cluster (ids 0-2) with one topic outside plimsoll's prefix and
// a Prometheus endpoint per broker serving a scrape recorded from a real broker. It records the
// key of every request the cluster receives.
type fakeWatched struct {
	c    *kfake.Cluster
	urls []string
	mu   sync.Mutex
	keys map[int16]int
	meta []*kmsg.MetadataRequest
}

func newFakeWatched(t *testing.T) *fakeWatched {
	t.Helper()
	c, err := kfake.NewCluster(kfake.NumBrokers(3), kfake.SeedTopics(3, "orders"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	f := &fakeWatched{c: c, keys: map[int16]int{}}
	c.Control(func(r kmsg.Request) (kmsg.Response, error, bool) {
		f.mu.Lock()
		defer f.mu.Unlock()
		f.keys[r.Key()]++
		if m, ok := r.(*kmsg.MetadataRequest); ok {
			f.meta = append(f.meta, m)
		}
		return nil, nil, false // observe only: the cluster answers
	})
	for i := range 3 {
		scrape, err := os.ReadFile(fmt.Sprintf("../../probe/testdata/scrape-broker%d.txt", i+1))
		if err != nil {
			t.Fatal(err)
		}
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.Write(scrape) }))
		t.Cleanup(srv.Close)
		f.urls = append(f.urls, fmt.Sprintf("%d=%s/metrics", i, srv.URL))
	}
	return f
}

func (f *fakeWatched) args(extra ...string) []string {
	a := []string{"watch", "--bootstrap", strings.Join(f.c.ListenAddrs(), ",")}
	for _, u := range f.urls {
		a = append(a, "--metrics-url", u)
	}
	return append(a, extra...)
}

// TestWatchCreatesNothing watches a fake cluster for one interval: one JSON line, exit 0, and
// the cluster received nothing but ApiVersions and Metadata requests, none of which could
// create a topic; its topics and groups are as they were.
func TestWatchCreatesNothing(t *testing.T) {
	f := newFakeWatched(t)
	stdout, stderr, code := runCLI(t, f.args("--interval", "2s", "--for", "2s", "--json")...)
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	lines := strings.Split(strings.TrimSpace(stdout), "\n")
	if len(lines) != 1 {
		t.Fatalf("%d lines, want one interval:\n%s", len(lines), stdout)
	}
	var iv watch.Interval
	if err := json.Unmarshal([]byte(lines[0]), &iv); err != nil {
		t.Fatal(err)
	}
	if iv.Seq != 1 || !iv.Final || iv.Samples < 1 || len(iv.Brokers) != 3 {
		t.Errorf("interval seq %d final %v samples %d brokers %d", iv.Seq, iv.Final, iv.Samples, len(iv.Brokers))
	}
	f.mu.Lock() // the control function takes it too: released before the admin requests below
	if f.keys[kmsg.Metadata.Int16()] == 0 {
		t.Error("the cluster saw no Metadata request: the control function observed nothing")
	}
	for key, n := range f.keys {
		if key != kmsg.ApiVersions.Int16() && key != kmsg.Metadata.Int16() {
			t.Errorf("watch sent %d %s requests", n, kmsg.NameForKey(key))
		}
	}
	for _, m := range f.meta {
		if m.AllowAutoTopicCreation && (m.Topics == nil || len(m.Topics) > 0) {
			t.Errorf("a Metadata request may create topics: %+v", m)
		}
	}
	f.mu.Unlock()
	cl, err := kgo.NewClient(kgo.SeedBrokers(f.c.ListenAddrs()...))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	adm := kadm.NewClient(cl)
	topics, err := adm.ListTopics(context.Background())
	if err != nil || len(topics) != 1 || !topics.Has("orders") {
		t.Errorf("topics %v (%v), want orders alone", topics.Names(), err)
	}
	if groups, err := adm.ListGroups(context.Background()); err != nil || len(groups) != 0 {
		t.Errorf("groups %v (%v), want none", groups.Groups(), err)
	}
}

// TestWatchText is the text form of the same interval.
func TestWatchText(t *testing.T) {
	f := newFakeWatched(t)
	stdout, stderr, code := runCLI(t, f.args("--interval", "2s", "--for", "2s")...)
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	for _, want := range []string{"=== interval 1:", ", the last", "USE over", "traffic (Kafka's BrokerTopicMetrics) and headroom", "busiest: broker"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("output lacks %q:\n%s", want, stdout)
		}
	}
	if !strings.Contains(stderr, "watching 127.0.0.1:") {
		t.Errorf("stderr %q", stderr)
	}
}

// A metrics endpoint that does not answer fails the start, naming the broker and the flag.
func TestWatchUnreachableMetrics(t *testing.T) {
	f := newFakeWatched(t)
	f.urls[1] = "1=http://127.0.0.1:1/metrics"
	stdout, stderr, code := runCLI(t, f.args("--for", "2s")...)
	if code != ExitError || !strings.Contains(stderr, "broker 1:") || !strings.Contains(stderr, "--metrics-url") {
		t.Errorf("exit %d, stderr:\n%s", code, stderr)
	}
	if stdout != "" {
		t.Errorf("printed %q", stdout)
	}
}

// SIGTERM (or Ctrl-C) ends a watch with exit 0, printing what arrived since the last interval
// as the final one: being told to stop is how an observer ends.
func TestWatchSignal(t *testing.T) {
	guardSignals(t)
	f := newFakeWatched(t)
	root := newRootCmd()
	root.SetArgs(f.args("--json"))
	var out bytes.Buffer
	root.SetOut(&out)
	pr, pw := io.Pipe()
	root.SetErr(pw)
	done := make(chan error, 1)
	go func() { done <- root.Execute(); pw.Close() }()
	started := make(chan bool, 1)
	go func() {
		sc := bufio.NewScanner(pr)
		for sc.Scan() && !strings.HasPrefix(sc.Text(), "watching") {
		}
		started <- true
		io.Copy(io.Discard, pr)
	}()
	select {
	case <-started:
	case err := <-done:
		t.Fatalf("watch ended before it started watching: %v", err)
	case <-time.After(10 * time.Second):
		t.Fatal("watch did not start within 10 s") // the deferred cluster close ends it
	}
	time.Sleep(1500 * time.Millisecond) // a sample or two arrive
	if err := syscall.Kill(os.Getpid(), syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-done:
		if code := exitCode(err, os.Stderr); code != 0 {
			t.Fatalf("exit %d after SIGTERM", code)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("watch did not stop within 5 s of SIGTERM")
	}
	var iv watch.Interval
	if err := json.Unmarshal(out.Bytes(), &iv); err != nil || !iv.Final || iv.Samples < 1 {
		t.Errorf("output %q (%v): want one final interval", out.String(), err)
	}
}
