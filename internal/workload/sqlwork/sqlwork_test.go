package sqlwork_test

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fairbench/fairbench/internal/driver"
	_ "github.com/fairbench/fairbench/internal/driver/sqlite"
	"github.com/fairbench/fairbench/internal/result"
	"github.com/fairbench/fairbench/internal/testenv"
	"github.com/fairbench/fairbench/internal/workload/sqlwork"
)

func sqliteConn(t *testing.T, mode string) driver.SQL {
	t.Helper()
	url := "sqlite:" + filepath.Join(t.TempDir(), "work.db")
	return testenv.Connect(t, url, driver.Options{QueryMode: mode}).(driver.SQL)
}

// markerRows counts the marker rows of a dataset directly.
func markerRows(t *testing.T, c driver.SQL, dataset string) int64 {
	t.Helper()
	n, err := c.QueryInt64(context.Background(), "SELECT count(*) FROM "+sqlwork.MarkerTable+" WHERE dataset = $1", dataset)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

func TestMarkers(t *testing.T) {
	for _, mode := range []string{"prepared", "simple"} {
		t.Run(mode, func(t *testing.T) {
			ctx := context.Background()
			c := sqliteConn(t, mode)
			found := func(dataset string) bool {
				t.Helper()
				ok, err := sqlwork.MarkerFound(ctx, c, dataset)
				if err != nil {
					t.Fatalf("MarkerFound(%q): %v", dataset, err)
				}
				return ok
			}
			matches := func(dataset, params string) bool {
				t.Helper()
				ok, err := sqlwork.MarkerMatches(ctx, c, dataset, params)
				if err != nil {
					t.Fatalf("MarkerMatches(%q, %q): %v", dataset, params, err)
				}
				return ok
			}

			// A database fairbench never touched: no marker table, and asking creates none.
			if found("tpcb") || matches("tpcb", "scale=1") {
				t.Error("marker reported in an empty database")
			}
			if err := sqlwork.DeleteMarker(ctx, c, "tpcb"); err != nil {
				t.Errorf("DeleteMarker without a marker table: %v", err)
			}
			if ok, err := sqlwork.TableExists(ctx, c, sqlwork.MarkerTable); err != nil || ok {
				t.Errorf("marker table exists after read-only calls: %v, %v", ok, err)
			}

			// Loading: the data is fairbench's, but not usable.
			if err := sqlwork.WriteMarker(ctx, c, "tpcb", "scale=10", sqlwork.Loading, nil); err != nil {
				t.Fatal(err)
			}
			if ok, err := sqlwork.TableExists(ctx, c, sqlwork.MarkerTable); err != nil || !ok {
				t.Fatalf("marker table missing after WriteMarker: %v, %v", ok, err)
			}
			if !found("tpcb") {
				t.Error("MarkerFound = false for a loading marker")
			}
			if matches("tpcb", "scale=10") {
				t.Error("MarkerMatches = true for a marker still loading")
			}

			// Ready: matches exactly its own parameters, and replaces the loading row.
			if err := sqlwork.WriteMarker(ctx, c, "tpcb", "scale=10", sqlwork.Ready, nil); err != nil {
				t.Fatal(err)
			}
			if n := markerRows(t, c, "tpcb"); n != 1 {
				t.Errorf("%d marker rows for tpcb, want 1", n)
			}
			if !matches("tpcb", "scale=10") {
				t.Error("MarkerMatches = false for the ready marker's own parameters")
			}
			for _, p := range []string{"scale=100", "scale=1", "scale=10 ", ""} {
				if matches("tpcb", p) {
					t.Errorf("MarkerMatches(tpcb, %q) = true, want false", p)
				}
			}
			if found("ycsb") || matches("ycsb", "scale=10") {
				t.Error("marker of tpcb reported for ycsb")
			}

			// Rewriting with other parameters replaces the marker.
			if err := sqlwork.WriteMarker(ctx, c, "tpcb", "scale=20", sqlwork.Ready, nil); err != nil {
				t.Fatal(err)
			}
			if matches("tpcb", "scale=10") || !matches("tpcb", "scale=20") {
				t.Error("rewritten marker still matches the old parameters or not the new ones")
			}
			if n := markerRows(t, c, "tpcb"); n != 1 {
				t.Errorf("%d marker rows for tpcb after a rewrite, want 1", n)
			}

			// Markers of different datasets are independent.
			if err := sqlwork.WriteMarker(ctx, c, "ycsb", "records=1000", sqlwork.Ready, nil); err != nil {
				t.Fatal(err)
			}
			if err := sqlwork.DeleteMarker(ctx, c, "tpcb"); err != nil {
				t.Fatal(err)
			}
			if found("tpcb") || matches("tpcb", "scale=20") {
				t.Error("tpcb marker still there after DeleteMarker")
			}
			if !found("ycsb") || !matches("ycsb", "records=1000") {
				t.Error("DeleteMarker(tpcb) removed the ycsb marker")
			}
			if err := sqlwork.DeleteMarker(ctx, c, "tpcb"); err != nil {
				t.Errorf("deleting an absent marker: %v", err)
			}
		})
	}
}

func TestTableExists(t *testing.T) {
	ctx := context.Background()
	c := sqliteConn(t, "prepared")
	exists := func(name string) bool {
		t.Helper()
		ok, err := sqlwork.TableExists(ctx, c, name)
		if err != nil {
			t.Fatalf("TableExists(%q): %v", name, err)
		}
		return ok
	}
	if exists("pgbench_accounts") {
		t.Error("table reported in an empty database")
	}
	if err := c.Exec(ctx, "CREATE TABLE pgbench_accounts (aid INTEGER PRIMARY KEY)"); err != nil {
		t.Fatal(err)
	}
	if err := c.Exec(ctx, "CREATE VIEW pgbench_view AS SELECT aid FROM pgbench_accounts"); err != nil {
		t.Fatal(err)
	}
	if err := c.Exec(ctx, "CREATE INDEX pgbench_idx ON pgbench_accounts (aid)"); err != nil {
		t.Fatal(err)
	}
	if !exists("pgbench_accounts") {
		t.Error("created table not found")
	}
	for _, name := range []string{"pgbench", "pgbench_account", "pgbench_accounts2", "pgbench_view", "pgbench_idx", "pgbench_%"} {
		if exists(name) {
			t.Errorf("TableExists(%q) = true, want false", name)
		}
	}
	if err := c.Exec(ctx, "DROP TABLE pgbench_accounts"); err != nil {
		t.Fatal(err)
	}
	if exists("pgbench_accounts") {
		t.Error("dropped table still found")
	}

	if _, err := sqlwork.TableExists(ctx, &fakeSQL{dialect: "oracle"}, "t"); err == nil || !strings.Contains(err.Error(), "oracle") {
		t.Errorf("TableExists on an unsupported dialect: %v, want an error naming it", err)
	}
}

// fakeSQL is a driver.SQL of any dialect that records what it was asked to run.
type fakeSQL struct {
	dialect string
	execs   []string
}

func (f *fakeSQL) Close(context.Context) error            { return nil }
func (f *fakeSQL) Classify(error) result.ErrorClass       { return result.ErrOther }
func (f *fakeSQL) Dialect() string                        { return f.dialect }
func (f *fakeSQL) Exec(_ context.Context, q string) error { f.execs = append(f.execs, q); return nil }
func (f *fakeSQL) Prepare(context.Context, string) (driver.Stmt, error) {
	return nil, errors.New("not supported")
}
func (f *fakeSQL) QueryInt64(context.Context, string, ...any) (int64, error) {
	return 0, errors.New("not supported")
}
func (f *fakeSQL) Query(context.Context, string, ...any) (driver.Rows, error) {
	return nil, errors.New("not supported")
}

func TestPick(t *testing.T) {
	lite := sqliteConn(t, "simple")
	byDialect := map[string]string{"sqlite": "SQLITE TEXT", "postgres": "PG TEXT", "*": "GENERIC TEXT"}
	for _, tc := range []struct {
		c    driver.SQL
		want string
	}{
		{lite, "SQLITE TEXT"},
		{&fakeSQL{dialect: "postgres"}, "PG TEXT"},
		{&fakeSQL{dialect: "mysql"}, "GENERIC TEXT"}, // falls back to "*"
	} {
		got, err := sqlwork.Pick(tc.c, byDialect)
		if err != nil || got != tc.want {
			t.Errorf("Pick for %s = %q, %v; want %q", tc.c.Dialect(), got, err, tc.want)
		}
	}
	// The dialect's own entry wins even when it is empty.
	if got, err := sqlwork.Pick(lite, map[string]string{"sqlite": "", "*": "GENERIC"}); err != nil || got != "" {
		t.Errorf("Pick with an empty sqlite entry = %q, %v; want \"\"", got, err)
	}

	_, err := sqlwork.Pick(lite, map[string]string{"postgres": "PG", "mysql": "MY"})
	if err == nil {
		t.Fatal("Pick without a sqlite or * entry succeeded")
	}
	for _, want := range []string{"sqlite", "postgres", "mysql"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("Pick error %q does not mention %q", err, want)
		}
	}
	if _, err := sqlwork.Pick(lite, nil); err == nil {
		t.Error("Pick from no statements succeeded")
	}
}

