package postgres_test

import (
	"context"
	"testing"

	"github.com/fairbench/fairbench/internal/driver"
	"github.com/fairbench/fairbench/internal/fastpath"
	"github.com/fairbench/fairbench/internal/testenv"
)

// Query and Stmt.Query give the same typed rows in every query mode on both
// client paths: pgx, and the wire path a session takes on the fast path.
func TestRowsOnEveryPath(t *testing.T) {
	url := testenv.FreshPostgres(t)
	ctx := context.Background()
	testenv.CreateRowsTable(t, connect(t, url, "simple"))
	decimals := []string{"12.50", "-0.01", "123456.78"}
	for _, wire := range []bool{false, true} {
		for _, mode := range []string{"simple", "extended", "prepared"} {
			c := connect(t, url, mode)
			st, err := c.Prepare(ctx, testenv.RowsQuery)
			if err != nil {
				t.Fatal(err)
			}
			bad, err := c.Prepare(ctx, "SELECT 1 WHERE $1::int8 > 0")
			if err != nil {
				t.Fatal(err)
			}
			path := "pgx"
			if wire {
				if !fastpath.Enabled() {
					t.Skip("FAIRBENCH_NET=netpoll: no wire path")
				}
				if _, err := c.Multiplex(ctx); err != nil {
					t.Fatal(err)
				}
				path = "wire (pgproto3 messages)"
			}
			if got := c.ClientPath(); got != path {
				t.Errorf("%s: ClientPath = %q, want %q", mode, got, path)
			}
			what := mode + " " + path
			testenv.CheckRows(t, what+" Query", c, func(sql string, args ...any) (driver.Rows, error) { return c.Query(ctx, sql, args...) }, decimals)
			testenv.CheckRows(t, what+" Stmt.Query", c, func(sql string, args ...any) (driver.Rows, error) {
				if sql != testenv.RowsQuery {
					return c.Query(ctx, sql, args...) // the failing statement
				}
				return st.Query(ctx, args...)
			}, decimals)
			// A prepared statement's rows end at no row, too.
			rows, err := bad.Query(ctx, int64(-1))
			if err != nil {
				t.Fatal(err)
			}
			if rows.Next() || rows.Close() != nil {
				t.Errorf("%s: a statement without rows gave a row or %v", what, rows.Err())
			}
		}
	}
}
