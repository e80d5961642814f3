package bulkindex

import (
	"fmt"
	"io"
	"slices"
	"strings"

	hdr "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/fairbench/fairbench/internal/hist"
	"github.com/fairbench/fairbench/internal/result"
)

// printSummary prints a run as OSB prints its results: per task, the
// throughput's min, mean, median and max (of OSB's running averages, see
// osbThroughput) and the throughput over the whole run, latency
// and service-time percentiles, and the error rate. Bulk throughput and
// errors are in documents.
func printSummary(w io.Writer, r *result.Run) {
	rows := summaryRows(r)
	if len(rows) == 0 {
		return
	}
	width := [3]int{len("Metric"), len("Task"), len("Value")}
	for _, row := range rows {
		for i := range width {
			width[i] = max(width[i], len(row[i]))
		}
	}
	line := func(a, b, c, d string) {
		fmt.Fprintf(w, "|%*s |%*s |%*s |%7s |\n", width[0]+1, a, width[1]+1, b, width[2]+1, c, d)
	}
	fmt.Fprintln(w)
	line("Metric", "Task", "Value", "Unit")
	fmt.Fprintf(w, "|%s:|%s:|%s:|%s:|\n", strings.Repeat("-", width[0]+1), strings.Repeat("-", width[1]+1), strings.Repeat("-", width[2]+1), strings.Repeat("-", 7))
	for _, row := range rows {
		line(row[0], row[1], row[2], row[3])
	}
	if n := r.Summary.Extra["refused items"]; n > 0 {
		fmt.Fprintf(w, "\n%.0f documents refused (%.0f in bulks that were not refused whole), %.0f sent again\n",
			n, r.Summary.Extra["bulks with refused items"], r.Summary.Extra["items sent again"])
	}
}

// summaryRows are OSB's result rows of each op type: metric, task, value, unit.
func summaryRows(r *result.Run) [][4]string {
	var rows [][4]string
	for _, op := range r.Ops {
		unit, items := "ops/s", false
		if op.Name == opBulk {
			unit, items = "docs/s", true
		}
		rates := osbThroughput(r.Series, op.Name, items, r.Duration.Seconds())
		total := float64(op.Count)
		if items {
			total = float64(op.Items)
		}
		if len(rates) > 0 {
			mean := 0.0
			for _, x := range rates {
				mean += x
			}
			mean /= float64(len(rates))
			slices.Sort(rates)
			rows = append(rows,
				[4]string{"Min Throughput", op.Name, num(rates[0]), unit},
				[4]string{"Mean Throughput", op.Name, num(mean), unit},
				[4]string{"Median Throughput", op.Name, num(median(rates)), unit},
				[4]string{"Max Throughput", op.Name, num(rates[len(rates)-1]), unit})
		}
		if s := r.Duration.Seconds(); s > 0 {
			rows = append(rows, [4]string{"Throughput over the run", op.Name, num(total / s), unit})
		}
		lat := decode(op.Histogram)
		svc := decode(op.ServiceHistogram)
		if svc == nil {
			svc = lat // a closed loop: the service time is the latency
		}
		for _, h := range []struct {
			name string
			h    *hdr.Histogram
		}{{"latency", lat}, {"service time", svc}} {
			if h.h == nil || h.h.TotalCount() == 0 {
				continue
			}
			for _, p := range percentiles(h.h.TotalCount()) {
				rows = append(rows, [4]string{percentileName(p) + " percentile " + h.name, op.Name, num(float64(h.h.ValueAtQuantile(p)) / 1000), "ms"})
			}
		}
		var failed int64
		for _, n := range op.Errors {
			failed += n
		}
		rate := 0.0
		if failed > 0 {
			rate = 100 * float64(failed) / (total + float64(failed))
		}
		rows = append(rows, [4]string{"error rate", op.Name, num(rate), "%"})
	}
	return rows
}

// percentiles are the percentiles OSB reports for a sample of n: only those
// the sample supports.
func percentiles(n int64) []float64 {
	switch {
	case n <= 1:
		return []float64{100}
	case n < 10:
		return []float64{50, 100}
	case n < 100:
		return []float64{50, 90, 100}
	case n < 1000:
		return []float64{50, 90, 99, 100}
	case n < 10000:
		return []float64{50, 90, 99, 99.9, 100}
	}
	return []float64{50, 90, 99, 99.9, 99.99, 100}
}

func percentileName(p float64) string {
	return strings.TrimSuffix(fmt.Sprintf("%g", p), ".0") + "th"
}

// osbThroughput is the op's throughput samples as OSB computes them
// (worker_coordinator.ThroughputCalculator): at the end of each second, the
// documents (for a bulk) or requests completed since the start divided by
// the time since the start, the last one at the end of the run. OSB's min,
// mean, median and max are of these running averages, so its mean is not
// the documents over the run's time; the summary prints both.
func osbThroughput(series []result.SeriesPoint, name string, items bool, duration float64) []float64 {
	var out []float64
	var total int64
	for k, pt := range series {
		for _, h := range pt.Hists {
			if h.Name == name {
				if items {
					total += h.Items
				} else {
					total += h.Count
				}
			}
		}
		at := float64(pt.Second)
		if k == len(series)-1 && duration > 0 {
			at = duration
		}
		if at <= 0 {
			continue
		}
		out = append(out, float64(total)/at)
	}
	return out
}

func median(sorted []float64) float64 {
	n := len(sorted)
	if n%2 == 1 {
		return sorted[n/2]
	}
	return (sorted[n/2-1] + sorted[n/2]) / 2
}

func decode(b []byte) *hdr.Histogram {
	if len(b) == 0 {
		return nil
	}
	h, err := hist.Decode(b)
	if err != nil {
		return nil
	}
	return h
}

// num formats as OSB does: up to six significant digits.
func num(v float64) string { return fmt.Sprintf("%.6g", v) }
