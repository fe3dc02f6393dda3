package compare

import (
	"slices"

	"github.com/plimsoll/plimsoll/results"
)

// limitOf picks one limit of a boundary; ok false when the boundary has none.
type limitOf func(results.Boundary) (results.Limit, bool)

// searchLimits are the limits a search finds per size: the ceiling and, when searched, the SLO
// limit.
var searchLimits = []struct {
	name, limit string
	get         limitOf
}{
	{"ceiling safe rate", results.LimitCeiling, func(p results.Boundary) (results.Limit, bool) { return p.Ceiling, true }},
	{"SLO safe rate", results.LimitSLO, func(p results.Boundary) (results.Limit, bool) {
		if p.SLO == nil {
			return results.Limit{}, false
		}
		return *p.SLO, true
	}},
}

// searchFigures compares two sides of limit searches: for each message size both searched,
// the ceiling's safe rate and, when both searched it, the SLO limit's safe rate; and, as the
// cause, the bottlenecks that differ. A search has one value per size, so only repetitions
// (several searches a side) can be tested.
func searchFigures(a, b []*results.SearchFile, o Options) ([]Figure, []Bottleneck) {
	var figs []Figure
	var necks []Bottleneck
	for _, size := range searchSizes(a, b) {
		for _, l := range searchLimits {
			la, lb := limits(a, size, l.get), limits(b, size, l.get)
			sa, sb := safeRates(la), safeRates(lb)
			if len(sa.reps) == 0 || len(sb.reps) == 0 {
				continue
			}
			f := Figure{Name: l.name, Size: size, Unit: UnitMsgsPerSec, HigherIsBetter: true, Speed: true, Throughput: true,
				A: median(sa.reps), B: median(sb.reps), ClientBound: clientBound(la) || clientBound(lb)}
			f.judge(sa, sb, o)
			figs = append(figs, f)
			if na, nb := bottlenecks(la), bottlenecks(lb); !slices.Equal(na, nb) {
				necks = append(necks, Bottleneck{Size: size, Limit: l.limit, A: na, B: nb})
			}
		}
	}
	return figs, necks
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

// limits are one limit at size in each search of a side that has it with a safe rate.
func limits(side []*results.SearchFile, size int, get limitOf) []results.Limit {
	var out []results.Limit
	for _, sf := range side {
		for _, p := range sf.Points {
			if l, ok := get(p); ok && p.Size == size && l.SafeRate > 0 {
				out = append(out, l)
			}
		}
	}
	return out
}

func safeRates(ls []results.Limit) samples {
	var s samples
	for _, l := range ls {
		s.reps = append(s.reps, l.SafeRate)
	}
	return s
}

func clientBound(ls []results.Limit) bool {
	return slices.ContainsFunc(ls, func(l results.Limit) bool { return l.ClientBound })
}

// bottlenecks are the distinct bottlenecks the limits named, sorted.
func bottlenecks(ls []results.Limit) []string {
	var out []string
	for _, l := range ls {
		if l.Bottleneck != "" && !slices.Contains(out, l.Bottleneck) {
			out = append(out, l.Bottleneck)
		}
	}
	slices.Sort(out)
	return out
}
