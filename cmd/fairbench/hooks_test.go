package main

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/fairbench/fairbench/internal/result"
)

// A study of SSB on SQLite whose target has a restart command (here one
// appending to a marker file): validate lists the commands, each query's
// first try comes after a restart, the stored run records its cold tries
// as true cold ones with every command's record, and the report says so.
func TestStudyHooksAndTrueColdTries(t *testing.T) {
	endToEnd(t)
	dir := t.TempDir()
	marker := filepath.Join(dir, "marker")
	doc := `[study]
before_run = "echo before_run >> ` + marker + `"
after_run = "echo after_run >> ` + marker + `"
[[target]]
name = "lite"
url = "sqlite:` + filepath.Join(dir, "ssb.db") + `"
restart = "echo restart $FAIRBENCH_TARGET >> ` + marker + `"
[[workload]]
kind = "ssb"
scale = 0.01
tries = 2
queries = ["Q1.1", "Q2.1", "Q4.3"]
`
	if err := os.WriteFile(filepath.Join(dir, "study.toml"), []byte(doc), 0o644); err != nil {
		t.Fatal(err)
	}
	o := fairbench(t, dir, "validate", "study.toml")
	if o.code != 0 || !strings.Contains(o.stdout, "commands around runs") || !strings.Contains(o.stdout, "target lite restart") ||
		!strings.Contains(o.stdout, "before_run") {
		t.Fatalf("validate does not list the commands (%d): %s\n%s", o.code, o.stdout, o.stderr)
	}
	if _, err := os.Stat(marker); err == nil {
		t.Fatal("validate ran a command")
	}
	o = fairbench(t, dir, "run", "study.toml")
	if o.code != 0 {
		t.Fatalf("run: %s\n%s", o.stdout, o.stderr)
	}
	runs := storedRuns(t, dir)
	if len(runs) != 1 {
		t.Fatalf("%d runs", len(runs))
	}
	r := runs[0]
	if !slices.Equal(r.Summary.ColdBy, []string{result.HookRestart}) {
		t.Errorf("cold by %v, want restart", r.Summary.ColdBy)
	}
	var got []string
	for _, h := range r.Hooks {
		got = append(got, h.Hook+" "+h.Before)
		if !h.OK() {
			t.Errorf("record %+v", h)
		}
	}
	// The restarts come during the measured tries, after before_run.
	if !slices.Equal(got, []string{"before_run ", "restart Q1.1", "restart Q2.1", "restart Q4.3", "after_run "}) {
		t.Errorf("stored records %q", got)
	}
	b, _ := os.ReadFile(marker)
	if want := "before_run\nrestart lite\nrestart lite\nrestart lite\nafter_run\n"; string(b) != want {
		t.Errorf("the commands ran as %q, want %q", b, want)
	}
	o = fairbench(t, dir, "report", "--format", "markdown")
	if o.code != 0 || !strings.Contains(o.stdout, "Commands around runs: before_run 1×, restart 3× (before each query's first try), after_run 1×") ||
		!strings.Contains(o.stdout, "true cold: restart before each query's first try") {
		t.Errorf("report (%d) lacks the commands line or the cold note:\n%s\n%s", o.code, o.stdout, o.stderr)
	}
}
