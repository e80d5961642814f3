package report

import (
	"encoding/csv"
	"encoding/json"
	"io"
	"math"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/fairbench/fairbench/internal/analysis"
	"github.com/fairbench/fairbench/internal/escape"
	"github.com/fairbench/fairbench/internal/numfmt"
	"github.com/fairbench/fairbench/internal/params"
	"github.com/fairbench/fairbench/internal/result"
)

// num makes a float JSON-safe: NaN and infinities (an undefined delta) become null.
func num(f float64) *float64 {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return nil
	}
	return &f
}

type jsonCI struct {
	Lo    *float64 `json:"lo"`
	Hi    *float64 `json:"hi"`
	Level float64  `json:"level"`
}

func ciJSON(c analysis.CI) *jsonCI {
	if !c.OK() {
		return nil
	}
	return &jsonCI{Lo: num(c.Lo), Hi: num(c.Hi), Level: c.Level}
}

type jsonGroup struct {
	Study    string         `json:"study"`
	Target   string         `json:"target"`
	Workload string         `json:"workload"`
	Kind     string         `json:"kind"`
	Params   map[string]any `json:"params"`
	Clients  int            `json:"clients"`

	// ClientLevel is the share of hardware threads Clients came from
	// ("50%"), absent for a literal count.
	ClientLevel string `json:"client_level,omitempty"`

	N          int     `json:"n"`
	Incomplete int     `json:"incomplete"`
	Runs       []int64 `json:"runs"`
	// The headline metric: its values per run, their median and interval.
	Headline result.Headline `json:"headline"`
	Values   []float64       `json:"values"`
	Median   *float64        `json:"median"`
	MedianCI *jsonCI         `json:"median_ci,omitempty"`
	// The same under the keys of files written before headline metrics,
	// present when the headline is throughput in tps.
	Throughputs []float64 `json:"throughputs,omitempty"`
	TMedian     *float64  `json:"throughput_median,omitempty"`
	TMedianCI   *jsonCI   `json:"throughput_median_ci,omitempty"`
	Ops         []jsonOp  `json:"ops,omitempty"`
	// The latency average and standard deviation (exact, µs) and the mean
	// initial connection time (ms) of the repetitions, where they recorded them.
	Mean        *float64 `json:"mean_us,omitempty"`
	Stddev      *float64 `json:"stddev_us,omitempty"`
	ConnectTime *float64 `json:"connect_time_ms,omitempty"`
	// Shares are the cumulative latency shares (0 to 1) at the report's thresholds.
	Shares       []jsonShare `json:"latency_shares,omitempty"`
	P50          *float64    `json:"p50_us"`
	P95          *float64    `json:"p95_us"`
	P99          *float64    `json:"p99_us"`
	Max          *float64    `json:"max_us"`
	Errors       int64       `json:"errors"`
	Transactions int64       `json:"transactions"`
	WorkingSet   string      `json:"working_set,omitempty"`
}

// jsonOp is one op type of a cell, beside the headline.
type jsonOp struct {
	Name    string   `json:"name"`
	Counted bool     `json:"counted_in_headline"`
	Rate    float64  `json:"rate"` // successful requests per second, median of the runs
	P99     *float64 `json:"p99_us,omitempty"`
	P50     *float64 `json:"p50_us,omitempty"`
	P95     *float64 `json:"p95_us,omitempty"`
	Mean    *float64 `json:"mean_us,omitempty"`
	Errors  int64    `json:"errors"`
}

// jsonShare is the share of a cell's successful requests within a latency threshold.
type jsonShare struct {
	ThresholdUs int64    `json:"threshold_us"`
	Share       *float64 `json:"share"`
}

func groupJSON(g *analysis.Group, shares []time.Duration) jsonGroup {
	j := jsonGroup{Study: g.Study, Target: g.Target, Workload: g.Workload, Kind: g.Kind,
		Params: params.Values(g.ParamValues).JSONable(), Clients: g.Clients, ClientLevel: g.Level, N: g.N, Incomplete: g.Incomplete,
		Headline: g.Headline, Values: append([]float64{}, g.Values...), Errors: g.Errors, Transactions: g.Transactions}
	for _, r := range g.Runs {
		j.Runs = append(j.Runs, r.ID)
	}
	if g.N > 0 {
		j.Median = num(g.Median)
		j.MedianCI = ciJSON(analysis.MedianCI(g.Values, 0.95))
		j.P50, j.P95, j.P99, j.Max = num(g.P50), num(g.P95), num(g.P99), num(g.Max)
		if g.MeanLatency > 0 {
			j.Mean = num(g.MeanLatency)
		}
		if g.LatencyStddev > 0 {
			j.Stddev = num(g.LatencyStddev)
		}
		if g.HasConnectTime {
			j.ConnectTime = num(g.ConnectTime)
		}
		if hasLatencies(g) {
			for i, s := range analysis.LatencyShares(g.Merged, shares) {
				j.Shares = append(j.Shares, jsonShare{ThresholdUs: int64(shares[i] / time.Microsecond), Share: num(s)})
			}
		}
	}
	if isTPS(g.Headline) {
		j.Throughputs, j.TMedian, j.TMedianCI = j.Values, j.Median, j.MedianCI
	}
	for _, o := range g.Ops {
		jo := jsonOp{Name: o.Name, Counted: o.Counted, Rate: o.Rate, Errors: o.Errors}
		if o.HasLatency {
			jo.P99, jo.P50, jo.P95, jo.Mean = num(o.P99), num(o.P50), num(o.P95), num(o.Mean)
		}
		j.Ops = append(j.Ops, jo)
	}
	j.WorkingSet, _ = analysis.WorkingSet(g)
	return j
}

