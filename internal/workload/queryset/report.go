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
	"github.com/fairbench/fairbench/internal/result"
	"github.com/fairbench/fairbench/internal/stats"
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
	}
	return strconv.FormatFloat(v, 'f', 4, 64)
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

// PrintSummary prints a run the way ClickBench's run.sh lists its tries,
// with the cold and hot time of each query and the geometric mean; a
// concurrent run gets clickhouse-benchmark's per-query figures.
func PrintSummary(w io.Writer, r *result.Run) {
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
	mean, missing := result.QueryGeoMean(r.Summary.Queries)
	fmt.Fprintf(w, "geometric mean of the hot times: %s s over %d of %d queries\n", secs(mean), len(r.Summary.Queries)-missing, len(r.Summary.Queries))
	for _, f := range failed {
		fmt.Fprintf(w, "  %s\n", f)
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
	return stats.Median(hs), true
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

// Sections implements kinds.Info.Sections for query-set kinds: per query,
// each target's hot time and its ratio to the baseline's with an interval
// over the tries and repetitions, then the geometric mean and ClickBench's
// combined score.
func Sections(runs []*result.Run, baseline string) []kinds.Section {
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
		cols = append(cols, t.name+" hot (s)")
		right = append(right, true)
	}
	for i, t := range ts {
		if i != base {
			cols = append(cols, t.name+" / "+ts[base].name)
			right = append(right, true)
		}
	}
	var rows [][]string
	means := make([][]float64, len(ts))
	for _, name := range names {
		row := []string{name}
		for i, t := range ts {
			if v, ok := t.hot(name); ok {
				row = append(row, secs(v))
				means[i] = append(means[i], v)
			} else {
				row = append(row, "null")
			}
		}
		for i, t := range ts {
			if i != base {
				row = append(row, ratioCell(t.hotSamples(name), ts[base].hotSamples(name)))
			}
		}
		rows = append(rows, row)
	}
	geo := []string{"geometric mean"}
	for i := range ts {
		geo = append(geo, secs(analysis.GeoMean(means[i])))
	}
	score := []string{"ClickBench score (hot)"}
	scores := CombinedScores(ts, names)
	for i := range ts {
		score = append(score, strconv.FormatFloat(scores[i], 'f', 2, 64))
	}
	for i := range ts {
		if i != base {
			g0, g := analysis.GeoMean(means[base]), analysis.GeoMean(means[i])
			geo = append(geo, ratioText(g/g0))
			score = append(score, "")
		}
	}
	rows = append(rows, geo, score)
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
		Bars:  bars,
		Title: "Per query: hot time",
		Caption: "Hot time: the median over the runs of each run's best try after the first. Ratio: its time over " + ts[base].name +
			"'s, with the Hodges–Lehmann interval over every hot try of every run (level in %). Geometric means over the queries each target answered. " +
			"ClickBench score: ClickBench's combined relative time over these targets, (time + 10 ms) / (best time + 10 ms), a missing time counted as 2 × max(300 s, the slowest); 1 is the fastest on every query.",
		Columns: cols, Right: right, Rows: rows,
		Note: "Cold times are each run's first try; fairbench neither restarts the server nor drops the page cache before it, as ClickBench's run.sh does where it can.",
	}}
}

func ratioText(r float64) string {
	if math.IsNaN(r) || math.IsInf(r, 0) || r <= 0 {
		return "—"
	}
	return "×" + strconv.FormatFloat(r, 'f', 2, 64)
}

// ratioCell is the ratio of the medians of x and y, with the interval of
// the ratio from the shift interval of their logarithms.
func ratioCell(x, y []float64) string {
	if len(x) == 0 || len(y) == 0 {
		return "—"
	}
	txt := ratioText(stats.Median(x) / stats.Median(y))
	lx, ly := logs(x), logs(y)
	if ci := analysis.ShiftCI(lx, ly, 0.95); ci.OK() {
		txt += fmt.Sprintf(" [%.2f–%.2f, %.0f %%]", math.Exp(ci.Lo), math.Exp(ci.Hi), ci.Level*100)
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

// CombinedScores is ClickBench's combined relative hot time of each target
// over the queries names, against the per-query best of the targets.
func CombinedScores(ts []*targetRuns, names []string) []float64 {
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

// ClickBenchResult is the shape of ClickBench's results/*.json files.
type ClickBenchResult struct {
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

// ClickBench builds ClickBench's result file from a tries-mode run.
func ClickBench(r *result.Run) (*ClickBenchResult, error) {
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
	out := &ClickBenchResult{System: system, Date: r.StartedAt.UTC().Format(time.DateOnly), Machine: machine(r), ClusterSize: 1,
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

// RunFormats are the result files a query-set run can be written as.
var RunFormats = map[string]func(io.Writer, *result.Run) error{"clickbench": WriteClickBench}

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
		if v, ok := host.Extra["cpu_model"]; ok {
			parts = append(parts, fmt.Sprint(v))
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
	cb, err := ClickBench(r)
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
