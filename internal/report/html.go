package report

import (
	"encoding/json"
	"fmt"
	"html/template"
	"io"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/fairbench/fairbench/internal/analysis"
	"github.com/fairbench/fairbench/internal/hist"
	"github.com/fairbench/fairbench/internal/numfmt"
	"github.com/fairbench/fairbench/internal/result"
)

// HTMLOptions extend Options for the HTML report.
type HTMLOptions struct {
	Options
	// Comparison, when set, adds the table of deltas against its baseline.
	Comparison *analysis.Comparison
	// Embedded, when set, is the report's data the page carries
	// (--embed-data): the page states its size and holds its element.
	Embedded *Embedded
}

// Embedded is data an HTML report carries: the inert element that holds it
// (internal/bundle writes and reads it) and its size in bytes.
type Embedded struct {
	Element template.HTML
	Bytes   int
}

// maxSeriesPoints bounds the points of a per-run chart; longer series are
// averaged into this many buckets so that the file stays small.
const maxSeriesPoints = 240

type htmlTarget struct {
	Name string
	Env  string // indented JSON of the first completed run's recorded environment
	URL  string
}

type htmlSetting struct {
	Name   string
	Values []string
}

type htmlRun struct {
	Label   string
	Status  string
	Charts  []template.HTML
	Numbers []table
}

// htmlFigure is a chart with the table of its numbers beside it.
type htmlFigure struct {
	SVG     template.HTML
	Numbers *table
}

type htmlSection struct {
	Heading string
	Common  string  // parameters every section of this workload shares, on its first section
	Lead    []table // the kind's tables that open the section
	Figures []htmlFigure
	Numbers []table // the charts' numbers where a section has no charts (one client count)
	OpTable *table  // per-op-type results, when the runs have several op types
	Tables  []table // the extra sections the workload's kind registers
	Runs    []htmlRun
}

type htmlFinding struct {
	Scenario, Statement, Verdicts, Peaks, Class string
}

type htmlWarnGroup struct {
	Check, Summary string
	Details        []string
}

type htmlMetric struct {
	Text, Class string
	// Title is the cell's whole story, its tooltip: the test, p, why no
	// interval and the repetitions that would decide it.
	Title string
	Delta float64
}

type htmlCmpRow struct {
	Scenario, Target string
	Clients          int
	ClientsText      string // the count, or the share of threads it came from (clientsText)
	Metrics          []htmlMetric
}

// htmlCmpOpRow is one op type's p99 in a compared cell.
type htmlCmpOpRow struct {
	Scenario, Target, Op string
	Clients              int
	ClientsText          string
	Metric               htmlMetric
}

type htmlPage struct {
	Title, Date, Versions, Results string
	Targets                        []htmlTarget
	TargetNames                    []string
	Settings                       []htmlSetting
	ConfigWarnings                 []string
	Sections                       []htmlSection
	Baseline                       string
	Alpha, Level                   float64
	CmpRows                        []htmlCmpRow
	CmpNotes, CmpLegend            []string // the comparison cells' notes, once each (glanceNotes), and the symbols
	CmpOpRows                      []htmlCmpOpRow
	HeadlineCol                    string // the comparison's headline column: its name, "headline" when cells differ
	HasCmp, Checked                bool
	Warns, Infos                   []htmlWarnGroup
	CheckedList                    []string
	Commands                       string // commandsLine
	// The findings the page opens with.
	HasFindings bool
	FindIntro   string
	Findings    []htmlFinding
	TopWarnings []htmlWarnGroup
	KeyTables   []table
	// The data the page carries, and its size as the page states it.
	Embedded     *Embedded
	EmbeddedSize string
	// WaitFindings state where the servers' wait states differed markedly.
	WaitFindings []string
	// ViewGaps is what the targets' server views could not read.
	ViewGaps []table
}

// HTMLCharts returns the charts of every section (throughput and latency
// against clients), the ones --charts writes as .svg files.
func HTMLCharts(groups []*analysis.Group) []Named {
	var out []Named
	for i, sec := range sections(groups) {
		for _, c := range sectionCharts(i, sec.groups) {
			out = append(out, Named{ID: c.ID, SVG: c.svg()})
		}
	}
	return out
}

func sectionHeading(g0 *analysis.Group, multiStudy bool, label labeler) string {
	h := label.scenario(g0)
	if multiStudy {
		h = g0.Study + " · " + h
	}
	return h
}

// sectionCharts draws throughput and p50/p95/p99 against clients, one line
// per target, when the section has more than one client count: a chart
// against clients of a single point says nothing its numbers do not.
func sectionCharts(idx int, groups []*analysis.Group) []*lineChart {
	if len(clientLevels(groups)) < 2 {
		return nil
	}
	return clientCharts(idx, groups)
}