// JSON writes the aggregated cells and the methodology warnings as one JSON
// document, for scripts and notebooks.
func JSON(w io.Writer, groups []*analysis.Group, opt Options) error {
	doc := struct {
		Title    string             `json:"title,omitempty"`
		Results  string             `json:"results,omitempty"`
		Findings *jsonFindings      `json:"findings,omitempty"`
		Cells    []jsonGroup        `json:"cells"`
		Warnings []analysis.Warning `json:"warnings"`
		// The warnings again, grouped by kind, most affecting first.
		WarningGroups []jsonWarningGroup `json:"warning_groups"`
	}{Title: opt.Title, Results: opt.Results, Cells: []jsonGroup{}, Warnings: opt.Warnings,
		WarningGroups: warningGroupsJSON(analysis.GroupWarnings(opt.Warnings, groups), newLabeler(groups))}
	doc.Findings = findingsJSON(summarise(groups, opt))
	for _, g := range groups {
		doc.Cells = append(doc.Cells, groupJSON(g, opt.LatencyShares))
	}
	if doc.Warnings == nil {
		doc.Warnings = []analysis.Warning{}
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(doc)
}

// jsonWarningGroup is one kind of warning: the cells it concerns and every
// warning in full.
type jsonWarningGroup struct {
	Check    string             `json:"check"`
	Info     bool               `json:"info,omitempty"`
	Summary  string             `json:"summary"`
	Cells    []string           `json:"cells"`
	Warnings []analysis.Warning `json:"warnings"`
}

func warningGroupsJSON(wgs []analysis.WarningGroup, label labeler) []jsonWarningGroup {
	out := []jsonWarningGroup{}
	for _, wg := range wgs {
		j := jsonWarningGroup{Check: wg.Check, Info: wg.Info, Summary: warningSummary(wg, label), Cells: []string{}, Warnings: wg.Warnings}
		for _, g := range wg.Cells {
			j.Cells = append(j.Cells, g.Target+" · "+joinComma(label.scenario(g), numfmt.Plural(g.Clients, "1 client", strconv.Itoa(g.Clients)+" clients")))
		}
		out = append(out, j)
	}
	return out
}

type jsonFinding struct {
	Scenario   string          `json:"scenario"`
	Study      string          `json:"study"`
	Workload   string          `json:"workload"`
	Kind       string          `json:"kind"`
	Target     string          `json:"target"`
	Baseline   string          `json:"baseline"`
	Headline   result.Headline `json:"headline"`
	Statement  string          `json:"statement"`
	Cells      int             `json:"cells"`
	GeoDelta   *float64        `json:"geomean_delta_pct"`
	MinDelta   *float64        `json:"min_delta_pct"`
	MaxDelta   *float64        `json:"max_delta_pct"`
	Faster     int             `json:"faster"`
	Slower     int             `json:"slower"`
	Same       int             `json:"no_difference"`
	Undecided  int             `json:"undecided"`
	Tests      []string        `json:"tests"`
	Why        []string        `json:"why_undecided,omitempty"`
	RepsNeeded int             `json:"reps_needed,omitempty"`
	Peak       *jsonPeak       `json:"peak,omitempty"`
	BasePeak   *jsonPeak       `json:"baseline_peak,omitempty"`
	Warnings   []string        `json:"warnings"` // the kinds that concern it, most affecting first
	Pooled     *jsonPooled     `json:"pooled,omitempty"`
}

// jsonPooled is a scenario's pooled verdict (analysis.Pooled).
type jsonPooled struct {
	Paired      bool       `json:"paired"`
	Test        string     `json:"test"`
	Cells       int        `json:"cells"`
	Rounds      int        `json:"rounds"`
	Units       int        `json:"blocks_or_runs"`
	Change      *float64   `json:"change_pct"`
	CI          *jsonCI    `json:"change_pct_ci,omitempty"`
	NoCI        string     `json:"change_pct_no_ci,omitempty"`
	P           *float64   `json:"p"`
	DF          *float64   `json:"df"`
	Verdict     string     `json:"verdict"`
	Reason      string     `json:"reason,omitempty"`
	Disagree    bool       `json:"cells_disagree"`
	Detectable  *float64   `json:"detectable_change_pct"`
	CellChanges []*float64 `json:"cell_changes_pct"`
}

func pooledJSON(p *analysis.Pooled) *jsonPooled {
	if p == nil {
		return nil
	}
	j := &jsonPooled{Paired: p.Paired, Test: p.Test, Cells: p.Cells, Rounds: p.Rounds, Units: p.Units, Change: num(p.Change),
		CI: ciJSON(p.CI), NoCI: p.NoCI, P: num(p.P), DF: num(p.DF), Verdict: string(p.Verdict), Reason: p.Reason,
		Disagree: p.Disagree, Detectable: num(p.Detectable), CellChanges: []*float64{}}
	for _, c := range p.CellChanges {
		j.CellChanges = append(j.CellChanges, num(c))
	}
	return j
}

type jsonFindings struct {
	Baseline string        `json:"baseline"`
	Alpha    float64       `json:"alpha"`
	Items    []jsonFinding `json:"items"`
	Peaks    []jsonPeak    `json:"peaks"`
}

func findingsJSON(f *analysis.Findings) *jsonFindings {
	if f == nil {
		return nil
	}
	j := &jsonFindings{Baseline: f.Baseline, Alpha: f.Alpha, Items: []jsonFinding{}, Peaks: peaksJSON(f.Peaks)}
	peak := func(p *analysis.Peak) *jsonPeak {
		if p == nil {
			return nil
		}
		return &peaksJSON([]*analysis.Peak{p})[0]
	}
	for _, it := range f.Items {
		jf := jsonFinding{Scenario: it.Scenario, Study: it.Study, Workload: it.Workload, Kind: it.Kind, Target: it.Target,
			Baseline: it.Baseline, Headline: it.Headline, Statement: findingStatement(it), Cells: len(it.Cells),
			GeoDelta: num(it.GeoDelta), MinDelta: num(it.MinDelta), MaxDelta: num(it.MaxDelta),
			Faster: it.Faster, Slower: it.Slower, Same: it.Same, Undecided: it.Undecided, Tests: it.Tests, Why: it.Why,
			RepsNeeded: it.NeedN, Peak: peak(it.Peak), BasePeak: peak(it.BasePeak), Warnings: []string{}, Pooled: pooledJSON(it.Pooled)}
		if jf.Tests == nil {
			jf.Tests = []string{}
		}
		for _, wg := range it.Warnings {
			jf.Warnings = append(jf.Warnings, wg.Check)
		}
		j.Items = append(j.Items, jf)
	}
	return j
}

func f64(f float64) string {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return ""
	}
	return strconv.FormatFloat(f, 'f', -1, 64)
}

