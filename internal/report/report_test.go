package report

import (
	"bytes"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/fairbench/fairbench/internal/analysis"
	"github.com/fairbench/fairbench/internal/hist"
	"github.com/fairbench/fairbench/internal/result"
)

// fixture: targets vm and k8s × clients 1, 4, 16 × 2 repetitions, plus an
// interrupted third attempt of vm at 4 clients with an absurd throughput.
// Every run's latencies are one constant value below 2048 µs, where the
// histogram is exact, so the merged percentiles can be worked out by hand.
func fixture(t *testing.T) []*result.Run {
	t.Helper()
	tps := map[string]map[int][2]float64{
		"vm":  {1: {100, 120}, 4: {1000, 1500}, 16: {3000, 3100}},
		"k8s": {1: {90, 95}, 4: {800, 900}, 16: {2000, 2600}},
	}
	lat := map[string]map[int][2]int64{ // µs of rep 1 and rep 2
		"vm":  {1: {1000, 1500}, 4: {1100, 1200}, 16: {1800, 1900}},
		"k8s": {1: {1200, 1300}, 4: {1300, 1400}, 16: {2000, 2040}},
	}
	var runs []*result.Run
	id := int64(0)
	add := func(target string, clients, rep int, tp float64, us int64, st result.Status) {
		id++
		h := hist.New()
		h.RecordValues(us, 1000)
		b, err := hist.Encode(h)
		if err != nil {
			t.Fatal(err)
		}
		runs = append(runs, &result.Run{
			ID: id, Source: "fairbench", StudyName: "cpu", Target: target, Workload: "tpcb", Kind: "tpcb",
			Params: map[string]any{"scale": int64(10), "mode": "select-only"}, Clients: clients, Repetition: rep,
			Status: st, Warmup: 10 * time.Second, Duration: 60 * time.Second, ToolVersion: "0.1.0",
			Summary: result.Summary{Transactions: 1000, Throughput: tp, LatencyMean: float64(us), P99: float64(us)},
			Ops:     []result.Op{{Name: "tx", Count: 1000, Histogram: b}},
		})
	}
	for rep := 1; rep <= 2; rep++ { // interleaved like a study: A B A B
		for _, c := range []int{1, 4, 16} {
			for _, target := range []string{"vm", "k8s"} {
				add(target, c, rep, tps[target][c][rep-1], lat[target][c][rep-1], result.StatusOK)
			}
		}
	}
	add("vm", 4, 3, 9999, 50, result.StatusInterrupted)
	runs[len(runs)-1].Error = "interrupted | by user"
	return runs
}

