//go:build !integration

package main

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// firstFiveCase is bad input a new user gives in their first minutes: the exit code, words the
// error must hold, and that nothing was created in the directory the command was pointed at.
type firstFiveCase struct {
	name string
	args []string // DIR is replaced by an empty temporary directory
	code int
	want []string // each must appear in stdout + stderr
	not  []string // none may appear
}

func runFirstFive(t *testing.T, cases []firstFiveCase) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "plimsoll")
			args := make([]string, len(tc.args))
			for i, a := range tc.args {
				args[i] = strings.ReplaceAll(a, "DIR", dir)
			}
			stdout, stderr, code := runCLI(t, args...)
			if code != tc.code {
				t.Errorf("plimsoll %v: exit %d, want %d\nstdout: %s\nstderr: %s", args, code, tc.code, stdout, stderr)
			}
			for _, w := range tc.want {
				if !strings.Contains(stdout+stderr, w) {
					t.Errorf("plimsoll %v: output does not say %q\nstdout: %s\nstderr: %s", args, w, stdout, stderr)
				}
			}
			for _, w := range tc.not {
				if strings.Contains(stdout+stderr, w) {
					t.Errorf("plimsoll %v: output says %q\nstdout: %s\nstderr: %s", args, w, stdout, stderr)
				}
			}
			if _, err := os.Stat(dir); !os.IsNotExist(err) {
				t.Errorf("plimsoll %v: %s was created (%v)", args, dir, err)
			}
		})
	}
}

// A bare number is not a rate: every rate flag refuses it and names the spellings that work.
func TestUnitlessRatesRefused(t *testing.T) {
	runFirstFive(t, []firstFiveCase{
		{"model nic", []string{"model", "--brokers", "3", "--replication-factor", "3", "--produce", "100MB/s", "--nic", "100"}, ExitUsage,
			[]string{"--nic", "100MB/s (bytes) or 100Mbit/s (bits)"}, nil},
		{"model produce", []string{"model", "--brokers", "3", "--replication-factor", "3", "--produce", "300"}, ExitUsage,
			[]string{"--produce", "a rate needs a unit"}, nil},
		{"model lowercase mb", []string{"model", "--brokers", "3", "--replication-factor", "3", "--produce", "100mb/s"}, ExitUsage,
			[]string{"--produce", "100MB/s for bytes or 100Mbit/s for bits"}, nil},
		{"cluster up nic", []string{"cluster", "up", "--dir", "DIR", "--java", "/nonexistent/java", "--nic", "16"}, ExitUsage,
			[]string{"--nic", "16MB/s (bytes) or 16Mbit/s (bits)"}, nil},
	})
}

// limit checks every flag before it starts a cluster or makes --out, names the flag (not a Go
// field), and reads --tolerance 0 as an error, not as the default 5%.
func TestLimitFlagsCheckedFirst(t *testing.T) {
	limit := func(extra ...string) []string { return append(limitArgs(), extra...) }
	runFirstFive(t, []firstFiveCase{
		{"tolerance 0", limit("--tolerance", "0"), ExitUsage, []string{"--tolerance 0: give a positive value", "default (0.05)"}, nil},
		{"tolerance tiny", limit("--tolerance", "0.00001"), ExitUsage, []string{"--tolerance: 1e-05 is out of range"}, nil},
		{"tolerance above 1", limit("--tolerance", "2"), ExitUsage, []string{"--tolerance: 2 is out of range"}, nil},
		{"growth 0", limit("--growth", "0"), ExitUsage, []string{"--growth 0: give a positive value"}, nil},
		{"growth 1", limit("--growth", "1"), ExitUsage, []string{"--growth: 1 must be between 1.1 and 1000"}, nil},
		{"growth below half the tolerance", limit("--growth", "1.2", "--tolerance", "0.5"), ExitUsage, []string{"--growth: 1.2 must be at least 1 + half the tolerance (1.25)"}, nil},
		{"growth below the tolerance", limit("--growth", "1.3", "--tolerance", "0.5"), ExitUsage, []string{"--growth: 1.3 must be at least 1 + the tolerance (1.5)"}, nil},
		{"min-rate 0", limit("--min-rate", "0"), ExitUsage, []string{"--min-rate 0: give a positive value"}, nil},
		{"min-rate negative", limit("--min-rate", "-5"), ExitUsage, []string{"--min-rate: -5 must be a positive number of messages/s"}, nil},
		{"max-rate below min", limit("--min-rate", "100", "--max-rate", "50"), ExitUsage, []string{"--max-rate: 50 must be a number of messages/s above --min-rate (100)"}, nil},
		{"sizes twice", limit("--message-sizes", "100,100"), ExitUsage, []string{"--message-sizes: size 100 bytes is listed twice"}, nil},
		{"drain negative", limit("--drain-timeout", "-1s"), ExitUsage, []string{"--drain-timeout -1s"}, nil},
		{"resume nothing", limit("--resume"), ExitUsage, []string{"--resume:", "start the search without --resume"}, nil},
	})
}

