package adapter

import (
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/fairbench/fairbench/internal/params"
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
