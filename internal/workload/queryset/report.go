package queryset

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/fairbench/fairbench/internal/analysis"
	"github.com/fairbench/fairbench/internal/hist"
	"github.com/fairbench/fairbench/internal/kinds"
	"github.com/fairbench/fairbench/internal/numfmt"
	"github.com/fairbench/fairbench/internal/params"
	"github.com/fairbench/fairbench/internal/result"
)

// ClickBench's combined score (its index.html): each query's time plus
// 10 ms over the best time of the compared systems plus 10 ms, a missing
// time counted as twice the longer of 300 s and the system's slowest query,
// and the geometric mean over the queries.
const (
	scoreAdd      = 0.01
	missingFactor = 2
	missingFloor  = 300
)

// facts the workloads record for the ClickBench result file.
const (
	FactLoadSeconds = "load time (s)"
	FactDataBytes   = "data size (bytes)"
	FactSynthetic   = "synthetic data"
)

// secs formats a time in seconds the way ClickBench's tables do.
func secs(v float64) string {
	switch {
	case v >= 100:
		return strconv.FormatFloat(v, 'f', 1, 64)
	case v >= 1:
		return strconv.FormatFloat(v, 'f', 3, 64)
	case v >= 0.001 || v == 0:
		return strconv.FormatFloat(v, 'f', 4, 64)
	}
	// Under a millisecond, four decimals would read 0.0000 or one digit.
	return numfmt.Significant(v, 2)
}

func tries(q result.QueryResult) string {
	parts := make([]string, len(q.Tries))
	for i, t := range q.Tries {
		if t == nil {
			parts[i] = "null"
		} else {
			parts[i] = secs(*t)
		}
	}
	return "[" + strings.Join(parts, ", ") + "]"
}

// printSummary prints a run the way ClickBench's run.sh lists its tries,
// with the cold and hot time of each query and the geometric mean; a
// concurrent run gets clickhouse-benchmark's per-query figures.
func printSummary(w io.Writer, r *result.Run) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	if len(r.Summary.Queries) == 0 {
		printConcurrent(w, r)
		return
	}
	fmt.Fprintln(tw, "query\ttries (s)\tcold (s)\thot (s)\trows\t")
	var failed []string
	for _, q := range r.Summary.Queries {
		cold, hot := "null", "null"
		if v, ok := q.Cold(); ok {
			cold = secs(v)
		}
		if v, ok := q.Hot(); ok {
			hot = secs(v)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%d\t\n", q.Name, tries(q), cold, hot, q.Rows)
		if q.Error != "" {
			failed = append(failed, q.Name+": "+q.Error)
		}
	}
	tw.Flush()
	fmt.Fprintln(w, coldText(r.Summary.ColdBy))
	mean, missing := result.QueryGeoMean(r.Summary.Queries)
	fmt.Fprintf(w, "geometric mean of the hot times: %s s over %d of %d queries\n", secs(mean), len(r.Summary.Queries)-missing, len(r.Summary.Queries))
	for _, f := range failed {
		fmt.Fprintf(w, "  %s\n", f)
	}
}

// noRowsDoubt is the doubt of a run whose queries found no rows: their
// times measure no work, and a comparison over them compares nothing. It
// names them, and adds why (whyNoRows, from the run's parameters) when the
// workload can say.
func noRowsDoubt(whyNoRows func(params.Values) string) func(r *result.Run) []string {
	return func(r *result.Run) []string {
		var empty []string
		for _, q := range r.Summary.Queries {
			if q.Error == "" && q.Rows == 0 && slices.ContainsFunc(q.Tries, func(t *float64) bool { return t != nil }) {
				empty = append(empty, q.Name)
			}
		}
		if len(empty) == 0 {
			return nil
		}
		line := fmt.Sprintf("%d of %d queries returned no rows: %s", len(empty), len(r.Summary.Queries), strings.Join(empty, ", "))
		if whyNoRows != nil {
			if why := whyNoRows(kinds.TypedParams(r.Kind, r.Params)); why != "" {
				line += "; " + why
			}
		}
		return []string{line}
	}
}

