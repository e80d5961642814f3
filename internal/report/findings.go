package report

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/fairbench/fairbench/internal/analysis"
	"github.com/fairbench/fairbench/internal/numfmt"
)

// Every report opens with its findings (analysis.Summarise): per scenario
// and target, the headline's change against the baseline as a geometric
// mean with its range over the cells, the verdicts counted with the test
// named, the peaks, and the warnings that most affect the comparison; then
// the key tables published studies paste: peak per target, degradation
// against the baseline, ratio to the baseline.

// nearlySame is the change (in %) under which a finding says "within": a
// few percent is what repetitions of one configuration usually scatter.
const nearlySame = 5.0

// maxFindingWarnings is how many warning kinds the findings name.
const maxFindingWarnings = 3

// summarise computes the findings a report opens with; nil when there is
// nothing to compare (no group).
func summarise(groups []*analysis.Group, opt Options) *analysis.Findings {
	if len(groups) == 0 {
		return nil
	}
	f, err := analysis.Summarise(groups, opt.Baseline, 0, opt.Warnings)
	if err != nil {
		return nil
	}
	return f
}

// findingStatement is the finding's first sentence, the scenario's pooled
// verdict: "delete-full is 27.3 % slower than wal-normal: -27.3 % tps
// [-35.1, -18.8], lower in all 3 cells (-38.5 % to -19.3 %; paired over 3
// cells × 2 rounds, p=0.004)".
func findingStatement(it *analysis.Finding) string {
	p := it.Pooled
	if p == nil || math.IsNaN(p.Change) {
		return fmt.Sprintf("%s against %s: no cell with positive values on both", it.Target, it.Baseline)
	}
	var s string
	switch d := math.Abs(p.Change); {
	case p.Disagree:
		s = fmt.Sprintf("%s against %s differs by cell: better at %s, worse at %s (each cell's own test); pooled",
			it.Target, it.Baseline, cellLevels(it, p.Better), cellLevels(it, p.Worse))
	case p.Verdict == analysis.Faster || p.Verdict == analysis.Slower:
		word := "slower"
		if it.Better() {
			word = "faster"
		}
		s = fmt.Sprintf("%s is %s %% %s than %s:", it.Target, numfmt.Fixed(d, 1), word, it.Baseline)
	case p.Verdict == analysis.NoDifference && d < nearlySame:
		s = fmt.Sprintf("%s is within %s %% of %s:", it.Target, numfmt.Fixed(d, 1), it.Baseline)
	case p.Verdict == analysis.NoDifference:
		s = fmt.Sprintf("%s is not significantly different from %s:", it.Target, it.Baseline)
	default:
		s = fmt.Sprintf("%s against %s:", it.Target, it.Baseline)
	}
	s += " " + pct(p.Change) + " " + it.Headline.Unit
	if ci := ciText(p.CI, p.CI.Level, pctShort); ci != "" {
		s += " " + ci
	}
	if dir := cellsDirection(p); dir != "" {
		s += ", " + dir
	}
	s += " (" + pooledHow(p)
	if !it.Headline.HigherIsBetter {
		s += "; lower is better"
	}
	return s + ")"
}

// cellsDirection says where the cells' own changes point: "lower in all 3
// cells (-38.5 % to -19.3 %)", or their range when they point both ways.
func cellsDirection(p *analysis.Pooled) string {
	var ok []float64
	for _, c := range p.CellChanges {
		if !math.IsNaN(c) {
			ok = append(ok, c)
		}
	}
	if len(ok) < 2 {
		return ""
	}
	lo, hi := slices.Min(ok), slices.Max(ok)
	span := pct(lo) + " to " + pct(hi)
	all := fmt.Sprintf("all %d cells", len(ok))
	if len(ok) == 2 {
		all = "both cells"
	}
	switch {
	case hi < 0:
		return fmt.Sprintf("lower in %s (%s)", all, span)
	case lo > 0:
		return fmt.Sprintf("higher in %s (%s)", all, span)
	}
	return "cells " + span
}

