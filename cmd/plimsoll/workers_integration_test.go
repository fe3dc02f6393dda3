//go:build integration

package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// workersArgs is `run --local-workers 3` on the shared cluster, a small load each worker's
// share of which a loaded 2-core host keeps up with.
func workersArgs(out, duration string) []string {
	return []string{"run", "--cluster-dir", clusterDir, "--local-workers", "3", "--producers", "3", "--partitions", "6",
		"--consumers-per-group", "3", "--rate", "1500", "--message-size", "512", "--warmup", "3s", "--duration", duration, "--out", out}
}

// workersResult is what the test reads of result.json.
type workersResult struct {
	RunID  string `json:"run_id"`
	Counts struct {
		Sent, Acked, Consumed, Lost, Duplicated int64
	} `json:"counts"`
	Verdict struct {
		State   string `json:"state"`
		Reasons []struct {
			Criterion, Text string
		} `json:"reasons"`
		Skipped []string `json:"skipped"`
	} `json:"verdict"`
	Notes   []string        `json:"notes"`
	Workers []workersWorker `json:"workers"`
	Client  struct {
		WindowLimit int   `json:"window_limit"`
		Batches     int64 `json:"batches"`
	} `json:"client"`
	Timeline []workersSecond `json:"timeline"`
}

// workersWorker is what the test reads of a worker's process and host.
type workersWorker struct {
	Worker          int      `json:"worker"`
	Host            string   `json:"host"`
	BootID          string   `json:"boot_id"`
	CPU             *float64 `json:"cpu_cores"`
	SchedLatencyP99 *float64 `json:"sched_latency_p99_s"`
}

// workersHosts fails t unless each of r's n workers records its CPU and its Go scheduler's
// latency (which the verdict judged, not skipped) and ran on this machine, beside the local
// brokers, as a note says.
func workersHosts(t *testing.T, r workersResult, n int) {
	t.Helper()
	host, _ := os.Hostname()
	boot, _ := os.ReadFile("/proc/sys/kernel/random/boot_id")
	if len(r.Workers) != n {
		t.Fatalf("workers %+v, want %d", r.Workers, n)
	}
	for i, w := range r.Workers {
		if w.Worker != i || w.CPU == nil || w.SchedLatencyP99 == nil || w.Host != host || w.BootID != strings.TrimSpace(string(boot)) {
			t.Errorf("worker %+v, want index %d, its CPU and scheduler p99, host %s, boot id %s", w, i, host, boot)
		} else {
			t.Logf("worker %d: %.2f cores, scheduler p99 %.3f ms, host %s", i, *w.CPU, 1000**w.SchedLatencyP99, w.Host)
		}
	}
	for _, s := range r.Verdict.Skipped {
		if strings.Contains(s, "Go scheduler") {
			t.Errorf("the scheduler criterion skipped: %s", s)
		}
	}
	if !slices.ContainsFunc(r.Notes, func(n string) bool { return strings.Contains(n, "ran on the machine of the local brokers") }) {
		t.Errorf("no note on the workers beside the local brokers in %q", r.Notes)
	}
}

// workersSecond is what the test reads of a timeline row.
type workersSecond struct {
	Phase    string  `json:"phase"`
	CPUShare float64 `json:"cpu_share"`
}

// mergedClientFigures fails t unless r's merged figures include the producers' window (its limit
// and the batches written in the window) and, in the window's seconds, the busiest worker's CPU.
func mergedClientFigures(t *testing.T, r workersResult) {
	t.Helper()
	cpu := slices.ContainsFunc(r.Timeline, func(s workersSecond) bool { return s.Phase == "measure" && s.CPUShare > 0 })
	if r.Client.WindowLimit == 0 || r.Client.Batches == 0 || !cpu {
		t.Errorf("client window limit %d, batches %d, a measured second with the busiest worker's cpu_share: %v; want the workers' figures merged",
			r.Client.WindowLimit, r.Client.Batches, cpu)
	}
}

func readWorkersResult(t *testing.T, out string) workersResult {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(out, "result.json"))
	if err != nil {
		t.Fatal(err)
	}
	var r workersResult
	if err := json.Unmarshal(b, &r); err != nil {
		t.Fatal(err)
	}
	return r
}

// doneLine is a worker's last line: its window's counts.
var doneLine = regexp.MustCompile(`worker (\d+) done: (\d+) sent, (\d+) acknowledged, (\d+) consumed in the window`)

