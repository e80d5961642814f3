package queryset_test

import (
	"slices"
	"testing"

	"github.com/fairbench/fairbench/internal/kinds"
	"github.com/fairbench/fairbench/internal/result"
	"github.com/fairbench/fairbench/internal/workload/clickbench"
	"github.com/fairbench/fairbench/internal/workload/ssb"
)

// Issue 38: the SSB per-query table carried a "ClickBench score (hot)" row.
// The score is ClickBench's, and its kind declares it: SSB's table ends with
// the geometric mean, ClickBench's with the score.
func TestOnlyClickBenchsTableCarriesItsScore(t *testing.T) {
	hot := func(v float64) *float64 { return &v }
	for kind, want := range map[string]bool{ssb.Kind: false, clickbench.Kind: true} {
		info, ok := kinds.Lookup(kind)
		if !ok || info.Sections == nil {
			t.Fatalf("kind %s has no report sections", kind)
		}
		var runs []*result.Run
		for _, target := range []string{"a", "b"} {
			runs = append(runs, &result.Run{Target: target, Status: result.StatusOK, Kind: kind,
				Summary: result.Summary{Queries: []result.QueryResult{{Name: "Q1", Tries: []*float64{hot(2), hot(1), hot(1)}}}}})
		}
		sec := info.Sections(runs, "a")
		if len(sec) != 1 {
			t.Fatalf("%s: sections %+v", kind, sec)
		}
		scored := slices.ContainsFunc(sec[0].Rows, func(row []string) bool { return row[0] == "ClickBench score (hot)" })
		if scored != want {
			t.Errorf("%s: ClickBench score row %v, want %v: %v", kind, scored, want, sec[0].Rows)
		}
	}
}
