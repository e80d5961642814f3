package report

import (
	"bytes"
	"encoding/xml"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/fairbench/fairbench/internal/analysis"
	"github.com/fairbench/fairbench/internal/hist"
	"github.com/fairbench/fairbench/internal/result"
	"github.com/fairbench/fairbench/internal/testenv"
)

// synthRuns builds targets × workloads × clients × reps completed runs with a
// per-second series of secs points.
func synthRuns(t *testing.T, targets, workloads int, clients []int, reps, secs int) []*result.Run {
	t.Helper()
	var runs []*result.Run
	id := int64(0)
	for w := 0; w < workloads; w++ {
		for rep := 1; rep <= reps; rep++ {
			for _, c := range clients {
				for ti := 0; ti < targets; ti++ {
					id++
					us := int64(500 + 100*ti + 10*c + rep)
					h := hist.New()
					h.RecordValues(us, 1000)
					h.RecordValues(us*3, 10)
					b, err := hist.Encode(h)
					if err != nil {
						t.Fatal(err)
					}
					tp := float64(100*c*(ti+1) + 7*rep)
					var series []result.SeriesPoint
					for s := 1; s <= secs; s++ {
						series = append(series, result.SeriesPoint{Second: s, Rate: tp + float64(s%5), P99: float64(us * 3)})
					}
					runs = append(runs, &result.Run{
						ID: id, StudyName: "synthetic <study>", Target: fmt.Sprintf("t%d", ti), Workload: fmt.Sprintf("w%d", w), Kind: "tpcb",
						Params: map[string]any{"scale": int64(1)}, Clients: c, Repetition: rep, Status: result.StatusOK,
						StartedAt: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC), Duration: 60 * time.Second, ToolVersion: "0.1.0",
						Env: result.EnvironmentFromMap(map[string]any{"database": map[string]any{"version": "3.45",
							"settings": map[string]any{"journal_mode": []string{"wal", "delete", "memory"}[ti%3]}}}),
						Summary: result.Summary{Transactions: 1000, Throughput: tp, LatencyMean: float64(us), P99: float64(us * 3)},
						Ops:     []result.Op{{Name: "tx", Count: 1010, Histogram: b}},
						Series:  series,
					})
				}
			}
		}
	}
	return runs
}

func renderHTML(t *testing.T, runs []*result.Run, baseline string) (string, *analysis.Comparison) {
	t.Helper()
	groups, err := analysis.GroupRuns(runs)
	if err != nil {
		t.Fatal(err)
	}
	opt := HTMLOptions{Options: Options{Title: "HTML <test> & co", Results: "fairbench.db", Warnings: analysis.Warnings(groups, baseline), Checked: true}}
	if baseline != "" {
		if opt.Comparison, err = analysis.Compare(groups, baseline, analysis.DefaultAlpha); err != nil {
			t.Fatal(err)
		}
	}
	var b bytes.Buffer
	if err := HTML(&b, groups, runs, opt); err != nil {
		t.Fatal(err)
	}
	return b.String(), opt.Comparison
}

var svgRE = regexp.MustCompile(`(?s)<svg .*?</svg>`)

type xmlSVG struct {
	Chart string `xml:"data-chart,attr"`
	Paths []struct {
		D string `xml:"d,attr"`
	} `xml:"path"`
}

