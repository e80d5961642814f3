package analysis

import (
	"fmt"
	"math"
	"sort"

	"github.com/fairbench/fairbench/internal/result"
)

// What a planned study can detect, from how much runs of its cells
// scattered before: validate prints it per scenario, so that a study is
// sized before it runs (docs/statistics.md, "What a plan can detect").

// Scatter is how much repeated runs of one cell scatter, pooled over
// cells: the standard deviation of their headline values' logs, with its
// degrees of freedom and the runs it came from.
type Scatter struct {
	SD       float64
	DF, Runs int
}

// RunScatter pools the scatter of the completed runs, grouped into cells
// by key: Σ of each cell's squared log deviations over Σ (n − 1).
func RunScatter(runs []*result.Run, key func(*result.Run) string) Scatter {
	cells := map[string][]float64{}
	var order []string
	for _, r := range runs {
		v := Headline(r).Value
		if r.Status != result.StatusOK || !(v > 0) || math.IsInf(v, 0) {
			continue
		}
		k := key(r)
		if _, ok := cells[k]; !ok {
			order = append(order, k)
		}
		cells[k] = append(cells[k], math.Log(v))
	}
	sort.Strings(order)
	var ss float64
	var s Scatter
	for _, k := range order {
		xs := cells[k]
		if len(xs) < 2 {
			continue
		}
		ss += sumSq(xs, mean(xs))
		s.DF += len(xs) - 1
		s.Runs += len(xs)
	}
	if s.DF > 0 {
		s.SD = math.Sqrt(ss / float64(s.DF))
	}
	return s
}

// Detectable is the smallest change, in %, that a paired test over blocks
// blocks detects at alpha with 80 % power when one run's log value
// scatters by sd: a block's log ratio scatters by sd·√2, the mean of
// blocks of them by that over √blocks, and the change detected is
// (t(1 − α/2) + t(0.8)) times that, on blocks − 1 degrees of freedom. NaN
// when it cannot say (fewer than 2 blocks, no scatter).
func Detectable(sd float64, blocks int, alpha float64) float64 {
	if blocks < 2 || !(sd > 0) || math.IsInf(sd, 0) {
		return math.NaN()
	}
	return detectable(sd*math.Sqrt2/math.Sqrt(float64(blocks)), float64(blocks-1), alpha)
}

// detectable is the change, in %, a two-sided t test at alpha detects with
// 80 % power when its estimate has standard error se on df degrees of
// freedom: (t(1 − α/2) + t(0.8)) · se on the log scale.
func detectable(se, df, alpha float64) float64 {
	return math.Expm1((StudentQuantile(1-alpha/2, df)+StudentQuantile(0.8, df))*se) * 100
}

// roundsNeeded is how many rounds a scenario of cells cells needs for a
// paired test to detect a change of pct % (Detectable ≤ |pct|); 0 when it
// cannot say, maxRepsAdvised + 1 when more than that.
func roundsNeeded(sd float64, cells int, pct, alpha float64) int {
	if cells < 1 || !(sd > 0) || pct == 0 || math.IsNaN(pct) || math.IsInf(pct, 0) || pct <= -100 {
		return 0
	}
	want := math.Abs(math.Expm1(math.Abs(math.Log1p(pct/100)))) * 100
	for r := 1; r <= maxRepsAdvised; r++ {
		if d := Detectable(sd, r*cells, alpha); !math.IsNaN(d) && d <= want {
			return r
		}
	}
	return maxRepsAdvised + 1
}

// PlannedScenario is one scenario of a plan: its cells, rounds and the
// scatter earlier runs of its cells had.
type PlannedScenario struct {
	Name          string
	Cells, Rounds int
	Scatter       Scatter
}

// PowerLine says what the scenario can detect: "tpcb mode=select-only:
// +7.9 % or −7.3 % over 3 cells × 2 rounds (runs scattered ±4.1 %, from 12
// runs); rounds needed: 2 % ~41, 5 % ~7, 10 % ~2 and 20 % ~1".
func (p PlannedScenario) PowerLine(alpha float64) string {
	if p.Scatter.DF == 0 {
		return fmt.Sprintf("%s: no earlier repeated runs of its cells to estimate from", p.Name)
	}
	s := fmt.Sprintf("%s: ", p.Name)
	if d := Detectable(p.Scatter.SD, p.Cells*p.Rounds, alpha); math.IsNaN(d) {
		s += fmt.Sprintf("no test with %d cells × %d rounds", p.Cells, p.Rounds)
	} else {
		// A log change: +x % up is −x/(1+x) down.
		s += fmt.Sprintf("+%.1f %% or −%.1f %% over %d cells × %d rounds", d, 100*d/(100+d), p.Cells, p.Rounds)
	}
	s += fmt.Sprintf(" (runs scattered ±%.1f %%, from %d runs)", math.Expm1(p.Scatter.SD)*100, p.Scatter.Runs)
	var needs []string
	for _, pct := range []float64{2, 5, 10, 20} {
		n := roundsNeeded(p.Scatter.SD, p.Cells, pct, alpha)
		switch {
		case n == 0:
		case n > maxRepsAdvised:
			needs = append(needs, fmt.Sprintf("%g %% over %d rounds", pct, maxRepsAdvised))
		default:
			needs = append(needs, fmt.Sprintf("%g %% ~%d", pct, n))
		}
	}
	if len(needs) > 0 {
		s += "; rounds needed: " + joinAnd(needs)
	}
	return s
}
