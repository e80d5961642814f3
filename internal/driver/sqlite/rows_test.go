package sqlite_test

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/fairbench/fairbench/internal/driver"
	"github.com/fairbench/fairbench/internal/testenv"
)

// Query and Stmt.Query give typed rows in both statement modes. SQLite has no
// decimal type: a DECIMAL column holds a REAL, whose shortest form comes back.
func TestRowsOnEveryPath(t *testing.T) {
	url := "sqlite:" + filepath.Join(t.TempDir(), "rows.db")
	ctx := context.Background()
	testenv.CreateRowsTable(t, connect(t, url, "simple"))
	decimals := []string{"12.5", "-0.01", "123456.78"}
	for _, mode := range []string{"simple", "prepared"} {
		c := connect(t, url, mode)
		if got := c.(driver.Path).ClientPath(); got != "modernc sqlite" {
			t.Errorf("ClientPath = %q", got)
		}
		st, err := c.Prepare(ctx, testenv.RowsQuery)
		if err != nil {
			t.Fatal(err)
		}
		testenv.CheckRows(t, mode+" Query", c, func(sql string, args ...any) (driver.Rows, error) {
			return c.Query(ctx, sql, args...)
		}, decimals)
		testenv.CheckRows(t, mode+" Stmt.Query", c, func(sql string, args ...any) (driver.Rows, error) {
			if sql != testenv.RowsQuery {
				return c.Query(ctx, sql, args...) // the failing statement
			}
			return st.Query(ctx, args...)
		}, decimals)
	}
}
