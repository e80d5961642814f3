package adapter

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	hdr "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/fairbench/fairbench/internal/hist"
	"github.com/fairbench/fairbench/internal/result"
)

// Java YCSB 0.17 reports (testdata/ycsb/ycsb017-*, each .cmd says how it was
// made). As in adapter_test.go, every expected value was read off the fixture
// text by hand.

func decodeOp(t *testing.T, op result.Op) *hdr.Histogram {
	t.Helper()
	if op.Histogram == nil {
		t.Fatalf("op %s has no histogram", op.Name)
	}
	h, err := hist.Decode(op.Histogram)
	if err != nil {
		t.Fatal(err)
	}
	return h
}

func ycsbEnv(r *result.Run) map[string]any { return r.Env.Extra["ycsb"].(map[string]any) }

func TestYCSBJavaDefaultWithStatusLines(t *testing.T) {
	tool, runs := parseFile(t, "ycsb/ycsb017-basicdb-workloada-status.txt")
	eq(t, "tool", tool.Name, "ycsb")
	r := runs[0]
	eq(t, "source", r.Source, "ycsb")
	eq(t, "kind", r.Kind, "ycsb")
	eq(t, "workload", r.Workload, "ycsb")
	eq(t, "version", r.ToolVersion, "YCSB 0.17.0")
	// Command line: ... -threads 4 -s
	eq(t, "clients", r.Clients, 4)
	eq(t, "readproportion", r.Params["readproportion"], any(0.5))
	eq(t, "requestdistribution", r.Params["requestdistribution"], any("zipfian"))
	eq(t, "recordcount", r.Params["recordcount"], any(int64(1000)))
	if _, ok := r.Params["workload"]; ok {
		t.Errorf("workload param from YCSB's workload class: %v", r.Params["workload"])
	}
	eq(t, "db", ycsbEnv(r)["db"], any("site.ycsb.BasicDB"))
	eq(t, "measurementtype", ycsbEnv(r)["measurementtype"], any("hdrhistogram"))
	// [OVERALL], RunTime(ms), 5473 / Throughput(ops/sec), 1827.151470856934
	near(t, "duration", r.Duration.Seconds(), 5.473, 1e-9)
	near(t, "throughput", r.Summary.Throughput, 1827.151470856934, 1e-9)
	// READ 4942 + UPDATE 5058; CLEANUP (4) is not an operation.
	eq(t, "transactions", r.Summary.Transactions, int64(10000))
	eq(t, "failed", r.Summary.Failed, int64(0))
	eq(t, "ops", len(r.Ops), 2)
	eq(t, "op 0", r.Ops[0].Name, "READ")
	eq(t, "op 1", r.Ops[1].Name, "UPDATE")
	eq(t, "READ count", r.Ops[0].Count, int64(4942))
	near(t, "mean", r.Summary.LatencyMean, (4942*1911.622622420073+5058*1911.8092131277185)/10000, 1e-9)
	near(t, "min", r.Summary.LatencyMin, 0, 0)
	near(t, "max (READ's MaxLatency)", r.Summary.Max, 14615, 0)
	// READ: 95th 4127, 99th 7039, max 14615.
	h := decodeOp(t, r.Ops[0])
	eq(t, "READ hist count", h.TotalCount(), int64(4942))
	near(t, "READ p95", float64(h.ValueAtQuantile(95)), 4127, 4127*0.001)
	near(t, "READ p99", float64(h.ValueAtQuantile(99)), 7039, 7039*0.001)
	near(t, "READ max", float64(h.Max()), 14615, 14615*0.001)
	// UPDATE: 99th 6779
	near(t, "UPDATE p99", float64(decodeOp(t, r.Ops[1]).ValueAtQuantile(99)), 6779, 6779*0.001)
	// YCSB printed no median: the summary does not invent one.
	eq(t, "p50", r.Summary.P50, 0.0)
	if !hasDeviation(r, "did not print p50") || !hasDeviation(r, "reconstructed") {
		t.Errorf("deviations: %v", r.Deviations)
	}
	// Seven status lines: the first (0 sec, 294 operations) opens the series.
	if len(r.Series) != 6 {
		t.Fatalf("series: %d points, want 6", len(r.Series))
	}
	// 13:32:51:305, 0.729 s after the first: 1890 operations; 1596 current ops/sec
	// [READ: Count=810, Max=8663, ..., Avg=1780.22] [UPDATE: Count=757, Max=12639, ..., Avg=1795.22]
	p := r.Series[0]
	eq(t, "s0.t", p.Second, 1)
	eq(t, "s0.ops", p.Ops, int64(1890-294))
	near(t, "s0.rate", p.Rate, 1596, 1e-9)
	near(t, "s0.mean", p.Mean, (810*1780.22+757*1795.22)/(810+757), 1e-9)
	near(t, "s0.max", p.Max, 12639, 0)
	// 13:32:55:782, 5.206 s after the first: 10000 operations; 320.68 current ops/sec
	last := r.Series[5]
	eq(t, "s5.t", last.Second, 6)
	eq(t, "s5.ops", last.Ops, int64(10000-9848))
	near(t, "s5.rate", last.Rate, 320.68, 1e-9)
}