// The command line answers a mistyped or incomplete command with what to type instead.
func TestCommandLineMistakes(t *testing.T) {
	runFirstFive(t, []firstFiveCase{
		{"cluster typo", []string{"cluster", "stauts"}, ExitUsage,
			[]string{`unknown command "stauts" for "plimsoll cluster"`, "did you mean 'plimsoll cluster status'?"}, []string{"Usage:"}},
		{"cluster alone", []string{"cluster"}, ExitOK, []string{"Available Commands:"}, nil},
		{"version flag", []string{"--version"}, ExitOK, []string{"plimsoll ", runtime.Version()}, nil},
		{"report without DIR", []string{"report"}, ExitUsage,
			[]string{"plimsoll report takes DIR, got 0", "plimsoll limit --out DIR", "e.g. plimsoll report plimsoll-limit"}, []string{"accepts 1 arg(s)"}},
		{"kill without id", []string{"cluster", "kill", "--dir", "DIR"}, ExitUsage, []string{"takes BROKER_ID, got 0", "plimsoll cluster kill 2"}, nil},
		{"down without cluster", []string{"cluster", "down", "--cluster-dir", "DIR"}, ExitUsage, []string{"no cluster in", "nothing to stop, nothing was changed"}, nil},
		{"down without cluster, old --dir", []string{"cluster", "down", "--dir", "DIR"}, ExitUsage, []string{"no cluster in", "nothing to stop, nothing was changed"}, nil},
		{"down help", []string{"cluster", "down", "--help"}, ExitOK, []string{"--keep-data  "}, []string{"--keep-data cluster"}},
	})
}

