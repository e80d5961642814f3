package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fairbench/fairbench/internal/driver"
	"github.com/fairbench/fairbench/internal/testenv"
)

// clients=100000 on SQLite is refused before anything runs (no load, no run
// stored), naming the target, the number and the open-file limit.
func TestTooManyClientsRefusedBeforeAnythingRuns(t *testing.T) {
	dir := t.TempDir()
	o := fairbench(t, dir, "run", "--target", "sqlite:x.db", "-c", "100000", "-T", "1s")
	if o.code != 1 || !strings.Contains(o.stderr, "100000 clients") || !strings.Contains(o.stderr, "open-file limit") {
		t.Fatalf("exit %d: %s", o.code, o.stderr)
	}
	if _, err := os.Stat(filepath.Join(dir, "x.db")); err == nil {
		t.Fatal("the target was touched (x.db created)")
	}
}

// More clients than PostgreSQL accepts: refused before the load, naming the
// target, the number and max_connections.
func TestTooManyClientsForPostgresRefusedBeforeTheLoad(t *testing.T) {
	url := testenv.FreshPostgres(t)
	o := fairbench(t, t.TempDir(), "run", "--target", url, "-c", "5000", "-T", "1s")
	if o.code != 1 || !strings.Contains(o.stderr, "5000 clients") || !strings.Contains(o.stderr, "max_connections") ||
		!strings.Contains(o.stderr, "postgres://bench:xxxxx@") {
		t.Fatalf("exit %d: %s", o.code, o.stderr)
	}
	c := testenv.Connect(t, url, driver.Options{}).(driver.SQL)
	if n, err := c.QueryInt64(context.Background(), "SELECT count(*) FROM pg_catalog.pg_tables WHERE tablename LIKE 'pgbench_%'"); err != nil || n != 0 {
		t.Fatalf("%d pgbench tables after the refusal (%v): something was loaded", n, err)
	}
}

// A tool cell's connections count against the server's limit too: a
// pgbench cell asking more clients than PostgreSQL accepts is refused before
// anything runs, as a native cell is.
func TestTooManyClientsForAToolCellRefused(t *testing.T) {
	url := testenv.FreshPostgres(t)
	dir := t.TempDir()
	st := fmt.Sprintf("[study]\nname = \"tool limits\"\nduration = \"1s\"\n\n[[target]]\nname = \"pg\"\nurl = %q\n\n"+
		"[[workload]]\nname = \"pgbench\"\ntool = \"pgbench\"\nmode = \"select-only\"\nclients = [5000]\n", url)
	if err := os.WriteFile(filepath.Join(dir, "study.toml"), []byte(st), 0o644); err != nil {
		t.Fatal(err)
	}
	o := fairbench(t, dir, "run", "study.toml")
	if o.code != 1 || !strings.Contains(o.stderr, "5000 clients") || !strings.Contains(o.stderr, "max_connections") {
		t.Fatalf("exit %d: %s", o.code, o.stderr)
	}
}
