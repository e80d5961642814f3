package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestSSBCommandLine: `fairbench run --workload ssb` on the embedded
// default loads SSB, prints ClickBench's tries per query, stores the run,
// and `report` writes ClickBench's result file and an HTML page with the
// per-query bar chart.
func TestSSBCommandLine(t *testing.T) {
	dir := t.TempDir()
	target := "sqlite:" + filepath.Join(dir, "ssb.db")
	o := fairbench(t, dir, "run", "--target", target, "--workload", "ssb", "--scale", "0.01", "--seed", "136",
		"--tries", "2", "--queries", "Q1.1,Q2.1,Q4.3")
	if o.code != 0 {
		t.Fatalf("run: %s\n%s", o.stdout, o.stderr)
	}
	for _, want := range []string{"Q1.1", "Q2.1", "Q4.3", "cold (s)", "hot (s)", "geometric mean of the hot times", "over 3 of 3 queries"} {
		if !strings.Contains(o.stdout, want) {
			t.Errorf("run output lacks %q:\n%s", want, o.stdout)
		}
	}
	if strings.Contains(o.stdout, "Q3.1") {
		t.Errorf("--queries ran other queries:\n%s", o.stdout)
	}
	o = fairbench(t, dir, "report", "--format", "clickbench")
	if o.code != 0 {
		t.Fatalf("report --format clickbench: %s", o.stderr)
	}
	var cb struct {
		System   string       `json:"system"`
		LoadTime *float64     `json:"load_time"`
		DataSize *int64       `json:"data_size"`
		Result   [][]*float64 `json:"result"`
	}
	if err := json.Unmarshal([]byte(o.stdout), &cb); err != nil {
		t.Fatalf("%v:\n%s", err, o.stdout)
	}
	if !strings.HasPrefix(cb.System, "sqlite") || cb.LoadTime == nil || cb.DataSize == nil || *cb.DataSize <= 0 || len(cb.Result) != 3 || len(cb.Result[0]) != 2 || cb.Result[2][1] == nil {
		t.Errorf("ClickBench file: %s", o.stdout)
	}
	o = fairbench(t, dir, "report", "--format", "html", "-o", "r.html")
	if o.code != 0 {
		t.Fatalf("report --format html: %s", o.stderr)
	}
	b, err := os.ReadFile(filepath.Join(dir, "r.html"))
	if err != nil {
		t.Fatal(err)
	}
	page := string(b)
	if !strings.Contains(page, "Hot time per query") || !strings.Contains(page, "Per query: hot time") {
		t.Error("the HTML report lacks the per-query table and bar chart")
	}
	o = fairbench(t, dir, "report", "--format", "nonsense")
	if o.code == 0 || !strings.Contains(o.stderr, "clickbench") {
		t.Errorf("an unknown format: %d %s", o.code, o.stderr)
	}
}