// A workload file's errors come out in the order of its lines, and nothing starts.
func TestWorkloadErrorsInLineOrder(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "w.yaml")
	if err := os.WriteFile(file, []byte("producers: 0\nrate: 1000\ntopics: 0\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, stderr, code := runCLI(t, "run", "--workload", file, "--cluster-dir", filepath.Join(dir, "cluster"))
	first, third := strings.Index(stderr, "w.yaml:1: producers"), strings.Index(stderr, "w.yaml:3: topics")
	if code != ExitUsage || first < 0 || third < first {
		t.Errorf("exit %d, want %d, and line 1's error before line 3's:\n%s", code, ExitUsage, stderr)
	}
	if _, err := os.Stat(filepath.Join(dir, "cluster")); !os.IsNotExist(err) {
		t.Errorf("a cluster directory was made (%v)", err)
	}
}

// Every flag of every command shows what to write (RATE, BYTES, DURATION, N, FILE, ...), not
// its Go type, and the two names of one idea are one: --cluster-dir everywhere.
func TestFlagPlaceholders(t *testing.T) {
	goTypes := map[string]bool{"string": true, "float": true, "float64": true, "stringArray": true, "int": true,
		"duration": true, "strings": true, "VALUE": true, "NUMBER": true}
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		c.Flags().VisitAll(func(f *pflag.Flag) {
			if name, _ := pflag.UnquoteUsage(f); goTypes[name] {
				t.Errorf("%s --%s shows %q", c.CommandPath(), f.Name, name)
			}
		})
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(newRootCmd())
	for _, args := range [][]string{{"run", "--help"}, {"limit", "--help"}, {"cluster", "up", "--help"}} {
		stdout, _, _ := runCLI(t, args...)
		if !strings.Contains(stdout, "--cluster-dir DIR") || strings.Contains(stdout, "--dir ") {
			t.Errorf("%v: want --cluster-dir DIR and no --dir:\n%s", args, stdout)
		}
	}
}

// limit takes --brokers-down as model does (a count or a share) and --message-sizes as
// --message-size does (1KiB); bad values are refused before anything starts.
func TestLimitSpellingsAsElsewhere(t *testing.T) {
	refused := func(extra ...string) []string { return append(limitArgs(), extra...) }
	limit := func(extra ...string) []string {
		return append(refused(extra...), "--min-rate", "0")
	}
	// --min-rate 0 stops each run after its spellings were accepted, before a cluster starts.
	runFirstFive(t, []firstFiveCase{
		{"share down", limit("--brokers-down", "20%"), ExitUsage, []string{"--min-rate 0"}, []string{"--brokers-down"}},
		{"KiB sizes", limit("--message-sizes", "100,1KiB,10000"), ExitUsage, []string{"--min-rate 0"}, []string{"--message-sizes"}},
		{"share 100%", refused("--brokers-down", "100%"), ExitUsage, []string{"--brokers-down:", "below 100%"}, nil},
		{"bad size", refused("--message-sizes", "100,1KB/s"), ExitUsage, []string{"--message-sizes", "e.g. 100,1KiB,10000"}, nil},
	})
}

// limitArgs point limit at an address nothing listens on (port 9, discard), so that a check
// that fails to refuse its input ends in an unreachable cluster, never in a local one started.
func limitArgs() []string {
	return []string{"limit", "--out", "DIR/out", "--cluster-dir", "DIR/cluster", "--bootstrap", "127.0.0.1:9"}
}

// The README's `plimsoll model` outputs are real: every line shown (but "...") is printed, in
// order, by the command above it.
func TestReadmeModelOutputs(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("..", "..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	blocks := strings.Split(string(data), "```\n$ plimsoll model ")
	if len(blocks) < 3 {
		t.Fatalf("want at least 2 model examples with output in the README, found %d", len(blocks)-1)
	}
	for _, b := range blocks[1:] {
		lines := strings.Split(b[:strings.Index(b, "```")], "\n")
		stdout, stderr, code := runCLI(t, append([]string{"model"}, strings.Fields(lines[0])...)...)
		if code != ExitOK {
			t.Fatalf("plimsoll model %s: exit %d: %s", lines[0], code, stderr)
		}
		rest := stdout
		for _, l := range lines[1:] {
			if strings.TrimSpace(l) == "..." || l == "" {
				continue
			}
			i := strings.Index(rest, l+"\n")
			if i < 0 {
				t.Errorf("plimsoll model %s: the README shows %q, which it does not print (in this order):\n%s", lines[0], l, stdout)
				break
			}
			rest = rest[i+len(l):]
		}
	}
	if stdout, _, _ := runCLI(t, "completion", "bash"); !strings.Contains(stdout, "plimsoll") {
		t.Errorf("completion bash printed no script for plimsoll")
	}
}

// run's and limit's help list their flags by group: each flag under its group's title.
func TestFlagHelpGroups(t *testing.T) {
	for _, c := range []struct {
		cmd    string
		byHead map[string]string // a flag -> the title it must follow (and be the last title before it)
	}{
		{"run", map[string]string{"--rate MSGS/S": "Workload flags", "--bootstrap HOST": "Target flags", "--tls-ca FILE": "Security flags",
			"--slo-p99 DURATION": "Criteria flags", "--out DIR": "\nFlags:"}},
		{"limit", map[string]string{"--producers N": "Workload flags", "--sasl-user USER": "Security flags",
			"--min-achieved FRACTION": "Criteria flags", "--tolerance FRACTION": "\nFlags:"}},
	} {
		stdout, _, code := runCLI(t, c.cmd, "--help")
		if code != ExitOK {
			t.Fatalf("%s --help: exit %d", c.cmd, code)
		}
		titles := []string{"Workload flags", "Target flags", "Security flags", "Criteria flags", "\nFlags:"}
		for flag, title := range c.byHead {
			at := strings.Index(stdout, flag)
			last, lastAt := "", -1
			for _, tt := range titles {
				if i := strings.Index(stdout, tt); i >= 0 && i < at && i > lastAt {
					last, lastAt = tt, i
				}
			}
			if at < 0 || last != title {
				t.Errorf("%s --help: %s is under %q, want %q", c.cmd, flag, last, title)
			}
		}
	}
	if stdout, _, _ := runCLI(t, "model", "--help"); strings.Contains(stdout, "Workload flags") || !strings.Contains(stdout, "\nFlags:\n") {
		t.Errorf("model --help: want its flags under Flags: alone\n%s", stdout)
	}
}

// The former --dir still works, and its note goes to stderr: `cluster status --json --dir`
// must print JSON alone (the deprecation notice once landed in stdout, before the JSON).
func TestClusterDirAliasNoteOnStderr(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "cluster")
	stdout, stderr, code := runCLI(t, "cluster", "down", "--dir", dir)
	if code != ExitUsage || !strings.Contains(stderr, "former name of --cluster-dir") || strings.Contains(stdout, "--cluster-dir") {
		t.Errorf("cluster down --dir: exit %d, stdout %q, stderr %q; want exit 2, the note on stderr only", code, stdout, stderr)
	}
	if _, _, code := runCLI(t, "cluster", "down", "--cluster-dir", dir); code != ExitUsage {
		t.Errorf("cluster down --cluster-dir: exit %d, want 2", code)
	}
}

// --consumer-groups defaults differ on purpose (model: none unless given; run and limit: 1, to
// measure end-to-end latency and loss), and model's help says so.
func TestConsumerGroupsDefaultsExplained(t *testing.T) {
	model, _, _ := runCLI(t, "model", "--help")
	run, _, _ := runCLI(t, "run", "--help")
	if !strings.Contains(model, "none unless given, while run and limit read with 1") || !strings.Contains(run, "--consumer-groups N") ||
		!strings.Contains(run, "(default 1)") {
		t.Errorf("model --help does not say why its --consumer-groups default differs from run's:\n%s", model)
	}
}
