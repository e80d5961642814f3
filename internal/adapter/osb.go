package adapter

import (
	"encoding/csv"
	"fmt"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/fairbench/fairbench/internal/params/searchparams"
	"github.com/fairbench/fairbench/internal/result"
)

// OpenSearch Benchmark 2.4.0 (and Rally, whose formats it kept): its
// test_run.json (~/.benchmark/benchmarks/test-runs/<id>/), the results file
// of --results-format=markdown or csv, and the console summary it prints on
// a terminal (the same table as the markdown). One run per file, one op type
// per task; the bulk tasks' documents per second are the headline.
//
// OSB reports per task a throughput (min, mean, median, max over its
// per-second samples), latency (from the scheduled start) and service time
// (from the send) percentiles, and an error rate; not counts. So an imported
// op's latency histogram is reconstructed from the percentiles OSB printed
// (only those its sample size allows: 50, 90, 99, 99.9, 100), it has no
// count, and the service times, throughputs and error rates are kept in the
// run's environment. The clients are not in any of the formats: import asks
// for --clients.

// bulkIndexKind is the kind of bulk-indexing runs, fairbench's bulkindex
// workload's.
const bulkIndexKind = searchparams.Kind

// osbTool is opensearch-benchmark as registered, which the package's tests name.
var osbTool *Tool

func init() {
	osbTool = Register(Tool{
		Name:         "opensearch-benchmark",
		Kind:         bulkIndexKind,
		DetectOrder:  100,
		Formats:      "OpenSearch Benchmark 2.4 test_run.json, --results-file (markdown or csv) and its console summary",
		Detect:       detectOSB,
		Parse:        parseOSB,
		Once:         regexp.MustCompile(`(?m)("test-run-id"\s*:|^Metric,Task,Value,Unit\s*$|^\|\s+Metric \|\s+Task \|)`),
		Identity:     osbIdentity,
		Build:        buildOSB,
		Install:      osbInstall,
		AttachLogDir: attachOSBLogDir,
		OwnWarmup:    true,
	})
}

var (
	osbJSON      = regexp.MustCompile(`^\s*\{[\s\S]*"test-run-id"\s*:[\s\S]*"op_metrics"\s*:`)
	osbTableHead = regexp.MustCompile(`(?m)^\|\s+Metric \|\s+Task \|\s+Value \|\s+Unit \|\s*$`)
	osbCSVHead   = regexp.MustCompile(`(?m)\AMetric,Task,Value,Unit\r?\n`)
	osbBanner    = regexp.MustCompile(`(?m)^\[INFO\] \[Test Run ID\]: [0-9a-f-]+\s*$`)
	ansi         = regexp.MustCompile(`\x1b\[[0-9;?]*[A-Za-z]`)
	osbPct       = regexp.MustCompile(`^(\d+(?:\.\d+)?)th percentile (latency|service time)$`)
)

// osbIdentity: test_run.json has the start (test-run-timestamp); the
// results file and console table do not, and print no counts. All print the
// headline task's mean documents/s and its latency median and maximum, the
// tables to 6 significant digits: three measured values two repetitions do
// not share.
func osbIdentity(r *result.Run) *RunIdentity {
	id := baseIdentity(r)
	s := r.Summary
	id.Measures = []Measure{
		{Name: "documents/s", Value: s.Throughput, Within: within6(s.Throughput)},
		{Name: "latency p50", Value: s.P50, Within: within6(s.P50)},
		{Name: "latency max", Value: s.Max, Within: within6(s.Max)},
	}
	return id
}

func detectOSB(text string) bool {
	return osbJSON.MatchString(text) || osbCSVHead.MatchString(text) || osbTableHead.MatchString(ansi.ReplaceAllString(text, "")) ||
		osbBanner.MatchString(ansi.ReplaceAllString(text, ""))
}

// osbTask is what OSB reports of one task.
type osbTask struct {
	name                     string
	throughput               map[string]float64  // min, mean, median, max
	unit                     string              // docs/s, ops/s
	latency, service         map[float64]float64 // percentile → ms
	latencyMean, serviceMean float64
	errorRate                float64 // 0–1
	durationMs               float64 // test_run.json only
}

