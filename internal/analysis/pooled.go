package analysis

// A scenario's verdict pools the evidence of all its cells, as the study's
// design allows (docs/statistics.md, "One verdict per scenario").
//
// With interleaved order, round r runs every target's cell c back to back:
// the target's run and the baseline's run of one cell and round are a
// block, and their log ratio d = log(target) − log(baseline) is free of
// whatever drifted between rounds (caches, neighbours, thermal state). The
// scenario's change is the mean of the blocks' log ratios and its test a
// one-sample t on them with N − 1 degrees of freedom (N blocks over all its
// cells): the two-way model log x = block + target + error, whose target
// effect is exactly that mean. Under the null of no change in any cell it
// is exact for log-normal runs, whatever the cells' sizes; when the cells'
// true changes differ (−19 % at 1 client, −38 % at 4), that spread enters
// the residual, which makes the test conservative for the cells' average
// change, never liberal. A pre-test that switched to a k − 1 degree test on
// the cells' means when they disagree was simulated and rejected: its
// false-positive rate falls to 3.3–4.3 % at α = 0.05, outside α ± 1 %
// (pooled_sim_test.go prints the table).
//
// Cells are the study's chosen levels (1, 2, 4 clients), not a sample of
// possible levels, so they are fixed effects: the change is about these
// cells, and cells that disagree in direction (faster at 1 client, slower
// at 64) are said to disagree instead of pooled into "no difference".
//
// Runs that are not in blocks (sequential order, imported runs, runs of
// different studies) are pooled unpaired: per cell the difference of the
// sides' mean logs, weighted by 1/(1/m + 1/n), tested against the scatter
// of all runs around their cell and side means plus the cells' spread
// around the pooled change (two-way model log x = cell + target + error),
// with Σ(n − 1) + k − 1 degrees of freedom. The sentence says which.

import (
	"fmt"
	"math"
	"slices"
	"sort"
)

// The pooled tests, named as reports print them.
const (
	PairedTest   = "paired t on log ratios"
	UnpairedTest = "pooled t on log values, unpaired"
	// SteinTest is the paired test of a study with repetitions = "auto":
	// the mean of all blocks against the scatter of the pilot's (autoTest).
	SteinTest = PairedTest + ", Stein's two stages"
)

// Pooled is one target's change against the baseline over a scenario's
// cells, tested as the design allows.
type Pooled struct {
	// Paired says the runs are blocks of interleaved rounds; false: unpaired.
	Paired bool
	Test   string
	// Cells is how many cells entered; Rounds the most blocks (paired) or
	// repetitions per side (unpaired) any of them has; Units the blocks
	// (paired) or runs of both sides (unpaired) used.
	Cells, Rounds, Units int
	// Change is the pooled change in % (exp of the mean log ratio, minus
	// 1); NaN when no cell has positive values on both sides.
	Change float64
	// CI is its interval at 1 − α, in %, set only when the data bound it
	// (finite, within MaxCISpan); NoCI says why there is none.
	CI   CI
	NoCI string
	P    float64 // two-sided; NaN without a test
	DF   float64
	// SD is the residual standard deviation on the log scale: what a block
	// (paired) or a run (unpaired) scatters by.
	SD      float64
	Verdict Verdict
	// Reason says, without a faster or slower verdict, why.
	Reason string
	// CellChanges are each cell's change alone, in %, in the cells' order;
	// Better and Worse list the cells (indices) whose own verdict is faster
	// or slower (the cell tables' verdicts), and Disagree says both lists
	// have cells: the pooled change then averages opposite directions, and
	// reports say so instead of only "no difference".
	CellChanges   []float64
	Better, Worse []int
	Disagree      bool
	// Detectable is the smallest change, in %, this design detects with 80
	// % power at α given the scatter SD (NaN without a scatter).
	Detectable float64
	alpha      float64
}

// poolCells pools the headline of the target's cells against the
// baseline's (cells of one scenario, one target) at significance alpha.
func poolCells(cells []*CellComparison, alpha float64) *Pooled {
	p := &Pooled{Change: math.NaN(), P: math.NaN(), Detectable: math.NaN(), alpha: alpha}
	blocks, paired := cellBlocks(cells)
	if n := blockCount(blocks); paired && n >= minPairedBlocks {
		p.pair(blocks, pilotRounds(cells))
	} else {
		p.unpaired(cells)
	}
	p.decide(cells)
	return p
}

