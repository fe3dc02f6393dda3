//go:build !integration

package main

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/plimsoll/plimsoll/fleet/fleettest"
	"github.com/plimsoll/plimsoll/internal/fullfs"
	"github.com/plimsoll/plimsoll/limit"
	"github.com/plimsoll/plimsoll/results"
	"github.com/twmb/franz-go/pkg/kfake"
)

// outFull is a command whose --out (OUT) lies on a file system with leave bytes free.
type outFull struct {
	what  string
	leave int64
	args  []string
	want  []string // in the message
	kept  []string // files left under OUT: the only ones allowed
}

var outFullCases = []outFull{
	{what: "run --out: the file system fills up", args: []string{"run", "--bootstrap", "KAFKA", "--out", "OUT/run", "--rate", "100",
		"--duration", "1s", "--warmup", "0s", "--partitions", "1", "--replication-factor", "1"},
		want: []string{"--out OUT/run: no space left on device (ENOSPC)", "nothing of this run was written", "df -h OUT/run"}},
	{what: "limit --out: the file system fills up", leave: 4 << 10, args: []string{"limit", "--bootstrap", "KAFKA", "--out", "OUT/limit",
		"--message-sizes", "100", "--trial-duration", "1s", "--warmup", "0s", "--partitions", "1", "--replication-factor", "1",
		"--min-rate", "100", "--max-rate", "150", "--tolerance", "0.5", "--no-hold", "--slo-p99", "0"},
		want: []string{"--out OUT/limit: no space left on device (ENOSPC)", "the trials that finished are in OUT/limit/results.jsonl", "--resume"},
		kept: []string{"limit", "limit/results.jsonl", "limit/trials"}},
	{what: "compare --a/--b --out: the file system fills up", args: []string{"compare", "--a", "producer:linger.ms=0", "--b", "producer:linger.ms=5", "--out", "OUT/ab", "--", "run",
		"--bootstrap", "KAFKA", "--rate", "100", "--duration", "1s", "--warmup", "0s", "--partitions", "1", "--replication-factor", "1"},
		want: []string{"--out OUT/ab: no space left on device (ENOSPC)", "the repetitions that finished are in OUT/ab"},
		kept: []string{"ab"}},
}

// TestOutFull: run, limit and the A/B driver with --out on a small tmpfs filled before they
// start (they write nothing before their first trial ends, so it fills up under them): exit 1,
// a message naming the directory and ENOSPC, no file half-written (a search's results.jsonl
// holds whole records and loads), and no topic or group left on the (fake) cluster.
func TestOutFull(t *testing.T) {
	fake, err := kfake.NewCluster(kfake.NumBrokers(1))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(fake.Close)
	rows := make([]string, len(outFullCases))
	for i, tc := range outFullCases {
		t.Run(tc.what, func(t *testing.T) {
			fs := fullfs.Mount(t, 256<<10)
			fullfs.Fill(t, fs, tc.leave)
			subst := strings.NewReplacer("OUT", fs, "KAFKA", strings.Join(fake.ListenAddrs(), ","))
			args := make([]string, len(tc.args))
			for i, a := range tc.args {
				args[i] = subst.Replace(a)
			}
			_, stderr, code := runCLI(t, args...)
			stderr = strings.ReplaceAll(stderr, fs, "OUT")
			if code != ExitError {
				t.Errorf("exit %d, want %d:\n%s", code, ExitError, stderr)
			}
			for _, w := range tc.want {
				if !strings.Contains(stderr, w) {
					t.Errorf("the message lacks %q:\n%s", w, stderr)
				}
			}
			checkLeft(t, fs, tc.kept)
			fleettest.NoneLeft(t, fake)
			rows[i] = docRow(badInput{what: tc.what, args: tc.args}, errorLines(stderr), code)
		})
	}
	if !t.Failed() {
		checkDocTable(t, filepath.Join("..", "..", "docs", "bad-input.md"), "TestOutFull", rows)
	}
}

// errorLines are the error and hint lines of stderr, without warnings, progress or what a
// repetition printed.
func errorLines(stderr string) string {
	var keep []string
	for _, l := range strings.Split(stderr, "\n") {
		if strings.HasPrefix(l, "plimsoll: ") || strings.HasPrefix(l, "hint: ") {
			keep = append(keep, l)
		}
	}
	return strings.Join(keep, "\n")
}

// checkLeft fails t when fs holds anything but the filler and kept, or a results file that does
// not load whole.
func checkLeft(t *testing.T, fs string, kept []string) {
	t.Helper()
	for name := range fullfs.Tree(t, fs) {
		if name != "filler" && !slices.Contains(kept, name) {
			t.Errorf("left behind: %s", name)
		}
	}
	for _, k := range kept {
		if filepath.Base(k) != limit.StoreName {
			continue
		}
		path := filepath.Join(fs, k)
		if _, err := results.LoadSearch(path); err != nil {
			t.Errorf("%s does not load: %v", k, err)
		}
		w, err := results.Open(path)
		if err != nil || w.Repaired() != 0 {
			t.Errorf("%s: %v, a torn tail of %d bytes", k, err, w.Repaired())
		}
		w.Close()
	}
}
