package mysql_test

import (
	"context"
	"testing"

	"github.com/fairbench/fairbench/internal/driver"
	"github.com/fairbench/fairbench/internal/testenv"
)

// Query and Stmt.Query give the same typed rows through go-sql-driver (text
// and prepared) and through fairbench's COM_STMT_EXECUTE wire path.
func TestRowsOnEveryPath(t *testing.T) {
	url := testenv.FreshMySQL(t)
	ctx := context.Background()
	setup, err := connect(t, url, "simple")
	if err != nil {
		t.Fatal(err)
	}
	testenv.CreateRowsTable(t, setup)
	decimals := []string{"12.50", "-0.01", "123456.78"}
	for _, tc := range []struct{ mode, wire, path string }{
		{"simple", "", "go-sql-driver"},
		{"prepared", "off", "go-sql-driver"},
		{"prepared", "", "wire (COM_STMT_PREPARE/EXECUTE)"},
	} {
		t.Setenv("FAIRBENCH_MYSQL_WIRE", tc.wire)
		c, err := connect(t, url, tc.mode)
		if err != nil {
			t.Fatal(err)
		}
		if got := c.(driver.Path).ClientPath(); got != tc.path {
			t.Errorf("%s: ClientPath = %q, want %q", tc.mode, got, tc.path)
		}
		st, err := c.Prepare(ctx, testenv.RowsQuery)
		if err != nil {
			t.Fatal(err)
		}
		what := tc.mode + " " + tc.path
		testenv.CheckRows(t, what+" Query", c, func(sql string, args ...any) (driver.Rows, error) {
			return c.Query(ctx, sql, args...)
		}, decimals)
		testenv.CheckRows(t, what+" Stmt.Query", c, func(sql string, args ...any) (driver.Rows, error) {
			if sql != testenv.RowsQuery {
				return c.Query(ctx, sql, args...) // the failing statement
			}
			return st.Query(ctx, args...)
		}, decimals)
		// The statement runs again after rows closed early, with the same answers.
		testenv.CheckRows(t, what+" Stmt.Query again", c, func(sql string, args ...any) (driver.Rows, error) {
			if sql != testenv.RowsQuery {
				bad, err := c.Prepare(ctx, sql)
				if err != nil {
					return nil, err
				}
				return bad.Query(ctx, args...)
			}
			return st.Query(ctx, args...)
		}, decimals)
	}
}
