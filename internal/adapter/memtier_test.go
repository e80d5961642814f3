package adapter

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/fairbench/fairbench/internal/hist"
	"github.com/fairbench/fairbench/internal/params"
	"github.com/fairbench/fairbench/internal/params/kvparams"
	"github.com/fairbench/fairbench/internal/result"
)

// The expected numbers below are memtier_benchmark 2.3.0's own output, read
// off the fixtures in testdata/memtier_benchmark (each .cmd says how it was
// made); the comments name the file line they come from.

const mtDir = "memtier_benchmark/"

func mtRuns(t *testing.T, file string) []*result.Run {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", mtDir, file))
	if err != nil {
		t.Fatal(err)
	}
	tool, runs, err := parse(file, string(b))
	if err != nil {
		t.Fatal(err)
	}
	eq(t, "tool", tool.Name, "memtier_benchmark")
	return runs
}

func mtOne(t *testing.T, file string) *result.Run {
	t.Helper()
	runs := mtRuns(t, file)
	if len(runs) != 1 {
		t.Fatalf("%s: %d runs, want 1", file, len(runs))
	}
	r := runs[0]
	eq(t, "kind", r.Kind, "kv")
	eq(t, "workload", r.Workload, "memtier_benchmark")
	return r
}

func mtOp(t *testing.T, r *result.Run, name string) result.Op {
	t.Helper()
	for _, op := range r.Ops {
		if op.Name == name {
			return op
		}
	}
	t.Fatalf("no op %q in %v", name, r.Ops)
	return result.Op{}
}

func mtOpNames(r *result.Run) string {
	var n []string
	for _, op := range r.Ops {
		n = append(n, op.Name)
	}
	return strings.Join(n, ",")
}

// The default text output, stdout and stderr together, with the histogram.
func TestMemtierTextDefault(t *testing.T) {
	r := mtOne(t, "mt23-default.txt")
	eq(t, "clients", r.Clients, 10) // lines 6-7: 2 Threads, 5 Connections per thread
	eq(t, "ops", mtOpNames(r), "set,get")
	s := r.Summary
	// line 7 (stderr's last progress line): 187527 ops in all
	eq(t, "transactions", s.Transactions, int64(187527))
	eq(t, "set+get", mtOp(t, r, "set").Count+mtOp(t, r, "get").Count, int64(187527))
	// line 18, Totals: 62495.17 ops/sec, 3.33 hits/sec, 56809.09 misses/sec,
	// avg 0.15924 ms, p50 0.079, p99 2.095 ms, 2650.72 KB/sec
	eq(t, "throughput", s.Throughput, 62495.17)
	near(t, "mean µs", s.LatencyMean, 159.24, 0.001)
	eq(t, "p50", s.P50, 79.0)
	eq(t, "p99", s.P99, 2095.0)
	eq(t, "hits/s", s.Extra["hits_per_sec"], 3.33)
	eq(t, "misses/s", s.Extra["misses_per_sec"], 56809.09)
	eq(t, "KB/s", s.Extra["kb_per_sec"], 2650.72)
	// line 15: Sets 5682.74 ops/sec; × (187527 / 62495.17) s
	near(t, "set count", float64(mtOp(t, r, "set").Count), 5682.74*187527/62495.17, 1)
	near(t, "duration s", r.Duration.Seconds(), 187527/62495.17, 1e-6)
	// The distribution: line 166 ends SET at 8.159 ms, line 328 GET at 11.327 ms.
	n, _, mx := opHist(t, mtOp(t, r, "set"))
	eq(t, "set histogram count", n, mtOp(t, r, "set").Count)
	near(t, "set max µs", float64(mx), 8159, 8159*0.001)
	near(t, "max µs", s.Max, 11327, 11327*0.001)
	if !hasDeviation(r, "last progress lines") || !hasDeviation(r, "Request Latency Distribution") {
		t.Errorf("deviations %q", r.Deviations)
	}
	eq(t, "threads", r.Env.Extra["tool"].(map[string]any)["threads"], any(int64(2)))
}

