package tpcb

import (
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/fairbench/fairbench/internal/hist"
	"github.com/fairbench/fairbench/internal/kinds"
	"github.com/fairbench/fairbench/internal/params/tpcbparams"
	"github.com/fairbench/fairbench/internal/result"
)

// peerSummary prints a run's summary with pgbench's field names and order, so
// the two tools' outputs can be read (and parsed) side by side, followed by the
// percentiles from the run's histogram. The tries per transaction are read
// from r.Env.Extra[kinds.MaxTriesKey] (1 when absent), since the run record does not
// keep its cell's max tries.
func peerSummary(w io.Writer, r *result.Run) {
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
	printScripts(w, r, facts, maxTries)
	fmt.Fprintf(w, "latency p50 = %.3f ms\n", s.P50/1000)
	fmt.Fprintf(w, "latency p95 = %.3f ms\n", s.P95/1000)
	fmt.Fprintf(w, "latency p99 = %.3f ms\n", s.P99/1000)
	fmt.Fprintf(w, "latency max = %.3f ms\n", s.Max/1000)
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

// printScripts prints pgbench 15's per-script statistics (several scripts)
// and per-statement latencies (-r), from the facts that name the scripts
// and statements and the counts the run stored.
func printScripts(w io.Writer, r *result.Run, facts map[string]any, maxTries int) {
	var totalWeight, total int64
	var weights []int64
	var names []string
	for i := 0; ; i++ {
		v, ok := facts[scriptFact(i)].(string)
		if !ok {
			break
		}
		ws, name, _ := strings.Cut(v, " ")
		n, _ := strconv.ParseInt(ws, 10, 64)
		weights, names = append(weights, n), append(names, name)
		totalWeight += n
	}
	for _, op := range r.Ops {
		total += op.Count
	}
	perScript := len(names) > 1
	scripts := max(len(names), 1)
	for si := 0; si < scripts; si++ {
		prefix := ""
		if perScript && si < len(r.Ops) {
			op := r.Ops[si]
			failed := int64(0)
			for _, n := range op.Errors {
				failed += n
			}
			fmt.Fprintf(w, "SQL script %d: %s\n", si+1, names[si])
			fmt.Fprintf(w, " - weight: %d (targets %.1f%% of total)\n", weights[si], 100*float64(weights[si])/float64(max(totalWeight, 1)))
			fmt.Fprintf(w, " - %d transactions (%.1f%% of total, tps = %f)\n", op.Count, 100*float64(op.Count)/float64(max(total, 1)), float64(op.Count)/max(r.Duration.Seconds(), 1e-9))
			fmt.Fprintf(w, " - number of failed transactions: %d (%.3f%%)\n", failed, 100*float64(failed)/float64(max(op.Count+failed, 1)))
			if h, err := hist.Decode(op.Histogram); err == nil && h.TotalCount() > 0 {
				fmt.Fprintf(w, " - latency average = %.3f ms\n - latency stddev = %.3f ms\n", h.Mean()/1000, h.StdDev()/1000)
			}
			prefix = " - "
		}
		if _, ok := facts[statementFact(si, 0)]; !ok {
			continue
		}
		what := " and failures"
		if maxTries != 1 {
			what = ", failures and retries"
		}
		fmt.Fprintf(w, "%sstatement latencies in milliseconds%s:\n", prefix, what)
		for ci := 0; ; ci++ {
			text, ok := facts[statementFact(si, ci)].(string)
			if !ok {
				break
			}
			n := r.Summary.Extra[statementKey(si, ci, "executions")]
			avg := 0.0
			if n > 0 {
				avg = float64(r.Summary.Extra[statementKey(si, ci, "latency_ns")]) / float64(n) / 1e6
			}
			failures := int64(r.Summary.Extra[statementKey(si, ci, "failures")])
			if maxTries != 1 {
				// fairbench retries whole transactions and does not count
				// retries per statement: the column says 0.
				fmt.Fprintf(w, "   %11.3f  %10d  %10d  %s\n", avg, failures, 0, text)
			} else {
				fmt.Fprintf(w, "   %11.3f  %10d  %s\n", avg, failures, text)
			}
		}
	}
}