func TestYCSBJavaLoad(t *testing.T) {
	r := one(t, "ycsb/ycsb017-basicdb-load.txt")
	eq(t, "workload", r.Workload, "ycsb-load")
	eq(t, "phase", ycsbEnv(r)["phase"], any("load"))
	eq(t, "clients", r.Clients, 2)
	eq(t, "ops", len(r.Ops), 1)
	eq(t, "op", r.Ops[0].Name, "INSERT")
	eq(t, "inserts", r.Summary.Transactions, int64(4000))
	near(t, "throughput", r.Summary.Throughput, 3375.5274261603377, 1e-9)
	near(t, "duration", r.Duration.Seconds(), 1.185, 1e-9)
	near(t, "mean", r.Summary.LatencyMean, 555.568, 1e-9)
	near(t, "p99", r.Summary.P99, 1387, 1387*0.001)
	if len(r.Series) != 0 {
		t.Errorf("series without -s: %v", r.Series)
	}
}

func TestYCSBJavaHistogramBucketsStdoutOnly(t *testing.T) {
	r := one(t, "ycsb/ycsb017-basicdb-histogram-verbose-stdout.txt")
	// stdout only: no Command line, so no threads (import asks for --clients).
	eq(t, "clients", r.Clients, 0)
	eq(t, "version", r.ToolVersion, "YCSB (Java)")
	eq(t, "measurementtype", ycsbEnv(r)["measurementtype"], any("histogram"))
	near(t, "throughput", r.Summary.Throughput, 1233.4258402713538, 1e-9)
	eq(t, "transactions", r.Summary.Transactions, int64(1995+2005))
	// READ buckets 0:481 1:525 2:504 3:481 4:4, MaxLatency 4954: each bucket at
	// its upper edge, so the median (rank 998 of 1995) is in bucket 1, at 2 ms.
	h := decodeOp(t, r.Ops[0])
	eq(t, "READ count", h.TotalCount(), int64(1995))
	near(t, "READ p50", float64(h.ValueAtQuantile(50)), 2000, 2)
	near(t, "READ max (bucket 4 capped at MaxLatency)", float64(h.Max()), 4954, 4954*0.001)
	near(t, "READ min (bucket 0 at its upper edge)", float64(h.Min()), 1000, 1)
	// UPDATE: ... 4:2 5:1, MaxLatency 5386.
	near(t, "UPDATE max", float64(decodeOp(t, r.Ops[1]).Max()), 5386, 5386*0.001)
	// Merged: 3993 of 4000 at or below 4 ms: p95 and p99 at 4 ms.
	near(t, "p95", r.Summary.P95, 4000, 4)
	near(t, "p99", r.Summary.P99, 4000, 4)
	near(t, "max", r.Summary.Max, 5386, 0)
	if !hasDeviation(r, "1 ms buckets") || hasDeviation(r, "did not print") {
		t.Errorf("deviations: %v", r.Deviations)
	}
}