// workersSum sums the counts each worker's log reports.
func workersSum(t *testing.T, dir string, n int) (sent, acked, consumed int64) {
	t.Helper()
	for i := range n {
		b, err := os.ReadFile(filepath.Join(dir, fmt.Sprintf("worker-%d.log", i)))
		if err != nil {
			t.Fatal(err)
		}
		m := doneLine.FindSubmatch(b)
		if m == nil {
			t.Fatalf("worker %d's log has no done line:\n%s", i, b)
		}
		v := func(k int) int64 { x, _ := strconv.ParseInt(string(m[k]), 10, 64); return x }
		sent, acked, consumed = sent+v(2), acked+v(3), consumed+v(4)
	}
	return sent, acked, consumed
}

// noRunTopics fails when a topic under the run's prefix is still listed 15 s after the run
// (topicsLeft: the controller commits a deletion before every broker applies it).
func noRunTopics(t *testing.T, runID string) {
	t.Helper()
	for _, n := range topicsLeft(t, up(t), "plimsoll-"+runID+"-") {
		t.Errorf("topic %s left after the run", n)
	}
}

// TestLocalWorkers: `run --local-workers 3` on the real cluster exits 0 and its result.json
// holds the sum of the workers' counts, none lost or duplicated, and each worker's CPU, Go
// scheduler latency and host (this one, beside the brokers: a note); a second run whose worker 1
// the test kills mid-run is invalid, worker-lost naming it, and leaves no topic of its run.
func TestLocalWorkers(t *testing.T) {
	up(t)
	bin := plimsollBinary(t)
	dir := t.TempDir()

	out := filepath.Join(dir, "ok")
	begin := time.Now()
	stdout, code := runBinary(bin, workersArgs(out, "15s")...)
	t.Logf("run --local-workers 3: exit %d in %s", code, time.Since(begin).Round(time.Second))
	if code != ExitOK {
		t.Fatalf("exit %d:\n%s", code, stdout)
	}
	r := readWorkersResult(t, out)
	sent, acked, consumed := workersSum(t, filepath.Join(out, "workers"), 3)
	t.Logf("result.json: %+v; the workers' sum: sent %d, acked %d, consumed %d", r.Counts, sent, acked, consumed)
	if r.Counts.Sent != sent || r.Counts.Acked != acked || r.Counts.Consumed != consumed || r.Counts.Lost != 0 || r.Counts.Duplicated != 0 || sent == 0 {
		t.Errorf("result.json counts %+v, the workers' sum sent %d, acked %d, consumed %d; want equal, none lost or duplicated", r.Counts, sent, acked, consumed)
	}
	mergedClientFigures(t, r)
	workersHosts(t, r, 3)
	noRunTopics(t, r.RunID)

	out = filepath.Join(dir, "killed")
	begin = time.Now()
	// The killed worker's group members stay until their session times out, and the clean-up
	// waits for that to delete the groups: Kafka's least session (6 s) instead of the 45 s
	// default keeps the wait short.
	cmd := exec.Command(bin, append(workersArgs(out, "40s"), "--consumer-prop", "session.timeout.ms=6000")...)
	var buf bytes.Buffer
	cmd.Stdout, cmd.Stderr = &buf, &buf
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	killMidRun(t, filepath.Join(out, "workers", "worker-1.log"), cmd.Process.Pid)
	err := cmd.Wait()
	code = cmd.ProcessState.ExitCode()
	t.Logf("run with worker 1 killed: exit %d (%v) in %s", code, err, time.Since(begin).Round(time.Second))
	if code != ExitInvalid {
		t.Fatalf("exit %d, want %d (invalid):\n%s", code, ExitInvalid, buf.String())
	}
	r = readWorkersResult(t, out)
	if r.Verdict.State != "invalid" || len(r.Verdict.Reasons) == 0 || r.Verdict.Reasons[0].Criterion != "worker-lost" || !strings.Contains(r.Verdict.Reasons[0].Text, "worker 1") {
		t.Errorf("verdict %+v; want invalid, worker-lost naming worker 1", r.Verdict)
	}
	t.Logf("verdict: %+v", r.Verdict.Reasons[0])
	noRunTopics(t, r.RunID)
}

// joinedLine is a worker's first line, with the plan's start.
var joinedLine = regexp.MustCompile(`joined run \S+: .* from (\S+)`)

