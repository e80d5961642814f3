// Package report renders aggregated results for people: an aligned table for
// the terminal, Markdown for articles and issues, a self-contained HTML page,
// CSV, JSON and benchstat's format. Renderers only format what package
// analysis computed; they never compute a statistic of their own, so every
// format shows the same numbers. Each cell leads with its headline metric
// under the headline's own name and unit (throughput in tps unless the
// workload declares another, such as NOPM or seconds where lower is better),
// with per-op-type rates and p99 beside it where a run has several op types.
// The package names no workload kind and no tool: the extra tables a kind
// needs come from package kinds. Output is deterministic for the same input,
// so reports can be diffed and tested to the byte.
package report

import (
	"fmt"
	"io"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/fairbench/fairbench/internal/escape"
	"github.com/fairbench/fairbench/internal/numfmt"

	"github.com/fairbench/fairbench/internal/analysis"
	"github.com/fairbench/fairbench/internal/result"
)

// Options are shared by the renderers.
type Options struct {
	Title   string
	Results string // path of the results file, named in the footer
	// Warnings are the methodology findings; with Checked set the renderers
	// end with a Methodology section (analysis.Warnings computes them).
	Warnings []analysis.Warning
	Checked  bool
	// Baseline is the target the ratios of a kind's extra sections divide
	// by; "" for the first target of each cell.
	Baseline string
	// LatencyShares are the thresholds of the cumulative latency table
	// (analysis.LatencyShares); nil leaves the table out.
	LatencyShares []time.Duration
}

// none stands for a number that does not exist (no completed run), which must
// not read as zero.
const none = "–"

// Terminal writes one aligned row per group. The params column shows only the
// parameters that differ between groups of the same workload; the ones they
// share are listed once below the table.
func Terminal(w io.Writer, groups []*analysis.Group, opt Options) error {
	ew := textWriter(w)
	if opt.Title != "" {
		ew.printf("%s\n\n", opt.Title)
	}
	if len(groups) == 0 {
		ew.printf("no runs to report\n")
		return ew.err
	}
	multiStudy := len(distinct(groups, func(g *analysis.Group) string { return g.Study })) > 1
	label := newLabeler(groups)
	writeFindingsText(ew, groups, summarise(groups, opt), label)

	if err := writeKindSectionsText(ew, groups, opt.Baseline, true); err != nil {
		return err
	}
	if err := writeGroupsText(ew, groups, multiStudy, label); err != nil {
		return err
	}
	writeNotesText(ew, groups, label)
	if err := writeTablesText(ew, groups, opt, multiStudy, label); err != nil {
		return err
	}
	if opt.Checked {
		if err := methodology(ew, opt.Warnings, groups, false); err != nil {
			return err
		}
	}
	if opt.Results != "" {
		ew.printf("results: %s\n", opt.Results)
	}
	return ew.err
}

