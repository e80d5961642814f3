package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/fairbench/fairbench/internal/result"
	"github.com/fairbench/fairbench/internal/testenv"
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
	if !strings.Contains(page, "Hot time per query") || !strings.Contains(page, "Per query: cold and hot time") {
		t.Error("the HTML report lacks the per-query table and bar chart")
	}
	o = fairbench(t, dir, "report", "--format", "nonsense")
	if o.code == 0 || !strings.Contains(o.stderr, "clickbench") {
		t.Errorf("an unknown format: %d %s", o.code, o.stderr)
	}
}

// `fairbench demo --analytics`: SSB on SQLite in two page-cache
// configurations, every query tried three times in every run, and reports
// with the per-query table, ClickBench's score and the bar chart.
func TestAnalyticsDemo(t *testing.T) {
	if testing.Short() {
		t.Skip("the analytics demo takes about a minute")
	}
	dir := t.TempDir()
	o := fairbench(t, dir, "demo", "--analytics")
	if o.code != 0 {
		t.Fatalf("demo --analytics: %s", o.stderr)
	}
	runs := storedRuns(t, dir)
	if len(runs) != 4 {
		t.Fatalf("%d runs, want 2 targets × 2 repetitions", len(runs))
	}
	for _, r := range runs {
		if r.Status != result.StatusOK || len(r.Summary.Queries) != 13 {
			t.Fatalf("run %d: %s, %d queries: %s", r.ID, r.Status, len(r.Summary.Queries), r.Error)
		}
		for _, q := range r.Summary.Queries {
			if len(q.Tries) != 3 || q.Tries[0] == nil || q.Tries[2] == nil {
				t.Errorf("run %d %s: tries %v (%s)", r.ID, q.Name, q.Tries, q.Error)
			}
		}
	}
	md := readAll(t, dir, "fairbench-demo-analytics.md")
	for _, want := range []string{"Per query: cold and hot time", "big-cache / default-cache (hot)", "| geometric mean |", "| sum |", "default-cache cold (s)"} {
		if !strings.Contains(md, want) {
			t.Errorf("report lacks %q", want)
		}
	}
	if strings.Contains(md, "ClickBench score") {
		t.Errorf("the SSB demo's report carries ClickBench's score, which only the clickbench kind declares")
	}
	// The per-query table leads the section; the headline is never "0.0".
	if q, h := strings.Index(md, "Per query: cold and hot time"), strings.Index(md, "Geometric mean, s:"); q < 0 || h < 0 || q > h {
		t.Errorf("the per-query table (at %d) does not lead the section (headline table at %d)", q, h)
	}
	if strings.Contains(md, "| 0.0 |") || strings.Contains(md, " 0.0 s") {
		t.Errorf("a time headline rounded to 0.0:\n%s", md)
	}
	pc := testenv.CheckPage(t, filepath.Join(dir, "fairbench-demo-analytics.html"), filepath.Join(testenv.ArtifactDir(t, "../.."), "demo-analytics-report.png"))
	if len(pc.ConsoleErrors) > 0 || len(pc.Requests) > 0 {
		t.Errorf("analytics demo report: console errors %q, network requests %q", pc.ConsoleErrors, pc.Requests)
	}
	if pc.Charts < 1 || pc.EmptyCharts > 0 {
		t.Errorf("analytics demo report: %d charts, %d of them empty", pc.Charts, pc.EmptyCharts)
	}
}

// TestRunEndsWithDeviationsAndDoubts: an ad-hoc run's summary ends with
// the run's deviations (SSB's data generator) and with its kind's doubts:
// at scale 0.01 some of SSB's queries find no rows, which the summary names
// with the scale to use.
func TestRunEndsWithDeviationsAndDoubts(t *testing.T) {
	dir := t.TempDir()
	o := fairbench(t, dir, "run", "--target", "sqlite:"+filepath.Join(dir, "ssb.db"), "--workload", "ssb", "--scale", "0.01", "--tries", "1")
	if o.code != 0 {
		t.Fatalf("run: %s\n%s", o.stdout, o.stderr)
	}
	doubt := regexp.MustCompile(`(?m)^doubtful: \d+ of 13 queries returned no rows: Q\d\.\d(, Q\d\.\d)*; at scale 0\.01 SSB's selective queries find nothing: use scale 1 or more`)
	if !doubt.MatchString(o.stdout) {
		t.Errorf("no doubt about the queries that found no rows:\n%s", o.stdout)
	}
	if !strings.Contains(o.stdout, "\ndeviation: rows come from fairbench's generator") {
		t.Errorf("the data generator's deviation is not shown:\n%s", o.stdout)
	}
	if i, j := strings.Index(o.stdout, "geometric mean"), strings.Index(o.stdout, "deviation: "); i < 0 || j < i {
		t.Errorf("the notes do not follow the summary:\n%s", o.stdout)
	}
}
