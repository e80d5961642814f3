package report

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/fairbench/fairbench/internal/analysis"
	"github.com/fairbench/fairbench/internal/numfmt"
	"github.com/fairbench/fairbench/internal/result"
)

// verdictText says the verdict with the test and the numbers that decided
// it, and for a metric without a verdict why, and how many repetitions per
// side would give one.
func verdictText(m analysis.Metric, alpha float64) string {
	need := ""
	if m.NeedN > 0 {
		need = fmt.Sprintf("; %d reps per side needed", m.NeedN)
	}
	switch m.Verdict {
	case analysis.SingleRun:
		return fmt.Sprintf("single run (n=%d+%d): no test%s", m.BaseN, m.N, need)
	case analysis.TooFewForTest:
		return fmt.Sprintf("too few runs (n=%d+%d: %s p ≥ %.2f, never < %.2f; no scatter for Welch's t)%s", m.BaseN, m.N, m.Test, m.MinP, alpha, need)
	case analysis.NoDifference:
		if m.NeedN > 0 {
			need = fmt.Sprintf("; %s reps per side would detect this %s", repsNeeded(m.NeedN), pctShort(m.Delta)+" %")
		}
		return fmt.Sprintf("%s (%s, %s ≥ %.2f%s)", m.Verdict, m.Test, pValue(m.P), alpha, need)
	}
	return fmt.Sprintf("%s (%s, %s)", m.Verdict, m.Test, pValue(m.P))
}

// pValue writes p with three decimals, "p<0.001" below them.
func pValue(p float64) string {
	if p < 0.001 {
		return "p<0.001"
	}
	return fmt.Sprintf("p=%.3f", p)
}

// deltaText is the delta with its interval.
func deltaText(m analysis.Metric, level float64) string {
	if math.IsNaN(m.Delta) {
		return none
	}
	s := pct(m.Delta)
	if ci := ciText(m.DeltaCI, level, pctShort); ci != "" {
		s += " " + ci
	} else if m.NoCI != "" {
		s += " (" + m.NoCI + ")"
	}
	return s
}

// metricValue formats a compared value: the headline as a rate, or as a
// time with 4 significant digits when lower is better; latency in ms.
func metricValue(m analysis.Metric, v float64) string {
	switch {
	case !m.Headline:
		return ms(v)
	case !m.HigherIsBetter:
		return numfmt.Significant(v, 4)
	}
	return rate(v)
}

// metricLabel names a compared metric in a row: the headline by its unit,
// a latency percentile in ms.
func metricLabel(m analysis.Metric) string {
	if m.Headline {
		return m.Unit
	}
	return m.Name + " ms"
}

// comparisonGroups are every group a comparison speaks of, for newLabeler.
func comparisonGroups(c *analysis.Comparison) []*analysis.Group {
	var gs []*analysis.Group
	for _, cc := range c.Cells {
		gs = append(gs, cc.Base, cc.Other)
	}
	return gs
}

