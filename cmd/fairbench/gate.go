package main

// The regression gate: one study's targets against the same targets of a
// baseline study (compare --against FILE | --baseline-study NAME), cell by
// cell, with compare's statistics; --fail-on exits 1 on a significant
// change beyond a threshold. reproduce shares the comparison across studies.

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/fairbench/fairbench/internal/analysis"
	"github.com/fairbench/fairbench/internal/escape"
	"github.com/fairbench/fairbench/internal/numfmt"
	"github.com/fairbench/fairbench/internal/report"
	"github.com/fairbench/fairbench/internal/result"
	"github.com/fairbench/fairbench/internal/store"
)

// targetPair is a target of the current study and the baseline study's
// target it is compared with.
type targetPair struct{ base, cur string }

// acrossStudies is the comparison of two studies' runs, pair by pair.
type acrossStudies struct {
	// cmp holds every pair's cells, the baseline study's side named by
	// baseLabel: what compare's writers print.
	cmp *analysis.Comparison
	// items are the scenarios of every pair, each with its pooled verdict.
	items []*analysis.Finding
	// pairOf maps a current target to its pair.
	pairOf map[string]targetPair
	side   string // what the baseline side is called: "published", "baseline"
}

// baseLabel names the baseline study's side of a pair in tables.
func (a *acrossStudies) baseLabel(p targetPair) string { return p.base + " (" + a.side + ")" }

// compareAcross compares, for each pair, the current runs of its current
// target with the baseline runs of its baseline target, cell by cell and
// pooled per scenario, with compare's statistics (analysis.Summarise): the
// runs are copied into one study, whose cells they share, the baseline
// side renamed. Two studies' runs are never in interleaved rounds with one
// another, so the pooled test is the unpaired one unless the rounds do
// alternate in time.
func compareAcross(baseRuns, curRuns []*result.Run, pairs []targetPair, title, side string, alpha float64) (*acrossStudies, error) {
	a := &acrossStudies{cmp: &analysis.Comparison{Alpha: alpha, Level: 1 - alpha}, pairOf: map[string]targetPair{}, side: side}
	if alpha <= 0 || alpha >= 1 {
		a.cmp.Alpha, a.cmp.Level = analysis.DefaultAlpha, 1-analysis.DefaultAlpha
	}
	var labels []string
	for _, p := range pairs {
		a.pairOf[p.cur] = p
		label := a.baseLabel(p)
		labels = append(labels, label)
		var runs []*result.Run
		relabel := func(from []*result.Run, target, as string) {
			for _, r := range from {
				if r.Target == target {
					c := *r
					c.StudyName, c.Target = title, as
					runs = append(runs, &c)
				}
			}
		}
		relabel(baseRuns, p.base, label)
		relabel(curRuns, p.cur, p.cur)
		groups, err := analysis.GroupRuns(runs)
		if err != nil {
			return nil, err
		}
		ws := analysis.Warnings(groups, label)
		f, err := analysis.Summarise(groups, label, a.cmp.Alpha, ws)
		if err != nil {
			return nil, err
		}
		a.items = append(a.items, f.Items...)
		a.cmp.Cells = append(a.cmp.Cells, f.Comparison.Cells...)
		a.cmp.GeoMeans = append(a.cmp.GeoMeans, f.Comparison.GeoMeans...)
		a.cmp.Warnings = append(a.cmp.Warnings, ws...)
	}
	a.cmp.Baseline = strings.Join(labels, ", ")
	return a, nil
}

// pairTargets pairs the current study's targets with the baseline study's:
// by name, or as maps (BASELINE=CURRENT) say. unpaired are the current
// targets without one, for a line each.
func pairTargets(baseRuns, curRuns []*result.Run, maps map[string]string, flag string) (pairs []targetPair, unpaired []string, err error) {
	baseTargets, curTargets := runTargets(baseRuns), runTargets(curRuns)
	mine := map[string]string{} // current → baseline
	for b, c := range maps {
		if !slices.Contains(baseTargets, b) {
			return nil, nil, fmt.Errorf("--%s %s=%s: the baseline study has no target %q (it has %s)", flag, b, c, b, strings.Join(baseTargets, ", "))
		}
		if !slices.Contains(curTargets, c) {
			return nil, nil, fmt.Errorf("--%s %s=%s: the current study has no target %q (it has %s)", flag, b, c, c, strings.Join(curTargets, ", "))
		}
		mine[c] = b
	}
	for _, c := range curTargets {
		b, ok := mine[c]
		if !ok && len(maps) == 0 && slices.Contains(baseTargets, c) {
			b, ok = c, true
		}
		if !ok {
			unpaired = append(unpaired, c)
			continue
		}
		pairs = append(pairs, targetPair{base: b, cur: c})
	}
	if len(pairs) == 0 {
		return nil, unpaired, fmt.Errorf("no target of the current study (%s) is in the baseline study (%s): pair them with --%s BASELINE=CURRENT", strings.Join(curTargets, ", "), strings.Join(baseTargets, ", "), flag)
	}
	return pairs, unpaired, nil
}

