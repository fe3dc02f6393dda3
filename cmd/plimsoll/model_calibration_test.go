//go:build !integration

package main

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/plimsoll/plimsoll/limit"
	"github.com/plimsoll/plimsoll/results"
	"github.com/plimsoll/plimsoll/verdict"
	"github.com/plimsoll/plimsoll/workload"
)

func TestModelCalibration(t *testing.T) {
	dir := t.TempDir()
	store := filepath.Join(dir, limit.StoreName)
	cfg := results.Config{Spec: workload.Default(), Brokers: 3, ReplicationFactor: 3, Partitions: 30, NICBytesPerSec: 2e6,
		Criteria: verdict.Criteria{PublishP99SLOMs: 1000}}
	if err := results.Append(store, results.KindSearch, "", results.Search{Sizes: []int{100, 1000}, Config: &cfg}); err != nil {
		t.Fatal(err)
	}
	for i, x := range []struct {
		size      int
		load, p99 float64
	}{{100, 0.7, 500}, {100, 0.8, 2000}, {1000, 0.7, 800}, {1000, 0.8, 1250}} {
		tr := results.Trial{Step: &results.Step{Seq: i + 1, Size: x.size, Rate: x.load * limit.Predict(cfg, x.size).MsgsPerSec},
			Verdict: verdict.Verdict{State: verdict.OK, Ceiling: verdict.OK}}
		tr.Latency.Publish.P99 = x.p99
		if err := results.Append(store, results.KindTrial, "", tr); err != nil {
			t.Fatal(err)
		}
	}
	out, stderr, code := runCLI(t, "model", "--calibration", dir, "--message-size", "4096")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, want := range []string{"reaches 1000 ms at 75% of the model's ceiling", "100 B", "1 KB", "4 KiB"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	// A directory without a search, and a search without an SLO, are bad input.
	if _, stderr, code := runCLI(t, "model", "--calibration", t.TempDir()); code != ExitUsage || !strings.Contains(stderr, "plimsoll limit --out") {
		t.Errorf("no search: exit %d, %s", code, stderr)
	}
}