// clientCharts draws the charts of sectionCharts, each with the table of its numbers.
func clientCharts(idx int, groups []*analysis.Group) []*lineChart {
	levels := clientLevels(groups)
	targets := distinct(groups, func(g *analysis.Group) string { return g.Target })
	byCell := map[string]*analysis.Group{}
	for _, g := range groups {
		byCell[g.Target+"\x00"+strconv.Itoa(g.Clients)] = g
	}
	var xt []tick
	for i, l := range levels {
		xt = append(xt, tick{float64(i), strconv.Itoa(l)})
	}
	name := sectionHeading(groups[0], false, newLabeler(groups))
	h := groups[0].Headline
	yl := h.Unit + " (median)"
	if !h.HigherIsBetter {
		yl = h.Unit + " (median, lower is better)"
	}
	// The id keeps its old name: --charts writes it as a file name.
	tp := &lineChart{ID: fmt.Sprintf("s%d-throughput", idx+1), Title: capital(h.Name) + " · " + name, XLabel: "clients",
		YLabel: yl, XTicks: xt}
	var lat []*lineChart
	for _, p := range []string{"p50", "p95", "p99"} {
		lat = append(lat, &lineChart{ID: fmt.Sprintf("s%d-latency-%s", idx+1, p), Title: "Latency " + p + " · " + name,
			XLabel: "clients", YLabel: p + " ms", XTicks: xt})
	}
	// The numbers beside each chart: targets as rows, clients as columns.
	header := []string{"target"}
	for _, l := range levels {
		header = append(header, numfmt.Plural(l, "1 client", strconv.Itoa(l)+" clients"))
	}
	tp.Numbers = &table{Caption: headlineTitle(h) + ": median of the repetitions [95 % interval, or the range with the level it has] (n)",
		Header: header, TextCols: 1}
	for k, p := range []string{"p50", "p95", "p99"} {
		lat[k].Numbers = &table{Caption: "Latency " + p + ", ms: merged histograms [range of the per-run " + p + "]", Header: header, TextCols: 1}
	}
	for ti, t := range targets {
		trow := []string{t}
		lrows := [][]string{{t}, {t}, {t}}
		s := lineSeries{Name: t, Colour: colour(ti)}
		ls := make([]lineSeries, 3)
		for k := range ls {
			ls[k] = lineSeries{Name: t, Colour: colour(ti)}
		}
		for i, l := range levels {
			x := float64(i)
			g := byCell[t+"\x00"+strconv.Itoa(l)]
			y, lo, hi := math.NaN(), math.NaN(), math.NaN()
			txt := none
			if g != nil && g.N > 0 {
				y = g.Median
				txt = headlineValue(g.Headline, g.Median)
				if g.N > 1 {
					if ci := analysis.MedianCI(g.Values, 0.95); ci.OK() {
						lo, hi = ci.Lo, ci.Hi
						txt += " " + ciText(ci, 0.95, func(v float64) string { return headlineValue(g.Headline, v) })
					}
				}
				txt += fmt.Sprintf(" (n=%d)", g.N)
			}
			trow = append(trow, txt)
			s.X, s.Y, s.Lo, s.Hi = append(s.X, x), append(s.Y, y), append(s.Lo, lo), append(s.Hi, hi)
			for k, q := range []float64{50, 95, 99} {
				v, vlo, vhi := math.NaN(), math.NaN(), math.NaN()
				ltxt := none
				if g != nil && g.N > 0 && hasLatencies(g) {
					v = []float64{g.P50, g.P95, g.P99}[k] / 1000
					ltxt = ms(v * 1000)
					// The point is the merged histograms' percentile; the bar is the
					// spread of the same percentile over the repetitions.
					if per := analysis.RunQuantiles(g, q); len(per) > 1 {
						vlo, vhi = slices.Min(per)/1000, slices.Max(per)/1000
						ltxt += " [" + ms(vlo*1000) + ", " + ms(vhi*1000) + "]"
					}
				}
				lrows[k] = append(lrows[k], ltxt)
				ls[k].X, ls[k].Y = append(ls[k].X, x), append(ls[k].Y, v)
				ls[k].Lo, ls[k].Hi = append(ls[k].Lo, vlo), append(ls[k].Hi, vhi)
			}
		}
		tp.Series = append(tp.Series, s)
		tp.Numbers.Rows = append(tp.Numbers.Rows, trow)
		// A cell whose every repetition changed level: each level a row of
		// its own under the target's (levelshift.go).
		cells := make([]*analysis.Group, len(levels))
		for i, l := range levels {
			cells[i] = byCell[t+"\x00"+strconv.Itoa(l)]
		}
		lr := levelRows(t, cells, func(g *analysis.Group, c analysis.CellLevels, first bool) string {
			v := levelRate(g, c, level(c, first), true)
			if first {
				v += " (until s " + c.Until() + ")"
			}
			return v
		})
		tp.Numbers.Rows = append(tp.Numbers.Rows, lr...)
		if len(lr) > 0 && !strings.Contains(tp.Numbers.Caption, levelsNote) {
			tp.Numbers.Caption += "; " + levelsNote
		}
		for k := range lat {
			lat[k].Series = append(lat[k].Series, ls[k])
			lat[k].Numbers.Rows = append(lat[k].Numbers.Rows, lrows[k])
			lat[k].Numbers.Rows = append(lat[k].Numbers.Rows, levelRows(t, cells, func(_ *analysis.Group, c analysis.CellLevels, first bool) string {
				l := level(c, first)
				if !l.HasLatency {
					return "throughput only"
				}
				return ms([]float64{l.P50, l.P95, l.P99}[k])
			})...)
		}
	}
	out := []*lineChart{tp}
	for _, c := range lat {
		if c.hasData() {
			out = append(out, c)
		}
	}
	return out
}