// printConcurrent prints clickhouse-benchmark's summary: queries per second
// and latency percentiles, over all queries and per query.
func printConcurrent(w io.Writer, r *result.Run) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	secs := r.Duration.Seconds()
	fmt.Fprintln(tw, "query\tqueries\tQPS\tp50 (s)\tp95 (s)\tp99 (s)\terrors\t")
	for _, op := range r.Ops {
		if op.Count == 0 && len(op.Errors) == 0 {
			continue
		}
		var errs int64
		for _, n := range op.Errors {
			errs += n
		}
		p := [3]float64{}
		if h, err := hist.Decode(op.Histogram); err == nil && h.TotalCount() > 0 {
			for i, q := range []float64{50, 95, 99} {
				p[i] = float64(h.ValueAtQuantile(q)) / 1e6
			}
		}
		fmt.Fprintf(tw, "%s\t%d\t%.3f\t%.4f\t%.4f\t%.4f\t%d\t\n", op.Name, op.Count, float64(op.Count)/max(secs, 1e-9), p[0], p[1], p[2], errs)
	}
	tw.Flush()
	fmt.Fprintf(w, "QPS: %.3f over %.1f s; p50 %.4f s, p95 %.4f s, p99 %.4f s\n", r.Summary.Throughput, secs,
		r.Summary.P50/1e6, r.Summary.P95/1e6, r.Summary.P99/1e6)
}

// targetRuns are the tries-mode runs of one target in a section.
type targetRuns struct {
	name string
	runs []*result.Run
}

func byTarget(runs []*result.Run) []*targetRuns {
	var out []*targetRuns
	for _, r := range runs {
		if r.Status != result.StatusOK || len(r.Summary.Queries) == 0 {
			continue
		}
		i := slices.IndexFunc(out, func(t *targetRuns) bool { return t.name == r.Target })
		if i < 0 {
			out = append(out, &targetRuns{name: r.Target})
			i = len(out) - 1
		}
		out[i].runs = append(out[i].runs, r)
	}
	return out
}

// hotSamples are a query's hot tries over a target's runs: every try after
// the first (the only one when there is one), so that the interval covers
// both the tries and the repetitions.
func (t *targetRuns) hotSamples(query string) []float64 {
	var out []float64
	for _, r := range t.runs {
		for _, q := range r.Summary.Queries {
			if q.Name != query {
				continue
			}
			from := min(1, len(q.Tries)-1)
			for _, v := range q.Tries[max(from, 0):] {
				if v != nil {
					out = append(out, *v)
				}
			}
		}
	}
	return out
}

// hot is the median over the runs of each run's hot time of query.
func (t *targetRuns) hot(query string) (float64, bool) {
	var hs []float64
	for _, r := range t.runs {
		for _, q := range r.Summary.Queries {
			if v, ok := q.Hot(); ok && q.Name == query {
				hs = append(hs, v)
			}
		}
	}
	if len(hs) == 0 {
		return 0, false
	}
	return hist.Median(hs), true
}

// queryNames lists the queries of the runs in order of first appearance.
func queryNames(ts []*targetRuns) []string {
	var names []string
	for _, t := range ts {
		for _, r := range t.runs {
			for _, q := range r.Summary.Queries {
				if !slices.Contains(names, q.Name) {
					names = append(names, q.Name)
				}
			}
		}
	}
	return names
}

// cold is the median over the runs of each run's cold time of query.
func (t *targetRuns) cold(query string) (float64, bool) {
	var cs []float64
	for _, r := range t.runs {
		for _, q := range r.Summary.Queries {
			if v, ok := q.Cold(); ok && q.Name == query {
				cs = append(cs, v)
			}
		}
	}
	if len(cs) == 0 {
		return 0, false
	}
	return hist.Median(cs), true
}

// Report is what a query-set kind declares of its report section beyond
// each query's cold and hot times, their sums and geometric means.
type Report struct {
	// ClickBenchScore adds ClickBench's combined score as the table's last
	// row: ClickBench's own figure, which its kind declares; another set's
	// table (SSB's) would carry a score no one publishes for it.
	ClickBenchScore bool
}

