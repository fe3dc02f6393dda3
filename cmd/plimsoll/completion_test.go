//go:build !integration

package main

import (
	"strings"
	"testing"
)

// Each shell's completion script generates, and flags with known values complete to them
// (cobra's __complete, which the scripts call).
func TestCompletion(t *testing.T) {
	for _, shell := range []string{"bash", "zsh", "fish"} {
		stdout, stderr, code := runCLI(t, "completion", shell)
		if code != ExitOK || !strings.Contains(stdout, "plimsoll") || !strings.Contains(stdout, "__complete") {
			t.Errorf("completion %s: exit %d, %d bytes, stderr %q", shell, code, len(stdout), stderr)
		}
	}
	for _, tc := range []struct {
		args []string
		want []string // lines of the completion
		not  []string
	}{
		{[]string{"run", "--keys", ""}, []string{"none", "round-robin", "random"}, nil},
		{[]string{"limit", "--sasl-mechanism", "scram"}, []string{"scram-sha-256", "scram-sha-512"}, nil},
		{[]string{"model", "--record-format", ""}, []string{"v0", "v1", "v2"}, nil},
		{[]string{"run", "--producer-prop", "compression.t"}, []string{"compression.type=\t"}, []string{"acks="}},
		{[]string{"run", "--producer-prop", "compression.type="}, []string{"compression.type=lz4", "compression.type=zstd", "compression.type=none"}, nil},
		{[]string{"limit", "--topic-config", "compression.type="}, []string{"compression.type=producer", "compression.type=uncompressed"}, nil},
		{[]string{"cluster", "up", "--cluster-dir", ""}, []string{":16"}, nil}, // directories only
		{[]string{"run", "--workload", ""}, []string{"yaml", ":8"}, nil},       // files by extension
	} {
		stdout, stderr, code := runCLI(t, append([]string{"__complete"}, tc.args...)...)
		if code != ExitOK {
			t.Fatalf("__complete %q: exit %d: %s", tc.args, code, stderr)
		}
		for _, w := range tc.want {
			if !strings.Contains(stdout, w) {
				t.Errorf("__complete %q lacks %q:\n%s", tc.args, w, stdout)
			}
		}
		for _, w := range tc.not {
			if strings.Contains(stdout, w) {
				t.Errorf("__complete %q offers %q:\n%s", tc.args, w, stdout)
			}
		}
	}
}
