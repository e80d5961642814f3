package analysis

import (
	"math"
	"reflect"
	"testing"
)

func near(a, b, tol float64) bool { return math.Abs(a-b) <= tol }

// Expected values below are worked out by hand from the binomial and
// Mann–Whitney null distributions; the comments show the arithmetic.
func TestMedianCI(t *testing.T) {
	cases := []struct {
		name   string
		xs     []float64
		lo, hi float64
		level  float64
	}{
		// n=3: only [x(1), x(3)] exists; it covers with 1 − 2·(1/8) = 0.75.
		{"n=3", []float64{5, 1, 3}, 1, 5, 0.75},
		// n=5: 1 − 2/32 = 0.9375, still below 95 %.
		{"n=5", []float64{9, 7, 8, 6, 10}, 6, 10, 0.9375},
		// n=6: 1 − 2/64 = 0.96875 ≥ 0.95; k=2 would give 1 − 2·7/64 = 0.78.
		{"n=6", []float64{6, 1, 5, 2, 4, 3}, 1, 6, 0.96875},
		// n=10: k=2 gives 1 − 2·11/1024 = 0.978515625; k=3 gives 1 − 2·56/1024 = 0.89.
		{"n=10", []float64{10, 1, 9, 2, 8, 3, 7, 4, 6, 5}, 2, 9, 1 - 22.0/1024},
	}
	for _, c := range cases {
		ci := MedianCI(c.xs, 0.95)
		if ci.Lo != c.lo || ci.Hi != c.hi || !near(ci.Level, c.level, 1e-12) {
			t.Errorf("%s: MedianCI = [%v, %v] at %v, want [%v, %v] at %v", c.name, ci.Lo, ci.Hi, ci.Level, c.lo, c.hi, c.level)
		}
	}
	if ci := MedianCI([]float64{42}, 0.95); ci.OK() {
		t.Errorf("one value must give no interval, got %+v", ci)
	}
}

func TestUCounts(t *testing.T) {
	// 3 vs 3: the 20 arrangements by U, a textbook table.
	want := []float64{1, 1, 2, 3, 3, 3, 3, 2, 1, 1}
	if got := uCounts(3, 3); !reflect.DeepEqual(got, want) {
		t.Errorf("uCounts(3,3) = %v, want %v", got, want)
	}
}

func TestMannWhitney(t *testing.T) {
	cases := []struct {
		name       string
		x, y       []float64
		u, p, minP float64
	}{
		// Complete separation, 3 vs 3: only 2 of C(6,3)=20 arrangements are as
		// extreme, so p = 0.1 — the smallest p 3 runs against 3 can ever give.
		{"3v3 separated", []float64{110, 120, 130}, []float64{100, 101, 102}, 9, 0.1, 0.1},
		// 4 vs 4 separated: 2/70.
		{"4v4 separated", []float64{1, 2, 3, 4}, []float64{5, 6, 7, 8}, 0, 2.0 / 70, 2.0 / 70},
		// Interleaved: U = 3 (3>2, 5>2, 5>4); |U − 4.5| ≥ 1.5 holds for
		// U ≤ 3 (1+1+2+3 = 7) and U ≥ 6 (7): p = 14/20.
		{"3v3 interleaved", []float64{1, 3, 5}, []float64{2, 4, 6}, 3, 0.7, 0.1},
		// All tied: every arrangement has the same rank sum, p = 1.
		{"ties", []float64{1, 1}, []float64{1, 1}, 2, 1, 2.0 / 6},
	}
	for _, c := range cases {
		u, p, minP := mannWhitney(c.x, c.y)
		if u != c.u || !near(p, c.p, 1e-12) || !near(minP, c.minP, 1e-12) {
			t.Errorf("%s: U=%v p=%v minP=%v, want U=%v p=%v minP=%v", c.name, u, p, minP, c.u, c.p, c.minP)
		}
	}
}

func TestShiftCI(t *testing.T) {
	// 3 vs 3: differences 8,9,10,18,19,20,28,29,30; k=1 since P(U≤0) = 1/20
	// already exceeds 0.025; level 1 − 2/20 = 0.9.
	ci := ShiftCI([]float64{110, 120, 130}, []float64{100, 101, 102}, 0.95)
	if ci.Lo != 8 || ci.Hi != 30 || !near(ci.Level, 0.9, 1e-12) {
		t.Errorf("3v3: %+v, want [8, 30] at 0.9", ci)
	}
	// 5 vs 5: the 25 differences 10+i−j are 6..14 with multiplicities
	// 1,2,3,4,5,4,3,2,1. P(U≤2) = 4/252 ≤ 0.025 < P(U≤3) = 7/252, so k = 3:
	// the 3rd smallest (7) to the 3rd largest (13), level 1 − 8/252.
	ci = ShiftCI([]float64{10, 11, 12, 13, 14}, []float64{0, 1, 2, 3, 4}, 0.95)
	if ci.Lo != 7 || ci.Hi != 13 || !near(ci.Level, 1-8.0/252, 1e-12) {
		t.Errorf("5v5: %+v, want [7, 13] at %v", ci, 1-8.0/252)
	}
	if ci := ShiftCI([]float64{1}, []float64{1, 2}, 0.95); ci.OK() {
		t.Errorf("n=1 must give no interval: %+v", ci)
	}
}

