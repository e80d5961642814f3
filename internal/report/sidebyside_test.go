package report

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/fairbench/fairbench/internal/analysis"
	"github.com/fairbench/fairbench/internal/result"
)

// Issue 38: two servers with different cores at the same shares of their
// threads (x86, 8 threads: 4 and 7 clients; arm, 4 threads: 2 and 3). The
// text report listed its cells by client count, so "2 (50 % of threads)" and
// "4 (50 % of threads)" sat apart, and it had no table with both servers
// side by side per share, as the Markdown has: it has that table now, from
// the same code.
func TestTextReportPutsSharesOfThreadsSideBySide(t *testing.T) {
	var runs []*result.Run
	id := int64(0)
	for _, l := range []struct {
		level    string
		x86, arm int
	}{{"", 1, 1}, {"50%", 4, 2}, {"99%", 7, 3}} {
		for _, side := range []struct {
			target  string
			clients int
		}{{"x86", l.x86}, {"arm", l.arm}} {
			id++
			runs = append(runs, &result.Run{ID: id, StudyName: "s", Target: side.target, Workload: "w", Kind: "w",
				Clients: side.clients, ClientLevel: l.level, Repetition: 1, Status: result.StatusOK, Duration: time.Second,
				Summary: result.Summary{Transactions: 100, Throughput: float64(100 * side.clients)}})
		}
	}
	groups, err := analysis.GroupRuns(runs)
	if err != nil {
		t.Fatal(err)
	}
	var text, md bytes.Buffer
	if err := Terminal(&text, groups, Options{}); err != nil {
		t.Fatal(err)
	}
	if err := Markdown(&md, groups, runs, Options{}); err != nil {
		t.Fatal(err)
	}
	out := text.String()
	i := strings.Index(out, "w · Throughput, tps")
	if i < 0 {
		t.Fatalf("the text report has no side-by-side table:\n%s", out)
	}
	lines := strings.Split(out[i:], "\n")
	want := [][]string{
		{"target", "1 client", "50 % of threads", "99 % of threads"},
		{"x86", "100.0", "400.0 (4)", "700.0 (7)"},
		{"arm", "100.0", "200.0 (2)", "300.0 (3)"},
	}
	for k, w := range want {
		got := strings.Join(strings.Fields(lines[1+k]), " ")
		if got != strings.Join(w, " ") {
			t.Errorf("row %d %q, want %q:\n%s", k, got, strings.Join(w, " "), out)
		}
	}
	// The Markdown's table is the same.
	rows := tableAfter(t, md.String(), "Throughput, tps")
	if got := strings.Join(cells(rows[2]), " "); got != "x86 100.0 400.0 (4) 700.0 (7)" {
		t.Errorf("Markdown row %q", got)
	}
}
