package main

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/fairbench/fairbench/internal/testenv"
)

// pgbench's -t: each client runs exactly that many transactions and the run
// ends; the stored run holds clients × t, and the summary says so in
// pgbench's lines, with its "number of threads".
func TestPgbenchTransactionsPerClient(t *testing.T) {
	url := testenv.FreshPostgres(t)
	dir := t.TempDir()
	o := fairbench(t, dir, "run", "--target", url, "-c", "3", "-j", "1", "-t", "17")
	if o.code != 0 {
		t.Fatalf("exit %d\n%s\n%s", o.code, o.stdout, o.stderr)
	}
	for _, line := range []string{"number of clients: 3\n", "number of threads: 1\n",
		"number of transactions per client: 17\n", "number of transactions actually processed: 51/51\n"} {
		if !strings.Contains(o.stdout, line) {
			t.Errorf("summary lacks %q:\n%s", line, o.stdout)
		}
	}
	runs := storedRuns(t, dir)
	if len(runs) != 1 || runs[0].Summary.Transactions != 51 || runs[0].Summary.Failed != 0 {
		t.Fatalf("want one run of 51 transactions, got %d runs: %+v", len(runs), runs)
	}
}

// -t and -T exclude each other, in pgbench's words, before anything connects.
func TestPgbenchTransactionsAndTimeExcludeEachOther(t *testing.T) {
	o := fairbench(t, t.TempDir(), "run", "--target", "postgres://nobody@127.0.0.1:1/none", "-t", "10", "-T", "5")
	assertOneLineError(t, o, "-t/--transactions and -T/--time", "specify either a number of transactions (-t) or a duration (-T), not both")
}

// A pgbench script with \set and :var runs -t times per client and updates
// the rows it names (each client credits its own teller, :client_id + 1);
// -r prints a latency line per statement in pgbench 15's layout and stores
// the counts; -l writes a line per transaction with pgbench's six fields.
func TestPgbenchCustomScriptReportAndLog(t *testing.T) {
	url := testenv.FreshPostgres(t)
	dir := t.TempDir()
	script := filepath.Join(dir, "credit.sql")
	if err := os.WriteFile(script, []byte(`-- credit the client's own teller
\set tid :client_id + 1
\set delta 3 * 2 + 1
UPDATE pgbench_tellers
   SET tbalance = tbalance + :delta
 WHERE tid = :tid;
SELECT tbalance FROM pgbench_tellers WHERE tid = :tid::int;
`), 0o644); err != nil {
		t.Fatal(err)
	}
	o := fairbench(t, dir, "run", "--target", url, "-c", "3", "-t", "10", "-f", script+"@2", "-r", "-l", "--log-prefix", "txlog")
	if o.code != 0 {
		t.Fatalf("exit %d\n%s\n%s", o.code, o.stdout, o.stderr)
	}
	if !strings.Contains(o.stdout, "transaction type: "+script+"\n") || !strings.Contains(o.stdout, "number of transactions actually processed: 30/30\n") {
		t.Errorf("summary:\n%s", o.stdout)
	}
	// The rows: tellers 1–3 got 10 × 7 each, the others nothing.
	c, err := pgx.Connect(context.Background(), url)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close(context.Background())
	rows, err := c.Query(context.Background(), "SELECT tid, tbalance FROM pgbench_tellers WHERE tbalance <> 0 ORDER BY tid")
	if err != nil {
		t.Fatal(err)
	}
	got := map[int64]int64{}
	for rows.Next() {
		var tid, bal int64
		if err := rows.Scan(&tid, &bal); err != nil {
			t.Fatal(err)
		}
		got[tid] = bal
	}
	if len(got) != 3 || got[1] != 70 || got[2] != 70 || got[3] != 70 {
		t.Errorf("teller balances %v, want 70 for tellers 1, 2 and 3 only", got)
	}
	// -r: the header, then one line per command of the script, in order.
	_, report, ok := strings.Cut(o.stdout, "statement latencies in milliseconds and failures:\n")
	if !ok {
		t.Fatalf("no per-statement report:\n%s", o.stdout)
	}
	lines := strings.Split(report, "\n")
	for i, want := range []string{`\set tid :client_id + 1`, `\set delta 3 * 2 + 1`, "UPDATE pgbench_tellers", "SELECT tbalance FROM pgbench_tellers WHERE tid = :tid::int;"} {
		if !regexp.MustCompile(`^ +\d+\.\d{3} +0  ` + regexp.QuoteMeta(want) + `$`).MatchString(lines[i]) {
			t.Errorf("statement line %d %q, want pgbench's layout for %q", i+1, lines[i], want)
		}
	}
	if strings.Contains(lines[4], "  0  ") {
		t.Errorf("a fifth statement line: %q", lines[4])
	}
	runs := storedRuns(t, dir)
	if len(runs) != 1 || runs[0].Summary.Transactions != 30 || runs[0].Summary.Extra["statement 1.3 executions"] != 30 || runs[0].Summary.Extra["statement 1.3 latency_ns"] <= 0 {
		t.Fatalf("stored: %d runs, %+v", len(runs), runs[0].Summary)
	}
	// -l: txlog.<pid>, a line per transaction, six fields, each client's numbered 1–10.
	logs, _ := filepath.Glob(filepath.Join(dir, "txlog.*"))
	if len(logs) != 1 {
		t.Fatalf("log files %v, want one txlog.<pid>", logs)
	}
	data, err := os.ReadFile(logs[0])
	if err != nil {
		t.Fatal(err)
	}
	seqs := map[string][]string{}
	logLines := strings.Split(strings.TrimSpace(string(data)), "\n")
	for _, l := range logLines {
		f := strings.Fields(l)
		if len(f) != 6 || f[3] != "0" {
			t.Fatalf("log line %q: want client_id transaction_no time script_no time_epoch time_us", l)
		}
		seqs[f[0]] = append(seqs[f[0]], f[1])
	}
	if len(logLines) != 30 || len(seqs) != 3 || strings.Join(seqs["2"], ",") != "1,2,3,4,5,6,7,8,9,10" {
		t.Fatalf("%d log lines, by client %v", len(logLines), seqs)
	}
}