// pooledHow says how the evidence was pooled, with p: "paired over 3
// cells × 2 rounds, p=0.004".
func pooledHow(p *analysis.Pooled) string {
	var s string
	switch {
	case p.Paired && p.Cells == 1:
		s = fmt.Sprintf("paired over %d rounds", p.Units)
	case p.Paired:
		s = fmt.Sprintf("paired over %d cells × %d rounds", p.Cells, p.Rounds)
	case p.Cells == 1:
		s = fmt.Sprintf("unpaired, %d runs: not in interleaved rounds", p.Units)
	default:
		s = fmt.Sprintf("unpaired over %d cells, %d runs: not in interleaved rounds", p.Cells, p.Units)
	}
	if p.Test == analysis.SteinTest {
		// repetitions = "auto": the rounds were sized from a pilot, whose
		// scatter the test uses (docs/statistics.md).
		s += ", Stein's two stages"
	}
	if !math.IsNaN(p.P) {
		s += ", " + pValue(p.P)
	} else if p.Reason != "" {
		s += "; untested: " + p.Reason
	}
	if p.NoCI != "" {
		s += "; no interval: " + p.NoCI
	}
	if d := p.Detectable; p.Verdict == analysis.NoDifference && !math.IsNaN(d) && !math.IsInf(d, 0) {
		// What "no difference" rules out, at the scatter measured.
		s += fmt.Sprintf("; this design detects +%s %% or -%s %% with 80 %% power", numfmt.Fixed(d, 1), numfmt.Fixed(100*d/(100+d), 1))
	}
	return s
}

// cellLevels names the finding's cells at idx by their clients levels,
// consecutive ones as a range: "1–2 clients and 64 clients".
func cellLevels(it *analysis.Finding, idx []int) string {
	return analysis.CellsText(idx, func(i int) string { return levelName(it.Cells[i].Other) })
}

// findingVerdicts counts the verdicts with the test and p-values behind
// them, and says why the others have none and what would give one.
func findingVerdicts(it *analysis.Finding, alpha float64) string {
	test := strings.Join(it.Tests, " / ")
	pr := ""
	if !math.IsNaN(it.MinP) {
		pr = pValue(it.MinP)
		if it.MaxP > it.MinP && pValue(it.MaxP) != pr {
			pr += "–" + strings.TrimPrefix(strings.TrimPrefix(pValue(it.MaxP), "p="), "p<")
		}
	}
	var parts []string
	decided := it.Faster + it.Slower
	if it.Faster > 0 {
		parts = append(parts, fmt.Sprintf("%d faster", it.Faster))
	}
	if it.Slower > 0 {
		parts = append(parts, fmt.Sprintf("%d slower", it.Slower))
	}
	if decided > 0 && it.Same == 0 {
		if pm := pValue(it.MaxP); pm != pValue(it.MinP) {
			pr = "p ≤ " + strings.TrimPrefix(pm, "p=") // every p at most the largest
		}
		parts[len(parts)-1] += " (" + test + ", " + pr + ")"
	}
	if it.Same > 0 {
		s := fmt.Sprintf("%d no significant difference (%s, %s", it.Same, test, pr)
		if decided == 0 {
			s += fmt.Sprintf(" ≥ %.2f: within the scatter of the repetitions", alpha)
		}
		if it.NeedN > 0 && it.Undecided == 0 {
			s += "; " + repsNeeded(it.NeedN) + " reps per side would detect a change this size"
		}
		parts = append(parts, s+")")
	}
	if it.Undecided > 0 {
		s := fmt.Sprintf("%d without a verdict (%s", it.Undecided, strings.Join(it.Why, "; "))
		if it.NeedN > 0 {
			s += "; " + repsNeeded(it.NeedN) + " reps per side needed"
		}
		parts = append(parts, s+")")
	}
	s := fmt.Sprintf("verdicts in %d %s: %s", len(it.Cells), numfmt.Plural(len(it.Cells), "cell", "cells"), strings.Join(parts, ", "))
	if p := it.Pooled; p != nil && decided == 0 && len(it.Cells) > 1 && (p.Verdict == analysis.Faster || p.Verdict == analysis.Slower) {
		s = "each cell alone has too few repetitions to decide; " + s
	}
	return s
}

// peakText says where a peak is: "1,234.5 tps at 2 clients (edge of the sweep)".
func peakText(p *analysis.Peak) string {
	s := withUnit(p.Headline, p.Value) + " at " + numfmt.Plural(p.Clients, "1 client", strconv.Itoa(p.Clients)+" clients")
	if p.AtEdge {
		s += " †" // the key table's note says what it means
	}
	if p.SingleRun {
		s += " (single run)"
	}
	return s
}

// findingPeaks is the finding's peak line.
func findingPeaks(it *analysis.Finding) string {
	var parts []string
	if it.Peak != nil {
		parts = append(parts, it.Target+" "+peakText(it.Peak))
	}
	if it.BasePeak != nil {
		parts = append(parts, it.Baseline+" "+peakText(it.BasePeak))
	}
	if len(parts) == 0 {
		return ""
	}
	s := "peak: " + strings.Join(parts, "; ")
	if it.Peak != nil && !math.IsNaN(it.Peak.Degradation) {
		s += "; " + peakChange(it.Peak)
	}
	return s
}

