package analysis

import (
	"math"
	"slices"
	"sort"
	"strings"

	"github.com/fairbench/fairbench/internal/result"
)

// Findings are what a reader came for, computed once for every report: per
// scenario (study, workload and parameters) and target, the change of the
// headline metric against the baseline as a geometric mean over the cells
// both have, its range over those cells, the verdicts counted, the peaks,
// and the warnings that most affect the comparison. Everything here comes
// from Compare, Peaks, GeoMean and Warnings: no statistic of its own.
type Findings struct {
	Baseline string
	Alpha    float64
	Items    []*Finding
	Peaks    []*Peak // every scenario's peaks, degradation against Baseline
	// Warnings are all the warnings grouped by kind, the ones that most
	// affect the comparison first.
	Warnings []WarningGroup
	// Comparison is the comparison the findings summarise.
	Comparison *Comparison
	// Waits are the wait states whose shares of the servers' active
	// sessions differ markedly between targets of a cell (WaitDifferences):
	// the servers' own account of why the targets differ.
	Waits []WaitDifference
}

// Finding is one target against the baseline in one scenario.
type Finding struct {
	Study, Workload, Kind, Params string
	Scenario                      string // named by what varies (Namer.Scenario)
	Target, Baseline              string
	Headline                      result.Headline
	Cells                         []*CellComparison // in clients order
	// GeoDelta is the change of the geometric mean of the target's medians
	// against the baseline's over Cells, in % (the geomean of the per-cell
	// ratios); MinDelta and MaxDelta the range of the per-cell changes.
	GeoDelta, MinDelta, MaxDelta float64
	// Verdicts counted over Cells (headline metric only).
	Faster, Slower, Same, Undecided int
	Tests                           []string // the tests behind the verdicts, in order of first use
	MinP, MaxP                      float64  // range of the p-values of the decided or same cells
	// Why are the distinct reasons of the cells without a verdict;
	// NeedN the largest number of repetitions per side any of them needs.
	Why   []string
	NeedN int
	// Peak and BasePeak are the target's and the baseline's peaks in the
	// scenario (nil when there is none).
	Peak, BasePeak *Peak
	// Warnings are the warning kinds that concern this scenario's cells of
	// the target or the baseline, most important first.
	Warnings []WarningGroup
	// Pooled is the scenario's verdict: the change pooled over its cells
	// and rounds as the study's design allows (PoolCells), which the
	// finding's sentence states; the per-cell verdicts above stay for the
	// cell tables.
	Pooled *Pooled
}

// Better reports whether the target is better than the baseline by the
// pooled change, or the geometric mean where there is none (the headline's
// direction decides).
func (f *Finding) Better() bool {
	d := f.GeoDelta
	if f.Pooled != nil && !math.IsNaN(f.Pooled.Change) {
		d = f.Pooled.Change
	}
	if f.Headline.HigherIsBetter {
		return d > 0
	}
	return d < 0
}

// firstTarget is the baseline reports use when none is given: the first
// target in the groups' order.
func firstTarget(groups []*Group) string {
	for _, g := range groups {
		return g.Target
	}
	return ""
}

// Summarise computes the findings of groups against baseline ("" = the
// first target) at significance alpha (0 = DefaultAlpha), with the
// warnings ws (Warnings(groups, baseline) computes them).
func Summarise(groups []*Group, baseline string, alpha float64, ws []Warning) (*Findings, error) {
	if baseline == "" {
		baseline = firstTarget(groups)
	}
	if alpha <= 0 || alpha >= 1 {
		alpha = DefaultAlpha
	}
	f := &Findings{Baseline: baseline, Alpha: alpha}
	if len(groups) == 0 {
		return f, nil
	}
	cmp, err := Compare(groups, baseline, alpha)
	if err != nil {
		return nil, err
	}
	cmp.Warnings = ws
	f.Comparison = cmp
	f.Peaks = Peaks(groups, baseline)
	f.Warnings = GroupWarnings(ws, groups)
	f.Waits = WaitDifferences(groups)
	names := NewNamer(groups)

	scenarioKey := func(g *Group) string {
		return strings.Join([]string{g.Study, g.Workload, g.Kind, g.Params}, "\x00")
	}
	byKey := map[string]*Finding{}
	for _, cc := range cmp.Cells {
		g := cc.Other
		k := scenarioKey(g) + "\x00" + g.Target
		it := byKey[k]
		if it == nil {
			it = &Finding{Study: g.Study, Workload: g.Workload, Kind: g.Kind, Params: g.Params, Scenario: names.Scenario(g),
				Target: g.Target, Baseline: cc.Base.Target, Headline: g.Headline, MinP: math.NaN(), MaxP: math.NaN()}
			byKey[k] = it
			f.Items = append(f.Items, it)
		}
		it.Cells = append(it.Cells, cc)
	}
	for _, it := range f.Items {
		sort.SliceStable(it.Cells, func(i, j int) bool { return it.Cells[i].Other.Clients < it.Cells[j].Other.Clients })
		var base, val, deltas []float64
		for _, cc := range it.Cells {
			m := cc.Headline
			if m.Base > 0 && m.Value > 0 {
				base, val = append(base, m.Base), append(val, m.Value)
				deltas = append(deltas, m.Delta)
			}
			switch m.Verdict {
			case Faster:
				it.Faster++
			case Slower:
				it.Slower++
			case NoDifference:
				it.Same++
			default:
				it.Undecided++
			}
			if m.Verdict == NoDifference || m.Verdict == TooFewForTest || m.Verdict == SingleRun {
				if !slices.Contains(it.Why, m.Reason) && m.Verdict != NoDifference {
					it.Why = append(it.Why, m.Reason)
				}
				it.NeedN = max(it.NeedN, m.NeedN)
			}
			if m.Test != "" && !slices.Contains(it.Tests, m.Test) {
				it.Tests = append(it.Tests, m.Test)
			}
			if !math.IsNaN(m.P) && m.Verdict != TooFewForTest {
				if math.IsNaN(it.MinP) || m.P < it.MinP {
					it.MinP = m.P
				}
				if math.IsNaN(it.MaxP) || m.P > it.MaxP {
					it.MaxP = m.P
				}
			}
		}
		it.GeoDelta, it.MinDelta, it.MaxDelta = math.NaN(), math.NaN(), math.NaN()
		if len(base) > 0 {
			it.GeoDelta = (GeoMean(val)/GeoMean(base) - 1) * 100
			it.MinDelta, it.MaxDelta = slices.Min(deltas), slices.Max(deltas)
		}
		for _, p := range f.Peaks {
			if p.Study == it.Study && p.Workload == it.Workload && p.Kind == it.Kind && p.Params == it.Params {
				switch p.Target {
				case it.Target:
					it.Peak = p
				case baseline:
					it.BasePeak = p
				}
			}
		}
		it.Warnings = relevantWarnings(ws, groups, it)
		it.Pooled = poolCells(it.Cells, alpha)
	}
	return f, nil
}

