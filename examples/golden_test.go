package examples_test

import (
	"bytes"
	"context"
	"flag"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/fairbench/fairbench/internal/adapter"
	"github.com/fairbench/fairbench/internal/analysis"
	"github.com/fairbench/fairbench/internal/report"
	"github.com/fairbench/fairbench/internal/result"
	"github.com/fairbench/fairbench/internal/runner"
	"github.com/fairbench/fairbench/internal/store"
	"github.com/fairbench/fairbench/internal/study"
)

var (
	update     = flag.Bool("update", false, "rewrite the golden reports in testdata/golden/")
	reportsDir = flag.String("reports", "", "also write each example's full text and Markdown reports into this directory")
)

// peerBinaries are the variables through which scripts/test-servers.sh
// names the peer tools it builds into .bin/ rather than installing them.
var peerBinaries = []string{"FAIRBENCH_TEST_MEMTIER", "FAIRBENCH_TEST_GO_YCSB", "FAIRBENCH_TEST_GOTPC", "FAIRBENCH_TEST_OSB"}

// dropMissingTools removes the workloads whose tool is not installed here,
// each named in a skipped subtest: a study's tool cell runs the real tool or
// not at all. Under FAIRBENCH_REQUIRE_SERVERS=1 every tool must be there
// (scripts/test-servers.sh installs them all). It returns the tools that were missing,
// sorted, which select the golden files the report is compared with.
func dropMissingTools(t *testing.T, st *study.Study) []string {
	t.Helper()
	path := os.Getenv("PATH")
	for _, v := range peerBinaries {
		if bin := os.Getenv(v); bin != "" {
			path = filepath.Dir(bin) + string(os.PathListSeparator) + path
		}
	}
	t.Setenv("PATH", path)
	var missing []string
	kept := st.Workloads[:0]
	for _, w := range st.Workloads {
		if w.Tool != "" {
			if _, err := exec.LookPath(toolBinary(t, w.Tool)); err != nil {
				if os.Getenv("FAIRBENCH_REQUIRE_SERVERS") == "1" {
					t.Fatalf("%s is not installed, which scripts/test-servers.sh installs", w.Tool)
				}
				t.Run(w.Name, func(t *testing.T) {
					t.Skipf("%s is not installed: the workload %q is left out of the shortened study and its golden report", w.Tool, w.Name)
				})
				if !slices.Contains(missing, w.Tool) {
					missing = append(missing, w.Tool)
				}
				continue
			}
		}
		kept = append(kept, w)
	}
	st.Workloads = kept
	slices.Sort(missing)
	return missing
}

// toolBinary is the executable a tool cell runs.
func toolBinary(t *testing.T, tool string) string {
	tl, ok := adapter.Lookup(tool)
	if !ok {
		t.Fatalf("fairbench runs no tool %q", tool)
	}
	return tl.Executable()
}

// runIntoStore plans and runs the (shortened) study into a results file of
// the test's own, as `fairbench run` does, and returns the file's path. Every
// run must complete.
func runIntoStore(t *testing.T, st *study.Study, opt runner.Options) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "fairbench.db")
	s, err := store.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if err := s.SaveStudy(st.Hash, st.Name, st.File, st.Source); err != nil {
		t.Fatal(err)
	}
	cells, err := st.Plan(runner.Catalog{})
	if err != nil {
		t.Fatal(err)
	}
	opt.Sink = s
	var progress bytes.Buffer
	if opt.Progress == nil {
		opt.Progress = &progress
	} else {
		opt.Progress = io.MultiWriter(opt.Progress, &progress)
	}
	r := runner.New(st, opt)
	ctx := context.Background()
	if err := r.Preflight(ctx, cells); err != nil {
		t.Fatal(err)
	}
	if err := r.Run(ctx, cells); err != nil {
		t.Fatalf("%v\n%s", err, progress.String())
	}
	runs, err := s.Runs(store.Filter{})
	if err != nil {
		t.Fatal(err)
	}
	if len(runs) == 0 {
		t.Fatal("no run stored")
	}
	for _, r := range runs {
		if r.Status != result.StatusOK {
			t.Fatalf("run %d (%s on %s, %d clients): %s: %s", r.ID, r.Workload, r.Target, r.Clients, r.Status, r.Error)
		}
	}
	return path
}

