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