// relevantWarnings groups the warnings that concern the finding: a run of
// the target's or the baseline's cells in its scenario, or (configuration)
// any run of either in its study.
func relevantWarnings(ws []Warning, groups []*Group, it *Finding) []WarningGroup {
	inScenario, inStudy := map[int64]bool{}, map[int64]bool{}
	for _, g := range groups {
		if g.Study != it.Study || (g.Target != it.Target && g.Target != it.Baseline) {
			continue
		}
		for _, r := range g.Runs {
			inStudy[r.ID] = true
			if g.Workload == it.Workload && g.Kind == it.Kind && g.Params == it.Params {
				inScenario[r.ID] = true
			}
		}
	}
	var out []Warning
	for _, w := range ws {
		if w.Info {
			continue
		}
		in := inScenario
		if w.Check == CheckConfig {
			in = inStudy
		}
		for _, id := range w.Runs {
			if in[id] {
				out = append(out, w)
				break
			}
		}
	}
	return GroupWarnings(out, groups)
}

// WarningGroup is every warning of one kind: one line in a report, with the
// cells it concerns; the warnings themselves stay for the full detail.
type WarningGroup struct {
	Check    string    `json:"check"`
	Info     bool      `json:"info,omitempty"`
	Warnings []Warning `json:"warnings"`
	// Cells are the cells the warnings' runs belong to, in report order.
	Cells []*Group `json:"-"`
	Runs  int      `json:"runs"`
}

// impactOrder ranks the checks by how much they can change what a
// comparison says: a difference of configuration or of where the data
// lives changes what is compared; a saturated load generator, errors, an
// outage, a busy or stalled host, a server host busy with something else
// or a CPU frequency that follows the load change the numbers themselves;
// drift, scattered repetitions and warm-up widen them; single runs, a peak
// at the edge, a shared host and unverified results are limits of the
// design worth knowing.
var impactOrder = []string{CheckConfig, checkWorkingSet, checkSaturation, checkGenerators, checkErrors, CheckOutage, checkHostBusy, checkStalled, checkServerBusy, checkGovernor, checkDrift,
	checkRepetitions, checkWarmup, CheckSingleRun, CheckPeakEdge, checkSameHost, checkUnverified}

// GroupWarnings groups warnings by kind, most affecting first (impactOrder,
// then the number of runs concerned); information notes come last.
func GroupWarnings(ws []Warning, groups []*Group) []WarningGroup {
	runGroup := map[int64]*Group{}
	pos := map[*Group]int{}
	for i, g := range groups {
		pos[g] = i
		for _, r := range g.Runs {
			runGroup[r.ID] = g
		}
	}
	idx := map[string]int{}
	var out []WarningGroup
	for _, w := range ws {
		k := w.Check
		if w.Info {
			k += "\x00info"
		}
		i, ok := idx[k]
		if !ok {
			i = len(out)
			idx[k] = i
			out = append(out, WarningGroup{Check: w.Check, Info: w.Info})
		}
		wg := &out[i]
		wg.Warnings = append(wg.Warnings, w)
		for _, id := range w.Runs {
			wg.Runs++
			if g := runGroup[id]; g != nil && !slices.Contains(wg.Cells, g) {
				wg.Cells = append(wg.Cells, g)
			}
		}
	}
	rank := map[string]int{}
	for i, c := range impactOrder {
		rank[c] = i
	}
	for i := range out {
		sort.SliceStable(out[i].Cells, func(a, b int) bool { return pos[out[i].Cells[a]] < pos[out[i].Cells[b]] })
	}
	sort.SliceStable(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if a.Info != b.Info {
			return !a.Info
		}
		if rank[a.Check] != rank[b.Check] {
			return rank[a.Check] < rank[b.Check]
		}
		return a.Runs > b.Runs
	})
	return out
}
