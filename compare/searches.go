package compare

import (
	"slices"

	"github.com/plimsoll/plimsoll/results"
)

// searchFigures compares two sides of limit searches: for each message size both searched,
// the ceiling's safe rate and, when both searched it, the SLO limit's safe rate. A search has
// one value per size, so only repetitions (several searches a side) can be tested.
func searchFigures(a, b []*results.SearchFile, o Options) []Figure {
	var out []Figure
	for _, size := range searchSizes(a, b) {
		for _, l := range []struct {
			name string
			get  func(results.Boundary) (float64, bool)
		}{
			{"ceiling safe rate", func(p results.Boundary) (float64, bool) { return p.Ceiling.SafeRate, p.Ceiling.SafeRate > 0 }},
			{"SLO safe rate", func(p results.Boundary) (float64, bool) {
				if p.SLO == nil {
					return 0, false
				}
				return p.SLO.SafeRate, p.SLO.SafeRate > 0
			}},
		} {
			sa, sb := safeRates(a, size, l.get), safeRates(b, size, l.get)
			if len(sa.reps) == 0 || len(sb.reps) == 0 {
				continue
			}
			f := Figure{Name: l.name, Size: size, Unit: UnitMsgsPerSec, HigherIsBetter: true, Speed: true, Throughput: true,
				A: median(sa.reps), B: median(sb.reps)}
			f.judge(sa, sb, o)
			out = append(out, f)
		}
	}
	return out
}

// searchSizes are the message sizes with a boundary on both sides, ascending.
func searchSizes(a, b []*results.SearchFile) []int {
	has := func(side []*results.SearchFile) map[int]bool {
		m := map[int]bool{}
		for _, sf := range side {
			for _, p := range sf.Points {
				m[p.Size] = true
			}
		}
		return m
	}
	ha, hb := has(a), has(b)
	var out []int
	for s := range ha {
		if hb[s] {
			out = append(out, s)
		}
	}
	slices.Sort(out)
	return out
}

// safeRates are a limit's safe rate at size in each search that found one.
func safeRates(side []*results.SearchFile, size int, get func(results.Boundary) (float64, bool)) samples {
	var s samples
	for _, sf := range side {
		for _, p := range sf.Points {
			if v, ok := get(p); ok && p.Size == size {
				s.reps = append(s.reps, v)
			}
		}
	}
	return s
}
