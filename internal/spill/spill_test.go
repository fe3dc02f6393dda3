package spill

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

type value struct {
	N    int    `json:"n"`
	Text string `json:"text"`
}

// TestFile: values appended are read back in order from any noted offset, lines yield their
// heads, the directory shows no file, and a closed file reads nothing, with an error.
func TestFile(t *testing.T) {
	dir := t.TempDir()
	f, err := Open[value](filepath.Join(dir, "not", "yet"), ".test-*.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	var ends []int64
	for i := range 5 {
		end, err := f.Append(value{N: i, Text: strings.Repeat("x", i*40000)})
		if err != nil {
			t.Fatal(err)
		}
		ends = append(ends, end)
	}
	if left, _ := os.ReadDir(dir); len(left) != 0 {
		t.Errorf("the spill shows in its directory (or made one): %v", left)
	}
	var got []int
	var offs []int64
	for v, end := range f.Read(ends[1], ends[4]) {
		got = append(got, v.N)
		offs = append(offs, end)
	}
	if !slices.Equal(got, []int{2, 3, 4}) || offs[0] != ends[2]-1 || offs[2] != ends[4]-1 {
		t.Errorf("read values %v ending at %v, want 2, 3, 4 ending before the newlines at %v", got, offs, ends[2:])
	}
	var heads []string
	for line, end := range f.Lines(0, ends[4]) {
		heads = append(heads, string(line[:7]))
		if len(line) > 64<<10 || end != ends[len(heads)-1] {
			t.Errorf("line %d: %d bytes kept, ends at %d; want at most 64 KiB, ending at %d", len(heads), len(line), end, ends[len(heads)-1])
		}
	}
	if len(heads) != 5 || heads[4] != `{"n":4,` {
		t.Errorf("line heads %q", heads)
	}
	if err := f.Err(); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil || f.Close() != nil {
		t.Fatalf("close: %v", err)
	}
	for range f.Read(0, ends[4]) {
		t.Error("a closed file yielded a value")
	}
	if f.Err() == nil {
		t.Error("reading a closed file gave no error")
	}
}
