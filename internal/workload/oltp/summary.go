package oltp

import (
	"fmt"
	"io"

	"github.com/fairbench/fairbench/internal/kinds"
	"github.com/fairbench/fairbench/internal/result"
)

// peerSummary prints a run of the oltp workload the way sysbench 1.0 prints
// its run summary (SQL statistics, general statistics, latency in ms), so the two
// tools' outputs can be read side by side, followed by the histogram percentiles.
// Ignored errors are sysbench's restarted events: here, the retries (max_tries);
// transactions that still failed are listed separately, because sysbench would
// have stopped on them. Reconnects are the connection errors the runner
// recovered from by reconnecting.
//
// The printing flags choose the percentile (--percentile, 95 without it)
// and add sysbench's latency histogram before the statistics (--histogram).
func peerSummary(w io.Writer, r *result.Run) {
	p := kinds.PrintingOf(r)
	facts, _ := r.Env.Extra["workload"].(map[string]any)
	for _, k := range []string{"script", "tables", "table size", "random distribution", "query mode"} {
		if v, ok := facts[k]; ok {
			fmt.Fprintf(w, "%s: %v\n", k, v)
		}
	}
	fmt.Fprintf(w, "threads: %d\n\n", r.Clients)
	s := r.Summary
	secs := r.Duration.Seconds()
	per := func(n float64) float64 {
		if secs <= 0 {
			return 0
		}
		return n / secs
	}
	read, write, other := s.Extra["queries_read"], s.Extra["queries_write"], s.Extra["queries_other"]
	total := read + write + other
	var reconnects int64
	for _, op := range r.Ops {
		reconnects += op.Errors[result.ErrConnection]
	}
	if on, _ := p[printHistogram].(bool); on {
		printLatencyHistogram(w, latencyOf(r))
	}
	fmt.Fprintf(w, "SQL statistics:\n")
	fmt.Fprintf(w, "    queries performed:\n")
	fmt.Fprintf(w, "        read:                            %.0f\n", read)
	fmt.Fprintf(w, "        write:                           %.0f\n", write)
	fmt.Fprintf(w, "        other:                           %.0f\n", other)
	fmt.Fprintf(w, "        total:                           %.0f\n", total)
	fmt.Fprintf(w, "    transactions:                        %-6d (%.2f per sec.)\n", s.Transactions, per(float64(s.Transactions)))
	fmt.Fprintf(w, "    queries:                             %-6.0f (%.2f per sec.)\n", total, per(total))
	fmt.Fprintf(w, "    ignored errors:                      %-6d (%.2f per sec.)\n", s.Retries, per(float64(s.Retries)))
	fmt.Fprintf(w, "    reconnects:                          %-6d (%.2f per sec.)\n", reconnects, per(float64(reconnects)))
	if s.Failed > 0 {
		fmt.Fprintf(w, "    failed transactions:                 %-6d (%.2f per sec.)\n", s.Failed, per(float64(s.Failed)))
	}
	fmt.Fprintf(w, "\nGeneral statistics:\n")
	fmt.Fprintf(w, "    total time:                          %.4fs\n", secs)
	fmt.Fprintf(w, "    total number of events:              %d\n", s.Transactions)
	fmt.Fprintf(w, "\nLatency (ms):\n")
	fmt.Fprintf(w, "         min:                                    %.2f\n", s.LatencyMin/1000)
	fmt.Fprintf(w, "         avg:                                    %.2f\n", s.LatencyMean/1000)
	fmt.Fprintf(w, "         max:                                    %.2f\n", s.Max/1000)
	if pct := percentileOf(p); pct > 0 {
		fmt.Fprintf(w, "         %-40s%.2f\n", fmt.Sprintf("%dth percentile:", pct), float64(latencyOf(r).ValueAtQuantile(float64(pct)))/1000)
	}
	fmt.Fprintf(w, "         sum:                                    %.2f\n", s.LatencyMean*float64(s.Transactions)/1000)
	fmt.Fprintf(w, "\nHistogram (ms): p50 %.3f  p95 %.3f  p99 %.3f  max %.3f\n", s.P50/1000, s.P95/1000, s.P99/1000, s.Max/1000)
	fmt.Fprintf(w, "client CPU: %.2f s (%.1f µs per transaction)\n", s.ClientCPU, perTx(s.ClientCPU, s.Transactions))
}

func perTx(cpu float64, tx int64) float64 {
	if tx == 0 {
		return 0
	}
	return cpu * 1e6 / float64(tx)
}