// sections implements kinds.Info.Sections for query-set kinds, as ClickBench
// publishes a comparison: per query, each target's cold and hot time and
// its hot time's ratio to the baseline's (with an interval over the tries
// and repetitions), then the sums of the cold and of the hot times, their
// geometric means and, where the kind declares it, ClickBench's combined
// score. The table leads its report section: it is what a reader of a
// query-set comparison reads.
func (rep Report) sections(runs []*result.Run, baseline string) []kinds.Section {
	ts := byTarget(runs)
	if len(ts) == 0 {
		return nil
	}
	base := 0
	if i := slices.IndexFunc(ts, func(t *targetRuns) bool { return t.name == baseline }); i >= 0 {
		base = i
	}
	names := queryNames(ts)
	cols := []string{"query"}
	right := []bool{false}
	for _, t := range ts {
		cols = append(cols, t.name+" cold (s)", t.name+" hot (s)")
		right = append(right, true, true)
	}
	for i, t := range ts {
		if i != base {
			cols = append(cols, t.name+" / "+ts[base].name+" (hot)")
			right = append(right, true)
		}
	}
	var rows [][]string
	colds, hots := make([][]float64, len(ts)), make([][]float64, len(ts))
	// paired[i] holds the hot times of the queries both target i and the
	// baseline answered, i's and the baseline's: the ratios of the sums and
	// of the geometric means compare the same queries.
	paired := make([][2][]float64, len(ts))
	for _, name := range names {
		row := []string{name}
		shown := make([]float64, len(ts))
		for i, t := range ts {
			c, cok := t.cold(name)
			h, hok := t.hot(name)
			row = append(row, timeOrNull(c, cok), timeOrNull(h, hok))
			if cok {
				colds[i] = append(colds[i], c)
			}
			shown[i] = math.NaN()
			if hok {
				hots[i] = append(hots[i], h)
				shown[i] = h
			}
		}
		for i, t := range ts {
			if i == base {
				continue
			}
			row = append(row, ratioCell(shown[i]/shown[base], t.hotSamples(name), ts[base].hotSamples(name)))
			if !math.IsNaN(shown[i]) && !math.IsNaN(shown[base]) {
				paired[i][0] = append(paired[i][0], shown[i])
				paired[i][1] = append(paired[i][1], shown[base])
			}
		}
		rows = append(rows, row)
	}
	sum := []string{"sum"}
	geo := []string{"geometric mean"}
	for i := range ts {
		sum = append(sum, sumText(colds[i], len(names)), sumText(hots[i], len(names)))
		geo = append(geo, meanText(colds[i]), meanText(hots[i]))
	}
	for i := range ts {
		if i != base {
			p := paired[i]
			sum = append(sum, ratioText(total(p[0])/total(p[1])))
			geo = append(geo, ratioText(analysis.GeoMean(p[0])/analysis.GeoMean(p[1])))
		}
	}
	rows = append(rows, sum, geo)
	caption := "Cold time: the median over the runs of each run's first try. Hot time: the median over the runs of each run's best try after the first. " +
		"Ratio: the hot times beside it divided, with the Hodges–Lehmann interval over every hot try of every run (level in %) where it holds that ratio. " +
		"Sums and geometric means over the queries each target answered (a sum over fewer says how many); their ratios over the queries both answered."
	if rep.ClickBenchScore {
		score := []string{"ClickBench score (hot)"}
		for _, v := range combinedScores(ts, names) {
			score = append(score, "", strconv.FormatFloat(v, 'f', 2, 64))
		}
		for i := range ts {
			if i != base {
				score = append(score, "")
			}
		}
		rows = append(rows, score)
		caption += " ClickBench score: ClickBench's combined relative time over these targets, (time + 10 ms) / (best time + 10 ms), a missing time counted as 2 × max(300 s, the slowest); 1 is the fastest on every query."
	}
	bars := &kinds.Bars{Title: "Hot time per query", Unit: "s", Categories: names}
	for _, t := range ts {
		bs := kinds.BarSeries{Name: t.name}
		for _, name := range names {
			v, ok := t.hot(name)
			if !ok {
				v = math.NaN()
			}
			bs.Values = append(bs.Values, v)
		}
		bars.Series = append(bars.Series, bs)
	}
	return []kinds.Section{{
		Lead:    true,
		Bars:    bars,
		Title:   "Per query: cold and hot time",
		Caption: caption,
		Columns: cols, Right: right, Rows: rows,
		Note: coldNote(ts) + " " +
			"The headline is each run's geometric mean, the median over the runs: it can differ from this table's geometric mean of the per-query medians.",
	}}
}

// notCold is what a cold time is without a restart or cache drop before it.
const notCold = "cold = first try; caches not dropped, server not restarted"

// coldText says what a run's cold tries are (result.Summary.ColdBy).
func coldText(by []string) string {
	if len(by) == 0 {
		return notCold
	}
	return "cold = first try, true cold: " + strings.Join(by, " and ") + " before each query's first try"
}

