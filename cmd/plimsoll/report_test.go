//go:build !integration

package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestReportCmd: report on an A/B experiment's directory writes its page (or prints its text);
// a directory with neither a limit search nor an A/B experiment is bad input naming both files.
func TestReportCmd(t *testing.T) {
	ab := filepath.Join(t.TempDir(), "ab")
	if err := os.CopyFS(ab, os.DirFS("../../report/testdata/ab-run")); err != nil {
		t.Fatal(err)
	}
	empty := t.TempDir()
	for _, tc := range []struct {
		name string
		args []string
		code int
		out  []string // in stdout
		err  []string // in stderr
	}{
		{"ab html", []string{"report", ab}, 0, []string{"wrote " + filepath.Join(ab, "index.html")}, nil},
		{"ab text", []string{"report", "--text", ab}, 0, []string{"A/B experiment (run)", "arm B: producer:linger.ms=20", "verdict: B is slower than A"}, nil},
		{"neither", []string{"report", empty}, ExitUsage, nil,
			[]string{filepath.Join(empty, "results.jsonl") + " not found, nor " + filepath.Join(empty, "manifest.json"), "plimsoll limit --out", "plimsoll compare --a/--b --out"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			stdout, stderr, code := runCLI(t, tc.args...)
			if code != tc.code {
				t.Fatalf("exit %d, want %d; stderr:\n%s", code, tc.code, stderr)
			}
			for _, w := range tc.out {
				if !strings.Contains(stdout, w) {
					t.Errorf("stdout lacks %q:\n%s", w, stdout)
				}
			}
			for _, w := range tc.err {
				if !strings.Contains(stderr, w) {
					t.Errorf("stderr lacks %q:\n%s", w, stderr)
				}
			}
		})
	}
	html, err := os.ReadFile(filepath.Join(ab, "index.html"))
	if err != nil {
		t.Fatal(err)
	}
	if s := string(html); strings.Count(s, "<svg") != 2 || !strings.Contains(s, "<h2>Statistics</h2>") {
		t.Errorf("index.html lacks the charts or the table (%d bytes)", len(html))
	}
}

// TestWriteABPage: the driver's page is plimsoll report's; an experiment that cannot be
// rendered is a warning naming the way to try again, not a failure.
func TestWriteABPage(t *testing.T) {
	ab := filepath.Join(t.TempDir(), "ab")
	if err := os.CopyFS(ab, os.DirFS("../../report/testdata/ab-run")); err != nil {
		t.Fatal(err)
	}
	var log strings.Builder
	if got, want := writeABPage(ab, &log), filepath.Join(ab, "index.html"); got != want || log.Len() > 0 {
		t.Errorf("page %q (log %q), want %q", got, log.String(), want)
	}
	if _, err := os.Stat(filepath.Join(ab, "index.html")); err != nil {
		t.Error(err)
	}
	if err := os.Remove(filepath.Join(ab, "compare.json")); err != nil {
		t.Fatal(err)
	}
	log.Reset()
	if got := writeABPage(ab, &log); got != "" || !strings.Contains(log.String(), "plimsoll report "+ab+" tries again") {
		t.Errorf("page %q, log %q", got, log.String())
	}
}