// pgbench's built-in script under -r: one line per statement of pgbench's
// own script, eleven for tpcb-like.
func TestPgbenchBuiltinPerStatementReport(t *testing.T) {
	url := testenv.FreshPostgres(t)
	dir := t.TempDir()
	o := fairbench(t, dir, "run", "--target", url, "-c", "2", "-t", "5", "-r")
	if o.code != 0 {
		t.Fatalf("exit %d\n%s\n%s", o.code, o.stdout, o.stderr)
	}
	n := len(regexp.MustCompile(`(?m)^ +\d+\.\d{3} +\d+  (\\set|BEGIN;|UPDATE|SELECT|INSERT|END;)`).FindAllString(o.stdout, -1))
	if !strings.Contains(o.stdout, "statement latencies in milliseconds and failures:\n") || n != 11 {
		t.Fatalf("want pgbench's 11 statement lines, got %d:\n%s", n, o.stdout)
	}
	if runs := storedRuns(t, dir); len(runs) != 1 || runs[0].Summary.Transactions != 10 {
		t.Fatalf("stored %+v", runs)
	}
}

// A script that cannot run fails before anything connects, naming file:line.
func TestPgbenchScriptErrorBeforeConnecting(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.sql")
	if err := os.WriteFile(bad, []byte("SELECT 1;\n\\set x 10 / (5 - 5)\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	o := fairbench(t, dir, "run", "--target", "postgres://nobody@127.0.0.1:1/none", "-f", bad, "-t", "1")
	assertOneLineError(t, o, bad+":2: division by zero")
	o = fairbench(t, dir, "run", "--target", "postgres://nobody@127.0.0.1:1/none", "-f", bad+"@1000000000000")
	assertOneLineError(t, o, "weight specification out of range (0 .. 2147483647)")
}

// An expression that fails only at run time (a division by a variable that
// is 0) fails its transactions with the script's file:line, and the run
// fails: nothing is silently skipped.
func TestPgbenchScriptRuntimeErrorNamesFileAndLine(t *testing.T) {
	dir := t.TempDir()
	script := filepath.Join(dir, "div.sql")
	if err := os.WriteFile(script, []byte("\\set y :client_id * 0\n\\set x 10 / :y\nSELECT :x;\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	o := fairbench(t, dir, "run", "--target", "sqlite:"+filepath.Join(dir, "b.db"), "-t", "3", "-f", script)
	if o.code != 1 || !strings.Contains(o.stdout, script+":2: \\set x 10 / :y: division by zero") {
		t.Fatalf("exit %d\n%s\n%s", o.code, o.stdout, o.stderr)
	}
}

// A script that sleeps keeps a thread per client even with fewer -j
// threads: on an event loop one client's \sleep would hold up the others.
func TestPgbenchSleepingScriptIsNotMultiplexed(t *testing.T) {
	url := testenv.FreshPostgres(t)
	dir := t.TempDir()
	script := filepath.Join(dir, "sleep.sql")
	if err := os.WriteFile(script, []byte("SELECT 1;\n\\sleep 1 ms\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	o := fairbench(t, dir, "run", "--target", url, "-c", "4", "-j", "1", "-t", "5", "-f", script)
	if o.code != 0 || !strings.Contains(o.stdout, "number of threads: 4\n") {
		t.Fatalf("exit %d\n%s\n%s", o.code, o.stdout, o.stderr)
	}
	if runs := storedRuns(t, dir); len(runs) != 1 || runs[0].Env.Client.IO != "thread per client" || runs[0].Summary.Transactions != 20 {
		t.Fatalf("stored %+v", runs[0].Env.Client)
	}
}
