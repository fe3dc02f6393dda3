package kafkaprops

import (
	"sort"
	"strings"
)

// suggest returns the known name closest to key for role, or "" when none is close. Separators
// are normalised first so linger_ms and linger-ms find linger.ms.
func suggest(key string, role Role) string {
	var names []string
	if role == RoleTopic {
		for k := range topicIndex {
			names = append(names, k)
		}
	} else {
		for k, d := range clientIndex {
			if role.wants(d) || d.Use == Owned {
				names = append(names, k)
			}
		}
	}
	norm := strings.NewReplacer("_", ".", "-", ".").Replace(strings.ToLower(key))
	return Closest(norm, names, MaxEdits(key))
}

// MaxEdits is how far a misspelling may be from the name meant: about one edit in four
// characters, at most four, so long unrelated names are not "corrected".
func MaxEdits(s string) int { return min(len(s)/4+1, 4) }

// Closest returns the candidate within maxDist edits of s (the nearest, ties broken by name),
// or "". It sorts candidates in place.
func Closest(s string, candidates []string, maxDist int) string {
	sort.Strings(candidates)
	best, bestD := "", maxDist+1
	for _, c := range candidates {
		if d := editDistance(s, strings.ToLower(c), bestD-1); d < bestD {
			best, bestD = c, d
		}
	}
	return best
}

// editDistance is the Levenshtein distance between a and b in bytes, or limit+1 once it is
// sure to exceed limit: the bound keeps checking many long unknown keys cheap.
func editDistance(a, b string, limit int) int {
	if d := len(a) - len(b); d > limit || -d > limit {
		return limit + 1
	}
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		rowMin := i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			rowMin = min(rowMin, cur[j])
		}
		if rowMin > limit {
			return limit + 1 // distances never shrink from one row to the next
		}
		prev, cur = cur, prev
	}
	return min(prev[len(b)], limit+1)
}
