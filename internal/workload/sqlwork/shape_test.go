package sqlwork_test

import (
	"context"
	"strings"
	"testing"

	"github.com/fairbench/fairbench/internal/workload/sqlwork"
)

// Tables are reused only with the exact columns the dataset expects; others
// with its names are refused, naming the table, the difference and --replace.
func TestNeedsLoadChecksColumns(t *testing.T) {
	ctx := context.Background()
	c := sqliteConn(t, "simple")
	want := sqlwork.Cols("id int", "k int", "c char(120)", "pad char(60)")
	d := sqlwork.Dataset{Name: "demo", Params: "size=1", Tables: []string{"sb1"}, Tool: "sysbench", Wanted: "1 table",
		Columns: func(string) ([]sqlwork.Column, bool) { return want, true },
		Inspect: func(context.Context) (sqlwork.Inspection, error) {
			return sqlwork.Inspection{Usable: true, Holds: "1 table"}, nil
		}}
	quiet := func(string, ...any) {}
	for _, tc := range []struct{ ddl, diff string }{
		{"CREATE TABLE sb1 (id INTEGER, k INTEGER, c CHAR(120), pad CHAR(60))", ""},
		{"CREATE TABLE sb1 (id INTEGER, k INTEGER, c VARCHAR(120), pad CHAR(60))", "column c is varchar(120), expected char(120)"},
		{"CREATE TABLE sb1 (id INTEGER, k INTEGER, c CHAR(120))", "it has no column pad"},
		{"CREATE TABLE sb1 (id INTEGER, kk INTEGER, c CHAR(120), pad CHAR(60))", "column 2 is kk, expected k"},
		{"CREATE TABLE sb1 (id INTEGER, k INTEGER, c CHAR(120), pad CHAR(60), extra TEXT)", "it has an extra column extra"},
		{"CREATE TABLE sb1 (id TEXT, k INTEGER, c CHAR(120), pad CHAR(60))", "column id is text, expected int"},
	} {
		if err := c.Exec(ctx, "DROP TABLE IF EXISTS sb1"); err != nil {
			t.Fatal(err)
		}
		if err := c.Exec(ctx, tc.ddl); err != nil {
			t.Fatal(err)
		}
		load, err := sqlwork.NeedsLoad(ctx, c, d, false, quiet)
		if tc.diff == "" {
			if err != nil || load {
				t.Fatalf("%s: load=%v err=%v, want reuse", tc.ddl, load, err)
			}
			continue
		}
		if err == nil || !strings.Contains(err.Error(), "table sb1") || !strings.Contains(err.Error(), tc.diff) || !strings.Contains(err.Error(), "--replace") {
			t.Fatalf("%s: load=%v err=%v, want a refusal saying %q and --replace", tc.ddl, load, err, tc.diff)
		}
		if load, err := sqlwork.NeedsLoad(ctx, c, d, true, quiet); err != nil || !load {
			t.Fatalf("%s with --replace: load=%v err=%v, want a load", tc.ddl, load, err)
		}
	}
}
