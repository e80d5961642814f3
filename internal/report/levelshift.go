package report

import (
	"strconv"

	"github.com/fairbench/fairbench/internal/analysis"
)

// levelShiftTable lists the completed runs of groups whose per-second
// throughput held one level and then another (analysis.RunLevelShift): each
// level as a row of its own, with its seconds and rate, and the run's
// headline, which blends both, beneath them. Every renderer shows it beside
// the cell's numbers, since the drift warning alone may be one of many in
// its group.
func levelShiftTable(groups []*analysis.Group, label labeler) (table, bool) {
	t := table{Caption: "Level shifts: runs whose per-second throughput held one level, then another (burst credits, throttling, " +
		"a cache still warming); each level is a row, and the run's headline, on the row below them, blends both:",
		Header: []string{"run", "target", "scenario", "clients", "level", "seconds", "rate"},
		Right:  []bool{true, false, false, true, false, true, true}}
	seen := map[*analysis.Group]bool{}
	for _, g := range groups {
		if seen[g] {
			continue // a comparison names the baseline's group once per cell
		}
		seen[g] = true
		for _, r := range g.Runs {
			s, ok := analysis.RunLevelShift(r)
			if !ok {
				continue
			}
			first, second := "first, until s ", "second, from s "
			if s.Burst() {
				first, second = "burst, until s ", "steady, from s "
			}
			m := analysis.Headline(r)
			cells := []string{strconv.FormatInt(r.ID, 10), g.Target, label.scenario(g), strconv.Itoa(g.Clients)}
			t.Rows = append(t.Rows,
				append(cells[:4:4], first+strconv.Itoa(s.Second), strconv.Itoa(s.BeforeSeconds), rate(s.Before)+" ops/s"),
				append(cells[:4:4], second+strconv.Itoa(s.Second+1), strconv.Itoa(s.AfterSeconds), rate(s.After)+" ops/s"),
				append(cells[:4:4], "whole run (blends both)", strconv.Itoa(s.BeforeSeconds+s.AfterSeconds), withUnit(m.Headline, m.Value)))
		}
	}
	return t, len(t.Rows) > 0
}
