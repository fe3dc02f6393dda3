//go:build !integration

package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/spf13/cobra"
	"github.com/twmb/franz-go/pkg/kfake"
)

// outputCase is a command tried with --json and with --quiet: its arguments (DIR is a fresh
// temporary directory, KAFKA a kfake cluster's bootstrap, SEARCH a recorded limit search's
// directory, AB a recorded A/B experiment's, RUNS_A and RUNS_B two sides of recorded runs) and
// its exit code.
type outputCase struct {
	name string
	args []string
	code int  // -1: a verdict's, 0, 3 or 4 (runs against kfake on a busy host may be judged anything)
	also bool // also with --json and --quiet together
}

var outputCases = []outputCase{
	{"version", []string{"version"}, ExitOK, true},
	{"model", []string{"model", "--brokers", "3", "--replication-factor", "3", "--produce", "100MB/s", "--nic", "1Gbit/s"}, ExitOK, true},
	{"model sizing", []string{"model", "--replication-factor", "3", "--produce", "300MB/s", "--nic", "1Gbit/s", "--brokers-down", "1"}, ExitOK, false},
	{"model bad input", []string{"model", "--nic", "100"}, ExitUsage, false},
	{"report search", []string{"report", "SEARCH"}, ExitOK, true},
	{"report A/B", []string{"report", "AB"}, ExitOK, false},
	{"compare", []string{"compare", "RUNS_A", "RUNS_B"}, ExitSlower, false},
	{"run", []string{"run", "--bootstrap", "KAFKA", "--rate", "100", "--duration", "1s", "--warmup", "0s", "--partitions", "1",
		"--replication-factor", "1", "--out", "DIR/run"}, -1, false},
	{"limit", []string{"limit", "--bootstrap", "KAFKA", "--message-sizes", "100", "--trial-duration", "1s", "--warmup", "0s",
		"--partitions", "1", "--replication-factor", "1", "--min-rate", "100", "--max-rate", "150", "--tolerance", "0.5",
		"--no-hold", "--slo-p99", "0", "--out", "DIR/limit"}, -1, false},
	{"A/B driver", []string{"compare", "--a", "", "--b", "", "--out", "DIR/ab", "--", "run", "--bootstrap", "KAFKA", "--rate", "100",
		"--duration", "1s", "--warmup", "0s", "--partitions", "1", "--replication-factor", "1", "--slo-p99", "0"}, -1, false},
	{"scenario list", []string{"scenario", "list"}, ExitOK, true},
	{"scenario run, bad input", []string{"scenario", "run", "NOPE", "--out", "DIR/s"}, ExitUsage, false},
	{"cluster up, bad input", []string{"cluster", "up", "--cluster-dir", "DIR/c", "--nic", "16"}, ExitUsage, false},
	{"cluster status, no cluster", []string{"cluster", "status", "--cluster-dir", "DIR/c"}, ExitUsage, false},
	{"cluster down, no cluster", []string{"cluster", "down", "--cluster-dir", "DIR/c"}, ExitUsage, false},
	{"cluster kill, no cluster", []string{"cluster", "kill", "2", "--cluster-dir", "DIR/c"}, ExitUsage, false},
	{"cluster pause, no cluster", []string{"cluster", "pause", "2", "--cluster-dir", "DIR/c"}, ExitUsage, false},
	{"cluster resume, no cluster", []string{"cluster", "resume", "2", "--cluster-dir", "DIR/c"}, ExitUsage, false},
	{"cluster restart, no cluster", []string{"cluster", "restart", "2", "--cluster-dir", "DIR/c"}, ExitUsage, false},
	{"cluster cut, no cluster", []string{"cluster", "cut", "2", "--cluster-dir", "DIR/c"}, ExitUsage, false},
	{"cluster reconnect, no cluster", []string{"cluster", "reconnect", "2", "--cluster-dir", "DIR/c"}, ExitUsage, false},
	{"cluster shape, no cluster", []string{"cluster", "shape", "2", "8Mbit/s", "--cluster-dir", "DIR/c"}, ExitUsage, false},
}

// TestOutputFlags runs every command that takes --json and --quiet with each: with --json,
// stdout is one JSON document (empty on an error) and nothing else; with --quiet, stdout is
// empty and stderr holds only errors, hints, warnings and notes, never progress.
func TestOutputFlags(t *testing.T) {
	fake, err := kfake.NewCluster(kfake.NumBrokers(1))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(fake.Close) // after the parallel subtests, unlike a defer
	kafka := strings.Join(fake.ListenAddrs(), ",")
	recorded := recordedDirs(t)
	checkOutputCommandsCovered(t)
	for _, tc := range outputCases {
		modes := [][]string{{"--json"}, {"--quiet"}}
		if tc.also {
			modes = append(modes, []string{"--json", "--quiet"})
		}
		for _, mode := range modes {
			t.Run(tc.name+" "+strings.Join(mode, " "), func(t *testing.T) {
				t.Parallel() // the runs against kfake wait, mostly: 6 s together, 13 s one after another
				subst := strings.NewReplacer("DIR", t.TempDir(), "KAFKA", kafka,
					"SEARCH", recorded["search"], "AB", recorded["ab"], "RUNS_A", recorded["runs a"], "RUNS_B", recorded["runs b"])
				args := withMode(tc.args, mode)
				for i, a := range args {
					args[i] = subst.Replace(a)
				}
				stdout, stderr, code := runCLI(t, args...)
				if code != tc.code && (tc.code != -1 || !judged(code)) {
					t.Fatalf("plimsoll %q: exit %d, want %d\n%s", args, code, tc.code, stderr)
				}
				checkModeOutput(t, mode, stdout, stderr, code)
			})
		}
	}
}

