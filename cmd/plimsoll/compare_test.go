//go:build !integration

package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/plimsoll/plimsoll/loadgen"
	"github.com/plimsoll/plimsoll/loadgen/hdr"
	"github.com/plimsoll/plimsoll/results"
	"github.com/plimsoll/plimsoll/workload"
)

// syntheticRun is a run at speed times 10,000 msgs/s (its latency 1/speed of 2 ms), varied a
// little by rep.
func syntheticRun(speed float64, rep, size int) *results.Trial {
	jit := 1 + 0.002*float64(rep)
	t := &results.Trial{KafkaVersion: "4.1.0"}
	spec := workload.Default()
	spec.Rate, spec.MessageSize = 10000, size
	t.Config = loadgen.Config{Spec: spec, Brokers: 3, Topics: []string{"t"}, Partitions: 6, ReplicationFactor: 3}
	rate := 10000 * speed * jit
	t.ProducedMsgsPerSec, t.ConsumedMsgsPerSec, t.TargetMsgsPerSec = rate, rate, 10000
	t.Window = loadgen.Window{Start: time.Date(2026, 11, 25, 12, 0, 0, 0, time.UTC), MeasuredSeconds: 10}
	pub := hdr.New()
	for i := range 1000 {
		pub.Record(int64(2e6 / speed * jit * (1 + float64(i%50)/100)))
	}
	t.Histograms = loadgen.Histograms{Publish: pub, EndToEnd: pub}
	var rows []loadgen.Second
	for i := range 10 {
		rows = append(rows, loadgen.Second{T: float64(i + 1), Phase: loadgen.PhaseMeasure,
			ProducedMsgsPerSec: rate * (1 + 0.001*float64(i)), ConsumedMsgsPerSec: rate})
	}
	t.Timeline = loadgen.TimelineOf(rows...)
	t.CPU = map[string]float64{"broker 1": 0.5}
	return t
}

// writeRunDirs writes n repetitions of a run under dir and returns them comma-separated.
func writeRunDirs(t *testing.T, dir string, n int, speed float64, size int) string {
	t.Helper()
	var out []string
	for i := range n {
		d := filepath.Join(dir, strconv.Itoa(i+1))
		if err := results.WriteTrialDir(d, syntheticRun(speed, i, size)); err != nil {
			t.Fatal(err)
		}
		out = append(out, d)
	}
	return strings.Join(out, ",")
}

// tree lists every file under dir, to check that compare wrote nothing.
func tree(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	if err := filepath.Walk(dir, func(p string, _ os.FileInfo, err error) error {
		out = append(out, p)
		return err
	}); err != nil {
		t.Fatal(err)
	}
	return out
}

