package analysis

// Welch's t-test on log values, the test fairbench uses where the exact
// Mann–Whitney test cannot decide at all: with 2 or 3 repetitions per side
// its smallest possible p-value (2 / C(m+n, m): 0.33 for 2 against 2, 0.10
// for 3 against 3) is not below α = 0.05, however large the difference.
// Welch's test assumes more — the logs of the per-run values roughly normal
// (throughput roughly log-normal) and the repetitions independent — and in
// exchange uses the size of the difference against the scatter of the
// repetitions, so −90 % with tight repetitions is decided with 3 against 3.
// Logs make the test about ratios, like every delta fairbench shows, and
// the variances of both sides are not assumed equal.

import (
	"math"
	"sync"
)

// welchResult is Welch's two-sample t-test of mean(x) − mean(y).
type welchResult struct {
	T, DF float64 // t statistic and Welch–Satterthwaite degrees of freedom
	P     float64 // two-sided p-value
	Diff  float64 // mean(x) − mean(y)
	SE    float64 // its standard error, sqrt(sx²/m + sy²/n)
	OK    bool    // false with fewer than 2 values on a side or no scatter at all
}

// welch runs Welch's unequal-variance t-test on x and y.
func welch(x, y []float64) welchResult {
	m, n := len(x), len(y)
	if m < 2 || n < 2 {
		return welchResult{P: 1}
	}
	mx, sx := meanSD(x)
	my, sy := meanSD(y)
	vx, vy := sx*sx/float64(m), sy*sy/float64(n)
	r := welchResult{Diff: mx - my, SE: math.Sqrt(vx + vy), P: 1}
	// Identical repetitions differ in their logs by rounding only: no scatter.
	if !(r.SE > 1e-12*math.Max(1, math.Max(math.Abs(mx), math.Abs(my)))) {
		return r
	}
	r.T = r.Diff / r.SE
	r.DF = (vx + vy) * (vx + vy) / (vx*vx/float64(m-1) + vy*vy/float64(n-1))
	r.P = studentTwoSidedP(r.T, r.DF)
	r.OK = true
	return r
}

// ci returns the (level) confidence interval of the difference of means,
// Diff ± t(df, (1+level)/2) · SE.
func (w welchResult) ci(level float64) CI {
	if !w.OK {
		return CI{}
	}
	q := StudentQuantile((1+level)/2, w.DF)
	return CI{Lo: w.Diff - q*w.SE, Hi: w.Diff + q*w.SE, Level: level}
}

// studentTwoSidedP is P(|T| ≥ |t|) for T ~ Student's t with df degrees of
// freedom (df > 0, not necessarily whole): I_{df/(df+t²)}(df/2, 1/2).
func studentTwoSidedP(t, df float64) float64 {
	if math.IsInf(t, 0) {
		return 0
	}
	return regIncBeta(df/2, 0.5, df/(df+t*t))
}

// StudentQuantile is the q-quantile (0.5 < q < 1) of Student's t with df
// degrees of freedom, by bisection on StudentTwoSidedP.
func StudentQuantile(q, df float64) float64 {
	key := quantileKey{q, df}
	if v, ok := quantiles.Load(key); ok {
		return v.(float64)
	}
	v := studentQuantile(q, df)
	if df == math.Trunc(df) && df <= 1000 {
		quantiles.Store(key, v) // whole degrees of freedom only: a bounded set
	}
	return v
}

// quantiles caches StudentQuantile for the few (q, df) pairs reports ask
// for again and again: 200 bisection steps of an incomplete beta each.
var quantiles sync.Map

type quantileKey struct{ q, df float64 }

func studentQuantile(q, df float64) float64 {
	want := 2 * (1 - q) // two-sided tail
	lo, hi := 0.0, 1.0
	for studentTwoSidedP(hi, df) > want && hi < 1e12 {
		hi *= 2
	}
	for i := 0; i < 200; i++ {
		mid := (lo + hi) / 2
		if studentTwoSidedP(mid, df) > want {
			lo = mid
		} else {
			hi = mid
		}
	}
	return (lo + hi) / 2
}

// regIncBeta is the regularised incomplete beta function I_x(a, b), by the
// continued fraction of Numerical Recipes (betacf), using the symmetry
// I_x(a, b) = 1 − I_{1−x}(b, a) where the fraction converges faster.
func regIncBeta(a, b, x float64) float64 {
	switch {
	case x <= 0:
		return 0
	case x >= 1:
		return 1
	}
	la, _ := math.Lgamma(a + b)
	lb, _ := math.Lgamma(a)
	lc, _ := math.Lgamma(b)
	front := math.Exp(la - lb - lc + a*math.Log(x) + b*math.Log(1-x))
	if x < (a+1)/(a+b+2) {
		return front * betaCF(a, b, x) / a
	}
	return 1 - front*betaCF(b, a, 1-x)/b
}

// betaCF evaluates the continued fraction of the regularised incomplete beta
// function by the modified Lentz method; each iteration takes an even and an
// odd term.
func betaCF(a, b, x float64) float64 {
	const eps, tiny = 1e-15, 1e-300
	qab, qap, qam := a+b, a+1, a-1
	nonzero := func(v float64) float64 {
		if math.Abs(v) < tiny {
			return tiny
		}
		return v
	}
	c, d := 1.0, 1/nonzero(1-qab*x/qap)
	h := d
	// step folds one term aa into the fraction and returns its factor.
	step := func(aa float64) float64 {
		d = 1 / nonzero(1+aa*d)
		c = nonzero(1 + aa/c)
		return d * c
	}
	for m := 1; m <= 300; m++ {
		fm := float64(m)
		h *= step(fm * (b - fm) * x / ((qam + 2*fm) * (a + 2*fm)))
		del := step(-(a + fm) * (qab + fm) * x / ((a + 2*fm) * (qap + 2*fm)))
		h *= del
		if math.Abs(del-1) < eps {
			break
		}
	}
	return h
}

// normalQuantile is the q-quantile of the standard normal distribution, by
// bisection on math.Erfc (plenty for the few values used: 0.975, 0.8).
func normalQuantile(q float64) float64 {
	lo, hi := -10.0, 10.0
	for i := 0; i < 200; i++ {
		mid := (lo + hi) / 2
		if 0.5*math.Erfc(-mid/math.Sqrt2) < q {
			lo = mid
		} else {
			hi = mid
		}
	}
	return (lo + hi) / 2
}

// mannWhitneyMinN is the smallest number of repetitions per side (equal
// sides) with which the exact Mann–Whitney test can reach p < alpha at all.
func mannWhitneyMinN(alpha float64) int {
	for n := 2; n < 50; n++ {
		if 2/choose(2*n, n) < alpha {
			return n
		}
	}
	return 50
}

// repsForPower estimates the repetitions per side a two-sided test at alpha
// needs to detect a difference of diff (on the log scale) with 80 % power
// when the repetitions scatter with standard deviation sd (also on the log
// scale): n = 2 (z(1−α/2) + z(0.8))² sd² / diff², at least minN. It returns
// 0 when diff is 0 or sd unknown (no estimate).
func repsForPower(diff, sd, alpha float64, minN int) int {
	if diff == 0 || !(sd > 0) || math.IsNaN(diff) {
		return 0
	}
	z := normalQuantile(1-alpha/2) + normalQuantile(0.8)
	n := int(math.Ceil(2 * z * z * sd * sd / (diff * diff)))
	return max(n, minN)
}
