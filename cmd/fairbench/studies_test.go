package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// `fairbench studies` lists the studies of a results file, the most recent
// (report's default) last; a --study that names none lists the names, the
// closest to the typo first, instead of "no runs match".
func TestStudiesListsThemAndATypoNamesThem(t *testing.T) {
	dir := t.TempDir()
	study := filepath.Join(dir, "alpha.toml")
	if err := os.WriteFile(study, []byte(`[study]
name = "alpha"
warmup = "0s"
duration = "1s"
[[target]]
name = "t"
url = "sqlite:a.db"
[[workload]]
kind = "tpcb"
mode = "select-only"
clients = [1]
`), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{
		{"run", study},
		{"run", "--target", "bbolt:k.db", "--workload", "kv", "-c", "1", "--test-time", "1"},
	} {
		if o := fairbench(t, dir, args...); o.code != 0 {
			t.Fatalf("%v: exit %d\n%s", args, o.code, o.stderr)
		}
	}
	o := fairbench(t, dir, "studies")
	lines := strings.Split(strings.TrimSpace(o.stdout), "\n")
	if o.code != 0 || len(lines) != 4 || !strings.HasPrefix(lines[0], "study ") {
		t.Fatalf("studies: exit %d\n%s%s", o.code, o.stdout, o.stderr)
	}
	// The study first, the ad-hoc run (the most recent) last; each row:
	// name, first run, last run, runs, not completed, targets, workloads.
	first, second := strings.Fields(lines[1]), strings.Fields(lines[2])
	if len(first) != 9 || first[0] != "alpha" || first[5] != "1" || first[6] != "0" || first[7] != "1" || first[8] != "1" ||
		!strings.HasPrefix(lines[2], "ad hoc ") || len(second) != 10 || second[6] != "1" {
		t.Fatalf("studies rows:\n%s", o.stdout)
	}
	name := first[0]
	o = fairbench(t, dir, "report", "--study", name+"x")
	if o.code == 0 || !strings.Contains(o.stderr, "no such study") || !strings.Contains(o.stderr, `"`+name+`"`) {
		t.Fatalf("report --study with a typo: exit %d\n%s", o.code, o.stderr)
	}
	if i, j := strings.Index(o.stderr, `"alpha"`), strings.Index(o.stderr, `"ad hoc"`); i < 0 || j < 0 || i > j {
		t.Errorf("the closest name is not first: %s", o.stderr)
	}
	if o := fairbench(t, dir, "report", "--study", name); o.code != 0 {
		t.Errorf("report --study %s: exit %d\n%s", name, o.code, o.stderr)
	}
}