func TestCompareCLI(t *testing.T) {
	dir := t.TempDir()
	base := writeRunDirs(t, filepath.Join(dir, "base"), 4, 1, 1024)
	slower := writeRunDirs(t, filepath.Join(dir, "slower"), 4, 0.9, 1024)
	faster := writeRunDirs(t, filepath.Join(dir, "faster"), 4, 1.1, 1024)
	small := writeRunDirs(t, filepath.Join(dir, "small"), 1, 1, 100)
	empty := filepath.Join(dir, "empty")
	search := filepath.Join(dir, "search")
	if err := os.MkdirAll(empty, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := results.Append(filepath.Join(search, "results.jsonl"), results.KindSearch, "", results.Search{Sizes: []int{1024}}); err != nil {
		t.Fatal(err)
	}
	before := tree(t, dir)
	for _, c := range []struct {
		name     string
		args     []string
		code     int
		stdout   []string
		stderr   []string
		noStdout bool
	}{
		{"same", []string{base, base}, ExitOK, []string{"verdict: no significant difference", "produced", "publish latency p99.9"}, nil, false},
		{"slower", []string{base, slower}, ExitSlower, []string{"verdict: B is slower than A: produced -10.0%", "slower"}, nil, false},
		{"faster", []string{base, faster}, ExitOK, []string{"verdict: B is faster than A"}, nil, false},
		{"one each: seconds", []string{strings.Split(base, ",")[0], strings.Split(slower, ",")[0]}, ExitSlower, []string{"(seconds)"}, nil, false},
		{"two each: too few", []string{strings.Join(strings.Split(base, ",")[:2], ","), strings.Join(strings.Split(slower, ",")[:2], ",")},
			ExitOK, []string{"give at least 4 repetitions a side", "needs 4 a side"}, nil, false},
		{"missing", []string{base, filepath.Join(dir, "nope")}, ExitUsage, nil, []string{"B: " + filepath.Join(dir, "nope") + ": no such file", "hint: give directories"}, true},
		{"neither", []string{empty, base}, ExitUsage, nil, []string{"A: " + empty + ": neither a run", "hint:"}, true},
		{"kinds", []string{base, search}, ExitUsage, nil, []string{"different kinds: A holds runs, B limit searches"}, true},
		{"mixed", []string{base + "," + search, base}, ExitUsage, nil, []string{"runs and limit searches mixed"}, true},
		{"workloads", []string{base, small}, ExitUsage, nil, []string{"different workloads", "spec.message-size: 1024 vs 100", "--force"}, true},
		{"forced", []string{"--force", base, small}, ExitOK, []string{"compared anyway (--force)", "spec.message-size: 1024 vs 100"}, nil, false},
		{"empty location", []string{base + ",", base}, ExitUsage, nil, []string{"location 5 is empty"}, true},
		{"alpha", []string{"--alpha", "2", base, base}, ExitUsage, nil, []string{"--alpha 2", "between 0 and 1"}, true},
		{"threshold", []string{"--threshold", "-0.1", base, base}, ExitUsage, nil, []string{"--threshold -0.1"}, true},
		{"one argument", []string{base}, ExitUsage, nil, []string{"accepts 2 arg(s)"}, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			stdout, stderr, code := runCLI(t, append([]string{"compare"}, c.args...)...)
			if code != c.code {
				t.Fatalf("exit %d, want %d\nstdout:\n%s\nstderr:\n%s", code, c.code, stdout, stderr)
			}
			for _, s := range c.stdout {
				if !strings.Contains(stdout, s) {
					t.Errorf("stdout lacks %q:\n%s", s, stdout)
				}
			}
			for _, s := range c.stderr {
				if !strings.Contains(stderr, s) {
					t.Errorf("stderr lacks %q:\n%s", s, stderr)
				}
			}
			if c.noStdout && stdout != "" {
				t.Errorf("stdout on an error:\n%s", stdout)
			}
		})
	}
	if after := tree(t, dir); strings.Join(after, "\n") != strings.Join(before, "\n") {
		t.Errorf("compare changed the result directories:\nbefore %q\nafter %q", before, after)
	}
}

func TestCompareJSON(t *testing.T) {
	dir := t.TempDir()
	base := writeRunDirs(t, filepath.Join(dir, "base"), 4, 1, 1024)
	slower := writeRunDirs(t, filepath.Join(dir, "slower"), 4, 0.9, 1024)
	stdout, stderr, code := runCLI(t, "compare", "--json", base, slower)
	if code != ExitSlower {
		t.Fatalf("exit %d, want %d: %s", code, ExitSlower, stderr)
	}
	var doc struct {
		Kind    string `json:"kind"`
		Verdict string `json:"verdict"`
		Figures []struct {
			Name    string   `json:"name"`
			Verdict string   `json:"verdict"`
			P       *float64 `json:"p"`
		} `json:"figures"`
		Summary string `json:"summary"`
	}
	if err := json.Unmarshal([]byte(stdout), &doc); err != nil {
		t.Fatalf("%v:\n%s", err, stdout)
	}
	if doc.Kind != "run" || doc.Verdict != "slower" || len(doc.Figures) == 0 || doc.Figures[0].Name != "produced" ||
		doc.Figures[0].Verdict != "slower" || doc.Figures[0].P == nil || !strings.HasPrefix(doc.Summary, "verdict: B is slower") {
		t.Errorf("unexpected JSON:\n%s", stdout)
	}
}

func FuzzLocations(f *testing.F) {
	for _, s := range []string{"a", "a,b", "a,,b", ",", " a , b ", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, arg string) {
		locs, err := locations("A", arg)
		if err != nil {
			if !strings.Contains(err.Error(), "is empty") {
				t.Errorf("%q: %v", arg, err)
			}
			return
		}
		if len(locs) != strings.Count(arg, ",")+1 {
			t.Errorf("%q: %d locations", arg, len(locs))
		}
		for _, l := range locs {
			if l == "" || l != strings.TrimSpace(l) || strings.Contains(l, ",") {
				t.Errorf("%q: location %q", arg, l)
			}
		}
	})
}
