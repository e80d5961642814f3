package study

import (
	"slices"
	"strings"
	"testing"
)

// A study marks its baselines on the targets (issue 38 item 8): one per
// engine, so that a study of PostgreSQL and MySQL on two platforms each
// compares every target with its own engine's baseline. The report reads
// them back from the study the results file stores.
func TestBaselineKey(t *testing.T) {
	const workload = "[[workload]]\nkind = \"tpcb\"\n"
	doc := `[[target]]
name = "pg-v3"
url = "postgres://h3/db"
baseline = true
[[target]]
name = "pg-v4"
url = "postgres://h4/db"
[[target]]
name = "my-v3"
url = "mysql://h3/db"
baseline = true
[[target]]
name = "my-v4"
url = "mysql://h4/db"
baseline = false
` + workload
	s := mustParse(t, doc)
	if got := s.Baselines(); !slices.Equal(got, []string{"pg-v3", "my-v3"}) {
		t.Errorf("Baselines() = %v, want pg-v3, my-v3", got)
	}
	if got := BaselinesOf(s.Source); !slices.Equal(got, []string{"pg-v3", "my-v3"}) {
		t.Errorf("BaselinesOf(stored source) = %v, want pg-v3, my-v3", got)
	}
	var plan strings.Builder
	WritePlan(&plan, s, mustPlan(t, s), nil)
	for _, want := range []string{"pg-v3 (baseline)  postgres://h3/db", "my-v3 (baseline)  mysql://h3/db", "my-v4             mysql://h4/db"} {
		if !strings.Contains(plan.String(), want) {
			t.Errorf("validate's plan does not show %q:\n%s", want, plan.String())
		}
	}
	if got := BaselinesOf([]byte(header + workload)); got != nil {
		t.Errorf("a study without the key has baselines %v", got)
	}

	// Two baselines of one engine: the second is refused where it is
	// written, naming the first and its line.
	parseErr(t, `[[target]]
name = "pg-v3"
url = "postgres://h3/db"
baseline = true
[[target]]
name = "pg-v4"
url = "postgresql://h4/db"
[[target]]
name = "pg-v5"
url = "postgres://h5/db"
baseline = true # second
`+workload, "# second", `target "pg-v5": baseline: "pg-v3" on line 1 is already the baseline of the postgres:// targets; mark one baseline per engine`)
	parseErr(t, header+"baseline = \"yes\"\n"+workload, "baseline", `target "a": baseline must be true or false, got a string`)
}
