package main

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/fairbench/fairbench/internal/driver"
	"github.com/fairbench/fairbench/internal/testenv"
)

// load --clean leaves tables fairbench did not load, and says which and
// why in one line, as sysbench's cleanup does: tpcc on PostgreSQL and
// SQLite, ssb on ClickHouse and SQLite. On main it left them and exited 0
// without a word.
func TestCleanSaysWhichForeignTablesItLeaves(t *testing.T) {
	for _, tc := range []struct {
		name, workload, table string
		url                   func(t *testing.T) string
	}{
		{"tpcc on sqlite", "tpcc", "warehouse", sqliteIn},
		{"ssb on sqlite", "ssb", "lineorder", sqliteIn},
		{"tpcc on postgres", "tpcc", "warehouse", func(t *testing.T) string { return testenv.FreshPostgres(t) }},
		{"ssb on clickhouse", "ssb", "lineorder", func(t *testing.T) string { return testenv.FreshClickHouse(t) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			url := tc.url(t)
			sql := testenv.Connect(t, url, driver.Options{}).(driver.SQL)
			ctx := context.Background()
			ddl := "CREATE TABLE " + tc.table + " (id INTEGER)"
			if sql.Dialect() == "clickhouse" {
				ddl += " ENGINE = Memory"
			}
			if err := sql.Exec(ctx, ddl); err != nil {
				t.Fatal(err)
			}
			o := fairbench(t, t.TempDir(), "load", "--target", url, "--workload", tc.workload, "--clean")
			assertOneLineError(t, o, tc.table+" left alone: fairbench's marker does not say it created them")
			n, err := sql.QueryInt64(ctx, "SELECT count(*) FROM "+tc.table)
			if err != nil || n != 0 {
				t.Fatalf("the foreign table %s is gone or changed: %d rows, %v", tc.table, n, err)
			}
		})
	}
}

func sqliteIn(t *testing.T) string { return "sqlite:" + filepath.Join(t.TempDir(), "foreign.db") }

// validate refuses a workload on a target whose driver offers none of the
// capabilities the workload needs, naming the target and the workload, at
// the workload's line: on main, kv on sqlite: passed validate and failed at
// run time.
func TestValidateRefusesAWorkloadTheTargetCannotSpeak(t *testing.T) {
	dir := t.TempDir()
	write := func(text string) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(dir, "kv.toml"), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("[study]\nname = \"s\"\n\n[[target]]\nname = \"lite\"\nurl = \"sqlite:x.db\"\n\n[[workload]]\nkind = \"kv\"\n")
	assertOneLineError(t, fairbench(t, dir, "validate", "kv.toml"),
		"kv.toml:8:", `workload "kv"`, `target "lite"`, "needs a key-value target", "sqlite: targets speak SQL")
	write("[study]\nname = \"s\"\n\n[[target]]\nname = \"bolt\"\nurl = \"bbolt:x.bolt\"\n\n[[workload]]\nkind = \"kv\"\n")
	if o := fairbench(t, dir, "validate", "kv.toml"); o.code != 0 {
		t.Fatalf("kv on bbolt refused: %s", o.stderr)
	}
}
