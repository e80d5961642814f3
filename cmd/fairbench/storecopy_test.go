package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fairbench/fairbench/internal/testenv"
)

// A results file copied into a PostgreSQL results store and from there into a
// new file reports the same numbers at each step; a second copy skips every
// run; the password shows nowhere.
func TestStoreCopyThroughPostgres(t *testing.T) {
	pgURL := pgResults(t, "fbcopy_")
	pw := testenv.Password(t, pgURL)

	dir := t.TempDir()
	fixture := copySchema2(t, dir)
	golden, err := os.ReadFile(filepath.Join(fixture, "report-23c5a23.txt"))
	if err != nil {
		t.Fatal(err)
	}
	want := strings.Join(rows(string(golden)), "\n")

	step := func(wantOut string, args ...string) string {
		t.Helper()
		o := fairbench(t, dir, args...)
		if o.code != 0 {
			t.Fatalf("%v: exit %d: %s", args, o.code, o.stderr)
		}
		if strings.Contains(o.stdout+o.stderr, pw) {
			t.Errorf("%v: the password shows in the output:\n%s%s", args, o.stdout, o.stderr)
		}
		if !strings.Contains(o.stdout, wantOut) {
			t.Errorf("%v: output %q, want it to contain %q", args, o.stdout, wantOut)
		}
		return o.stdout
	}
	step("12 runs copied, 0 skipped", "store", "copy", "schema2.db", pgURL)
	step("0 runs copied, 12 skipped", "store", "copy", "schema2.db", pgURL)
	for _, results := range []string{pgURL, "back.db"} {
		if results == "back.db" {
			step("12 runs copied, 0 skipped", "store", "copy", pgURL, "back.db")
		}
		out := step("", "report", "--results", results)
		if got := strings.Join(rows(out), "\n"); got != want {
			t.Errorf("report --results %s: table rows differ:\nwant:\n%s\ngot:\n%s", results, want, got)
		}
	}
}
