package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fairbench/fairbench/internal/workload/clickbench"
	"github.com/fairbench/fairbench/internal/workload/queryset"
	"github.com/fairbench/fairbench/internal/workload/ssb"
)

func runQueries(t *testing.T, args ...string) (string, error) {
	t.Helper()
	root := newRoot()
	var out bytes.Buffer
	root.SetOut(&out)
	root.SetArgs(append([]string{"queries"}, args...))
	err := root.Execute()
	return out.String(), err
}

func parseStatements(t *testing.T, out string) []queryset.Statement {
	t.Helper()
	var stmts []queryset.Statement
	sc := bufio.NewScanner(strings.NewReader(out))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var s queryset.Statement
		dec := json.NewDecoder(strings.NewReader(sc.Text()))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&s); err != nil {
			t.Fatalf("line %q: %v", sc.Text(), err)
		}
		stmts = append(stmts, s)
	}
	return stmts
}

// TestQueriesCommandPrintsEveryText: for each query-set workload, engine
// and ClickHouse dialect, --json prints lines that parse, a CREATE TABLE
// and a load or fill per table before the queries, and every query of the
// kind with the workload's own text for that dialect and form.
func TestQueriesCommandPrintsEveryText(t *testing.T) {
	ssbText := func(form, d string) map[string]string {
		out := map[string]string{}
		for _, q := range ssb.Queries {
			out[q.Name] = q.Join[d]
			if form == ssb.FormFlat {
				out[q.Name] = q.Flat[d]
			}
		}
		return out
	}
	cbText := func(d string) map[string]string {
		out := map[string]string{}
		for _, q := range clickbench.Queries {
			out[q.Name] = q.SQL[d]
		}
		return out
	}
	for _, tc := range []struct {
		args   []string
		tables []string
		want   map[string]string
	}{
		{[]string{"--workload", "ssb", "--engine", "clickhouse"}, append(ssb.Tables, ssb.Flat), ssbText(ssb.FormFlat, ssb.ClickHouse)},
		{[]string{"--workload", "ssb", "--engine", "clickhouse", "--form", "join"}, ssb.Tables, ssbText(ssb.FormJoin, ssb.ClickHouse)},
		{[]string{"--workload", "ssb", "--engine", "clickhouse", "--dialect", "18.16"}, append(ssb.Tables, ssb.Flat), ssbText(ssb.FormFlat, ssb.ClickHouse18)},
		{[]string{"--workload", "ssb", "--engine", "postgres"}, ssb.Tables, ssbText(ssb.FormJoin, ssb.Postgres)},
		{[]string{"--workload", "ssb", "--engine", "sqlite", "--form", "flat"}, append(ssb.Tables, ssb.Flat), ssbText(ssb.FormFlat, ssb.SQLite)},
		{[]string{"--workload", "clickbench", "--engine", "clickhouse"}, []string{clickbench.Table}, cbText(clickbench.ClickHouse)},
		{[]string{"--workload", "clickbench", "--engine", "clickhouse", "--dialect", "18.16"}, []string{clickbench.Table}, cbText(clickbench.ClickHouse18)},
		{[]string{"--workload", "clickbench", "--engine", "postgres"}, []string{clickbench.Table}, cbText(clickbench.Postgres)},
		{[]string{"--workload", "clickbench", "--engine", "sqlite"}, []string{clickbench.Table}, cbText(clickbench.SQLite)},
	} {
		out, err := runQueries(t, append(tc.args, "--json")...)
		if err != nil {
			t.Fatalf("%v: %v", tc.args, err)
		}
		stmts := parseStatements(t, out)
		created, filled := map[string]bool{}, map[string]bool{}
		got := map[string]string{}
		for _, s := range stmts {
			switch s.Kind {
			case queryset.StmtCreate:
				if !strings.HasPrefix(s.SQL, "CREATE TABLE "+s.Name+" (") {
					t.Errorf("%v: create %s: %q", tc.args, s.Name, s.SQL)
				}
				created[s.Name] = true
			case queryset.StmtLoad, queryset.StmtFill:
				if !created[s.Name] || s.SQL == "" {
					t.Errorf("%v: %s of %s before its CREATE TABLE, or without a statement: %+v", tc.args, s.Kind, s.Name, s)
				}
				if s.Kind == queryset.StmtLoad && len(s.Columns) == 0 {
					t.Errorf("%v: the load of %s names no columns", tc.args, s.Name)
				}
				filled[s.Name] = true
			case queryset.StmtQuery:
				if len(filled) != len(tc.tables) {
					t.Errorf("%v: query %s before every table is loaded (%v)", tc.args, s.Name, filled)
				}
				got[s.Name] = s.SQL
			default:
				t.Errorf("%v: statement of kind %q", tc.args, s.Kind)
			}
		}
		for _, table := range tc.tables {
			if !created[table] || !filled[table] {
				t.Errorf("%v: table %s created %v, loaded or filled %v", tc.args, table, created[table], filled[table])
			}
		}
		if len(got) != len(tc.want) {
			t.Errorf("%v: %d queries, want %d", tc.args, len(got), len(tc.want))
		}
		for name, text := range tc.want {
			if text == "" || got[name] != text {
				t.Errorf("%v: %s is %q, want %q", tc.args, name, got[name], text)
			}
		}

		// The SQL script says the same: one comment and statement per query.
		script, err := runQueries(t, tc.args...)
		if err != nil {
			t.Fatalf("%v: %v", tc.args, err)
		}
		for name, text := range tc.want {
			if !strings.Contains(script, "-- query "+name+"\n"+text+";\n") {
				t.Errorf("%v: the SQL script lacks %s:\n%s", tc.args, name, script)
			}
		}
	}
}