// runCharts draws a run's per-second throughput and p99, over the points
// whose rates are per-second rates (a partial last point's is not).
func runCharts(r *result.Run) []*lineChart {
	c := runChart(r)
	if c.Seconds == 0 {
		return nil
	}
	tp := &lineChart{ID: fmt.Sprintf("run%d-tps", r.ID), Title: "requests/s, each second", Small: true, Width: 320, Height: 140}
	p99 := &lineChart{ID: fmt.Sprintf("run%d-p99", r.ID), Title: "p99 ms, each second", Small: true, Width: 320, Height: 140}
	a := lineSeries{Name: "tps", Colour: colour(0)}
	b := lineSeries{Name: "p99", Colour: colour(3)}
	for _, p := range c.Points {
		a.X, a.Y = append(a.X, float64(p.Second)), append(a.Y, p.Rate)
		v := math.NaN()
		if p.P99 > 0 {
			v = p.P99 / 1000
		}
		b.X, b.Y = append(b.X, float64(p.Second)), append(b.Y, v)
	}
	tp.Series, p99.Series = []lineSeries{a}, []lineSeries{b}
	row := []string{strconv.Itoa(c.Seconds), rate(c.MinRate), rate(c.MedianRate), rate(c.MaxRate), none}
	if c.MaxP99 > 0 {
		row[4] = ms(c.MaxP99)
	}
	tp.Numbers = &table{Caption: "Per second:", Header: []string{"seconds", "min /s", "median /s", "max /s", "max p99 ms"},
		Rows: [][]string{row}, TextCols: 0}
	out := []*lineChart{tp}
	if p99.hasData() {
		out = append(out, p99)
	}
	return out
}

// runChart is what a run's chart draws: from its digest once a report
// dropped its series.
func runChart(r *result.Run) result.RunChart {
	if r.Digest != nil {
		return r.Digest.Chart
	}
	return chartOf(result.Columns(r, r.Series))
}

// chartOf is what the chart of the run whose series' columns cols holds
// draws, over its rate points.
func chartOf(cols *result.SeriesColumns) result.RunChart {
	n := cols.RateLen()
	if n == 0 {
		return result.RunChart{}
	}
	c := result.RunChart{Seconds: n, Points: downsample(cols, maxSeriesPoints)}
	rates := cols.Rates[:n]
	for _, p99 := range cols.P99[:n] {
		if p99 > c.MaxP99 {
			c.MaxP99 = p99
		}
	}
	c.MinRate, c.MedianRate, c.MaxRate = slices.Min(rates), hist.Median(rates), slices.Max(rates)
	return c
}

// downsample averages the rate points of cols into at most n buckets (the
// maximum of p99).
func downsample(cols *result.SeriesColumns, n int) []result.ChartPoint {
	size := cols.RateLen()
	if size <= n {
		out := make([]result.ChartPoint, size)
		for i := range out {
			out[i] = result.ChartPoint{Second: int(cols.Seconds[i]), Rate: cols.Rates[i], P99: cols.P99[i]}
		}
		return out
	}
	out := make([]result.ChartPoint, 0, n)
	for i := 0; i < n; i++ {
		lo, hi := i*size/n, (i+1)*size/n
		var p result.ChartPoint
		for k := lo; k < hi; k++ {
			p.Rate += cols.Rates[k]
			p.P99 = math.Max(p.P99, cols.P99[k])
		}
		p.Rate /= float64(hi - lo)
		p.Second = int(cols.Seconds[hi-1])
		out = append(out, p)
	}
	return out
}

