//go:build !integration

package main

import (
	"strings"
	"testing"

	"github.com/plimsoll/plimsoll/workload"
)

// FuzzParseSizes: --message-sizes never panics; it accepts one size per comma-separated entry,
// each a size as --message-size reads it (workload.ParseSize: 100, 1KiB, ...) of at least 24
// bytes (the stamp), and refuses anything else as bad input naming the flag.
func FuzzParseSizes(f *testing.F) {
	for _, s := range []string{"100,1000,10000", "24", "23", "100,,1000", " 100 , 200 ", "1e3", "1KiB,10000", "-100", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		sizes, err := parseSizes(s)
		if err != nil {
			if ce, ok := err.(*cliError); !ok || ce.code != ExitUsage || !strings.Contains(err.Error(), "--message-sizes") {
				t.Fatalf("parseSizes(%q) error %v is not a usage error naming --message-sizes", s, err)
			}
			return
		}
		entries := strings.Split(s, ",")
		if len(sizes) != len(entries) {
			t.Fatalf("parseSizes(%q) = %v: %d sizes for %d entries", s, sizes, len(sizes), len(entries))
		}
		for i, n := range sizes {
			if m, err := workload.ParseSize(strings.TrimSpace(entries[i])); err != nil || m != n || n < 24 {
				t.Fatalf("parseSizes(%q)[%d] = %d from %q", s, i, n, entries[i])
			}
		}
	})
}

// TestSearchCommand: a search resumed with or without --ui (or --resume) records, and so
// compares, the same command.
func TestSearchCommand(t *testing.T) {
	want := "plimsoll limit --out x --message-sizes 100"
	for _, args := range [][]string{
		{"limit", "--out", "x", "--message-sizes", "100"},
		{"limit", "--out", "x", "--resume", "--message-sizes", "100"},
		{"limit", "--ui", "127.0.0.1:0", "--out", "x", "--message-sizes", "100", "--resume=true"},
		{"limit", "--out", "x", "--ui=8080", "--message-sizes", "100"},
	} {
		if got := searchCommand(args); got != want {
			t.Errorf("searchCommand(%q) = %q, want %q", args, got, want)
		}
	}
}