// CompareTerminal writes a comparison as aligned rows: per cell and metric,
// the baseline's and the target's value with n, the delta with its interval
// and the verdict; then the geometric-mean summary and the methodology.
func CompareTerminal(w io.Writer, c *analysis.Comparison, opt Options) error {
	ew := textWriter(w)
	if opt.Title != "" {
		ew.printf("%s\n\n", opt.Title)
	}
	ew.printf("baseline: %s · verdicts at α = %.2f: %s where the runs are in interleaved rounds, else two-sided %s · intervals: %.0f %% where the data bound them\n",
		c.Baseline, c.Alpha, analysis.PairedTest, analysis.MannWhitneyTest, c.Level*100)
	ew.printf("where n is too small for Mann–Whitney to ever decide: Welch's t on log values (%s)\n\n", analysis.WelchAssumption)
	if err := writeKindSectionsText(ew, comparisonGroups(c), c.Baseline, true); err != nil {
		return err
	}
	if len(c.Cells) == 0 {
		ew.printf("no cell has completed runs on both %s and another target\n", c.Baseline)
	} else {
		tw := tabwriter.NewWriter(ew, 0, 0, 2, ' ', 0)
		fmt.Fprintf(tw, "target\tscenario\tclients\tmetric\t%s\tvalue\tchange [CI] verdict (p n)\n", c.Baseline)
		names := newLabeler(comparisonGroups(c))
		notes := &glanceNotes{alpha: c.Alpha}
		for _, cc := range c.Cells {
			for _, m := range cc.Metrics() {
				fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\n", cc.Other.Target, names.scenario(cc.Other), clientsText(cc),
					metricLabel(m), metricValue(m, m.Base), metricValue(m, m.Value), notes.cell(m, c.Level))
			}
		}
		if err := tw.Flush(); err != nil {
			return err
		}
		ew.printf("%s\n", wrap(glanceLegend(), lineWidth, "  "))
		for _, l := range notes.lines() {
			ew.printf("%s\n", wrap(l, lineWidth, "  "))
		}
	}
	writeGeoMeans(ew, c, false)
	if t, ok := levelShiftTable(comparisonGroups(c), newLabeler(comparisonGroups(c))); ok {
		ew.printf("\n")
		if err := t.writeText(ew); err != nil {
			return err
		}
	}
	if err := writeKindSectionsText(ew, comparisonGroups(c), c.Baseline, false); err != nil {
		return err
	}
	if err := methodology(ew, c.Warnings, comparisonGroups(c), false); err != nil {
		return err
	}
	if opt.Results != "" {
		ew.printf("results: %s\n", opt.Results)
	}
	return ew.err
}

func writeGeoMeans(ew *errWriter, c *analysis.Comparison, markdown bool) {
	if len(c.GeoMeans) == 0 {
		return
	}
	prices, lower := false, false
	h0 := c.GeoMeans[0].Headline
	mixed := false // rows of several headlines: each row names its own
	for _, g := range c.GeoMeans {
		prices = prices || g.HasPrices
		lower = lower || !g.Headline.HigherIsBetter
		mixed = mixed || g.Headline.Name != h0.Name || g.Headline.Unit != h0.Unit
	}
	unit, perLabel := h0.Unit, perDollarLabel(h0)
	target := func(g *analysis.GeoMeanRow) string { return g.Target }
	val := func(g *analysis.GeoMeanRow, v float64) string { return headlineValue(g.Headline, v) }
	if mixed {
		unit, perLabel = "value", "units"
		target = func(g *analysis.GeoMeanRow) string { return g.Target + " (" + g.Headline.Name + ")" }
		val = func(g *analysis.GeoMeanRow, v float64) string { return withUnit(g.Headline, v) }
	}
	if markdown {
		ew.printf("## Summary: geometric mean over the shared cells\n\n")
		head := "| target | cells | " + cell(c.Baseline) + " " + cell(unit) + " | " + cell(unit) + " | delta |"
		rule := "|:--|--:|--:|--:|--:|"
		if prices {
			head += " " + cell(c.Baseline) + " " + cell(perLabel) + " per $ | " + cell(perLabel) + " per $ | delta per $ |"
			rule += "--:|--:|--:|"
		}
		ew.printf("%s\n%s\n", head, rule)
		for _, g := range c.GeoMeans {
			ew.printf("| %s | %d | %s | %s | %s |", cell(target(g)), g.Cells, val(g, g.Base), val(g, g.Value), pct(g.Delta))
			if prices {
				if g.HasPrices {
					ew.printf(" %s | %s | %s |", count(g.BasePerDollar), count(g.PerDollar), pct(g.PerDollarDelta))
				} else {
					ew.printf(" %s | %s | %s |", none, none, none)
				}
			}
			ew.printf("\n")
		}
		note := "Geometric means, never arithmetic means of ratios: the geomean of the per-cell ratios equals the ratio of the geomeans."
		if lower {
			note += " For a headline where lower is better (a time), a negative delta is the improvement."
		}
		if prices {
			if isTPS(h0) && !mixed {
				note += " Transactions per dollar = median tps × 3600 / declared price_per_hour."
			} else {
				note += " Per dollar = median headline rate × seconds per hour / declared price_per_hour (none for a time)."
			}
		}
		ew.printf("\n%s\n\n", wrap(note, lineWidth, ""))
		return
	}
	ew.printf("\ngeometric mean over shared cells (never an arithmetic mean of ratios):\n")
	tw := tabwriter.NewWriter(ew, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "  target\tcells\t%s %s\t%s\tdelta", c.Baseline, unit, unit)
	if prices {
		fmt.Fprintf(tw, "\t%s %s/$\t%s/$\tdelta per $", c.Baseline, perLabel, perLabel)
	}
	fmt.Fprintf(tw, "\n")
	for _, g := range c.GeoMeans {
		fmt.Fprintf(tw, "  %s\t%d\t%s\t%s\t%s", target(g), g.Cells, val(g, g.Base), val(g, g.Value), pct(g.Delta))
		if prices {
			if g.HasPrices {
				fmt.Fprintf(tw, "\t%s\t%s\t%s", count(g.BasePerDollar), count(g.PerDollar), pct(g.PerDollarDelta))
			} else {
				fmt.Fprintf(tw, "\t%s\t%s\t%s", none, none, none)
			}
		}
		fmt.Fprintf(tw, "\n")
	}
	tw.Flush()
	if lower {
		ew.printf("  (lower is better for a time: a negative delta is the improvement)\n")
	}
}