func verdictClass(v analysis.Verdict) string {
	switch v {
	case analysis.Faster:
		return "v-faster"
	case analysis.Slower:
		return "v-slower"
	case analysis.NoDifference:
		return "v-same"
	}
	return "v-few"
}

// runDates is the day the runs started, or the first and last days.
func runDates(runs []*result.Run) string {
	var first, last string
	for _, r := range runs {
		if r.StartedAt.IsZero() {
			continue
		}
		d := r.StartedAt.UTC().Format("2006-01-02")
		if first == "" || d < first {
			first = d
		}
		if d > last {
			last = d
		}
	}
	if last != first {
		return first + " – " + last
	}
	return first
}

// targets fills in the targets, their environment, the settings that
// differ and the configuration warnings.
func (p *htmlPage) targets(groups []*analysis.Group, warnings []analysis.Warning) error {
	envOf := map[string]result.Environment{}
	for _, g := range groups {
		if _, ok := envOf[g.Target]; ok || len(g.Runs) == 0 {
			continue
		}
		r := g.Runs[0]
		envOf[g.Target] = r.Env
		t := htmlTarget{Name: g.Target, URL: r.TargetURL}
		if !r.Env.Empty() {
			b, err := json.MarshalIndent(r.Env, "", "  ")
			if err != nil {
				return err
			}
			t.Env = string(b)
		}
		p.Targets = append(p.Targets, t)
		p.TargetNames = append(p.TargetNames, g.Target)
	}
	p.Settings = differingSettings(p.TargetNames, envOf)
	if t, ok := serverViewGaps(groups); ok {
		p.ViewGaps = append(p.ViewGaps, t)
	}
	for _, x := range warnings {
		if x.Check == analysis.CheckConfig {
			p.ConfigWarnings = append(p.ConfigWarnings, x.Message)
		}
	}
	return nil
}

// findings fills in the findings at the top of the page.
func (p *htmlPage) findings(f *analysis.Findings, groups []*analysis.Group, label labeler) {
	p.HasFindings = true
	if len(f.Items) > 0 {
		p.FindIntro = findingsIntro(f)
	} else {
		p.FindIntro = "One target (" + f.Baseline + "): no comparison."
	}
	for _, it := range f.Items {
		class := "v-same"
		if it.Pooled != nil && !it.Pooled.Disagree {
			class = verdictClass(it.Pooled.Verdict)
		}
		p.Findings = append(p.Findings, htmlFinding{Scenario: it.Scenario, Statement: findingStatement(it),
			Verdicts: capital(findingVerdicts(it, f.Alpha)), Peaks: capital(findingPeaks(it)), Class: class})
	}
	for _, d := range f.Waits {
		p.WaitFindings = append(p.WaitFindings, waitFindingLine(d))
	}
	for _, wg := range topWarnings(f) {
		p.TopWarnings = append(p.TopWarnings, htmlWarning(wg, label))
	}
	p.KeyTables = keyTables(f, label)
	if t, ok := priceTable(groups); ok {
		p.KeyTables = append(p.KeyTables, t)
	}
}

// htmlSectionOf is section i of the page: its tables, its charts and its
// runs (the line of settings common to its workload aside, which the first
// section of a workload shows).
func htmlSectionOf(i int, sec section, opt HTMLOptions, multiStudy bool, label labeler) htmlSection {
	hs := htmlSection{Heading: sectionHeading(sec.groups[0], multiStudy, label)}
	if t, ok := spreadTable(sec.groups, false, false, nil); ok {
		t.Title = "Latency average and spread"
		hs.Tables = append(hs.Tables, t)
	}
	if t, ok := sharesTable(sec.groups, opt.LatencyShares, false, false, nil); ok {
		t.Title = "Cumulative latency"
		hs.Tables = append(hs.Tables, t)
	}
	if t, ok := opTable(sec.groups, false, false, nil); ok {
		t.Title = "Per op type"
		hs.OpTable = &t
	}
	if t, ok := levelShiftTable(sec.groups, label); ok {
		t.Title = "Level shifts"
		hs.Tables = append(hs.Tables, t)
	}
	kt := kindTables(sec, opt.Baseline)
	hs.Lead = leading(kt, true)
	hs.Tables = append(hs.Tables, leading(kt, false)...)
	if t, ok := generatorsTable(groupRuns(sec.groups)); ok {
		t.Title = "Load generators"
		hs.Tables = append(hs.Tables, t)
	}
	for _, c := range kindCharts(i, sec, opt.Baseline) {
		hs.Figures = append(hs.Figures, htmlFigure{SVG: template.HTML(c.svg())})
	}
	hs.Tables = append(hs.Tables, serverViewTables(sec, label)...)
	for _, c := range serverViewCharts(i, sec) {
		hs.Figures = append(hs.Figures, htmlFigure{SVG: template.HTML(c.svg())})
	}
	if charts := sectionCharts(i, sec.groups); len(charts) > 0 {
		for _, c := range charts {
			hs.Figures = append(hs.Figures, htmlFigure{SVG: template.HTML(c.svg()), Numbers: c.Numbers})
		}
	} else {
		// One client count: the numbers without their single-point charts.
		for _, c := range clientCharts(i, sec.groups) {
			hs.Numbers = append(hs.Numbers, *c.Numbers)
		}
	}
	hs.Runs = htmlRuns(sec.groups)
	return hs
}