func TestRollback(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel() // the rollback must run even after the run's context ended
	f := &fakeSQL{dialect: "sqlite"}
	orig := errors.New("serialization failure")
	if got := sqlwork.Rollback(ctx, f, orig); got != orig {
		t.Errorf("Rollback returned %v, want the original error", got)
	}
	if len(f.execs) != 1 || f.execs[0] != "ROLLBACK" {
		t.Errorf("Rollback ran %q, want [ROLLBACK]", f.execs)
	}

	// On a lite connection the transaction is over afterwards.
	c := sqliteConn(t, "prepared")
	bg := context.Background()
	if err := c.Exec(bg, "CREATE TABLE t (x INTEGER)"); err != nil {
		t.Fatal(err)
	}
	if err := c.Exec(bg, "BEGIN IMMEDIATE"); err != nil {
		t.Fatal(err)
	}
	if err := c.Exec(bg, "INSERT INTO t VALUES (1)"); err != nil {
		t.Fatal(err)
	}
	_ = sqlwork.Rollback(ctx, c, orig)
	if n, err := c.QueryInt64(bg, "SELECT count(*) FROM t"); err != nil || n != 0 {
		t.Errorf("rows after Rollback = %d, %v; want 0", n, err)
	}
	if err := c.Exec(bg, "BEGIN IMMEDIATE"); err != nil {
		t.Errorf("BEGIN after Rollback: %v (transaction still open?)", err)
	} else {
		_ = c.Exec(bg, "ROLLBACK")
	}
}

