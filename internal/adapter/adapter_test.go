package adapter

import (
	"errors"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fairbench/fairbench/internal/hist"
	"github.com/fairbench/fairbench/internal/result"
)

// The expected values in these tests were read off the fixture files by hand
// (each fixture's .cmd says how it was made), not taken from the parser.

func parseFile(t *testing.T, path string) (*Tool, []*result.Run) {
	t.Helper()
	files := readDir(t, filepath.Join("testdata", path))
	inputs, err := Group(files)
	if err != nil {
		t.Fatal(err)
	}
	if len(inputs) != 1 {
		t.Fatalf("%s: %d main outputs, want 1", path, len(inputs))
	}
	tool, runs, err := ParseInput(inputs[0])
	if err != nil {
		t.Fatal(err)
	}
	return tool, runs
}

func one(t *testing.T, path string) *result.Run {
	t.Helper()
	_, runs := parseFile(t, path)
	if len(runs) != 1 {
		t.Fatalf("%s: %d runs, want 1", path, len(runs))
	}
	return runs[0]
}

func near(t *testing.T, what string, got, want, tol float64) {
	t.Helper()
	if math.Abs(got-want) > tol {
		t.Errorf("%s = %v, want %v (±%v)", what, got, want, tol)
	}
}

func eq[T comparable](t *testing.T, what string, got, want T) {
	t.Helper()
	if got != want {
		t.Errorf("%s = %v, want %v", what, got, want)
	}
}

func opHist(t *testing.T, op result.Op) (count, p50, max int64) {
	t.Helper()
	if op.Histogram == nil {
		t.Fatalf("op %s has no histogram", op.Name)
	}
	h, err := hist.Decode(op.Histogram)
	if err != nil {
		t.Fatal(err)
	}
	return h.TotalCount(), h.ValueAtQuantile(50), h.Max()
}

func TestPgbenchPlain(t *testing.T) {
	r := one(t, "pgbench/pg15-plain.txt")
	eq(t, "source", r.Source, "pgbench")
	eq(t, "kind", r.Kind, "tpcb")
	eq(t, "mode", r.Params["mode"], any("tpcb-like"))
	eq(t, "scale", r.Params["scale"], any(int64(2)))
	eq(t, "query_mode", r.Params["query_mode"], any("simple"))
	eq(t, "vacuum", r.Params["vacuum"], any(true))
	eq(t, "clients", r.Clients, 2)
	eq(t, "threads", r.Env.Extra["tool"].(map[string]any)["threads"], any(int64(2)))
	eq(t, "duration", r.Duration.Seconds(), 3.0)
	eq(t, "transactions", r.Summary.Transactions, int64(892))
	eq(t, "failed", r.Summary.Failed, int64(0))
	near(t, "latency mean", r.Summary.LatencyMean, 6624, 0.001)
	near(t, "connect", r.Summary.ConnectTimeMean, 53.513, 1e-9)
	near(t, "tps", r.Summary.Throughput, 301.948720, 1e-9)
	eq(t, "version", r.ToolVersion, "pgbench 15.18 (Debian 15.18-0+deb12u1)")
	if r.Ops[0].Histogram != nil {
		t.Error("pgbench without -l logs prints no distribution; a histogram was invented")
	}
	if len(r.Series) != 0 {
		t.Errorf("series without -P: %v", r.Series)
	}
}

func TestPgbenchProgressAndStatements(t *testing.T) {
	r := one(t, "pgbench/pg15-select-only-P-r.txt")
	eq(t, "mode", r.Params["mode"], any("select-only"))
	eq(t, "query_mode", r.Params["query_mode"], any("prepared"))
	eq(t, "clients", r.Clients, 4)
	eq(t, "transactions", r.Summary.Transactions, int64(21924))
	near(t, "stddev", r.Summary.LatencyStddev, 901, 0.001)
	near(t, "tps", r.Summary.Throughput, 5679.579394, 1e-9)
	if len(r.Series) != 3 {
		t.Fatalf("series: %d points, want the 3 progress lines", len(r.Series))
	}
	eq(t, "series[0].t", r.Series[0].Second, 1)
	near(t, "series[0].rate", r.Series[0].Rate, 4262.0, 1e-9)
	near(t, "series[2].rate", r.Series[2].Rate, 6217.6, 1e-9)
	near(t, "series[1].mean", r.Series[1].Mean, 714, 1e-9)
	eq(t, "series[1].ops", r.Series[1].Ops, int64(5012))
	st := r.Env.Extra["statements"].([]any)
	if len(st) != 2 {
		t.Fatalf("statements: %v", st)
	}
	last := st[1].(map[string]any)
	eq(t, "statement", last["command"], any("SELECT abalance FROM pgbench_accounts WHERE aid = :aid;"))
	eq(t, "statement latency", last["latency_ms"], any(0.630))
}