// count formats a large quantity without decimals and with thousands separators.
func count(f float64) string {
	s := rate(math.Round(f))
	return strings.TrimSuffix(s, ".0")
}

// CompareMarkdown writes a comparison ready to paste into an article: per
// scenario, a table per metric with targets as rows and client counts as
// columns; the baseline row shows its values, the other rows their value,
// delta, interval and verdict.
func CompareMarkdown(w io.Writer, c *analysis.Comparison, opt Options) error {
	ew := markdownWriter(w)
	title := opt.Title
	if title == "" {
		title = "fairbench comparison"
	}
	ew.printf("# %s\n\n", cell(title))
	ew.printf("%s\n\n", wrap(fmt.Sprintf("Baseline: **%s**. Each cell: median headline metric (or latency percentile from the merged histograms), "+
		"the change against the baseline with its confidence interval (%.0f %% where the data bound it), "+
		"and the verdict at α = %.2f: a paired t-test on the log ratios of each interleaved round's two runs (the headline, where the runs are in rounds), "+
		"else a two-sided Mann–Whitney U test on the per-run values, or, where n is too small for Mann–Whitney to ever decide (3 against 3 never gets below p = 0.10), "+
		"Welch's t-test on the logs of the per-run values (%s).", cell(c.Baseline), c.Level*100, c.Alpha, analysis.WelchAssumption), lineWidth, ""))
	writeKindSectionsMarkdown(ew, comparisonGroups(c), c.Baseline, true)

	secs := comparisonSections(c)
	if len(secs) == 0 {
		ew.printf("No cell has completed runs on both %s and another target.\n\n", cell(c.Baseline))
	}
	for _, s := range secs {
		writeComparisonSectionMarkdown(ew, s, c)
	}
	writeGeoMeans(ew, c, true)
	if t, ok := levelShiftTable(comparisonGroups(c), newLabeler(comparisonGroups(c))); ok {
		ew.printf("\n")
		t.writeMarkdown(ew)
	}
	writeKindSectionsMarkdown(ew, comparisonGroups(c), c.Baseline, false)
	if err := methodology(ew, c.Warnings, comparisonGroups(c), true); err != nil {
		return err
	}
	if opt.Results != "" {
		ew.printf("---\n\nresults file: `%s`\n", strings.ReplaceAll(opt.Results, "`", "'"))
	}
	return ew.err
}

// comparisonSection is the cells of one scenario of a comparison.
type comparisonSection struct {
	name  string
	cells []*analysis.CellComparison
}

// comparisonSections are the cells of c by study and scenario, in the order
// of their first cell.
func comparisonSections(c *analysis.Comparison) []*comparisonSection {
	var secs []*comparisonSection
	idx := map[string]*comparisonSection{}
	label := newLabeler(comparisonGroups(c))
	for _, cc := range c.Cells {
		k := cc.Other.Study + "\x00" + label.scenario(cc.Other)
		s := idx[k]
		if s == nil {
			s = &comparisonSection{name: label.scenario(cc.Other)}
			idx[k] = s
			secs = append(secs, s)
		}
		s.cells = append(s.cells, cc)
	}
	return secs
}