func TestNeedsLoadDecisions(t *testing.T) {
	ctx := context.Background()
	c := sqliteConn(t, "simple")
	usable := true
	d := sqlwork.Dataset{Name: "demo", Params: "size=1", Tables: []string{"t1", "t2"}, Tool: "demotool", Wanted: "size 1",
		Inspect: func(context.Context) (sqlwork.Inspection, error) {
			return sqlwork.Inspection{Usable: usable, Holds: "size 9", Ask: "size = 9"}, nil
		}}
	quiet := func(string, ...any) {}
	need := func(replace bool) (bool, error) { return sqlwork.NeedsLoad(ctx, c, d, replace, quiet) }

	if load, err := need(false); err != nil || !load {
		t.Fatalf("no tables: load=%v err=%v, want a load", load, err)
	}
	if err := c.Exec(ctx, "CREATE TABLE t1 (x INTEGER)"); err != nil {
		t.Fatal(err)
	}
	// Half a foreign dataset: refused without replace, named as incomplete.
	if _, err := need(false); err == nil || !strings.Contains(err.Error(), "incomplete set of demotool tables") || !strings.Contains(err.Error(), "--replace") {
		t.Fatalf("incomplete foreign tables: %v", err)
	}
	c.Exec(ctx, "CREATE TABLE t2 (x INTEGER)")
	// A complete foreign dataset Inspect accepts is reused; one it rejects is refused.
	if load, err := need(false); err != nil || load {
		t.Fatalf("usable foreign tables: load=%v err=%v, want reuse", load, err)
	}
	usable = false
	if _, err := need(false); err == nil || !strings.Contains(err.Error(), "demotool tables with size 9") || !strings.Contains(err.Error(), "wanted size 1") ||
		!strings.Contains(err.Error(), "ask for size = 9 to use them") {
		t.Fatalf("unusable foreign tables: %v", err)
	}
	if load, err := need(true); err != nil || !load {
		t.Fatalf("with replace: load=%v err=%v", load, err)
	}
	// fairbench's own data: reused with the same parameters, reloaded otherwise.
	if err := sqlwork.WriteMarker(ctx, c, "demo", "size=1", sqlwork.Ready, d.Tables); err != nil {
		t.Fatal(err)
	}
	if load, err := need(false); err != nil || load {
		t.Fatalf("own data, same parameters: load=%v err=%v", load, err)
	}
	d.Params = "size=2"
	if load, err := need(false); err != nil || !load {
		t.Fatalf("own data, other parameters: load=%v err=%v, want a reload without --replace", load, err)
	}
	sqlwork.WriteMarker(ctx, c, "demo", "size=2", sqlwork.Loading, nil)
	if load, err := need(false); err != nil || !load {
		t.Fatalf("own unfinished load: load=%v err=%v, want a reload", load, err)
	}

	// Another tool recreates t2 over fairbench's load: the marker no longer
	// owns the tables, so they are inspected like anyone else's, refused without
	// --replace when Inspect rejects them, and the stale marker is forgotten.
	if err := sqlwork.WriteMarker(ctx, c, "demo", "size=2", sqlwork.Ready, d.Tables); err != nil {
		t.Fatal(err)
	}
	recreate(t, c, "t2")
	if _, err := need(false); err == nil || !strings.Contains(err.Error(), "did not create") {
		t.Fatalf("tables recreated by another tool: %v, want a refusal", err)
	}
	if found, _ := sqlwork.MarkerFound(ctx, c, "demo"); found {
		t.Error("the stale marker is still there")
	}
	usable = true
	if load, err := need(false); err != nil || load {
		t.Fatalf("recreated tables that Inspect accepts: load=%v err=%v, want reuse", load, err)
	}
}