// writeGroupsText writes the main table, one row per group (and one per
// level of a group whose runs blend two), and its notes.
func writeGroupsText(ew *errWriter, groups []*analysis.Group, multiStudy bool, label labeler) error {
	unit, sameUnit := sharedUnit(groups)
	headCol := unit + " (median)"
	if !sameUnit || unit == "" {
		headCol = "headline (median)"
	}
	// A tool that reports no latency (mysqlslap) leaves its cells' latency
	// columns without a value; a table of such cells alone has none.
	noLatency, allWithout := latencyless(groups)
	header := []string{"target", "workload", "params", "clients", "n", headCol, "avg ms", "p50 ms", "p95 ms", "p99 ms", "max ms", "errors"}
	if allWithout {
		header = []string{"target", "workload", "params", "clients", "n", headCol, "errors"}
	}
	if multiStudy {
		header = append([]string{"study"}, header...)
	}
	var rows [][]string
	anyLevels := false
	for _, g := range groups {
		row := []string{g.Target, workloadName(g), label.params(g), groupClients(g), strconv.Itoa(g.N)}
		switch {
		case g.N == 0:
			for range len(header) - len(row) {
				row = append(row, none)
			}
		case allWithout:
			v := withUnit(g.Headline, g.Median)
			if sameUnit && unit != "" {
				v = headlineValue(g.Headline, g.Median)
			}
			row = append(row, v, strconv.FormatInt(g.Errors, 10))
		default:
			v := headlineValue(g.Headline, g.Median)
			if !sameUnit || unit == "" {
				v = withUnit(g.Headline, g.Median)
			}
			row = append(row, v, average(g), latency(g, g.P50), latency(g, g.P95), latency(g, g.P99), latency(g, g.Max), strconv.FormatInt(g.Errors, 10))
		}
		if multiStudy {
			row = append([]string{g.Study}, row...)
		}
		rows = append(rows, row)
		levelled := levelRowsText(g, sameUnit && unit != "", multiStudy, label)
		rows = append(rows, levelled...)
		anyLevels = anyLevels || len(levelled) > 0
	}
	// The columns before clients hold names.
	if err := (table{Header: header, Rows: rows, TextCols: slices.Index(header, "clients")}).writeText(ew); err != nil {
		return err
	}
	if len(noLatency) > 0 {
		ew.printf("\n%s\n", wrap(noLatencyLine(noLatency, allWithout), lineWidth, ""))
	}
	if anyLevels {
		ew.printf("\n%s.\n", wrap(levelsNote, lineWidth, ""))
	}
	return nil
}

// writeNotesText writes what every row shares and how the numbers were
// made.
func writeNotesText(ew *errWriter, groups []*analysis.Group, label labeler) {
	if common := label.commonAll(groups); len(common) > 0 {
		ew.printf("\nsame in every row of a workload: %s\n", strings.Join(common, "; "))
	}
	incomplete := 0
	for _, g := range groups {
		incomplete += g.Incomplete
	}
	if incomplete > 0 {
		ew.printf("\n%d interrupted or failed %s excluded from these numbers.\n", incomplete, numfmt.Plural(incomplete, "run", "runs"))
	}
	if allTPS(groups) {
		ew.printf("\nthroughput: median of the completed repetitions; latency: percentiles of their merged histograms.\n")
	} else {
		ew.printf("\nheadline (%s): median of the completed repetitions; latency: percentiles of their merged histograms.\n", headlineList(groups))
	}
}

// writeTablesText writes the tables below the main one.
func writeTablesText(ew *errWriter, groups []*analysis.Group, opt Options, multiStudy bool, label labeler) error {
	// Cells sized by shares of threads pair targets at different client
	// counts: the main table lists them apart, these put them side by side.
	for _, sec := range sections(groups) {
		if !byShareOfThreads(sec.groups) {
			continue
		}
		heading := sectionHeading(sec.groups[0], multiStudy, label)
		for _, t := range sideBySideTables(sec.groups).tables {
			t.Caption = heading + " · " + t.Caption
			ew.printf("\n")
			if err := t.writeText(ew); err != nil {
				return err
			}
		}
	}
	for _, t := range []func() (table, bool){
		func() (table, bool) { return spreadTable(groups, true, multiStudy, &label) },
		func() (table, bool) { return sharesTable(groups, opt.LatencyShares, true, multiStudy, &label) },
		func() (table, bool) { return opTable(groups, true, multiStudy, &label) },
	} {
		if t, ok := t(); ok {
			ew.printf("\n")
			if err := t.writeText(ew); err != nil {
				return err
			}
		}
	}
	if t, ok := levelShiftTable(groups, label); ok {
		ew.printf("\n")
		if err := t.writeText(ew); err != nil {
			return err
		}
	}
	if err := writeKindSectionsText(ew, groups, opt.Baseline, false); err != nil {
		return err
	}
	for _, sec := range sections(groups) {
		for _, t := range serverViewTables(sec, label) {
			t.Caption = sectionHeading(sec.groups[0], multiStudy, label) + " · " + t.Caption
			ew.printf("\n%s\n", t.Title)
			if err := t.writeText(ew); err != nil {
				return err
			}
		}
	}
	if t, ok := priceTable(groups); ok {
		ew.printf("\n")
		if err := t.writeText(ew); err != nil {
			return err
		}
	}
	if t, ok := generatorsTable(groupRuns(groups)); ok {
		ew.printf("\n")
		if err := t.writeText(ew); err != nil {
			return err
		}
	}
	for _, t := range []func([]*analysis.Group) (table, bool){targetsTable, hostsTable, serverViewGaps} {
		if t, ok := t(groups); ok {
			ew.printf("\n")
			if err := t.writeText(ew); err != nil {
				return err
			}
		}
	}
	return nil
}

