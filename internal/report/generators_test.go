package report

import (
	"bytes"
	"strings"
	"testing"

	"github.com/fairbench/fairbench/internal/analysis"
	"github.com/fairbench/fairbench/internal/result"
)

// A run several load generators measured shows each generator's share in the
// text, Markdown and HTML reports; a run of one process shows no such table.
func TestLoadGeneratorsTable(t *testing.T) {
	gens := []any{
		map[string]any{"index": int64(0), "host": "gen-a", "clients": int64(3), "throughput": 900.0, "cpu_percent": 41.5, "cpus": int64(2), "clock_offset_ms": 0.25},
		map[string]any{"index": int64(1), "host": "gen-b", "clients": int64(2), "throughput": 500.0, "cpu_percent": 85.0, "cpus": int64(2), "clock_offset_ms": -1.5},
	}
	run := &result.Run{ID: 3, Target: "pg", Workload: "tpcb", Kind: "tpcb", Clients: 5, Repetition: 1, Status: result.StatusOK,
		Env: result.EnvironmentFromMap(map[string]any{"load_generators": gens}), Summary: result.Summary{Transactions: 1400, Throughput: 1400}}
	tb, ok := generatorsTable([]*result.Run{run})
	if !ok || len(tb.Rows) != 2 {
		t.Fatalf("table %v %v", tb, ok)
	}
	for i, want := range [][]string{
		{"3", "pg", "0", "gen-a", "3", "900.0 tps", "300.0", "42", "+0.250"},
		{"3", "pg", "1", "gen-b", "2", "500.0 tps", "250.0", "85", "-1.500"},
	} {
		if strings.Join(tb.Rows[i], "|") != strings.Join(want, "|") {
			t.Errorf("row %d = %v, want %v", i, tb.Rows[i], want)
		}
	}
	if _, ok := generatorsTable([]*result.Run{{ID: 1, Env: result.EnvironmentFromMap(map[string]any{})}}); ok {
		t.Errorf("a table for a run of one process")
	}
	groups, err := analysis.GroupRuns([]*result.Run{run})
	if err != nil {
		t.Fatal(err)
	}
	var text, md, html bytes.Buffer
	if err := Terminal(&text, groups, Options{}); err != nil {
		t.Fatal(err)
	}
	if err := Markdown(&md, groups, []*result.Run{run}, Options{}); err != nil {
		t.Fatal(err)
	}
	if err := HTML(&html, groups, []*result.Run{run}, HTMLOptions{}); err != nil {
		t.Fatal(err)
	}
	for name, out := range map[string]string{"text": text.String(), "markdown": md.String(), "html": html.String()} {
		if !strings.Contains(out, "gen-b") || !strings.Contains(out, "Load generators") {
			t.Errorf("%s report has no load generators table", name)
		}
	}
}
