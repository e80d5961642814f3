package analysis

// The interval of a change, and the rule that decides whether it is worth
// printing. A change is a ratio of two groups of repetitions; its interval
// is computed on log values (so it is about ratios, like the change) by the
// test that decides the verdict: the Moses interval of Mann–Whitney where
// that test can reach α, Welch's t interval with its Welch–Satterthwaite
// degrees of freedom where it cannot (2 or 3 repetitions a side at α = 0.05).
//
// With 2 or 3 repetitions that scatter, Welch's interval can be a factor of
// millions wide (t with one degree of freedom is 12.7, and a log SE of 1.5
// makes that e^19): finite, but no information, and its bounds come from the
// t distribution's tails rather than from the data. Such an interval is not
// given at all: DeltaCI stays empty and the metric says why, and how many
// repetitions per side would give an interval that says something.

import (
	"fmt"
	"math"
)

// maxCISpan is the widest interval of a change that is printed: its upper
// bound on the ratio at most this many times its lower bound (4: the ratio
// known to within a factor of 2 either way). Wider than that, the interval
// says little beyond "the repetitions scatter", which the reason says
// better, with the repetitions that would narrow it.
const maxCISpan = 4.0

// maxRepsAdvised is where the advice "N repetitions per side would give an
// interval" stops counting.
const maxRepsAdvised = 100

// changeCI computes the interval of the change of other against base, in %,
// and whether it is printable: finite, containing delta (the shown change,
// in %, which for latency comes from merged histograms rather than the
// per-run values the interval is about), and spanning at most MaxCISpan.
// When it is not, the CI is empty and why says so. w is Welch's test on the
// logs when the verdict uses it (w.OK), else the zero value: the Moses
// interval is used.
func changeCI(lb, lo []float64, delta, alpha float64, welch bool, w welchResult) (ci CI, why string) {
	m, n := len(lb), len(lo)
	var raw CI // on the log scale
	if welch {
		if !w.OK {
			return CI{}, fmt.Sprintf("%s: repetitions without scatter, no interval; %d per side would give Mann–Whitney's",
				repsText(m, n), mannWhitneyMinN(alpha))
		}
		raw = w.ci(1 - alpha)
	} else {
		raw = ShiftCI(lo, lb, 1-alpha)
	}
	return printableCI(raw, delta, func() string { return wideReason(lb, lo, alpha) })
}

// printableCI turns raw, an interval of a log change, into one of the change
// in %, when it is printable: finite, containing delta and spanning at most
// MaxCISpan; else it returns none, with wide's reason when it is too wide.
func printableCI(raw CI, delta float64, wide func() string) (CI, string) {
	if !raw.OK() {
		return CI{}, ""
	}
	point := math.Log1p(delta / 100)
	const eps = 1e-9 // the shown change and the interval are computed apart
	switch {
	case math.IsNaN(point):
		return CI{}, ""
	case raw.Hi-raw.Lo > math.Log(maxCISpan) || math.IsInf(raw.Lo, 0) || math.IsInf(raw.Hi, 0) || math.IsNaN(raw.Lo) || math.IsNaN(raw.Hi):
		return CI{}, wide()
	case point < raw.Lo-eps || point > raw.Hi+eps:
		// For latency the shown change is between merged histograms, the
		// interval about the per-run percentiles: they can disagree.
		return CI{}, fmt.Sprintf("the shown %+.1f %% lies outside the interval of the per-run values: no interval", delta)
	}
	return CI{Lo: math.Expm1(raw.Lo) * 100, Hi: math.Expm1(raw.Hi) * 100, Level: raw.Level}, ""
}

// wideReason says that the repetitions are too few, for their scatter, to
// bound the change within MaxCISpan, and how many per side would: the
// smallest n whose expected t interval, t(1−α/2, 2n−2) · s · √(2/n) either
// side with s the pooled standard deviation of the logs, spans at most
// MaxCISpan.
func wideReason(lb, lo []float64, alpha float64) string {
	m, n := len(lb), len(lo)
	_, sb := meanSD(lb)
	_, so := meanSD(lo)
	s := math.Sqrt((sb*sb + so*so) / 2)
	s100 := math.Expm1(s) * 100
	half := math.Log(maxCISpan) / 2
	halfWidth := func(k int) float64 {
		return StudentQuantile(1-alpha/2, float64(2*k-2)) * s * math.Sqrt(2/float64(k))
	}
	k, hi := max(m, n)+1, maxRepsAdvised
	if halfWidth(hi) > half {
		return fmt.Sprintf("%s scattering ±%.0f %%: too few for an interval; even %d per side would not bound it within ×%g",
			repsText(m, n), s100, maxRepsAdvised, maxCISpan)
	}
	for k < hi { // the half-width falls as k grows: the smallest k within half
		if mid := (k + hi) / 2; halfWidth(mid) <= half {
			hi = mid
		} else {
			k = mid + 1
		}
	}
	return fmt.Sprintf("%s scattering ±%.0f %%: too few for an interval; ~%d per side would give about +%.0f/−%.0f %%",
		repsText(m, n), s100, k, math.Expm1(halfWidth(k))*100, -math.Expm1(-halfWidth(k))*100)
}

// repsText names the repetitions of both sides: "2 repetitions" when they
// are equal, "2+3 repetitions" when not.
func repsText(m, n int) string {
	if m == n {
		return fmt.Sprintf("%d repetitions", m)
	}
	return fmt.Sprintf("%d+%d repetitions", m, n)
}