func parseOSB(name, text string) ([]*result.Run, error) {
	switch {
	case osbJSON.MatchString(text):
		return parseOSBJSON(name, text)
	case osbCSVHead.MatchString(text):
		recs, err := csv.NewReader(strings.NewReader(text)).ReadAll()
		if err != nil {
			return nil, &ParseError{File: name, Msg: err.Error()}
		}
		return osbRows(name, recs[1:], 2)
	}
	clean := ansi.ReplaceAllString(text, "")
	loc := osbTableHead.FindStringIndex(clean)
	if loc == nil {
		return nil, &ParseError{File: name, Msg: "an OpenSearch Benchmark console output without its results table " +
			"(OSB prints it only on a terminal): import the run's test_run.json or its --results-file instead"}
	}
	first := strings.Count(clean[:loc[0]], "\n") + 1
	var recs [][]string
	for i, line := range strings.Split(clean[loc[1]:], "\n") {
		line = strings.TrimSpace(line)
		if i == 0 && strings.HasPrefix(line, "|-") || line == "" && i == 0 {
			continue
		}
		if !strings.HasPrefix(line, "|") {
			break
		}
		if strings.HasPrefix(line, "|-") {
			continue
		}
		cells := strings.Split(strings.Trim(line, "|"), "|")
		if len(cells) != 4 {
			return nil, &ParseError{File: name, Line: first + i, Msg: fmt.Sprintf("%d cells, the results table has 4 (Metric, Task, Value, Unit)", len(cells))}
		}
		for j := range cells {
			cells[j] = strings.TrimSpace(cells[j])
		}
		recs = append(recs, cells)
	}
	return osbRows(name, recs, first+1)
}

// osbRows reads the rows of the results table (markdown, csv or console):
// Metric, Task, Value, Unit. line is the file line of the first row.
func osbRows(name string, recs [][]string, line int) ([]*result.Run, error) {
	tasks := map[string]*osbTask{}
	var order []string
	summary := map[string]any{}
	task := func(n string) *osbTask {
		t := tasks[n]
		if t == nil {
			t = &osbTask{name: n, throughput: map[string]float64{}, latency: map[float64]float64{}, service: map[float64]float64{}}
			tasks[n] = t
			order = append(order, n)
		}
		return t
	}
	for i, rec := range recs {
		if len(rec) != 4 {
			return nil, &ParseError{File: name, Line: line + i, Msg: fmt.Sprintf("%d fields, the results have 4 (Metric, Task, Value, Unit)", len(rec))}
		}
		metric, taskName, unit := rec[0], rec[1], rec[3]
		v, err := strconv.ParseFloat(rec[2], 64)
		if err != nil {
			return nil, &ParseError{File: name, Line: line + i, Msg: fmt.Sprintf("%s: %q is not a number", metric, rec[2])}
		}
		if taskName == "" {
			summary[metric] = v
			continue
		}
		t := task(taskName)
		switch m := osbPct.FindStringSubmatch(metric); {
		case m != nil:
			p, _ := strconv.ParseFloat(m[1], 64)
			if m[2] == "latency" {
				t.latency[p] = v
			} else {
				t.service[p] = v
			}
		case strings.HasSuffix(metric, " Throughput"):
			t.throughput[strings.ToLower(strings.TrimSuffix(metric, " Throughput"))] = v
			t.unit = unit
		case metric == "error rate":
			t.errorRate = v / 100
		default:
			summary[taskName+": "+metric] = v
		}
	}
	var ts []*osbTask
	for _, n := range order {
		ts = append(ts, tasks[n])
	}
	return osbRun(name, ts, summary, nil)
}

