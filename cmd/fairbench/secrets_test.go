package main

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/fairbench/fairbench/internal/testenv"
)

// The password of a target written in a study file reaches no byte of what
// fairbench writes or prints: the results file (the stored study included),
// the output of the study's native and tool cells, an import into the same
// file, every report format and the comparison (issue 27, defect 1).
func TestPasswordReachesNoByteOfStudyRunImportOrReport(t *testing.T) {
	pg, dir := pgbenchBesideTpcb(t, "secrets", "0s", "1s", 1)
	password := testenv.Password(t, pg)
	if password == "" || !strings.Contains(pg, password) {
		t.Fatalf("the test URL carries no password to look for")
	}
	outputs := map[string]string{}
	o := fairbench(t, dir, "run", "study.toml")
	if o.code != 0 {
		t.Fatalf("run: exit %d: %s", o.code, o.stderr)
	}
	outputs["run study.toml"] = o.stdout + o.stderr
	o = fairbench(t, dir, "validate", "study.toml")
	outputs["validate"] = o.stdout + o.stderr
	fixture, err := filepath.Abs(filepath.Join("..", "..", "internal", "adapter", "testdata", "pgbench", "pg11-simple-update-t.txt"))
	if err != nil {
		t.Fatal(err)
	}
	o = fairbench(t, dir, "import", "--target", "pg", "--study", "secrets", fixture)
	if o.code != 0 {
		t.Fatalf("import: exit %d: %s", o.code, o.stderr)
	}
	outputs["import"] = o.stdout + o.stderr
	for _, f := range []string{"text", "md", "json", "csv", "benchstat"} {
		r := fairbench(t, dir, "report", "--format", f, "--study", "secrets")
		outputs["report "+f] = r.stdout + r.stderr
	}
	r := fairbench(t, dir, "report", "--format", "html", "--study", "secrets", "-o", "report.html")
	outputs["report html"] = r.stdout + r.stderr + readAll(t, dir, "report.html")
	r = fairbench(t, dir, "compare", "--study", "secrets", "--baseline", "pg", "--format", "json")
	outputs["compare"] = r.stdout + r.stderr
	outputs["results file"] = readAll(t, dir, "fairbench.db*")
	if !strings.Contains(outputs["results file"], "pgbench") {
		t.Fatal("the results file does not hold the runs this test looks through")
	}
	for name, text := range outputs {
		if strings.Contains(text, password) {
			t.Errorf("the password appears in %s", name)
		}
	}
}
