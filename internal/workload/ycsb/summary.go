package ycsb

import (
	"fmt"
	"io"
	"sort"

	"github.com/fairbench/fairbench/internal/hist"
	"github.com/fairbench/fairbench/internal/params/ycsbparams"
	"github.com/fairbench/fairbench/internal/result"
)

// peerSummary prints a run as Java YCSB prints its report with the default
// hdrhistogram measurements: [OVERALL] RunTime and Throughput, then per
// operation type its count, average, minimum, maximum, 95th and 99th
// percentile latency in µs and its Return= counts, from the run's own
// histograms. Throughput counts YCSB operations that succeeded (YCSB counts
// failed ones too); a read-modify-write is one operation, and its read and
// update also appear under [READ] and [UPDATE], as in YCSB's report.
func peerSummary(w io.Writer, r *result.Run) {
	ops := r.Summary.Extra[ycsbparams.Operations]
	fmt.Fprintf(w, "[OVERALL], RunTime(ms), %d\n", r.Duration.Milliseconds())
	tput := 0.0
	if s := r.Duration.Seconds(); s > 0 {
		tput = ops / s
	}
	fmt.Fprintf(w, "[OVERALL], Throughput(ops/sec), %v\n", tput)
	for _, op := range r.Ops {
		var failed int64
		for _, n := range op.Errors {
			failed += n
		}
		if op.Count == 0 && failed == 0 {
			continue
		}
		name := "[" + op.Name + "]"
		fmt.Fprintf(w, "%s, Operations, %d\n", name, op.Count)
		if h, err := hist.Decode(op.Histogram); err == nil && h != nil && h.TotalCount() > 0 {
			fmt.Fprintf(w, "%s, AverageLatency(us), %v\n", name, h.Mean())
			fmt.Fprintf(w, "%s, MinLatency(us), %d\n", name, h.Min())
			fmt.Fprintf(w, "%s, MaxLatency(us), %d\n", name, h.Max())
			fmt.Fprintf(w, "%s, 95thPercentileLatency(us), %d\n", name, h.ValueAtQuantile(95))
			fmt.Fprintf(w, "%s, 99thPercentileLatency(us), %d\n", name, h.ValueAtQuantile(99))
		}
		fmt.Fprintf(w, "%s, Return=OK, %d\n", name, op.Count)
		classes := make([]string, 0, len(op.Errors))
		for c := range op.Errors {
			classes = append(classes, string(c))
		}
		sort.Strings(classes)
		other := int64(0)
		for _, c := range classes {
			n := op.Errors[result.ErrorClass(c)]
			if result.ErrorClass(c) == result.ErrNotFound {
				fmt.Fprintf(w, "%s, Return=NOT_FOUND, %d\n", name, n)
				continue
			}
			other += n
		}
		if other > 0 {
			fmt.Fprintf(w, "%s, Return=ERROR, %d\n", name, other)
		}
	}
	if n := float64(0); ops > 0 {
		n = r.Summary.ClientCPU * 1e6 / ops
		fmt.Fprintf(w, "client CPU: %.2f s (%.2f µs per operation)\n", r.Summary.ClientCPU, n)
	}
}
