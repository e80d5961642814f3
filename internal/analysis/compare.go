package analysis

import (
	"fmt"
	"math"
	"strconv"

	"github.com/fairbench/fairbench/internal/numfmt"

	hdr "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/fairbench/fairbench/internal/hist"
	"github.com/fairbench/fairbench/internal/result"
)

// DefaultAlpha is the significance level of verdicts: a difference is called
// when the two-sided p-value is below it.
const DefaultAlpha = 0.05

// Verdict is what a comparison concludes about one metric.
type Verdict string

const (
	Faster        Verdict = "faster"                    // significantly better than the baseline
	Slower        Verdict = "slower"                    // significantly worse
	NoDifference  Verdict = "no significant difference" // the test cannot tell them apart
	SingleRun     Verdict = "single run"                // n = 1 on a side: no interval, no test
	TooFewForTest Verdict = "too few runs"              // the smallest possible p is not below alpha
)

// Metric compares one number of a cell between a target and the baseline.
type Metric struct {
	Name           string // the headline's name ("throughput", "NOPM", ...), "p95", "p99"
	Unit           string // the headline's unit ("tps", "s", ...) or "µs"
	HigherIsBetter bool
	// Headline marks the headline metric (the others are latency percentiles).
	Headline    bool
	Base, Value float64 // shown values: median headline value, or merged-histogram percentile
	BaseN, N    int
	// BaseCI and CI are the order-statistic intervals of the per-run values
	// (medians' intervals for the headline, per-run percentiles' for latency).
	BaseCI, CI CI
	Delta      float64 // (Value / Base − 1) × 100; NaN when Base is 0
	// DeltaCI is the interval of Delta in %, on log values: the exact
	// Mann–Whitney (Moses) shift interval, or Welch's t interval where
	// Mann–Whitney cannot reach alpha. It is set only when it says
	// something (changeCI: finite, containing Delta, spanning at most
	// MaxCISpan); else NoCI says why there is none and what would give one.
	DeltaCI CI
	NoCI    string
	P, MinP float64 // two-sided p-value of Test, and the smallest one Mann–Whitney allows with these n
	Verdict Verdict
	// Test names the test behind P and the verdict: MannWhitneyTest, or
	// WelchTest where Mann–Whitney cannot reach alpha with these n ("" for
	// a single run).
	Test string
	// Reason says, for a metric without a faster/slower verdict, why
	// (too few repetitions for the test, or p above alpha: the difference
	// is within the scatter of the repetitions).
	Reason string
	// NeedN is how many repetitions per side would be needed for a verdict:
	// for too few runs, the smallest n with which a test can decide; for no
	// significant difference, the n that detects a difference of the size
	// observed with 80 % power (from the repetitions' scatter). 0: unknown.
	NeedN int
}

// The tests behind verdicts, named as reports print them.
const (
	MannWhitneyTest = "Mann–Whitney U"
	WelchTest       = "Welch's t on log values"
)

// WelchAssumption is what WelchTest assumes, for reports to print beside it.
const WelchAssumption = "assumes roughly log-normal values, independent repetitions"

// CellComparison is one cell shared by the baseline and another target.
type CellComparison struct {
	Base, Other *Group
	Headline    Metric // the groups' headline metric, with its direction
	P95, P99    Metric
	// Ops compares each op type's p99 ("READ p99"), in the other group's
	// order, for cells whose op types the reports show (Group.PerOpShown)
	// and that both sides measured.
	Ops []Metric
	// PerDollar is headline units per dollar of the target's declared
	// price_per_hour (for tps: median tps × 3600 / price, transactions per
	// dollar), 0 when no price is declared or the headline is a time.
	BasePerDollar, PerDollar float64
}

// GeoMeanRow summarises one target against the baseline over every cell both
// have with the same headline metric, with geometric means (benchstat does
// the same): the ratio of the geomeans equals the geomean of the per-cell
// ratios. A target with cells of several headlines gets a row per headline.
type GeoMeanRow struct {
	Target          string
	Headline        result.Headline
	Cells           int
	Base, Value     float64 // geometric means of the median headline values
	Delta           float64 // % (Value / Base − 1); for a time, negative is better
	BasePerDollar   float64 // geometric mean of transactions per dollar, 0 without prices
	PerDollar       float64
	PerDollarDelta  float64 // %
	PricePerHour    float64
	BasePricePerHr  float64
	HasPrices       bool
	CellsWithPrices int
}

// Comparison is everything `fairbench compare` shows.
type Comparison struct {
	Baseline string
	Alpha    float64
	Level    float64 // confidence level of the intervals, 1 − Alpha
	Cells    []*CellComparison
	GeoMeans []*GeoMeanRow
	Warnings []Warning
}