// coldNote says, for the table, what each target's cold times are: true
// cold tries where every run of it restarted the server or dropped the
// caches before each query's first try, else the first try only.
func coldNote(ts []*targetRuns) string {
	byText := map[string][]string{}
	var texts []string
	for _, t := range ts {
		by := t.runs[0].Summary.ColdBy
		for _, r := range t.runs[1:] {
			if !slices.Equal(r.Summary.ColdBy, by) {
				by = nil // runs that differ are not all true cold
				break
			}
		}
		text := coldText(by)
		if _, seen := byText[text]; !seen {
			texts = append(texts, text)
		}
		byText[text] = append(byText[text], t.name)
	}
	if len(texts) == 1 {
		return "Cold times: " + texts[0] + "."
	}
	parts := make([]string, len(texts))
	for i, text := range texts {
		parts[i] = strings.Join(byText[text], ", ") + ": " + text
	}
	return "Cold times: " + strings.Join(parts, "; ") + "."
}

func total(xs []float64) float64 {
	var s float64
	for _, x := range xs {
		s += x
	}
	return s
}

func timeOrNull(v float64, ok bool) string {
	if !ok {
		return "null"
	}
	return secs(v)
}

// sumText is the sum of a target's times, saying over how many of the
// queries when it answered fewer than all.
func sumText(xs []float64, of int) string {
	if len(xs) == 0 {
		return "null"
	}
	s := secs(total(xs))
	if len(xs) < of {
		s += fmt.Sprintf(" (%d of %d)", len(xs), of)
	}
	return s
}

func meanText(xs []float64) string {
	if len(xs) == 0 {
		return "null"
	}
	return secs(analysis.GeoMean(xs))
}

func ratioText(r float64) string {
	if math.IsNaN(r) || math.IsInf(r, 0) || r <= 0 {
		return "—"
	}
	return "×" + strconv.FormatFloat(r, 'f', 2, 64)
}

// ratioCell writes the ratio r of the hot times shown beside it, with the
// interval of the ratio from the shift interval of the logarithms of every
// hot try, x's over y's, when that interval holds r: the interval is about
// the typical try, r about the best ones, and an interval beside a ratio it
// excludes would read as a contradiction.
func ratioCell(r float64, x, y []float64) string {
	txt := ratioText(r)
	if txt == "—" || len(x) == 0 || len(y) == 0 {
		return txt
	}
	lx, ly := logs(x), logs(y)
	if ci := analysis.ShiftCI(lx, ly, 0.95); ci.OK() {
		lo, hi := math.Exp(ci.Lo), math.Exp(ci.Hi)
		// Compare as printed: a ratio on an interval's printed bound is on it.
		if rr := math.Round(r*100) / 100; rr >= math.Round(lo*100)/100 && rr <= math.Round(hi*100)/100 {
			txt += fmt.Sprintf(" [%.2f–%.2f, %.0f %%]", lo, hi, ci.Level*100)
		}
	}
	return txt
}

func logs(xs []float64) []float64 {
	out := make([]float64, len(xs))
	for i, x := range xs {
		out[i] = math.Log(math.Max(x, 1e-6))
	}
	return out
}

// combinedScores is ClickBench's combined relative hot time of each target
// over the queries names, against the per-query best of the targets.
func combinedScores(ts []*targetRuns, names []string) []float64 {
	best := map[string]float64{}
	for _, name := range names {
		for _, t := range ts {
			if v, ok := t.hot(name); ok {
				if b, seen := best[name]; !seen || v < b {
					best[name] = v
				}
			}
		}
	}
	out := make([]float64, len(ts))
	for i, t := range ts {
		slowest := 0.0
		for _, name := range names {
			if v, ok := t.hot(name); ok {
				slowest = max(slowest, v)
			}
		}
		fallback := missingFactor * max(missingFloor, slowest)
		var logSum float64
		n := 0
		for _, name := range names {
			b, ok := best[name]
			if !ok {
				continue // no target answered it
			}
			v, ok := t.hot(name)
			if !ok {
				v = fallback
			}
			logSum += math.Log((v + scoreAdd) / (b + scoreAdd))
			n++
		}
		if n > 0 {
			out[i] = math.Exp(logSum / float64(n))
		}
	}
	return out
}

// clickBenchResult is the shape of ClickBench's results/*.json files.
type clickBenchResult struct {
	System      string       `json:"system"`
	Date        string       `json:"date"`
	Machine     string       `json:"machine"`
	ClusterSize int          `json:"cluster_size"`
	Proprietary string       `json:"proprietary"`
	Tuned       string       `json:"tuned"`
	Comment     string       `json:"comment,omitempty"`
	Tags        []string     `json:"tags"`
	LoadTime    *float64     `json:"load_time"`
	DataSize    *int64       `json:"data_size"`
	Result      [][]*float64 `json:"result"`
}