// comparisonGrid lays a section's cells out as a table: targets as rows,
// client counts (levels) as columns.
type comparisonGrid struct {
	levels     []string
	levelNames map[string]string
	targets    []string
	byCell     map[string]*analysis.CellComparison // target NUL level → cell
}

func newComparisonGrid(cells []*analysis.CellComparison) comparisonGrid {
	g := comparisonGrid{levelNames: map[string]string{}, byCell: map[string]*analysis.CellComparison{}}
	seenT := map[string]bool{}
	for _, cc := range cells {
		if l := cc.Other.LevelID(); g.levelNames[l] == "" {
			g.levelNames[l] = levelName(cc.Other)
			g.levels = append(g.levels, l)
		}
		if !seenT[cc.Other.Target] {
			seenT[cc.Other.Target] = true
			g.targets = append(g.targets, cc.Other.Target)
		}
		g.byCell[cc.Other.Target+"\x00"+cc.Other.LevelID()] = cc
	}
	sortLevels(g.levels)
	return g
}

// writeComparisonSectionMarkdown writes a scenario's tables, one per metric
// (the headline, p95, p99, then each op's p99), and their notes.
func writeComparisonSectionMarkdown(ew *errWriter, s *comparisonSection, c *analysis.Comparison) {
	ew.printf("## %s\n\n", cell(s.name))
	notes := &glanceNotes{alpha: c.Alpha}
	grid := newComparisonGrid(s.cells)
	metrics := []string{"headline", "p95", "p99"}
	seenOp := map[string]bool{}
	for _, cc := range s.cells {
		for _, m := range cc.Ops {
			if !seenOp[m.Name] {
				seenOp[m.Name] = true
				metrics = append(metrics, m.Name)
			}
		}
	}
	for _, metric := range metrics {
		grid.writeMetricMarkdown(ew, s.cells, metric, c, notes)
	}
	ew.printf("%s\n\n", wrap(glanceLegend()+".", lineWidth, ""))
	for _, l := range notes.lines() {
		ew.printf("%s\n\n", wrap(cell(l), lineWidth, ""))
	}
}

// comparisonMetric is the metric named metric of a cell's comparison.
func comparisonMetric(cc *analysis.CellComparison, metric string) (analysis.Metric, bool) {
	switch metric {
	case "headline":
		return cc.Headline, true
	case "p95":
		return cc.P95, true
	case "p99":
		return cc.P99, true
	}
	for _, m := range cc.Ops {
		if m.Name == metric {
			return m, true
		}
	}
	return analysis.Metric{}, false
}

// comparisonCaption is the caption of a metric's table; h is the section's
// headline.
func comparisonCaption(metric string, h result.Headline) string {
	switch {
	case metric == "p95" || metric == "p99":
		return "Latency " + metric + ", ms (merged histograms; test on per-run " + metric + "):"
	case metric != "headline":
		op := strings.TrimSuffix(metric, " p99")
		return op + " latency p99, ms (" + op + "'s merged histograms; test on per-run p99):"
	case !h.HigherIsBetter:
		return headlineTitle(h) + " (median; lower is better):"
	}
	return headlineTitle(h) + " (median):"
}

// writeMetricMarkdown writes one metric's table: the baselines' values, then
// each target's value, change and verdict.
func (g comparisonGrid) writeMetricMarkdown(ew *errWriter, cells []*analysis.CellComparison, metric string, c *analysis.Comparison, notes *glanceNotes) {
	head, rule := "| target |", "|:--|"
	for _, l := range g.levels {
		head += " " + g.levelNames[l] + " |"
		rule += "--:|"
	}
	ew.printf("%s\n\n%s\n%s\n", comparisonCaption(metric, cells[0].Other.Headline), head, rule)
	for _, b := range baseTargets(cells) {
		ew.printf("| %s (baseline) |", cell(b))
		for _, l := range g.levels {
			v := ""
			for _, t := range g.targets {
				if cc := g.byCell[t+"\x00"+l]; cc != nil && cc.Base.Target == b {
					if m, ok := comparisonMetric(cc, metric); ok {
						v = metricValue(m, m.Base) + fmt.Sprintf(" (n=%d%s)", m.BaseN, shareCount(cc.Base))
						break
					}
				}
			}
			ew.printf(" %s |", v)
		}
		ew.printf("\n")
	}
	for _, t := range g.targets {
		ew.printf("| %s |", cell(t))
		for _, l := range g.levels {
			v := ""
			if cc := g.byCell[t+"\x00"+l]; cc != nil {
				if m, ok := comparisonMetric(cc, metric); ok {
					v = fmt.Sprintf("%s%s %s", metricValue(m, m.Value), shareCount(cc.Other), notes.cell(m, c.Level))
				}
			}
			ew.printf(" %s |", cell(v))
		}
		ew.printf("\n")
	}
	ew.printf("\n")
}