func TestYCSBJavaTimeseries(t *testing.T) {
	r := one(t, "ycsb/ycsb017-basicdb-timeseries.txt")
	eq(t, "measurementtype", ycsbEnv(r)["measurementtype"], any("timeseries"))
	for _, op := range r.Ops {
		if op.Histogram != nil {
			t.Errorf("%s: a histogram from a format without a distribution", op.Name)
		}
	}
	eq(t, "READ", r.Ops[0].Count, int64(2972))
	eq(t, "UPDATE", r.Ops[1].Count, int64(3028))
	near(t, "mean", r.Summary.LatencyMean, (2972*1604.9687079407806+3028*1620.4481505944518)/6000, 1e-9)
	near(t, "max", r.Summary.Max, 13106, 0)
	eq(t, "p99", r.Summary.P99, 0.0)
	if !hasDeviation(r, "no latency distribution") {
		t.Errorf("deviations: %v", r.Deviations)
	}
	// Each status line is in the file twice (stdout and stderr): 4 lines, 3 points.
	if len(r.Series) != 3 {
		t.Fatalf("series: %d points, want 3", len(r.Series))
	}
	eq(t, "s0.ops", r.Series[0].Ops, int64(2378-215))
	near(t, "s0.rate", r.Series[0].Rate, 2160.84, 1e-9)
	eq(t, "s2.ops", r.Series[2].Ops, int64(6000-4892))
	eq(t, "s2.t", r.Series[2].Second, 3) // 13:33:18:452 is 2.4 s after 13:33:16:052
}

func TestYCSBJavaFailures(t *testing.T) {
	r := one(t, "ycsb/ycsb017-failures-percentiles.txt")
	eq(t, "clients", r.Clients, 3)
	eq(t, "requestdistribution", r.Params["requestdistribution"], any("uniform"))
	// [READ] Return=OK 1463, Return=NOT_FOUND 29; [UPDATE] Return=OK 1358, Return=ERROR 150.
	eq(t, "READ", r.Ops[0].Name, "READ")
	eq(t, "READ ok", r.Ops[0].Count, int64(1463))
	eq(t, "READ errors", r.Ops[0].Errors[result.ErrOther], int64(29))
	var upd result.Op
	for _, op := range r.Ops {
		if op.Name == "UPDATE" {
			upd = op
		}
		if strings.HasSuffix(op.Name, "-FAILED") {
			t.Errorf("failed-latency block %s taken for an operation", op.Name)
		}
	}
	eq(t, "UPDATE ok", upd.Count, int64(1358))
	eq(t, "UPDATE errors", upd.Errors[result.ErrOther], int64(150))
	eq(t, "failed", r.Summary.Failed, int64(179))
	eq(t, "op errors", r.TotalErrors(), int64(179))
	// Throughput(ops/sec) 1935.483870967742 over RunTime 1550 ms counts 3000
	// operations, the 179 failed ones included.
	eq(t, "transactions", r.Summary.Transactions, int64(3000-179))
	near(t, "throughput (successful)", r.Summary.Throughput, 2821/1.55, 1e-9)
	near(t, "YCSB's own", ycsbEnv(r)["overall_throughput"].(float64), 1935.483870967742, 1e-9)
	if !hasDeviation(r, "successful operations only") {
		t.Errorf("deviations: %v", r.Deviations)
	}
	rets := ycsbEnv(r)["returns"].(map[string]any)
	eq(t, "NOT_FOUND", rets["READ"].(map[string]any)["NOT_FOUND"], any(int64(29)))
	// hdrhistogram.percentiles=50,90,95,99,99.9: READ 50th 1099, 90th 2233, 99.9 20255.
	h := decodeOp(t, r.Ops[0])
	near(t, "READ p50", float64(h.ValueAtQuantile(50)), 1099, 1099*0.001)
	near(t, "READ p90", float64(h.ValueAtQuantile(90)), 2233, 2233*0.001)
	near(t, "READ p99.9", float64(h.ValueAtQuantile(99.9)), 20255, 20255*0.001)
	// Merged median: between READ's 1099 and UPDATE's 1103.
	if r.Summary.P50 < 1099*0.999 || r.Summary.P50 > 1103*1.001 {
		t.Errorf("p50 = %v, want within READ's and UPDATE's medians", r.Summary.P50)
	}
	if hasDeviation(r, "did not print") {
		t.Errorf("every summary percentile was printed, yet: %v", r.Deviations)
	}
	// Status lines: 1 sec: 1594 operations; 1263 current ops/sec, UPDATE-FAILED Count=53, READ-FAILED Count=10.
	if len(r.Series) != 2 {
		t.Fatalf("series: %d points", len(r.Series))
	}
	eq(t, "s0.errors", r.Series[0].Errors, int64(53+10))
	eq(t, "s0.ops", r.Series[0].Ops, int64(1594-331-63))
	near(t, "s0.rate", r.Series[0].Rate, 1263*float64(1594-331-63)/float64(1594-331), 1e-9)
	// 3000 operations; 2561.02 current ops/sec, UPDATE-FAILED Count=70, READ-FAILED Count=13.
	eq(t, "s1.errors", r.Series[1].Errors, int64(70+13))
	near(t, "s1.rate", r.Series[1].Rate, 2561.02*float64(3000-1594-83)/float64(3000-1594), 1e-9)
}

