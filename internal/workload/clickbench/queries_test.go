package clickbench

import (
	"os"
	"strings"
	"testing"
)

// TestQueriesAreClickBenchs compares every query with its line in the copies
// of ClickBench's queries.sql (testdata/README.md), less the semicolon.
func TestQueriesAreClickBenchs(t *testing.T) {
	if len(Queries) != 43 {
		t.Fatalf("%d queries, want 43", len(Queries))
	}
	for dialect, file := range map[string]string{SQLite: "sqlite", Postgres: "postgresql", ClickHouse: "clickhouse"} {
		b, err := os.ReadFile("testdata/" + file + "-queries.sql")
		if err != nil {
			t.Fatal(err)
		}
		lines := strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
		if len(lines) != 43 {
			t.Fatalf("%s: %d lines", file, len(lines))
		}
		for i, q := range Queries {
			if want := "Q" + itoa(i); q.Name != want {
				t.Errorf("query %d is named %s, want %s", i, q.Name, want)
			}
			if got, want := q.SQL[dialect], strings.TrimSuffix(lines[i], ";"); got != want {
				t.Errorf("%s %s:\n%s\nClickBench's %s/queries.sql line %d:\n%s", dialect, q.Name, got, file, i+1, want)
			}
			if q.Deviations[dialect] != "" {
				t.Errorf("%s %s: deviation %q for ClickBench's own text", dialect, q.Name, q.Deviations[dialect])
			}
		}
	}
}

// TestClickHouse18Rewrites: 18.16's texts are ClickBench's but for Q28 and
// Q42, each with its deviation stated.
func TestClickHouse18Rewrites(t *testing.T) {
	for _, q := range Queries {
		same := q.SQL[ClickHouse18] == q.SQL[ClickHouse]
		switch q.Name {
		case "Q28", "Q42":
			if same || q.Deviations[ClickHouse18] == "" {
				t.Errorf("%s: not rewritten for 18.16, or no deviation stated", q.Name)
			}
		default:
			if !same || q.Deviations[ClickHouse18] != "" {
				t.Errorf("%s: 18.16's text differs or has a deviation:\n%s", q.Name, q.SQL[ClickHouse18])
			}
		}
	}
	q28, _ := queryNamed("Q28")
	want := `replaceRegexpAll(Referer, '^https?://(?:www\\.)?([^/]+)/.*$', '\\1') AS k`
	if !strings.Contains(q28.SQL[ClickHouse18], want) {
		t.Errorf("Q28 for 18.16 lacks %s:\n%s", want, q28.SQL[ClickHouse18])
	}
	q42, _ := queryNamed("Q42")
	if strings.Contains(q42.SQL[ClickHouse18], "DATE_TRUNC") || strings.Count(q42.SQL[ClickHouse18], "toStartOfMinute(EventTime)") != 3 {
		t.Errorf("Q42 for 18.16:\n%s", q42.SQL[ClickHouse18])
	}
	if _, ok := queryNamed("Q43"); ok {
		t.Error("a Q43")
	}
}
