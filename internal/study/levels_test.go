package study

import (
	"fmt"
	"strings"
	"testing"

	"github.com/fairbench/fairbench/internal/params"
)

// A share of hardware threads comes to different counts on targets with
// different cores; each cell records the share it came from, and the
// interleaved order runs the targets at one share together (8 cores: 4 and
// 7 clients; 4 cores: 2 and 3).
func TestPlanSharesOfThreadsRecordTheirLevel(t *testing.T) {
	cells := mustPlan(t, mustParse(t, `
[study]
duration = 1
[[target]]
name = "x86"
url = "postgres://bench@10.0.0.1/bench"
cores = 8
[[target]]
name = "arm"
url = "postgres://bench@10.0.0.2/bench"
cores = 4
[[workload]]
kind = "tpcb"
clients = [1, "50%", "99%"]
`))
	var got []string
	for _, c := range cells {
		got = append(got, fmt.Sprintf("%s c%d %q", c.Target.Name, c.Clients, c.Level))
	}
	want := []string{`x86 c1 ""`, `arm c1 ""`, `x86 c4 "50%"`, `arm c2 "50%"`, `x86 c7 "99%"`, `arm c3 "99%"`}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("cells %v,\nwant %v", got, want)
	}
}

// Two scales on one database: the scale is swept outermost, so each data set
// is loaded once per repetition round (4 loads for 2 scales × 2 rounds, not
// one at every switch of mode: 8), and validate's plan says so.
func TestPlanLoadsEachDataSetOncePerRound(t *testing.T) {
	dataCat := fakeCatalog{"tpcb": {
		{Name: "mode", Kind: params.String, Choices: []string{"select-only", "simple-update"}, Default: "select-only"},
		{Name: "scale", Kind: params.Int, Min: params.MinOf(1), Default: int64(1), Data: true},
	}}
	s := mustParse(t, `
[study]
duration = 1
repetitions = 2
[[target]]
name = "pg"
url = "postgres://bench@10.0.0.1/bench"
[[workload]]
kind = "tpcb"
mode = ["select-only", "simple-update"]
scale = [1, 10]
`)
	cells, err := s.Plan(dataCat)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, c := range cells {
		got = append(got, fmt.Sprintf("%s/%d", c.Params.String("mode"), c.Params["scale"]))
	}
	want := []string{"select-only/1", "simple-update/1", "select-only/10", "simple-update/10"}
	if fmt.Sprint(got[:4]) != fmt.Sprint(want) || fmt.Sprint(got[4:]) != fmt.Sprint(want) {
		t.Errorf("order %v, want %v twice", got, want)
	}
	var b strings.Builder
	WritePlan(&b, s, cells, nil)
	if !strings.Contains(b.String(), "data: 2 data sets (tpcb scale=1; tpcb scale=10), loaded 4 times in this order") {
		t.Errorf("plan does not count the loads:\n%s", b.String())
	}
}