type jsonMetric struct {
	Name    string   `json:"name"`
	Unit    string   `json:"unit"`
	Higher  bool     `json:"higher_is_better"`
	Base    *float64 `json:"baseline"`
	Value   *float64 `json:"value"`
	BaseN   int      `json:"baseline_n"`
	N       int      `json:"n"`
	BaseCI  *jsonCI  `json:"baseline_ci,omitempty"`
	CI      *jsonCI  `json:"ci,omitempty"`
	Delta   *float64 `json:"delta_pct"`
	DeltaCI *jsonCI  `json:"delta_pct_ci,omitempty"`
	NoCI    string   `json:"delta_pct_no_ci,omitempty"` // why delta_pct_ci is absent
	P       *float64 `json:"p"`
	MinP    *float64 `json:"min_p"`
	Verdict string   `json:"verdict"`
	Test    string   `json:"test,omitempty"`
	Reason  string   `json:"reason,omitempty"`
	NeedN   int      `json:"reps_needed,omitempty"`
}

func metricJSON(m analysis.Metric) jsonMetric {
	return jsonMetric{Name: m.Name, Unit: m.Unit, Higher: m.HigherIsBetter, Base: num(m.Base), Value: num(m.Value), BaseN: m.BaseN, N: m.N,
		BaseCI: ciJSON(m.BaseCI), CI: ciJSON(m.CI), Delta: num(m.Delta), DeltaCI: ciJSON(m.DeltaCI), NoCI: m.NoCI,
		P: num(m.P), MinP: num(m.MinP), Verdict: string(m.Verdict), Test: m.Test, Reason: m.Reason, NeedN: m.NeedN}
}

// jsonPeak is a peak; "throughput" repeats "value" when the headline is
// throughput in tps, the key files written before headline metrics had.
type jsonPeak struct {
	Study       string          `json:"study"`
	Scenario    string          `json:"scenario"`
	Target      string          `json:"target"`
	Clients     int             `json:"clients"`
	Headline    result.Headline `json:"headline"`
	Value       *float64        `json:"value"`
	Throughput  *float64        `json:"throughput,omitempty"`
	N           int             `json:"n"`
	Runs        []int64         `json:"runs"`
	Levels      []int           `json:"levels"`
	AtEdge      bool            `json:"at_edge"`
	SingleRun   bool            `json:"single_run"`
	Degradation *float64        `json:"degradation_pct"`
}

func peaksJSON(ps []*analysis.Peak) []jsonPeak {
	out := []jsonPeak{}
	for _, p := range ps {
		j := jsonPeak{Study: p.Study, Scenario: p.Scenario(), Target: p.Target, Clients: p.Clients,
			Headline: p.Headline, Value: num(p.Value), N: p.N, Runs: p.Runs, Levels: p.Levels, AtEdge: p.AtEdge, SingleRun: p.SingleRun,
			Degradation: num(p.Degradation)}
		if isTPS(p.Headline) {
			j.Throughput = num(p.Value)
		}
		out = append(out, j)
	}
	return out
}

// jsonGeoMean is a GeoMeanRow under its fields' names, with a mean or
// delta no float holds (a ratio past the largest, of hostile results) as
// null: JSON has no infinities.
type jsonGeoMean struct {
	Target          string
	Headline        result.Headline
	Cells           int
	Base, Value     *float64
	Delta           *float64
	BasePerDollar   *float64
	PerDollar       *float64
	PerDollarDelta  *float64
	PricePerHour    *float64
	BasePricePerHr  *float64
	HasPrices       bool
	CellsWithPrices int
}