// cellBlocks returns each cell's block log ratios, and whether every cell
// has blocks: runs paired by repetition whose rounds followed one another
// in time (each round's two runs started after both runs of the round
// before), which is what interleaved order does and sequential order does
// not. A repetition number a side holds twice (merged studies, imports)
// means no blocks.
func cellBlocks(cells []*CellComparison) ([]cellRatios, bool) {
	out := make([]cellRatios, len(cells))
	for i, cc := range cells {
		d, ok := blockRatios(cc.Base, cc.Other)
		if !ok {
			return nil, false
		}
		out[i] = d
	}
	return out, len(cells) > 0
}

// cellRatios are one cell's block log ratios, D[i] of round Rep[i].
type cellRatios struct {
	D   []float64
	Rep []int
}

func blockCount(blocks []cellRatios) int {
	n := 0
	for _, d := range blocks {
		n += len(d.D)
	}
	return n
}

// blockRatios pairs one cell's runs by repetition (see cellBlocks).
func blockRatios(b, o *Group) (cellRatios, bool) {
	byRep := func(g *Group) (map[int]int, bool) {
		m := map[int]int{}
		for i, r := range g.Runs {
			if _, dup := m[r.Repetition]; dup || r.StartedAt.IsZero() || i >= len(g.Values) {
				return nil, false
			}
			m[r.Repetition] = i
		}
		return m, true
	}
	bm, ok1 := byRep(b)
	om, ok2 := byRep(o)
	if !ok1 || !ok2 {
		return cellRatios{}, false
	}
	var reps []int
	for r := range bm {
		if _, ok := om[r]; ok {
			reps = append(reps, r)
		}
	}
	sort.Ints(reps)
	var d cellRatios
	var lastEnd int64 // latest start of the previous round, unix ns
	for k, r := range reps {
		rb, ro := b.Runs[bm[r]], o.Runs[om[r]]
		first := min(rb.StartedAt.UnixNano(), ro.StartedAt.UnixNano())
		if k > 0 && first <= lastEnd {
			return cellRatios{}, false
		}
		lastEnd = max(rb.StartedAt.UnixNano(), ro.StartedAt.UnixNano())
		vb, vo := b.Values[bm[r]], o.Values[om[r]]
		if vb > 0 && vo > 0 {
			d.D = append(d.D, math.Log(vo)-math.Log(vb))
			d.Rep = append(d.Rep, r)
		}
	}
	return d, len(d.D) > 0
}

// pair is the one-sample t on every block's log ratio; with pilot > 0
// rounds (repetitions = "auto") and a scatter among the pilot's blocks,
// Stein's two-stage test, whose scatter and degrees of freedom are the
// pilot's.
func (p *Pooled) pair(blocks []cellRatios, pilot int) {
	p.Paired, p.Test = true, PairedTest
	var all []float64
	for _, d := range blocks {
		all = append(all, d.D...)
		p.Rounds = max(p.Rounds, len(d.D))
		p.CellChanges = append(p.CellChanges, math.Expm1(mean(d.D))*100)
	}
	p.Cells, p.Units = len(blocks), len(all)
	mu, sd := meanSD(all)
	p.Change = math.Expm1(mu) * 100
	df := float64(len(all) - 1)
	if s1, df1 := pilotScatter(blocks, pilot); pilot > 0 && df1 >= 1 {
		p.Test, sd, df = SteinTest, s1, float64(df1)
	}
	p.test(mu, sd, df, sd/math.Sqrt(float64(len(all))))
}

// pilotRounds is the pilot rounds every run of the cells records
// (Summary.PilotRounds), or 0 when any run records none or another number:
// then the runs did not all come from one study with repetitions = "auto",
// and Stein's test, whose exactness rests on the rounds being sized from
// this pilot alone, does not apply.
func pilotRounds(cells []*CellComparison) int {
	p := -1
	for _, cc := range cells {
		for _, g := range []*Group{cc.Base, cc.Other} {
			for _, r := range g.Runs {
				if n := r.Summary.PilotRounds; n <= 0 || (p >= 0 && n != p) {
					return 0
				} else {
					p = n
				}
			}
		}
	}
	return max(p, 0)
}

// pilotScatter is the standard deviation of the blocks of the first pilot
// rounds, and its degrees of freedom (blocks − 1).
func pilotScatter(blocks []cellRatios, pilot int) (float64, int) {
	var d []float64
	for _, c := range blocks {
		for i, r := range c.Rep {
			if r <= pilot {
				d = append(d, c.D[i])
			}
		}
	}
	if len(d) < 2 {
		return math.NaN(), 0
	}
	_, sd := meanSD(d)
	return sd, len(d) - 1
}

