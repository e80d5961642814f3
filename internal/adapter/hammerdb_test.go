package adapter

import (
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/fairbench/fairbench/internal/params/tpccparams"
)

// The expected values were read off the HammerDB fixtures by hand.

func TestHammerDBPostgresWithProfile(t *testing.T) {
	tool, runs := parseFile(t, "hammerdb/pg15-3vu")
	eq(t, "tool", tool.Name, "hammerdb")
	eq(t, "runs", len(runs), 1)
	r := runs[0]
	eq(t, "kind", r.Kind, "tpcc")
	eq(t, "version", r.ToolVersion, "hammerdb v4.12")
	// Vuser 1:3 Active Virtual Users configured; rampup 0.5 minutes; test period 1 minute
	eq(t, "clients", r.Clients, 3)
	eq(t, "warm-up", r.Warmup, 30*time.Second)
	eq(t, "duration", r.Duration, time.Minute)
	eq(t, "warehouses", r.Params["warehouses"], any(int64(1)))
	eq(t, "all_warehouses", r.Params["all_warehouses"], any(false))
	eq(t, "keying_thinking", r.Params["keying_thinking"], any(false))
	eq(t, "implementation", r.Params["implementation"], any(tpccparams.Procedures))
	// TEST RESULT : System achieved 18003 NOPM from 41397 PostgreSQL TPM
	eq(t, "headline", r.Summary.Metric.Name, "NOPM")
	near(t, "NOPM", r.Summary.Metric.Value, 18003, 0)
	near(t, "new orders", r.Summary.Extra[tpccparams.NewOrders], 18003, 0)
	near(t, "server transactions", r.Summary.Extra[tpccparams.ServerTransactions], 41397, 0)
	near(t, "NOPM from the counter", tpccparams.Headline.Measure(r.Ops, r.Summary.Extra, r.Duration, nil, nil), 18003, 1e-9)
	near(t, "throughput (TPM/60)", r.Summary.Throughput, 41397.0/60, 1e-9)
	eq(t, "engine", r.Env.Extra["hammerdb"].(map[string]any)["engine"], any("PostgreSQL"))
	eq(t, "profile", r.Env.Extra["hammerdb"].(map[string]any)["time_profile"], any("hdbxtprofile.log"))

	// Calls summed over the virtual users' sections (the SUMMARY's are doubled):
	// NEWORD 8312 + 8157 + 8471, PAYMENT 8553 + 8033 + 8407, OSTAT 853 + 844 + 882,
	// DELIVERY 911 + 844 + 831, SLEV 827 + 826 + 865.
	want := map[string]int64{tpccparams.NewOrder: 24940, tpccparams.Payment: 24993, tpccparams.OrderStatus: 2579,
		tpccparams.Delivery: 2586, tpccparams.StockLevel: 2518}
	eq(t, "ops", len(r.Ops), 5)
	var total int64
	for _, op := range r.Ops {
		n, _, _ := opHist(t, op)
		eq(t, op.Name+" calls", op.Count, want[op.Name])
		eq(t, op.Name+" histogram count", n, want[op.Name])
		total += op.Count
	}
	eq(t, "transactions", r.Summary.Transactions, total)
	// SUMMARY NEWORD: MIN 1.033 P50 3.901 P95 10.885 P99 18.852 MAX 111.495 (ms)
	h := decodeHist(t, goTPCOp(t, r, tpccparams.NewOrder))
	near(t, "neword p50", float64(h.ValueAtQuantile(50)), 3901, 3.9)
	near(t, "neword p95", float64(h.ValueAtQuantile(95)), 10885, 10.9)
	near(t, "neword p99", float64(h.ValueAtQuantile(99)), 18852, 18.9)
	near(t, "neword min", float64(h.Min()), 1033, 1.1)
	near(t, "neword max", float64(h.Max()), 111495, 111.5)
	devs := strings.Join(r.Deviations, "\n")
	for _, w := range []string{"counts every call twice", "ramp-up included", "TPM / 60"} {
		if !strings.Contains(devs, w) {
			t.Errorf("no deviation saying %q: %q", w, r.Deviations)
		}
	}
}

// The output alone: the job's timing JSON (summary rows, calls doubled)
// gives the same counts.
func TestHammerDBPostgresOutputAlone(t *testing.T) {
	text := readFixture(t, "hammerdb/pg15-3vu/pg_run.out")
	tool, runs, err := parse("pg_run.out", text)
	if err != nil || tool.Name != "hammerdb" {
		t.Fatal(tool, err)
	}
	r := runs[0]
	eq(t, "new_order calls (49880 / 2)", goTPCOp(t, r, tpccparams.NewOrder).Count, int64(24940))
	eq(t, "stock_level calls (5036 / 2)", goTPCOp(t, r, tpccparams.StockLevel).Count, int64(2518))
	h := decodeHist(t, goTPCOp(t, r, tpccparams.Payment))
	// PAYMENT p99_ms 21.386
	near(t, "payment p99", float64(h.ValueAtQuantile(99)), 21386, 21.4)
	if !strings.Contains(strings.Join(r.Deviations, "\n"), "counts every call twice") {
		t.Errorf("deviations %q", r.Deviations)
	}
}