// CSV writes one row per cell, numbers unformatted (µs, the headline's unit),
// for spreadsheets. headline, unit and higher_is_better name the cell's
// headline metric; median and ci_* are its median and interval. After the
// columns of earlier versions come the exact latency average and standard
// deviation, the initial connection time and, per threshold of
// opt.LatencyShares, the share (0 to 1) of requests within it (le_<µs>us).
func CSV(w io.Writer, groups []*analysis.Group, opt Options) error {
	cw := newCSVWriter(w)
	header := []string{"study", "target", "workload", "kind", "params", "clients", "n", "incomplete",
		"headline", "unit", "higher_is_better",
		"median", "ci_lo", "ci_hi", "ci_level", "p50_us", "p95_us", "p99_us", "max_us",
		"errors", "transactions", "working_set", "mean_us", "stddev_us", "connect_time_ms"}
	for _, d := range opt.LatencyShares {
		header = append(header, "le_"+strconv.FormatInt(int64(d/time.Microsecond), 10)+"us")
	}
	cw.Write(header)
	for _, g := range groups {
		row := []string{g.Study, g.Target, g.Workload, g.Kind, g.Params, strconv.Itoa(g.Clients),
			strconv.Itoa(g.N), strconv.Itoa(g.Incomplete), g.Headline.Name, g.Headline.Unit, strconv.FormatBool(g.Headline.HigherIsBetter)}
		if g.N == 0 {
			row = append(row, "", "", "", "", "", "", "", "")
		} else {
			ci := analysis.MedianCI(g.Values, 0.95)
			lo, hi, lvl := "", "", ""
			if ci.OK() {
				lo, hi, lvl = f64(ci.Lo), f64(ci.Hi), f64(ci.Level)
			}
			row = append(row, f64(g.Median), lo, hi, lvl, f64(g.P50), f64(g.P95), f64(g.P99), f64(g.Max))
		}
		ws, _ := analysis.WorkingSet(g)
		row = append(row, strconv.FormatInt(g.Errors, 10), strconv.FormatInt(g.Transactions, 10), ws)
		mean, sd, conn := "", "", ""
		if g.N > 0 && g.MeanLatency > 0 {
			mean = f64(g.MeanLatency)
		}
		if g.N > 0 && g.LatencyStddev > 0 {
			sd = f64(g.LatencyStddev)
		}
		if g.N > 0 && g.HasConnectTime {
			conn = f64(g.ConnectTime)
		}
		row = append(row, mean, sd, conn)
		shares := analysis.LatencyShares(g.Merged, opt.LatencyShares)
		for _, s := range shares {
			v := ""
			if g.N > 0 {
				v = f64(s)
			}
			row = append(row, v)
		}
		cw.Write(row)
	}
	cw.Flush()
	return cw.Error()
}

