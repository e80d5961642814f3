package analysis

import (
	hdr "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/fairbench/fairbench/internal/hist"
	"github.com/fairbench/fairbench/internal/kinds"
	"github.com/fairbench/fairbench/internal/result"
)

// Headline is the one rule that says which number of a run every aggregate,
// peak, comparison and report leads with:
//
//  1. the metric the run stored (Summary.Metric: native runs record their
//     workload's headline);
//  2. else the headline its kind declares (kinds.Headline), measured from the
//     run's per-op results, when the run has an op type that headline counts,
//     or from its counters, when it has the counter a FieldCounter headline counts;
//  3. else throughput, Summary.Throughput, which every run carries, old
//     result files and imported runs included. A kind whose headline is
//     throughput under its own name (tpcb's tps) keeps that name, with the
//     value the run stored, so old files report exactly what they did.
func Headline(r *result.Run) result.Metric {
	if r.Summary.Metric != nil {
		return *r.Summary.Metric
	}
	h := kinds.Headline(r.Kind)
	if isThroughput(h) {
		return result.Metric{Headline: h, Value: r.Summary.Throughput}
	}
	for _, op := range r.Ops {
		if h.Counts(op.Name) {
			return result.Metric{Headline: h, Value: h.Measure(r.Ops, r.Summary.Extra, r.Duration, opSumUs(r), r.Summary.Queries)}
		}
	}
	return result.Metric{Headline: result.Throughput, Value: r.Summary.Throughput}
}

// isThroughput reports whether h counts what Summary.Throughput counts:
// successful requests of every op type per second, higher is better.
func isThroughput(h result.Headline) bool {
	return (h.Field == result.FieldRequests || h.Field == "") && len(h.Ops) == 0 &&
		(h.Per == 0 || h.Per == 1) && h.HigherIsBetter
}

// sameHeadline reports whether two headlines are the same metric.
func sameHeadline(a, b result.Headline) bool {
	return a.Name == b.Name && a.Unit == b.Unit && a.HigherIsBetter == b.HigherIsBetter
}

// Better reports whether value a is better than b under headline h: larger
// when higher is better, smaller when it is a time.
func Better(h result.Headline, a, b float64) bool {
	if h.HigherIsBetter {
		return a > b
	}
	return a < b
}

// opSumUs gives each op's total latency in µs (opLatencySum).
func opSumUs(r *result.Run) func(i int) float64 {
	return func(i int) float64 {
		sum, _ := opLatencySum(r, r.Ops[i])
		return sum
	}
}

// opLatencySum is op's total latency in µs and the requests it is over:
// exact from the series' interval sums where the run stored them, else
// from its histogram (bucketed).
func opLatencySum(r *result.Run, op result.Op) (sumUs float64, n int64) {
	if r.Digest != nil {
		s := r.Digest.OpLatency[op.Name]
		sumUs, n = s.SumUs, s.Count
	}
	for _, p := range r.Series {
		for _, io := range p.Hists {
			if io.Name == op.Name && io.SumUs > 0 {
				sumUs += io.SumUs
				n += io.Count
			}
		}
	}
	if n > 0 || len(op.Histogram) == 0 {
		return sumUs, n
	}
	h, err := hist.Decode(op.Histogram)
	if err != nil {
		return 0, 0
	}
	return h.Mean() * float64(h.TotalCount()), h.TotalCount()
}

// OpStat is one op type of a group: its rate and tail latency beside the
// headline, which may count only some op types (TPC-C's New-Orders).
type OpStat struct {
	Name string
	// Counted: the group's headline counts this op type.
	Counted bool
	// Rate is successful requests of this type per second of measured time,
	// the median over the group's runs (a run without the type counts 0).
	Rate float64
	// P99 is µs from the type's histograms of every run merged; HasLatency
	// is false when no run has a histogram of it.
	P99        float64
	HasLatency bool
	// P50 and P95 are µs from the same merged histograms; Mean is the
	// type's mean latency in µs over the runs, exact where the runs stored
	// their interval sums (else the histograms' bucketed mean).
	P50, P95, Mean float64
	Errors         int64
}

// PerOpShown reports whether the group's op types are worth a table beside
// the headline: a run has more than one, or the headline counts only some.
func (g *Group) PerOpShown() bool {
	return len(g.Ops) > 1 || len(g.Ops) > 0 && len(g.Headline.Ops) > 0
}

// opShown reports whether op is worth a row: else a type the mix never
// drew (YCSB A's scans), nothing to show.
func opShown(op result.Op) bool { return op.Count > 0 || len(op.Errors) > 0 }

// opStats aggregates the op types of g's runs, in order of first
// appearance, and merges every op type's histogram into g.Merged: each
// histogram is decoded once, for both and for the runs' own percentiles
// (g.latency).
func (g *Group) opStats() error {
	idx := map[string]int{}
	rates := map[string][]float64{}
	merged := map[string]*hdr.Histogram{}
	sums, counts := map[string]float64{}, map[string]int64{}
	g.latency = make([]runLatency, len(g.Runs))
	scratch := hist.New()
	for ri, r := range g.Runs {
		secs := r.Duration.Seconds()
		seen := map[string]bool{}
		lat, err := opHistograms(r, scratch, func(op result.Op, h *hdr.Histogram) {
			g.Merged.Merge(h)
			if !opShown(op) {
				return
			}
			if merged[op.Name] == nil {
				merged[op.Name] = hist.New()
			}
			merged[op.Name].Merge(h)
		})
		if err != nil {
			return err
		}
		g.latency[ri] = lat
		for _, op := range r.Ops {
			if !opShown(op) {
				continue
			}
			i, ok := idx[op.Name]
			if !ok {
				i = len(g.Ops)
				idx[op.Name] = i
				g.Ops = append(g.Ops, OpStat{Name: op.Name, Counted: g.Headline.Counts(op.Name)})
			}
			if !seen[op.Name] {
				seen[op.Name] = true
				rates[op.Name] = append(rates[op.Name], 0)
			}
			if secs > 0 {
				rates[op.Name][len(rates[op.Name])-1] += float64(op.Count) / secs
			}
			for _, n := range op.Errors {
				g.Ops[i].Errors += n
			}
			if sum, n := opLatencySum(r, op); n > 0 {
				sums[op.Name] += sum
				counts[op.Name] += n
			}
		}
	}
	for i := range g.Ops {
		s := &g.Ops[i]
		rs := rates[s.Name]
		for len(rs) < len(g.Runs) {
			rs = append(rs, 0) // runs without this op type did none
		}
		s.Rate = hist.Median(rs)
		if m := merged[s.Name]; m != nil && m.TotalCount() > 0 {
			s.P99, s.HasLatency = float64(m.ValueAtQuantile(99)), true
			s.P50, s.P95 = float64(m.ValueAtQuantile(50)), float64(m.ValueAtQuantile(95))
			if counts[s.Name] > 0 {
				s.Mean = sums[s.Name] / float64(counts[s.Name])
			}
		}
	}
	return nil
}