func TestPgbenchRetriesAndFailures(t *testing.T) {
	r := one(t, "pgbench/pg15-tpcb-maxtries-failures.txt")
	eq(t, "clients", r.Clients, 8)
	eq(t, "max tries", r.Env.Extra["tool"].(map[string]any)["max_tries"], any(int64(5)))
	eq(t, "transactions", r.Summary.Transactions, int64(921))
	eq(t, "failed", r.Summary.Failed, int64(325))
	eq(t, "retried", r.Summary.Retried, int64(824))
	eq(t, "retries", r.Summary.Retries, int64(2312))
	eq(t, "op errors", r.TotalErrors(), int64(325))
	if len(r.Series) != 4 {
		t.Fatalf("series: %d points, want 4", len(r.Series))
	}
	eq(t, "series[0].errors", r.Series[0].Errors, int64(65))
	near(t, "series[0].rate", r.Series[0].Rate, 185.9, 1e-9)
	st := r.Env.Extra["statements"].([]any)
	branches := st[8].(map[string]any)
	eq(t, "branches failures", branches["failures"], any(int64(295)))
	eq(t, "branches retries", branches["retries"], any(int64(2074)))

	d := one(t, "pgbench/pg15-tpcb-failures-detailed.txt")
	eq(t, "failed", d.Summary.Failed, int64(201))
	eq(t, "serialization", d.Ops[0].Errors[result.ErrSerialization], int64(201))
	eq(t, "deadlock", d.Ops[0].Errors[result.ErrDeadlock], int64(0))
	eq(t, "retried", d.Summary.Retried, int64(497))
	eq(t, "retries", d.Summary.Retries, int64(1446))
	near(t, "latency (including failures)", d.Summary.LatencyMean, 27007, 0.001)
	if !hasDeviation(d, "includes failed transactions") {
		t.Errorf("latency including failures is not named: %v", d.Deviations)
	}
}

func hasDeviation(r *result.Run, s string) bool {
	for _, d := range r.Deviations {
		if strings.Contains(d, s) {
			return true
		}
	}
	return false
}

func TestPgbenchRateAndLatencyLimit(t *testing.T) {
	r := one(t, "pgbench/pg15-rate-latency-limit.txt")
	eq(t, "skipped", r.Summary.Skipped, int64(122))
	near(t, "lag mean", r.Summary.LagMean, 804, 0.001)
	near(t, "lag max", r.Summary.LagMax, 21810, 0.001)
	eq(t, "late", r.Summary.LateStarts, int64(686))
	eq(t, "latency limit", r.Env.Extra["tool"].(map[string]any)["latency_limit"], any("5ms"))
	near(t, "tps", r.Summary.Throughput, 272.351281, 1e-9)
	eq(t, "series", len(r.Series), 4)
	near(t, "series[3].rate", r.Series[3].Rate, 271.5, 1e-9)
}

func TestPgbenchLogs(t *testing.T) {
	r := one(t, "pgbench/pg15-log")
	eq(t, "transactions", r.Summary.Transactions, int64(269))
	n, _, max := opHist(t, r.Ops[0])
	// 136 + 133 log lines, all successful; latencies from 230 to 3937 µs.
	eq(t, "histogram count", n, int64(269))
	eq(t, "histogram max", max, int64(3937))
	near(t, "min", r.Summary.LatencyMin, 230, 0)
	near(t, "lag mean (from the summary)", r.Summary.LagMean, 222, 0.001)
	var ops int64
	for _, p := range r.Series {
		ops += p.Ops
	}
	eq(t, "series ops", ops, int64(269))
	if hasDeviation(r, "no latency distribution") {
		t.Errorf("the logs give the distribution, yet: %v", r.Deviations)
	}
}

