package report

import (
	"strconv"
	"strings"

	"github.com/fairbench/fairbench/internal/numfmt"

	"github.com/fairbench/fairbench/internal/analysis"
	"github.com/fairbench/fairbench/internal/result"
)

// Every renderer leads with each group's headline metric (analysis.Headline
// says which) under its own name and unit, and says which way is better when
// smaller is: throughput in tps for most workloads, a time in seconds for
// others. The helpers here name and format it the same way everywhere.

// isTPS reports whether h is plain throughput in tps, the headline of every
// run stored before headline metrics existed: reports keep their old wording
// for it.
func isTPS(h result.Headline) bool {
	return h.Name == result.Throughput.Name && h.Unit == result.Throughput.Unit && h.HigherIsBetter
}

// headlineValue formats a headline value: a time with 4 significant digits
// (a query set's 0.06338 s must not read 0.0), a rate with one decimal and
// thousands separators.
func headlineValue(h result.Headline, v float64) string {
	if isTime(h) {
		return numfmt.Significant(v, 4)
	}
	return rate(v)
}

// isTime reports whether a headline is a time rather than a rate.
func isTime(h result.Headline) bool {
	return h.Field == result.FieldSeconds || h.Field == result.FieldQueryTimes
}

// capital writes s with its first letter in upper case.
func capital(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

// headlineTitle is "Throughput, tps" or "NOPM, NOPM" shortened to "NOPM".
func headlineTitle(h result.Headline) string {
	if h.Unit == "" || h.Unit == h.Name {
		return capital(h.Name)
	}
	return capital(h.Name) + ", " + h.Unit
}

// headlineMeaning says in words what a headline counts.
func headlineMeaning(h result.Headline) string {
	if isTPS(h) {
		return "successful transactions or operations per second"
	}
	of := "every op type"
	if len(h.Ops) > 0 {
		of = strings.Join(h.Ops, ", ")
	}
	per := "second"
	switch h.Per {
	case 0, 1:
	case 60:
		per = "minute"
	case 3600:
		per = "hour"
	default:
		per = strconv.FormatFloat(h.Per, 'f', -1, 64) + " s"
	}
	var s string
	switch h.Field {
	case result.FieldItems:
		s = "items of the successful requests of " + of + " per " + per
	case result.FieldSeconds:
		s = "total seconds spent in " + of
	case result.FieldQueryTimes:
		s = "geometric mean of the queries' hot times (each query's best try after the first), in seconds"
	default:
		s = "successful requests of " + of + " per " + per
	}
	if !h.HigherIsBetter {
		s += ", lower is better"
	}
	return s
}

// headlineCaption is the caption of a section's headline table.
func headlineCaption(h result.Headline) string {
	return headlineTitle(h) + ": " + headlineMeaning(h) + ", median of repetitions:"
}

// sharedUnit is the unit every group's headline has, "" when they differ.
func sharedUnit(groups []*analysis.Group) (string, bool) {
	unit := ""
	for i, g := range groups {
		if i == 0 {
			unit = g.Headline.Unit
		} else if g.Headline.Unit != unit {
			return "", false
		}
	}
	return unit, true
}

// withUnit writes a value with its unit, for columns that mix headlines.
func withUnit(h result.Headline, v float64) string {
	return headlineValue(h, v) + " " + h.Unit
}

// perDollarLabel names what a headline's per-dollar figure counts.
func perDollarLabel(h result.Headline) string {
	switch {
	case isTPS(h):
		return "tx"
	case strings.HasSuffix(h.Unit, "/s"):
		return strings.TrimSuffix(h.Unit, "/s")
	}
	return h.Name
}

// allTPS reports whether every group leads with throughput in tps (then the
// reports keep the wording they had before headline metrics).
func allTPS(groups []*analysis.Group) bool {
	for _, g := range groups {
		if !isTPS(g.Headline) {
			return false
		}
	}
	return true
}

func sameHeadlineAs(a, b *analysis.Group) bool {
	return a.Headline.Name == b.Headline.Name && a.Headline.Unit == b.Headline.Unit
}

// headlineList names the distinct headlines of groups: "NOPM; time, s, lower is better".
func headlineList(groups []*analysis.Group) string {
	seen := map[string]bool{}
	var parts []string
	for _, g := range groups {
		h := g.Headline
		s := h.Name
		if h.Unit != "" && h.Unit != h.Name {
			s += " in " + h.Unit
		}
		if !h.HigherIsBetter {
			s += ", lower is better"
		}
		if !seen[s] {
			seen[s] = true
			parts = append(parts, s)
		}
	}
	return strings.Join(parts, "; ")
}

// opTable is the per-op-type table of the groups that show one
// (analysis.Group.PerOpShown): each op type's rate (median of the runs) and
// p99 (merged histograms), and whether the headline counts it. full adds the
// workload and params columns of the terminal's main table (and the study's
// with multiStudy); the Markdown and HTML sections are per scenario already.
func opTable(groups []*analysis.Group, full, multiStudy bool, label *labeler) (table, bool) {
	t := table{Caption: "Per op type: successful requests per second (median of the completed repetitions); latency average, p50, p95 and p99 (ms; the average exact, the percentiles from the merged histograms); headline: whether the headline metric counts the op type:",
		Header: []string{"target", "clients", "op", "ops/s", "avg ms", "p50 ms", "p95 ms", "p99 ms", "headline"}}
	right := []bool{false, true, false, true, true, true, true, true, false}
	if full {
		t.Caption = "per op type: successful requests per second (median of the completed repetitions); latency average, p50, p95 and p99 (ms; the average exact, the percentiles from the merged histograms); headline: whether the headline metric counts the op type"
		t.Header = []string{"target", "workload", "params", "clients", "op", "ops/s", "avg ms", "p50 ms", "p95 ms", "p99 ms", "headline"}
		right = []bool{false, false, false, true, false, true, true, true, true, true, false}
		if multiStudy {
			t.Header = append([]string{"study"}, t.Header...)
			right = append([]bool{false}, right...)
		}
	}
	t.Right = right
	for _, g := range groups {
		if g.N == 0 || !g.PerOpShown() {
			continue
		}
		for _, o := range g.Ops {
			avg, p50, p95, p99 := none, none, none, none
			if o.HasLatency {
				avg, p50, p95, p99 = ms(o.Mean), ms(o.P50), ms(o.P95), ms(o.P99)
			}
			counted := "no"
			if o.Counted {
				counted = "yes"
			}
			row := []string{g.Target, strconv.Itoa(g.Clients), o.Name, rate(o.Rate), avg, p50, p95, p99, counted}
			if full {
				row = []string{g.Target, workloadName(g), label.params(g), strconv.Itoa(g.Clients), o.Name, rate(o.Rate), avg, p50, p95, p99, counted}
				if multiStudy {
					row = append([]string{g.Study}, row...)
				}
			}
			t.Rows = append(t.Rows, row)
		}
	}
	return t, len(t.Rows) > 0
}