// Markdown writes a report for articles and issues: how it was measured, then
// per workload and parameter set a throughput table and a latency table
// (targets as rows, client counts as columns), then every run, so a reader can
// check each repetition behind a median.
func Markdown(w io.Writer, groups []*analysis.Group, runs []*result.Run, opt Options) error {
	ew := markdownWriter(w)
	title := opt.Title
	if title == "" {
		title = "fairbench results"
	}
	ew.printf("# %s\n\n", cell(title))
	multiStudy := len(distinct(groups, func(g *analysis.Group) string { return g.Study })) > 1
	label := newLabeler(groups)
	writeFindingsMarkdown(ew, summarise(groups, opt), label)
	ew.printf("## How measured\n\n%s\n\n", wrap(howMeasured(groups, runs), lineWidth, ""))
	for _, t := range []func([]*analysis.Group) (table, bool){targetsTable, hostsTable, serverViewGaps} {
		if t, ok := t(groups); ok {
			t.writeMarkdown(ew)
		}
	}
	commonShown := map[string]bool{}
	for _, sec := range sections(groups) {
		writeSectionMarkdown(ew, sec, opt, multiStudy, label, commonShown)
	}
	if t, ok := priceTable(groups); ok {
		t.writeMarkdown(ew)
	}

	if opt.Checked {
		if err := methodology(ew, opt.Warnings, groups, true); err != nil {
			return err
		}
	}

	writeRunsMarkdown(ew, runs, label)
	if t, ok := generatorsTable(runs); ok {
		ew.printf("\n")
		t.writeMarkdown(ew)
	}
	writeFooterMarkdown(ew, runs, opt.Results)
	return ew.err
}

// writeRunsMarkdown writes every run, in the order of their ids.
func writeRunsMarkdown(ew *errWriter, runs []*result.Run, label labeler) {
	ew.printf("## Runs\n\n")
	if len(runs) == 0 {
		ew.printf("No runs.\n")
	} else {
		runsTPS := true
		for _, r := range runs {
			runsTPS = runsTPS && isTPS(analysis.Headline(r).Headline)
		}
		headCol := "tps"
		if !runsTPS {
			headCol = "headline"
		}
		ew.printf("| id | target | workload | params | clients | rep | status | %s | p99 ms | errors |\n", headCol)
		ew.printf("|--:|:--|:--|:--|--:|--:|:--|--:|--:|--:|\n")
		sorted := append([]*result.Run(nil), runs...)
		sort.SliceStable(sorted, func(i, j int) bool { return sorted[i].ID < sorted[j].ID })
		for _, r := range sorted {
			status := string(r.Status)
			if r.Status != result.StatusOK && r.Error != "" {
				status += ": " + truncate(r.Error, 80)
			}
			tps, p99 := none, none
			if m := analysis.Headline(r); r.Summary.Transactions > 0 || m.Value > 0 {
				tps = headlineValue(m.Headline, m.Value)
				if !runsTPS {
					tps = withUnit(m.Headline, m.Value)
				}
				if r.Summary.P99 > 0 {
					p99 = ms(r.Summary.P99)
				}
			}
			ew.printf("| %d | %s | %s | %s | %d | %d | %s | %s | %s | %d |\n",
				r.ID, cell(r.Target), cell(r.Workload), cell(orDash(label.names.VaryingRun(r).Canonical())),
				r.Clients, r.Repetition, cell(status), tps, p99, max(r.TotalErrors(), r.Summary.Failed))
		}
	}
}