func TestSysbenchIntervals(t *testing.T) {
	r := one(t, "sysbench/sb1-oltp-read-write-interval.txt")
	eq(t, "kind", r.Kind, "oltp")
	eq(t, "clients", r.Clients, 4)
	eq(t, "transactions", r.Summary.Transactions, int64(532))
	near(t, "tps", r.Summary.Throughput, 132.32, 1e-9)
	near(t, "duration", r.Duration.Seconds(), 4.0203, 1e-9)
	near(t, "min", r.Summary.LatencyMin, 3530, 1e-6)
	near(t, "avg", r.Summary.LatencyMean, 30160, 1e-6)
	near(t, "max", r.Summary.Max, 154730, 1e-6)
	near(t, "p95", r.Summary.P95, 51020, 1e-6)
	eq(t, "series", len(r.Series), 4)
	near(t, "series[0].rate", r.Series[0].Rate, 120.48, 1e-9)
	near(t, "series[3].p95", r.Series[3].P95, 61080, 1e-6)
	if r.Ops[0].Histogram != nil {
		t.Error("histogram without --histogram")
	}
	sb := r.Env.Extra["sysbench"].(map[string]any)
	eq(t, "reads", sb["queries_read"], any(int64(7448)))
}

func TestSysbenchHistogram(t *testing.T) {
	r := one(t, "sysbench/sb1-oltp-point-select-histogram.txt")
	eq(t, "transactions", r.Summary.Transactions, int64(9415))
	near(t, "tps", r.Summary.Throughput, 3008.52, 1e-9)
	near(t, "p99 (sysbench's own)", r.Summary.P99, 9910, 1e-6)
	n, _, max := opHist(t, r.Ops[0])
	// The histogram's counts add up to the 9415 events; its last bucket is 320.167 ms.
	eq(t, "histogram count", n, int64(9415))
	near(t, "histogram max", float64(max), 320167, 320167*0.001)
	near(t, "max (sysbench's own)", r.Summary.Max, 320060, 1e-6)
}

func TestFioJSON(t *testing.T) {
	r := one(t, "fio/fio333-randrw-8k-json.txt")
	eq(t, "kind", r.Kind, "fio")
	eq(t, "clients (numjobs)", r.Clients, 4)
	eq(t, "bs", r.Params["bs"], any("8k"))
	eq(t, "iodepth", r.Params["iodepth"], any(int64(32)))
	eq(t, "rwmixread", r.Params["rwmixread"], any(int64(80)))
	near(t, "iops", r.Summary.Throughput, 28728.029294+7296.271638, 1e-6)
	eq(t, "ios", r.Summary.Transactions, int64(86299+21918))
	eq(t, "ops", len(r.Ops), 2)
	eq(t, "op 0", r.Ops[0].Name, "read")
	n, p50, max := opHist(t, r.Ops[0])
	eq(t, "read count", n, int64(86299))
	near(t, "read clat p50", float64(p50), 3096.576, 3096.576*0.001)
	near(t, "read clat max", float64(max), 37931.661, 37931.661*0.001)
	fe := r.Env.Extra["fio"].(map[string]any)
	near(t, "read bw", fe["read"].(map[string]any)["bw_bytes"].(float64), 235340015, 0)
	near(t, "write lat mean", fe["write"].(map[string]any)["lat_mean_us"].(float64), 3774.931057396, 1e-6)
	near(t, "disk util", fe["disk_util"].([]map[string]any)[0]["util"].(float64), 91.424667, 1e-9)
	if !hasDeviation(r, "reconstructed") {
		t.Errorf("histogram from percentiles not named: %v", r.Deviations)
	}
}