// csvWriter writes CSV rows whose every cell passes escape.CSV: a name that
// a spreadsheet would read as a formula gets a leading ', a number stays.
type csvWriter struct{ *csv.Writer }

func newCSVWriter(w io.Writer) csvWriter { return csvWriter{csv.NewWriter(w)} }

func (cw csvWriter) Write(row []string) {
	for i, c := range row {
		row[i] = escape.CSV(c)
	}
	// Write's error is kept by the csv.Writer and returned by Error.
	_ = cw.Writer.Write(row)
}

// Benchstat writes every completed run as a line of the Go benchmark format
// (golang.org/design/14313-benchmark-format), so benchstat can read fairbench
// results: `benchstat -col /target results.txt` compares targets, with the
// repetitions as samples. The name carries the cell as key=value parts; the
// iteration count is the number of transactions; ns/op is wall time per
// transaction across all clients (1e9 / tps); tps, the run's headline metric
// when it is not throughput (as its unit, e.g. "NOPM" or "s"), and the latency
// percentiles follow as custom units, and Unit lines tell benchstat which
// direction is better.
func Benchstat(w io.Writer, runs []*result.Run) error {
	ew := &errWriter{w: w}
	sorted := append([]*result.Run(nil), runs...)
	sort.SliceStable(sorted, func(i, j int) bool { return sorted[i].ID < sorted[j].ID })
	ew.printf("Unit tps better=higher\n")
	for _, u := range []string{"p50-ns", "p95-ns", "p99-ns"} {
		ew.printf("Unit %s better=lower\n", u)
	}
	units := map[string]bool{"tps": true}
	for _, r := range sorted {
		if h := analysis.Headline(r).Headline; r.Status == result.StatusOK && !units[benchIdent(h.Unit)] {
			units[benchIdent(h.Unit)] = true
			ew.printf("Unit %s better=%s\n", benchIdent(h.Unit), map[bool]string{true: "higher", false: "lower"}[h.HigherIsBetter])
		}
	}
	study := ""
	for _, r := range sorted {
		if r.Status != result.StatusOK || r.Summary.Throughput <= 0 {
			continue
		}
		if r.StudyName != study {
			study = r.StudyName
			ew.printf("\nstudy: %s\n", escape.Terminal(study))
		}
		name := "Benchmark" + benchIdent(titleCase(r.Kind))
		if r.Workload != r.Kind {
			name += "/workload=" + benchIdent(r.Workload)
		}
		name += "/target=" + benchIdent(r.Target)
		pv := params.Values(r.Params)
		keys := make([]string, 0, len(pv))
		for k := range pv {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			name += "/" + benchIdent(k) + "=" + benchIdent(params.Format(pv[k]))
		}
		name += "/clients=" + strconv.Itoa(r.Clients)
		n := max(r.Summary.Transactions, 1)
		head := ""
		if m := analysis.Headline(r); benchIdent(m.Unit) != "tps" {
			head = "\t" + strconv.FormatFloat(m.Value, 'f', 2, 64) + " " + benchIdent(m.Unit)
		}
		ew.printf("%s\t%d\t%s ns/op\t%s tps%s\t%s p50-ns\t%s p95-ns\t%s p99-ns\n", name, n,
			strconv.FormatFloat(1e9/r.Summary.Throughput, 'f', 1, 64),
			strconv.FormatFloat(r.Summary.Throughput, 'f', 2, 64), head,
			strconv.FormatFloat(r.Summary.P50*1000, 'f', 0, 64),
			strconv.FormatFloat(r.Summary.P95*1000, 'f', 0, 64),
			strconv.FormatFloat(r.Summary.P99*1000, 'f', 0, 64))
	}
	return ew.err
}

// benchIdent makes a value safe inside a benchmark name (escape.Benchstat).
func benchIdent(s string) string { return escape.Benchstat(s) }

func titleCase(s string) string {
	if s == "" {
		return "Run"
	}
	return strings.ToUpper(s[:1]) + s[1:]
}