// osbRun builds the run of a file's tasks.
func osbRun(name string, tasks []*osbTask, summary map[string]any, meta map[string]any) ([]*result.Run, error) {
	var bulk *osbTask
	for _, t := range tasks {
		if t.unit == "docs/s" && bulk == nil {
			bulk = t
		}
	}
	if bulk == nil {
		return nil, &ParseError{File: name, Msg: "no task with a throughput in docs/s: fairbench imports OpenSearch Benchmark's bulk-indexing runs"}
	}
	r := &result.Run{Source: "opensearch-benchmark", Kind: bulkIndexKind, Workload: bulkIndexKind, Params: map[string]any{}, Status: result.StatusOK,
		ToolVersion: "opensearch-benchmark"}
	env := map[string]any{"summary": summary}
	for k, v := range meta {
		env[k] = v
	}
	if v, ok := meta["benchmark-version"].(string); ok {
		r.ToolVersion = "opensearch-benchmark " + v
	}
	if ts, ok := meta["test-run-timestamp"].(string); ok {
		if t, err := time.Parse("20060102T150405Z", ts); err == nil {
			r.StartedAt = t
		}
	}
	service := map[string]any{}
	for _, t := range tasks {
		// No count: OSB's mean throughput × its task duration is not the
		// number of requests or documents (warm-up, its sampling), and
		// nothing else in its outputs is.
		op := result.Op{Name: t.name}
		s := map[string]any{"throughput": t.throughput, "unit": t.unit, "error_rate": t.errorRate}
		for p, ms := range t.service {
			s[strconv.FormatFloat(p, 'f', -1, 64)+"th percentile service time (ms)"] = ms
		}
		for p, ms := range t.latency {
			s[strconv.FormatFloat(p, 'f', -1, 64)+"th percentile latency (ms)"] = ms
		}
		service[t.name] = s
		if t.unit != "docs/s" {
			// A bulkindex run's op types are its bulk tasks: the searches
			// after them (match-all, term) stay in the environment, so
			// that the run's latency is the bulk requests' alone.
			continue
		}
		if len(t.latency) > 0 {
			var qs []quantile
			for p, ms := range t.latency {
				if p < 100 {
					qs = append(qs, quantile{p, ms * 1000})
				}
			}
			sort.Slice(qs, func(i, j int) bool { return qs[i].q < qs[j].q })
			// A nominal 1 000 samples: the shape of the distribution is
			// what the percentiles give, not its count.
			h := histFromPercentiles(qs, 1000, 0, t.latency[100]*1000)
			op.Histogram = encode(h)
		}
		r.Ops = append(r.Ops, op)
	}
	env["tasks"] = service
	r.Env.Extra = map[string]any{"osb": env}
	s := &r.Summary
	s.Throughput = bulk.throughput["mean"]
	s.P50, s.P95, s.P99, s.Max = bulk.latency[50]*1000, bulk.latency[95]*1000, bulk.latency[99]*1000, bulk.latency[100]*1000
	s.LatencyMean = bulk.latencyMean * 1000
	s.Metric = &result.Metric{Headline: searchparams.Headline, Value: bulk.throughput["mean"]}
	if bulk.durationMs > 0 {
		r.Duration = time.Duration(bulk.durationMs * float64(time.Millisecond))
	}
	r.Deviations = append(r.Deviations, reconstructedNote+" (OpenSearch Benchmark's per-task latency percentiles; its service times are in the environment)",
		"documents/s is OSB's mean of its per-second throughput samples of "+bulk.name+", as OSB reports it")
	return []*result.Run{r}, nil
}

// parseOSBJSON reads test_run.json.
func parseOSBJSON(name, text string) ([]*result.Run, error) {
	var doc struct {
		Version   string         `json:"benchmark-version"`
		ID        string         `json:"test-run-id"`
		Timestamp string         `json:"test-run-timestamp"`
		Workload  string         `json:"workload"`
		Cluster   map[string]any `json:"cluster"`
		Results   struct {
			OpMetrics []struct {
				Task       string             `json:"task"`
				Throughput map[string]any     `json:"throughput"`
				Latency    map[string]any     `json:"latency"`
				Service    map[string]any     `json:"service_time"`
				ErrorRate  float64            `json:"error_rate"`
				Duration   float64            `json:"duration"`
				Extra      map[string]float64 `json:"-"`
			} `json:"op_metrics"`
			DocsCount *float64 `json:"docs_count"`
		} `json:"results"`
	}
	if err := decodeJSON(name, "test_run.json", text, &doc); err != nil {
		return nil, err
	}
	pcts := func(m map[string]any) (map[float64]float64, float64) {
		out := map[float64]float64{}
		var mean float64
		for k, v := range m {
			f, ok := v.(float64)
			if !ok {
				continue
			}
			if k == "mean" {
				mean = f
				continue
			}
			if p, err := strconv.ParseFloat(strings.ReplaceAll(k, "_", "."), 64); err == nil {
				out[p] = f
			}
		}
		return out, mean
	}
	var tasks []*osbTask
	for _, m := range doc.Results.OpMetrics {
		t := &osbTask{name: m.Task, throughput: map[string]float64{}, errorRate: m.ErrorRate, durationMs: m.Duration}
		for k, v := range m.Throughput {
			if f, ok := v.(float64); ok {
				t.throughput[k] = f
			} else if k == "unit" {
				t.unit, _ = v.(string)
			}
		}
		t.latency, t.latencyMean = pcts(m.Latency)
		t.service, t.serviceMean = pcts(m.Service)
		tasks = append(tasks, t)
	}
	summary := map[string]any{}
	if doc.Results.DocsCount != nil {
		summary["Doc count"] = *doc.Results.DocsCount
	}
	meta := map[string]any{"benchmark-version": doc.Version, "test-run-id": doc.ID, "test-run-timestamp": doc.Timestamp, "workload": doc.Workload}
	if doc.Cluster != nil {
		meta["cluster"] = doc.Cluster
	}
	return osbRun(name, tasks, summary, meta)
}