// runTargets are the runs' target names in order of first appearance.
func runTargets(runs []*result.Run) []string {
	var out []string
	for _, r := range runs {
		if !slices.Contains(out, r.Target) {
			out = append(out, r.Target)
		}
	}
	return out
}

// parseMaps reads repeated NAME=VALUE flags, each name once.
func parseMaps(flag string, given []string) (map[string]string, error) {
	out := map[string]string{}
	for _, m := range given {
		name, value, ok := strings.Cut(m, "=")
		if !ok || name == "" || value == "" {
			return nil, fmt.Errorf("--%s %q: write NAME=VALUE", flag, m)
		}
		if _, dup := out[name]; dup {
			return nil, fmt.Errorf("--%s %s: given twice", flag, name)
		}
		out[name] = value
	}
	return out, nil
}

// threshold is one metric's entry of --fail-on: a change beyond Pct (in
// the regression's direction, its sign) fails the gate.
type threshold struct {
	Metric string  // "headline" (tps, throughput, …), "p95", "p99"
	Name   string  // as given
	Pct    float64 // signed: −2.5 for "tps:-2.5%", +10 for "p99:+10%"
	Falls  bool    // the sign was −: a fall regresses (also for −0 %)
}

// maxThresholdPct bounds a threshold: a rise beyond a hundredfold is no
// gate, and a fall cannot pass −100 %.
const maxThresholdPct = 10000

// headlineNames name the headline metric in --fail-on, besides its own
// name and unit as compare prints them.
var headlineNames = []string{"headline", "tps", "throughput"}

// parseFailOn reads --fail-on 'tps:-2.5%,p99:+10%': each metric once, a
// sign that says the regression's direction (a fall of the throughput, a
// rise of a latency), a finite percentage.
func parseFailOn(spec string) ([]threshold, error) {
	var out []threshold
	for _, part := range strings.Split(spec, ",") {
		part = strings.TrimSpace(part)
		name, val, ok := strings.Cut(part, ":")
		name = strings.TrimSpace(name)
		if !ok || name == "" {
			return nil, fmt.Errorf("--fail-on %q: write METRIC:±PCT%%, e.g. 'tps:-2.5%%,p99:+10%%'", part)
		}
		val = strings.TrimSuffix(strings.TrimSpace(val), "%")
		if val == "" || (val[0] != '+' && val[0] != '-') {
			return nil, fmt.Errorf("--fail-on %s: give the sign of the regression (%s:-5%% fails on a fall of 5 %% or more, p99:+10%% on a rise of 10 %% or more)", part, name)
		}
		pct, err := strconv.ParseFloat(val, 64)
		if err != nil || math.IsNaN(pct) || math.IsInf(pct, 0) {
			return nil, fmt.Errorf("--fail-on %s: %q is not a finite percentage", part, val)
		}
		if pct <= -100 || pct > maxThresholdPct {
			return nil, fmt.Errorf("--fail-on %s: give a change above -100 %% and at most +%d %%", part, maxThresholdPct)
		}
		t := threshold{Name: name, Pct: pct, Falls: val[0] == '-'}
		lower := strings.ToLower(name)
		switch {
		case lower == "p95" || lower == "p99":
			t.Metric = lower
			if val[0] != '+' {
				return nil, fmt.Errorf("--fail-on %s: a latency regresses by rising: write %s:+%s%%", part, name, strings.TrimLeft(val, "+-"))
			}
		case lower == "tps" || lower == "throughput":
			t.Metric = "headline"
			if val[0] != '-' {
				return nil, fmt.Errorf("--fail-on %s: a throughput regresses by falling: write %s:-%s%%", part, name, strings.TrimLeft(val, "+-"))
			}
		default:
			t.Metric = "headline" // the headline's own name or unit; its direction is checked against the cells
		}
		if slices.ContainsFunc(out, func(o threshold) bool { return strings.EqualFold(o.Name, name) }) {
			return nil, fmt.Errorf("--fail-on %s: metric %s given twice", part, name)
		}
		out = append(out, t)
	}
	return out, nil
}

