package analysis

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/fairbench/fairbench/internal/hist"
	"github.com/fairbench/fairbench/internal/result"
	"github.com/fairbench/fairbench/internal/testenv"
)

// simStudy is one simulated scenario: k cells, n interleaved rounds, runs
// log-normal with coefficient of variation cv around 1000, the target's
// true change in each cell, and a drift between rounds that both targets
// of a round share (what interleaving is for).
type simStudy struct {
	k, n        int
	cv, driftCV float64
	change      []float64 // per cell, as a ratio − 1
	sequential  bool      // run every baseline run before the target's
}

func logSD(cv float64) float64 { return math.Sqrt(math.Log1p(cv * cv)) }

// cells draws one study and returns its cells compared as Compare would.
//
// Each cell is compared as Compare does when compare is set; else only its
// direction is set, which is all the pooled verdict reads of it (the
// false-positive test's 240 000 scenarios would take minutes otherwise).
func (s simStudy) cells(rng *rand.Rand, alpha float64, compare bool) []*CellComparison {
	sd, drift := logSD(s.cv), logSD(s.driftCV)
	rounds := make([]float64, s.n)
	for r := range rounds {
		rounds[r] = drift * rng.NormFloat64()
	}
	t0 := time.Unix(1_700_000_000, 0)
	out := make([]*CellComparison, s.k)
	for c := range s.k {
		g := [2]*Group{}
		for side := range 2 {
			g[side] = &Group{Study: "sim", Workload: "w", Target: []string{"base", "other"}[side], Clients: c + 1,
				Headline: result.Headline{Name: "throughput", Unit: "tps", HigherIsBetter: true}}
			for r := range s.n {
				v := math.Log(1000) + rounds[r] + sd*rng.NormFloat64()
				if side == 1 {
					v += math.Log1p(s.change[c%len(s.change)])
				}
				slot := (r*s.k+c)*2 + side
				if s.sequential {
					slot = side*s.k*s.n + c*s.n + r
				}
				g[side].Runs = append(g[side].Runs, &result.Run{Repetition: r + 1, StartedAt: t0.Add(time.Duration(slot) * time.Minute)})
				g[side].Values = append(g[side].Values, math.Exp(v))
			}
			g[side].N = s.n
			g[side].Median = hist.Median(g[side].Values)
		}
		out[c] = &CellComparison{Base: g[0], Other: g[1], Headline: Metric{HigherIsBetter: true}}
		if compare {
			out[c].Headline = compareHeadline(g[0], g[1], alpha)
		}
	}
	return out
}

func decided(v Verdict) bool { return v == Faster || v == Slower }

// TestPooledFalsePositiveRateIsAlpha: on null data (no change in any cell),
// the scenario verdict claims a difference at rate α ± 1 %, for 1–6 cells,
// 2–5 rounds and scatter of 1–30 %, with and without drift between rounds,
// over 10 000 trials each (docs/statistics.md).
func TestPooledFalsePositiveRateIsAlpha(t *testing.T) {
	trials := 10_000
	if testing.Short() {
		trials = 2_000 // the race pass: the same check, a wider tolerance
	}
	tol := 0.01
	if testing.Short() {
		tol = 0.02
	}
	rng := rand.New(rand.NewPCG(48, 1))
	cvs := []float64{0.01, 0.10, 0.30}
	for k := 1; k <= 6; k++ {
		for n := 2; n <= 5; n++ {
			hits := 0
			for i := range trials {
				s := simStudy{k: k, n: n, cv: cvs[i%3], driftCV: []float64{0, 0.05}[i%2], change: []float64{0}}
				cells := s.cells(rng, DefaultAlpha, false)
				p := poolCells(cells, DefaultAlpha)
				if decided(p.Verdict) {
					hits++
				}
				checkPooledInterval(t, p)
			}
			rate := float64(hits) / float64(trials)
			if math.Abs(rate-DefaultAlpha) > tol {
				t.Errorf("k=%d cells, n=%d rounds: false-positive rate %.4f, want %.2f ± %.2f", k, n, rate, DefaultAlpha, tol)
			}
		}
	}
}

