//go:build !integration

package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/plimsoll/plimsoll/omb"
	"github.com/plimsoll/plimsoll/results"
)

// ombRun is omb's recorded run; ombGolden its export.
const (
	ombRun    = "../../omb/testdata/run"
	ombGolden = "../../omb/testdata/run.omb.golden.json"
)

// copyRun copies the recorded run's files into dir.
func copyRun(t *testing.T, dir string) {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{results.ResultFile, results.HDRLogFile} {
		b, err := os.ReadFile(filepath.Join(ombRun, f))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, f), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// TestExportRun exports a run's directory: the file is omb's golden export, byte for byte,
// at DIR/omb-result.json or at --out; report renders it beside itself.
func TestExportRun(t *testing.T) {
	dir := t.TempDir()
	copyRun(t, dir)
	want, err := os.ReadFile(ombGolden)
	if err != nil {
		t.Fatal(err)
	}
	stdout, stderr, code := runCLI(t, "export", "--format", "omb", dir)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	got, err := os.ReadFile(filepath.Join(dir, omb.RunFile))
	if err != nil || !bytes.Equal(got, want) {
		t.Errorf("%s differs from %s (%v)", omb.RunFile, ombGolden, err)
	}
	if !strings.Contains(stdout, "wrote "+filepath.Join(dir, omb.RunFile)+": 3 windows of 10 s\n") {
		t.Errorf("stdout %q", stdout)
	}
	out := filepath.Join(t.TempDir(), "kafka.json")
	if _, stderr, code := runCLI(t, "export", "--format", "omb", "--workload-name", "base", "--driver-name", "Kafka 4.1", "--out", out, dir); code != 0 {
		t.Fatalf("--out: exit %d: %s", code, stderr)
	}
	r, err := omb.ReadFile(out)
	if err != nil || r.Workload != "base" || r.Driver != "Kafka 4.1" {
		t.Errorf("--out %s: %v, workload %q driver %q", out, err, r.Workload, r.Driver)
	}
	stdout, stderr, code = runCLI(t, "report", out)
	if code != 0 || !strings.Contains(stdout, "wrote "+strings.TrimSuffix(out, ".json")+".html") {
		t.Fatalf("report: exit %d: %s%s", code, stdout, stderr)
	}
	if page, err := os.ReadFile(strings.TrimSuffix(out, ".json") + ".html"); err != nil || !bytes.Contains(page, []byte("OMB result: base (Kafka 4.1)")) {
		t.Errorf("the page: %v", err)
	}
}

// TestExportSearch exports a limit search: one file per trial in DIR/omb; a trial whose files
// were not written is skipped and said so.
func TestExportSearch(t *testing.T) {
	dir := t.TempDir()
	copyRun(t, filepath.Join(dir, "trials", "001"))
	tr, err := results.LoadTrialDir(filepath.Join(dir, "trials", "001"))
	if err != nil {
		t.Fatal(err)
	}
	store := filepath.Join(dir, "results.jsonl")
	if err := results.Append(store, results.KindSearch, "", results.Search{Sizes: []int{512}}); err != nil {
		t.Fatal(err)
	}
	for i, d := range []string{filepath.Join("trials", "001"), ""} {
		x := *tr
		x.Dir, x.Step = d, &results.Step{Seq: i + 1, Size: 512, Rate: 2000, Phase: results.PhaseBracket, Attempt: 1}
		if err := results.Append(store, results.KindTrial, "", x); err != nil {
			t.Fatal(err)
		}
	}
	stdout, stderr, code := runCLI(t, "export", "--format", "omb", dir)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	first := filepath.Join(dir, omb.SearchDir, "trial-001-512b-2000msgs.json")
	if !strings.Contains(stdout, "wrote "+first+": 3 windows") || !strings.Contains(stdout, "skipped "+filepath.Join(dir, omb.SearchDir, "trial-002-512b-2000msgs.json")+": its files") {
		t.Errorf("stdout %q", stdout)
	}
	b, err := os.ReadFile(first)
	if err != nil {
		t.Fatal(err)
	}
	var r omb.Result
	if err := json.Unmarshal(b, &r); err != nil || len(r.PublishRate) != 3 {
		t.Errorf("%s: %v, %d windows", first, err, len(r.PublishRate))
	}
	entries, _ := os.ReadDir(filepath.Join(dir, omb.SearchDir))
	if len(entries) != 1 {
		t.Errorf("%d files in %s, want 1 (no temporary file left)", len(entries), omb.SearchDir)
	}
}
