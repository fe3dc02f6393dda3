package compare

import (
	"errors"
	"math"
	"slices"
	"sort"

	"github.com/aclements/go-moremath/stats"
	"gonum.org/v1/gonum/stat/distuv"
)

// Test is a two-sided Mann-Whitney U test of sample b against sample a.
type Test struct {
	N1, N2 int     // the samples' sizes (a, b)
	U      float64 // pairs with a's value above b's, ties counted half
	P      float64 // two-sided p-value
}

// exactLimit is the largest sample size for which the exact U distribution is used for the
// confidence interval (go-moremath uses the same limit for its p-values).
const exactLimit = 50

// MannWhitney tests whether a and b come from populations of the same location, with
// go-moremath's U test (exact distribution for small samples, normal approximation with tie
// and continuity corrections beyond). Samples whose values are all equal give p = 1. It needs
// at least one value on each side.
func MannWhitney(a, b []float64) (Test, error) {
	t := Test{N1: len(a), N2: len(b), P: 1}
	r, err := stats.MannWhitneyUTest(a, b, stats.LocationDiffers)
	switch {
	case errors.Is(err, stats.ErrSamplesEqual):
		t.U = float64(len(a)*len(b)) / 2
		return t, nil
	case err != nil:
		return t, err
	}
	t.U, t.P = r.U, r.P
	return t, nil
}

// MinP is the smallest two-sided p-value the U test can give with samples of n1 and n2
// values: both samples entirely apart, 2 / C(n1+n2, n1).
func MinP(n1, n2 int) float64 {
	if n1 == 0 || n2 == 0 {
		return 1
	}
	c := 1.0 // C(n1+n2, n1), exact while it fits a float64's mantissa
	for i := 1; i <= n1; i++ {
		c = c * float64(n2+i) / float64(i)
	}
	return math.Min(1, 2/c)
}

// Needed is the fewest repetitions per side (the same number on each) with which the U test
// can reach a p-value below alpha at all: 4 at alpha 0.05.
func Needed(alpha float64) int {
	n := 1
	for MinP(n, n) >= alpha && n < 1000 {
		n++
	}
	return n
}

// Interval is a confidence interval.
type Interval struct {
	Lo float64 `json:"lo"`
	Hi float64 `json:"hi"`
}

// ShiftCI is the distribution-free confidence interval, at level 1 − alpha, of the shift
// between b and a (how much b's values exceed a's), from the same ranks as the U test: the
// k-th smallest and k-th largest of the n1·n2 pairwise differences b_j − a_i, where k − 1 is
// the largest U whose lower tail stays within alpha/2 (Moses' interval around the
// Hodges-Lehmann estimate; Hollander & Wolfe, Nonparametric Statistical Methods, ch. 4). ok is
// false when the samples are too small for any interval at that level.
func ShiftCI(a, b []float64, alpha float64) (Interval, bool) {
	n1, n2 := len(a), len(b)
	k := criticalCount(n1, n2, alpha)
	if k < 1 {
		return Interval{}, false
	}
	d := make([]float64, 0, n1*n2)
	for _, x := range a {
		for _, y := range b {
			d = append(d, y-x)
		}
	}
	slices.Sort(d)
	return Interval{Lo: d[k-1], Hi: d[len(d)-k]}, true
}

// criticalCount is the k of ShiftCI: the largest k with P(U ≤ k−1) ≤ alpha/2 under the null
// hypothesis, from the exact U distribution for small samples, else its normal
// approximation; 0 when not even U = 0 is that unlikely.
func criticalCount(n1, n2 int, alpha float64) int {
	if n1 == 0 || n2 == 0 {
		return 0
	}
	if n1 > exactLimit || n2 > exactLimit {
		nm := float64(n1 * n2)
		sd := math.Sqrt(nm * float64(n1+n2+1) / 12)
		z := distuv.UnitNormal.Quantile(1 - alpha/2)
		return max(0, int(math.Floor(nm/2-z*sd)))
	}
	d := stats.UDist{N1: n1, N2: n2}
	// The smallest k with P(U ≤ k) > alpha/2 (the CDF rises with k): k − 1 is the last within.
	return sort.Search(n1*n2+1, func(k int) bool { return d.CDF(float64(k)) > alpha/2 })
}
