package report

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/fairbench/fairbench/internal/analysis"
	"github.com/fairbench/fairbench/internal/hist"
	"github.com/fairbench/fairbench/internal/kinds"
	"github.com/fairbench/fairbench/internal/result"
)

// test-orders is a kind whose headline counts one op type among several,
// like TPC-C's New-Orders per minute.
func init() {
	kinds.Register(kinds.Info{Kind: "test-orders", Headline: result.Headline{Name: "NOPM", Unit: "NOPM",
		HigherIsBetter: true, Field: result.FieldRequests, Ops: []string{"new_order"}, Per: 60}})
}

// orderRuns: a ran 600+i New-Orders and 3000 payments, b 900+i and 600, each
// in 60 s, four repetitions: a's throughput (60 tps) beats b's (25 tps), b's
// NOPM (901.5) beats a's (601.5).
func orderRuns(t *testing.T) ([]*analysis.Group, []*result.Run) {
	t.Helper()
	var runs []*result.Run
	for i := range int64(4) {
		for j, c := range []struct {
			target  string
			no, pay int64
		}{{"a", 600 + i, 3000}, {"b", 900 + i, 600}} {
			runs = append(runs, &result.Run{ID: 2*i + int64(j) + 1, StudyName: "s", Target: c.target, Workload: "orders",
				Kind: "test-orders", Clients: 4, Repetition: int(i) + 1, Status: result.StatusOK, Duration: time.Minute,
				Summary: result.Summary{Transactions: c.no + c.pay, Throughput: float64(c.no+c.pay) / 60},
				Ops: []result.Op{{Name: "new_order", Count: c.no, Histogram: encodeHist(t, 2000)},
					{Name: "payment", Count: c.pay, Histogram: encodeHist(t, 500)}}})
		}
	}
	groups, err := analysis.GroupRuns(runs)
	if err != nil {
		t.Fatal(err)
	}
	return groups, runs
}

func TestHeadlineInReports(t *testing.T) {
	groups, runs := orderRuns(t)
	var md bytes.Buffer
	if err := Markdown(&md, groups, runs, Options{}); err != nil {
		t.Fatal(err)
	}
	out := md.String()
	caption := "NOPM: successful requests of new_order per minute, median of repetitions:"
	if got := strings.Join(rowOfTable(t, out, caption, "b"), ","); got != "b,901.5" {
		t.Errorf("NOPM row of b %q, want b,901.5 (New-Orders only):\n%s", got, out)
	}
	if strings.Contains(out, "Throughput, tps") {
		t.Errorf("the report still leads with throughput:\n%s", out)
	}
	// Per op type: payments are 3000 / 60 s = 50/s on a, not in the headline;
	// every new_order took 2 ms and every payment 0.5 ms (avg, p50, p95, p99).
	if got := strings.Join(rowOfTable(t, out, "Per op type", "a"), ","); got != "a,4,new_order,10.0,2.000,2.000,2.000,2.000,yes" {
		t.Errorf("per-op row %q", got)
	}
	if !strings.Contains(out, "| a | 4 | payment | 50.0 | 0.500 | 0.500 | 0.500 | 0.500 | no |") {
		t.Errorf("no payment row:\n%s", out)
	}

	var term bytes.Buffer
	if err := Terminal(&term, groups, Options{}); err != nil {
		t.Fatal(err)
	}
	if s := term.String(); !strings.Contains(s, "NOPM (median)") || !strings.Contains(s, "901.5") || strings.Contains(s, "tps (median)") {
		t.Errorf("terminal:\n%s", s)
	}

	cmp, err := analysis.Compare(groups, "a", 0.05)
	if err != nil {
		t.Fatal(err)
	}
	var cm bytes.Buffer
	if err := CompareMarkdown(&cm, cmp, Options{}); err != nil {
		t.Fatal(err)
	}
	if s := cm.String(); !strings.Contains(s, "NOPM (median):") || !strings.Contains(s, "| b | 901.5 +49.9 %") ||
		!strings.Contains(s, markBetter) || !strings.Contains(s, "| target | cells | a NOPM | NOPM | delta |") {
		t.Errorf("comparison:\n%s", s)
	}
	var ct bytes.Buffer
	if err := CompareTerminal(&ct, cmp, Options{}); err != nil {
		t.Fatal(err)
	}
	if s := ct.String(); !strings.Contains(s, "NOPM") || !strings.Contains(s, markBetter) {
		t.Errorf("terminal comparison:\n%s", s)
	}

	var page bytes.Buffer
	if err := HTML(&page, groups, runs, HTMLOptions{Comparison: cmp}); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"<th>NOPM</th>", "601.5 → 901.5 NOPM", "NOPM: median of the repetitions", "<td>new_order</td>", "901.5 NOPM"} {
		if !strings.Contains(page.String(), want) {
			t.Errorf("HTML lacks %q", want)
		}
	}
	// Every cell has 4 clients: a chart against clients would be one point
	// per target; the page has its numbers and no such chart.
	if strings.Contains(page.String(), "NOPM · orders") || strings.Contains(page.String(), "Latency p99 · orders") {
		t.Errorf("HTML draws single-point charts against clients")
	}

	var js bytes.Buffer
	if err := JSON(&js, groups, Options{}); err != nil {
		t.Fatal(err)
	}
	if s := js.String(); !strings.Contains(s, `"median": 901.5`) || strings.Contains(s, `"throughput_median"`) {
		t.Errorf("JSON:\n%s", s)
	}
}

