//go:build !integration

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
	"github.com/plimsoll/plimsoll/fleet"
	"github.com/plimsoll/plimsoll/fleet/fleettest"
	"github.com/plimsoll/plimsoll/results"
	"github.com/plimsoll/plimsoll/verdict"
	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"
)

// TestInterruptibleSignals: SIGINT and SIGTERM end an interruptible context with the signal as
// its cause, and an interruption exits 130 and 143.
func TestInterruptibleSignals(t *testing.T) {
	for _, tc := range []struct {
		sig  syscall.Signal
		code int
	}{{syscall.SIGINT, ExitSIGINT}, {syscall.SIGTERM, ExitSIGTERM}} {
		t.Run(tc.sig.String(), func(t *testing.T) {
			guardSignals(t)
			ctx, cancel := interruptible()
			defer cancel()
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
		})
	}
	guardSignals(t)
	ctx, cancel := interruptible()
	cancel()
	if interruptedBy(ctx) != nil {
		t.Error("a context cancelled by its function counts as interrupted by a signal")
	}
}

// TestNestedInterruptible: a scenario runs its steps as commands in this process, each with an
// interruptible context of its own inside the scenario's. The first SIGINT ends both, and a
// context made afterwards (a step of the clean-up) is ended already; no registration catches
// the second SIGINT, which ends the process at once with 130 and names what is left behind.
func TestNestedInterruptible(t *testing.T) {
	guardSignals(t)
	exits := make(chan int, 1)
	var stderr strings.Builder
	hub.mu.Lock()
	hub.exit, hub.stderr = func(code int) { exits <- code }, &stderr
	hub.mu.Unlock()
	outer, cancelOuter := interruptible()
	defer cancelOuter()
	inner, cancelInner := interruptible()
	defer cancelInner()
	defer hub.leaving("topics under plimsoll-pc-x-")()
	kill(t, syscall.SIGINT)
	for _, ctx := range []context.Context{outer, inner} {
		waitDone(t, ctx)
		if interruptedBy(ctx) != syscall.SIGINT {
			t.Errorf("cause %v, want SIGINT", context.Cause(ctx))
		}
	}
	later, cancelLater := interruptible()
	defer cancelLater()
	if interruptedBy(later) != syscall.SIGINT {
		t.Errorf("a context made after the first signal: cause %v, want SIGINT", context.Cause(later))
	}
	kill(t, syscall.SIGINT)
	select {
	case code := <-exits:
		if code != ExitSIGINT {
			t.Errorf("exit %d, want %d", code, ExitSIGINT)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the second SIGINT did not end the process")
	}
	hub.mu.Lock()
	defer hub.mu.Unlock()
	if !strings.Contains(stderr.String(), "second SIGINT") || !strings.Contains(stderr.String(), "left behind: topics under plimsoll-pc-x-") {
		t.Errorf("stderr %q: want the second signal and what it leaves", stderr.String())
	}
}

// TestInterruptsReceive: what each signal does, by what came before it (fed to receive, no
// real signal sent).
func TestInterruptsReceive(t *testing.T) {
	for _, tc := range []struct {
		name    string
		live    int
		signals []os.Signal
		leave   []string
		// exit is the code the last signal exits with, 0 when none does.
		exit int
		// cancelled says whether the live contexts end, by the first signal.
		cancelled bool
		line      string
	}{
		{"first signal, a command running", 2, []os.Signal{syscall.SIGINT}, nil, 0, true, "SIGINT: stopping"},
		{"second signal", 1, []os.Signal{syscall.SIGINT, syscall.SIGINT}, nil, ExitSIGINT, true, "second SIGINT: quitting at once, without the clean-up"},
		{"SIGTERM after SIGINT", 1, []os.Signal{syscall.SIGINT, syscall.SIGTERM}, nil, ExitSIGTERM, true, "second SIGTERM"},
		{"second signal names what is left", 1, []os.Signal{syscall.SIGTERM, syscall.SIGINT},
			[]string{"topics under plimsoll-ra-x- (delete them with ...)", "the cluster in /tmp/c (stop it with plimsoll cluster down --cluster-dir /tmp/c)"},
			ExitSIGINT, true, "left behind: the cluster in /tmp/c (stop it with plimsoll cluster down --cluster-dir /tmp/c); topics under plimsoll-ra-x- (delete them with ...)"},
		{"nothing running", 0, []os.Signal{syscall.SIGTERM}, nil, ExitSIGTERM, false, "plimsoll: SIGTERM: quitting at once"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var stderr strings.Builder
			exit := 0
			h := newInterrupts(&stderr, func(code int) { exit = code })
			var ctxs []context.Context
			for range tc.live {
				ctx, cancel := h.context()
				defer cancel()
				ctxs = append(ctxs, ctx)
			}
			for _, what := range tc.leave {
				h.leaving(what)
			}
			for _, sig := range tc.signals {
				h.receive(sig)
			}
			if exit != tc.exit {
				t.Errorf("exit %d, want %d", exit, tc.exit)
			}
			for _, ctx := range ctxs {
				if got := interruptedBy(ctx) == tc.signals[0]; got != tc.cancelled {
					t.Errorf("context ended by the first signal: %v, want %v", got, tc.cancelled)
				}
			}
			if !strings.Contains(stderr.String(), tc.line) {
				t.Errorf("stderr %q, want %q in it", stderr.String(), tc.line)
			}
		})
	}
}