func TestYCSBJavaOperationWithoutSuccess(t *testing.T) {
	r := one(t, "ycsb/ycsb017-all-updates-fail.txt")
	// [UPDATE], Operations, 0 / AverageLatency(us), NaN / Return=ERROR, 100
	var upd *result.Op
	for i := range r.Ops {
		if r.Ops[i].Name == "UPDATE" {
			upd = &r.Ops[i]
		}
	}
	if upd == nil {
		t.Fatalf("no UPDATE op: %v", r.Ops)
	}
	eq(t, "UPDATE ok", upd.Count, int64(0))
	eq(t, "UPDATE errors", upd.Errors[result.ErrOther], int64(100))
	if upd.Histogram != nil {
		t.Error("histogram for an operation that never succeeded")
	}
	eq(t, "transactions", r.Summary.Transactions, int64(100))
	near(t, "throughput", r.Summary.Throughput, 100/0.289, 1e-9)
	near(t, "mean (READ's)", r.Summary.LatencyMean, 0.22, 1e-9)
	near(t, "max (READ's)", r.Summary.Max, 12, 0)
}

func TestYCSBJavaHdrAndHistogram(t *testing.T) {
	r := one(t, "ycsb/ycsb017-basicdb-hdr-and-histogram.txt")
	eq(t, "ops", len(r.Ops), 2)
	eq(t, "READ (from HdrREAD)", r.Ops[0].Name, "READ")
	eq(t, "READ count", r.Ops[0].Count, int64(996))
	eq(t, "UPDATE count", r.Ops[1].Count, int64(1004))
	near(t, "max (HdrREAD's, not BucketREAD's 31927)", r.Summary.Max, 31935, 0)
	// HdrREAD 99th 5447
	near(t, "READ p99", float64(decodeOp(t, r.Ops[0]).ValueAtQuantile(99)), 5447, 5447*0.001)
	// The status lines go on after a newline: "[BucketREAD ...] [HdrUPDATE: Count=938, ...".
	if len(r.Series) != 1 {
		t.Fatalf("series: %v", r.Series)
	}
	eq(t, "s0.ops", r.Series[0].Ops, int64(2000-102))
	near(t, "s0.mean", r.Series[0].Mean, (944*1796.92+938*1721.4)/(944+938), 1e-9)
	near(t, "s0.max", r.Series[0].Max, 31935, 0)
}

func TestYCSBJavaIntendedAndTarget(t *testing.T) {
	r := one(t, "ycsb/ycsb017-basicdb-intended-both.txt")
	eq(t, "ops", len(r.Ops), 2)
	eq(t, "READ", r.Ops[0].Count, int64(984))
	near(t, "target", r.Summary.TargetRate, 1000, 0)
	near(t, "max (service time, not Intended-READ's 64991)", r.Summary.Max, 15983, 0)
	in := ycsbEnv(r)["intended"].(map[string]any)["READ"].(map[string]any)
	near(t, "intended READ mean", in["AverageLatency(us)"].(float64), 18178.82825203252, 1e-9)
}