// writeFooterMarkdown writes the tool versions and the results file.
func writeFooterMarkdown(ew *errWriter, runs []*result.Run, results string) {
	ew.printf("\n---\n\n")
	versions := distinctStrings(runs, func(r *result.Run) string { return r.ToolVersion })
	var foot []string
	if len(versions) > 0 {
		foot = append(foot, numfmt.Plural(len(versions), "Tool version", "Tool versions")+": "+cell(strings.Join(versions, ", ")))
	}
	if results != "" {
		foot = append(foot, "results file: `"+strings.ReplaceAll(results, "`", "'")+"`")
	}
	if len(foot) == 0 {
		foot = append(foot, "fairbench")
	}
	ew.printf("%s\n", strings.Join(foot, " · "))
}

// writeSectionMarkdown writes one section: its heading, the line of settings
// common to its workload (in the first section of that workload), then its
// tables and notes.
func writeSectionMarkdown(ew *errWriter, sec section, opt Options, multiStudy bool, label labeler, commonShown map[string]bool) {
	g0 := sec.groups[0]
	heading := label.scenario(g0)
	common := ""
	if wk := workloadKey(g0); !commonShown[wk] {
		commonShown[wk] = true
		common = commonLine(g0, label.common(g0))
	}
	if multiStudy {
		heading = g0.Study + " · " + heading
	}
	ew.printf("## %s\n\n", cell(heading))
	if common != "" {
		ew.printf("%s\n\n", wrap(cell(common), lineWidth, ""))
	}
	kt := kindTables(sec, opt.Baseline)
	for _, t := range leading(kt, true) {
		t.writeMarkdown(ew)
	}

	sb := sideBySideTables(sec.groups)
	for _, t := range sb.tables {
		t.writeMarkdown(ew)
	}
	if sb.noLatency != "" {
		ew.printf("%s\n\n", wrap(sb.noLatency, lineWidth, ""))
	}
	if t, ok := spreadTable(sec.groups, false, false, nil); ok {
		t.writeMarkdown(ew)
	}
	if t, ok := sharesTable(sec.groups, opt.LatencyShares, false, false, nil); ok {
		t.writeMarkdown(ew)
	}
	if t, ok := opTable(sec.groups, false, false, nil); ok {
		t.writeMarkdown(ew)
	}
	if t, ok := levelShiftTable(sec.groups, label); ok {
		t.writeMarkdown(ew)
	}
	for _, t := range leading(kt, false) {
		t.writeMarkdown(ew)
	}
	for _, t := range serverViewTables(sec, label) {
		t.writeMarkdown(ew)
	}
	if errs := sectionErrors(sec.groups); errs != "" {
		ew.printf("Errors: %s.\n\n", errs)
	}
	var notes []string
	if hasNone(sec.groups) {
		notes = append(notes, none+" no completed run")
	}
	if hasPartial(sec.groups, sb.maxN) {
		notes = append(notes, "(n=…) fewer completed repetitions than the other cells")
	}
	if sb.levelled {
		notes = append(notes, levelsNote)
	}
	if len(notes) > 0 {
		ew.printf("%s.\n\n", strings.Join(notes, "; "))
	}
}

