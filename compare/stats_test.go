package compare

import (
	"math"
	"testing"
)

// TestMannWhitneyPublished checks the U test against a published example: R's wilcox.test
// documentation (its "Two-sample test" example, from Hollander & Wolfe, Nonparametric
// Statistical Methods, 1973, p. 69f: permeability constants of the human chorioamnion at term,
// x, and at 12 to 26 weeks, y). R reports W = 35 (Mann-Whitney's U for x) and a one-sided
// p-value of 0.1272 for x greater, so the two-sided p is 0.2544.
func TestMannWhitneyPublished(t *testing.T) {
	x := []float64{0.80, 0.83, 1.89, 1.04, 1.45, 1.38, 1.91, 1.64, 0.73, 1.46}
	y := []float64{1.15, 0.88, 0.90, 0.74, 1.21}
	got, err := MannWhitney(x, y)
	if err != nil {
		t.Fatal(err)
	}
	if got.U != 35 || got.N1 != 10 || got.N2 != 5 {
		t.Errorf("U = %v (n %d, %d), want 35 (10, 5)", got.U, got.N1, got.N2)
	}
	if math.Abs(got.P-2*0.1272) > 0.0002 {
		t.Errorf("p = %.4f, want 0.2544 (twice R's one-sided 0.1272)", got.P)
	}
}

// TestMannWhitneyU checks U on Wikipedia's "Mann–Whitney U test" illustration: tortoises and
// hares finishing a race in the order T H H H H H T T T T T H give U = 11 for the tortoises
// and 25 for the hares. Each value is 13 minus the finishing position, so that beating a
// runner is having the larger value, which is what U counts.
func TestMannWhitneyU(t *testing.T) {
	tortoises := []float64{12, 6, 5, 4, 3, 2}
	hares := []float64{11, 10, 9, 8, 7, 1}
	for _, c := range []struct {
		a, b []float64
		u    float64
	}{{tortoises, hares, 11}, {hares, tortoises, 25}} {
		got, err := MannWhitney(c.a, c.b)
		if err != nil {
			t.Fatal(err)
		}
		if got.U != c.u {
			t.Errorf("U = %v, want %v", got.U, c.u)
		}
	}
}

func TestMinPAndNeeded(t *testing.T) {
	for _, c := range []struct {
		n1, n2 int
		want   float64
	}{{2, 2, 1.0 / 3}, {3, 3, 0.1}, {4, 4, 2.0 / 70}, {1, 1, 1}, {0, 5, 1}, {2, 5, 2.0 / 21}} {
		if got := MinP(c.n1, c.n2); math.Abs(got-c.want) > 1e-12 {
			t.Errorf("MinP(%d, %d) = %v, want %v", c.n1, c.n2, got, c.want)
		}
	}
	for _, c := range []struct {
		alpha float64
		want  int
	}{{0.05, 4}, {0.1, 4}, {0.11, 3}, {0.01, 5}, {0.001, 7}} {
		if got := Needed(c.alpha); got != c.want {
			t.Errorf("Needed(%v) = %d, want %d", c.alpha, got, c.want)
		}
	}
}

func TestShiftCI(t *testing.T) {
	seq := func(n int, add float64) []float64 {
		v := make([]float64, n)
		for i := range v {
			v[i] = float64(i) + add
		}
		return v
	}
	for _, c := range []struct {
		name   string
		a, b   []float64
		ok     bool
		lo, hi float64 // bounds the interval must lie within (ok only)
		zero   bool    // the interval holds 0
	}{
		{"too few", seq(2, 0), seq(2, 5), false, 0, 0, false},
		{"three each", seq(3, 0), seq(3, 5), false, 0, 0, false},
		{"four apart", seq(4, 0), seq(4, 100), true, 96, 104, false},
		{"same", seq(10, 0), seq(10, 0), true, -9, 9, true},
		{"shifted", seq(10, 0), seq(10, 20), true, 10, 30, false},
		{"large, normal approximation", seq(60, 0), seq(60, 10), true, 0, 20, false},
	} {
		ci, ok := ShiftCI(c.a, c.b, 0.05)
		if ok != c.ok {
			t.Errorf("%s: ok = %v, want %v", c.name, ok, c.ok)
			continue
		}
		if !ok {
			continue
		}
		if ci.Lo > ci.Hi || ci.Lo < c.lo || ci.Hi > c.hi || (ci.Lo <= 0 && ci.Hi >= 0) != c.zero {
			t.Errorf("%s: interval [%v, %v], want within [%v, %v], holding 0 %v", c.name, ci.Lo, ci.Hi, c.lo, c.hi, c.zero)
		}
	}
}

// TestCriticalCountExact checks k against the table of critical values of U (two-sided,
// alpha 0.05): 0 for n = m = 5 is U ≤ 2, so k = 3; n = m = 10: U ≤ 23, so k = 24.
func TestCriticalCountExact(t *testing.T) {
	for _, c := range []struct{ n1, n2, want int }{{5, 5, 3}, {10, 10, 24}, {4, 4, 1}, {3, 3, 0}, {8, 8, 14}} {
		if got := criticalCount(c.n1, c.n2, 0.05); got != c.want {
			t.Errorf("criticalCount(%d, %d) = %d, want %d", c.n1, c.n2, got, c.want)
		}
	}
}

func BenchmarkCriticalCount50(b *testing.B) {
	for b.Loop() {
		criticalCount(50, 50, 0.05)
	}
}
