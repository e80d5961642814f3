package main

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// copySchema2 copies the schema-2 results file fixture into dir as
// schema2.db and returns the fixture's folder (its golden reports).
func copySchema2(t *testing.T, dir string) string {
	t.Helper()
	fixture := filepath.Join("..", "..", "internal", "store", "testdata", "schema2")
	data, err := os.ReadFile(filepath.Join(fixture, "schema2.db"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "schema2.db"), data, 0o644); err != nil {
		t.Fatal(err)
	}
	return fixture
}

// A results file written before results schema 3 (by fairbench at 23c5a23)
// opens, reports and compares with the numbers that fairbench printed for it
// then: every table row is the same, whatever wording changed around them.
func TestOldResultsFileReportsTheSameNumbers(t *testing.T) {
	dir := t.TempDir()
	fixture := copySchema2(t, dir)
	for _, c := range []struct {
		golden string
		args   []string
	}{
		{"report-23c5a23.txt", []string{"report", "--results", "schema2.db"}},
		{"compare-23c5a23.txt", []string{"compare", "--results", "schema2.db", "--baseline", "wal"}},
	} {
		o := fairbench(t, dir, c.args...)
		if o.code != 0 {
			t.Fatalf("%v: exit %d: %s", c.args, o.code, o.stderr)
		}
		want, err := os.ReadFile(filepath.Join(fixture, c.golden))
		if err != nil {
			t.Fatal(err)
		}
		w, g := rows(string(want)), rows(o.stdout)
		if len(w) < 6 {
			t.Fatalf("%s: only %d rows in the golden output", c.golden, len(w))
		}
		if strings.Join(w, "\n") != strings.Join(g, "\n") {
			t.Fatalf("%v: table rows differ from what 23c5a23 printed:\nwant:\n%s\ngot:\n%s", c.args, strings.Join(w, "\n"), strings.Join(g, "\n"))
		}
	}
}

// rows keeps the table rows of the two targets: the numbers, not the prose
// (nor the findings and key tables a report now opens with).
//
// The table of cells has since gained the exact average latency ("avg ms",
// which 23c5a23 did not print) and tables of other numbers follow it: the
// rows compared are the table's own, without that column.
func rows(out string) []string {
	var keep []string
	table := cellTable(out)
	if i := strings.Index(table, "\n\n"); i >= 0 && strings.HasPrefix(table, "target  workload") {
		table = table[:i]
	}
	avg := -1
	for i, h := range strings.Fields(strings.ReplaceAll(strings.SplitN(table, "\n", 2)[0], " ms", "_ms")) {
		if h == "avg_ms" {
			avg = i
		}
	}
	for _, l := range strings.Split(table, "\n") {
		f := strings.Fields(l)
		if avg >= 0 && len(f) > avg && (f[0] == "wal" || f[0] == "delete") {
			// "tps (median)" is two header fields and one row field.
			f = append(f[:avg-1:avg-1], f[avg:]...)
		}
		if len(f) > 3 && (f[0] == "wal" || f[0] == "delete") {
			// A comparison's "n" column ("2/2") moved into its change's
			// "(p=… n=2)": the rows compared are without it.
			f = slices.DeleteFunc(f, func(x string) bool { return nPair.MatchString(x) })
			// A comparison row up to its delta: the interval and verdict after
			// it changed on purpose (Welch's t on logs decides where
			// Mann–Whitney cannot, with its own interval).
			for i, x := range f {
				if x == "%" && i > 0 && strings.ContainsAny(f[i-1], "+-") && i+1 < len(f) {
					f = f[:i+1]
					break
				}
			}
			keep = append(keep, strings.Join(f, " "))
		}
	}
	return keep
}

// nPair is a comparison row's old "n" column: the baseline's and the
// target's repetitions.
var nPair = regexp.MustCompile(`^[0-9]+/[0-9]+$`)

// cellTable is a report's output from its table of cells on (the header
// line "target  workload …" or a comparison's "target  scenario …"): the
// findings and key tables before it are left out.
func cellTable(out string) string {
	for _, h := range []string{"\ntarget  workload", "\ntarget  scenario", "\ntarget    scenario"} {
		if i := strings.Index(out, h); i >= 0 {
			return out[i+1:]
		}
	}
	return out
}