// withMode puts the mode's flags before a "--", where the command's own flags end.
func withMode(args, mode []string) []string {
	out := append([]string{}, args...)
	at := len(out)
	for i, a := range out {
		if a == "--" {
			at = i
			break
		}
	}
	return append(out[:at], append(append([]string{}, mode...), args[at:]...)...)
}

func checkModeOutput(t *testing.T, mode []string, stdout, stderr string, code int) {
	t.Helper()
	asJSON, quiet := strings.Contains(strings.Join(mode, " "), "--json"), strings.Contains(strings.Join(mode, " "), "--quiet")
	switch {
	case asJSON && !judged(code) && stdout != "":
		t.Errorf("stdout holds %q after an error", stdout)
	case asJSON && judged(code):
		dec := json.NewDecoder(strings.NewReader(stdout))
		var v map[string]any
		if err := dec.Decode(&v); err != nil || dec.More() {
			t.Errorf("stdout is not one JSON object (%v):\n%s", err, stdout)
		}
	case quiet && stdout != "":
		t.Errorf("stdout holds %q", stdout)
	}
	if !quiet {
		return
	}
	for _, l := range strings.Split(strings.TrimRight(stderr, "\n"), "\n") {
		if l == "" {
			continue
		}
		if !strings.HasPrefix(l, "plimsoll: ") && !strings.HasPrefix(l, "hint: ") && !strings.HasPrefix(l, "warning: ") && !strings.HasPrefix(l, "note: ") {
			t.Errorf("--quiet printed %q on stderr", l)
		}
	}
}

// judged reports whether a command with this exit code has a result to print: it finished,
// whatever its verdict.
func judged(code int) bool {
	return code == ExitOK || code == ExitOverloaded || code == ExitInvalid || code == ExitSlower
}

// checkOutputCommandsCovered: the commands the project promises --json and --quiet on take
// them, and every command that takes them has a case above.
func checkOutputCommandsCovered(t *testing.T) {
	t.Helper()
	tried := map[string]bool{}
	for _, tc := range outputCases {
		var path []string
		for _, a := range tc.args {
			if strings.HasPrefix(a, "-") || strings.ContainsAny(a, "0123456789") || strings.ToUpper(a) == a {
				break
			}
			path = append(path, a)
		}
		tried["plimsoll "+strings.Join(path, " ")] = true
	}
	opted := map[string]bool{}
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		if _, ok := c.Annotations[outputAnnotation]; ok {
			opted[c.CommandPath()] = true
			if !tried[c.CommandPath()] {
				t.Errorf("%s takes --json and --quiet but TestOutputFlags has no case for it", c.CommandPath())
			}
		}
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(newRootCmd())
	for _, c := range []string{"run", "limit", "compare", "model", "report", "cluster up", "cluster down", "cluster status", "version"} {
		if !opted["plimsoll "+c] {
			t.Errorf("plimsoll %s does not take --json and --quiet", c)
		}
	}
}

// recordedDirs copies recorded results to fresh directories: a limit search (limit's golden
// results.jsonl), an A/B experiment and two sides of runs.
func recordedDirs(t *testing.T) map[string]string {
	t.Helper()
	dirs := map[string]string{"search": filepath.Join(t.TempDir(), "search"), "ab": filepath.Join(t.TempDir(), "ab")}
	data, err := os.ReadFile("../../limit/testdata/search.golden.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(dirs["search"], 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dirs["search"], "results.jsonl"), data, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.CopyFS(dirs["ab"], os.DirFS("../../report/testdata/ab-run")); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	dirs["runs a"], dirs["runs b"] = writeRunDirs(t, filepath.Join(dir, "a"), 4, 1, 1000), writeRunDirs(t, filepath.Join(dir, "b"), 4, 0.8, 1000)
	return dirs
}

// The quiet writer keeps warnings and notes whole, however they arrive, and drops the rest; a
// carriage return starts the line again, as on a terminal.
func TestQuietWriter(t *testing.T) {
	var b bytes.Buffer
	q := &quietWriter{w: &b}
	for _, s := range []string{"starting\n", "progress", "\r", "warn", "ing: a\nnote: b\n", "resolving\nwarning: c\n", "trial 1\r"} {
		if n, err := q.Write([]byte(s)); n != len(s) || err != nil {
			t.Fatalf("Write(%q) = %d, %v", s, n, err)
		}
	}
	if got, want := b.String(), "warning: a\nnote: b\nwarning: c\n"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}