// clickBench builds ClickBench's result file from a tries-mode run.
func clickBench(r *result.Run) (*clickBenchResult, error) {
	if len(r.Summary.Queries) == 0 {
		return nil, fmt.Errorf("run %d has no per-query tries (a %s run in the concurrent mode, or not a query-set run)", r.ID, r.Kind)
	}
	db := r.Env.Database
	facts, _ := r.Env.Extra["workload"].(map[string]any)
	system := db.Engine
	if system == "" {
		system = r.Target
	}
	if v := db.Version; v != "" {
		// PostgreSQL's version() is a sentence: its number is what a
		// ClickBench system name carries.
		if n := versionNumber.FindString(v); n != "" {
			system += " " + n
		}
	}
	out := &clickBenchResult{System: system, Date: r.StartedAt.UTC().Format(time.DateOnly), Machine: machine(r), ClusterSize: 1,
		Proprietary: "no", Tuned: "no", Tags: []string{"fairbench", r.Kind}}
	if s, ok := facts[FactLoadSeconds].(string); ok {
		if v, err := strconv.ParseFloat(s, 64); err == nil {
			out.LoadTime = &v
		}
	}
	if s, ok := facts[FactDataBytes].(string); ok {
		if v, err := strconv.ParseInt(s, 10, 64); err == nil {
			out.DataSize = &v
		}
	}
	if s, ok := facts[FactSynthetic].(string); ok && s != "" {
		out.Comment = "synthetic data (" + s + "): not comparable with published ClickBench results"
		out.Tags = append(out.Tags, "synthetic")
	}
	for _, q := range r.Summary.Queries {
		tries := make([]*float64, len(q.Tries))
		for i, t := range q.Tries {
			if t != nil {
				v := math.Round(*t*1e6) / 1e6 // the clock's microseconds, not float noise
				tries[i] = &v
			}
		}
		out.Result = append(out.Result, tries)
	}
	return out, nil
}

var (
	versionNumber = regexp.MustCompile(`\d+(\.\d+)+`)
	// numberArray matches an indented array of numbers and nulls, which
	// ClickBench's files keep on one line per query.
	numberArray = regexp.MustCompile(`\[\s*((?:-?[0-9.eE+-]+|null)(?:,\s*(?:-?[0-9.eE+-]+|null))*)\s*\]`)
	separator   = regexp.MustCompile(`,\s+`)
)

// runFormats are the result files a query-set run can be written as.
var runFormats = map[string]func(io.Writer, *result.Run) error{"clickbench": WriteClickBench}

// machine names the server ClickBench's file describes: what the study
// declares of the target (cpu, cores), else this host when the server runs
// on it, else the target's name, which the user may edit in the file.
func machine(r *result.Run) string {
	var parts []string
	if d := r.Env.Declared; d.CPU != "" {
		parts = append(parts, d.CPU)
	}
	if d := r.Env.Declared; d.Cores > 0 {
		parts = append(parts, strconv.Itoa(d.Cores)+" cores")
	}
	if host := r.Env.Host; len(parts) == 0 && r.Env.ClientServerSameHost() {
		if host.CPUModel != "" {
			parts = append(parts, host.CPUModel)
		}
		if host.Threads > 0 {
			parts = append(parts, strconv.Itoa(host.Threads)+" threads")
		}
		if host.MemoryGiB > 0 {
			parts = append(parts, strconv.FormatFloat(math.Round(host.MemoryGiB), 'f', 0, 64)+" GiB")
		}
	}
	if len(parts) == 0 {
		return r.Target
	}
	return strings.Join(parts, ", ")
}

// WriteClickBench writes a run's ClickBench result file.
func WriteClickBench(w io.Writer, r *result.Run) error {
	cb, err := clickBench(r)
	if err != nil {
		return err
	}
	b, err := json.MarshalIndent(cb, "", "    ")
	if err != nil {
		return err
	}
	b = numberArray.ReplaceAllFunc(b, func(m []byte) []byte {
		inner := numberArray.FindSubmatch(m)[1]
		return append(append([]byte("["), separator.ReplaceAll(inner, []byte(", "))...), ']')
	})
	_, err = w.Write(append(b, '\n'))
	return err
}