// gateFailure is one cell and metric beyond its threshold with a
// significant verdict.
type gateFailure struct {
	cell      *analysis.CellComparison
	item      *analysis.Finding
	metric    analysis.Metric
	threshold threshold
	verdict   string // the verdict that made it significant
}

// applies says whether t is about metric m of a cell of headline h.
func (t threshold) applies(m analysis.Metric, h result.Headline) bool {
	if t.Metric != "headline" {
		return !m.Headline && m.Name == t.Metric
	}
	if !m.Headline {
		return false
	}
	name := strings.ToLower(t.Name)
	return name == "headline" || strings.EqualFold(h.Name, t.Name) || strings.EqualFold(h.Unit, t.Name) ||
		((name == "tps" || name == "throughput") && h.HigherIsBetter)
}

// beyond says whether the change d (%) is past t in its direction.
func (t threshold) beyond(d float64) bool {
	if math.IsNaN(d) {
		return false
	}
	if t.Falls {
		return d <= t.Pct
	}
	return d >= t.Pct
}

// evaluateGate finds every cell and metric whose change is significant and
// beyond its threshold: the headline's by its scenario's pooled verdict,
// a latency percentile's by the cell's own (compare's statistics both).
// It refuses a threshold that applies to no metric of the cells, and one
// whose sign is the headline's improvement.
func evaluateGate(a *acrossStudies, ts []threshold) ([]gateFailure, error) {
	used := make([]bool, len(ts))
	var out []gateFailure
	for _, it := range a.items {
		for _, cc := range it.Cells {
			for _, m := range cc.Metrics() {
				for i, t := range ts {
					if !t.applies(m, it.Headline) {
						continue
					}
					used[i] = true
					if t.Metric == "headline" && t.Falls != m.HigherIsBetter {
						dir := "falling"
						if !m.HigherIsBetter {
							dir = "rising"
						}
						return nil, fmt.Errorf("--fail-on %s: %s regresses by %s (%s), give the other sign", t.Name, it.Headline.Name, dir, it.Scenario)
					}
					verdict := m.Verdict
					if m.Headline && it.Pooled != nil {
						verdict = it.Pooled.Verdict
					}
					if verdict != analysis.Slower || !t.beyond(m.Delta) {
						continue
					}
					v := string(verdict)
					if m.Headline {
						v += " (pooled over the scenario, " + it.Pooled.Test + ")"
					} else {
						v += " (" + m.Test + ")"
					}
					out = append(out, gateFailure{cell: cc, item: it, metric: m, threshold: t, verdict: v})
				}
			}
		}
	}
	for i, t := range ts {
		if !used[i] {
			var names []string
			for _, it := range a.items {
				for _, n := range []string{it.Headline.Name, it.Headline.Unit} {
					if n != "" && !slices.Contains(names, n) {
						names = append(names, n)
					}
				}
			}
			return nil, fmt.Errorf("--fail-on %s: no compared cell has that metric (they have %s, p95, p99)", t.Name, strings.Join(names, ", "))
		}
	}
	return out, nil
}

// gateOutcome is the gate's account, as each format writes it.
type gateOutcome struct {
	title      string // the current study against the baseline study
	spec       string // --fail-on as given
	a          *acrossStudies
	failures   []gateFailure
	unpaired   []string
	cellsTotal int
}

func (g *gateOutcome) verdictLine() string {
	if len(g.failures) == 0 {
		return fmt.Sprintf("gate passed: no significant change beyond %s in %s", g.spec, numfmt.Count(g.cellsTotal, "cell", "cells"))
	}
	return fmt.Sprintf("gate failed: %s beyond %s, significant, of %s",
		numfmt.Count(len(g.failures), "change", "changes"), g.spec, numfmt.Count(g.cellsTotal, "cell", "cells"))
}

// cellName names a compared cell: target, scenario, clients.
func (g *gateOutcome) cellName(f gateFailure) string {
	return fmt.Sprintf("%s · %s · %s", f.cell.Other.Target, f.item.Scenario, clientsOf(f.cell.Other))
}

func clientsOf(gr *analysis.Group) string {
	if gr.Level != "" {
		return gr.Level + " (" + strconv.Itoa(gr.Clients) + " clients)"
	}
	return numfmt.Count(gr.Clients, "client", "clients")
}

// changeText is a metric's change with its interval where there is one.
func changeText(m analysis.Metric) string {
	if math.IsNaN(m.Delta) {
		return "—"
	}
	s := fmt.Sprintf("%+.1f %%", m.Delta)
	if m.DeltaCI.OK() {
		s += fmt.Sprintf(" [%+.1f, %+.1f]", m.DeltaCI.Lo, m.DeltaCI.Hi)
	}
	return s
}