// TestQueriesCommandWritesRows: --data writes each loaded table's generated
// rows, as many fields a line as the load names columns, and the loads name
// their files.
func TestQueriesCommandWritesRows(t *testing.T) {
	dir := t.TempDir()
	out, err := runQueries(t, "--workload", "ssb", "--engine", "clickhouse", "--scale", "0.001", "--json", "--data", dir)
	if err != nil {
		t.Fatal(err)
	}
	loads := 0
	for _, s := range parseStatements(t, out) {
		if s.Kind != queryset.StmtLoad {
			continue
		}
		loads++
		if s.File != s.Name+".tsv" || !strings.HasSuffix(s.SQL, "FORMAT TSV") {
			t.Errorf("load %+v", s)
		}
		data, err := os.ReadFile(filepath.Join(dir, s.File))
		if err != nil {
			t.Fatal(err)
		}
		lines := strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
		if len(data) == 0 || len(lines) == 0 {
			t.Errorf("%s: no rows", s.File)
			continue
		}
		for i, line := range lines {
			if n := strings.Count(line, "\t") + 1; n != len(s.Columns) {
				t.Fatalf("%s line %d: %d fields, want %d", s.File, i+1, n, len(s.Columns))
			}
		}
	}
	if loads != len(ssb.Tables) {
		t.Errorf("%d loads, want %d (lineorder_flat is filled by the join)", loads, len(ssb.Tables))
	}
}

func TestQueriesCommandErrors(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--engine", "clickhouse"}, "--workload is required (clickbench, ssb)"},
		{[]string{"--workload", "ssb"}, "--engine is required"},
		{[]string{"--workload", "ssb", "--engine", "postgres", "--dialect", "18.16"}, "postgres has one dialect"},
		{[]string{"--workload", "ssb", "--engine", "clickhouse", "--dialect", "25"}, "ClickHouse's are modern and 18.16"},
		{[]string{"--workload", "ssb", "--engine", "mysql"}, "ssb has no schema for the mysql dialect"},
		{[]string{"--workload", "ssb", "--engine", "clickhouse", "--dialect", "18.16", "--form", "join"}, "cannot join more than two tables"},
		{[]string{"--workload", "oltp", "--engine", "postgres"}, "the query-set workloads do: clickbench, ssb"},
	} {
		_, err := runQueries(t, tc.args...)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v: error %v, want one naming %q", tc.args, err, tc.want)
		}
	}
}
