package report

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/fairbench/fairbench/internal/analysis"
	"github.com/fairbench/fairbench/internal/kinds"
	"github.com/fairbench/fairbench/internal/result"
)

// test-lead registers a section that leads its report section, as a query
// set's per-query table does, and one that follows.
func init() {
	kinds.Register(kinds.Info{Kind: "test-lead", Sections: func(runs []*result.Run, baseline string) []kinds.Section {
		return []kinds.Section{
			{Title: "Leading table", Columns: []string{"query", "s"}, Rows: [][]string{{"Q1", "0.5"}}, Lead: true},
			{Title: "Trailing table", Columns: []string{"x", "y"}, Rows: [][]string{{"a", "1"}}},
		}
	}})
}

func TestLeadingKindTableOpensItsSection(t *testing.T) {
	var runs []*result.Run
	for i := range int64(2) {
		runs = append(runs, &result.Run{ID: i + 1, StudyName: "s", Target: "t", Workload: "q", Kind: "test-lead", Clients: 1,
			Repetition: int(i) + 1, Status: result.StatusOK, Duration: time.Second, Summary: result.Summary{Transactions: 10, Throughput: 10},
			Ops: []result.Op{{Name: "Q1", Count: 10}}})
	}
	groups, err := analysis.GroupRuns(runs)
	if err != nil {
		t.Fatal(err)
	}
	var md, term, page bytes.Buffer
	if err := Markdown(&md, groups, runs, Options{}); err != nil {
		t.Fatal(err)
	}
	if err := Terminal(&term, groups, Options{}); err != nil {
		t.Fatal(err)
	}
	if err := HTML(&page, groups, runs, HTMLOptions{}); err != nil {
		t.Fatal(err)
	}
	for name, out := range map[string]string{"md": md.String(), "text": term.String(), "html": page.String()} {
		lead, trail := strings.Index(out, "Leading table"), strings.Index(out, "Trailing table")
		first := strings.Index(out, "median of repetitions") // the section's headline table
		if name == "text" {
			first = strings.Index(out, "tps (median)")
		}
		if name == "html" {
			first = strings.Index(out, "Throughput, tps: median of the repetitions [")
		}
		if lead < 0 || trail < 0 || first < 0 || !(lead < first && first < trail) {
			t.Errorf("%s: leading table at %d, headline table at %d, trailing table at %d:\n%s", name, lead, first, trail, out)
		}
	}
}