// --hide-histogram: no distribution, the printed percentiles only.
func TestMemtierTextHideHistogram(t *testing.T) {
	r := mtOne(t, "mt23-hide-histogram.txt")
	s := r.Summary
	eq(t, "transactions", s.Transactions, int64(202230)) // line 5, last progress line: 202230 ops
	// line 18: Totals 67378.44 ops/sec, 3.33 hits, 61248.32 misses, avg
	// 0.14796, p50 0.079, p99 2.127, 2857.81 KB/sec
	eq(t, "throughput", s.Throughput, 67378.44)
	near(t, "mean", s.LatencyMean, 147.96, 0.001)
	eq(t, "p50", s.P50, 79.0)
	eq(t, "p99", s.P99, 2127.0)
	eq(t, "p95 unknown", s.P95, 0.0)
	eq(t, "misses/s", s.Extra["misses_per_sec"], 61248.32)
	eq(t, "KB/s", s.Extra["kb_per_sec"], 2857.81)
	for _, op := range r.Ops {
		if op.Histogram != nil {
			t.Errorf("op %s has a histogram without a distribution printed", op.Name)
		}
	}
	if !hasDeviation(r, "--hide-histogram") {
		t.Errorf("deviations %q", r.Deviations)
	}
}

// The JSON (--json-out-file) and the text of the same run.
func TestMemtierJSON(t *testing.T) {
	r := mtOne(t, "mt23-json.json")
	s := r.Summary
	eq(t, "clients", r.Clients, 10)                            // lines 58-59: Threads 2, Connections per thread 5
	eq(t, "set count", mtOp(t, r, "set").Count, int64(22347))  // line 72
	eq(t, "get count", mtOp(t, r, "get").Count, int64(223412)) // line 147
	eq(t, "transactions", s.Transactions, int64(245759))       // line 269, Totals Count
	eq(t, "throughput", s.Throughput, 81896.84)                // line 270
	eq(t, "duration", r.Duration, 3001*time.Millisecond)       // line 67
	eq(t, "start", r.StartedAt.UnixMilli(), int64(1795617167899))
	// line 277: Accumulated Latency 29672 ms over 245759 operations
	near(t, "mean µs", s.LatencyMean, 29672e3/245759, 1e-9)
	eq(t, "min", s.LatencyMin, 16.0) // line 278
	// lines 335-336, Totals Percentile Latencies: p50 0.063, p99 1.663 ms
	near(t, "p50", s.P50, 63, 0.5)
	near(t, "p99", s.P99, 1663, 1663*0.001)
	near(t, "max", s.Max, 8127, 8127*0.001)                // line 279
	eq(t, "hits/s", s.Extra["hits_per_sec"], 74.65)        // line 271
	eq(t, "misses/s", s.Extra["misses_per_sec"], 74375.27) // line 272
	eq(t, "KB/s", s.Extra["kb_per_sec"], 3476.32)          // line 280; 573.67 + 2902.65 (lines 83, 158)
	eq(t, "KB/s rx", s.Extra["kb_per_sec_rx"], 402.37)
	// memtier's own histogram: as many latencies as the Count.
	n, _, _ := opHist(t, mtOp(t, r, "get"))
	eq(t, "get histogram", n, int64(223412))
	// configuration (lines 2-56)
	want := map[string]any{"ratio": "1:10", "pipeline": int64(1), "data_size": int64(32), "key_pattern": "R:R",
		"key_minimum": int64(0), "key_maximum": int64(10000000), "key_prefix": "memtier-"}
	for k, v := range want {
		eq(t, "param "+k, params.Format(r.Params[k]), params.Format(v))
	}
	if _, ok := r.Params["requests"]; ok {
		t.Errorf("requests recorded for a --test-time run")
	}
	// The series: second "0" has 84426 operations (line 289).
	if len(r.Series) != 4 {
		t.Fatalf("series %d points, want 4", len(r.Series))
	}
	eq(t, "series t", r.Series[0].Second, 1)
	eq(t, "series ops", r.Series[0].Ops, int64(84426))
	var sum int64
	for _, p := range r.Series {
		sum += p.Ops
	}
	eq(t, "series total", sum, int64(245759))
	if !hasDeviation(r, "truncated to whole milliseconds") {
		t.Errorf("deviations %q", r.Deviations)
	}

	// The text of the same run reads the same counts and rates.
	txt := mtOne(t, "mt23-json.txt")
	eq(t, "text transactions", txt.Summary.Transactions, s.Transactions)
	eq(t, "text set", mtOp(t, txt, "set").Count, mtOp(t, r, "set").Count)
	eq(t, "text throughput", txt.Summary.Throughput, s.Throughput)
	eq(t, "text p99", txt.Summary.P99, 1663.0) // mt23-json.txt line 19
}