// htmlRuns are the runs of a section, each with its charts.
func htmlRuns(groups []*analysis.Group) []htmlRun {
	var out []htmlRun
	for _, g := range groups {
		for _, r := range g.Runs {
			m := analysis.Headline(r)
			hr := htmlRun{Label: fmt.Sprintf("run %d · %s · %d clients · rep %d · %s", r.ID, r.Target, r.Clients, r.Repetition, withUnit(m.Headline, m.Value)),
				Status: string(r.Status)}
			if s, ok := analysis.RunLevelShift(r); ok {
				hr.Label += " (blends two levels: " + s.String() + ")"
			}
			for _, c := range runCharts(r) {
				hr.Charts = append(hr.Charts, template.HTML(c.svg()))
				if c.Numbers != nil {
					hr.Numbers = append(hr.Numbers, *c.Numbers)
				}
			}
			out = append(out, hr)
		}
	}
	return out
}

// comparison fills in the comparison's tables.
func (p *htmlPage) comparison(c *analysis.Comparison, label labeler) {
	p.HasCmp, p.Baseline, p.Alpha, p.Level = true, c.Baseline, c.Alpha, c.Level
	p.HeadlineCol = "throughput"
	for i, cc := range c.Cells {
		if h := cc.Other.Headline; i == 0 {
			p.HeadlineCol = h.Name
		} else if h.Name != p.HeadlineCol {
			p.HeadlineCol = "headline"
		}
	}
	notes := &glanceNotes{alpha: c.Alpha}
	cell := func(m analysis.Metric) htmlMetric {
		d := m.Delta
		if math.IsNaN(d) {
			d = 0
		}
		return htmlMetric{
			Text:  fmt.Sprintf("%s → %s%s: %s", metricValue(m, m.Base), metricValue(m, m.Value), unitSuffix(m), notes.cell(m, c.Level)),
			Title: deltaText(m, c.Level) + ", " + verdictText(m, c.Alpha),
			Class: verdictClass(m.Verdict), Delta: d}
	}
	for _, cc := range c.Cells {
		row := htmlCmpRow{Scenario: label.scenario(cc.Other), Target: cc.Other.Target, Clients: cc.Other.Clients, ClientsText: clientsText(cc)}
		for _, m := range []analysis.Metric{cc.Headline, cc.P95, cc.P99} {
			row.Metrics = append(row.Metrics, cell(m))
		}
		p.CmpRows = append(p.CmpRows, row)
		for _, m := range cc.Ops {
			p.CmpOpRows = append(p.CmpOpRows, htmlCmpOpRow{Scenario: row.Scenario, Target: row.Target, Clients: row.Clients, ClientsText: row.ClientsText,
				Op: strings.TrimSuffix(m.Name, " p99"), Metric: cell(m)})
		}
	}
	p.CmpNotes, p.CmpLegend = notes.lines(), []string{glanceLegend()}
}