func TestHTMLReport(t *testing.T) {
	runs := synthRuns(t, 2, 1, []int{1, 2, 4}, 2, 30)
	runs[0].Status = result.StatusFailed // a run that must not enter the charts, nor break them
	out, cmp := renderHTML(t, runs, "t0")

	if !strings.HasPrefix(out, "<!DOCTYPE html>") {
		t.Errorf("does not start with a doctype: %.40q", out)
	}
	if m := regexp.MustCompile(`(?i)(src|href)\s*=\s*["']?\s*(https?:)?//`).FindString(out); m != "" {
		t.Errorf("remote resource %q in the report", m)
	}
	for _, bad := range []string{"<link", "<img", "@import", "url("} {
		if strings.Contains(out, bad) {
			t.Errorf("report contains %q: it must be self-contained", bad)
		}
	}
	if strings.Contains(out, "<test>") || !strings.Contains(out, "HTML &lt;test&gt; &amp; co") {
		t.Errorf("study name not escaped")
	}

	svgs := svgRE.FindAllString(out, -1)
	seen := map[string]bool{}
	for _, s := range svgs {
		var x xmlSVG
		if err := xml.Unmarshal([]byte(s), &x); err != nil {
			t.Fatalf("chart is not well-formed XML: %v\n%.200s", err, s)
		}
		if x.Chart == "" {
			t.Errorf("svg without data-chart: %.120s", s)
		}
		if seen[x.Chart] {
			t.Errorf("data-chart %q twice", x.Chart)
		}
		seen[x.Chart] = true
		ok := false
		for _, p := range x.Paths {
			if strings.Count(p.D, "L") >= 1 {
				ok = true
			}
		}
		if !ok {
			t.Errorf("chart %s has no path with at least two points", x.Chart)
		}
	}
	// One section: throughput + 3 latency charts; 11 completed runs × 2 series charts.
	for _, id := range []string{"s1-throughput", "s1-latency-p50", "s1-latency-p95", "s1-latency-p99"} {
		if !seen[id] {
			t.Errorf("chart %s missing; have %v", id, seen)
		}
	}
	if want := 4 + 11*2; len(svgs) != want {
		t.Errorf("%d charts, want %d", len(svgs), want)
	}
	if seen["run1-tps"] {
		t.Errorf("the failed run got a chart")
	}
	// Error bars where there are repetitions.
	if !strings.Contains(out, `class="errbar"`) {
		t.Errorf("no error bars although every cell has 2 repetitions")
	}
	// Latency charts carry the spread of each percentile over the repetitions too.
	for _, chart := range regexp.MustCompile(`(?s)<svg[^>]*data-chart="[^"]*latency-p99"[^>]*>.*?</svg>`).FindAllString(out, -1) {
		if !strings.Contains(chart, `class="errbar"`) {
			t.Errorf("a p99 chart has no error bars although every cell has 2 repetitions")
			break
		}
	}
	// Comparison: one row per compared cell (t1 at 1, 2, 4 clients).
	if got := strings.Count(out, `class="cmp-row"`); got != len(cmp.Cells) || got != 3 {
		t.Errorf("%d cmp-row, want %d (= 3)", got, len(cmp.Cells))
	}
	// Differing settings highlighted, methodology present.
	if !strings.Contains(out, `<tr class="diff"><td>journal_mode</td><td>wal</td><td>delete</td></tr>`) {
		t.Errorf("differing setting not highlighted")
	}
	if !strings.Contains(out, `<h2>Methodology</h2>`) || !strings.Contains(out, "Checked: ") {
		t.Errorf("no methodology section")
	}
	// Deterministic.
	again, _ := renderHTML(t, runs, "t0")
	if again != out {
		t.Errorf("two renderings differ")
	}
}

// Without --baseline the comparison is still part of the report, against
// the first target; a single target has none.
func TestHTMLComparesAgainstFirstTargetByDefault(t *testing.T) {
	out, _ := renderHTML(t, synthRuns(t, 2, 1, []int{1, 2}, 3, 5), "")
	if got := strings.Count(out, `class="cmp-row"`); got != 2 || !strings.Contains(out, "<h2>Comparison against t0</h2>") {
		t.Errorf("%d comparison rows against t0, want 2", got)
	}
	if i, j := strings.Index(out, `<section id="findings">`), strings.Index(out, `<section id="targets">`); i < 0 || j < i {
		t.Errorf("the findings do not open the page (%d, %d)", i, j)
	}
	for _, want := range []string{"t1 is ", "faster than t0", "Welch&#39;s t on log values", `<div class="figure"><svg`, `<div class="numbers">`} {
		if !strings.Contains(out, want) {
			t.Errorf("report lacks %q", want)
		}
	}
	out, _ = renderHTML(t, synthRuns(t, 1, 1, []int{1, 2}, 1, 5), "")
	if strings.Contains(out, "cmp-row") {
		t.Errorf("comparison rows with a single target")
	}
}

