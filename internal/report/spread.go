package report

import (
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/fairbench/fairbench/internal/analysis"
	"github.com/fairbench/fairbench/internal/numfmt"
)

// The tables published benchmark articles print beside the headline: per
// cell, the latency average and standard deviation, the initial connection
// time and the transactions, as the summary of a TPC-B-style tool reads;
// and the cumulative shares of requests within a few latency thresholds,
// with the slowest request, as a key-value benchmark prints them.

// cellColumns are the columns that name a cell: the target and clients
// within a section, or with full the workload and the varying parameters
// too (and the study with multiStudy), as the terminal's main table has.
func cellColumns(full, multiStudy bool) (header []string, right []bool) {
	header, right = []string{"target", "clients"}, []bool{false, true}
	if full {
		header, right = []string{"target", "workload", "params", "clients"}, []bool{false, false, false, true}
		if multiStudy {
			header, right = append([]string{"study"}, header...), append([]bool{false}, right...)
		}
	}
	return header, right
}

func cellRow(g *analysis.Group, full, multiStudy bool, label *labeler) []string {
	if !full {
		return []string{g.Target, strconv.Itoa(g.Clients)}
	}
	row := []string{g.Target, workloadName(g), label.params(g), strconv.Itoa(g.Clients)}
	if multiStudy {
		row = append([]string{g.Study}, row...)
	}
	return row
}

// spreadTable is the per-cell summary table: headline, latency average and
// standard deviation (exact, over every successful request of the
// repetitions), initial connection time and transactions. It is shown when
// some cell has a standard deviation or a connection time: the average
// alone is in the main table already.
func spreadTable(groups []*analysis.Group, full, multiStudy bool, label *labeler) (table, bool) {
	hasSpread, hasConnect := false, false
	for _, g := range groups {
		if g.N > 0 {
			hasSpread = hasSpread || g.LatencyStddev > 0
			hasConnect = hasConnect || g.HasConnectTime
		}
	}
	if !hasSpread && !hasConnect {
		return table{}, false
	}
	header, right := cellColumns(full, multiStudy)
	unit, same := sharedUnit(groups)
	head := "headline"
	if same && unit != "" {
		head = unit
	}
	header = append(header, head, "latency avg ms", "latency stddev ms")
	right = append(right, true, true, true)
	if hasConnect {
		header = append(header, "initial connection ms")
		right = append(right, true)
	}
	header = append(header, "transactions")
	right = append(right, true)
	t := table{Header: header, Right: right,
		Caption: "Per cell: the headline (median of the repetitions), the latency average and standard deviation in ms " +
			"(exact, over every successful request of the repetitions), the mean initial connection time in ms, and the successful transactions or requests summed over the repetitions:"}
	if full {
		t.Caption = strings.TrimSuffix(strings.ToLower(t.Caption[:1])+t.Caption[1:], ":")
	}
	for _, g := range groups {
		if g.N == 0 {
			continue
		}
		v := headlineValue(g.Headline, g.Median)
		if !same || unit == "" {
			v = withUnit(g.Headline, g.Median)
		}
		avg, sd := none, none
		if g.MeanLatency > 0 {
			avg = ms(g.MeanLatency)
		}
		if g.LatencyStddev > 0 {
			sd = ms(g.LatencyStddev)
		}
		row := append(cellRow(g, full, multiStudy, label), v, avg, sd)
		if hasConnect {
			c := none
			if g.HasConnectTime {
				c = numfmt.Fixed(g.ConnectTime, 3)
			}
			row = append(row, c)
		}
		t.Rows = append(t.Rows, append(row, strconv.FormatInt(g.Transactions, 10)))
	}
	return t, len(t.Rows) > 0
}

// sharesTable is the cumulative latency table: per cell with a latency
// distribution, the share of successful requests at or under each
// threshold, from the repetitions' merged histograms, and the slowest.
func sharesTable(groups []*analysis.Group, thresholds []time.Duration, full, multiStudy bool, label *labeler) (table, bool) {
	if len(thresholds) == 0 {
		return table{}, false
	}
	header, right := cellColumns(full, multiStudy)
	for _, d := range thresholds {
		header = append(header, "≤ "+thresholdText(d)+" %")
		right = append(right, true)
	}
	header = append(header, "max ms")
	right = append(right, true)
	t := table{Header: header, Right: right,
		Caption: "Cumulative latency: % of the successful requests answered within each threshold, from the repetitions' merged HdrHistograms " +
			"(µs, 3 significant digits: a latency up to 0.1 % above a threshold counts within it), rounded down to two decimals so that 100.00 means every request; max in ms:"}
	if full {
		t.Caption = strings.TrimSuffix(strings.ToLower(t.Caption[:1])+t.Caption[1:], ":")
	}
	for _, g := range groups {
		if g.N == 0 || !hasLatencies(g) {
			continue
		}
		row := cellRow(g, full, multiStudy, label)
		for _, s := range analysis.LatencyShares(g.Merged, thresholds) {
			row = append(row, shareText(s))
		}
		t.Rows = append(t.Rows, append(row, ms(g.Max)))
	}
	return t, len(t.Rows) > 0
}

// thresholdText writes a threshold in ms, as the table's unit: "1 ms", "0.5 ms", "1500 ms".
func thresholdText(d time.Duration) string {
	return strconv.FormatFloat(float64(d)/float64(time.Millisecond), 'f', -1, 64) + " ms"
}

// shareText writes a share as a percentage rounded down to 0.01, so that
// 99.999 % does not read as every request.
func shareText(s float64) string {
	if math.IsNaN(s) {
		return none
	}
	return strconv.FormatFloat(math.Floor(s*10000+1e-9)/100, 'f', 2, 64)
}
