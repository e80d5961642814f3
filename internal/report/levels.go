package report

import (
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/fairbench/fairbench/internal/analysis"
	"github.com/fairbench/fairbench/internal/numfmt"
)

// Clients levels that are a share of each target's hardware threads pair
// targets with different cores at different counts (analysis.cellKey): the
// views name such a cell by its share and show the count each side ran.

// threadShare writes a level's share for readers: "50%" as "50 % of threads".
func threadShare(level string) string {
	return strings.TrimSuffix(level, "%") + " % of threads"
}

// levelName heads a column of cells at one clients level.
func levelName(g *analysis.Group) string {
	if g.Level != "" {
		return threadShare(g.Level)
	}
	return numfmt.Plural(g.Clients, "1 client", strconv.Itoa(g.Clients)+" clients")
}

// clientsText is a compared cell's clients: the count, or the share with the
// target's count and the baseline's where they differ.
func clientsText(cc *analysis.CellComparison) string {
	g := cc.Other
	switch {
	case g.Level == "":
		return strconv.Itoa(g.Clients)
	case cc.Base.Clients == g.Clients:
		return fmt.Sprintf("%s (%d)", threadShare(g.Level), g.Clients)
	}
	return fmt.Sprintf("%s (%d; baseline %d)", threadShare(g.Level), g.Clients, cc.Base.Clients)
}

// sortLevels orders level ids as a sweep reads: client counts ascending, then
// shares of hardware threads ascending.
func sortLevels(ids []string) {
	rank := func(id string) (share bool, v float64) {
		if s, ok := strings.CutSuffix(id, "%"); ok {
			v, _ = strconv.ParseFloat(s, 64)
			return true, v
		}
		n, _ := strconv.Atoi(id)
		return false, float64(n)
	}
	sort.SliceStable(ids, func(i, j int) bool {
		si, vi := rank(ids[i])
		sj, vj := rank(ids[j])
		if si != sj {
			return !si
		}
		return vi < vj
	})
}

// shareCount is, for a cell at a share of hardware threads, the count that
// share came to on its target (", 4 clients"), which the column head does
// not say; "" for a literal count.
func shareCount(g *analysis.Group) string {
	if g.Level == "" {
		return ""
	}
	return ", " + numfmt.Plural(g.Clients, "1 client", strconv.Itoa(g.Clients)+" clients")
}

// pivotLevels are the clients levels of groups as columns: their ids in
// sweep order (sortLevels) and each one's head (levelName).
func pivotLevels(groups []*analysis.Group) (ids []string, names map[string]string) {
	names = map[string]string{}
	for _, g := range groups {
		if id := g.LevelID(); names[id] == "" {
			names[id] = levelName(g)
			ids = append(ids, id)
		}
	}
	sortLevels(ids)
	return ids, names
}

// groupClients is a group's clients in a list of cells: the count, and the
// share of threads it came from where it did.
func groupClients(g *analysis.Group) string {
	if g.Level == "" {
		return strconv.Itoa(g.Clients)
	}
	return fmt.Sprintf("%d (%s)", g.Clients, threadShare(g.Level))
}

// baseTargets are the baselines the cells are compared against, in order of
// first appearance: one, or one per engine (--baseline pg-x86,my-x86).
func baseTargets(cells []*analysis.CellComparison) []string {
	var out []string
	for _, cc := range cells {
		if !slices.Contains(out, cc.Base.Target) {
			out = append(out, cc.Base.Target)
		}
	}
	return out
}

// sideBySide is a section's tables with its targets as rows and its client
// levels (counts, or shares of threads) as columns, the targets' cells side
// by side: the headline's and the latency's, a cell whose runs shifted level
// with a row per level beneath its own. The Markdown report gives every
// section these; the text report, whose main table lists cells by client
// count, the sections sized by shares of threads.
type sideBySide struct {
	tables   []table
	levelled bool // a cell's levels added rows
	maxN     int  // the most completed repetitions of a cell
	// noLatency stands for the latency table where no cell has a latency
	// (the tool reports none).
	noLatency string
}

func sideBySideTables(groups []*analysis.Group) sideBySide {
	g0 := groups[0]
	levels, levelNames := pivotLevels(groups)
	targets := distinct(groups, func(g *analysis.Group) string { return g.Target })
	byCell := map[string]*analysis.Group{}
	var sb sideBySide
	for _, g := range groups {
		byCell[g.Target+"\x00"+g.LevelID()] = g
		sb.maxN = max(sb.maxN, g.N)
	}
	header := []string{"target"}
	for _, c := range levels {
		header = append(header, levelNames[c])
	}
	clientTable := func(caption string, value func(g *analysis.Group) string, levelValue func(g *analysis.Group, c analysis.CellLevels, first bool) string) {
		t := table{Caption: caption, Header: header, TextCols: 1}
		for _, tg := range targets {
			row := []string{tg}
			cells := make([]*analysis.Group, len(levels))
			for i, c := range levels {
				cells[i] = byCell[tg+"\x00"+c]
			}
			for _, g := range cells {
				v := ""
				if g != nil {
					if g.N == 0 {
						v = none
					} else {
						v = value(g)
						if g.N < sb.maxN {
							v += fmt.Sprintf(" (n=%d)", g.N)
						}
						if g.Level != "" {
							v += fmt.Sprintf(" (%d)", g.Clients)
						}
					}
				}
				row = append(row, v)
			}
			t.Rows = append(t.Rows, row)
			lr := levelRows(tg, cells, levelValue)
			t.Rows = append(t.Rows, lr...)
			sb.levelled = sb.levelled || len(lr) > 0
		}
		sb.tables = append(sb.tables, t)
	}
	clientTable(headlineCaption(g0.Headline), func(g *analysis.Group) string {
		if !sameHeadlineAs(g, g0) {
			return withUnit(g.Headline, g.Median)
		}
		return headlineValue(g.Headline, g.Median)
	}, func(g *analysis.Group, c analysis.CellLevels, first bool) string {
		v := levelRate(g, c, level(c, first), sameHeadlineAs(g, g0))
		if first {
			v += " (until s " + c.Until() + ")"
		}
		return v
	})
	if tools, all := latencyless(groups); all {
		sb.noLatency = noLatencyLine(tools, true)
		return sb
	}
	clientTable("Latency, ms (average / p50 / p95 / p99):", func(g *analysis.Group) string {
		if !hasLatencies(g) {
			if g.MeanLatency > 0 {
				// An import that printed only its mean latency.
				return average(g) + " / " + none + " / " + none + " / " + none
			}
			return none
		}
		return average(g) + " / " + ms(g.P50) + " / " + ms(g.P95) + " / " + ms(g.P99)
	}, func(_ *analysis.Group, c analysis.CellLevels, first bool) string {
		return levelLatency(level(c, first))
	})
	return sb
}

// byShareOfThreads reports whether a section's cells are sized by shares of
// the hardware threads: the text report's main table lists them by client
// count, so that one share's cells sit apart.
func byShareOfThreads(groups []*analysis.Group) bool {
	return slices.ContainsFunc(groups, func(g *analysis.Group) bool { return g.Level != "" })
}
