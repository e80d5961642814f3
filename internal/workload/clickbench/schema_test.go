package clickbench

import (
	"os"
	"regexp"
	"strings"
	"testing"
)

func TestColumns(t *testing.T) {
	cols := Columns()
	if len(cols) != 105 {
		t.Fatalf("%d columns, want 105", len(cols))
	}
	seen := map[string]bool{}
	for _, c := range cols {
		if seen[c] {
			t.Errorf("column %s twice", c)
		}
		seen[c] = true
	}
	if cols[0] != "WatchID" || cols[104] != "CLID" || cols[13] != "URL" {
		t.Errorf("columns out of create.sql's order: %s, %s, %s", cols[0], cols[13], cols[104])
	}
	pg := LoadColumns(Postgres)
	if pg[0] != "watchid" || LoadColumns(ClickHouse18)[0] != "WatchID" || Columns()[0] != "WatchID" {
		t.Errorf("LoadColumns: %s for PostgreSQL, %s for 18.16", pg[0], LoadColumns(ClickHouse18)[0])
	}
}

// normalize drops SQL comments and collapses white space around
// punctuation, so that a one-line statement compares with a file's layout.
func normalize(s string) string {
	s = regexp.MustCompile(`--[^\n]*`).ReplaceAllString(s, "")
	s = regexp.MustCompile(`\s+`).ReplaceAllString(s, " ")
	s = regexp.MustCompile(` ?([(),;]) ?`).ReplaceAllString(s, "$1")
	return strings.TrimSuffix(strings.TrimSpace(s), ";")
}

// TestCreateTable compares each dialect's statement with ClickBench's
// create.sql for that system, less the deviations tableDeviations states.
func TestCreateTable(t *testing.T) {
	read := func(name string) string {
		b, err := os.ReadFile("testdata/" + name)
		if err != nil {
			t.Fatal(err)
		}
		return normalize(string(b))
	}
	for _, c := range []struct{ dialect, file string }{{SQLite, "sqlite-create.sql"}, {Postgres, "postgresql-create.sql"}} {
		got, err := CreateTable(c.dialect)
		if err != nil {
			t.Fatal(err)
		}
		if normalize(got) != read(c.file) {
			t.Errorf("%s:\n%s\nClickBench's:\n%s", c.dialect, normalize(got), read(c.file))
		}
		if tableDeviations[c.dialect] != "" {
			t.Errorf("%s: deviation %q for ClickBench's own text", c.dialect, tableDeviations[c.dialect])
		}
	}
	ch, _ := CreateTable(ClickHouse)
	want := strings.Replace(read("clickhouse-create.sql"), "CREATE OR REPLACE TABLE", "CREATE TABLE", 1)
	want = strings.Replace(want, ",auto_statistics_types = ''", "", 1)
	if normalize(ch) != want {
		t.Errorf("clickhouse:\n%s\nClickBench's, less the deviations:\n%s", normalize(ch), want)
	}
	ch18, _ := CreateTable(ClickHouse18)
	for _, part := range []string{"WatchID Int64", "Title String", "EventTime DateTime", "EventDate Date", "HitColor FixedString(1)",
		"UserAgentMinor String", "CLID Int32) ENGINE = MergeTree ORDER BY (CounterID, EventDate, UserID, EventTime, WatchID)"} {
		if !strings.Contains(ch18, part) {
			t.Errorf("18.16's statement lacks %q:\n%s", part, ch18)
		}
	}
	for _, word := range []string{"BIGINT", "SMALLINT", "TEXT", "TIMESTAMP", "NOT NULL", "PRIMARY KEY"} {
		if strings.Contains(ch18, word) {
			t.Errorf("18.16's statement has %s, which 18.16 refuses", word)
		}
	}
	for _, d := range []string{ClickHouse, ClickHouse18} {
		if tableDeviations[d] == "" {
			t.Errorf("%s: no deviation stated", d)
		}
	}
	if _, err := CreateTable("oracle"); err == nil {
		t.Error("unknown dialect accepted")
	}
}
