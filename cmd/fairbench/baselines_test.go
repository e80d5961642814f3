package main

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/fairbench/fairbench/internal/result"
	"github.com/fairbench/fairbench/internal/store"
)

// baselineStudy stores a study of PostgreSQL and MySQL on two platforms
// each, marking pg-v3 and my-v3 baseline = true, and three repetitions of
// each target at 4 clients, in dir/fairbench.db; without targets named in
// skip.
func baselineStudy(t *testing.T, dir string, skip ...string) {
	t.Helper()
	s, err := store.Open(filepath.Join(dir, "fairbench.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	src := []byte(`[study]
name = "engines"
[[target]]
name = "pg-v3"
url = "postgres://h3/db"
baseline = true
[[target]]
name = "pg-v4"
url = "postgres://h4/db"
[[target]]
name = "my-v3"
url = "mysql://h3/db"
baseline = true
[[target]]
name = "my-v4"
url = "mysql://h4/db"
[[workload]]
kind = "tpcb"
`)
	if err := s.SaveStudy("hb", "engines", "engines.toml", src); err != nil {
		t.Fatal(err)
	}
	tps := map[string]float64{"pg-v3": 1000, "pg-v4": 1500, "my-v3": 800, "my-v4": 600}
	for rep := 1; rep <= 3; rep++ {
		for _, tg := range []string{"pg-v3", "pg-v4", "my-v3", "my-v4"} {
			if strings.Contains(strings.Join(skip, ","), tg) {
				continue
			}
			scheme, _, _ := strings.Cut(tg, "-")
			url := map[string]string{"pg": "postgres://h/db", "my": "mysql://h/db"}[scheme]
			if _, err := s.AppendRun(&result.Run{Source: "fairbench", StudyName: "engines", StudyHash: "hb", Target: tg, TargetURL: url,
				Workload: "tpcb", Kind: "tpcb", Params: map[string]any{"scale": int64(1)}, Clients: 4, Repetition: rep,
				Status: result.StatusOK, Summary: result.Summary{Throughput: tps[tg] + float64(rep), Transactions: 1000}}); err != nil {
				t.Fatal(err)
			}
		}
	}
}

// Issue 38 item 8: the study marks a baseline per engine with
// baseline = true, and report and compare use them when no --baseline is
// given: each target against its own engine's baseline, never "different
// engines". --baseline still chooses another; a study baseline without runs
// is refused in one line that says where it came from.
func TestReportAndCompareUseTheStudysBaselines(t *testing.T) {
	dir := t.TempDir()
	baselineStudy(t, dir)

	o := fairbench(t, dir, "compare")
	if o.code != 0 {
		t.Fatalf("compare without --baseline: exit %d: %s", o.code, o.stderr)
	}
	for _, want := range []string{"baseline: pg-v3,my-v3", "pg-v4   1      1,002.0          1,502.0  +49.9 %", "my-v4   1      802.0            602.0    -24.9 %"} {
		if !strings.Contains(o.stdout, want) {
			t.Errorf("compare lacks %q:\n%s", want, o.stdout)
		}
	}
	if strings.Contains(o.stdout+o.stderr, "different engines") {
		t.Errorf("compare warns of different engines with a baseline per engine:\n%s", o.stdout)
	}

	for _, format := range []string{"text", "md"} {
		o = fairbench(t, dir, "report", "--format", format)
		if o.code != 0 {
			t.Fatalf("report --format %s: exit %d: %s", format, o.code, o.stderr)
		}
		for _, want := range []string{"Against pg-v3,my-v3 (baseline)", "pg-v4 is 49.9 % faster than pg-v3", "my-v4 is 24.9 % slower than my-v3"} {
			if !strings.Contains(o.stdout, want) {
				t.Errorf("report --format %s lacks %q:\n%s", format, want, o.stdout)
			}
		}
		if strings.Contains(o.stdout, "different engines") {
			t.Errorf("report --format %s warns of different engines:\n%s", format, o.stdout)
		}
	}

	// The flag wins over the study.
	o = fairbench(t, dir, "report", "--baseline", "pg-v4")
	if o.code != 0 || !strings.Contains(o.stdout, "Against pg-v4 (baseline)") || !strings.Contains(o.stdout, "pg-v3 is 33.3 % slower than pg-v4") {
		t.Errorf("--baseline pg-v4 over the study's: exit %d\n%s%s", o.code, o.stdout, o.stderr)
	}

	dir = t.TempDir()
	baselineStudy(t, dir, "my-v3")
	for _, cmd := range []string{"report", "compare"} {
		o = fairbench(t, dir, cmd)
		if o.code == 0 || !strings.Contains(o.stderr, `the study's baseline = true (pg-v3,my-v3): baseline "my-v3" has no runs`) ||
			!strings.Contains(o.stderr, "give --baseline") {
			t.Errorf("%s with a study baseline without runs: exit %d, %s", cmd, o.code, o.stderr)
		}
	}

	// A study that marks none: compare still asks for --baseline.
	dir = t.TempDir()
	peakStudy(t, dir)
	if o = fairbench(t, dir, "compare"); o.code == 0 || !strings.Contains(o.stderr, "--baseline NAME is required") || !strings.Contains(o.stderr, "baseline = true") {
		t.Errorf("compare without a baseline anywhere: exit %d, %s", o.code, o.stderr)
	}
}
