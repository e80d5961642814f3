package tpcb_test

import (
	"context"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/fairbench/fairbench/internal/runner"
	"github.com/fairbench/fairbench/internal/study"
	"github.com/fairbench/fairbench/internal/testenv"
	"github.com/fairbench/fairbench/internal/workload"
)

// A parallel load (load_workers > 1) produces exactly pgbench's accounts: every
// key once, each with its branch, as the single COPY does.
func TestPostgresParallelLoadMatchesPgbenchData(t *testing.T) {
	url := testenv.FreshPostgres(t)
	st := &study.Study{Name: "load", Duration: time.Second,
		Targets:   []*study.Target{{Name: "db", URL: url}},
		Workloads: []*study.Workload{{Name: "tpcb", Kind: "tpcb", Params: map[string][]any{"scale": {int64(3)}, "load_workers": {int64(4)}}}}}
	cells, err := st.Plan(workload.Catalog{})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if err := runner.New(st, runner.Options{}).Prepare(ctx, cells[0]); err != nil {
		t.Fatal(err)
	}
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
