package report

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/fairbench/fairbench/internal/analysis"
	"github.com/fairbench/fairbench/internal/numfmt"
	"github.com/fairbench/fairbench/internal/result"
)

// The server view: what each target's server reported of itself while its
// runs were measured (result.ServerView). The names are the engine's; the
// report only lays them out, escaped by the writer of each format.

// Bounds of a server view table: the wait states most sampled, and the
// counters that moved, so that a table stays readable whatever the engine
// reports.
const (
	viewTopWaits    = 8
	viewMaxCounters = 24
	viewChartWaits  = 3
	viewChartPoints = 10
)

// viewCell is one cell of a section: its groups, one per target, and their
// pooled views (nil where a target has none).
type viewCell struct {
	groups []*analysis.Group
	views  []*result.ServerView
}

// viewCells are the cells of a section in which some target has a view.
func viewCells(sec section) []viewCell {
	var out []viewCell
	idx := map[string]int{}
	for _, g := range sec.groups {
		v := analysis.PoolServerView(g.Runs)
		k := g.Level
		if k == "" {
			k = fmt.Sprint(g.Clients)
		}
		i, ok := idx[k]
		if !ok {
			i = len(out)
			idx[k] = i
			out = append(out, viewCell{})
		}
		if slices.Contains(out[i].groups, g) {
			continue // a comparison may name the baseline's group twice
		}
		out[i].groups = append(out[i].groups, g)
		out[i].views = append(out[i].views, v)
	}
	return slices.DeleteFunc(out, func(c viewCell) bool {
		return !slices.ContainsFunc(c.views, func(v *result.ServerView) bool { return v != nil })
	})
}

// serverViewTables are a section's server view tables, one per cell with a
// view: the targets side by side, wait states' shares of the active-session
// samples, then counters per second, then gauges.
func serverViewTables(sec section, label labeler) []table {
	var out []table
	for _, c := range viewCells(sec) {
		t := table{Title: "Server view", TextCols: 2,
			Caption: label.cell(c.groups[0]) + ": what each server reported of itself while the runs were measured (" +
				"waits: share of active-session samples; counters: per second; gauges: mean, max)"}
		t.Header = []string{"metric", "unit"}
		for _, g := range c.groups {
			t.Header = append(t.Header, g.Target)
		}
		row := func(name, unit string, val func(*result.ServerView) string) {
			r := []string{name, unit}
			for _, v := range c.views {
				s := "-"
				if v != nil {
					s = val(v)
				}
				r = append(r, s)
			}
			t.Rows = append(t.Rows, r)
		}
		row("samples", "", func(v *result.ServerView) string {
			return fmt.Sprintf("%d (%s active)", v.Samples, numfmt.Whole(v.Active))
		})
		for _, w := range topWaits(c.views, viewTopWaits) {
			row("wait "+w, "%", func(v *result.ServerView) string { return numfmt.Fixed(100*v.Share(w), 1) })
		}
		for _, name := range movedCounters(c.views, viewMaxCounters) {
			unit := "/s"
			if u := counterUnit(c.views, name); u != "" {
				unit = u + "/s"
			}
			row(name, unit, func(v *result.ServerView) string {
				for _, x := range v.Counters {
					if x.Name == name {
						return numfmt.Significant(x.PerSecond, 4)
					}
				}
				return "-"
			})
		}
		for _, name := range gaugeNames(c.views) {
			row(name, gaugeUnit(c.views, name), func(v *result.ServerView) string {
				for _, x := range v.Gauges {
					if x.Name == name {
						return numfmt.Significant(x.Mean, 4) + ", " + numfmt.Significant(x.Max, 4)
					}
				}
				return "-"
			})
		}
		out = append(out, t)
	}
	return out
}

// topWaits are the wait states with the largest shares in any of views,
// at most n, largest first.
func topWaits(views []*result.ServerView, n int) []string {
	best := map[string]float64{}
	for _, v := range views {
		if v == nil {
			continue
		}
		for _, w := range v.Waits {
			best[w.Name] = max(best[w.Name], v.Share(w.Name))
		}
	}
	names := make([]string, 0, len(best))
	for k := range best {
		names = append(names, k)
	}
	slices.SortFunc(names, func(a, b string) int {
		if best[a] != best[b] {
			if best[a] > best[b] {
				return -1
			}
			return 1
		}
		return strings.Compare(a, b)
	})
	return names[:min(n, len(names))]
}

