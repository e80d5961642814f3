package adapter

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/fairbench/fairbench/internal/params"
	"github.com/fairbench/fairbench/internal/result"
)

// A study cell's pgbench asks for -l logs in the directory the runner gives,
// and only then.
func TestPgbenchCommandLogDir(t *testing.T) {
	inv := Invocation{URL: "postgres://bench:pw@127.0.0.1:5432/db", Clients: 2, Duration: 3 * time.Second,
		Params: params.Values{"mode": "select-only", "query_mode": "simple"}}
	c, err := buildPgbench(inv)
	if err != nil {
		t.Fatal(err)
	}
	if slices.Contains(c.Argv, "-l") {
		t.Fatalf("-l without a log directory: %v", c.Argv)
	}
	inv.LogDir = "/tmp/fb-logs"
	c, err = buildPgbench(inv)
	if err != nil {
		t.Fatal(err)
	}
	n := len(c.Argv)
	if n < 3 || c.Argv[n-3] != "-l" || c.Argv[n-2] != "--log-prefix=/tmp/fb-logs/pgbench_log" || c.Argv[n-1] != "db" {
		t.Fatalf("argv %v: want ... -l --log-prefix=/tmp/fb-logs/pgbench_log db", c.Argv)
	}
	if strings.Contains(strings.Join(c.Argv, " "), "pw") {
		t.Fatalf("password in argv: %v", c.Argv)
	}
}

// The logs of pg17-log read from a directory as the runner does: the same
// histogram as when imported, and the run's start from the earliest logged
// transaction. Its file pgbench_log.22240.1, line 1, "1 1 3074 0 1795354430
// 52164 997", ended at 1795354430.052164 after 3074 µs: the earliest start
// of the 304 lines (found with awk over both files).
func TestPgbenchLogDir(t *testing.T) {
	src := filepath.Join("testdata", "pgbench", "pg17-log")
	summary, err := os.ReadFile(filepath.Join(src, "summary.txt"))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	for _, name := range []string{"pgbench_log.22240", "pgbench_log.22240.1"} {
		b, err := os.ReadFile(filepath.Join(src, name))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	runs, err := parsePgbench("summary.txt", string(summary))
	if err != nil {
		t.Fatal(err)
	}
	if err := attachPgbenchLogDir(runs, dir); err != nil {
		t.Fatal(err)
	}
	r := runs[0]
	n, _, max := opHist(t, r.Ops[0])
	eq(t, "histogram count", n, int64(304))
	near(t, "histogram max", float64(max), 132254, 132254*0.001)
	near(t, "min", r.Summary.LatencyMin, 258, 0)
	eq(t, "logs", r.Env.Extra["pgbench_logs"], any(2))
	eq(t, "started", r.StartedAt.UnixMicro(), int64(1795354430049090))
	if len(r.Series) != 3 {
		t.Fatalf("series %v: want the 3 seconds 1795354430–32 of the logs", r.Series)
	}
	if hasDeviation(r, "no latency distribution") {
		t.Errorf("the logs give the distribution, yet: %v", r.Deviations)
	}
}

func TestPgbenchLogDirErrors(t *testing.T) {
	runs := func() []*result.Run {
		b, err := os.ReadFile(filepath.Join("testdata", "pgbench", "pg17-log", "summary.txt"))
		if err != nil {
			t.Fatal(err)
		}
		rs, err := parsePgbench("summary.txt", string(b))
		if err != nil {
			t.Fatal(err)
		}
		return rs
	}
	empty := t.TempDir()
	if err := attachPgbenchLogDir(runs(), empty); err == nil || !strings.Contains(err.Error(), "wrote no -l log file") {
		t.Errorf("empty directory: err = %v", err)
	}
	bad := t.TempDir()
	name := filepath.Join(bad, "pgbench_log.7")
	if err := os.WriteFile(name, []byte("0 1 5234 0 1795354430 62163 3037\n0 2 889 0 179535443x 114807 90\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	err := attachPgbenchLogDir(runs(), bad)
	var pe *ParseError
	if !errors.As(err, &pe) || pe.File != name || pe.Line != 2 {
		t.Errorf("damaged line 2: err = %v", err)
	}
	// One good line where the output says 304 transactions: not this run's logs.
	if err := os.WriteFile(name, []byte("0 1 5234 0 1795354430 62163 3037\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := attachPgbenchLogDir(runs(), bad); err == nil || !strings.Contains(err.Error(), "hold 1 successful transactions but the pgbench output says 304") {
		t.Errorf("short logs: err = %v", err)
	}
}

// pgbench gets a thread per client unless the workload's threads caps them,
// as -j does.
func TestPgbenchCommandThreads(t *testing.T) {
	for _, tc := range []struct{ clients, threads, want int }{{8, 0, 8}, {8, 2, 2}, {2, 4, 2}} {
		inv := Invocation{URL: "postgres://bench@127.0.0.1/db", Clients: tc.clients, Threads: tc.threads,
			Duration: time.Second, Params: params.Values{"mode": "select-only", "query_mode": "simple"}}
		c, err := buildPgbench(inv)
		if err != nil {
			t.Fatal(err)
		}
		i := slices.Index(c.Argv, "-j")
		if i < 0 || c.Argv[i+1] != strconv.Itoa(tc.want) {
			t.Fatalf("%d clients, threads %d: argv %v, want -j %d", tc.clients, tc.threads, c.Argv, tc.want)
		}
	}
}

// A cell with transactions per client and scripts runs pgbench -t and -f,
// not -T and the built-in script.
func TestPgbenchCommandTransactionsAndScripts(t *testing.T) {
	inv := Invocation{URL: "postgres://bench@127.0.0.1/db", Clients: 2, Duration: time.Minute,
		Params: params.Values{"mode": "select-only", "query_mode": "simple", "transactions": int64(100),
			"scripts": []string{"a.sql@3", "b.sql"}, "builtins": []string{"tpcb@2"}, "per_statement": true}}
	c, err := buildPgbench(inv)
	if err != nil {
		t.Fatal(err)
	}
	argv := strings.Join(c.Argv, " ")
	for _, want := range []string{"-b tpcb@2 -f a.sql@3 -f b.sql", "-t 100", " -r"} {
		if !strings.Contains(argv, want) {
			t.Errorf("argv %q lacks %q", argv, want)
		}
	}
	if slices.Contains(c.Argv, "-T") || slices.Contains(c.Argv, "-S") {
		t.Errorf("argv %q has -T or -S", argv)
	}
}
