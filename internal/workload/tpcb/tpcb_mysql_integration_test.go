package tpcb_test

import (
	"context"
	"strconv"
	"testing"

	"github.com/fairbench/fairbench/internal/driver"
	"github.com/fairbench/fairbench/internal/result"
	"github.com/fairbench/fairbench/internal/runner"
	"github.com/fairbench/fairbench/internal/testenv"
)

// tpcb-like on MariaDB in every query mode keeps the four sums equal, with
// pgbench's row counts, and names its deviations from pgbench.
func TestMariaDBTPCBLikeKeepsBalancesConsistent(t *testing.T) {
	url := testenv.FreshMySQL(t)
	runs, err := runStudy(t, url, map[string][]any{"mode": {"tpcb-like"}, "scale": {int64(1)},
		"query_mode": {"simple", "prepared"}, "vacuum": {false}}, 4, 1, 10, runner.Options{Check: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(runs) != 2 {
		t.Fatalf("want 2 runs, got %d", len(runs))
	}
	for _, r := range runs {
		if r.Status != result.StatusOK || r.Summary.Transactions < 10 {
			t.Fatalf("%v: %s, %d transactions: %s", r.Params["query_mode"], r.Status, r.Summary.Transactions, r.Error)
		}
		wantClientIO(t, r, true) // 4 clients on one thread's event loop
		if len(r.Deviations) == 0 {
			t.Fatal("MySQL runs must name their deviations from pgbench")
		}
	}
	ctx := context.Background()
	c := testenv.Connect(t, url, driver.Options{}).(driver.SQL)
	var s [4]int64
	for i, q := range []string{"SELECT sum(abalance) FROM pgbench_accounts", "SELECT sum(tbalance) FROM pgbench_tellers",
		"SELECT sum(bbalance) FROM pgbench_branches", "SELECT sum(delta) FROM pgbench_history"} {
		if s[i], err = c.QueryInt64(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
	if s[0] != s[1] || s[0] != s[2] || s[0] != s[3] || s[3] == 0 {
		t.Fatalf("sums disagree: accounts %d tellers %d branches %d history %d", s[0], s[1], s[2], s[3])
	}
	accounts, _ := c.QueryInt64(ctx, "SELECT count(*) FROM pgbench_accounts")
	tellers, _ := c.QueryInt64(ctx, "SELECT count(*) FROM pgbench_tellers")
	if accounts != 100_000 || tellers != 10 {
		t.Fatalf("row counts %d/%d, want pgbench's 100000/10 at scale 1", accounts, tellers)
	}
}

// pgbench's built-in script run by the script engine (-r) on MariaDB, with
// its END written COMMIT and its :variables bound to ? placeholders, keeps
// the sums equal, runs exactly -t transactions per client and times each of
// its eleven statements.
func TestMariaDBBuiltinScriptWithPerStatementTimes(t *testing.T) {
	url := testenv.FreshMySQL(t)
	runs, err := runStudy(t, url, map[string][]any{"mode": {"tpcb-like"}, "scale": {int64(1)}, "query_mode": {"prepared"},
		"per_statement": {true}, "transactions": {int64(15)}}, 3, 3, 10, runner.Options{Check: true})
	if err != nil {
		t.Fatal(err)
	}
	r := runs[0]
	if r.Status != result.StatusOK || r.Summary.Transactions != 45 {
		t.Fatalf("%s, %d transactions, want 3 × 15: %s", r.Status, r.Summary.Transactions, r.Error)
	}
	for c := 1; c <= 11; c++ {
		key := "statement 1." + strconv.Itoa(c) + " executions"
		if r.Summary.Extra[key] != 45 {
			t.Errorf("%s = %v, want 45", key, r.Summary.Extra[key])
		}
	}
}