// SET only, pipeline 16, p95 asked for (--print-percentiles=50,95,99,99.9).
func TestMemtierSetOnlyPipeline(t *testing.T) {
	for _, f := range []string{"mt23-set-only-pipeline16.json", "mt23-set-only-pipeline16.txt"} {
		r := mtOne(t, f)
		eq(t, f+" ops", mtOpNames(r), "set")                      // the Gets row has 0.00 ops/sec
		eq(t, f+" count", r.Summary.Transactions, int64(1399056)) // json line 72; txt line 5's last progress line
		eq(t, f+" throughput", r.Summary.Throughput, 466273.04)   // json line 73; txt line 19
		eq(t, f+" clients", r.Clients, 4)
		// txt line 19: p50 0.127, p95 0.207, p99 0.327
		near(t, f+" p95", r.Summary.P95, 207, 0.5)
		near(t, f+" p99", r.Summary.P99, 327, 0.5)
		eq(t, f+" KB/s", r.Summary.Extra["kb_per_sec"], 66429.77)
	}
	r := mtOne(t, "mt23-set-only-pipeline16.json")
	eq(t, "pipeline", r.Params["pipeline"], any(int64(16)))
	eq(t, "ratio", r.Params["ratio"], any("1:0"))
	eq(t, "data size", r.Params["data_size"], any(int64(100)))
	near(t, "mean", r.Summary.LatencyMean, 185549e3/1399056, 1e-9) // line 256
	eq(t, "json p95 from memtier's series field", r.Series[0].P95 > 0, true)
}

// GET-heavy over a half-prefilled key range: hits and misses.
func TestMemtierGetHeavyMisses(t *testing.T) {
	j := mtOne(t, "mt23-get-heavy-misses.json")
	eq(t, "gets", mtOp(t, j, "get").Count, int64(204207))         // line 140
	eq(t, "hits/s", j.Summary.Extra["hits_per_sec"], 64731.66)    // line 264
	eq(t, "misses/s", j.Summary.Extra["misses_per_sec"], 3308.60) // line 265
	eq(t, "key range", params.Format(j.Params["key_minimum"])+"-"+params.Format(j.Params["key_maximum"]), "1-2000")
	x := mtOne(t, "mt23-get-heavy-misses.txt")
	// line 17: Gets 68040.26 ops/sec, 64731.66 hits, 3308.60 misses
	eq(t, "text hits/s", x.Summary.Extra["hits_per_sec"], 64731.66)
	eq(t, "text misses/s", x.Summary.Extra["misses_per_sec"], 3308.60)
	eq(t, "text gets", mtOp(t, x, "get").Count, int64(204207))
}

// --command="INCR __key__": the op is the command's name; Totals KB/sec
// counts the bytes twice.
func TestMemtierCommand(t *testing.T) {
	for _, f := range []string{"mt23-command-incr.json", "mt23-command-incr.txt"} {
		r := mtOne(t, f)
		eq(t, f+" ops", mtOpNames(r), "incr")
		eq(t, f+" count", r.Summary.Transactions, int64(233752)) // json line 72; txt line 8
		eq(t, f+" throughput", r.Summary.Throughput, 77895.13)   // json line 73; txt line 16
		// txt line 16: Incrs 2846.46 KB/sec; line 17: Totals 5692.93, twice that
		eq(t, f+" KB/s", r.Summary.Extra["kb_per_sec"], 2846.46)
		if _, ok := r.Summary.Extra["hits_per_sec"]; ok {
			t.Errorf("%s: hits for INCR", f)
		}
		if !hasDeviation(r, "counts the commands' bytes twice") {
			t.Errorf("%s: deviations %q", f, r.Deviations)
		}
		if _, ok := r.Params["ratio"]; ok {
			t.Errorf("%s: the ratio a --command run does not use was recorded", f)
		}
		err := completeMemtier(r)
		if err == nil || !strings.Contains(err.Error(), "--set command=") {
			t.Errorf("%s: complete without the command: %v", f, err)
		}
		r.Params["command"] = "INCR __key__"
		r.Params["pipeline"] = int64(1)
		if err := completeMemtier(r); err != nil {
			t.Errorf("%s: %v", f, err)
		}
	}
}