// pooledChangeText is a scenario's pooled change with its interval.
func pooledChangeText(p *analysis.Pooled) string {
	if p == nil || math.IsNaN(p.Change) {
		return "—"
	}
	s := fmt.Sprintf("%+.1f %%", p.Change)
	if p.CI.OK() {
		s += fmt.Sprintf(" [%+.1f, %+.1f]", p.CI.Lo, p.CI.Hi)
	}
	return s
}

func metricShown(m analysis.Metric, v float64) string {
	if !m.Headline {
		return numfmt.Significant(v/1000, 4) + " ms"
	}
	return numfmt.Significant(v, 6) + " " + m.Unit
}

// writeText writes the gate in one screen: the verdict, each failing cell
// and metric, the targets left out.
func (g *gateOutcome) writeText(w io.Writer) {
	fmt.Fprintf(w, "%s\n%s\n", g.title, g.verdictLine())
	for _, f := range g.failures {
		fmt.Fprintf(w, "  %s: %s %s → %s, %s, threshold %s:%+g %%; %s\n", g.cellName(f), metricLabelOf(f.metric),
			metricShown(f.metric, f.metric.Base), metricShown(f.metric, f.metric.Value), changeText(f.metric), f.threshold.Name, f.threshold.Pct, f.verdict)
	}
	for _, t := range g.unpaired {
		fmt.Fprintf(w, "  %s: not in the baseline study, not compared\n", t)
	}
}

func metricLabelOf(m analysis.Metric) string {
	if m.Headline {
		return m.Unit
	}
	return m.Name
}

// writeGitHub writes a Markdown summary for a CI job's summary page
// ($GITHUB_STEP_SUMMARY): the verdict, then every cell's headline with
// its change, its scenario's pooled verdict and whether it failed.
func (g *gateOutcome) writeGitHub(w io.Writer) {
	md := report.MarkdownCell
	mark := "✅"
	if len(g.failures) > 0 {
		mark = "❌"
	}
	fmt.Fprintf(w, "### %s fairbench: %s\n\n%s\n\n", mark, md(g.title), md(g.verdictLine()))
	failed := map[*analysis.CellComparison][]string{}
	for _, f := range g.failures {
		failed[f.cell] = append(failed[f.cell], fmt.Sprintf("%s %s", metricLabelOf(f.metric), changeText(f.metric)))
	}
	fmt.Fprintf(w, "| target | scenario | clients | baseline | current | change | scenario verdict | gate |\n|:--|:--|--:|--:|--:|--:|:--|:--|\n")
	for _, it := range g.a.items {
		for _, cc := range it.Cells {
			m := cc.Headline
			gate := "pass"
			if fs := failed[cc]; len(fs) > 0 {
				gate = "**fail**: " + strings.Join(fs, "; ")
			}
			verdict := "—"
			if it.Pooled != nil {
				verdict = string(it.Pooled.Verdict) + ", " + pooledChangeText(it.Pooled)
			}
			fmt.Fprintf(w, "| %s | %s | %s | %s | %s | %s | %s | %s |\n", md(cc.Other.Target), md(it.Scenario), md(cc.Other.LevelID()),
				md(metricShown(m, m.Base)), md(metricShown(m, m.Value)), md(changeText(m)), md(verdict), md(gate))
		}
	}
	for _, t := range g.unpaired {
		fmt.Fprintf(w, "\n%s: not in the baseline study, not compared.\n", md(t))
	}
}

// writeJSON writes the gate and the comparison under it.
func (g *gateOutcome) writeJSON(w io.Writer) error {
	var cmp bytes.Buffer
	if err := report.CompareJSON(&cmp, g.a.cmp, nil); err != nil {
		return err
	}
	type failure struct {
		Target    string   `json:"target"`
		Scenario  string   `json:"scenario"`
		Clients   int      `json:"clients"`
		Metric    string   `json:"metric"`
		Baseline  *float64 `json:"baseline"`
		Value     *float64 `json:"value"`
		Delta     *float64 `json:"delta_pct"`
		Threshold string   `json:"threshold"`
		Verdict   string   `json:"verdict"`
	}
	doc := struct {
		Passed     bool            `json:"passed"`
		FailOn     string          `json:"fail_on"`
		Failures   []failure       `json:"failures"`
		Unpaired   []string        `json:"not_compared,omitempty"`
		Comparison json.RawMessage `json:"comparison"`
	}{Passed: len(g.failures) == 0, FailOn: g.spec, Failures: []failure{}, Unpaired: g.unpaired, Comparison: cmp.Bytes()}
	for _, f := range g.failures {
		doc.Failures = append(doc.Failures, failure{Target: f.cell.Other.Target, Scenario: f.item.Scenario, Clients: f.cell.Other.Clients,
			Metric: metricLabelOf(f.metric), Baseline: finiteOrNil(f.metric.Base), Value: finiteOrNil(f.metric.Value), Delta: finiteOrNil(f.metric.Delta),
			Threshold: fmt.Sprintf("%s:%+g%%", f.threshold.Name, f.threshold.Pct), Verdict: f.verdict})
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(doc)
}

func finiteOrNil(f float64) *float64 {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return nil
	}
	return &f
}

