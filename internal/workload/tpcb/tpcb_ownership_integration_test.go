package tpcb_test

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fairbench/fairbench/internal/driver"
	"github.com/fairbench/fairbench/internal/testenv"
)

// Tables with pgbench's names that neither fairbench nor pgbench made (other
// columns, or fairbench's own altered by hand) are neither reused nor
// modified: the refusal names the table and --replace, and a run would have
// emptied pgbench_history. On each engine fairbench loads tpcb into.
func TestHandMadeTablesWithPgbenchNamesAreRefused(t *testing.T) {
	engines := map[string]func(t testing.TB) string{
		"postgres": testenv.FreshPostgres,
		"mariadb":  testenv.FreshMySQL,
		"sqlite": func(t testing.TB) string {
			return "sqlite:" + filepath.Join(t.TempDir(), "bench.db")
		},
	}
	for name, fresh := range engines {
		t.Run(name, func(t *testing.T) {
			url := fresh(t)
			ctx := context.Background()
			c := connect(t, url).(driver.SQL)
			exec := func(qs ...string) {
				t.Helper()
				for _, q := range qs {
					if err := c.Exec(ctx, q); err != nil {
						t.Fatalf("%s: %v", q, err)
					}
				}
			}
			notes := func() int64 {
				t.Helper()
				n, err := c.QueryInt64(ctx, "SELECT count(*) FROM pgbench_history WHERE delta = 424242")
				if err != nil {
					t.Fatal(err)
				}
				return n
			}
			prep := func(replace bool) error {
				return prepare(t, url, map[string][]any{"scale": {int64(1)}}, replace)
			}
			// fairbench's own load, then pgbench_history altered by hand: the
			// marker still names the table, its columns no longer match.
			if err := prep(false); err != nil {
				t.Fatal(err)
			}
			exec("ALTER TABLE pgbench_history ADD COLUMN note VARCHAR(20)",
				"INSERT INTO pgbench_history (tid, bid, aid, delta, note) VALUES (1, 1, 1, 424242, 'keep me')")
			err := prep(false)
			if err == nil || !strings.Contains(err.Error(), "table pgbench_history") || !strings.Contains(err.Error(), "--replace") ||
				!strings.Contains(err.Error(), "extra column note") {
				t.Fatalf("fairbench's table altered by hand: %v, want a refusal naming pgbench_history, the column and --replace", err)
			}
			if notes() != 1 {
				t.Fatal("the altered pgbench_history was modified")
			}

			// Four hand-made tables with pgbench's names, one with other columns
			// (pgbench_history has pgbench's exact shape and a row to keep).
			exec("DROP TABLE pgbench_accounts", "DROP TABLE pgbench_branches", "DROP TABLE pgbench_tellers", "DROP TABLE pgbench_history",
				"CREATE TABLE pgbench_accounts (aid INTEGER, bid INTEGER, abalance INTEGER, filler CHAR(84))",
				"CREATE TABLE pgbench_branches (bid INTEGER, bbalance INTEGER, filler CHAR(88))",
				"CREATE TABLE pgbench_tellers (tid INTEGER, bid INTEGER, tbalance INTEGER, filler VARCHAR(84))",
				"CREATE TABLE pgbench_history (tid INTEGER, bid INTEGER, aid INTEGER, delta INTEGER, mtime TIMESTAMP NULL, filler CHAR(22))",
				"INSERT INTO pgbench_history (tid, bid, aid, delta) VALUES (1, 1, 1, 424242)")
			err = prep(false)
			if err == nil || !strings.Contains(err.Error(), "table pgbench_tellers") || !strings.Contains(err.Error(), "column filler is varchar(84), expected char(84)") ||
				!strings.Contains(err.Error(), "--replace") {
				t.Fatalf("hand-made tables: %v, want a refusal naming pgbench_tellers, its column and --replace", err)
			}
			if notes() != 1 {
				t.Fatal("hand-made pgbench_history was modified")
			}
			// --replace drops them and loads fairbench's own.
			if err := prep(true); err != nil {
				t.Fatalf("with --replace: %v", err)
			}
			if err := prep(false); err != nil {
				t.Fatalf("fairbench's own tables after --replace must be reused: %v", err)
			}
		})
	}
}
