package spill

import (
	"os"
	"slices"
	"testing"
)

// TestTail: a tail keeps its latest Keep values in memory and the rest in its file, yields them
// all in order, and, where no file can be made, holds every value and says so once.
func TestTail(t *testing.T) {
	for _, tc := range []struct {
		name       string
		dir        string
		keep, adds int
		held, errs int
	}{
		{name: "in memory", dir: "", keep: 3, adds: 10, held: 10},
		{name: "within keep", dir: t.TempDir(), keep: 10, adds: 10, held: 10},
		{name: "spilled", dir: t.TempDir(), keep: 3, adds: 10, held: 3},
		{name: "keep none", dir: t.TempDir(), keep: 0, adds: 4, held: 0},
		{name: "no file", dir: "/proc", keep: 2, adds: 6, held: 6, errs: 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tl := &Tail[value]{Dir: tc.dir, Pattern: ".test-*.jsonl", Keep: tc.keep}
			defer tl.Close()
			var want []int
			errs := 0
			for i := range tc.adds {
				if tl.Add(value{N: i}) != nil {
					errs++
				}
				want = append(want, i)
			}
			var got []int
			for v := range tl.All() {
				got = append(got, v.N)
			}
			if len(tl.Held) != tc.held || errs != tc.errs || tl.Len() != tc.adds || tl.Spilled() != tc.adds-tc.held ||
				!slices.Equal(got, want) || tl.Err() != nil {
				t.Errorf("held %d, %d errors, len %d, spilled %d, yields %v (err %v); want %d held, %d errors, all %d in order",
					len(tl.Held), errs, tl.Len(), tl.Spilled(), got, tl.Err(), tc.held, tc.errs, tc.adds)
			}
			if tc.dir != "" && tc.dir != "/proc" {
				if left, _ := os.ReadDir(tc.dir); len(left) != 0 {
					t.Errorf("the spill shows in its directory: %v", left)
				}
			}
		})
	}
}