// gateOptions are compare's flags of the gate.
type gateOptions struct {
	against, baselineStudy, failOn string
	maps                           []string
}

func (o gateOptions) active() bool { return o.against != "" || o.baselineStudy != "" }

// runGate compares the current study of s with the baseline study and,
// with --fail-on, fails on a significant change beyond a threshold.
func runGate(s *store.Store, studyName string, o gateOptions, alpha float64, format, out string) error {
	var ts []threshold
	if o.failOn != "" {
		var err error
		if ts, err = parseFailOn(o.failOn); err != nil {
			return err
		}
	}
	maps, err := parseMaps("map", o.maps)
	if err != nil {
		return err
	}
	curRuns, _, curTitle, err := selectRuns(s, store.Filter{StudyName: studyName, LatestStudy: studyName == ""}, "compare")
	if err != nil {
		return err
	}
	bs := s
	if o.against != "" {
		if bs, err = openResults(o.against); err != nil {
			return fmt.Errorf("--against %s: %v", o.against, err)
		}
		defer bs.Close()
	}
	baseRuns, _, baseTitle, err := selectRuns(bs, store.Filter{StudyName: o.baselineStudy, LatestStudy: o.baselineStudy == ""}, "compare against")
	if err != nil {
		return fmt.Errorf("the baseline study: %v", err)
	}
	if samePath(bs.Path(), s.Path()) && baseTitle == curTitle && len(maps) == 0 {
		return fmt.Errorf("--baseline-study %q is the study compared: name another (--study picks the current one), or pair two of its targets with --map", baseTitle)
	}
	pairs, unpaired, err := pairTargets(baseRuns, curRuns, maps, "map")
	if err != nil {
		return err
	}
	where := ""
	if o.against != "" {
		where = " in " + o.against
	}
	title := fmt.Sprintf("%s against %s%s", curTitle, baseTitle, where)
	a, err := compareAcross(baseRuns, curRuns, pairs, curTitle, "baseline", alpha)
	if err != nil {
		return err
	}
	var buf bytes.Buffer
	if ts == nil {
		if format == "github" {
			return fmt.Errorf("--format github is the gate's summary: give --fail-on too")
		}
		for _, t := range unpaired {
			fmt.Fprintf(&buf, "%s: not in the baseline study, not compared\n", t)
		}
		if err := writeComparison(&buf, a.cmp, title, s.Path(), format); err != nil {
			return err
		}
		return emit(&buf, out)
	}
	failures, err := evaluateGate(a, ts)
	if err != nil {
		return err
	}
	g := &gateOutcome{title: title, spec: o.failOn, a: a, failures: failures, unpaired: unpaired, cellsTotal: len(a.cmp.Cells)}
	switch format {
	case "text", "":
		g.writeText(escape.NewWriter(&buf, escape.TerminalText))
	case "github", "md", "markdown":
		g.writeGitHub(&buf)
	case "json":
		err = g.writeJSON(&buf)
	default:
		return fmt.Errorf("--format %q with --fail-on: use text, github (md) or json", format)
	}
	if err != nil {
		return err
	}
	if err := emit(&buf, out); err != nil {
		return err
	}
	if len(failures) > 0 {
		return fmt.Errorf("compare: %s", g.verdictLine())
	}
	return nil
}

// writeComparison writes a comparison in one of compare's formats.
func writeComparison(buf *bytes.Buffer, cmp *analysis.Comparison, title, results, format string) error {
	opt := report.Options{Title: title, Results: results}
	switch format {
	case "text", "":
		return report.CompareTerminal(buf, cmp, opt)
	case "md", "markdown":
		buf.WriteString(mdMarker)
		return report.CompareMarkdown(buf, cmp, opt)
	case "json":
		return report.CompareJSON(buf, cmp, nil)
	case "csv":
		return report.CompareCSV(buf, cmp)
	}
	return fmt.Errorf("--format %q: use text, md, json or csv", format)
}