// HTML writes one self-contained page: no script or style from anywhere else,
// every chart inline SVG.
func HTML(w io.Writer, groups []*analysis.Group, runs []*result.Run, opt HTMLOptions) error {
	p := htmlPage{Title: opt.Title, Results: opt.Results, Checked: opt.Checked, Embedded: opt.Embedded, Commands: commandsLine(groups)}
	if opt.Embedded != nil {
		p.EmbeddedSize = numfmt.BytesIEC(float64(opt.Embedded.Bytes))
	}
	if p.Title == "" {
		p.Title = "fairbench results"
	}
	p.Versions = strings.Join(distinctStrings(runs, func(r *result.Run) string { return r.ToolVersion }), ", ")
	p.Date = runDates(runs)
	if err := p.targets(groups, opt.Warnings); err != nil {
		return err
	}
	multiStudy := len(distinct(groups, func(g *analysis.Group) string { return g.Study })) > 1
	label := newLabeler(groups)
	if f := summarise(groups, opt.Options); f != nil {
		p.findings(f, groups, label)
		if opt.Comparison == nil && len(f.Items) > 0 {
			opt.Comparison = f.Comparison
		}
	}
	commonShown := map[string]bool{}
	for i, sec := range sections(groups) {
		hs := htmlSectionOf(i, sec, opt, multiStudy, label)
		if wk := workloadKey(sec.groups[0]); !commonShown[wk] {
			commonShown[wk] = true
			hs.Common = commonLine(sec.groups[0], label.common(sec.groups[0]))
		}
		p.Sections = append(p.Sections, hs)
	}
	if c := opt.Comparison; c != nil {
		p.comparison(c, label)
	}

	for _, wg := range analysis.GroupWarnings(opt.Warnings, groups) {
		if wg.Info {
			p.Infos = append(p.Infos, htmlWarning(wg, label))
		} else {
			p.Warns = append(p.Warns, htmlWarning(wg, label))
		}
	}
	for _, c := range analysis.Checks {
		p.CheckedList = append(p.CheckedList, c.Text)
	}
	return htmlTmpl.Execute(w, p)
}

// htmlWarning is one kind of warning: its line, and every warning in full.
func htmlWarning(wg analysis.WarningGroup, label labeler) htmlWarnGroup {
	h := htmlWarnGroup{Check: wg.Check, Summary: warningSummary(wg, label)}
	if len(wg.Warnings) > 1 {
		for _, w := range wg.Warnings {
			h.Details = append(h.Details, w.Message)
		}
	}
	return h
}

// differingSettings lists the database version and settings whose values
// differ between targets (from each target's first completed run).
func differingSettings(targets []string, envOf map[string]result.Environment) []htmlSetting {
	if len(targets) < 2 {
		return nil
	}
	vals := map[string]map[string]string{}
	for _, t := range targets {
		db := envOf[t].Database
		if db.Empty() {
			continue
		}
		add := func(k string, v any) {
			if vals[k] == nil {
				vals[k] = map[string]string{}
			}
			vals[k][t] = fmt.Sprint(v)
		}
		if db.ServerVersion != "" {
			add("server_version", db.ServerVersion)
		} else if db.Version != "" {
			add("version", db.Version)
		}
		for k, v := range db.Settings {
			add(k, v)
		}
	}
	var names []string
	for k, m := range vals {
		ref, same := m[targets[0]], true
		for _, t := range targets[1:] {
			if m[t] != ref {
				same = false
			}
		}
		if !same {
			names = append(names, k)
		}
	}
	sort.Strings(names)
	var out []htmlSetting
	for _, k := range names {
		s := htmlSetting{Name: k}
		for _, t := range targets {
			s.Values = append(s.Values, orNone(vals[k][t]))
		}
		out = append(out, s)
	}
	return out
}

func orNone(s string) string {
	if s == "" {
		return none
	}
	return s
}

