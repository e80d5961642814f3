package analysis

// The statistics behind fairbench's verdicts. All of them are non-parametric
// and exact for the sample sizes benchmarks have (3 to 10 repetitions): no
// normality is assumed, no random resampling is involved, so the same data
// always give the same numbers. docs/statistics.md says the same in
// plain words.

import (
	"math"
	"sort"
)

// CI is a confidence interval. Level is the confidence actually achieved,
// which for small samples can be below the level that was asked for: with
// three runs no distribution-free interval for a median reaches 95 %, and
// saying "75 %" is more honest than widening the interval by assumption.
type CI struct {
	Lo, Hi float64
	Level  float64 // 0 when there is no interval (n < 2)
}

// OK reports whether the interval exists.
func (c CI) OK() bool { return c.Level > 0 }

// MedianCI returns the distribution-free confidence interval for the median
// of xs built from order statistics: [x(k), x(n−k+1)] covers the true median
// with probability 1 − 2·P(B ≤ k−1), B ~ Binomial(n, ½), for any continuous
// distribution. k is the largest index that reaches the wanted level; when
// even k = 1 (the range of the sample) cannot reach it (n < 6 for 95 %), the
// range is returned with the level it does reach. n < 2 gives no interval.
func MedianCI(xs []float64, level float64) CI {
	n := len(xs)
	if n < 2 {
		return CI{}
	}
	s := append([]float64(nil), xs...)
	sort.Float64s(s)
	// cdf[j] = P(B ≤ j)
	k, achieved := 1, 1-2*binomCDF(n, 0)
	for j := 2; j <= n/2; j++ {
		l := 1 - 2*binomCDF(n, j-1)
		if l < level {
			break
		}
		k, achieved = j, l
	}
	return CI{Lo: s[k-1], Hi: s[n-k], Level: achieved}
}

// binomCDF is P(B ≤ j) for B ~ Binomial(n, ½).
func binomCDF(n, j int) float64 {
	var sum float64
	for i := 0; i <= j; i++ {
		sum += choose(n, i)
	}
	return sum / math.Pow(2, float64(n))
}

func choose(n, k int) float64 {
	if k < 0 || k > n {
		return 0
	}
	r := 1.0
	for i := 1; i <= k; i++ {
		r = r * float64(n-k+i) / float64(i)
	}
	return math.Round(r)
}