func TestFioJSONPlusAndLogs(t *testing.T) {
	r := one(t, "fio/fio333-seqread-1m-jsonplus.txt")
	n, p50, _ := opHist(t, r.Ops[0])
	eq(t, "bins count", n, int64(1499))
	near(t, "p50", float64(p50), 28966.912, 28966.912*0.001)
	if hasDeviation(r, "reconstructed") {
		t.Errorf("json+ bins are fio's own histogram, not a reconstruction: %v", r.Deviations)
	}

	w := one(t, "fio/fio333-seqwrite-logs")
	eq(t, "clients", w.Clients, 2)
	// iops logs: job 1 760, 970; job 2 1099, 1050, 580 at ~1 s, 2 s, 3 s.
	if len(w.Series) != 3 {
		t.Fatalf("series %v", w.Series)
	}
	eq(t, "s1", w.Series[0].Ops, int64(760+1099))
	eq(t, "s2", w.Series[1].Ops, int64(970+1050))
	eq(t, "s3", w.Series[2].Ops, int64(580))
	// lat logs at ~1 s: 20707312 and 14421074 ns.
	near(t, "s1 mean", w.Series[0].Mean, (20707312.0+14421074.0)/2/1000, 1e-6)
}

func TestRedisBenchmarkDefault(t *testing.T) {
	_, runs := parseFile(t, "redis-benchmark/redis7-default-get-set.txt")
	if len(runs) != 2 {
		t.Fatalf("%d runs, want SET and GET", len(runs))
	}
	set := runs[0]
	eq(t, "command", set.Params["command"], any("SET"))
	eq(t, "kind", set.Kind, "kv")
	eq(t, "clients", set.Clients, 10)
	eq(t, "data size", set.Params["data_size"], any(int64(3)))
	eq(t, "requests", set.Summary.Transactions, int64(20000))
	near(t, "rps", set.Summary.Throughput, 19704.43, 1e-9)
	near(t, "p99", set.Summary.P99, 799, 1e-9)
	near(t, "duration", set.Duration.Seconds(), 1.01, 1e-9)
	n, p50, max := opHist(t, set.Ops[0])
	eq(t, "hist count", n, int64(20000))
	near(t, "hist p50", float64(p50), 335, 1)
	near(t, "hist max", float64(max), 4135, 4.2)
	eq(t, "GET", runs[1].Params["command"], any("GET"))
}

func TestRedisBenchmarkQuietAndCSV(t *testing.T) {
	_, q := parseFile(t, "redis-benchmark/redis7-quiet.txt")
	if len(q) != 3 {
		t.Fatalf("%d runs, want SET GET INCR", len(q))
	}
	eq(t, "INCR", q[2].Params["command"], any("INCR"))
	near(t, "INCR rps", q[2].Summary.Throughput, 16583.75, 1e-9)
	near(t, "INCR p50", q[2].Summary.P50, 183, 1e-9)
	_, c := parseFile(t, "redis-benchmark/redis7-csv.txt")
	if len(c) != 2 {
		t.Fatalf("%d runs", len(c))
	}
	near(t, "GET rps", c[1].Summary.Throughput, 28328.61, 1e-9)
	near(t, "GET p95", c[1].Summary.P95, 359, 1e-9)
	near(t, "GET max", c[1].Summary.Max, 2671, 1e-9)
}

func TestMysqlslap(t *testing.T) {
	_, runs := parseFile(t, "mysqlslap/mysqlslap-multi-concurrency.txt")
	if len(runs) != 2 {
		t.Fatalf("%d runs, want one per concurrency", len(runs))
	}
	eq(t, "clients", runs[1].Clients, 4)
	eq(t, "queries", runs[1].Summary.Transactions, int64(200))
	near(t, "qps", runs[1].Summary.Throughput, 200/0.109, 1e-9)
	near(t, "qps 1 client", runs[0].Summary.Throughput, 200/0.110, 1e-9)
}

func TestUnknownFormatListsSupported(t *testing.T) {
	_, _, err := parse("notes.txt", "hello\nworld\n")
	if err == nil || !strings.Contains(err.Error(), "notes.txt") || !strings.Contains(err.Error(), "sysbench") {
		t.Fatalf("err = %v", err)
	}
	// A HammerDB result line alone is HammerDB's, but not a whole run.
	tool, _, err := parse("hammerdb.txt", "Vuser 1:TEST RESULT : System achieved 100 NOPM from 200 PostgreSQL TPM\n")
	if tool == nil || tool.Name != "hammerdb" || err == nil || !strings.Contains(err.Error(), "Timing test period") {
		t.Fatalf("hammerdb: err = %v", err)
	}
}

