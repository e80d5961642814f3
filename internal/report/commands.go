package report

import (
	"fmt"
	"slices"
	"strings"

	"github.com/fairbench/fairbench/internal/analysis"
	"github.com/fairbench/fairbench/internal/numfmt"
)

// commandsLine says which commands the study ran around the reported runs
// (result.Run.Hooks) and whether they all succeeded, for the methodology
// section: "" when none ran. The hooks are named, not their command lines:
// those are in each run's record (fairbench show, JSON).
func commandsLine(groups []*analysis.Group) string {
	var order []string
	count := map[string]int{}
	cold := map[string]bool{}
	runs := 0
	var failed []int64
	for _, g := range groups {
		for _, r := range g.Runs {
			if len(r.Hooks) == 0 {
				continue
			}
			runs++
			bad := false
			for _, h := range r.Hooks {
				if count[h.Hook] == 0 {
					order = append(order, h.Hook)
				}
				count[h.Hook]++
				if h.Before != "" {
					cold[h.Hook] = true
				}
				bad = bad || !h.OK()
			}
			if bad {
				failed = append(failed, r.ID)
			}
		}
	}
	if runs == 0 {
		return ""
	}
	parts := make([]string, len(order))
	for i, h := range order {
		parts[i] = fmt.Sprintf("%s %d×", h, count[h])
		if cold[h] {
			parts[i] += " (before each query's first try)"
		}
	}
	outcome := "all succeeded"
	if len(failed) > 0 {
		slices.Sort(failed)
		outcome = fmt.Sprintf("some failed (runs %s)", joinIDs(failed))
	}
	return fmt.Sprintf("Commands around runs: %s, around %d %s; %s.", strings.Join(parts, ", "), runs, numfmt.Plural(runs, "run", "runs"), outcome)
}

func joinIDs(ids []int64) string {
	s := make([]string, len(ids))
	for i, id := range ids {
		s[i] = fmt.Sprint(id)
	}
	return strings.Join(s, ", ")
}