// MannWhitney is the two-sided Mann–Whitney U test (Wilcoxon rank-sum) of
// samples x and y, with the exact permutation distribution of the rank sum
// (ties get mid-ranks and stay exact): p is the probability, if both samples
// came from one distribution, of a rank sum at least as far from its mean as
// the observed one. MinP is the smallest p-value these sample sizes can
// produce at all, 2 / C(m+n, m): with 3 runs against 3 it is 0.1, so no
// difference can ever be significant at 0.05, however large.
// U is the number of pairs (x_i, y_j) with x_i > y_j, ties counting ½.
func MannWhitney(x, y []float64) (u, p, minP float64) {
	m, n := len(x), len(y)
	if m == 0 || n == 0 {
		return 0, 1, 1
	}
	type obs struct {
		v    float64
		inX  bool
		rank float64
	}
	all := make([]obs, 0, m+n)
	for _, v := range x {
		all = append(all, obs{v: v, inX: true})
	}
	for _, v := range y {
		all = append(all, obs{v: v})
	}
	sort.SliceStable(all, func(i, j int) bool { return all[i].v < all[j].v })
	for i := 0; i < len(all); {
		j := i
		for j < len(all) && all[j].v == all[i].v {
			j++
		}
		mid := float64(i+1+j) / 2 // mean of ranks i+1 … j
		for k := i; k < j; k++ {
			all[k].rank = mid
		}
		i = j
	}
	// Doubled ranks are integers, so the distribution is counted exactly.
	ranks := make([]int, len(all))
	obsSum := 0
	for i, o := range all {
		ranks[i] = int(math.Round(2 * o.rank))
		if o.inX {
			obsSum += ranks[i]
		}
	}
	maxSum := 0
	for _, r := range ranks {
		maxSum += r
	}
	// ways[k][s]: subsets of k of the ranks seen so far with doubled sum s.
	ways := make([][]float64, m+1)
	for k := range ways {
		ways[k] = make([]float64, maxSum+1)
	}
	ways[0][0] = 1
	for _, r := range ranks {
		for k := m; k >= 1; k-- {
			for s := maxSum; s >= r; s-- {
				ways[k][s] += ways[k-1][s-r]
			}
		}
	}
	total := choose(m+n, m)
	mean2 := m * (m + n + 1) // doubled expected rank sum of x
	dev := abs(obsSum - mean2)
	var tail float64
	for s, w := range ways[m] {
		if w > 0 && abs(s-mean2) >= dev {
			tail += w
		}
	}
	u = float64(obsSum)/2 - float64(m*(m+1))/2
	return u, math.Min(1, tail/total), math.Min(1, 2/total)
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

// uCounts returns, for samples of sizes m and n without ties, the number of
// the C(m+n, m) equally likely arrangements with U = u, u = 0 … m·n.
func uCounts(m, n int) []float64 {
	// f[i][j][u] by the recurrence f(i,j,u) = f(i−1,j,u−j) + f(i,j−1,u).
	prev := make([][]float64, n+1) // i−1
	for j := range prev {
		prev[j] = make([]float64, m*n+1)
		prev[j][0] = 1 // i = 0: only U = 0
	}
	for i := 1; i <= m; i++ {
		cur := make([][]float64, n+1)
		for j := 0; j <= n; j++ {
			cur[j] = make([]float64, m*n+1)
			for u := 0; u <= m*n; u++ {
				if u-j >= 0 {
					cur[j][u] += prev[j][u-j]
				}
				if j > 0 {
					cur[j][u] += cur[j-1][u]
				}
			}
		}
		prev = cur
	}
	return prev[n]
}

// ShiftCI is the Hodges–Lehmann / Moses confidence interval for the shift
// between two samples: the pairwise differences x_i − y_j, sorted, from the
// k-th smallest to the k-th largest, where k comes from the same exact null
// distribution of U that MannWhitney uses. The interval therefore excludes 0
// when, and (without ties) only when, the test rejects at 1 − level. Like
// MedianCI it returns the widest interval (all differences) with its real
// level when the samples are too small to reach the wanted one. Either sample
// with fewer than 2 values gives no interval.
func ShiftCI(x, y []float64, level float64) CI {
	m, n := len(x), len(y)
	if m < 2 || n < 2 {
		return CI{}
	}
	d := make([]float64, 0, m*n)
	for _, a := range x {
		for _, b := range y {
			d = append(d, a-b)
		}
	}
	sort.Float64s(d)
	counts := uCounts(m, n)
	total := choose(m+n, m)
	cum := 0.0 // P(U ≤ k−1) · total
	k, achieved := 1, 1-2*counts[0]/total
	cum = counts[0]
	for j := 2; j <= m*n/2; j++ {
		cum += counts[j-1]
		l := 1 - 2*cum/total
		if l < level {
			break
		}
		k, achieved = j, l
	}
	return CI{Lo: d[k-1], Hi: d[m*n-k], Level: achieved}
}

// GeoMean is the geometric mean of xs, the only mean that summarises ratios
// consistently (the geomean of A/B is the inverse of the geomean of B/A). It
// returns 0 for an empty slice or when any value is not positive.
func GeoMean(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	var s float64
	for _, x := range xs {
		if !(x > 0) {
			return 0
		}
		s += math.Log(x)
	}
	return math.Exp(s / float64(len(xs)))
}

// CV is the coefficient of variation of xs: sample standard deviation over the
// mean. It is 0 for fewer than two values or a zero mean.
func CV(xs []float64) float64 {
	m, sd := meanSD(xs)
	if len(xs) < 2 || m == 0 {
		return 0
	}
	return sd / m
}

// meanSD returns the mean and the sample (n−1) standard deviation.
func meanSD(xs []float64) (mean, sd float64) {
	if len(xs) == 0 {
		return 0, 0
	}
	for _, x := range xs {
		mean += x
	}
	mean /= float64(len(xs))
	if len(xs) < 2 {
		return mean, 0
	}
	var ss float64
	for _, x := range xs {
		ss += (x - mean) * (x - mean)
	}
	return mean, math.Sqrt(ss / float64(len(xs)-1))
}