// Compare pairs every group of every other target with the baseline's group of
// the same study (with several baselines, "a,b", its own engine's baseline), workload, parameters and clients, and compares the headline
// metric (in its direction), p95 and p99. Groups without a completed run are left out (reports show
// them); warnings cover all groups.
func Compare(groups []*Group, baseline string, alpha float64) (*Comparison, error) {
	if alpha <= 0 || alpha >= 1 {
		alpha = DefaultAlpha
	}
	c := &Comparison{Baseline: baseline, Alpha: alpha, Level: 1 - alpha}
	if err := CheckBaseline(groups, baseline); err != nil {
		return nil, err
	}
	bl := newBaselines(groups, baseline)
	base := map[string]*Group{}
	for _, g := range groups {
		if IsBaseline(baseline, g.Target) {
			base[g.Target+"\x00"+cellKey(g)] = g
		}
	}
	for _, g := range groups {
		own := bl.For(g.Target)
		if own == "" || own == g.Target || g.N == 0 {
			continue
		}
		b := base[own+"\x00"+cellKey(g)]
		if b == nil || b.N == 0 {
			continue
		}
		cc := &CellComparison{Base: b, Other: g}
		cc.Headline = compareHeadline(b, g, alpha)
		bp95, bp99 := runPercentiles(b)
		op95, op99 := runPercentiles(g)
		cc.P95 = compareMetric("p95", "µs", false, bp95, op95, b.P95, g.P95, alpha)
		cc.P99 = compareMetric("p99", "µs", false, bp99, op99, b.P99, g.P99, alpha)
		cc.Ops = compareOps(b, g, alpha)
		cc.BasePerDollar, cc.PerDollar = perDollar(b), perDollar(g)
		c.Cells = append(c.Cells, cc)
	}
	c.GeoMeans = geoMeans(c.Cells)
	c.Warnings = Warnings(groups, baseline)
	return c, nil
}

// compareHeadline compares the groups' headline metric: paired by rounds
// where the cell has at least MinPairedBlocks blocks of interleaved rounds
// (the drift between rounds cancels in each block's ratio, pooled.go),
// else unpaired.
func compareHeadline(b, g *Group, alpha float64) Metric {
	h := g.Headline
	m := compareMetric(h.Name, h.Unit, h.HigherIsBetter, b.Values, g.Values, b.Median, g.Median, alpha)
	if d, ok := blockRatios(b, g); ok && len(d.D) >= minPairedBlocks {
		m = pairMetric(m, d.D, alpha)
	}
	m.Headline = true
	return m
}

// Metrics are the cell's metrics in the order reports list them: the
// headline, p95, p99, then each op type's p99.
func (cc *CellComparison) Metrics() []Metric {
	return append([]Metric{cc.Headline, cc.P95, cc.P99}, cc.Ops...)
}

// compareOps compares the p99 of each op type both groups measured: what a
// reader of a YCSB comparison looks at (READ p99 against UPDATE p99).
func compareOps(b, g *Group, alpha float64) []Metric {
	if !g.PerOpShown() || !b.PerOpShown() {
		return nil
	}
	base := map[string]OpStat{}
	for _, o := range b.Ops {
		base[o.Name] = o
	}
	var out []Metric
	for _, o := range g.Ops {
		bo, ok := base[o.Name]
		if !ok || !o.HasLatency || !bo.HasLatency {
			continue
		}
		out = append(out, compareMetric(o.Name+" p99", "µs", false, runOpQuantiles(b, o.Name, 99), runOpQuantiles(g, o.Name, 99), bo.P99, o.P99, alpha))
	}
	return out
}

// runOpQuantiles returns each completed run's quantile q of one op type's
// latency, from that op type's histogram; runs without it are left out.
func runOpQuantiles(g *Group, op string, q float64) []float64 {
	var out []float64
	for i, lat := range g.runLatencies() {
		p := lat.ops[op]
		if !p.ok {
			continue
		}
		if v, kept := p.at(q); kept {
			out = append(out, v)
			continue
		}
		for _, o := range g.Runs[i].Ops {
			if o.Name != op {
				continue
			}
			if h, err := hist.Decode(o.Histogram); err == nil && h.TotalCount() > 0 {
				out = append(out, float64(h.ValueAtQuantile(q)))
			}
		}
	}
	return out
}

// perDollar is the group's median headline rate as units per dollar of its
// declared price per hour; 0 without a price or for a time.
func perDollar(g *Group) float64 {
	return perDollarOf(g.Headline, g.Median, pricePerHour(g))
}