// AutoPilotRounds is how many interleaved rounds a study with repetitions =
// "auto" runs before it sizes the rest from their scatter: two, the fewest
// that give a pilot of one cell a scatter.
const AutoPilotRounds = 2

// autoRounds is the rounds Stein's rule asks of one scenario whose pilot
// rounds are in cells (runs of later rounds are ignored): the fewest r ≥
// AutoPilotRounds whose interval, t(1 − α/2, df1)·s1/√(r·cells) on logs,
// is at most ±halfWidth %, capped at most; most when the pilot has no
// blocks to scatter.
func autoRounds(cells []*CellComparison, pilot int, halfWidth float64, most int, alpha float64) int {
	blocks, paired := cellBlocks(cells)
	if !paired {
		return most
	}
	s1, df1 := pilotScatter(blocks, pilot)
	if df1 < 1 || math.IsNaN(s1) {
		return most
	}
	q, want := StudentQuantile(1-alpha/2, float64(df1)), math.Log1p(halfWidth/100)
	for r := AutoPilotRounds; r < most; r++ {
		if q*s1/math.Sqrt(float64(r*len(cells))) <= want {
			return r
		}
	}
	return most
}

// AutoRounds is how many rounds a study with repetitions = "auto" runs,
// from the groups of its pilot rounds: the most any scenario's pooled
// comparison against baseline ("" = the first target) asks for an interval
// of ±halfWidth % at alpha (autoRounds), at least AutoPilotRounds and at
// most most. A function of the pilot's runs alone, so that a resumed study
// reaches the same number.
func AutoRounds(groups []*Group, baseline string, halfWidth float64, most int, alpha float64) (int, error) {
	f, err := Summarise(groups, baseline, alpha, nil)
	if err != nil {
		return most, err
	}
	if len(f.Items) == 0 {
		return most, nil
	}
	r := AutoPilotRounds
	for _, it := range f.Items {
		r = max(r, autoRounds(it.Cells, AutoPilotRounds, halfWidth, most, f.Alpha))
	}
	return min(r, most), nil
}

// unpaired is the two-way (cell + target) model without blocks.
func (p *Pooled) unpaired(cells []*CellComparison) {
	p.Test = UnpairedTest
	var diffs, weights []float64
	var ssw, dfw float64
	for _, cc := range cells {
		lb, lo, ok := logs(cc.Base.Values, cc.Other.Values)
		if !ok || len(lb) == 0 || len(lo) == 0 {
			diffs, weights = append(diffs, math.NaN()), append(weights, 0)
			p.CellChanges = append(p.CellChanges, math.NaN())
			continue
		}
		mb, mo := mean(lb), mean(lo)
		ssw += sumSq(lb, mb) + sumSq(lo, mo)
		dfw += float64(len(lb) + len(lo) - 2)
		diffs = append(diffs, mo-mb)
		weights = append(weights, 1/(1/float64(len(lb))+1/float64(len(lo))))
		p.CellChanges = append(p.CellChanges, math.Expm1(mo-mb)*100)
		p.Cells++
		p.Rounds = max(p.Rounds, len(lb), len(lo))
		p.Units += len(lb) + len(lo)
	}
	if p.Cells == 0 {
		p.Verdict, p.Reason = TooFewForTest, "no cell with positive values on both sides"
		return
	}
	var sw, swd float64
	for i, d := range diffs {
		if weights[i] > 0 {
			sw += weights[i]
			swd += weights[i] * d
		}
	}
	mu := swd / sw
	var ssi float64
	for i, d := range diffs {
		if weights[i] > 0 {
			ssi += weights[i] * (d - mu) * (d - mu)
		}
	}
	df := dfw + float64(p.Cells-1)
	p.Change = math.Expm1(mu) * 100
	sd := math.NaN()
	if df > 0 {
		sd = math.Sqrt((ssw + ssi) / df)
	}
	p.test(mu, sd, df, sd/math.Sqrt(sw))
}

// test sets P, the interval and the detectable change from the pooled
// log change mu with standard error se on df degrees of freedom.
func (p *Pooled) test(mu, sd, df, se float64) {
	p.DF, p.SD = df, sd
	if df < 1 || math.IsNaN(se) {
		p.Verdict = TooFewForTest
		p.Reason = "one block, or one run a side, in all: no scatter to test against"
		return
	}
	if !(se > 1e-12*math.Max(1, math.Abs(mu))) {
		p.Verdict = TooFewForTest
		p.Reason = "the repetitions do not scatter at all"
		return
	}
	p.P = studentTwoSidedP(mu/se, df)
	q := StudentQuantile(1-p.alpha/2, df)
	p.CI, p.NoCI = printableCI(CI{Lo: mu - q*se, Hi: mu + q*se, Level: 1 - p.alpha}, p.Change, func() string {
		return fmt.Sprintf("scatter ±%.0f %%: too wide to bound", math.Expm1(sd)*100)
	})
	p.Detectable = detectable(se, df, p.alpha)
}