// A truncated or damaged output is refused at the line where reading stopped.
func TestTruncatedAndMalformed(t *testing.T) {
	read := func(p string) string {
		b, err := os.ReadFile(filepath.Join("testdata", p))
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	cut := func(text string, lines int) string {
		ls := strings.SplitAfter(text, "\n")
		return strings.Join(ls[:lines], "")
	}
	cases := []rejectCase{
		// pg15-plain.txt: cut after line 11 ("number of transactions actually processed").
		{"pg.txt", cut(read("pgbench/pg15-plain.txt"), 11), "pg.txt:11: no \"latency average\" line"},
		// line 4 is the first progress line; damage it.
		{"pgP.txt", strings.Replace(read("pgbench/pg15-select-only-P-r.txt"), "4262.0 tps", "4262.0 tx", 1), "pgP.txt:3: unreadable pgbench progress line"},
		// a statement line cut in the middle.
		{"pgr.txt", cut(read("pgbench/pg15-select-only-P-r.txt"), 20) + "         0.630", "pgr.txt:21: unreadable statement latency line"},
		{"sb.txt", cut(read("sysbench/sb1-oltp-read-write-interval.txt"), 30), "sb.txt:30: no sysbench avg"},
		{"fio.json", cut(read("fio/fio333-randrw-8k-json.txt"), 100), "fio.json:100: fio JSON ends early"},
		{"redis.txt", cut(read("redis-benchmark/redis7-default-get-set.txt"), 40), "redis.txt:40: no summary of test SET"},
		{"slap.txt", cut(read("mysqlslap/mysqlslap-autogen.txt"), 4), "slap.txt:4: no \"Number of clients running queries\" line"},
	}
	expectRejected(t, cases)
}

func TestHistFromPercentilesReadsBack(t *testing.T) {
	qs := []quantile{{50, 1000}, {90, 2000}, {99, 5000}, {99.9, 9000}}
	h := histFromPercentiles(qs, 10007, 100, 20000)
	eq(t, "count", h.TotalCount(), int64(10007))
	for _, q := range qs {
		near(t, "q", float64(h.ValueAtQuantile(q.q)), q.us, q.us*0.001)
	}
	eq(t, "min", h.Min(), int64(100))
	near(t, "max", float64(h.Max()), 20000, 20)
}

func TestGoYCSB(t *testing.T) {
	r := one(t, "ycsb/go-ycsb101-redis-workloada.txt")
	eq(t, "kind", r.Kind, "ycsb")
	eq(t, "clients", r.Clients, 4)
	eq(t, "readproportion", r.Params["readproportion"], any(0.5))
	eq(t, "distribution", r.Params["requestdistribution"], any("uniform"))
	// TOTAL - Count: 20000, OPS: 12031.6, Avg(us): 317, ... 99th(us): 4081
	eq(t, "total", r.Summary.Transactions, int64(20000))
	near(t, "ops/s", r.Summary.Throughput, 12031.6, 1e-9)
	near(t, "p99", r.Summary.P99, 4081, 0)
	near(t, "duration", r.Duration.Seconds(), 1.663194281, 1e-9)
	eq(t, "ops", len(r.Ops), 2)
	// READ - Count: 9994, 50th(us): 127, Max(us): 29823
	eq(t, "op", r.Ops[0].Name, "READ")
	n, p50, max := opHist(t, r.Ops[0])
	eq(t, "READ count", n, int64(9994))
	near(t, "READ p50", float64(p50), 127, 0)
	near(t, "READ max", float64(max), 29823, 29823*0.001)
}

// rejectCase is an output Parse must refuse, with what the error must say.
type rejectCase struct{ name, text, want string }

// expectRejected checks that Parse refuses each case with a ParseError naming
// the file and line, and returns no runs with it.
func expectRejected(t *testing.T, cases []rejectCase) {
	t.Helper()
	for _, c := range cases {
		_, runs, err := parse(c.name, c.text)
		if err == nil {
			t.Errorf("%s: accepted (%d runs)", c.name, len(runs))
			continue
		}
		var pe *ParseError
		if !errors.As(err, &pe) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: err = %v, want it to contain %q", c.name, err, c.want)
		}
		if runs != nil {
			t.Errorf("%s: runs returned with the error", c.name)
		}
	}
}