// peakChange says how the peak compares with the baseline's in the
// deltas' convention (+ is a larger value), so that it reads with the
// finding's change: the degradation of published studies, (1 − peak /
// baseline peak) × 100 for a rate, is that change with its sign turned, and
// "degradation −732.6 %" next to "+123.4 %" read as two stories. Only a
// worse peak is called a degradation. A peak is one cell's median: the
// verdicts, not this line, say whether the repetitions tell them apart.
func peakChange(p *analysis.Peak) string {
	change := p.Degradation
	if p.Headline.HigherIsBetter {
		change = -change
	}
	s := "peak to peak " + pct(change) + " ("
	if p.Degradation > 0 {
		s += "degradation " + numfmt.Fixed(p.Degradation, 1) + " %, "
	}
	return s + "untested)"
}

// topWarnings are the warning kinds the findings name: those that concern
// the compared cells, most affecting first, at most maxFindingWarnings.
func topWarnings(f *analysis.Findings) []analysis.WarningGroup {
	var ws []analysis.Warning
	seen := map[string]bool{}
	for _, it := range f.Items {
		for _, wg := range it.Warnings {
			for _, w := range wg.Warnings {
				if k := w.Check + "\x00" + w.Message; !seen[k] {
					seen[k] = true
					ws = append(ws, w)
				}
			}
		}
	}
	if len(f.Items) == 0 {
		ws = nil
		for _, wg := range f.Warnings {
			if !wg.Info {
				ws = append(ws, wg.Warnings...)
			}
		}
	}
	var groups []*analysis.Group
	if f.Comparison != nil {
		groups = comparisonGroups(f.Comparison)
	}
	out := analysis.GroupWarnings(ws, groups)
	if len(out) > maxFindingWarnings {
		out = out[:maxFindingWarnings]
	}
	return out
}

// findingsIntro is the sentence under the findings heading.
func findingsIntro(f *analysis.Findings) string {
	return fmt.Sprintf("Against %s%s: per scenario, the change pooled over its cells and rounds (%s of each interleaved round's runs, "+
		"else %s) with its %.0f %% interval where the data bound it; per cell: %s at α = %.2f, the paired t where rounds were interleaved, "+
		"%s where repetitions are too few (the t-tests assume roughly log-normal values).",
		f.Baseline, baselineHow(f), analysis.PairedTest, analysis.UnpairedTest, (1-f.Alpha)*100,
		analysis.MannWhitneyTest, f.Alpha, analysis.WelchTest)
}

// repsNeeded writes an estimate of repetitions per side, "~12", "over 100".
func repsNeeded(n int) string {
	if n > 100 {
		return "over 100"
	}
	return "~" + strconv.Itoa(n)
}

func baselineHow(f *analysis.Findings) string {
	if f.Comparison != nil && len(f.Items) == 0 {
		return " (the only target)"
	}
	return " (baseline)"
}

// writeFindingsText writes the findings and the key tables for the terminal.
func writeFindingsText(ew *errWriter, groups []*analysis.Group, f *analysis.Findings, label labeler) {
	if f == nil {
		return
	}
	ew.printf("Findings\n")
	if len(f.Items) == 0 {
		ew.printf("  one target (%s): no comparison; peaks below\n", f.Baseline)
	} else {
		ew.printf("  %s\n", wrap(findingsIntro(f), lineWidth, "  "))
	}
	for _, it := range f.Items {
		ew.printf("  %s\n", wrap(it.Scenario+": "+findingStatement(it), lineWidth, "      "))
		ew.printf("    %s\n", wrap(findingVerdicts(it, f.Alpha), lineWidth, "      "))
		if p := findingPeaks(it); p != "" {
			ew.printf("    %s\n", wrap(p, lineWidth, "      "))
		}
	}
	for _, d := range f.Waits {
		ew.printf("  %s\n", wrap(waitFindingLine(d), lineWidth, "      "))
	}
	if top := topWarnings(f); len(top) > 0 {
		ew.printf("  warnings that most affect the comparison (all of them under Methodology):\n")
		for _, wg := range top {
			ew.printf("    ! %s\n", wrap(wg.Check+": "+warningSummary(wg, label), lineWidth, "      "))
		}
	}
	for _, t := range keyTables(f, label) {
		ew.printf("\n")
		t.writeText(ew)
	}
	ew.printf("\n")
}