// killMidRun waits for worker 1 (a child of parent) to join, then SIGKILLs it 8 s after the
// plan's start, its load running.
func killMidRun(t *testing.T, log string, parent int) {
	t.Helper()
	deadline := time.Now().Add(2 * time.Minute)
	var start time.Time
	for start.IsZero() {
		if time.Now().After(deadline) {
			t.Fatal("worker 1 never joined")
		}
		time.Sleep(200 * time.Millisecond)
		b, _ := os.ReadFile(log)
		if m := joinedLine.FindSubmatch(b); m != nil {
			start, _ = time.Parse(time.RFC3339Nano, string(m[1]))
		}
	}
	time.Sleep(time.Until(start.Add(8 * time.Second)))
	pid := childWithIndex(t, parent, "1")
	if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	t.Logf("killed worker 1, pid %d, %s after the plan's start", pid, time.Since(start).Round(time.Millisecond))
}

// childWithIndex is the pid of parent's child `plimsoll worker ... --index index`.
func childWithIndex(t *testing.T, parent int, index string) int {
	t.Helper()
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		stat, _ := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		fields := strings.Fields(string(stat[bytes.LastIndexByte(stat, ')')+1:]))
		if len(fields) < 2 || fields[1] != strconv.Itoa(parent) {
			continue
		}
		cmdline, _ := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		args := strings.Split(string(cmdline), "\x00")
		for i := 0; i+1 < len(args); i++ {
			if args[i] == "--index" && args[i+1] == index {
				return pid
			}
		}
	}
	t.Fatalf("no child of %d with --index %s", parent, index)
	return 0
}

// trialRunID is the run id a trial's result.json records.
func trialRunID(t *testing.T, file string) string {
	t.Helper()
	b, err := os.ReadFile(file)
	var r struct {
		RunID string `json:"run_id"`
	}
	if err != nil || json.Unmarshal(b, &r) != nil || r.RunID == "" {
		t.Fatalf("%s: no run id (%v)", file, err)
	}
	return r.RunID
}

// TestLimitLocalWorkers: `limit --local-workers 2` runs each trial over two children: every
// trial's result.json says it was merged from 2 workers' reports, each trial has its workers'
// logs, and no topic of the search is left. The start rate is the maximum, so the search is one
// trial: a second (the bracket's step) cost the suite 25 s and exercised nothing more of the
// workers.
func TestLimitLocalWorkers(t *testing.T) {
	up(t)
	bin := plimsollBinary(t)
	out := filepath.Join(t.TempDir(), "lim")
	adm, _ := admin(t, strings.Join(up(t).Target().Bootstrap, ","))
	before, err := listPrefixed(adm, "plimsoll-")
	if err != nil {
		t.Fatal(err)
	}
	begin := time.Now()
	stdout, code := runBinary(bin, "limit", "--cluster-dir", clusterDir, "--local-workers", "2", "--producers", "2", "--partitions", "4",
		"--consumers-per-group", "2", "--message-sizes", "1000", "--start-rate", "1000", "--min-rate", "500", "--max-rate", "1000",
		"--tolerance", "1", "--trial-duration", "5s", "--warmup", "2s", "--no-hold", "--no-report", "--out", out)
	t.Logf("limit --local-workers 2: exit %d in %s", code, time.Since(begin).Round(time.Second))
	if code != ExitOK {
		t.Fatalf("exit %d:\n%s", code, stdout)
	}
	trials, _ := filepath.Glob(filepath.Join(out, "trials", "*", "result.json"))
	logs, _ := filepath.Glob(filepath.Join(out, "workers", "*", "worker-1.log"))
	if len(trials) == 0 || len(logs) < len(trials) {
		t.Fatalf("%d trials, %d trials' worker logs:\n%s", len(trials), len(logs), stdout)
	}
	for _, f := range trials {
		b, err := os.ReadFile(f)
		if err != nil || !bytes.Contains(b, []byte("merged from the reports of 2 workers")) {
			t.Errorf("%s: not merged from 2 workers (%v)", f, err)
		}
	}
	// Each trial is a run under its own prefix; the shared cluster holds other tests' topics
	// under plimsoll- on purpose (names beside a run's prefix that plimsoll must not delete).
	for _, f := range trials {
		noRunTopics(t, trialRunID(t, f))
	}
	for _, n := range newTopics(adm, "plimsoll-", before, 0) {
		if !slices.ContainsFunc(trials, func(f string) bool { return strings.HasPrefix(n, "plimsoll-"+trialRunID(t, f)+"-") }) {
			t.Errorf("topic %s, not listed before the search, left after it", n)
		}
	}
	t.Logf("%d trials, each over 2 local workers", len(trials))
}

