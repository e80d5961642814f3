package mysql_test

import (
	"context"
	"testing"

	"github.com/fairbench/fairbench/internal/driver"
	"github.com/fairbench/fairbench/internal/testenv"
)

type sliceRows struct {
	rows [][]any
	i    int
}

func (s *sliceRows) Next() bool    { s.i++; return s.i <= len(s.rows) }
func (s *sliceRows) Values() []any { return s.rows[s.i-1] }

// Both bulk paths — LOAD DATA LOCAL INFILE (the default where the server
// allows it) and multi-row INSERTs (bulk=insert) — store the same values, tabs,
// newlines, backslashes, quotes and NULLs included, in every query mode.
func TestBulkLoadPathsStoreTheSameValues(t *testing.T) {
	url := testenv.FreshMySQL(t)
	ctx := context.Background()
	want := [][]any{
		{int64(1), "plain", "12.34"},
		{int64(2), "tab\there, newline\nthere, back\\slash, quote ' and \"", nil},
		{int64(3), "", "-0.50"},
	}
	for _, mode := range []string{"simple", "prepared"} {
		for _, bulk := range []string{"load-data", "insert"} {
			c, err := connect(t, testenv.WithQuery(t, url, "bulk", bulk), mode)
			if err != nil {
				t.Fatal(err)
			}
			if err := c.Exec(ctx, "DROP TABLE IF EXISTS bl"); err != nil {
				t.Fatal(err)
			}
			if err := c.Exec(ctx, "CREATE TABLE bl (id INT PRIMARY KEY, s VARCHAR(100), d DECIMAL(6,2) NULL)"); err != nil {
				t.Fatal(err)
			}
			loads, _ := c.QueryInt64(ctx, "SELECT variable_value FROM information_schema.session_status WHERE variable_name = 'COM_LOAD'")
			n, err := c.(driver.BulkLoader).BulkLoad(ctx, "bl", []string{"id", "s", "d"}, &sliceRows{rows: want}, false)
			if err != nil || n != 3 {
				t.Fatalf("%s, bulk=%s: %d rows, %v", mode, bulk, n, err)
			}
			after, _ := c.QueryInt64(ctx, "SELECT variable_value FROM information_schema.session_status WHERE variable_name = 'COM_LOAD'")
			if used := after > loads; used != (bulk == "load-data") {
				t.Errorf("%s, bulk=%s: LOAD DATA used: %v (the test server has local_infile = ON)", mode, bulk, used)
			}
			rows, err := c.Query(ctx, "SELECT id, s, d FROM bl ORDER BY id")
			if err != nil {
				t.Fatal(err)
			}
			i := 0
			for rows.Next() {
				var id int64
				var s string
				var d any
				if err := rows.Scan(&id, &s, &d); err != nil {
					t.Fatal(err)
				}
				if id != want[i][0] || s != want[i][1] || (d == nil) != (want[i][2] == nil) || (d != nil && driverString(d) != want[i][2]) {
					t.Errorf("%s, bulk=%s, row %d: %v %q %v, want %v", mode, bulk, i, id, s, d, want[i])
				}
				i++
			}
			rows.Close()
			if i != 3 {
				t.Fatalf("%s, bulk=%s: %d rows back", mode, bulk, i)
			}
		}
	}
}

func driverString(v any) string {
	switch x := v.(type) {
	case []byte:
		return string(x)
	case string:
		return x
	}
	return ""
}