// writeFindingsMarkdown writes the findings and the key tables as Markdown.
func writeFindingsMarkdown(ew *errWriter, f *analysis.Findings, label labeler) {
	if f == nil {
		return
	}
	ew.printf("## Findings\n\n")
	if len(f.Items) == 0 {
		ew.printf("One target (%s): no comparison.\n\n", cell(f.Baseline))
	} else {
		ew.printf("%s\n\n", wrap(cell(findingsIntro(f)), lineWidth, ""))
	}
	for _, it := range f.Items {
		s := "**" + it.Scenario + "**: " + findingStatement(it) + ". " + capital(findingVerdicts(it, f.Alpha)) + "."
		if p := findingPeaks(it); p != "" {
			s += " " + capital(p) + "."
		}
		ew.printf("- %s\n", wrap(cell(s), lineWidth, "  "))
	}
	for _, d := range f.Waits {
		ew.printf("- %s\n", wrap(cell(waitFindingLine(d)+"."), lineWidth, "  "))
	}
	if top := topWarnings(f); len(top) > 0 {
		ew.printf("\nWarnings that most affect the comparison (all of them under Methodology):\n\n")
		for _, wg := range top {
			ew.printf("- %s\n", wrap(cell("**"+wg.Check+"**: "+warningSummary(wg, label)), lineWidth, "  "))
		}
	}
	ew.printf("\n")
	for _, t := range keyTables(f, label) {
		t.writeMarkdown(ew)
	}
}

// keyTables are the tables published comparisons paste: the peak of each
// target per scenario (and where it is), the degradation of each peak
// against the baseline's, and each target's ratio to the baseline (geometric
// mean over the cells of a scenario).
func keyTables(f *analysis.Findings, label labeler) []table {
	if f == nil || len(f.Peaks) == 0 {
		return nil
	}
	name := map[string]string{}
	for _, it := range f.Items {
		name[strings.Join([]string{it.Study, it.Workload, it.Kind, it.Params}, "\x00")] = it.Scenario
	}
	scenName := func(p *analysis.Peak) string {
		if n, ok := name[strings.Join([]string{p.Study, p.Workload, p.Kind, p.Params}, "\x00")]; ok {
			return n
		}
		// No comparison named it: the workload and the parameters that vary.
		return label.names.Scenario(&analysis.Group{Study: p.Study, Workload: p.Workload, Kind: p.Kind, ParamValues: p.ParamValues})
	}
	scen, targets, by := indexPeaks(f.Peaks, scenName)
	h0 := f.Peaks[0].Headline
	mixed := false
	for _, p := range f.Peaks {
		mixed = mixed || p.Headline.Name != h0.Name || p.Headline.Unit != h0.Unit
	}
	header := append([]string{"target"}, scen...)
	mk := func(caption string, rows func(t string) ([]string, bool)) table {
		t := table{Caption: caption, Header: header, TextCols: 1}
		for _, tg := range targets {
			if row, ok := rows(tg); ok {
				t.Rows = append(t.Rows, row)
			}
		}
		return t
	}
	best := "Peak"
	if !h0.HigherIsBetter {
		best = "Best (lowest)"
	}
	unit := h0.Unit
	if mixed {
		unit = "headline"
	}
	edge := false
	peak := mk(fmt.Sprintf("%s %s per target and scenario (clients), median of the repetitions:", best, unit), func(tg string) ([]string, bool) {
		row := []string{tg}
		if tg == f.Baseline && len(targets) > 1 {
			row[0] += " (baseline)"
		}
		for _, s := range scen {
			v := ""
			if p := by[tg+"\x00"+s]; p != nil {
				v = headlineValue(p.Headline, p.Value)
				if mixed {
					v = withUnit(p.Headline, p.Value)
				}
				v += fmt.Sprintf(" (%d)", p.Clients)
				if p.AtEdge {
					v += " †"
					edge = true
				}
			}
			row = append(row, v)
		}
		return row, true
	})
	if edge {
		peak.Note = "† at the edge of the clients sweep: the knee was not found."
	}
	out := []table{peak}
	if len(targets) < 2 {
		return out
	}
	out = append(out, mk("Degradation of the peak against "+f.Baseline+", % (positive: worse; negative: a better peak, e.g. −50.0 for a rate 50 % higher):", func(tg string) ([]string, bool) {
		if tg == f.Baseline {
			return nil, false
		}
		row := []string{tg}
		for _, s := range scen {
			v := ""
			if p := by[tg+"\x00"+s]; p != nil && !math.IsNaN(p.Degradation) {
				v = numfmt.Fixed(p.Degradation, 1)
			}
			row = append(row, v)
		}
		return row, true
	}))
	ratio := map[string]float64{}
	for _, it := range f.Items {
		if !math.IsNaN(it.GeoDelta) {
			ratio[it.Target+"\x00"+it.Scenario] = 1 + it.GeoDelta/100
		}
	}
	out = append(out, mk("Ratio of the medians to "+f.Baseline+", ×, geometric mean over each scenario's cells:", func(tg string) ([]string, bool) {
		if tg == f.Baseline {
			return nil, false
		}
		row := []string{tg}
		for _, s := range scen {
			v := ""
			if r, ok := ratio[tg+"\x00"+s]; ok {
				v = numfmt.Fixed(r, 3) + "×"
			}
			row = append(row, v)
		}
		return row, true
	}))
	return out
}