// rowOfTable returns the cells of target's row in the table after caption.
func rowOfTable(t *testing.T, md, caption, target string) []string {
	t.Helper()
	for _, r := range tableAfter(t, md, caption)[2:] {
		if c := cells(r); c[0] == target {
			return c
		}
	}
	t.Fatalf("no row %s after %q in:\n%s", target, caption, md)
	return nil
}

// encodeHist is a histogram of 100 latencies of us µs.
func encodeHist(t *testing.T, us int64) []byte {
	t.Helper()
	h := hist.New()
	if err := h.RecordValues(us, 100); err != nil {
		t.Fatal(err)
	}
	b, err := hist.Encode(h)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// A headline where lower is better: the peak is the smallest time, and the
// smaller time is "faster".
func TestLowerIsBetterInReports(t *testing.T) {
	h := result.Headline{Name: "query time", Unit: "s", HigherIsBetter: false, Field: result.FieldSeconds}
	var runs []*result.Run
	for i, c := range []struct {
		target  string
		clients int
		secs    float64
	}{{"fast", 1, 10}, {"fast", 1, 10.2}, {"fast", 2, 8}, {"fast", 2, 8.1}, {"slow", 1, 20}, {"slow", 1, 20.4}, {"slow", 2, 16}, {"slow", 2, 16.2}} {
		runs = append(runs, &result.Run{ID: int64(i + 1), StudyName: "s", Target: c.target, Workload: "queries", Kind: "queries",
			Clients: c.clients, Status: result.StatusOK, Duration: time.Minute,
			Summary: result.Summary{Throughput: 1, Metric: &result.Metric{Headline: h, Value: c.secs}}})
	}
	groups, err := analysis.GroupRuns(runs)
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := PeakMarkdown(&b, analysis.Peaks(groups, "fast"), "fast", nil, Options{}); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"Min query time, s, per scenario (clients):", "| fast (baseline) | 8.050 (2) † |", "| slow | 16.10 (2) † |", "| slow | 100.0 |"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("peaks lack %q:\n%s", want, b.String())
		}
	}
	cmp, err := analysis.Compare(groups, "slow", 0.05)
	if err != nil {
		t.Fatal(err)
	}
	b.Reset()
	if err := CompareTerminal(&b, cmp, Options{}); err != nil {
		t.Fatal(err)
	}
	if s := b.String(); !strings.Contains(s, "8.050") || !strings.Contains(s, "lower is better") {
		t.Errorf("comparison:\n%s", s)
	}
	// 2 against 2: Welch's t on logs decides, and the smaller time is faster.
	if cmp.Cells[0].Headline.Verdict != analysis.Faster || cmp.Cells[0].Headline.Test != analysis.WelchTest || !analysis.Better(h, 8.05, 16.1) {
		t.Errorf("verdict %v", cmp.Cells[0].Headline.Verdict)
	}
}

// The comparison lists each op type's p99 in every format: a row per op
// type in text and CSV, a table per op type in Markdown, "ops" in JSON and a
// table in HTML.
func TestCompareShowsEachOpTypesP99(t *testing.T) {
	groups, _ := orderRuns(t)
	cmp, err := analysis.Compare(groups, "a", analysis.DefaultAlpha)
	if err != nil {
		t.Fatal(err)
	}
	var text, md, js, csvOut bytes.Buffer
	if err := CompareTerminal(&text, cmp, Options{}); err != nil {
		t.Fatal(err)
	}
	if err := CompareMarkdown(&md, cmp, Options{}); err != nil {
		t.Fatal(err)
	}
	if err := CompareJSON(&js, cmp, nil); err != nil {
		t.Fatal(err)
	}
	if err := CompareCSV(&csvOut, cmp); err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string][]string{
		"text":     {"new_order p99 ms", "payment p99 ms"},
		"markdown": {"new_order latency p99, ms", "payment latency p99, ms"},
		"json":     {`"name": "new_order p99"`, `"name": "payment p99"`},
		"csv":      {",new_order p99,µs,", ",payment p99,µs,"},
	} {
		out := map[string]string{"text": text.String(), "markdown": md.String(), "json": js.String(), "csv": csvOut.String()}[name]
		for _, w := range want {
			if !strings.Contains(out, w) {
				t.Errorf("%s comparison lacks %q:\n%s", name, w, out)
			}
		}
	}
}
