package kv

import (
	"fmt"
	"io"
	"strings"

	hdr "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/fairbench/fairbench/internal/hist"
	"github.com/fairbench/fairbench/internal/kinds"
	"github.com/fairbench/fairbench/internal/result"
)

// peerSummary prints a run as memtier_benchmark prints its ALL STATS table
// (Sets, Gets or the command's row, Waits, Totals: ops/sec, hits/sec,
// misses/sec, average, p50, p99 and p99.9 latency in ms, KB/sec), from the
// run's own histograms, so that the two tools' outputs read side by side.
// Unlike memtier's JSON Totals, the average is not truncated to whole
// milliseconds. --print-percentiles chooses the percentile columns.
func peerSummary(w io.Writer, r *result.Run) {
	secs := r.Duration.Seconds()
	if secs <= 0 {
		secs = 1
	}
	facts, _ := r.Env.Extra["workload"].(map[string]any)
	for _, k := range []string{"profile", "pipeline", "pipeline mode", "key range", "data size", "key pattern"} {
		if v, ok := facts[k]; ok {
			fmt.Fprintf(w, "%s: %v\n", k, v)
		}
	}
	fmt.Fprintf(w, "connections: %d, %.2f seconds\n\n", r.Clients, r.Duration.Seconds())
	hits, misses := r.Summary.Extra["hits"], r.Summary.Extra["misses"]
	pcts := percentilesOf(kinds.PrintingOf(r))
	width := 80 + 16*len(pcts)
	fmt.Fprintln(w, "ALL STATS")
	fmt.Fprintln(w, strings.Repeat("=", width))
	fmt.Fprintf(w, "%-12s %12s %12s %12s %15s", "Type", "Ops/sec", "Hits/sec", "Misses/sec", "Avg. Latency")
	for _, q := range pcts {
		fmt.Fprintf(w, " %15s", percentileColumn(q))
	}
	fmt.Fprintf(w, " %12s\n", "KB/sec")
	fmt.Fprintln(w, strings.Repeat("-", width))
	total := hist.New()
	var count, bytes int64
	var sum float64
	row := func(name string, n int64, h *hdr.Histogram, mean float64, b int64, hitsCol, missCol string) {
		lat := func(q float64) string {
			if h == nil || h.TotalCount() == 0 {
				return "---"
			}
			return fmt.Sprintf("%.5f", float64(h.ValueAtQuantile(q))/1000)
		}
		avg := "---"
		if n > 0 {
			avg = fmt.Sprintf("%.5f", mean/1000)
		}
		fmt.Fprintf(w, "%-12s %12.2f %12s %12s %15s", name, float64(n)/secs, hitsCol, missCol, avg)
		for _, q := range pcts {
			fmt.Fprintf(w, " %15s", lat(q))
		}
		fmt.Fprintf(w, " %12.2f\n", float64(b)/1024/secs)
	}
	perSec := func(x float64) string { return fmt.Sprintf("%.2f", x/secs) }
	for _, op := range r.Ops {
		h, err := hist.Decode(op.Histogram)
		if err != nil || h == nil {
			h = nil
		}
		mean := 0.0
		if h != nil {
			mean = h.Mean()
			total.Merge(h)
			sum += h.Mean() * float64(h.TotalCount())
		}
		count += op.Count
		bytes += op.Bytes
		hc, mc := "---", "---"
		if op.Name == "get" || op.Name == "rmw" {
			hc, mc = perSec(hits), perSec(misses)
		}
		row(rowName(op.Name), op.Count, h, mean, op.Bytes, hc, mc)
	}
	fmt.Fprintf(w, "%-12s %12.2f %12s %12s %15s", "Waits", 0.0, "---", "---", "---")
	for range pcts {
		fmt.Fprintf(w, " %15s", "---")
	}
	fmt.Fprintf(w, " %12s\n", "---")
	mean := 0.0
	if total.TotalCount() > 0 {
		mean = sum / float64(total.TotalCount())
	}
	row("Totals", count, total, mean, bytes, perSec(hits), perSec(misses))
	var failed int64
	for _, op := range r.Ops {
		for _, n := range op.Errors {
			failed += n
		}
	}
	if failed > 0 {
		fmt.Fprintf(w, "\nfailed requests: %d", failed)
		for _, op := range r.Ops {
			for c, n := range op.Errors {
				fmt.Fprintf(w, " (%s %s: %d)", op.Name, c, n)
			}
		}
		fmt.Fprintln(w)
	}
	if m, a := r.Summary.Extra["moved"], r.Summary.Extra["ask"]; m+a > 0 {
		fmt.Fprintf(w, "cluster redirections: MOVED %.0f, ASK %.0f\n", m, a)
	}
	fmt.Fprintf(w, "client CPU: %.2f s (%.2f µs per request)\n", r.Summary.ClientCPU, perRequest(r.Summary.ClientCPU, count))
}

func perRequest(cpu float64, n int64) float64 {
	if n == 0 {
		return 0
	}
	return cpu * 1e6 / float64(n)
}
