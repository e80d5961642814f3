package runner

import (
	"errors"
	"fmt"
	"maps"
	"math"

	"github.com/fairbench/fairbench/internal/hist"
	"github.com/fairbench/fairbench/internal/result"
)

// MergeRuns merges the partial runs of one cell — what each load generator's
// executor returned after measuring the same cell at the same time — into the
// one run a coordinator stores. Everything is exact: histograms are merged,
// counts and rates added, the mean and standard deviation pooled from each
// part's exact moments; percentiles are read from the merged histograms, never
// averaged. Each generator's environment is kept under env "generators".
func MergeRuns(parts []*result.Run) (*result.Run, error) { return mergeRuns(parts, false) }

// mergeRuns is MergeRuns for a cell whose operations wait outside their
// requests (workload.Shape.Waits) when waits is set: a second without a
// completion is no outage then.
func mergeRuns(parts []*result.Run, waits bool) (*result.Run, error) {
	if len(parts) == 0 {
		return nil, errors.New("merging runs: no partial runs")
	}
	if len(parts) == 1 {
		return parts[0], nil
	}
	first := parts[0]
	out := *first
	out.ID = 0
	out.Ops, out.Series, out.Summary = nil, nil, result.Summary{}
	out.Env.Extra = maps.Clone(first.Env.Extra)
	gens := make([]result.Environment, len(parts))
	out.Clients = 0
	var series [][]result.SeriesPoint
	mg := &merger{out: &out, opIndex: map[string]int{}, all: hist.Combine(nil)}
	s := &out.Summary
	s.LatencyMin = math.Inf(1)
	for i, p := range parts {
		if p.CellKey != first.CellKey || p.Kind != first.Kind {
			return nil, fmt.Errorf("merging runs: part %d measured cell %q (%s), part 1 cell %q (%s)", i+1, p.CellKey, p.Kind, first.CellKey, first.Kind)
		}
		if p.Status != result.StatusOK && out.Status == result.StatusOK {
			out.Status, out.Error = p.Status, fmt.Sprintf("load generator %d: %s", i+1, p.Error)
		}
		gens[i] = p.Env
		out.Clients += p.Clients
		if p.StartedAt.Before(out.StartedAt) {
			out.StartedAt = p.StartedAt
		}
		if p.EndedAt.After(out.EndedAt) {
			out.EndedAt = p.EndedAt
		}
		out.Duration = max(out.Duration, p.Duration)
		series = append(series, p.Series)
		if err := mg.addOps(i, p.Ops); err != nil {
			return nil, err
		}
		mg.addSummary(i, len(parts), p.Summary)
	}
	out.Env.Generators = gens
	if err := mg.finish(); err != nil {
		return nil, err
	}
	merged, err := hist.MergeSeries(series...)
	if err != nil {
		return nil, fmt.Errorf("merging runs: %w", err)
	}
	out.Series = merged
	// Dead seconds are those in which no generator completed anything.
	setDead(s, result.DeadSecondsOf(merged, s.MeasuredSeconds, quietSeconds(*s, waits)))
	return &out, nil
}

// merger adds partial runs' operations and summaries into out: the
// histograms merged, the moments summed to be pooled at the end.
type merger struct {
	out     *result.Run
	opIndex map[string]int
	opHists []*hist.Stats // merged histogram per op, in out.Ops order
	all     *hist.Stats
	sumSq   float64
	sumUs   float64
	lagW    float64
}

// addOps adds part i's operations: counts added, histograms merged.
func (mg *merger) addOps(i int, ops []result.Op) error {
	out := mg.out
	for _, op := range ops {
		j, ok := mg.opIndex[op.Name]
		if !ok {
			j = len(out.Ops)
			mg.opIndex[op.Name] = j
			out.Ops = append(out.Ops, result.Op{Name: op.Name, Errors: map[result.ErrorClass]int64{}})
			mg.opHists = append(mg.opHists, hist.Combine(nil))
		}
		o := &out.Ops[j]
		o.Count += op.Count
		o.Items += op.Items
		o.Bytes += op.Bytes
		for c, n := range op.Errors {
			o.Errors[c] += n
		}
		if len(op.Histogram) > 0 {
			h, err := hist.Decode(op.Histogram)
			if err != nil {
				return fmt.Errorf("merging runs: part %d, %s: %w", i+1, op.Name, err)
			}
			mg.opHists[j].Hist.Merge(h)
			mg.all.Hist.Merge(h)
		}
		if len(op.ServiceHistogram) > 0 {
			h, err := hist.Decode(op.ServiceHistogram)
			if err != nil {
				return fmt.Errorf("merging runs: part %d, %s service times: %w", i+1, op.Name, err)
			}
			if mg.opHists[j].Service == nil {
				mg.opHists[j].Service = hist.New()
			}
			mg.opHists[j].Service.Merge(h)
		}
	}
	return nil
}