// howMeasured states the method from what the runs actually did.
func howMeasured(groups []*analysis.Group, runs []*result.Run) string {
	var reps []int
	seen := map[int]bool{}
	for _, g := range groups {
		if g.N > 0 && !seen[g.N] {
			seen[g.N] = true
			reps = append(reps, g.N)
		}
	}
	sort.Ints(reps)
	var b strings.Builder
	b.WriteString("")
	switch {
	case len(reps) == 0:
		b.WriteString("no run completed")
	case len(reps) == 1:
		fmt.Fprintf(&b, "%d completed %s per cell", reps[0], numfmt.Plural(reps[0], "repetition", "repetitions"))
	default:
		fmt.Fprintf(&b, "%d–%d completed repetitions per cell", reps[0], reps[len(reps)-1])
	}
	var ok []*result.Run
	for _, r := range runs {
		if r.Status == result.StatusOK {
			ok = append(ok, r)
		}
	}
	if d := durationRange(ok, func(r *result.Run) time.Duration { return r.Duration }); d != "" {
		b.WriteString(", measured for " + d)
	}
	if d := durationRange(ok, func(r *result.Run) time.Duration { return r.Warmup }); d != "" && d != "0s" {
		b.WriteString("; warm-up (" + d + ") excluded from every number")
	} else if len(ok) > 0 {
		b.WriteString("; no warm-up")
	}
	if allTPS(groups) {
		b.WriteString(". Throughput is the median of the repetitions; latency percentiles come from " +
			"the repetitions' HdrHistograms merged, not from averaging per-run percentiles.")
	} else {
		b.WriteString(". Each cell's headline metric (" + headlineList(groups) + ") is the median of the repetitions; " +
			"latency percentiles come from the repetitions' HdrHistograms merged, not from averaging per-run percentiles.")
	}
	return b.String()
}

// durationRange renders the durations rounded to seconds, as "60s" or "59s–61s".
func durationRange(runs []*result.Run, f func(*result.Run) time.Duration) string {
	if len(runs) == 0 {
		return ""
	}
	lo, hi := time.Duration(math.MaxInt64), time.Duration(0)
	for _, r := range runs {
		d := f(r).Round(time.Second)
		lo, hi = min(lo, d), max(hi, d)
	}
	if lo == hi {
		return seconds(lo)
	}
	return seconds(lo) + "–" + seconds(hi)
}

// seconds renders a whole number of seconds the way study files write it: "60s", "5m", "90s".
func seconds(d time.Duration) string {
	n := int64(d / time.Second)
	if n >= 120 && n%60 == 0 {
		return strconv.FormatInt(n/60, 10) + "m"
	}
	return strconv.FormatInt(n, 10) + "s"
}

type section struct{ groups []*analysis.Group }

// sections splits groups by study, workload and parameters, keeping their order.
func sections(groups []*analysis.Group) []section {
	idx := map[string]int{}
	var out []section
	for _, g := range groups {
		k := strings.Join([]string{g.Study, g.Workload, g.Kind, g.Params}, "\x00")
		i, ok := idx[k]
		if !ok {
			i = len(out)
			idx[k] = i
			out = append(out, section{})
		}
		out[i].groups = append(out[i].groups, g)
	}
	return out
}

func clientLevels(groups []*analysis.Group) []int {
	seen := map[int]bool{}
	var out []int
	for _, g := range groups {
		if !seen[g.Clients] {
			seen[g.Clients] = true
			out = append(out, g.Clients)
		}
	}
	sort.Ints(out)
	return out
}

func sectionErrors(groups []*analysis.Group) string {
	var parts []string
	for _, g := range groups {
		if g.Errors > 0 {
			parts = append(parts, fmt.Sprintf("%s at %d %s: %d", g.Target, g.Clients, numfmt.Plural(g.Clients, "client", "clients"), g.Errors))
		}
	}
	return cell(strings.Join(parts, ", "))
}

func hasNone(groups []*analysis.Group) bool {
	for _, g := range groups {
		if g.N == 0 {
			return true
		}
	}
	return false
}

func hasPartial(groups []*analysis.Group, maxN int) bool {
	for _, g := range groups {
		if g.N > 0 && g.N < maxN {
			return true
		}
	}
	return false
}

func distinct(groups []*analysis.Group, f func(*analysis.Group) string) []string {
	seen := map[string]bool{}
	var out []string
	for _, g := range groups {
		if k := f(g); !seen[k] {
			seen[k] = true
			out = append(out, k)
		}
	}
	return out
}

