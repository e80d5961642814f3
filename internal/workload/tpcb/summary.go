package tpcb

import (
	"fmt"
	"io"
	"strconv"

	"github.com/fairbench/fairbench/internal/kinds"
	"github.com/fairbench/fairbench/internal/result"
)

// PeerSummary prints a run's summary with pgbench's field names and order, so
// the two tools' outputs can be read (and parsed) side by side, followed by the
// percentiles from the run's histogram. The tries per transaction are read
// from r.Env.Extra[kinds.MaxTriesKey] (1 when absent), since the run record does not
// keep its cell's max tries.
func PeerSummary(w io.Writer, r *result.Run) {
	maxTries := 1
	if v, ok := r.Env.Extra[kinds.MaxTriesKey]; ok {
		if n, err := strconv.Atoi(fmt.Sprint(v)); err == nil {
			maxTries = n
		}
	}
	facts, _ := r.Env.Extra["workload"].(map[string]any)
	for _, k := range []string{"transaction type", "scaling factor", "query mode"} {
		if v, ok := facts[k]; ok {
			fmt.Fprintf(w, "%s: %v\n", k, v)
		}
	}
	s := r.Summary
	fmt.Fprintf(w, "number of clients: %d\n", r.Clients)
	if maxTries < 1 {
		maxTries = 1
	}
	fmt.Fprintf(w, "maximum number of tries: %d\n", maxTries)
	fmt.Fprintf(w, "duration: %.0f s\n", r.Duration.Seconds())
	fmt.Fprintf(w, "number of transactions actually processed: %d\n", s.Transactions)
	total := s.Transactions + s.Failed
	pct := 0.0
	if total > 0 {
		pct = 100 * float64(s.Failed) / float64(total)
	}
	fmt.Fprintf(w, "number of failed transactions: %d (%.3f%%)\n", s.Failed, pct)
	if s.Retried > 0 || maxTries > 1 {
		fmt.Fprintf(w, "number of transactions retried: %d\n", s.Retried)
		fmt.Fprintf(w, "total number of retries: %d\n", s.Retries)
	}
	if s.TargetRate > 0 {
		fmt.Fprintf(w, "number of transactions skipped: %d\n", s.Skipped)
	}
	fmt.Fprintf(w, "latency average = %.3f ms\n", s.LatencyMean/1000)
	fmt.Fprintf(w, "latency stddev = %.3f ms\n", s.LatencyStddev/1000)
	if s.TargetRate > 0 {
		fmt.Fprintf(w, "rate limit schedule lag: avg %.3f (max %.3f) ms\n", s.LagMean/1000, s.LagMax/1000)
	}
	fmt.Fprintf(w, "initial connection time = %.3f ms\n", s.ConnectTimeMean)
	fmt.Fprintf(w, "tps = %f (without initial connection time)\n", s.Throughput)
	fmt.Fprintf(w, "latency p50 = %.3f ms\n", s.P50/1000)
	fmt.Fprintf(w, "latency p95 = %.3f ms\n", s.P95/1000)
	fmt.Fprintf(w, "latency p99 = %.3f ms\n", s.P99/1000)
	fmt.Fprintf(w, "latency max = %.3f ms\n", s.Max/1000)
}
