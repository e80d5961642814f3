package bulkindex

import (
	"math"
	"slices"
	"strconv"

	"github.com/fairbench/fairbench/internal/hist"
	"github.com/fairbench/fairbench/internal/kinds"
	"github.com/fairbench/fairbench/internal/result"
)

// osbTask is what OSB's summary says of one task of one run: the min,
// median and max of its throughput samples (OSB's running averages,
// osbThroughput), its p90 and p100 latency in ms and its error rate in %.
// NaN where the run does not say.
type osbTask struct {
	min, median, max, p90, p100, errorPct float64
	unit                                  string
}

// osbTasks gives each op type of r its OSB summary figures: for a run of
// fairbench's own from its series and histograms, as printSummary computes
// them; for a run imported from OSB from what OSB printed (kept in the
// environment, "osb" → "tasks"), the latencies from its percentiles.
// A run whose series a report dropped keeps them in its digest
// (digestSeries).
func osbTasks(r *result.Run) map[string]osbTask {
	if r.Digest != nil {
		if tasks, ok := r.Digest.Kind.(map[string]osbTask); ok {
			return tasks
		}
	}
	out := map[string]osbTask{}
	printed := importedTasks(r)
	for _, op := range r.Ops {
		t := osbTask{min: math.NaN(), median: math.NaN(), max: math.NaN(), p90: math.NaN(), p100: math.NaN(), errorPct: math.NaN(), unit: "ops/s"}
		if op.Name == opBulk {
			t.unit = "docs/s"
		}
		if p, ok := printed[op.Name]; ok {
			if u, ok := p["unit"].(string); ok && u != "" {
				t.unit = u
			}
			tp := numbers(p["throughput"])
			for k, dst := range map[string]*float64{"min": &t.min, "median": &t.median, "max": &t.max} {
				if v, ok := tp[k]; ok {
					*dst = v
				}
			}
			if v, ok := number(p["error_rate"]); ok {
				t.errorPct = v * 100
			}
			for k, dst := range map[string]*float64{"90th percentile latency (ms)": &t.p90, "100th percentile latency (ms)": &t.p100} {
				if v, ok := number(p[k]); ok {
					*dst = v
				}
			}
			out[op.Name] = t
			continue
		}
		rates := osbThroughput(r.Series, op.Name, op.Name == opBulk, r.Duration.Seconds())
		if len(rates) > 0 {
			t.min, t.max, t.median = slices.Min(rates), slices.Max(rates), hist.Median(rates)
		}
		if h := decode(op.Histogram); h != nil && h.TotalCount() > 0 {
			t.p90, t.p100 = float64(h.ValueAtQuantile(90))/1000, float64(h.Max())/1000
		}
		var failed int64
		for _, n := range op.Errors {
			failed += n
		}
		total := float64(op.Count)
		if op.Name == opBulk && op.Items > 0 {
			total = float64(op.Items) // documents, as bulkindex counts its failures
		}
		if total+float64(failed) > 0 {
			t.errorPct = 100 * float64(failed) / (total + float64(failed))
		}
		out[op.Name] = t
	}
	return out
}

// digestSeries keeps what sections reads of a run's series, its OSB task
// figures, for a report that drops the series (kinds.Info.DigestSeries).
func digestSeries(r *result.Run) any { return osbTasks(r) }

// importedTasks is what an OSB import kept of each task; nil for a run of
// fairbench's own.
func importedTasks(r *result.Run) map[string]map[string]any {
	osb, ok := r.Env.Extra["osb"].(map[string]any)
	if !ok {
		return nil
	}
	tasks, ok := osb["tasks"].(map[string]any)
	if !ok {
		return nil
	}
	out := map[string]map[string]any{}
	for name, t := range tasks {
		if m, ok := t.(map[string]any); ok {
			out[name] = m
		}
	}
	return out
}

// numbers reads a map of numbers as the import made it or as JSON gives it
// back from the results store.
func numbers(v any) map[string]float64 {
	switch m := v.(type) {
	case map[string]float64:
		return m
	case map[string]any:
		out := map[string]float64{}
		for k, x := range m {
			if f, ok := number(x); ok {
				out[k] = f
			}
		}
		return out
	}
	return nil
}

// number reads a number of the environment: the results store gives a
// whole one back as an int64 (an error rate of 0, a max of 1100 docs/s).
func number(v any) (float64, bool) {
	switch x := v.(type) {
	case float64:
		return x, true
	case int64:
		return float64(x), true
	case int:
		return float64(x), true
	}
	return 0, false
}

// sections implements kinds.Info.Sections for the bulk-indexing kind, in
// OSB's summary's shape (the table published OSB comparisons paste): per
// cell and task, the min, median and max throughput, the p90 and p100
// latency and the error rate, each the median over the cell's completed
// runs. OSB prints no average latency, so an imported run has none; this
// table does not need one.
func sections(runs []*result.Run, _ string) []kinds.Section {
	type cellKey struct {
		target  string
		clients int
		task    string
	}
	var order []cellKey
	by := map[cellKey][]osbTask{}
	for _, r := range runs {
		if r.Status != result.StatusOK {
			continue
		}
		tasks := osbTasks(r)
		for _, op := range r.Ops {
			k := cellKey{r.Target, r.Clients, op.Name}
			if _, seen := by[k]; !seen {
				order = append(order, k)
			}
			by[k] = append(by[k], tasks[op.Name])
		}
	}
	if len(order) == 0 {
		return nil
	}
	sec := kinds.Section{
		Title:   "OpenSearch Benchmark's summary",
		Caption: "Per task, as OSB's summary reports it: throughput min / median / max (OSB's running averages each second), latency p90 and p100 in ms, error rate in %; the median over the completed repetitions:",
		Columns: []string{"target", "clients", "task", "min throughput", "median throughput", "max throughput", "unit", "p90 latency ms", "p100 latency ms", "error rate %"},
		Right:   []bool{false, true, false, true, true, true, false, true, true, true},
	}
	for _, k := range order {
		ts := by[k]
		med := func(f func(osbTask) float64) string {
			var xs []float64
			for _, t := range ts {
				if v := f(t); !math.IsNaN(v) {
					xs = append(xs, v)
				}
			}
			if len(xs) == 0 {
				return "–"
			}
			return num(hist.Median(xs)) // as OSB prints: six significant digits
		}
		sec.Rows = append(sec.Rows, []string{k.target, strconv.Itoa(k.clients), k.task,
			med(func(t osbTask) float64 { return t.min }), med(func(t osbTask) float64 { return t.median }), med(func(t osbTask) float64 { return t.max }),
			ts[0].unit,
			med(func(t osbTask) float64 { return t.p90 }), med(func(t osbTask) float64 { return t.p100 }), med(func(t osbTask) float64 { return t.errorPct })})
	}
	return []kinds.Section{sec}
}