// --requests: the text's counts follow from requests × connections.
func TestMemtierRequests(t *testing.T) {
	j := mtOne(t, "mt23-requests.json")
	eq(t, "requests", j.Params["requests"], any(int64(5000))) // line 20
	eq(t, "count", j.Summary.Transactions, int64(50000))      // line 182
	eq(t, "duration", j.Duration, 614*time.Millisecond)       // line 67
	x := mtOne(t, "mt23-requests.txt")
	eq(t, "text requests", x.Params["requests"], any(int64(5000))) // line 9: 5000 Requests per client
	eq(t, "text count", x.Summary.Transactions, int64(50000))

	// Without stderr's progress line the total is requests × connections.
	b, _ := os.ReadFile(filepath.Join("testdata", mtDir, "mt23-requests.txt"))
	stdout := memtierStdoutOnly(string(b))
	_, runs, err := parse("stdout.txt", stdout)
	if err != nil {
		t.Fatal(err)
	}
	eq(t, "stdout count", runs[0].Summary.Transactions, int64(50000)) // 5000 × 2 × 5
	if !hasDeviation(runs[0], "requests × connections") {
		t.Errorf("deviations %q", runs[0].Deviations)
	}
}

// memtierStdoutOnly drops stderr's lines from a 2>&1 capture.
func memtierStdoutOnly(text string) string {
	l := memtierLines("x", text)
	var out []string
	for _, s := range l.ls {
		t := strings.TrimSpace(s)
		if strings.HasPrefix(t, "[RUN #") || memtierStderr.MatchString(t) {
			continue
		}
		out = append(out, s)
	}
	return strings.Join(out, "\n")
}

// Without progress lines a --test-time run's counts are rate × test time.
func TestMemtierStdoutOnlyTestTime(t *testing.T) {
	b, _ := os.ReadFile(filepath.Join("testdata", mtDir, "mt23-default.txt"))
	_, runs, err := parse("stdout.txt", memtierStdoutOnly(string(b)))
	if err != nil {
		t.Fatal(err)
	}
	r := runs[0]
	eq(t, "duration", r.Duration, 3*time.Second) // line 8: 3 Seconds
	near(t, "count", float64(r.Summary.Transactions), 62495.17*3, 2)
	if !hasDeviation(r, "configured --test-time") {
		t.Errorf("deviations %q", r.Deviations)
	}
}

// --run-count=2 without --print-all-runs: the aggregate, counts summed.
func TestMemtierRunCountAggregate(t *testing.T) {
	j := mtOne(t, "mt23-run-count-2.json")
	eq(t, "sets", mtOp(t, j, "set").Count, int64(20857))  // line 3030
	eq(t, "gets", mtOp(t, j, "get").Count, int64(208515)) // line 3057
	eq(t, "count", j.Summary.Transactions, int64(229372)) // line 3111
	eq(t, "throughput", j.Summary.Throughput, 57334.43)   // line 3112: the mean of the runs' rates
	near(t, "duration", j.Duration.Seconds(), 229372/57334.43, 1e-6)
	// lines 3038, 3065: 1455 + 14271 ms accumulated (Totals says 0, line 3119)
	near(t, "mean", j.Summary.LatencyMean, (1455+14271)*1e3/229372.0, 1e-9)
	if j.Summary.P50 < 10 {
		t.Errorf("p50 %v: the aggregate's empty Totals histogram was used", j.Summary.P50)
	}
	eq(t, "run count", j.Env.Extra["tool"].(map[string]any)["run_count"], any(int64(2)))
	if !hasDeviation(j, "AGGREGATED AVERAGE") || !hasDeviation(j, "run 1 as both") {
		t.Errorf("deviations %q", j.Deviations)
	}
	if len(j.Series) != 0 {
		t.Errorf("the aggregate has no series, got %d points", len(j.Series))
	}

	x := mtOne(t, "mt23-run-count-2.txt")
	// lines 8 and 14 (the two runs' last progress lines): 128196 + 101176
	eq(t, "text count", x.Summary.Transactions, int64(128196+101176))
	eq(t, "text throughput", x.Summary.Throughput, 57334.43) // AGGREGATED Totals row
	eq(t, "text hits/s", x.Summary.Extra["hits_per_sec"], 8.00)
}