// checkPooledInterval: a printed interval is finite and holds the change.
func checkPooledInterval(t *testing.T, p *Pooled) {
	t.Helper()
	if !p.CI.OK() {
		return
	}
	if math.IsInf(p.CI.Lo, 0) || math.IsInf(p.CI.Hi, 0) || math.IsNaN(p.CI.Lo) || math.IsNaN(p.CI.Hi) ||
		p.Change < p.CI.Lo-1e-9 || p.Change > p.CI.Hi+1e-9 {
		t.Fatalf("printed interval [%g, %g] is not finite or misses the change %g (%s)", p.CI.Lo, p.CI.Hi, p.Change, p.Test)
	}
}

// power is the rate at which the pooled verdict, and a cell's own verdict,
// find the true change (in its direction).
func power(s simStudy, trials int, rng *rand.Rand) (pooled, cell float64) {
	var hp, hc int
	for range trials {
		cells := s.cells(rng, DefaultAlpha, true)
		if poolCells(cells, DefaultAlpha).Verdict == Faster {
			hp++
		}
		if cells[0].Headline.Verdict == Faster {
			hc++
		}
	}
	return float64(hp) / float64(trials), float64(hc) / float64(trials)
}

// TestPooledPowerBeatsCellsAndGrows: with a true change, the scenario
// verdict finds it at least as often as a cell's own test does, and more
// often with more cells and more rounds. It logs the power table
// docs/statistics.md shows (go test -run TestPooledPower -v).
func TestPooledPowerBeatsCellsAndGrows(t *testing.T) {
	if testenv.RaceDetector && testing.Short() {
		t.Skip("a simulation on one goroutine, 40 s under the race detector: covered by the run without it")
	}
	trials := 2000
	if testing.Short() {
		trials = 500
	}
	// The margin is Monte Carlo noise: about 3 standard errors of a
	// difference of two rates estimated from `trials` draws each.
	margin := 3 * math.Sqrt(2*0.25/float64(trials))
	var table strings.Builder
	fmt.Fprintf(&table, "| change | CV | drift | rounds | 1 cell | 2 cells | 3 cells | 6 cells | one cell's own test |\n|--:|--:|--:|--:|--:|--:|--:|--:|--:|\n")
	for _, tc := range []struct{ change, cv, drift float64 }{{0.05, 0.05, 0}, {0.10, 0.10, 0}, {0.10, 0.10, 0.10}, {0.20, 0.30, 0}} {
		prev := map[int]float64{}
		for _, n := range []int{2, 3, 5} {
			rng := rand.New(rand.NewPCG(uint64(n), uint64(tc.change*1000)))
			fmt.Fprintf(&table, "| %+.0f %% | %.0f %% | %.0f %% | %d |", tc.change*100, tc.cv*100, tc.drift*100, n)
			last, own := -1.0, -1.0
			for _, k := range []int{1, 2, 3, 6} {
				s := simStudy{k: k, n: n, cv: tc.cv, driftCV: tc.drift, change: []float64{tc.change}}
				pooled, cell := power(s, trials, rng)
				if own < 0 {
					own = cell // the same test in every k: a cell is a cell
				}
				fmt.Fprintf(&table, " %.2f |", pooled)
				if pooled < cell-margin {
					t.Errorf("%+.0f %%, CV %.0f %%, drift %.0f %%, k=%d, n=%d: pooled power %.3f below one cell's %.3f",
						tc.change*100, tc.cv*100, tc.drift*100, k, n, pooled, cell)
				}
				if pooled < last-margin {
					t.Errorf("%+.0f %%, CV %.0f %%, drift %.0f %%, n=%d: power falls from %.3f to %.3f at k=%d cells",
						tc.change*100, tc.cv*100, tc.drift*100, n, last, pooled, k)
				}
				if p, ok := prev[k]; ok && pooled < p-margin {
					t.Errorf("%+.0f %%, CV %.0f %%, drift %.0f %%, k=%d: power falls from %.3f to %.3f at n=%d rounds",
						tc.change*100, tc.cv*100, tc.drift*100, k, p, pooled, n)
				}
				prev[k], last = pooled, pooled
			}
			fmt.Fprintf(&table, " %.2f |\n", own)
		}
	}
	t.Logf("power at α = 0.05 (%d trials a cell):\n%s", trials, table.String())
}

