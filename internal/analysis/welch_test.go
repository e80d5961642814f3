package analysis

import (
	"math"
	"testing"
)

// The reference values were computed independently with mpmath (30 digits):
// Welch's t and df by their definitions, p by integrating Student's t density
// numerically (not through the incomplete beta function used here).
func TestWelchKnownValues(t *testing.T) {
	logs := func(xs ...float64) []float64 {
		out := make([]float64, len(xs))
		for i, x := range xs {
			out[i] = math.Log(x)
		}
		return out
	}
	cases := []struct {
		name     string
		x, y     []float64
		t, df, p float64
	}{
		// Wikipedia's first Welch example (A1 vs A2, 15 values each).
		{"wikipedia", []float64{27.5, 21.0, 19.0, 23.6, 17.0, 17.9, 16.9, 20.1, 21.9, 22.6, 23.1, 19.6, 19.0, 21.7, 21.4},
			[]float64{27.1, 22.0, 20.8, 23.4, 23.4, 23.5, 25.8, 22.0, 24.8, 20.2, 21.9, 22.1, 22.9, 20.5, 24.4},
			-2.45535639828600448657, 24.98852929023141439415, 0.02137800146286705991},
		// 3 against 3 on logs, −90 %: decided although Mann–Whitney cannot.
		{"log -90%", logs(120, 118, 125), logs(1180, 1210, 1195), -123.253826361596228682, 2.69524539760999586483, 0.00000390976175701008927},
		// 3 against 3 on logs, within a percent: no difference.
		{"log same", logs(1000, 1040, 990), logs(1010, 1020, 1005), -0.11864633492084953848, 2.33322531417601280048, 0.91500046315725311450},
	}
	for _, c := range cases {
		w := welch(c.x, c.y)
		if !w.OK || !near(w.T, c.t, 1e-9*math.Abs(c.t)) || !near(w.DF, c.df, 1e-9*c.df) || !near(w.P, c.p, 1e-7*c.p) {
			t.Errorf("%s: t=%.12g df=%.12g p=%.12g, want t=%.12g df=%.12g p=%.12g", c.name, w.T, w.DF, w.P, c.t, c.df, c.p)
		}
	}
	// The 97.5 % quantile of t with 4 degrees of freedom is 2.7764451051977943.
	if q := StudentQuantile(0.975, 4); !near(q, 2.7764451051977943, 1e-9) {
		t.Errorf("t(0.975, 4) = %.15g", q)
	}
	if w := welch([]float64{1}, []float64{2, 3}); w.OK {
		t.Errorf("one value on a side must give no test: %+v", w)
	}
	if w := welch([]float64{1, 1}, []float64{2, 2}); w.OK {
		t.Errorf("no scatter must give no test: %+v", w)
	}
}

func TestMannWhitneyMinNAndPower(t *testing.T) {
	// 2/C(6,3) = 0.1, 2/C(8,4) = 0.029: 4 per side for α = 0.05, 3 for α = 0.11.
	if n := mannWhitneyMinN(0.05); n != 4 {
		t.Errorf("MannWhitneyMinN(0.05) = %d, want 4", n)
	}
	if n := mannWhitneyMinN(0.11); n != 3 {
		t.Errorf("MannWhitneyMinN(0.11) = %d, want 3", n)
	}
	// (1.959964 + 0.841621)² × 2 × 0.1² / 0.05² = 62.79 → 63.
	if n := repsForPower(0.05, 0.1, 0.05, 4); n != 63 {
		t.Errorf("RepsForPower = %d, want 63", n)
	}
	if n := repsForPower(0, 0.1, 0.05, 4); n != 0 {
		t.Errorf("no difference must give no estimate, got %d", n)
	}
}

// With 3 repetitions per side the verdict comes from Welch's t on logs and
// names it; a difference within the scatter says why there is no verdict and
// how many repetitions would find one.
func TestSmallSampleVerdicts(t *testing.T) {
	gs, _ := GroupRuns(append(reps(1, "base", 1180, 1210, 1195), reps(100, "other", 120, 118, 125)...))
	cmp, err := Compare(gs, "base", DefaultAlpha)
	if err != nil {
		t.Fatal(err)
	}
	m := cmp.Cells[0].Headline
	if m.Verdict != Slower || m.Test != WelchTest || !(m.P < 0.001) {
		t.Errorf("−90 %% with 3 vs 3: verdict %q by %q, p=%v", m.Verdict, m.Test, m.P)
	}
	if !m.DeltaCI.OK() || !(m.DeltaCI.Hi < -85) || !(m.DeltaCI.Lo > -95) || m.DeltaCI.Level != 0.95 {
		t.Errorf("Welch interval %+v", m.DeltaCI)
	}
	gs, _ = GroupRuns(append(reps(1, "base", 1010, 1020, 1005), reps(100, "other", 1000, 1040, 990)...))
	cmp, _ = Compare(gs, "base", DefaultAlpha)
	m = cmp.Cells[0].Headline
	if m.Verdict != NoDifference || m.Test != WelchTest || m.Reason == "" || m.NeedN <= 3 {
		t.Errorf("same with 3 vs 3: %+v", m)
	}
	// No scatter at all: neither test decides, and the reason says so.
	gs, _ = GroupRuns(append(reps(1, "base", 1000, 1000, 1000), reps(100, "other", 2000, 2000, 2000)...))
	cmp, _ = Compare(gs, "base", DefaultAlpha)
	m = cmp.Cells[0].Headline
	if m.Verdict != TooFewForTest || m.NeedN != 4 || m.Reason == "" {
		t.Errorf("no scatter: %+v", m)
	}
}