// --print-all-runs: each run is imported with its own numbers.
func TestMemtierRunCountAllRuns(t *testing.T) {
	for _, f := range []string{"mt23-run-count-2-all-runs.json", "mt23-run-count-2-all-runs.txt"} {
		runs := mtRuns(t, f)
		if len(runs) != 2 {
			t.Fatalf("%s: %d runs, want 2", f, len(runs))
		}
		// txt line 23 / 333: Totals 35044.04 and 27838.31 ops/sec
		eq(t, f+" run 1", runs[0].Summary.Throughput, 35044.04)
		eq(t, f+" run 2", runs[1].Summary.Throughput, 27838.31)
		eq(t, f+" run 1 count", runs[0].Summary.Transactions, int64(70103))
		eq(t, f+" run 2 count", runs[1].Summary.Transactions, int64(55682)) // txt line 14
		if !hasDeviation(runs[1], "--print-all-runs") {
			t.Errorf("%s: deviations %q", f, runs[1].Deviations)
		}
	}
}

// The defects the parser works around, asserted on memtier's real output:
// BEST and WORST RUN are both run 1, the aggregate's per-command histograms
// are the runs' pooled ones, and the aggregate's Totals histogram is empty.
func TestMemtierAggregateDefects(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("testdata", mtDir, "mt23-run-count-2-all-runs.json"))
	if err != nil {
		t.Fatal(err)
	}
	var d map[string]map[string]json.RawMessage
	if err := json.Unmarshal(b, &d); err != nil {
		t.Fatal(err)
	}
	get := func(sec, op string) (int64, *hdr.Histogram) {
		var o memtierJSONOp
		if err := json.Unmarshal(d[sec][op], &o); err != nil {
			t.Fatal(err)
		}
		raw := o.Percentiles["Histogram log format"]
		var f struct {
			C string `json:"Compressed Histogram"`
		}
		if err := json.Unmarshal(raw, &f); err != nil {
			t.Fatal(err)
		}
		h, err := hist.Decode([]byte(f.C))
		if err != nil {
			t.Fatal(err)
		}
		return *o.Count, h
	}
	n1, _ := get("RUN #1 RESULTS", "Totals")
	n2, _ := get("RUN #2 RESULTS", "Totals")
	best, _ := get("BEST RUN RESULTS", "Totals")
	worst, _ := get("WORST RUN RESULTS", "Totals")
	if n1 == n2 || best != n1 || worst != n1 {
		t.Errorf("runs %d and %d, best %d, worst %d: memtier's BEST/WORST defect is not what the parser assumes", n1, n2, best, worst)
	}
	const agg = "AGGREGATED AVERAGE RESULTS (2 runs)"
	for _, op := range []string{"Sets", "Gets"} {
		_, h1 := get("RUN #1 RESULTS", op)
		_, h2 := get("RUN #2 RESULTS", op)
		_, ha := get(agg, op)
		h1.Merge(h2)
		if !h1.Equals(ha) {
			t.Errorf("%s: the aggregate's histogram is not the runs' pooled one", op)
		}
	}
	if _, h := get(agg, "Totals"); h.TotalCount() != 0 {
		t.Errorf("the aggregate's Totals histogram holds %d latencies: memtier fixed it?", h.TotalCount())
	}
}

// stderr's "Saving JSON output file" lands inside a stdout line (2>&1): the
// line is joined again.
func TestMemtierSplicedStderr(t *testing.T) {
	b, _ := os.ReadFile(filepath.Join("testdata", mtDir, "mt23-json.txt"))
	l := memtierLines("x", string(b))
	for i, s := range l.ls {
		if l.no[i] == 270 {
			// lines 270-272: "GET       4.991    Saving JSON output file: ...",
			// "Json file closed.", "   99.932"
			eq(t, "joined", strings.Join(strings.Fields(s), " "), "GET 4.991 99.932")
			eq(t, "next", l.no[i+1], 273)
			return
		}
	}
	t.Fatal("line 270 not found")
}

// A JSON whose configuration holds a password (--authenticate, --uri) keeps
// it out of the run.
func TestMemtierJSONPasswordNotStored(t *testing.T) {
	b, _ := os.ReadFile(filepath.Join("testdata", mtDir, "mt23-json.json"))
	text := strings.Replace(string(b), `"authenticate": ""`, `"authenticate": "default:s3cret"`, 1)
	text = strings.Replace(text, `"uri": ""`, `"uri": "redis://default:s3cret@127.0.0.1:6391"`, 1)
	if !strings.Contains(text, "s3cret") {
		t.Fatal("fixture changed: no authenticate field")
	}
	_, runs, err := parse("pw.json", text)
	if err != nil {
		t.Fatal(err)
	}
	out, _ := json.Marshal(runs)
	if strings.Contains(string(out), "s3cret") {
		t.Fatalf("password stored: %s", out)
	}
}