// addSummary adds part i's (of parts) summary.
func (mg *merger) addSummary(i, parts int, ps result.Summary) {
	s := &mg.out.Summary
	n := float64(ps.Transactions)
	if i == 0 || ps.MeasuredSeconds < s.MeasuredSeconds {
		s.MeasuredSeconds = ps.MeasuredSeconds // the seconds every generator measured
	}
	s.Transactions += ps.Transactions
	s.Failed += ps.Failed
	s.Retried += ps.Retried
	s.Retries += ps.Retries
	s.Skipped += ps.Skipped
	s.LateStarts += ps.LateStarts
	s.Throughput += ps.Throughput
	mg.sumUs += ps.LatencyMean * n
	mg.sumSq += (ps.LatencyStddev*ps.LatencyStddev + ps.LatencyMean*ps.LatencyMean) * n
	if n > 0 {
		s.LatencyMin = math.Min(s.LatencyMin, ps.LatencyMin)
	}
	s.LagMean += ps.LagMean * n
	mg.lagW += n
	s.LagMax = math.Max(s.LagMax, ps.LagMax)
	s.ConnectTimeMean += ps.ConnectTimeMean / float64(parts)
	s.TargetRate += ps.TargetRate
	s.ClientCPU += ps.ClientCPU
	s.ReconnectAttempts += ps.ReconnectAttempts
	s.Reconnects += ps.Reconnects
	for c, text := range ps.FirstErrors {
		if s.FirstErrors == nil {
			s.FirstErrors = map[result.ErrorClass]string{}
		}
		if _, ok := s.FirstErrors[c]; !ok {
			s.FirstErrors[c] = text
		}
	}
	if s.ReconnectError == "" {
		s.ReconnectError = ps.ReconnectError
	}
	for k, v := range ps.Extra {
		if s.Extra == nil {
			s.Extra = map[string]float64{}
		}
		s.Extra[k] += v
	}
	if ps.Metric != nil {
		if s.Metric == nil {
			m := *ps.Metric
			m.Value = 0
			s.Metric = &m
		}
		// Rates of generators that ran side by side add up, and so do the
		// seconds of a FieldSeconds headline.
		s.Metric.Value += ps.Metric.Value
	}
}

// finish pools the moments, reads the percentiles from the merged
// histograms and encodes each operation's.
func (mg *merger) finish() error {
	s, out := &mg.out.Summary, mg.out
	if s.Transactions > 0 {
		n := float64(s.Transactions)
		s.LatencyMean = mg.sumUs / n
		s.LatencyStddev = math.Sqrt(math.Max(0, mg.sumSq/n-s.LatencyMean*s.LatencyMean))
		s.P50 = float64(mg.all.Hist.ValueAtQuantile(50))
		s.P95 = float64(mg.all.Hist.ValueAtQuantile(95))
		s.P99 = float64(mg.all.Hist.ValueAtQuantile(99))
		s.Max = float64(mg.all.Hist.Max())
	} else {
		s.LatencyMin = 0
	}
	if mg.lagW > 0 {
		s.LagMean /= mg.lagW
	}
	for j, h := range mg.opHists {
		if h.Hist.TotalCount() == 0 {
			continue
		}
		enc, err := hist.Encode(h.Hist)
		if err != nil {
			return fmt.Errorf("merging runs: %s: %w", out.Ops[j].Name, err)
		}
		out.Ops[j].Histogram = enc
		if h.HasService() {
			if out.Ops[j].ServiceHistogram, err = hist.Encode(h.Service); err != nil {
				return fmt.Errorf("merging runs: %s service times: %w", out.Ops[j].Name, err)
			}
		}
	}
	return nil
}
