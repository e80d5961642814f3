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

// The two levels of a cell whose every repetition changed level
// (analysis.CellLevelShift) are rows of their own in the main per-cell
// tables, under the cell's row, as the articles print "write, burst" and
// "write, sustained load": "<target> · burst (until s 5)" and
// "<target> · steady".

// levelsNote explains those rows, below a table that has them.
const levelsNote = "rows “· burst” and “· steady” (or “· first level” and “· second level”): a cell whose every repetition " +
	"changed level, the first level lasting until second N; each level's rate is the median over the repetitions of their mean " +
	"ops/s at it, its latencies from the histograms of its seconds, merged (“throughput only” where the per-second series kept none)"

// levelLabel names a level's row: "pg · burst (until s 5)", "pg · steady".
func levelLabel(target string, c analysis.CellLevels, first bool) string {
	a, b := c.Names()
	if first {
		return target + " · " + a + " (until s " + c.Until() + ")"
	}
	return target + " · " + b
}

// level is the level of c a row shows: its first or its second.
func level(c analysis.CellLevels, first bool) analysis.Level {
	if first {
		return c.First
	}
	return c.Second
}

// levelRate writes a level's rate: bare in the headline's unit where the
// level measures what the headline does and bare is asked for, else with
// its unit, ops/s.
func levelRate(g *analysis.Group, c analysis.CellLevels, l analysis.Level, bare bool) string {
	switch {
	case c.InHeadlineUnit && bare:
		return headlineValue(g.Headline, l.Rate)
	case c.InHeadlineUnit:
		return withUnit(g.Headline, l.Rate)
	}
	return rate(l.Rate) + " ops/s"
}

// levelLatency is a level's latency in ms (average / p50 / p95 / p99), or
// says that only its throughput is known.
func levelLatency(l analysis.Level) string {
	if !l.HasLatency {
		return "throughput only"
	}
	return ms(l.Mean) + " / " + ms(l.P50) + " / " + ms(l.P95) + " / " + ms(l.P99)
}

// levelRows are the rows a pivot table (targets as rows, one column per
// cell) gains under target when some of its cells changed level in every
// repetition: one row per level, each shifted cell's value written by
// value, the others blank. The rows are named "burst" and "steady" when
// every shifted cell burst, "first level" and "second level" otherwise.
func levelRows(target string, cells []*analysis.Group, value func(g *analysis.Group, c analysis.CellLevels, first bool) string) [][]string {
	shifted := make([]*analysis.CellLevels, len(cells))
	var names *analysis.CellLevels
	for i, g := range cells {
		if g == nil {
			continue
		}
		if c, ok := analysis.CellLevelShift(g); ok {
			shifted[i] = &c
			if names == nil || (names.Burst && !c.Burst) {
				names = &c
			}
		}
	}
	if names == nil {
		return nil
	}
	var rows [][]string
	for _, first := range []bool{true, false} {
		a, b := names.Names()
		row := []string{target + " · " + a}
		if !first {
			row[0] = target + " · " + b
		}
		for i, c := range shifted {
			v := ""
			if c != nil {
				v = value(cells[i], *c, first)
			}
			row = append(row, v)
		}
		rows = append(rows, row)
	}
	return rows
}

// levelRowsText are the terminal main table's rows of g's two levels, when
// every repetition of g changed level: its columns, with the level's rate
// (bare when the table's headline column has one unit) and latencies.
func levelRowsText(g *analysis.Group, bare, multiStudy bool, label labeler) [][]string {
	c, ok := analysis.CellLevelShift(g)
	if !ok {
		return nil
	}
	var rows [][]string
	for _, first := range []bool{true, false} {
		l := level(c, first)
		row := []string{levelLabel(g.Target, c, first), workloadName(g), label.params(g), groupClients(g), strconv.Itoa(g.N),
			levelRate(g, c, l, bare)}
		if l.HasLatency {
			row = append(row, ms(l.Mean), ms(l.P50), ms(l.P95), ms(l.P99), ms(l.Max))
		} else {
			row = append(row, "throughput only", none, none, none, none)
		}
		row = append(row, strconv.FormatInt(l.Errors, 10))
		if multiStudy {
			row = append([]string{g.Study}, row...)
		}
		rows = append(rows, row)
	}
	return rows
}