// distinctStrings returns the non-empty values of f over runs, sorted.
func distinctStrings(runs []*result.Run, f func(*result.Run) string) []string {
	seen := map[string]bool{}
	var out []string
	for _, r := range runs {
		if k := f(r); k != "" && !seen[k] {
			seen[k] = true
			out = append(out, k)
		}
	}
	sort.Strings(out)
	return out
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// rate formats a throughput with one decimal and comma thousands separators,
// the same in every renderer and in the sections kinds contribute.
func rate(f float64) string { return numfmt.Rate(f) }

// ms formats microseconds as milliseconds with three decimals (µs resolution).
// hasLatencies tells whether a cell's runs carried a latency distribution;
// imported outputs that print only a mean (a tool that prints only its mean latency) do not.
func hasLatencies(g *analysis.Group) bool { return g.Merged != nil && g.Merged.TotalCount() > 0 }

// latencyless names the tools whose completed cells among groups have no
// latency at all, neither a distribution nor a mean (mysqlslap prints only
// its seconds per iteration), and says whether every completed cell is one.
func latencyless(groups []*analysis.Group) (tools []string, all bool) {
	all = true
	seen := map[string]bool{}
	completed := false
	for _, g := range groups {
		if g.N == 0 {
			continue
		}
		completed = true
		if hasLatencies(g) || g.MeanLatency > 0 {
			all = false
			continue
		}
		tool := workloadName(g)
		if len(g.Runs) > 0 && g.Runs[0].Source != "" {
			tool = g.Runs[0].Source
		}
		if !seen[tool] {
			seen[tool] = true
			tools = append(tools, tool)
		}
	}
	return tools, all && completed
}

// noLatencyLine says which tools report no latency, and so why a latency
// table is missing (all) or why its cells read "–".
func noLatencyLine(tools []string, all bool) string {
	who := strings.Join(tools, ", ") + numfmt.Plural(len(tools), " reports", " report")
	if all {
		return who + " no latency per request: no latency table."
	}
	return who + " no latency per request: its cells' latency columns read " + none + "."
}

// latency formats a percentile of a cell, or "–" when there is no distribution:
// a 0 would read as a measurement.
func latency(g *analysis.Group, us float64) string {
	if !hasLatencies(g) {
		return none
	}
	return ms(us)
}

// average is a cell's exact mean latency in ms, "–" when its runs recorded none.
func average(g *analysis.Group) string {
	if g.MeanLatency <= 0 {
		return none
	}
	return ms(g.MeanLatency)
}

func ms(us float64) string { return numfmt.Fixed(us/1000, 3) }

// cell makes text safe inside a Markdown table cell.
func cell(s string) string {
	s = strings.ReplaceAll(s, "\r\n", " ")
	s = strings.ReplaceAll(s, "\n", " ")
	return strings.ReplaceAll(s, "|", `\|`)
}

func truncate(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}

// errWriter keeps the first write error so renderers can print freely and report it once.
type errWriter struct {
	w   io.Writer
	err error
}

// textWriter is the errWriter of a plain-text renderer: every name it
// prints passes escape.TerminalText. A renderer called from another one
// writes through its caller's writer, escaped once.
func textWriter(w io.Writer) *errWriter { return ruledWriter(w, escape.TerminalText) }

// markdownWriter is textWriter for Markdown: escape.MarkdownText.
func markdownWriter(w io.Writer) *errWriter { return ruledWriter(w, escape.MarkdownText) }

func ruledWriter(w io.Writer, rule func(string) string) *errWriter {
	if ew, ok := w.(*errWriter); ok {
		return ew
	}
	return &errWriter{w: escape.NewWriter(w, rule)}
}

func (e *errWriter) Write(p []byte) (int, error) {
	if e.err != nil {
		return 0, e.err
	}
	n, err := e.w.Write(p)
	e.err = err
	return n, err
}

func (e *errWriter) printf(format string, args ...any) { fmt.Fprintf(e, format, args...) }
