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

// mannWhitney is the two-sided Mann–Whitney U test (Wilcoxon rank-sum) of
// samples x and y: p is the probability, if both samples came from one
// distribution, of a rank sum at least as far from its mean as the observed
// one. Ties get mid-ranks. Where counting it is cheap (ExactMannWhitney), p
// comes from the exact permutation distribution of the rank sum, ties and
// all; beyond, from the normal approximation with the tie and continuity
// corrections (what scipy.stats.mannwhitneyu's 'asymptotic' method
// computes), which is then accurate to well under a thousandth.
// MinP is the smallest p-value these sample sizes can produce at all,
// 2 / C(m+n, m): with 3 runs against 3 it is 0.1, so no difference can ever
// be significant at 0.05, however large.
// U is the number of pairs (x_i, y_j) with x_i > y_j, ties counting ½.
func mannWhitney(x, y []float64) (u, p, minP float64) {
	m, n := len(x), len(y)
	if m == 0 || n == 0 {
		return 0, 1, 1
	}
	ranks, inX, ties := midRanks(x, y)
	obsSum := 0 // x's doubled rank sum: doubled ranks are integers
	for i, r := range ranks {
		if inX[i] {
			obsSum += r
		}
	}
	u = float64(obsSum)/2 - float64(m*(m+1))/2
	minP = math.Min(1, 2/choose(m+n, m))
	if math.IsInf(choose(m+n, m), 1) {
		minP = 2 * math.Exp(-logChoose(m+n, m))
	}
	if !exactMannWhitney(m, n) {
		return u, normalMannWhitney(u, m, n, ties), minP
	}
	// The rank sums of the smaller sample's subsets are fewer to count; its
	// rank sum is as far from its mean as the other's.
	k, sum := m, obsSum
	if n < m {
		k, sum = n, (m+n)*(m+n+1)-obsSum
	}
	maxSum := (m + n) * (m + n + 1) // the doubled sum of all ranks
	// ways[j][s]: subsets of j of the ranks seen so far with doubled sum s.
	ways := make([][]float64, k+1)
	for j := range ways {
		ways[j] = make([]float64, maxSum+1)
	}
	ways[0][0] = 1
	for _, r := range ranks {
		for j := k; j >= 1; j-- {
			for s := maxSum; s >= r; s-- {
				ways[j][s] += ways[j-1][s-r]
			}
		}
	}
	total := choose(m+n, k)
	mean2 := k * (m + n + 1) // doubled expected rank sum of the counted sample
	dev := abs(sum - mean2)
	var tail float64
	for s, w := range ways[k] {
		if w > 0 && abs(s-mean2) >= dev {
			tail += w
		}
	}
	return u, math.Min(1, tail/total), minP
}

// exactWork bounds the additions the exact distributions take: counting
// the rank sums of the smaller sample's subsets (MannWhitney) takes about
// min(m, n)·(m+n)³ of them, the arrangements of U (ShiftCI) fewer. 10⁷ are
// a few milliseconds; at 100 repetitions a side the count would take
// minutes per comparison and dominate a report.
const exactWork = 1e7

// exactMannWhitney reports whether samples of m and n values get the exact
// distribution of the Mann–Whitney statistic (MannWhitney, ShiftCI): when
// min(m, n)·(m+n)³ ≤ 10⁷ — up to 33 repetitions a side, 8 against 99, 3
// against 146. Beyond, both use its normal approximation.
func exactMannWhitney(m, n int) bool {
	big := float64(m + n)
	return float64(min(m, n))*big*big*big <= exactWork
}

// midRanks ranks x and y together, ties getting the mean of their ranks,
// doubled so that they are integers; inX marks the ranks of x's values and
// ties is Σ(t³ − t) over the groups of t tied values.
func midRanks(x, y []float64) (ranks []int, inX []bool, ties float64) {
	type obs struct {
		v   float64
		inX bool
	}
	all := make([]obs, 0, len(x)+len(y))
	for _, v := range x {
		all = append(all, obs{v: v, inX: true})
	}
	for _, v := range y {
		all = append(all, obs{v: v})
	}
	sort.SliceStable(all, func(i, j int) bool { return all[i].v < all[j].v })
	ranks, inX = make([]int, len(all)), make([]bool, len(all))
	for i := 0; i < len(all); {
		j := i
		for j < len(all) && all[j].v == all[i].v {
			j++
		}
		for k := i; k < j; k++ {
			ranks[k], inX[k] = i+1+j, all[k].inX // twice the mean of ranks i+1 … j
		}
		t := float64(j - i)
		ties += t*t*t - t
		i = j
	}
	return ranks, inX, ties
}

// normalMannWhitney is the two-sided p-value of U for samples of m and n
// values from the normal approximation of its distribution, with the tie
// correction of its variance (ties: Σ(t³ − t) over the tied groups) and the
// continuity correction, as scipy.stats.mannwhitneyu computes it
// (method='asymptotic', use_continuity=True).
func normalMannWhitney(u float64, m, n int, ties float64) float64 {
	mn, big := float64(m*n), float64(m+n)
	sd := math.Sqrt(mn / 12 * ((big + 1) - ties/(big*(big-1))))
	if sd == 0 || math.IsNaN(sd) { // every value tied
		return 1
	}
	z := (math.Max(u, mn-u) - mn/2 - 0.5) / sd
	return math.Min(1, math.Erfc(z/math.Sqrt2)) // 2·P(Z > z)
}

// logChoose is ln C(n, k).
func logChoose(n, k int) float64 {
	a, _ := math.Lgamma(float64(n + 1))
	b, _ := math.Lgamma(float64(k + 1))
	c, _ := math.Lgamma(float64(n - k + 1))
	return a - b - c
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
	if !exactMannWhitney(m, n) {
		k, achieved := normalShiftRank(m, n, level)
		return CI{Lo: d[k-1], Hi: d[m*n-k], Level: achieved}
	}
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

// normalShiftRank is ShiftCI's k for samples too large for the exact
// distribution of U: the largest k with P(U ≤ k−1) ≤ (1 − level)/2 under the
// normal approximation with the continuity correction, and the level it
// achieves.
func normalShiftRank(m, n int, level float64) (int, float64) {
	mn := float64(m * n)
	sd := math.Sqrt(mn * float64(m+n+1) / 12)
	below := func(k int) float64 { return 0.5 * math.Erfc(-((float64(k) - 0.5 - mn/2) / sd / math.Sqrt2)) } // P(U ≤ k−1)
	k := max(1, int(math.Floor(mn/2+0.5+sd*normalQuantile((1-level)/2))))
	for k > 1 && 1-2*below(k) < level {
		k--
	}
	return k, 1 - 2*below(k)
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

// cv is the coefficient of variation of xs: sample standard deviation over the
// mean. It is 0 for fewer than two values or a zero mean.
func cv(xs []float64) float64 {
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