// perDollarOf is a headline rate v as units per dollar at price per hour;
// 0 without a price or for a time.
func perDollarOf(h result.Headline, v, price float64) float64 {
	if price <= 0 || h.Field == result.FieldSeconds {
		return 0
	}
	per := h.Per
	if per <= 0 {
		per = 1
	}
	return v * 3600 / per / price
}

// CheckBaseline returns an error naming the targets when baseline, or one of
// several separated by commas, is none of them, or when two of several are
// targets of one engine (baselines.go).
func CheckBaseline(groups []*Group, baseline string) error {
	return checkBaselines(groups, baseline)
}

// cellKey is what pairs a target's group with the baseline's: the same
// study, workload and parameters at the same clients level. A level that is a
// share of hardware threads pairs by the share, whatever count it came to on
// each target's cores: comparing at the same load factor is what "50 % of
// the threads" asks for.
func cellKey(g *Group) string {
	return fmt.Sprintf("%s\x00%s\x00%s\x00%s\x00%s", g.Study, g.Workload, g.Kind, g.Params, g.LevelID())
}

// LevelID names the group's clients level: its share of hardware threads
// ("50%") where it has one, else its client count.
func (g *Group) LevelID() string {
	if g.Level != "" {
		return g.Level
	}
	return strconv.Itoa(g.Clients)
}

// compareMetric tests the per-run values and sets the verdict. The shown delta
// is between the shown values; its interval is the shift interval of the
// per-run values on a log scale, turned back into a percentage, so that it is
// about ratios like the delta itself.
func compareMetric(name, unit string, higherBetter bool, base, other []float64, baseShown, shown, alpha float64) Metric {
	m := Metric{Name: name, Unit: unit, HigherIsBetter: higherBetter, Base: baseShown, Value: shown,
		BaseN: len(base), N: len(other), P: math.NaN(), MinP: math.NaN()}
	m.BaseCI = MedianCI(base, 1-alpha)
	m.CI = MedianCI(other, 1-alpha)
	m.Delta = math.NaN()
	if baseShown > 0 {
		m.Delta = (shown/baseShown - 1) * 100
	}
	if len(base) < 2 || len(other) < 2 {
		m.Verdict = SingleRun
		m.Reason = "a single run on a side: no test can decide"
		m.NeedN = 3 // Welch's t on logs with 3 against 3 decides large, clean differences
		return m
	}
	_, m.P, m.MinP = mannWhitney(other, base)
	m.Test = MannWhitneyTest
	lb, lo, okLogs := logs(base, other)
	var w welchResult
	if m.MinP >= alpha && okLogs {
		// Mann–Whitney cannot decide with these n whatever the data: Welch's
		// t on the logs can, under its assumptions.
		if w = welch(lo, lb); w.OK {
			m.Test, m.P = WelchTest, w.P
		}
	}
	if okLogs {
		m.DeltaCI, m.NoCI = changeCI(lb, lo, m.Delta, alpha, m.MinP >= alpha, w)
	} else {
		m.NoCI = "a value ≤ 0: no interval of a ratio"
	}
	minN := mannWhitneyMinN(alpha)
	switch {
	case m.Test == MannWhitneyTest && m.MinP >= alpha:
		m.Verdict = TooFewForTest
		m.Reason = fmt.Sprintf("too few repetitions for %s (p ≥ %.2f with n=%d+%d), and %s needs positive values that scatter",
			MannWhitneyTest, m.MinP, len(base), len(other), WelchTest)
		m.NeedN = minN
	case m.P >= alpha:
		m.Verdict = NoDifference
		m.Reason = fmt.Sprintf("p = %.3f ≥ %.2f: the difference is within the scatter of the repetitions", m.P, alpha)
		if okLogs {
			_, sb := meanSD(lb)
			_, so := meanSD(lo)
			sd := math.Sqrt((sb*sb + so*so) / 2)
			diff := math.Log(hist.Median(other)) - math.Log(hist.Median(base))
			if w.OK {
				diff = w.Diff
			}
			floor := max(len(base), len(other)) + 1
			if m.Test == MannWhitneyTest {
				floor = max(floor, minN)
			}
			m.NeedN = repsForPower(diff, sd, alpha, floor)
		}
	default:
		better := hist.Median(other) > hist.Median(base)
		if !higherBetter {
			better = !better
		}
		if better {
			m.Verdict = Faster
		} else {
			m.Verdict = Slower
		}
	}
	return m
}