// movedCounters are the counters that grew in any of views, in name order,
// at most n.
func movedCounters(views []*result.ServerView, n int) []string {
	var names []string
	for _, v := range views {
		if v == nil {
			continue
		}
		for _, c := range v.Counters {
			if c.Delta > 0 && !slices.Contains(names, c.Name) {
				names = append(names, c.Name)
			}
		}
	}
	slices.Sort(names)
	return names[:min(n, len(names))]
}

func counterUnit(views []*result.ServerView, name string) string {
	for _, v := range views {
		if v == nil {
			continue
		}
		for _, c := range v.Counters {
			if c.Name == name && c.Unit != "" {
				return c.Unit
			}
		}
	}
	return ""
}

func gaugeNames(views []*result.ServerView) []string {
	var names []string
	for _, v := range views {
		if v == nil {
			continue
		}
		for _, g := range v.Gauges {
			if !slices.Contains(names, g.Name) {
				names = append(names, g.Name)
			}
		}
	}
	slices.Sort(names)
	return names
}

func gaugeUnit(views []*result.ServerView, name string) string {
	for _, v := range views {
		if v == nil {
			continue
		}
		for _, g := range v.Gauges {
			if g.Name == name && g.Unit != "" {
				return g.Unit
			}
		}
	}
	return ""
}

// serverViewGaps is the report's one table of what each target's server
// view could not read (and what would enable it), and of views that
// stopped early: one row per target and line, however many runs said it.
func serverViewGaps(groups []*analysis.Group) (table, bool) {
	t := table{Title: "Server view: not read", TextCols: 2, Header: []string{"target", "what is missing, and what would enable it"},
		Caption: "Parts of the servers' own view the samplers could not read"}
	seen := map[string]bool{}
	for _, r := range groupRuns(groups) {
		v := r.ServerView
		if v == nil {
			continue
		}
		lines := slices.Clone(v.Unavailable)
		if v.Error != "" {
			lines = append(lines, v.Error)
		}
		for _, l := range lines {
			if k := r.Target + "\x00" + l; !seen[k] {
				seen[k] = true
				t.Rows = append(t.Rows, []string{r.Target, l})
			}
		}
	}
	return t, len(t.Rows) > 0
}

// waitFindingLine states one marked difference in a wait state's share:
// "tpcb, 8 clients: sync-on sessions waited on IO:WALSync in 41 % of
// samples, sync-off in 9 %".
func waitFindingLine(d analysis.WaitDifference) string {
	return fmt.Sprintf("%s: %s sessions waited on %s in %s of samples, %s in %s",
		d.Cell, d.High, d.Wait, percent(d.HighShare), d.Low, percent(d.LowShare))
}

func percent(share float64) string {
	return fmt.Sprintf("%.0f %%", math.Round(100*share))
}

// serverViewCharts are, per cell with a view, the shares over time of the
// wait states most sampled there: one colour per wait state, one dash per
// target.
func serverViewCharts(i int, sec section) []*lineChart {
	var out []*lineChart
	dashes := []string{"", "6 3", "2 3", "8 3 2 3"}
	for j, c := range viewCells(sec) {
		chart := &lineChart{ID: fmt.Sprintf("s%d-waits%d", i, j), Title: "Wait states over time, " + clientsLabel(c.groups[0]),
			XLabel: "seconds of the measured phase", YLabel: "% of active-session samples"}
		for wi, w := range topWaits(c.views, viewChartWaits) {
			for ti, v := range c.views {
				if v == nil || len(v.Buckets) == 0 {
					continue
				}
				s := lineSeries{Name: c.groups[ti].Target + " · " + w, Colour: colour(wi), Dash: dashes[ti%len(dashes)]}
				// A point per few buckets: a share of a handful of
				// sessions in one short bucket is mostly noise.
				per := (len(v.Buckets) + viewChartPoints - 1) / viewChartPoints
				for k := 0; k < len(v.Buckets); k += per {
					span := v.Buckets[k:min(k+per, len(v.Buckets))]
					var all, in int64
					for _, b := range span {
						for _, n := range b.Waits {
							all += n
						}
						in += b.Waits[w]
					}
					y := math.NaN()
					if all > 0 {
						y = 100 * float64(in) / float64(all)
					}
					s.X, s.Y = append(s.X, (span[0].From+span[len(span)-1].To)/2), append(s.Y, y)
				}
				chart.Series = append(chart.Series, s)
			}
		}
		if chart.hasData() {
			out = append(out, chart)
		}
	}
	return out
}

// clientsLabel is "8 clients", or the level a share of threads named.
func clientsLabel(g *analysis.Group) string {
	if g.Level != "" {
		return g.Level + " of the threads"
	}
	return numfmt.Count(g.Clients, "client", "clients")
}