func TestHammerDBRefusesDamage(t *testing.T) {
	out := readFixture(t, "hammerdb/pg15-3vu/pg_run.out")
	prof := readFixture(t, "hammerdb/pg15-3vu/hdbxtprofile.log")
	ls := strings.SplitAfter(out, "\n")
	resultLine := 0
	for i, s := range ls {
		if strings.Contains(s, "Vuser 1:TEST RESULT") {
			resultLine = i + 1
		}
	}
	if resultLine == 0 {
		t.Fatal("no TEST RESULT line in the fixture")
	}
	cases := []rejectCase{
		{"cut.out", strings.Join(ls[:resultLine-1], ""), "cut.out:" + itoa(resultLine-1) + ": no TEST RESULT line"},
		{"twice.out", out + out, "twice.out:"},
		{"failed.out", strings.Replace(out, "Vuser 3:FINISHED SUCCESS", "Vuser 3:FINISHED FAILED", 1), "virtual user 3 failed"},
		{"nopm.out", strings.Replace(out, "Vuser 1:TEST RESULT : System achieved 18003 NOPM", "Vuser 1:TEST RESULT : System achieved -18003 NOPM", 1), "NOPM"},
		{"json.out", strings.Replace(out, `"p99_ms": "18.852"`, `"p99_ms": "1.852"`, 1), "NEWORD: MIN 1.033, P50 3.901, P95 10.885, P99 1.852"},
	}
	expectRejected(t, cases)

	dir := filepath.Join("h")
	attach := func(p string) error {
		in, err := Group([]File{{Name: filepath.Join(dir, "pg_run.out"), Text: out}, {Name: filepath.Join(dir, "hdbxtprofile.log"), Text: p}})
		if err != nil {
			return err
		}
		_, _, err = ParseInput(in[0])
		return err
	}
	if err := attach(prof); err != nil {
		t.Fatalf("the real profile: %v", err)
	}
	for name, c := range map[string]struct{ text, want string }{
		"calls":     {strings.Replace(prof, "CALLS: 8312\t", "CALLS: 8313\t", 1), "the SUMMARY has 49880 calls of new_order, the virtual users' sections 24941"},
		"summary":   {prof[:strings.Index(prof, ">>>>> SUMMARY")], "no SUMMARY OF N ACTIVE VIRTUAL USERS section"},
		"cut":       {prof[:len(prof)-20], "ends without a line break"},
		"order":     {strings.Replace(prof, "P99: 21.209ms\tP95: 11.643ms", "P99: 1.209ms\tP95: 11.643ms", 1), "PAYMENT: MIN 0.637, P50 3.605, P95 11.643, P99 1.209"},
		"procedure": {strings.Replace(prof, ">>>>> PROC: SLEV", ">>>>> PROC: STOCKLEVEL", 1), "unknown procedure \"STOCKLEVEL\""},
	} {
		if err := attach(c.text); err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), "hdbxtprofile.log") {
			t.Errorf("%s: err = %v, want %q", name, err, c.want)
		}
	}
}

// What the script prints after the job's result is machine-made JSON: a
// line of anything else between JOB RESULT and JOB TIMING is refused, named.
func TestHammerDBRefusesGarbageAroundJobResult(t *testing.T) {
	out := readFixture(t, "hammerdb/pg15-3vu/pg_run.out")
	at := strings.Index(out, "JOB TIMING:")
	garbageLine := strings.Count(out[:at], "\n") + 1
	garbage := out[:at] + "rm -rf oops: pasted here\n" + out[at:]
	cases := []rejectCase{
		{"garbage.out", garbage, "garbage.out:" + itoa(garbageLine) + `: "rm -rf oops: pasted here" after the JOB RESULT JSON`},
		{"after.out", out + "more text\n", `"more text" after the JOB RESULT JSON`},
		{"result.out", strings.Replace(out, `  "2026-11-25 18:02:53",`, `  "2026-11-25 18:02:53",,`, 1), "JOB RESULT JSON: invalid character ','"},
		{"notjson.out", strings.Replace(out, "JOB RESULT:\n[", "JOB RESULT:\nnot a list\n[", 1), `JOB RESULT is not followed by JSON ("not a list")`},
	}
	expectRejected(t, cases)
	// The job's id and start time are kept with the run.
	_, runs, err := parse("pg_run.out", out)
	if err != nil {
		t.Fatal(err)
	}
	env := runs[0].Env.Extra["hammerdb"].(map[string]any)
	eq(t, "job id", env["job_id"], any("6B0722CD661103E243330303"))
	eq(t, "job started", env["job_started"], any("2026-11-25 18:02:53"))
}

func itoa(n int) string { return strconv.Itoa(n) }

// MariaDB through HammerDB's mysql driver (mysqltcl): the engine it names is MySQL.
func TestHammerDBMariaDB(t *testing.T) {
	r := one(t, "hammerdb/maria10.11-3vu")
	// TEST RESULT : System achieved 6662 NOPM from 15657 MySQL TPM
	near(t, "NOPM", r.Summary.Metric.Value, 6662, 0)
	near(t, "server transactions", r.Summary.Extra[tpccparams.ServerTransactions], 15657, 0)
	eq(t, "engine", r.Env.Extra["hammerdb"].(map[string]any)["engine"], any("MySQL"))
	eq(t, "clients", r.Clients, 3)
	// NEWORD CALLS 3243 + 3499 + 3312 (the SUMMARY says 20108)
	no := goTPCOp(t, r, tpccparams.NewOrder)
	eq(t, "new_order calls", no.Count, int64(10054))
	// SUMMARY NEWORD MIN 1.752 MAX 170.049
	h := decodeHist(t, no)
	near(t, "neword min", float64(h.Min()), 1752, 1.8)
	near(t, "neword max", float64(h.Max()), 170049, 170.1)
}