// TestInterruptsLeavingDone: a note whose clean-up finished is not named any more.
func TestInterruptsLeavingDone(t *testing.T) {
	var stderr strings.Builder
	h := newInterrupts(&stderr, func(int) {})
	h.leaving("kept")
	h.leaving("removed")()
	h.receive(syscall.SIGINT)
	if got := stderr.String(); !strings.Contains(got, "left behind: kept\n") {
		t.Errorf("stderr %q: want only the note still standing", got)
	}
}

func kill(t *testing.T, sig syscall.Signal) {
	t.Helper()
	if err := syscall.Kill(os.Getpid(), sig); err != nil {
		t.Fatal(err)
	}
}

func waitDone(t *testing.T, ctx context.Context) {
	t.Helper()
	select {
	case <-ctx.Done():
	case <-time.After(10 * time.Second):
		t.Fatal("the signal did not end the context")
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
	fleettest.NoneLeft(t, c)
}

// guardSignals keeps a signal the test sends itself from ending the test binary should it
// arrive when no interruptible context listens (the command already returned), or after the
// first (hub would end the process), and forgets the signal the test caught.
func guardSignals(t *testing.T) {
	ch := make(chan os.Signal, 2)
	signal.Notify(ch, syscall.SIGINT, syscall.SIGTERM)
	hub.mu.Lock()
	exit, stderr := hub.exit, hub.stderr
	hub.exit = func(int) {}
	hub.mu.Unlock()
	t.Cleanup(func() {
		signal.Stop(ch)
		hub.mu.Lock()
		defer hub.mu.Unlock()
		hub.exit, hub.stderr = exit, stderr
		hub.caught.Store(nil)
	})
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
	fleettest.NoneLeft(t, c)
}

// TestRunWorkersInterruptedFake: SIGTERM in the window of `plimsoll run --workers 2` against a
// fake cluster, its two workers `plimsoll worker` commands in this process (so the signal
// interrupts them too, as Ctrl-C does a terminal's --local-workers), exits 143 and writes
// result.json of the seconds merged so far, marked interrupted, its verdict invalid; the
// workers exit on it and no topic or group is left.
func TestRunWorkersInterruptedFake(t *testing.T) {
	if testing.Short() {
		t.Skip("runs loadgen for several seconds")
	}
	guardSignals(t)
	defer func(l fleet.Limits, cl fleet.Limits, lead time.Duration) {
		workerLimits, coordinatorLimits, coordinatorLead = l, cl, lead
	}(workerLimits, coordinatorLimits, coordinatorLead)
	workerLimits = fleet.Limits{Join: 20 * time.Second, Silence: 5 * time.Second, Lag: 4, Find: 20 * time.Second, Poll: 50 * time.Millisecond, Beat: 200 * time.Millisecond}
	coordinatorLimits, coordinatorLead = workerLimits, 6*time.Second
	c, err := kfake.NewCluster(kfake.NumBrokers(1))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	addrs := strings.Join(c.ListenAddrs(), ",")
	outs := make(chan []workerOut, 1)
	go func() { // the workers of the run the coordinator opens, then SIGTERM 3 s into its window
		runID := awaitRunID(t, freshAdmin(t, c.ListenAddrs()))
		wait := startWorkers(t, c, runID, 2)
		time.Sleep(coordinatorLead + 4*time.Second)
		kill(t, syscall.SIGTERM)
		outs <- wait()
	}()
	out := filepath.Join(t.TempDir(), "run")
	_, stderr, code := runCLI(t, "run", "--workers", "2", "--out", out, "--bootstrap", addrs, "--replication-factor", "1",
		"--producers", "2", "--partitions", "2", "--consumers-per-group", "2", "--rate", "200", "--warmup", "1s", "--duration", "60s")
	if code != ExitSIGTERM || !strings.Contains(stderr, "marked interrupted") {
		t.Fatalf("exit %d, want %d:\n%s", code, ExitSIGTERM, stderr)
	}
	for i, o := range <-outs {
		if o.code == ExitOK {
			t.Errorf("worker %d exit 0 after the signal:\n%s", i, o.stderr)
		}
	}
	res, err := results.LoadTrialDir(out)
	if err != nil {
		t.Fatal(err)
	}
	v := res.Verdict
	if !res.Interrupted || v.State != verdict.Invalid || v.Reasons[0].Criterion != verdict.CritInterrupted || res.Window.MeasuredSeconds < 1 || res.Window.MeasuredSeconds > 5 {
		t.Errorf("interrupted %v, verdict %+v, measured %v s; want marked, invalid, interrupted first, 1-5 s", res.Interrupted, v, res.Window.MeasuredSeconds)
	}
	fleettest.NoneLeft(t, c)
}

// awaitRunID is the run id of the run whose control topic appears on the cluster, within a
// minute.
func awaitRunID(t *testing.T, adm *kadm.Client) string {
	for deadline := time.Now().Add(time.Minute); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		ts, err := adm.ListTopics(context.Background())
		if err != nil {
			continue
		}
		for _, name := range ts.Names() {
			if id, ok := strings.CutSuffix(strings.TrimPrefix(name, "plimsoll-"), "-control"); ok {
				return id
			}
		}
	}
	t.Error("no control topic within a minute")
	return ""
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
