package report

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/fairbench/fairbench/internal/analysis"
	"github.com/fairbench/fairbench/internal/hist"
	"github.com/fairbench/fairbench/internal/kinds"
	"github.com/fairbench/fairbench/internal/params"
	"github.com/fairbench/fairbench/internal/result"
	_ "github.com/fairbench/fairbench/internal/workload/oltp" // registers oltp's parameters, whose defaults the report leaves out
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

// journalStudy is the study of issue 29 with fixed numbers: two SQLite
// configurations × oltp read_only / read_write × 1–2 clients × 3
// repetitions, interleaved; DELETE/FULL about 90 % slower on read_write and
// within a few percent on read_only. Every run carries all 25 oltp
// parameters (defaults included) and a per-second series, as stored runs do.
func journalStudy(t *testing.T) []*result.Run {
	t.Helper()
	specs, ok := kinds.Params("oltp")
	if !ok {
		t.Fatal("oltp not registered")
	}
	tps := map[string]map[string]map[int][3]float64{
		"wal-normal":  {"read_only": {1: {2010, 1985, 2032}, 2: {3105, 3050, 3122}}, "read_write": {1: {812, 798, 825}, 2: {1190, 1172, 1205}}},
		"delete-full": {"read_only": {1: {1992, 2018, 1970}, 2: {3080, 3131, 3064}}, "read_write": {1: {84.2, 82.9, 85.6}, 2: {120.5, 118.7, 123.1}}},
	}
	var runs []*result.Run
	id := int64(0)
	for rep := 1; rep <= 3; rep++ {
		for _, mode := range []string{"read_only", "read_write"} {
			for _, c := range []int{1, 2} {
				for _, target := range []string{"wal-normal", "delete-full"} {
					id++
					tp := tps[target][mode][c][rep-1]
					us := int64(1e6 * float64(c) / tp)
					h := hist.New()
					h.RecordValues(us, int64(tp*2))
					h.RecordValues(us*3, int64(tp*2)/50)
					b, err := hist.Encode(h)
					if err != nil {
						t.Fatal(err)
					}
					var series []result.SeriesPoint
					for s := 1; s <= 2; s++ {
						series = append(series, result.SeriesPoint{Second: s, Rate: tp, P99: float64(us * 3)})
					}
					journal, sync := "wal", "1"
					if target == "delete-full" {
						journal, sync = "delete", "2"
					}
					p := params.WithDefaults(specs, params.Values{"mode": mode, "table_size": int64(1000)})
					runs = append(runs, &result.Run{
						ID: id, Source: "fairbench", StudyName: "SQLite journal modes", Target: target, Workload: "oltp", Kind: "oltp",
						Params: p, Clients: c, Repetition: rep, Status: result.StatusOK,
						StartedAt: time.Date(2026, 11, 25, 12, 0, int(id), 0, time.UTC),
						Warmup:    500 * time.Millisecond, Duration: 2 * time.Second, ToolVersion: "0.9.0",
						Env: result.EnvironmentFromMap(map[string]any{"engine_in_process": true, "database": map[string]any{"engine": "sqlite", "version": "3.46.0",
							"settings": map[string]any{"journal_mode": journal, "synchronous": sync}}}),
						Summary: result.Summary{Transactions: int64(tp * 2), Throughput: tp, LatencyMean: float64(us), P99: float64(us * 3)},
						Ops:     []result.Op{{Name: "tx", Count: int64(tp * 2), Histogram: b}},
						Series:  series,
					})
				}
			}
		}
	}
	return runs
}

