package report

import (
	"strconv"
	"strings"

	"github.com/fairbench/fairbench/internal/analysis"
)

// priceTable is the declared price of each target beside what it buys: cost
// per hour, per scenario the peak per dollar, and the sum of the scenarios'
// peaks where they are one rate, as published comparisons print "points"
// per server next to its rental price. ok is false when no target declared
// a price_per_hour.
func priceTable(groups []*analysis.Group) (table, bool) {
	prices := analysis.Prices(groups)
	if len(prices) == 0 {
		return table{}, false
	}
	// Columns are named by what varies between the scenarios, as compare
	// --peak names its columns; what they share is said once, in the note.
	var all []*analysis.Peak
	for _, tp := range prices {
		all = append(all, tp.Peaks...)
	}
	label, name := peakNames(all)
	var scen, notes []string
	col := map[string]int{}
	total := false
	for _, tp := range prices {
		for _, p := range tp.Peaks {
			id := p.Study + "\x00" + p.Scenario()
			if _, ok := col[id]; !ok {
				col[id] = len(scen)
				scen = append(scen, name(p)+": "+perDollarLabel(p.Headline)+" per $")
			}
		}
		total = total || tp.HasTotal
	}
	t := table{Caption: "Price (price_per_hour declared in the study): cost per hour; per scenario, the peak over the clients sweep × 3600 / price per hour:",
		Header: append([]string{"target", "$ per hour"}, scen...), TextCols: 1}
	if common := label.commonAll(peakGroups(all)); len(common) > 0 {
		notes = append(notes, "Same in every column: "+strings.Join(common, "; ")+" (others at their defaults).")
	}
	if total {
		t.Header = append(t.Header, "total of the peaks", "total per $")
		notes = append(notes, "Total: the sum of the scenarios' peaks, as \"points\" per server; its per $ is that sum × 3600 / price per hour.")
	}
	t.Note = strings.Join(notes, " ")
	for _, tp := range prices {
		row := make([]string, len(t.Header))
		row[0], row[1] = tp.Target, strconv.FormatFloat(tp.PricePerHour, 'f', -1, 64)
		for i, p := range tp.Peaks {
			if tp.PerDollar[i] > 0 {
				row[2+col[p.Study+"\x00"+p.Scenario()]] = rate(tp.PerDollar[i])
			}
		}
		if tp.HasTotal {
			row[len(row)-2] = withUnit(tp.Peaks[0].Headline, tp.Total)
			row[len(row)-1] = rate(tp.TotalPerDollar)
		}
		t.Rows = append(t.Rows, row)
	}
	return t, true
}