// TestLimitWorkersFollow: `limit --workers 2` with two `plimsoll worker --search` processes
// started from the lines it prints, as a user starts them on other hosts: the workers arrive,
// follow the search's one trial (the start rate is the maximum) and exit 0 at its end; the
// trial's result is merged from both, with a note that both ran on one machine (this one); no
// topic of the search (its search topic, its trial's run) is left.
func TestLimitWorkersFollow(t *testing.T) {
	up(t)
	bin := plimsollBinary(t)
	out := filepath.Join(t.TempDir(), "lim")
	begin := time.Now()
	limit := exec.Command(bin, "limit", "--cluster-dir", clusterDir, "--workers", "2", "--producers", "2", "--partitions", "4",
		"--consumers-per-group", "2", "--message-sizes", "1000", "--start-rate", "1000", "--min-rate", "500", "--max-rate", "1000",
		"--tolerance", "1", "--trial-duration", "5s", "--warmup", "2s", "--no-hold", "--no-report", "--out", out)
	stderr, err := limit.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stdout bytes.Buffer
	limit.Stdout = &stdout
	if err := limit.Start(); err != nil {
		t.Fatal(err)
	}
	lines, logged := workerLinesFrom(t, stderr, 2)
	workers := make([]*exec.Cmd, len(lines))
	outs := make([]bytes.Buffer, len(lines))
	for i, l := range lines {
		f := strings.Fields(l) // the printed line, its program this test's binary
		workers[i] = exec.Command(bin, f[1:]...)
		workers[i].Stdout, workers[i].Stderr = &outs[i], &outs[i]
		if err := workers[i].Start(); err != nil {
			t.Fatal(err)
		}
	}
	err = limit.Wait()
	t.Logf("limit --workers 2: %v in %s\n%s%s", err, time.Since(begin).Round(time.Second), logged(), stdout.String())
	for i, w := range workers {
		werr := w.Wait()
		t.Logf("worker %d: %v\n%s", i, werr, outs[i].String())
		if werr != nil || !strings.Contains(outs[i].String(), "the search is over") {
			t.Errorf("worker %d: %v; want exit 0 at the search's end", i, werr)
		}
	}
	if err != nil {
		t.Fatalf("limit: %v", err)
	}
	trials, _ := filepath.Glob(filepath.Join(out, "trials", "*", "result.json"))
	if len(trials) == 0 {
		t.Fatal("no trial written")
	}
	for _, f := range trials {
		b, err := os.ReadFile(f)
		if err != nil || !bytes.Contains(b, []byte("merged from the reports of 2 workers")) {
			t.Errorf("%s: not merged from 2 workers (%v)", f, err)
		}
		// Workers you start are meant for separate machines: both ran on this one, which a note says.
		if !bytes.Contains(b, []byte("workers 0, 1 ran on one machine")) {
			t.Errorf("%s: no note on the two workers sharing this machine", f)
		}
		noRunTopics(t, trialRunID(t, f))
	}
	noRunTopics(t, strings.TrimSuffix(trialRunID(t, trials[0]), "-t1"))
}

// workerLinesFrom reads limit's stderr until the n worker lines it prints, and keeps reading it
// into a buffer (logged returns it) so that limit never blocks on a full pipe.
func workerLinesFrom(t *testing.T, r io.Reader, n int) (lines []string, logged func() string) {
	t.Helper()
	var mu sync.Mutex
	var all bytes.Buffer
	found := make(chan []string, 1)
	go func() {
		sc := bufio.NewScanner(r)
		var ls []string
		for sc.Scan() {
			l := sc.Text()
			mu.Lock()
			all.WriteString(l + "\n")
			mu.Unlock()
			if w := strings.TrimSpace(l); strings.HasPrefix(w, "plimsoll worker --search ") && len(ls) < n {
				if ls = append(ls, w); len(ls) == n {
					found <- ls
				}
			}
		}
		close(found)
	}()
	select {
	case ls, ok := <-found:
		if !ok {
			t.Fatalf("limit printed no worker lines:\n%s", all.String())
		}
		lines = ls
	case <-time.After(2 * time.Minute):
		t.Fatal("limit printed no worker lines in 2 minutes")
	}
	return lines, func() string { mu.Lock(); defer mu.Unlock(); return all.String() }
}