// decide turns P into a verdict in the headline's direction, and notes
// the cells whose own verdicts go against each other.
func (p *Pooled) decide(cells []*CellComparison) {
	for i, cc := range cells {
		switch cc.Headline.Verdict {
		case Faster:
			p.Better = append(p.Better, i)
		case Slower:
			p.Worse = append(p.Worse, i)
		}
	}
	p.Disagree = len(p.Better) > 0 && len(p.Worse) > 0
	switch {
	case p.Verdict != "":
	case p.P >= p.alpha:
		p.Verdict = NoDifference
		p.Reason = fmt.Sprintf("p = %.3f ≥ %.2f", p.P, p.alpha)
	case (p.Change > 0) == (len(cells) == 0 || cells[0].Headline.HigherIsBetter):
		p.Verdict = Faster
	default:
		p.Verdict = Slower
	}
}

func mean(xs []float64) float64 {
	m, _ := meanSD(xs)
	return m
}

func sumSq(xs []float64, m float64) float64 {
	s := 0.0
	for _, x := range xs {
		s += (x - m) * (x - m)
	}
	return s
}

// CellsText names cells by their indices' labels, as ranges where they run
// on: "1–2 clients" from labels of consecutive cells.
func CellsText(idx []int, label func(int) string) string {
	idx = slices.Clone(idx)
	sort.Ints(idx)
	var parts []string
	for i := 0; i < len(idx); {
		j := i
		for j+1 < len(idx) && idx[j+1] == idx[j]+1 {
			j++
		}
		if j > i {
			parts = append(parts, label(idx[i])+"–"+label(idx[j]))
		} else {
			parts = append(parts, label(idx[i]))
		}
		i = j + 1
	}
	return joinAnd(parts)
}

func joinAnd(parts []string) string {
	switch len(parts) {
	case 0:
		return ""
	case 1:
		return parts[0]
	}
	s := ""
	for i, p := range parts[:len(parts)-1] {
		if i > 0 {
			s += ", "
		}
		s += p
	}
	return s + " and " + parts[len(parts)-1]
}

// minPairedBlocks is the fewest blocks a paired test uses: two give it one
// degree of freedom (t = 12.7 at α = 0.05), little power but an exact
// false-positive rate whatever drifted between the rounds, where the
// unpaired test of the same four runs counts the drift as scatter (its rate
// falls to 2 % with a 5 % drift: pooled_sim_test.go).
const minPairedBlocks = 2

// pairMetric replaces the verdict of m, a cell's headline compared
// unpaired, with the paired t on the cell's block log ratios d (at least
// MinPairedBlocks of them): the rounds' drift cancels in each block.
func pairMetric(m Metric, d []float64, alpha float64) Metric {
	mu, sd := meanSD(d)
	n := float64(len(d))
	se := sd / math.Sqrt(n)
	m.Test, m.MinP, m.NeedN, m.Reason = PairedTest, 0, 0, ""
	m.DeltaCI, m.NoCI = CI{}, ""
	if !(se > 1e-12*math.Max(1, math.Abs(mu))) {
		m.Verdict, m.P = TooFewForTest, math.NaN()
		m.Reason = fmt.Sprintf("%d blocks whose ratios do not scatter at all: no test", len(d))
		return m
	}
	df := n - 1
	m.P = studentTwoSidedP(mu/se, df)
	q := StudentQuantile(1-alpha/2, df)
	raw := CI{Lo: mu - q*se, Hi: mu + q*se, Level: 1 - alpha}
	m.DeltaCI, m.NoCI = printableCI(raw, m.Delta, func() string {
		return fmt.Sprintf("%d blocks scattering ±%.0f %%: too few for an interval", len(d), math.Expm1(sd)*100)
	})
	switch {
	case m.P >= alpha:
		m.Verdict = NoDifference
		m.Reason = fmt.Sprintf("p = %.3f ≥ %.2f: the difference is within the scatter of the rounds", m.P, alpha)
		m.NeedN = repsForPower(mu, sd/math.Sqrt2, alpha, len(d)+1)
	case (mu > 0) == m.HigherIsBetter:
		m.Verdict = Faster
	default:
		m.Verdict = Slower
	}
	return m
}