var htmlTmpl = template.Must(template.New("report").Funcs(template.FuncMap{
	"pct": func(f float64) string { return fmt.Sprintf("%.0f", f*100) },
	"num": func(f float64) string { return strconv.FormatFloat(f, 'f', 3, 64) },
}).Parse(`{{define "table"}}{{if .Title}}<h3>{{.Title}}</h3>
{{end}}{{if .Caption}}<p class="caption">{{.Caption}}</p>
{{end}}<table class="data"><thead><tr>{{range .Header}}<th>{{.}}</th>{{end}}</tr></thead><tbody>
{{range .HTMLRows}}<tr>{{range .}}<td{{if .Num}} class="num"{{end}}>{{.Text}}</td>{{end}}</tr>
{{end}}</tbody></table>
{{if .Note}}<p>{{.Note}}</p>
{{end}}{{end}}{{define "warn"}}{{if .Details}}<details><summary><strong>{{.Check}}</strong>: {{.Summary}}</summary><ul>{{range .Details}}<li>{{.}}</li>{{end}}</ul></details>{{else}}<p><strong>{{.Check}}</strong>: {{.Summary}}</p>{{end}}{{end}}<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{{.Title}}</title>
<style>
body{font-family:system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;margin:0 auto;max-width:1100px;padding:1rem;color:#222;line-height:1.45}
h1{font-size:1.6rem;margin:.2rem 0}h2{font-size:1.25rem;margin-top:2rem;border-bottom:1px solid #ddd}h3{font-size:1.05rem}
.meta{color:#555}
#findings h2{margin-top:.8rem}#findings li{margin:.3rem 0}#findings .f-scn{font-weight:600}
.keytables{display:flex;flex-wrap:wrap;gap:0 1.5rem}
.figure{display:flex;flex-wrap:wrap;gap:.8rem;align-items:flex-start;margin:.8rem 0}
.figure svg,.runcharts svg{max-width:100%;height:auto;border:1px solid #eee}
.figure .numbers{flex:1 1 280px;min-width:0}
.runcharts{display:flex;flex-wrap:wrap;gap:.5rem;align-items:flex-start}
details{margin:.3rem 0}summary{cursor:pointer}
pre{overflow:auto;background:#f7f7f7;padding:.5rem;font-size:.8rem}
table{border-collapse:collapse;margin:.5rem 0;font-size:.9rem;display:block;overflow-x:auto}
p.caption{margin:.3rem 0;font-size:.9rem;color:#444}
th,td{border:1px solid #ddd;padding:.25rem .5rem;text-align:left;vertical-align:top}
th{background:#f3f3f3}table.sortable th{cursor:pointer}
.diff td{background:#fff4d6}td.num{text-align:right;font-variant-numeric:tabular-nums}
.v-faster{background:#dff3e3}.v-slower{background:#fbe0dc}.v-same{background:#f2f2f2}.v-few{background:#fff}
li.v-faster,li.v-slower,li.v-same{padding:.2rem .4rem;list-style-position:inside}
.warn{color:#8a4b00}
@media print{body{max-width:none;padding:0}details{display:block}details>*{display:block}.figure{display:block}.figure svg{page-break-inside:avoid;max-height:9cm}table.sortable th{cursor:auto}}
</style>
</head>
<body>
<header>
<h1>{{.Title}}</h1>
<p class="meta">{{if .Date}}Date: {{.Date}} · {{end}}{{if .Versions}}fairbench {{.Versions}}{{end}}</p>
</header>
<main>
{{if .HasFindings}}<section id="findings">
<h2>Findings</h2>
<p>{{.FindIntro}}</p>
{{if .Findings}}<ul>{{range .Findings}}<li class="finding {{.Class}}"><span class="f-scn">{{.Scenario}}</span>: {{.Statement}}. {{.Verdicts}}.{{if .Peaks}} {{.Peaks}}.{{end}}</li>
{{end}}</ul>{{end}}
{{if .WaitFindings}}<ul>{{range .WaitFindings}}<li class="finding">{{.}}.</li>
{{end}}</ul>
{{end}}{{if .TopWarnings}}<p>Warnings that most affect the comparison (all of them under <a href="#methodology">Methodology</a>):</p>
{{range .TopWarnings}}{{template "warn" .}}
{{end}}{{end}}<div class="keytables">{{range .KeyTables}}<div>{{template "table" .}}</div>{{end}}</div>
</section>{{end}}
<section id="targets">
<h2>Targets</h2>
{{range .Targets}}<details><summary><strong>{{.Name}}</strong>{{if .URL}} — <code>{{.URL}}</code>{{end}}</summary>{{if .Env}}<pre>{{.Env}}</pre>{{else}}<p>No environment recorded.</p>{{end}}</details>
{{end}}
{{if .Settings}}<p>Version and settings that differ between targets:</p>
<table class="settings"><thead><tr><th>setting</th>{{range .TargetNames}}<th>{{.}}</th>{{end}}</tr></thead><tbody>
{{range .Settings}}<tr class="diff"><td>{{.Name}}</td>{{range .Values}}<td>{{.}}</td>{{end}}</tr>
{{end}}</tbody></table>{{end}}
{{range .ConfigWarnings}}<p class="warn">{{.}}</p>{{end}}{{range .ViewGaps}}{{template "table" .}}{{end}}
</section>
{{if .HasCmp}}<section id="comparison">
<h2>Comparison against {{.Baseline}}</h2>
<p>Each cell: baseline → target value, the change with its confidence interval ({{pct .Level}} % where the data bound it) and the verdict at α = {{num .Alpha}}: a paired t-test on the log ratios of each interleaved round's two runs, a two-sided Mann–Whitney U test where the runs are not in rounds, or Welch's t-test on log values where n is too small for Mann–Whitney ever to decide (the t-tests assume roughly log-normal values). Green: better; red: worse; grey: no significant difference. Click a column to sort.</p>
<table class="sortable cmp"><thead><tr><th>scenario</th><th>target</th><th>clients</th><th>{{.HeadlineCol}}</th><th>p95</th><th>p99</th></tr></thead><tbody>
{{range .CmpRows}}<tr class="cmp-row"><td>{{.Scenario}}</td><td>{{.Target}}</td><td data-v="{{.Clients}}">{{.ClientsText}}</td>{{range .Metrics}}<td class="{{.Class}}" data-v="{{.Delta}}" title="{{.Title}}">{{.Text}}</td>{{end}}</tr>
{{end}}</tbody></table>
{{range .CmpLegend}}<p class="legend">{{.}}; hover a cell for its test and reasons.</p>{{end}}
{{if .CmpNotes}}<details class="cmp-notes"><summary>Notes</summary>{{range .CmpNotes}}<p>{{.}}</p>{{end}}</details>{{end}}
{{if .CmpOpRows}}<h3>p99 per op type</h3>
<table class="sortable cmp"><thead><tr><th>scenario</th><th>target</th><th>clients</th><th>op</th><th>p99</th></tr></thead><tbody>
{{range .CmpOpRows}}<tr><td>{{.Scenario}}</td><td>{{.Target}}</td><td data-v="{{.Clients}}">{{.ClientsText}}</td><td>{{.Op}}</td><td class="{{.Metric.Class}}" data-v="{{.Metric.Delta}}" title="{{.Metric.Title}}">{{.Metric.Text}}</td></tr>
{{end}}</tbody></table>{{end}}
</section>{{end}}
{{range .Sections}}<section>
<h2>{{.Heading}}</h2>{{if .Common}}<p class="common">{{.Common}}</p>{{end}}
{{range .Lead}}{{template "table" .}}{{end}}{{range .Figures}}<div class="figure">{{.SVG}}{{if .Numbers}}<div class="numbers">{{template "table" .Numbers}}</div>{{end}}</div>
{{end}}{{range .Numbers}}{{template "table" .}}{{end}}{{with .OpTable}}{{template "table" .}}{{end}}{{range .Tables}}{{template "table" .}}{{end}}<details><summary>Per-run series ({{len .Runs}} runs)</summary>
{{range .Runs}}<details><summary>{{.Label}}</summary>{{if .Charts}}<div class="runcharts">{{range .Charts}}{{.}}{{end}}{{range .Numbers}}<div class="numbers">{{template "table" .}}</div>{{end}}</div>{{else}}<p>No per-second series recorded.</p>{{end}}</details>
{{end}}</details>
</section>
{{end}}
{{if .Checked}}<section id="methodology">
<h2>Methodology</h2>
{{if .Warns}}<p>Warnings computed from the data, by kind, the ones that most affect the comparison first (open one for every warning in full):</p>{{range .Warns}}{{template "warn" .}}
{{end}}{{else}}<p>No methodology warnings.</p>{{end}}
{{if .Infos}}<p>Context (not problems):</p>{{range .Infos}}{{template "warn" .}}
{{end}}{{end}}
{{if .Commands}}<p>{{.Commands}}</p>
{{end}}<p>Checked: {{range $i, $c := .CheckedList}}{{if $i}}; {{end}}{{$c}}{{end}}.</p>
</section>{{end}}
</main>
<footer><hr><p class="meta">{{if .Results}}results file: <code>{{.Results}}</code> · {{end}}generated by fairbench</p>{{if .Embedded}}
<p class="meta" id="embedded-data">This page carries its data ({{.EmbeddedSize}}: the study files and every run with its histograms and series): <code>fairbench report --results</code> with this file reads it, <code>fairbench import</code> stores it.</p>{{.Embedded.Element}}{{end}}</footer>
<script>
document.querySelectorAll("table.sortable th").forEach(function(th,i){th.addEventListener("click",function(){
var b=th.closest("table").tBodies[0],rows=Array.prototype.slice.call(b.rows),asc=th.dataset.dir!=="asc";th.dataset.dir=asc?"asc":"desc";
rows.sort(function(a,c){var x=a.cells[i].dataset.v,y=c.cells[i].dataset.v,r;if(x!==undefined&&y!==undefined){r=parseFloat(x)-parseFloat(y)}else{r=a.cells[i].textContent.localeCompare(c.cells[i].textContent)}return asc?r:-r});
rows.forEach(function(r){b.appendChild(r)})})});
</script>
</body>
</html>
`))

// unitSuffix writes the headline's unit after its value in the comparison
// table, unless it is tps (the table's wording before headline metrics).
func unitSuffix(m analysis.Metric) string {
	if !m.Headline || m.Unit == "tps" || m.Unit == "" {
		return ""
	}
	return " " + m.Unit
}
