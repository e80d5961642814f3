package study

import (
	"fmt"
	"testing"
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