func logs(a, b []float64) (la, lb []float64, ok bool) {
	for _, x := range a {
		if !(x > 0) {
			return nil, nil, false
		}
		la = append(la, math.Log(x))
	}
	for _, x := range b {
		if !(x > 0) {
			return nil, nil, false
		}
		lb = append(lb, math.Log(x))
	}
	return la, lb, true
}

// runPercentiles returns each run's p95 and p99 from its own histograms (all
// operation types merged), the per-run values the latency test compares.
// A run without histograms falls back to its summary's percentiles.
func runPercentiles(g *Group) (p95, p99 []float64) {
	for i, lat := range g.runLatencies() {
		r := g.Runs[i]
		if lat.all.ok {
			p95 = append(p95, lat.all.p95)
			p99 = append(p99, lat.all.p99)
		} else if r.Summary.P95 > 0 {
			p95 = append(p95, r.Summary.P95)
			p99 = append(p99, r.Summary.P99)
		}
	}
	return p95, p99
}

// RunQuantiles returns each completed run's latency quantile q (0–100, in µs)
// from that run's own histograms: the spread of a percentile over repetitions.
// Runs without a histogram are left out.
func RunQuantiles(g *Group, q float64) []float64 {
	var out []float64
	for i, lat := range g.runLatencies() {
		if !lat.all.ok {
			continue
		}
		if v, kept := lat.all.at(q); kept {
			out = append(out, v)
		} else if h := runHistogram(g.Runs[i]); h != nil {
			out = append(out, float64(h.ValueAtQuantile(q)))
		}
	}
	return out
}

// runHistogram merges a run's operation histograms; nil when it has none.
func runHistogram(r *result.Run) *hdr.Histogram {
	h := hist.New()
	for _, op := range r.Ops {
		if len(op.Histogram) == 0 {
			continue
		}
		d, err := hist.Decode(op.Histogram)
		if err != nil {
			continue // GroupRuns already refused undecodable histograms
		}
		h.Merge(d)
	}
	if h.TotalCount() == 0 {
		return nil
	}
	return h
}

// pricePerHour returns the price per hour the study declared for the group's
// target, 0 when none did.
func pricePerHour(g *Group) float64 {
	for _, r := range g.Runs {
		if p := r.Env.Declared.PricePerHour; p > 0 {
			return p
		}
	}
	return 0
}

func geoMeans(cells []*CellComparison) []*GeoMeanRow {
	byTarget := map[string]*GeoMeanRow{}
	var order []string
	base := map[string][]float64{}
	val := map[string][]float64{}
	bpd := map[string][]float64{}
	pd := map[string][]float64{}
	for _, cc := range cells {
		h := cc.Other.Headline
		t := cc.Other.Target + "\x00" + h.Name + "\x00" + h.Unit + "\x00" + fmt.Sprint(h.HigherIsBetter)
		row := byTarget[t]
		if row == nil {
			row = &GeoMeanRow{Target: cc.Other.Target, Headline: h}
			byTarget[t] = row
			order = append(order, t)
		}
		if !(cc.Headline.Base > 0 && cc.Headline.Value > 0) {
			continue
		}
		row.Cells++
		base[t] = append(base[t], cc.Headline.Base)
		val[t] = append(val[t], cc.Headline.Value)
		if cc.BasePerDollar > 0 && cc.PerDollar > 0 {
			row.CellsWithPrices++
			bpd[t] = append(bpd[t], cc.BasePerDollar)
			pd[t] = append(pd[t], cc.PerDollar)
			row.PricePerHour = pricePerHour(cc.Other)
			row.BasePricePerHr = pricePerHour(cc.Base)
		}
	}
	var out []*GeoMeanRow
	for _, t := range order {
		row := byTarget[t]
		if row.Cells == 0 {
			continue
		}
		row.Base, row.Value = GeoMean(base[t]), GeoMean(val[t])
		row.Delta = (row.Value/row.Base - 1) * 100
		if row.CellsWithPrices > 0 {
			row.HasPrices = true
			row.BasePerDollar, row.PerDollar = GeoMean(bpd[t]), GeoMean(pd[t])
			row.PerDollarDelta = (row.PerDollar/row.BasePerDollar - 1) * 100
		}
		out = append(out, row)
	}
	return out
}

// toFloat reads a number from an environment value (numfmt.Number).
func toFloat(v any) float64 { return numfmt.Number(v) }

// sortedTargets returns the distinct targets of groups in first-appearance order.
func sortedTargets(groups []*Group) []string {
	seen := map[string]bool{}
	var out []string
	for _, g := range groups {
		if !seen[g.Target] {
			seen[g.Target] = true
			out = append(out, g.Target)
		}
	}
	return out
}
