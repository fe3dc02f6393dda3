package main

import (
	"context"
	"encoding/json"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/plimsoll/plimsoll/arms"
	"github.com/plimsoll/plimsoll/results"
	"github.com/plimsoll/plimsoll/verdict"
	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"
)

// TestInterruptibleSignals: SIGINT and SIGTERM end an interruptible context with the signal as
// its cause, and an interruption exits 130 and 143.
func TestInterruptibleSignals(t *testing.T) {
	guardSignals(t)
	for _, tc := range []struct {
		sig  syscall.Signal
		code int
	}{{syscall.SIGINT, ExitSIGINT}, {syscall.SIGTERM, ExitSIGTERM}} {
		ctx, cancel := interruptible()
		if err := syscall.Kill(os.Getpid(), tc.sig); err != nil {
			t.Fatal(err)
		}
		select {
		case <-ctx.Done():
		case <-time.After(10 * time.Second):
			t.Fatalf("%v did not end the context", tc.sig)
		}
		if got := interruptedBy(ctx); got != tc.sig {
			t.Errorf("interrupted by %v, want %v", got, tc.sig)
		}
		if code := exitCode(interruptedErr(ctx, "x", ""), os.NewFile(0, os.DevNull)); code != tc.code {
			t.Errorf("%v: exit %d, want %d", tc.sig, code, tc.code)
		}
		cancel()
	}
	ctx, cancel := interruptible()
	cancel()
	if interruptedBy(ctx) != nil {
		t.Error("a context cancelled by its function counts as interrupted by a signal")
	}
}

// TestABInterrupted: SIGINT in the first repetition of an A/B experiment (client-side arms
// against a fake cluster) exits 130, keeps the repetition's partial result marked interrupted,
// records the interruption in the manifest, runs no further repetition and leaves no topic.
func TestABInterrupted(t *testing.T) {
	guardSignals(t)
	c, err := kfake.NewCluster(kfake.NumBrokers(1))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	adm := freshAdmin(t, c.ListenAddrs())
	go interruptWhenLoaded(t, adm, 2*time.Second, syscall.SIGINT)
	out := filepath.Join(t.TempDir(), "ab")
	_, stderr, code := runCLI(t, "compare", "--out", out, "--a", "", "--b", "producer:linger.ms=5", "--", "run",
		"--bootstrap", strings.Join(c.ListenAddrs(), ","), "--replication-factor", "1", "--rate", "200", "--warmup", "1s", "--duration", "60s")
	if code != ExitSIGINT || !strings.Contains(stderr, "interrupted in") {
		t.Fatalf("exit %d, want %d:\n%s", code, ExitSIGINT, stderr)
	}
	var m arms.Manifest
	data, err := os.ReadFile(filepath.Join(out, "manifest.json"))
	if err != nil || json.Unmarshal(data, &m) != nil {
		t.Fatalf("manifest: %v\n%s", err, data)
	}
	first := m.Order[0]
	if !strings.Contains(first.Error, "interrupted") || first.Exit != ExitSIGINT || !m.Order[1].Started.IsZero() {
		t.Errorf("steps %+v", m.Order)
	}
	res, err := results.LoadTrialDir(filepath.Join(out, first.Dir))
	if err != nil || !res.Interrupted {
		t.Errorf("the interrupted repetition's result: %v (interrupted %v)", err, res != nil && res.Interrupted)
	}
	noTopicsLeft(t, c.ListenAddrs())
}

// guardSignals keeps a signal the test sends itself from ending the test binary should it
// arrive when no interruptible context listens (the command already returned).
func guardSignals(t *testing.T) {
	ch := make(chan os.Signal, 2)
	signal.Notify(ch, syscall.SIGINT, syscall.SIGTERM)
	t.Cleanup(func() { signal.Stop(ch); caught.Store(nil) })
}

// interruptWhenLoaded sends this process sig once a topic exists, after wait.
func interruptWhenLoaded(t *testing.T, adm *kadm.Client, wait time.Duration, sig syscall.Signal) {
	for deadline := time.Now().Add(time.Minute); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		ts, err := adm.ListTopics(context.Background())
		if err == nil && len(ts) > 0 {
			time.Sleep(wait)
			if err := syscall.Kill(os.Getpid(), sig); err != nil {
				t.Error(err)
			}
			return
		}
	}
	t.Error("no topic was created within a minute")
}

// TestRunInterruptedFake: SIGTERM in the window of `plimsoll run` against a fake cluster exits
// 143 and writes result.json marked interrupted, its verdict invalid, and leaves no topic.
func TestRunInterruptedFake(t *testing.T) {
	guardSignals(t)
	c, err := kfake.NewCluster(kfake.NumBrokers(1))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	adm := freshAdmin(t, c.ListenAddrs())
	go interruptWhenLoaded(t, adm, 2*time.Second, syscall.SIGTERM)
	out := filepath.Join(t.TempDir(), "run")
	_, stderr, code := runCLI(t, "run", "--out", out, "--bootstrap", strings.Join(c.ListenAddrs(), ","),
		"--replication-factor", "1", "--rate", "200", "--warmup", "1s", "--duration", "60s")
	if code != ExitSIGTERM || !strings.Contains(stderr, "marked interrupted") {
		t.Fatalf("exit %d, want %d:\n%s", code, ExitSIGTERM, stderr)
	}
	res, err := results.LoadTrialDir(out)
	if err != nil {
		t.Fatal(err)
	}
	if !res.Interrupted || res.Verdict.State != verdict.Invalid || res.Window.MeasuredSeconds <= 0 {
		t.Errorf("interrupted %v, verdict %s, measured %v s", res.Interrupted, res.Verdict.State, res.Window.MeasuredSeconds)
	}
	noTopicsLeft(t, c.ListenAddrs())
}

// noTopicsLeft fails t when the cluster holds a topic or a group (asked by a new client: an
// older one may answer from its metadata cache).
func noTopicsLeft(t *testing.T, addrs []string) {
	t.Helper()
	adm := freshAdmin(t, addrs)
	ts, err := adm.ListTopics(context.Background())
	if err != nil || len(ts) > 0 {
		t.Errorf("topics left: %v (%v)", ts.Names(), err)
	}
	gs, err := adm.ListGroups(context.Background())
	if err != nil || len(gs) > 0 {
		t.Errorf("groups left: %v (%v)", gs.Groups(), err)
	}
}

// freshAdmin is an admin client whose metadata is never older than 100 ms (kadm answers
// ListTopics from the client's cache, by default up to 5 s old).
func freshAdmin(t *testing.T, addrs []string) *kadm.Client {
	cl, err := kgo.NewClient(kgo.SeedBrokers(addrs...), kgo.MetadataMinAge(100*time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(cl.Close)
	return kadm.NewClient(cl)
}