// Detectable and RoundsNeeded agree with the t quantiles (scipy 1.17.1:
// stats.t.ppf(0.975, 5) = 2.5706, stats.t.ppf(0.8, 5) = 0.9195): six blocks
// of runs scattering 5 % on logs detect e^((2.5706+0.9195)·0.05·√2/√6) − 1.
func TestDetectableChangeAndRoundsNeeded(t *testing.T) {
	want := math.Expm1((2.5706+0.9195)*0.05*math.Sqrt2/math.Sqrt(6)) * 100
	if got := Detectable(0.05, 6, 0.05); math.Abs(got-want) > 0.01 {
		t.Errorf("Detectable(0.05, 6 blocks) = %.3f %%, want %.3f %%", got, want)
	}
	if got := roundsNeeded(0.05, 3, want+0.01, 0.05); got != 2 {
		t.Errorf("3 cells need %d rounds for %.2f %%, want 2", got, want)
	}
	if got := roundsNeeded(0.05, 3, want-0.5, 0.05); got != 3 {
		t.Errorf("3 cells need %d rounds for %.2f %%, want 3", got, want-0.5)
	}
	for _, bad := range []float64{0, math.NaN(), math.Inf(1), -100, -150} {
		if got := roundsNeeded(0.05, 3, bad, 0.05); got != 0 {
			t.Errorf("RoundsNeeded for %v %% = %d, want 0 (cannot say)", bad, got)
		}
	}
	if d := Detectable(0.05, 1, 0.05); !math.IsNaN(d) {
		t.Errorf("one block detects %v, want NaN", d)
	}
	// More rounds detect less; a tighter scatter, less.
	if Detectable(0.05, 12, 0.05) >= Detectable(0.05, 6, 0.05) || Detectable(0.02, 6, 0.05) >= Detectable(0.05, 6, 0.05) {
		t.Error("Detectable does not shrink with more blocks or less scatter")
	}
}

// firstRounds is cells with only the runs of their first r rounds: what a
// study that stopped after round r stored.
func firstRounds(cells []*CellComparison, r int) []*CellComparison {
	cut := func(g *Group) *Group {
		c := *g
		c.Runs, c.Values = nil, nil
		for i, run := range g.Runs {
			if run.Repetition <= r {
				c.Runs, c.Values = append(c.Runs, run), append(c.Values, g.Values[i])
			}
		}
		c.N = len(c.Runs)
		return &c
	}
	out := make([]*CellComparison, len(cells))
	for i, cc := range cells {
		c := *cc
		c.Base, c.Other = cut(cc.Base), cut(cc.Other)
		out[i] = &c
	}
	return out
}

// markPilot records on every run that its study ran pilot rounds (what
// the runner stores for repetitions = "auto"); 0 unmarks them.
func markPilot(cells []*CellComparison, pilot int) {
	for _, cc := range cells {
		for _, g := range []*Group{cc.Base, cc.Other} {
			for _, r := range g.Runs {
				r.Summary.PilotRounds = pilot
			}
		}
	}
}

