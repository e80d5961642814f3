package report

import (
	"fmt"
	"sort"
	"strconv"

	"github.com/fairbench/fairbench/internal/analysis"
	"github.com/fairbench/fairbench/internal/result"
)

// generatorsTable lists, for each run that several load generators measured,
// what each generator did: its clients, its throughput (in the run's
// headline unit) and its CPU, so that a reader sees a saturated or slow
// client instead of trusting the merged figure blindly.
func generatorsTable(runs []*result.Run) (table, bool) {
	sorted := append([]*result.Run(nil), runs...)
	sort.SliceStable(sorted, func(i, j int) bool { return sorted[i].ID < sorted[j].ID })
	t := table{
		Caption:  "Load generators (each run's share per generator; CPU of the CPUs each could use):",
		Header:   []string{"run", "target", "generator", "host", "clients", "headline", "per client", "CPU %", "clock offset ms"},
		TextCols: 4,
	}
	for _, r := range sorted {
		gens := analysis.LoadGenerators(r)
		if len(gens) == 0 {
			continue
		}
		unit := analysis.Headline(r).Headline.Unit
		for _, g := range gens {
			per := none
			if g.Clients > 0 {
				per = rate(g.Throughput / float64(g.Clients))
			}
			t.Rows = append(t.Rows, []string{
				strconv.FormatInt(r.ID, 10), r.Target, strconv.Itoa(g.Index), g.Host, strconv.Itoa(g.Clients),
				rate(g.Throughput) + " " + unit, per, fmt.Sprintf("%.0f", g.CPUPercent), fmt.Sprintf("%+.3f", g.ClockOffsetMS),
			})
		}
	}
	return t, len(t.Rows) > 0
}

// groupRuns is every run behind the groups.
func groupRuns(groups []*analysis.Group) []*result.Run {
	var runs []*result.Run
	for _, g := range groups {
		runs = append(runs, g.Runs...)
	}
	return runs
}
