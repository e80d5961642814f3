package tpcb_test

import (
	"context"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/fairbench/fairbench/internal/testenv"
)

// A parallel load (load_workers > 1) produces exactly pgbench's accounts: every
// key once, each with its branch, as the single COPY does.
func TestPostgresParallelLoadMatchesPgbenchData(t *testing.T) {
	url := testenv.FreshPostgres(t)
	if err := prepare(t, url, map[string][]any{"scale": {int64(3)}, "load_workers": {int64(4)}}, false); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	c, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close(ctx)
	var n, distinct, minAid, maxAid, badBranch, balance int64
	err = c.QueryRow(ctx, `SELECT count(*), count(DISTINCT aid), min(aid), max(aid),
		count(*) FILTER (WHERE bid <> (aid - 1) / 100000 + 1), sum(abalance) FROM pgbench_accounts`).
		Scan(&n, &distinct, &minAid, &maxAid, &badBranch, &balance)
	if err != nil {
		t.Fatal(err)
	}
	if n != 300_000 || distinct != n || minAid != 1 || maxAid != 300_000 || badBranch != 0 || balance != 0 {
		t.Fatalf("accounts: %d rows, %d distinct, aid %d..%d, %d with a wrong branch, balance %d", n, distinct, minAid, maxAid, badBranch, balance)
	}
}
