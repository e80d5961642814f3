package main

import (
	"strings"
	"testing"

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
