package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// firstFiveCase is bad input a new user gives in their first minutes: the exit code, words the
// error must hold, and that nothing was created in the directory the command was pointed at.
type firstFiveCase struct {
	name string
	args []string // DIR is replaced by an empty temporary directory
	code int
	want []string // each must appear in stdout + stderr
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
			[]string{"--nic", "100MB/s (bytes) or 100Mbit/s (bits)"}},
		{"model produce", []string{"model", "--brokers", "3", "--replication-factor", "3", "--produce", "300"}, ExitUsage,
			[]string{"--produce", "a rate needs a unit"}},
		{"model lowercase mb", []string{"model", "--brokers", "3", "--replication-factor", "3", "--produce", "100mb/s"}, ExitUsage,
			[]string{"--produce", "100MB/s for bytes or 100Mbit/s for bits"}},
		{"cluster up nic", []string{"cluster", "up", "--dir", "DIR", "--nic", "16"}, ExitUsage,
			[]string{"--nic", "16MB/s (bytes) or 16Mbit/s (bits)"}},
	})
}

// limit checks every flag before it starts a cluster or makes --out, names the flag (not a Go
// field), and reads --tolerance 0 as an error, not as the default 5%.
func TestLimitFlagsCheckedFirst(t *testing.T) {
	limit := func(extra ...string) []string {
		return append([]string{"limit", "--out", "DIR/out", "--cluster-dir", "DIR/cluster"}, extra...)
	}
	runFirstFive(t, []firstFiveCase{
		{"tolerance 0", limit("--tolerance", "0"), ExitUsage, []string{"--tolerance 0: give a positive value", "default (0.05)"}},
		{"tolerance tiny", limit("--tolerance", "0.00001"), ExitUsage, []string{"--tolerance: 1e-05 is out of range"}},
		{"tolerance above 1", limit("--tolerance", "2"), ExitUsage, []string{"--tolerance: 2 is out of range"}},
		{"growth 0", limit("--growth", "0"), ExitUsage, []string{"--growth 0: give a positive value"}},
		{"growth 1", limit("--growth", "1"), ExitUsage, []string{"--growth: 1 must be between 1.1 and 1000"}},
		{"growth below half the tolerance", limit("--growth", "1.2", "--tolerance", "0.5"), ExitUsage, []string{"--growth: 1.2 must be at least 1 + half the tolerance (1.25)"}},
		{"growth below the tolerance", limit("--growth", "1.3", "--tolerance", "0.5"), ExitUsage, []string{"--growth: 1.3 must be at least 1 + the tolerance (1.5)"}},
		{"min-rate 0", limit("--min-rate", "0"), ExitUsage, []string{"--min-rate 0: give a positive value"}},
		{"min-rate negative", limit("--min-rate", "-5"), ExitUsage, []string{"--min-rate: -5 must be a positive number of messages/s"}},
		{"max-rate below min", limit("--min-rate", "100", "--max-rate", "50"), ExitUsage, []string{"--max-rate: 50 must be a number of messages/s above --min-rate (100)"}},
		{"sizes twice", limit("--message-sizes", "100,100"), ExitUsage, []string{"--message-sizes: size 100 bytes is listed twice"}},
		{"drain negative", limit("--drain-timeout", "-1s"), ExitUsage, []string{"--drain-timeout -1s"}},
		{"resume nothing", limit("--resume"), ExitUsage, []string{"--resume:", "start the search without --resume"}},
	})
}