func render(t *testing.T, runs []*result.Run) string {
	t.Helper()
	groups, err := analysis.GroupRuns(runs)
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := Markdown(&b, groups, runs, Options{Title: "CPU generations", Results: "fairbench.db"}); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// tableAfter returns the lines of the Markdown table that follows the line starting with caption.
func tableAfter(t *testing.T, md, caption string) []string {
	t.Helper()
	i := strings.Index(md, caption)
	if i < 0 {
		t.Fatalf("no %q in:\n%s", caption, md)
	}
	var rows []string
	started := false
	for _, line := range strings.Split(md[i:], "\n")[1:] {
		if strings.HasPrefix(line, "|") {
			started = true
			rows = append(rows, line)
		} else if started {
			break
		}
	}
	return rows
}

// cells splits a Markdown table row at its unescaped pipes.
func cells(row string) []string {
	row = strings.ReplaceAll(row, `\|`, "\x00")
	parts := strings.Split(strings.Trim(row, "|"), "|")
	for i, p := range parts {
		parts[i] = strings.ReplaceAll(strings.TrimSpace(p), "\x00", `\|`)
	}
	return parts
}

func TestMarkdown(t *testing.T) {
	runs := fixture(t)
	md := render(t, runs)

	if !strings.HasPrefix(md, "# CPU generations\n") {
		t.Errorf("title missing:\n%s", md)
	}
	if !strings.Contains(md, "## How measured\n\n2 completed repetitions per cell, measured for 60s; warm-up (10s) excluded") ||
		!strings.Contains(md, "merged") {
		t.Errorf("how-measured line wrong:\n%s", md)
	}
	// One scenario: the heading names the workload, its parameters follow once.
	if !strings.Contains(md, "## tpcb\n\nParameters of every tpcb section: mode=select-only scale=10 (others at their defaults).\n") {
		t.Errorf("section heading missing:\n%s", md)
	}

	tp := tableAfter(t, md, "Throughput")
	wantHead := []string{"target", "1 client", "4 clients", "16 clients"}
	if got := cells(tp[0]); strings.Join(got, ",") != strings.Join(wantHead, ",") {
		t.Errorf("throughput header %q, want %q", got, wantHead)
	}
	if len(tp) != 4 {
		t.Fatalf("throughput table has %d lines, want header, rule and 2 targets:\n%s", len(tp), strings.Join(tp, "\n"))
	}
	rows := map[string][]string{}
	for _, r := range tp[2:] {
		c := cells(r)
		rows[c[0]] = c[1:]
	}
	// Medians by hand: vm 4 clients = (1000 + 1500) / 2; the interrupted 9999 tps attempt is left out.
	want := map[string][]string{
		"vm":  {"110.0", "1,250.0", "3,050.0"},
		"k8s": {"92.5", "850.0", "2,300.0"},
	}
	for target, w := range want {
		if strings.Join(rows[target], ",") != strings.Join(w, ",") {
			t.Errorf("throughput row %s = %q, want %q", target, rows[target], w)
		}
	}
	if strings.Index(tp[2], "vm") < 0 || strings.Index(tp[3], "k8s") < 0 {
		t.Errorf("targets not in first-seen order: %q", tp[2:])
	}

	lat := tableAfter(t, md, "Latency")
	if got := cells(lat[0]); strings.Join(got, ",") != strings.Join(wantHead, ",") {
		t.Errorf("latency header %q, want %q", got, wantHead)
	}
	// vm at 1 client: 1000 ops at 1000 µs and 1000 at 1500 µs. Merged p50 is 1 ms
	// and p95/p99 are 1.5 ms; averaging the runs' p99s would have given 1.25 ms,
	// which is their average.
	if got := cells(lat[2]); got[0] != "vm" || got[1] != "1.250 / 1.000 / 1.500 / 1.500" {
		t.Errorf("latency row %q, want vm with 1.250 / 1.000 / 1.500 / 1.500 at 1 client", got)
	}
	if len(lat) != 4 || !strings.HasPrefix(lat[3], "| k8s |") {
		t.Errorf("latency table rows: %q", lat)
	}

	runRows := tableAfter(t, md, "## Runs")
	if len(runRows) != 2+13 {
		t.Fatalf("runs table has %d lines, want 2 + 13 runs", len(runRows))
	}
	wantRunHead := "id,target,workload,params,clients,rep,status,tps,p99 ms,errors"
	if got := strings.Join(cells(runRows[0]), ","); got != wantRunHead {
		t.Errorf("runs header %q, want %q", got, wantRunHead)
	}
	last := cells(runRows[len(runRows)-1])
	if last[0] != "13" || last[1] != "vm" || last[5] != "3" || last[6] != `interrupted: interrupted \| by user` || last[7] != "9,999.0" {
		t.Errorf("interrupted run row %q", last)
	}
	for i, r := range runRows[2:] {
		if c := cells(r); c[0] != strconv.Itoa(i+1) {
			t.Errorf("runs not in id order: row %d is id %s", i+1, c[0])
		}
	}
	if strings.Count(md, "9,999.0") != 1 {
		t.Errorf("the interrupted run's throughput appears outside the Runs table")
	}

	if !strings.Contains(md, "Tool version: 0.1.0 · results file: `fairbench.db`") {
		t.Errorf("footer missing:\n%s", md[strings.LastIndex(md, "---"):])
	}

	// Deterministic: the same runs in another order render identically.
	shuffled := append([]*result.Run(nil), runs...)
	rand.New(rand.NewPCG(1, 2)).Shuffle(len(shuffled), func(i, j int) { shuffled[i], shuffled[j] = shuffled[j], shuffled[i] })
	if again := render(t, shuffled); again != md {
		t.Errorf("output depends on input order:\n%s\n---\n%s", md, again)
	}
}

func TestMarkdownMarksMissingAndPartialCells(t *testing.T) {
	runs := fixture(t)
	runs[0].Status = result.StatusFailed // vm, 1 client, rep 1
	runs[6].Status = result.StatusFailed // vm, 1 client, rep 2: the cell has no completed run
	runs[1].Status = result.StatusFailed // k8s, 1 client, rep 1: one repetition left
	md := render(t, runs)
	tp := tableAfter(t, md, "Throughput")
	if got := cells(tp[2]); got[0] != "vm" || got[1] != none {
		t.Errorf("vm row %q, want %s at 1 client", got, none)
	}
	if got := cells(tp[3]); got[0] != "k8s" || got[1] != "95.0 (n=1)" {
		t.Errorf("k8s row %q, want 95.0 (n=1) at 1 client", got)
	}
	if !strings.Contains(md, none+" no completed run") {
		t.Errorf("legend for %s missing", none)
	}
}

func TestTerminal(t *testing.T) {
	runs := fixture(t)
	// A second parameter set of the same workload: only scale differs.
	for _, r := range runs[:2] {
		c := *r
		c.ID += 100
		c.Params = map[string]any{"scale": int64(100), "mode": "select-only"}
		runs = append(runs, &c)
	}
	groups, err := analysis.GroupRuns(runs)
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := Terminal(&b, groups, Options{Results: "x.db"}); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	// The findings come first; the table of cells starts at its header.
	all := strings.Split(out, "\n")
	start := 0
	for i, l := range all {
		if strings.HasPrefix(l, "target  workload") {
			start = i
			break
		}
	}
	lines := all[start:]
	if !strings.HasPrefix(out, "Findings\n") {
		t.Errorf("the report does not open with its findings:\n%s", out)
	}
	if f := strings.Fields(lines[0]); strings.Join(f, " ") != "target workload params clients n tps (median) avg ms p50 ms p95 ms p99 ms max ms errors" {
		t.Errorf("header %q", lines[0])
	}
	var vm4 string
	for _, l := range lines[1:9] {
		if f := strings.Fields(l); len(f) > 3 && f[0] == "vm" && f[3] == "4" {
			vm4 = l
		}
	}
	// vm at 4 clients: 1000 ops at 1100 µs and 1000 at 1200 µs, their average 1.150 ms.
	if f := strings.Fields(vm4); len(f) != 12 || f[2] != "scale=10" || f[4] != "2" || f[5] != "1,250.0" || f[6] != "1.150" || f[7] != "1.100" || f[9] != "1.200" || f[11] != "0" {
		t.Errorf("vm 4-client row %q", vm4)
	}
	// Alignment: every data row has its columns end at the same offsets as the header's.
	end := func(l string) int { return len([]rune(strings.TrimRight(l, " "))) }
	for _, l := range lines[1:9] {
		if end(l) != end(lines[0]) {
			t.Errorf("row not aligned with header:\n%s\n%s", lines[0], l)
		}
	}
	if !strings.Contains(out, "same in every row of a workload: tpcb mode=select-only") {
		t.Errorf("common parameters not listed:\n%s", out)
	}
	if !strings.Contains(out, "1 interrupted or failed run excluded") {
		t.Errorf("excluded-runs note missing:\n%s", out)
	}
	if strings.Count(strings.Join(lines, "\n"), "scale=100") != 2 {
		t.Errorf("want two scale=100 rows:\n%s", out)
	}
}

func TestRate(t *testing.T) {
	for in, want := range map[float64]string{
		0: "0.0", 92.5: "92.5", 999.96: "1,000.0", 1250: "1,250.0", 123456: "123,456.0",
		1234567.89: "1,234,567.9", -1234.5: "-1,234.5",
	} {
		if got := rate(in); got != want {
			t.Errorf("rate(%v) = %q, want %q", in, got, want)
		}
	}
}

// Runs imported from outputs that print only a mean latency carry no histogram:
// their percentiles show as "–", never as a measured 0.
func TestRunsWithoutHistogramShowNoPercentiles(t *testing.T) {
	runs := []*result.Run{{
		ID: 1, Source: "pgbench", StudyName: "import", Target: "vm", Workload: "pgbench", Kind: "tpcb",
		Params: map[string]any{"mode": "select-only"}, Clients: 4, Repetition: 1, Status: result.StatusOK,
		Summary: result.Summary{Transactions: 1000, Throughput: 250, LatencyMean: 4000},
		Ops:     []result.Op{{Name: "select-only", Count: 1000}},
	}}
	groups, err := analysis.GroupRuns(runs)
	if err != nil {
		t.Fatal(err)
	}
	var term, md strings.Builder
	if err := Terminal(&term, groups, Options{}); err != nil {
		t.Fatal(err)
	}
	if err := Markdown(&md, groups, runs, Options{}); err != nil {
		t.Fatal(err)
	}
	for name, out := range map[string]string{"terminal": term.String(), "markdown": md.String()} {
		if strings.Contains(out, "0.000") {
			t.Errorf("%s shows a 0.000 latency for a run without a distribution:\n%s", name, out)
		}
		if !strings.Contains(out, "250.0") || !strings.Contains(out, none) {
			t.Errorf("%s lacks the throughput or the dash:\n%s", name, out)
		}
	}
}