// recreate drops a table and creates it again, as pgbench -i or sysbench
// prepare do. SQLite hands a freed root page to the next table created, so a
// filler table takes it first: the identity must change as on other engines.
func recreate(t *testing.T, c driver.SQL, table string) {
	t.Helper()
	ctx := context.Background()
	for _, q := range []string{"DROP TABLE " + table, "CREATE TABLE filler_" + table + " (x INTEGER)", "CREATE TABLE " + table + " (x INTEGER)"} {
		if err := c.Exec(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
}

func TestOwnsFollowsTheTablesIdentity(t *testing.T) {
	ctx := context.Background()
	c := sqliteConn(t, "prepared")
	tables := []string{"a", "b"}
	owns := func() bool {
		t.Helper()
		ok, err := sqlwork.Owns(ctx, c, "ds", tables)
		if err != nil {
			t.Fatal(err)
		}
		return ok
	}
	mark := func(state string, recorded []string) {
		t.Helper()
		if err := sqlwork.WriteMarker(ctx, c, "ds", "p", state, recorded); err != nil {
			t.Fatal(err)
		}
	}
	for _, tb := range tables {
		if err := c.Exec(ctx, "CREATE TABLE "+tb+" (x INTEGER)"); err != nil {
			t.Fatal(err)
		}
	}
	if owns() {
		t.Error("owned without a marker")
	}
	// An unfinished load owns whatever is there: fairbench was replacing it.
	mark(sqlwork.Loading, nil)
	if !owns() {
		t.Error("a loading marker does not own its tables")
	}
	// A finished load without recorded identities (as an older fairbench left
	// it) cannot tell its tables from look-alikes, so it owns nothing.
	mark(sqlwork.Ready, nil)
	if owns() {
		t.Error("a ready marker without identities owns the tables")
	}
	mark(sqlwork.Ready, tables)
	if !owns() {
		t.Error("a ready marker does not own the tables it recorded")
	}
	if err := c.Exec(ctx, "DELETE FROM a"); err != nil {
		t.Fatal(err)
	}
	if !owns() {
		t.Error("emptying a table changed its identity")
	}
	// A table dropped by hand leaves the rest fairbench's.
	if err := c.Exec(ctx, "DROP TABLE a"); err != nil {
		t.Fatal(err)
	}
	if !owns() {
		t.Error("a missing table made the others someone else's")
	}
	recreate(t, c, "b")
	if owns() {
		t.Error("a recreated table still counts as fairbench's")
	}
	if err := sqlwork.WriteMarker(ctx, c, "ds", "p", sqlwork.Ready, []string{"nosuch"}); err == nil || !strings.Contains(err.Error(), "nosuch") {
		t.Errorf("recording a missing table: %v, want an error naming it", err)
	}
	if err := sqlwork.DeleteMarker(ctx, c, "ds"); err != nil {
		t.Fatal(err)
	}
	if n, err := c.QueryInt64(ctx, "SELECT count(*) FROM "+sqlwork.IdentityTable); err != nil || n != 0 {
		t.Errorf("%d identity rows after DeleteMarker (%v)", n, err)
	}
}