// TestAutoRepetitionsFalsePositiveRateIsAlpha: repetitions = "auto" sizes
// the rounds from a pilot of AutoPilotRounds and tests all of them against
// the pilot's scatter (Stein's two stages); on null data its verdict
// claims a difference at rate α ± 1 % over 10 000 trials, and the rule
// stops before the maximum in some of them. The rate of the same rounds
// tested with the scatter of all blocks, the rule that fails, is logged
// beside it (go test -run TestAutoRepetitions -v; docs/statistics.md).
func TestAutoRepetitionsFalsePositiveRateIsAlpha(t *testing.T) {
	trials, tol := 10_000, 0.01
	if testing.Short() {
		trials, tol = 2_000, 0.02
	}
	rng := rand.New(rand.NewPCG(48, 3))
	for _, tc := range []struct {
		k, most        int
		width, cv, drf float64
	}{
		{3, 8, 4, 0.05, 0}, {2, 10, 8, 0.10, 0.05}, {6, 6, 2, 0.03, 0}, {1, 12, 10, 0.10, 0},
	} {
		var stein, naive, sequential, early, rounds int
		for range trials {
			s := simStudy{k: tc.k, n: tc.most, cv: tc.cv, driftCV: tc.drf, change: []float64{0}}
			all := s.cells(rng, DefaultAlpha, false)
			markPilot(all, AutoPilotRounds)
			r := autoRounds(firstRounds(all, AutoPilotRounds), AutoPilotRounds, tc.width, tc.most, DefaultAlpha)
			if r < AutoPilotRounds || r > tc.most {
				t.Fatalf("autoRounds = %d, outside %d..%d", r, AutoPilotRounds, tc.most)
			}
			if r < tc.most {
				early++
			}
			rounds += r
			cells := firstRounds(all, r)
			p := poolCells(cells, DefaultAlpha)
			if p.Test != SteinTest {
				t.Fatalf("auto study tested with %q, want %q", p.Test, SteinTest)
			}
			checkPooledInterval(t, p)
			if decided(p.Verdict) {
				stein++
			}
			markPilot(all, 0)
			if decided(poolCells(cells, DefaultAlpha).Verdict) {
				naive++
			}
			if decided(untilNarrow(all, tc.width, tc.most).Verdict) {
				sequential++
			}
		}
		rate := float64(stein) / float64(trials)
		t.Logf("k=%d cells, at most %d rounds, ±%.0f %% at CV %.0f %% (drift %.0f %%): Stein %.4f, all-blocks scatter %.4f, rounds until narrow %.4f; %.0f %% stopped early, %.2f rounds on average",
			tc.k, tc.most, tc.width, tc.cv*100, tc.drf*100, rate, float64(naive)/float64(trials), float64(sequential)/float64(trials),
			100*float64(early)/float64(trials), float64(rounds)/float64(trials))
		if math.Abs(rate-DefaultAlpha) > tol {
			t.Errorf("k=%d, at most %d rounds, ±%.0f %%, CV %.0f %%: false-positive rate %.4f, want %.2f ± %.2f",
				tc.k, tc.most, tc.width, tc.cv*100, rate, DefaultAlpha, tol)
		}
		if early == 0 {
			t.Errorf("k=%d, at most %d rounds, ±%.0f %%, CV %.0f %%: no trial stopped before the maximum: the case tests nothing", tc.k, tc.most, tc.width, tc.cv*100)
		}
	}
}

// untilNarrow is the rule that fails: add rounds until the pooled paired
// interval is at most ±width % (or most rounds ran), and test those.
func untilNarrow(all []*CellComparison, width float64, most int) *Pooled {
	for r := AutoPilotRounds; ; r++ {
		p := poolCells(firstRounds(all, r), DefaultAlpha)
		half := StudentQuantile(1-DefaultAlpha/2, p.DF) * p.SD / math.Sqrt(float64(p.Units))
		if r == most || half <= math.Log1p(width/100) {
			return p
		}
	}
}

// The rounds grow with the pilot's scatter and shrink with a wider
// interval, within AutoPilotRounds..most; a pilot without blocks asks for
// the most.
func TestAutoRoundsFollowThePilot(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 7))
	pilotOf := func(cv float64) []*CellComparison {
		s := simStudy{k: 2, n: AutoPilotRounds, cv: cv, change: []float64{0}}
		return s.cells(rng, DefaultAlpha, false)
	}
	quiet, noisy := pilotOf(0.001), pilotOf(0.5)
	if r := autoRounds(quiet, AutoPilotRounds, 5, 20, DefaultAlpha); r != AutoPilotRounds {
		t.Errorf("a pilot scattering 0.1 %% asks for %d rounds for ±5 %%, want %d", r, AutoPilotRounds)
	}
	if r := autoRounds(noisy, AutoPilotRounds, 5, 20, DefaultAlpha); r != 20 {
		t.Errorf("a pilot scattering 50 %% asks for %d rounds for ±5 %%, want the most, 20", r)
	}
	if r := autoRounds(nil, AutoPilotRounds, 5, 20, DefaultAlpha); r != 20 {
		t.Errorf("no pilot asks for %d rounds, want the most, 20", r)
	}
}