// reports renders `fairbench report --baseline BASELINE` of the results
// file in text and in Markdown, as the report command does.
func reports(t *testing.T, path, baseline string) (text, md string, runs []*result.Run) {
	t.Helper()
	s, err := store.OpenExisting(path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	runs, err = s.Runs(store.Filter{LatestStudy: true})
	if err != nil {
		t.Fatal(err)
	}
	groups, err := analysis.GroupRuns(runs)
	if err != nil {
		t.Fatal(err)
	}
	if baseline != "" {
		if err := analysis.CheckBaseline(groups, baseline); err != nil {
			t.Fatal(err)
		}
	}
	shares := analysis.DefaultShareThresholds
	if src, ok, err := s.StudySource(runs[0].StudyHash); err != nil {
		t.Fatal(err)
	} else if d, set := study.LatencySharesOf(src); ok && set {
		shares = d
	}
	opt := report.Options{Title: runs[len(runs)-1].StudyName, Results: "fairbench.db", Warnings: analysis.Warnings(groups, baseline),
		Checked: true, Baseline: baseline, LatencyShares: shares}
	var tb, mb bytes.Buffer
	if err := report.Terminal(&tb, groups, opt); err != nil {
		t.Fatal(err)
	}
	if err := report.Markdown(&mb, groups, runs, opt); err != nil {
		t.Fatal(err)
	}
	return tb.String(), mb.String(), runs
}

// checkGolden compares the tables of both reports with
// testdata/golden/NAME.{txt,md} (NAME.without-TOOL… when tools were left
// out), or rewrites those files under -update. What is compared is each
// table's caption, header and rows, with every number in a row masked and
// column padding dropped (see tablesOfText, tablesOfMarkdown): the tables a
// published study prints, not what one short run on a busy machine measured.
func checkGolden(t *testing.T, name string, missing []string, text, md string) {
	t.Helper()
	if len(missing) > 0 {
		name += ".without-" + strings.Join(missing, "-")
	}
	if *reportsDir != "" {
		for ext, full := range map[string]string{"txt": text, "md": md} {
			if err := os.WriteFile(filepath.Join(*reportsDir, name+"."+ext), []byte(full), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	for ext, got := range map[string]string{"txt": maskTestNames(tablesOfText(text)), "md": maskTestNames(tablesOfMarkdown(md))} {
		file := filepath.Join("testdata", "golden", name+"."+ext)
		if *update {
			if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(file, []byte(got), 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		want, err := os.ReadFile(file)
		if err != nil {
			t.Fatalf("%v: `go test ./examples/ -run %s -update` writes it", err, t.Name())
		}
		if got != string(want) {
			t.Errorf("the %s report's tables differ from %s (`go test ./examples/ -run %s -update` rewrites it after a deliberate change):\n%s\nfull report:\n%s",
				ext, file, t.Name(), lineDiff(string(want), got), map[string]string{"txt": text, "md": md}[ext])
		}
	}
}

// number is a measured number as the reports print it: a sign, digits with
// thousands separators or a decimal point.
var number = regexp.MustCompile(`[-+−±]?\d+(?:[.,]\d+)*`)

// maskNumbers replaces every number by # and drops the † that marks a peak
// at the edge of the clients sweep, which a short run may or may not reach.
func maskNumbers(s string) string {
	return strings.ReplaceAll(number.ReplaceAllString(s, "#"), " †", "")
}

// testNames are the names testenv makes unique per test (databases,
// schemas, key prefixes, indexes): they appear in parameters the report
// prints.
var testNames = regexp.MustCompile(`fbtest[-_][0-9a-f]+`)

// maskTestNames replaces each by fbtest….
func maskTestNames(s string) string { return testNames.ReplaceAllString(s, "fbtest…") }

// hostTables are the captions of the tables that describe the machine the
// test ran on (kernel, versions, TLS): only their row labels are compared.
// hostColumns are the columns of other tables that name a thing of the
// machine (fio's block device).
// namesWithNumbers are the name columns whose names hold a measured number
// (a level shift's "burst, until s 5").
// untilSecond marks a level row's name, which holds the second the level
// changed ("burstable · burst (until s 6)"): a measured number.
const untilSecond = "(until s "

var (
	hostTables       = []string{"Targets as measured", "Client hosts as measured"}
	hostColumns      = []string{"device"}
	namesWithNumbers = []string{"level"}
)

func isHostTable(caption string) bool {
	for _, h := range hostTables {
		if strings.HasPrefix(caption, h) {
			return true
		}
	}
	return false
}

var (
	padding = regexp.MustCompile(`\s{2,}`)
	// startsWithNumber tells a text report's number cells (a rate, a
	// latency list, "4 (50 % of threads)") from its names (pg-x86).
	startsWithNumber = regexp.MustCompile(`^[-+−±×]?\d`)
)

// tablesOfText extracts the tables of a text report: a block of lines
// between blank lines is a table when it has a line that starts at the
// margin and has columns (two spaces apart); the lines before it are the
// caption, the lines from it the header and rows, the cells that start
// with a number masked. Prose, findings and
// warnings (blocks without such a line) are left out: their words depend
// on the numbers.
func tablesOfText(report string) string {
	var out strings.Builder
	for _, block := range strings.Split(report, "\n\n") {
		lines := strings.Split(strings.Trim(block, "\n"), "\n")
		head := -1
		for i, l := range lines {
			if l != "" && l[0] != ' ' && strings.Contains(strings.TrimSpace(l), "  ") {
				head = i
				break
			}
		}
		if head < 0 || head == len(lines)-1 {
			continue
		}
		caption := strings.Join(strings.Fields(strings.Join(lines[:head], " ")), " ")
		out.WriteString("== " + caption + "\n")
		header := padding.Split(strings.TrimSpace(lines[head]), -1)
		out.WriteString(strings.Join(header, " | ") + "\n")
		for _, l := range lines[head+1:] {
			cells := padding.Split(strings.TrimSpace(l), -1)
			if isHostTable(caption) {
				cells = []string{cells[0], "…"}
			}
			for i, c := range cells {
				switch {
				case i < len(header) && len(cells) == len(header) && slices.Contains(hostColumns, header[i]):
					cells[i] = "…"
				case startsWithNumber.MatchString(c), i < len(header) && len(cells) == len(header) && slices.Contains(namesWithNumbers, header[i]), strings.Contains(c, untilSecond):
					cells[i] = maskNumbers(c)
				}
			}
			out.WriteString(strings.Join(cells, " | ") + "\n")
		}
		out.WriteString("\n")
	}
	return out.String()
}

// tablesOfMarkdown extracts the tables of a Markdown report with their
// headings and captions (the paragraph before a table). Columns Markdown
// aligns left hold names and are kept; right-aligned ones hold numbers and
// are masked.
func tablesOfMarkdown(report string) string {
	var out strings.Builder
	prev := ""
	for _, block := range strings.Split(report, "\n\n") {
		block = strings.Trim(block, "\n")
		switch {
		case strings.HasPrefix(block, "#"):
			out.WriteString(block + "\n\n")
		case strings.HasPrefix(block, "|"):
			caption := strings.Join(strings.Fields(prev), " ")
			if !strings.HasPrefix(prev, "#") && !strings.HasPrefix(prev, "|") {
				out.WriteString("== " + caption + "\n")
			}
			lines := strings.Split(block, "\n")
			if len(lines) < 2 {
				continue
			}
			header, align := markdownCells(lines[0]), markdownCells(lines[1])
			out.WriteString(strings.Join(header, " | ") + "\n")
			for _, l := range lines[2:] {
				cells := markdownCells(l)
				for i := range cells {
					switch {
					case isHostTable(caption) && i > 0, i < len(header) && slices.Contains(hostColumns, header[i]):
						cells[i] = "…"
					case i < len(align) && strings.HasSuffix(align[i], ":"), i < len(header) && slices.Contains(namesWithNumbers, header[i]), strings.Contains(cells[i], untilSecond):
						cells[i] = maskNumbers(cells[i])
					}
				}
				out.WriteString(strings.Join(cells, " | ") + "\n")
			}
			out.WriteString("\n")
		}
		prev = block
	}
	return out.String()
}

func markdownCells(row string) []string {
	cells := strings.Split(strings.Trim(strings.TrimSpace(row), "|"), "|")
	for i, c := range cells {
		cells[i] = strings.TrimSpace(c)
	}
	return cells
}

// lineDiff lists the lines only one side has, in order, marked - and +.
func lineDiff(want, got string) string {
	w, g := strings.Split(want, "\n"), strings.Split(got, "\n")
	var b strings.Builder
	i, j := 0, 0
	for i < len(w) || j < len(g) {
		switch {
		case i < len(w) && j < len(g) && w[i] == g[j]:
			i, j = i+1, j+1
		case j < len(g) && !slices.Contains(w[i:], g[j]):
			b.WriteString("+ " + g[j] + "\n")
			j++
		case i < len(w):
			b.WriteString("- " + w[i] + "\n")
			i++
		default:
			b.WriteString("+ " + g[j] + "\n")
			j++
		}
	}
	return b.String()
}

// tableRows returns the rows of the Markdown tables whose header row starts
// with header (`| a | b |`), as cells, in the order of the report.
func tableRows(t *testing.T, md, header string) [][]string {
	t.Helper()
	var rows [][]string
	found := false
	for _, block := range strings.Split(md, "\n\n") {
		lines := strings.Split(strings.Trim(block, "\n"), "\n")
		if len(lines) < 2 || !strings.HasPrefix(lines[0], header) {
			continue
		}
		found = true
		for _, l := range lines[2:] {
			rows = append(rows, markdownCells(l))
		}
	}
	if !found {
		t.Fatalf("the Markdown report has no table %s:\n%s", header, md)
	}
	return rows
}

// captionedRows returns the rows of the Markdown table whose caption starts
// with caption, as cells, the header first.
func captionedRows(t *testing.T, md, caption string) [][]string {
	t.Helper()
	blocks := strings.Split(md, "\n\n")
	for i := 1; i < len(blocks); i++ {
		lines := strings.Split(strings.Trim(blocks[i], "\n"), "\n")
		if len(lines) < 2 || !strings.HasPrefix(lines[0], "|") || !strings.HasPrefix(strings.TrimSpace(blocks[i-1]), caption) {
			continue
		}
		rows := [][]string{markdownCells(lines[0])}
		for _, l := range lines[2:] {
			rows = append(rows, markdownCells(l))
		}
		return rows
	}
	t.Fatalf("the Markdown report has no table captioned %q:\n%s", caption, md)
	return nil
}
