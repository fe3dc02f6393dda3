//go:build integration

package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestLimitSearchAndResume runs a short search with the real binary, kills it after its first
// finished trial, resumes it, and checks the boundary and the report.
func TestLimitSearchAndResume(t *testing.T) {
	up(t)
	bin, err := filepath.Abs("../../bin/plimsoll")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(bin); err != nil {
		t.Skipf("%s not built (make test builds it): %v", bin, err)
	}
	out := t.TempDir()
	args := []string{"limit", "--cluster-dir", clusterDir, "--message-sizes", "100,1000", "--tolerance", "0.3",
		"--trial-duration", "6s", "--warmup", "5s", "--out", out, "--drain-timeout", "10s"}

	// First run: killed once a trial has been stored.
	cmd := exec.Command(bin, args...)
	var log bytes.Buffer
	cmd.Stdout, cmd.Stderr = &log, &log
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan struct{})
	go func() { cmd.Wait(); close(exited) }()
	store := filepath.Join(out, "results.jsonl")
	deadline := time.Now().Add(3 * time.Minute)
	for trialsIn(store) < 1 {
		select {
		case <-exited:
			t.Fatalf("plimsoll limit exited before storing a trial:\n%s", log.String())
		case <-time.After(time.Second):
		}
		if time.Now().After(deadline) {
			cmd.Process.Kill()
			t.Fatalf("no trial stored within 3 minutes:\n%s", log.String())
		}
	}
	cmd.Process.Signal(syscall.SIGKILL)
	<-exited
	before := trialsIn(store)

	// Resume to the end.
	res := exec.Command(bin, append(args, "--resume")...)
	stdoutB, err := res.CombinedOutput()
	if err != nil {
		t.Fatalf("resume: %v\n%s", err, stdoutB)
	}
	type point struct {
		Size       int     `json:"size"`
		Safe       float64 `json:"safe_rate"`
		SafeBytes  float64 `json:"safe_bytes_per_sec"`
		Bottleneck string  `json:"bottleneck"`
		Trials     int     `json:"trials"`
	}
	var points []point
	f, _ := os.Open(store)
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	for sc.Scan() {
		var rec struct {
			Kind string          `json:"kind"`
			Data json.RawMessage `json:"data"`
		}
		json.Unmarshal(sc.Bytes(), &rec)
		if rec.Kind == "boundary" {
			var p point
			json.Unmarshal(rec.Data, &p)
			points = append(points, p)
		}
	}
	if len(points) != 2 {
		t.Fatalf("%d boundary points, want 2:\n%s", len(points), stdoutB)
	}
	for i, p := range points {
		t.Logf("%d B: safe %.0f msgs/s (%.0f B/s) after %d trials, bottleneck %s", p.Size, p.Safe, p.SafeBytes, p.Trials, p.Bottleneck)
		if p.Safe <= 0 || p.Bottleneck == "" {
			t.Errorf("point %+v: no safe rate or no bottleneck", p)
		}
		// The search places each boundary within its tolerance (0.3 here), so a drop smaller than
		// that is noise; a larger one means throughput falls with message size.
		if i > 0 && p.SafeBytes < points[i-1].SafeBytes*(1-0.3) {
			t.Errorf("safe MB/s fell from %.0f B/s at %d B to %.0f at %d B", points[i-1].SafeBytes, points[i-1].Size, p.SafeBytes, p.Size)
		}
	}
	html, err := os.ReadFile(filepath.Join(out, "index.html"))
	if err != nil || !strings.Contains(string(html), "<svg") {
		t.Errorf("index.html missing or without charts: %v", err)
	}
	if trialsIn(store) <= before {
		t.Errorf("resume added no trials (%d before, %d after)", before, trialsIn(store))
	}
	// Trials reused on resume count in their point but are not stored twice: the store holds
	// exactly the trials the boundary used, unless the killed trial was in flight (never stored).
	used := 0
	for _, p := range points {
		used += p.Trials
	}
	if stored := trialsIn(store); stored != used {
		t.Errorf("the store holds %d trials but the points used %d: finished trials were re-run or lost", stored, used)
	}
}

// trialsIn counts the finished trials in a results file.
func trialsIn(path string) int {
	data, err := os.ReadFile(path)
	if err != nil {
		return 0
	}
	return strings.Count(string(data), `"kind":"trial"`)
}