// The large study: 3 targets × 4 workloads × 7 clients × 3 reps with
// 5-minute per-second series must stay under 5 MB.
func TestHTMLSizeLargeStudy(t *testing.T) {
	runs := synthRuns(t, 3, 4, []int{1, 2, 4, 8, 16, 32, 64}, 3, 300)
	out, _ := renderHTML(t, runs, "t0")
	if len(out) >= 5<<20 {
		t.Errorf("report is %d bytes, limit 5 MB", len(out))
	}
	if got := strings.Count(out, `class="cmp-row"`); got != 2*4*7 {
		t.Errorf("%d cmp-row, want %d", got, 2*4*7)
	}
	t.Logf("large report: %d bytes", len(out))
}

func TestHTMLChartsStandalone(t *testing.T) {
	groups, err := analysis.GroupRuns(synthRuns(t, 2, 2, []int{1, 2}, 2, 5))
	if err != nil {
		t.Fatal(err)
	}
	cs := HTMLCharts(groups)
	if len(cs) != 2*4 {
		t.Fatalf("%d charts, want 8", len(cs))
	}
	for _, c := range cs {
		if !strings.HasPrefix(c.SVG, `<svg xmlns="http://www.w3.org/2000/svg"`) {
			t.Errorf("%s: not a standalone SVG", c.ID)
		}
		var x xmlSVG
		if err := xml.Unmarshal([]byte(c.SVG), &x); err != nil || x.Chart != c.ID {
			t.Errorf("%s: %v, data-chart %q", c.ID, err, x.Chart)
		}
	}
}

func TestCompactAxisLabels(t *testing.T) {
	for v, want := range map[float64]string{0: "0", 0.25: "0.25", 999: "999", 2000: "2k", 8000: "8k", 2500: "2.5k", 150000: "150k", 2e6: "2M"} {
		if got := compact(v); got != want {
			t.Errorf("compact(%v) = %q, want %q", v, got, want)
		}
	}
}

// The large study's report, opened in headless Chromium from file://: no console
// error, no request beyond the page itself, every chart drawn, and rendered
// (navigation start to load end, as the browser measures it) in under 2 s.
func TestHTMLLargeStudyInBrowser(t *testing.T) {
	runs := synthRuns(t, 3, 4, []int{1, 2, 4, 8, 16, 32, 64}, 3, 300)
	out, cmp := renderHTML(t, runs, "t0")
	path := filepath.Join(t.TempDir(), "large.html")
	if err := os.WriteFile(path, []byte(out), 0o644); err != nil {
		t.Fatal(err)
	}
	pc := testenv.CheckPage(t, path, filepath.Join(testenv.ArtifactDir(t, "../.."), "large-report.png"))
	if len(pc.ConsoleErrors) > 0 || len(pc.Requests) > 0 {
		t.Fatalf("console errors %q, requests %q", pc.ConsoleErrors, pc.Requests)
	}
	if pc.Charts == 0 || pc.EmptyCharts > 0 {
		t.Fatalf("%d charts, %d empty", pc.Charts, pc.EmptyCharts)
	}
	if pc.CmpRows != len(cmp.Cells) {
		t.Fatalf("%d comparison rows for %d compared cells", pc.CmpRows, len(cmp.Cells))
	}
	if pc.LoadMillis < 0 || pc.LoadMillis >= 2000 {
		t.Fatalf("the browser took %.0f ms to load the report (limit 2000)", pc.LoadMillis)
	}
	// Chart text at least 11 px at 100 % zoom, every <details> opened
	// (the per-run charts too), as the browser renders it.
	if pc.ChartTexts == 0 || pc.ChartFontPx < 11 {
		t.Errorf("smallest chart text %.1f px over %d texts, want ≥ 11 px", pc.ChartFontPx, pc.ChartTexts)
	}
	// The findings are on the first screen.
	if pc.FindingsTop < 0 || pc.FindingsTop >= pc.ViewportHeight {
		t.Errorf("findings at %.0f px, not within the first screen (%.0f px)", pc.FindingsTop, pc.ViewportHeight)
	}
	t.Logf("large report: %d bytes, %d charts, loaded in %.0f ms, smallest chart text %.1f px, findings at %.0f px",
		len(out), pc.Charts, pc.LoadMillis, pc.ChartFontPx, pc.FindingsTop)
}
