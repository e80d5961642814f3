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