func TestGeoMean(t *testing.T) {
	if g := GeoMean([]float64{1, 4}); !near(g, 2, 1e-12) {
		t.Errorf("GeoMean(1,4) = %v, want 2", g)
	}
	if g := GeoMean([]float64{2, 8, 4}); !near(g, 4, 1e-12) {
		t.Errorf("GeoMean(2,8,4) = %v, want 4", g)
	}
	// Ratios 2 and 0.5: the arithmetic mean says +25 %, the geometric mean
	// says no change, which is the truth.
	if g := GeoMean([]float64{2, 0.5}); !near(g, 1, 1e-12) {
		t.Errorf("GeoMean(2,0.5) = %v, want 1", g)
	}
	if g := GeoMean([]float64{3, 0}); g != 0 {
		t.Errorf("a zero must give 0, got %v", g)
	}
}

func TestCV(t *testing.T) {
	// mean 100, sample sd sqrt((100+0+100)/2) = 10 → 0.1
	if cv := cv([]float64{90, 100, 110}); !near(cv, 0.1, 1e-12) {
		t.Errorf("CV = %v, want 0.1", cv)
	}
}

// MannWhitney against scipy.stats.mannwhitneyu (testdata/mannwhitneyu_scipy.py
// says how the values were computed): samples past the exact size get the
// normal approximation with the tie and continuity corrections, as scipy's
// method='asymptotic' does, and a small sample without ties the exact
// distribution, as scipy's method='exact'.
func TestMannWhitneyMatchesScipy(t *testing.T) {
	xs := func(m int) []float64 {
		v := make([]float64, m)
		for i := range v {
			v[i] = float64((i * 37 % 101) / 3)
		}
		return v
	}
	ys := func(n int) []float64 {
		v := make([]float64, n)
		for j := range v {
			v[j] = float64((j*53%97)/3 + 4)
		}
		return v
	}
	cases := []struct {
		x, y []float64
		u, p float64
	}{
		{xs(40), ys(40), 700.5, 0.3404473154651696},
		{xs(50), ys(200), 4087.5, 0.046042548760918484},
		{xs(8), ys(120), 314.0, 0.10310994256477828},
		{xs(300), ys(300), 36510.5, 6.33121765116821e-05},
		{[]float64{0, 7, 14, 21, 5}, []float64{0.5, 5.5, 10.5, 15.5, 20.5, 25.5, 1.5}, 15, 0.7550505050505051},
	}
	for _, c := range cases {
		m, n := len(c.x), len(c.y)
		u, p, _ := mannWhitney(c.x, c.y)
		if u != c.u || !near(p, c.p, 1e-12) {
			t.Errorf("%d against %d (exact: %v): U=%v p=%v, scipy U=%v p=%v", m, n, exactMannWhitney(m, n), u, p, c.u, c.p)
		}
	}
	for _, c := range []struct {
		m, n  int
		exact bool
	}{{3, 3, true}, {33, 33, true}, {34, 34, false}, {8, 99, true}, {8, 120, false}, {3, 146, true}, {100, 100, false}} {
		if got := exactMannWhitney(c.m, c.n); got != c.exact {
			t.Errorf("ExactMannWhitney(%d, %d) = %v, want %v", c.m, c.n, got, c.exact)
		}
	}
}

// Past the exact size, the shift interval comes from the normal
// approximation of U: it reaches the level asked for, no more than a little
// beyond, and covers the true shift of two samples that differ by it.
func TestShiftCIOfLargeSamples(t *testing.T) {
	x, y := make([]float64, 120), make([]float64, 150)
	for i := range x {
		x[i] = 10 + float64(i*37%101)
	}
	for j := range y {
		y[j] = float64(j * 53 % 101)
	}
	ci := ShiftCI(x, y, 0.95)
	if !ci.OK() || ci.Level < 0.95 || ci.Level > 0.96 {
		t.Fatalf("interval %+v: want a level of 95 %% and a little more at most", ci)
	}
	if ci.Lo > 10 || ci.Hi < 10 || ci.Hi-ci.Lo > 40 {
		t.Errorf("interval %+v of a shift of 10", ci)
	}
}
