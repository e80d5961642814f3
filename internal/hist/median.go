package hist

import "sort"

// Median returns the middle value of xs, the mean of the two middle values when
// len(xs) is even, and 0 when xs is empty (callers show N, which says why).
// xs is not modified. It lives beside the histograms because every layer that
// summarises samples needs it: the analysis builds its verdicts on it, and a
// workload's or a tool adapter's own report section uses the same one, so that
// its numbers agree with the report around it without depending on the
// analysis.
func Median(xs []float64) float64 {
	n := len(xs)
	if n == 0 {
		return 0
	}
	s := append([]float64(nil), xs...)
	sort.Float64s(s)
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}