func TestYCSBJavaWorkloadFileAndMaxExecutionTime(t *testing.T) {
	r := one(t, "ycsb/ycsb017-workloada-maxexecutiontime.txt")
	// -P workloads/workloada -threads 2
	eq(t, "workload", r.Params["workload"], any("a"))
	eq(t, "clients", r.Clients, 2)
	eq(t, "stopped by", ycsbEnv(r)["stopped_by"], any("maxexecutiontime"))
	eq(t, "transactions", r.Summary.Transactions, int64(2960+2897))
	if len(r.Series) != 1 {
		t.Fatalf("series: %v", r.Series)
	}
	eq(t, "s0.t", r.Series[0].Second, 2) // 13:35:57:200 is 1.791 s after 13:35:55:409
	eq(t, "s0.ops", r.Series[0].Ops, int64(5857-244))
}

// A threadcount the output cannot show (a -P file) is not guessed.
func TestYCSBJavaThreadsUnknownWithPropertyFile(t *testing.T) {
	text := readFixture(t, "ycsb/ycsb017-workloada-maxexecutiontime.txt")
	text = strings.Replace(text, " -threads 2 -s", " -s", 1)
	_, runs, err := parse("noth.txt", text)
	if err != nil {
		t.Fatal(err)
	}
	eq(t, "clients", runs[0].Clients, 0)
}

func readFixture(t *testing.T, p string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", p))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// A truncated or damaged Java YCSB output is refused at the line where
// reading stopped, with nothing returned.
func TestYCSBJavaTruncatedAndMalformed(t *testing.T) {
	status := readFixture(t, "ycsb/ycsb017-basicdb-workloada-status.txt")
	cut := func(text string, lines int) string {
		return strings.Join(strings.SplitAfter(text, "\n")[:lines], "")
	}
	cases := []rejectCase{
		// line 47 is "[UPDATE], Return=OK, 5058"
		{"s46.txt", cut(status, 46), "s46.txt:46: no Return= lines for [UPDATE]"},
		// line 44 is "[UPDATE], MaxLatency(us), 14023"
		{"s44.txt", cut(status, 44), "s44.txt:44: [UPDATE] has no percentile lines"},
		// line 41 "[UPDATE], Operations, 5058": the only line of its block
		{"s41.txt", cut(status, 41), "s41.txt:41: [UPDATE] has no AverageLatency(us) line"},
		// READ (line 34) and CLEANUP only: 4942 of 10000 operations
		{"s40.txt", cut(status, 40), "s40.txt:40: no block for every operation (the blocks add up to 4942 operations, [OVERALL] to 10000)"},
		{"s27.txt", cut(status, 27), "s27.txt:27: no YCSB operation block"},
		{"s17.txt", cut(status, 17), "s17.txt:17: no [OVERALL], Throughput(ops/sec) line"},
		// stderr only: the report never came
		{"s16.txt", cut(status, 16), "s16.txt:16: no [OVERALL], RunTime(ms) line"},
		// line 34 "[READ], Return=OK, 4942" cut short
		{"sret.txt", strings.Replace(status, "Return=OK, 4942", "Return=OK, 494", 1), "sret.txt:34: [READ] counts 4942 operations but its Return=OK says 494"},
		// line 11, the second status line, damaged
		{"sst.txt", strings.Replace(status, "1596 current ops/sec", "1596 current ops/s", 1), "sst.txt:11: unreadable YCSB status line"},
		{"sline.txt", strings.Replace(status, "[READ], MinLatency(us), 0", "[READ] MinLatency(us) 0", 1), "sline.txt:30: unreadable line in YCSB's report"},
		{"sdup.txt", status + "[OVERALL], RunTime(ms), 5473\n", "sdup.txt:48: a second YCSB report"},
		// histogram buckets: line 20 is "[READ], 0, 481"; cut after bucket 10
		{"h30.txt", cut(readFixture(t, "ycsb/ycsb017-basicdb-histogram-verbose-stdout.txt"), 30), "h30.txt:30: [READ] histogram buckets end early"},
		// hdrhistogram.percentiles=50,90,95,99,99.9 but UPDATE lost its 99.9
		// (line 60): its block now ends on line 61
		{"p.txt", strings.Replace(readFixture(t, "ycsb/ycsb017-failures-percentiles.txt"), "[UPDATE], 99.9PercentileLatency(us), 14703\n", "", 1),
			"p.txt:61: [UPDATE] prints the percentiles 50,90,95,99, hdrhistogram.percentiles asks for 50,90,95,99,99.9"},
	}
	expectRejected(t, cases)
}