func renderJournal(t *testing.T, format string) string {
	t.Helper()
	runs := journalStudy(t)
	groups, err := analysis.GroupRuns(runs)
	if err != nil {
		t.Fatal(err)
	}
	opt := Options{Title: "SQLite journal modes", Results: "fairbench.db", Warnings: analysis.Warnings(groups, ""), Checked: true,
		LatencyShares: analysis.DefaultShareThresholds}
	var b bytes.Buffer
	switch format {
	case "text":
		err = Terminal(&b, groups, opt)
	case "md":
		err = Markdown(&b, groups, runs, opt)
	case "compare-md":
		var c *analysis.Comparison
		if c, err = analysis.Compare(groups, "wal-normal", analysis.DefaultAlpha); err == nil {
			err = CompareMarkdown(&b, c, opt)
		}
	}
	if err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// The text and Markdown reports of the fixed study, byte for byte
// (go test ./internal/report -run TestGolden -update rewrites them).
func TestGoldenReports(t *testing.T) {
	for format, file := range map[string]string{"text": "journal.txt", "md": "journal.md"} {
		got := renderJournal(t, format)
		path := filepath.Join("testdata", file)
		if *update {
			if err := os.MkdirAll("testdata", 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		want, err := os.ReadFile(path)
		if err != nil {
			t.Fatalf("%v (run with -update to create it)", err)
		}
		if got != string(want) {
			t.Errorf("%s report differs from %s (run with -update after checking the change):\n%s", format, path, got)
		}
	}
}

// What a reader needs is in the first lines: the finding per scenario with
// its verdict and the test named.
func TestFindingsFirst(t *testing.T) {
	text := renderJournal(t, "text")
	head := strings.Join(strings.SplitN(text, "\n", 21)[:20], "\n")
	for _, want := range []string{
		"oltp read_write: delete-full is 89.7 % slower than wal-normal: -89.7 % tps [-89.9, -89.6], lower in both cells",
		"(paired over 2 cells × 3 rounds, p<0.001)",
		"oltp read_only: delete-full is within 0.4 % of wal-normal: -0.4 % tps [-2.6, +1.9]",
		"2 slower (paired t on log ratios, p<0.001",
		"2 no significant difference (paired t on log ratios",
	} {
		if !strings.Contains(head, want) {
			t.Errorf("the first 20 lines lack %q:\n%s", want, head)
		}
	}
	md := renderJournal(t, "md")
	if i, j := strings.Index(md, "## Findings"), strings.Index(md, "## How measured"); i < 0 || j < i {
		t.Errorf("Markdown: findings are not first (%d, %d)", i, j)
	}
	for _, r := range []string{text, md} {
		if strings.Contains(r, "mysql_storage_engine") {
			t.Errorf("a MySQL-only parameter is shown for SQLite targets")
		}
		if strings.Contains(r, "rand_spec_iter") {
			t.Errorf("a parameter at its default is listed")
		}
	}
	if !strings.Contains(md, "table_size=1000 (others at their defaults)") {
		t.Errorf("Markdown: the parameter set in the study is not listed once")
	}
}

// No prose line longer than 160 characters in text or Markdown: only
// tables may be wider.
func TestReportLineLength(t *testing.T) {
	for _, format := range []string{"text", "md", "compare-md"} {
		inTable := false
		for i, line := range strings.Split(renderJournal(t, format), "\n") {
			if format != "text" && strings.HasPrefix(line, "|") {
				continue
			}
			if format == "text" {
				// A text table: a header line of names two spaces apart and its rows.
				if strings.HasPrefix(line, "target  ") {
					inTable = true
				} else if strings.TrimSpace(line) == "" {
					inTable = false
				}
				if inTable {
					continue
				}
			}
			if n := utf8.RuneCountInString(line); n > 160 {
				t.Errorf("%s line %d has %d characters: %s", format, i+1, n, line)
			}
		}
	}
}

// JSON carries the findings and the warnings grouped by kind, each with
// every warning in full.
func TestJSONFindingsAndWarningGroups(t *testing.T) {
	runs := journalStudy(t)
	groups, err := analysis.GroupRuns(runs)
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := JSON(&b, groups, Options{Warnings: analysis.Warnings(groups, ""), Checked: true}); err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Findings struct {
			Baseline string
			Items    []struct {
				Scenario string
				Target   string
				Slower   int
				Tests    []string
				GeoDelta float64 `json:"geomean_delta_pct"`
				Pooled   struct {
					Paired  bool
					Verdict string
					Change  float64 `json:"change_pct"`
					Cells   int
					Rounds  int
				}
			}
		}
		WarningGroups []struct {
			Check    string
			Cells    []string
			Warnings []analysis.Warning
		} `json:"warning_groups"`
	}
	if err := json.Unmarshal(b.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	if doc.Findings.Baseline != "wal-normal" || len(doc.Findings.Items) != 2 {
		t.Fatalf("findings %+v", doc.Findings)
	}
	rw := doc.Findings.Items[1]
	if rw.Scenario != "oltp read_write" || rw.Slower != 2 || rw.Tests[0] != analysis.PairedTest || rw.GeoDelta > -89 ||
		!rw.Pooled.Paired || rw.Pooled.Verdict != string(analysis.Slower) || rw.Pooled.Change > -89 || rw.Pooled.Cells != 2 || rw.Pooled.Rounds != 3 {
		t.Errorf("read_write finding %+v", rw)
	}
	if len(doc.WarningGroups) == 0 || doc.WarningGroups[0].Check != analysis.CheckConfig {
		t.Fatalf("warning groups %+v", doc.WarningGroups)
	}
	for _, wg := range doc.WarningGroups {
		if wg.Check == analysis.CheckPeakEdge && (len(wg.Warnings) != 4 || len(wg.Cells) != 4) {
			t.Errorf("peak-edge group %+v", wg)
		}
	}
}
