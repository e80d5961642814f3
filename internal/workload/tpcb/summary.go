package tpcb

import (
	"fmt"
	"io"
	"strconv"

	"github.com/fairbench/fairbench/internal/kinds"
	"github.com/fairbench/fairbench/internal/params/tpcbparams"
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
	fmt.Fprintf(w, "number of threads: %d\n", threadsOf(r))
	if maxTries < 1 {
		maxTries = 1
	}
	fmt.Fprintf(w, "maximum number of tries: %d\n", maxTries)
	if perClient := paramInt(r.Params, tpcbparams.Transactions); perClient > 0 {
		fmt.Fprintf(w, "number of transactions per client: %d\n", perClient)
		fmt.Fprintf(w, "number of transactions actually processed: %d/%d\n", s.Transactions, perClient*int64(r.Clients))
	} else {
		fmt.Fprintf(w, "duration: %.0f s\n", r.Duration.Seconds())
		fmt.Fprintf(w, "number of transactions actually processed: %d\n", s.Transactions)
	}
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
	for _, d := range r.Deviations {
		fmt.Fprintf(w, "deviation: %s\n", d)
	}
}

// threadsOf is pgbench's "number of threads": the OS threads that drove the
// clients (event loops like pgbench -j, or a thread per client); with a
// goroutine per client, which the Go runtime schedules, each client counts
// as its own thread.
func threadsOf(r *result.Run) int {
	if t := r.Env.Client.Threads; t > 0 {
		return t
	}
	return r.Clients
}

// paramInt reads an integer parameter of a run record, which JSON may have
// turned into a float; 0 when absent.
func paramInt(p map[string]any, name string) int64 {
	switch x := p[name].(type) {
	case int64:
		return x
	case int:
		return int64(x)
	case float64:
		return int64(x)
	}
	return 0
}