func geoMeansJSON(rows []*analysis.GeoMeanRow) []jsonGeoMean {
	out := []jsonGeoMean{}
	for _, g := range rows {
		out = append(out, jsonGeoMean{Target: g.Target, Headline: g.Headline, Cells: g.Cells, Base: num(g.Base), Value: num(g.Value),
			Delta: num(g.Delta), BasePerDollar: num(g.BasePerDollar), PerDollar: num(g.PerDollar), PerDollarDelta: num(g.PerDollarDelta),
			PricePerHour: num(g.PricePerHour), BasePricePerHr: num(g.BasePricePerHr), HasPrices: g.HasPrices, CellsWithPrices: g.CellsWithPrices})
	}
	return out
}

// CompareJSON writes the comparison (and, with peaks non-nil, the peaks) as JSON.
func CompareJSON(w io.Writer, c *analysis.Comparison, peaks []*analysis.Peak) error {
	type jcell struct {
		Study    string         `json:"study"`
		Workload string         `json:"workload"`
		Kind     string         `json:"kind"`
		Params   map[string]any `json:"params"`
		Clients  int            `json:"clients"`
		// ClientLevel is the share of hardware threads the cell pairs by
		// ("50%"), with the baseline's count at it; absent for a count.
		ClientLevel string      `json:"client_level,omitempty"`
		BaseClients int         `json:"baseline_clients"`
		Target      string      `json:"target"`
		Headline    jsonMetric  `json:"headline"`
		Throughput  *jsonMetric `json:"throughput,omitempty"` // the headline again when it is throughput in tps (the key before headline metrics)
		P95         jsonMetric  `json:"p95"`
		P99         jsonMetric  `json:"p99"`
		// Ops are each op type's p99 ("READ p99"), where the cell has several.
		Ops []jsonMetric `json:"ops,omitempty"`
		// Headline units per dollar; for tps, transactions per dollar (hence the keys).
		TxPerDol   *float64 `json:"tx_per_dollar,omitempty"`
		BaseTxPerD *float64 `json:"baseline_tx_per_dollar,omitempty"`
	}
	doc := struct {
		Baseline string             `json:"baseline"`
		Alpha    float64            `json:"alpha"`
		Cells    []jcell            `json:"cells"`
		GeoMeans []jsonGeoMean      `json:"geomeans"`
		Peaks    []jsonPeak         `json:"peaks,omitempty"`
		Warnings []analysis.Warning `json:"warnings"`
		// The warnings again, grouped by kind, most affecting first.
		WarningGroups []jsonWarningGroup `json:"warning_groups"`
	}{Baseline: c.Baseline, Alpha: c.Alpha, Cells: []jcell{}, GeoMeans: geoMeansJSON(c.GeoMeans), Warnings: c.Warnings}
	gs := comparisonGroups(c)
	doc.WarningGroups = warningGroupsJSON(analysis.GroupWarnings(c.Warnings, gs), newLabeler(gs))
	for _, cc := range c.Cells {
		j := jcell{Study: cc.Other.Study, Workload: cc.Other.Workload, Kind: cc.Other.Kind,
			Params: cc.Other.ParamValues.JSONable(), Clients: cc.Other.Clients, ClientLevel: cc.Other.Level, BaseClients: cc.Base.Clients, Target: cc.Other.Target,
			Headline: metricJSON(cc.Headline), P95: metricJSON(cc.P95), P99: metricJSON(cc.P99)}
		for _, m := range cc.Ops {
			j.Ops = append(j.Ops, metricJSON(m))
		}
		if isTPS(cc.Other.Headline) {
			t := j.Headline
			j.Throughput = &t
		}
		if cc.PerDollar > 0 {
			j.TxPerDol = num(cc.PerDollar)
		}
		if cc.BasePerDollar > 0 {
			j.BaseTxPerD = num(cc.BasePerDollar)
		}
		doc.Cells = append(doc.Cells, j)
	}
	if peaks != nil {
		doc.Peaks = peaksJSON(peaks)
	}
	if doc.Warnings == nil {
		doc.Warnings = []analysis.Warning{}
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(doc)
}

// CompareCSV writes one row per cell and metric: the headline (metric and
// unit are its name and unit, higher_is_better its direction), p95 and p99.
// The per-dollar columns are headline units per dollar, on the headline's row.
func CompareCSV(w io.Writer, c *analysis.Comparison) error {
	cw := newCSVWriter(w)
	cw.Write([]string{"study", "workload", "params", "clients", "baseline", "target", "metric", "unit",
		"baseline_value", "value", "baseline_n", "n", "delta_pct", "delta_ci_lo", "delta_ci_hi", "delta_ci_level",
		"p", "min_p", "verdict", "baseline_per_dollar", "per_dollar", "higher_is_better", "test", "reason", "reps_needed"})
	for _, cc := range c.Cells {
		for _, m := range cc.Metrics() {
			lo, hi, lvl := "", "", ""
			if m.DeltaCI.OK() {
				lo, hi, lvl = f64(m.DeltaCI.Lo), f64(m.DeltaCI.Hi), f64(m.DeltaCI.Level)
			}
			bpd, pd := "", ""
			if m.Headline {
				if cc.BasePerDollar > 0 {
					bpd = f64(cc.BasePerDollar)
				}
				if cc.PerDollar > 0 {
					pd = f64(cc.PerDollar)
				}
			}
			cw.Write([]string{cc.Other.Study, cc.Other.Workload, cc.Other.Params, strconv.Itoa(cc.Other.Clients),
				c.Baseline, cc.Other.Target, m.Name, m.Unit, f64(m.Base), f64(m.Value), strconv.Itoa(m.BaseN), strconv.Itoa(m.N),
				f64(m.Delta), lo, hi, lvl, f64(m.P), f64(m.MinP), string(m.Verdict), bpd, pd, strconv.FormatBool(m.HigherIsBetter),
				m.Test, m.Reason, strconv.Itoa(m.NeedN)})
		}
	}
	cw.Flush()
	return cw.Error()
}

// PeakTerminal and PeakMarkdown write the "max TPS per scenario (clients)" and
// "degradation vs baseline" tables of published comparisons: scenarios as
// columns, targets as rows. † marks a peak at the edge of the sweep (the knee
// was not found), ¹ a peak resting on a single run.
func PeakTerminal(w io.Writer, peaks []*analysis.Peak, baseline string, ws []analysis.Warning, opt Options) error {
	return writePeaks(w, peaks, baseline, ws, opt, false)
}

// PeakMarkdown is PeakTerminal for articles.
func PeakMarkdown(w io.Writer, peaks []*analysis.Peak, baseline string, ws []analysis.Warning, opt Options) error {
	return writePeaks(w, peaks, baseline, ws, opt, true)
}

func writePeaks(w io.Writer, peaks []*analysis.Peak, baseline string, ws []analysis.Warning, opt Options, md bool) error {
	ew := textWriter(w)
	if md {
		ew = markdownWriter(w)
	}
	if md {
		t := opt.Title
		if t == "" {
			t = "fairbench peak comparison"
		}
		ew.printf("# %s\n\n", cell(t))
	} else if opt.Title != "" {
		ew.printf("%s\n\n", opt.Title)
	}
	// Columns are named by what varies between the compared scenarios; the
	// parameters they share are said once, above the tables.
	label, scenario := peakNames(peaks)
	scen, targets, by := indexPeaks(peaks, scenario)
	if common := label.commonAll(peakGroups(peaks)); len(common) > 0 {
		ew.printf("%s\n\n", wrap("Same in every column: "+strings.Join(common, "; ")+" (others at their defaults).", lineWidth, ""))
	}
	edge, single := false, false
	h0 := result.Throughput
	if len(peaks) > 0 {
		h0 = peaks[0].Headline
	}
	mixed, lower := false, false
	for _, p := range peaks {
		mixed = mixed || p.Headline.Name != h0.Name || p.Headline.Unit != h0.Unit
		lower = lower || !p.Headline.HigherIsBetter
	}
	peakTable := func(caption string, val func(p *analysis.Peak) string) {
		rows := [][]string{append([]string{"target"}, scen...)}
		for _, t := range targets {
			row := []string{t}
			if analysis.IsBaseline(baseline, t) {
				row[0] += " (baseline)"
			}
			for _, s := range scen {
				v := ""
				if p := by[t+"\x00"+s]; p != nil {
					v = val(p)
				}
				row = append(row, v)
			}
			rows = append(rows, row)
		}
		if md {
			table{Caption: caption, Header: rows[0], Rows: rows[1:], TextCols: 1}.writeMarkdown(ew)
			return
		}
		ew.printf("%s\n", caption)
		tw := tabwriter.NewWriter(ew, 0, 0, 2, ' ', tabwriter.AlignRight)
		for _, row := range rows {
			fmt.Fprintf(tw, "%s\t\n", strings.Join(row, "\t"))
		}
		tw.Flush()
		ew.printf("\n")
	}
	caption := "Max TPS per scenario (clients):"
	switch {
	case mixed:
		caption = "Best headline value per scenario (clients):"
	case !h0.HigherIsBetter:
		caption = "Min " + h0.Name + ", " + h0.Unit + ", per scenario (clients):"
	case !isTPS(h0):
		caption = "Max " + h0.Name + ", " + h0.Unit + ", per scenario (clients):"
	}
	peakTable(caption, func(p *analysis.Peak) string {
		v := headlineValue(p.Headline, p.Value)
		if mixed {
			v = withUnit(p.Headline, p.Value)
		}
		s := fmt.Sprintf("%s (%d)", v, p.Clients)
		if p.AtEdge {
			s += " †"
			edge = true
		}
		if p.SingleRun {
			s += " ¹"
			single = true
		}
		return s
	})
	if baseline != "" {
		caption := "Degradation vs " + baseline + ", % = (1 − peak / baseline peak) × 100 (negative: a better peak):"
		if lower {
			caption = "Degradation vs " + baseline + ", % (positive: worse) = (1 − peak / baseline peak) × 100, for a time (peak / baseline peak − 1) × 100:"
		}
		peakTable(caption, func(p *analysis.Peak) string {
			if analysis.IsBaseline(baseline, p.Target) {
				return "0.0"
			}
			if math.IsNaN(p.Degradation) {
				return none
			}
			return numfmt.Fixed(p.Degradation, 1)
		})
	}
	var notes []string
	if edge {
		notes = append(notes, "† peak at the edge of the clients sweep: the knee was not found")
	}
	if single {
		notes = append(notes, "¹ peak resting on a single run")
	}
	if len(notes) > 0 {
		ew.printf("%s\n", strings.Join(notes, "; "))
		if md {
			ew.printf("\n")
		}
	}
	if err := methodology(ew, ws, nil, md); err != nil {
		return err
	}
	if opt.Results != "" {
		ew.printf("results: %s\n", opt.Results)
	}
	return ew.err
}

// peakGroups stands each peak's scenario in as a cell, for the labeler.
func peakGroups(peaks []*analysis.Peak) []*analysis.Group {
	out := make([]*analysis.Group, len(peaks))
	for i, p := range peaks {
		out[i] = &analysis.Group{Study: p.Study, Workload: p.Workload, Kind: p.Kind, Params: p.Params, ParamValues: p.ParamValues,
			Target: p.Target, Clients: p.Clients}
	}
	return out
}

// peakNames names each peak's scenario by its workload and the parameters
// that vary between the peaks of that workload.
func peakNames(peaks []*analysis.Peak) (labeler, func(*analysis.Peak) string) {
	label := newLabeler(peakGroups(peaks))
	return label, func(p *analysis.Peak) string { return label.scenario(peakGroups([]*analysis.Peak{p})[0]) }
}

// indexPeaks lists the scenarios (as name gives them) and targets of peaks in
// first-seen order, and maps target+"\x00"+scenario to its peak.
func indexPeaks(peaks []*analysis.Peak, name func(*analysis.Peak) string) (scen, targets []string, by map[string]*analysis.Peak) {
	seenS, seenT := map[string]bool{}, map[string]bool{}
	by = map[string]*analysis.Peak{}
	for _, p := range peaks {
		s := name(p)
		if !seenS[s] {
			seenS[s] = true
			scen = append(scen, s)
		}
		if !seenT[p.Target] {
			seenT[p.Target] = true
			targets = append(targets, p.Target)
		}
		by[p.Target+"\x00"+s] = p
	}
	return scen, targets, by
}