// Damaged and truncated outputs fail with the file and line.
func TestMemtierBadInput(t *testing.T) {
	read := func(f string) string {
		b, err := os.ReadFile(filepath.Join("testdata", mtDir, f))
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	cut := func(text string, lines int) string {
		ls := strings.SplitAfter(text, "\n")
		return strings.Join(ls[:lines], "")
	}
	def := read("mt23-default.txt")
	for _, tc := range []struct {
		name, text, want string
	}{
		// cut inside GET's distribution, at a line break (line 200 of 328)
		{"dist.txt", cut(def, 200), "dist.txt:200: the latency distribution of GET ends at"},
		// cut mid-line
		{"mid.txt", def[:strings.Index(def, "Totals")+20], "mid.txt:18: "},
		// cut inside the table, before Totals (lines 1-16)
		{"table.txt", cut(def, 16), "table.txt:16: no Totals row of ALL STATS"},
		// the header lines only
		{"head.txt", cut(def, 9), "head.txt:8: no memtier_benchmark results"},
		// an unreadable number in the table (line 15)
		{"num.txt", strings.Replace(def, "Sets         5682.74", "Sets         5682,74", 1), "num.txt:15: Ops/sec"},
		// a row with a missing column (line 16)
		{"row.txt", strings.Replace(def, "       3.33     56809.09         0.15853", "       3.33     0.15853", 1), "row.txt:16: table row with 8 fields"},
		// the JSON cut short
		{"cut.json", cut(read("mt23-json.json"), 300), "cut.json:300: memtier JSON ends at byte 7480 before its JSON document closes: the output is truncated"},
		// two outputs in one file
		{"two.txt", def + def, "two.txt:"},
	} {
		_, _, err := parse(tc.name, tc.text)
		if err == nil {
			t.Errorf("%s: accepted", tc.name)
			continue
		}
		if !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want %q", tc.name, err, tc.want)
		}
		var pe *ParseError
		if !errors.As(err, &pe) || pe.File != tc.name {
			t.Errorf("%s: %v is not located in the file", tc.name, err)
		}
	}
}

// What import must be told: the text lacks pipeline and value size.
func TestMemtierComplete(t *testing.T) {
	x := mtOne(t, "mt23-default.txt")
	err := completeMemtier(x)
	if err == nil || !strings.Contains(err.Error(), "--pipeline") || !strings.Contains(err.Error(), "--data-size") {
		t.Fatalf("complete: %v", err)
	}
	x.Params["pipeline"], x.Params["data_size"] = int64(1), int64(32)
	if err := completeMemtier(x); err != nil {
		t.Fatal(err)
	}
	if err := completeMemtier(mtOne(t, "mt23-json.json")); err != nil {
		t.Fatalf("the JSON records pipeline and size: %v", err)
	}
}

// A study cell's JSON replaces the run read from its text.
func TestMemtierAttachLogDir(t *testing.T) {
	dir := t.TempDir()
	b, _ := os.ReadFile(filepath.Join("testdata", mtDir, "mt23-json.json"))
	if err := os.WriteFile(filepath.Join(dir, memtierJSONFile), b, 0o644); err != nil {
		t.Fatal(err)
	}
	runs := mtRuns(t, "mt23-json.txt")
	if err := attachMemtierLogDir(runs, dir); err != nil {
		t.Fatal(err)
	}
	eq(t, "series from the JSON", len(runs[0].Series), 4)
	eq(t, "exact min", runs[0].Summary.LatencyMin, 16.0)
	// The JSON of another run does not attach.
	other := mtRuns(t, "mt23-default.txt")
	if err := attachMemtierLogDir(other, dir); err == nil {
		t.Fatal("the JSON of another run was attached")
	}
	if err := attachMemtierLogDir(mtRuns(t, "mt23-json.txt"), t.TempDir()); err == nil {
		t.Fatal("no JSON, no error")
	}
}

func kvValues(t *testing.T, set map[string]any) params.Values {
	t.Helper()
	v := params.Values{}
	for k, x := range set {
		spec, ok := params.Find(kvparams.Specs(), k)
		if !ok {
			t.Fatalf("no kv parameter %s", k)
		}
		c, err := params.Coerce(spec, x)
		if err != nil {
			t.Fatal(err)
		}
		v[k] = c
	}
	return params.WithDefaults(kvparams.Specs(), v)
}
