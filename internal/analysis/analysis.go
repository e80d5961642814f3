// Package analysis turns stored runs into numbers a reader can compare: it
// groups the repetitions of each cell and aggregates them. Each run has one
// headline metric (Headline says which: the one the run stored, else its
// kind's declared headline measured from its ops, else throughput), with a
// name, a unit and a direction; the cell's value is the median of its runs'
// headline values, so one outlier cannot move it, and everything that ranks
// or compares (peaks, degradation, verdicts, geometric means, warnings)
// follows the headline's direction, so a time is better when smaller. Per-op
// rates and p99 stay beside the headline. Latency percentiles come from the
// repetitions' histograms merged into one, because a percentile of several
// runs is not the mean of their percentiles. Only completed runs enter the
// numbers; interrupted and failed ones are counted so reports can say so.
//
// The package names no workload kind and no tool: what is kind-specific
// (headline, working-set estimate) comes from package kinds.
package analysis

import (
	"math"
	"sort"
	"strings"

	hdr "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/fairbench/fairbench/internal/hist"
	"github.com/fairbench/fairbench/internal/kinds"
	"github.com/fairbench/fairbench/internal/params"
	"github.com/fairbench/fairbench/internal/result"
)

// Group is the repetitions of one cell: the same study, target, workload,
// parameters and number of clients.
type Group struct {
	Study, Target, Workload, Kind string
	Params                        string        // canonical form, params.Values.Canonical
	ParamValues                   params.Values // the same parameters as values, for renderers that show only what differs
	Clients                       int
	// Level is the share of hardware threads Clients came from ("50%"),
	// "" for a literal count (result.Run.ClientLevel).
	Level string

	Runs       []*result.Run // completed runs, in id order
	Incomplete int           // interrupted or failed runs of this cell, left out of every number
	// IncompleteRuns are those runs, for renderers that list them.
	IncompleteRuns []*result.Run
	N              int // len(Runs)

	// Headline is the metric the group leads with (its first completed run's,
	// see Headline; the kind's declared one when no run completed). Values
	// are the headline value of each run in Runs, Median their median.
	Headline result.Headline
	Values   []float64
	Median   float64
	// Ops are the op types of the runs with their rate and p99, in order of
	// first appearance; PerOpShown says whether they are worth showing.
	Ops []OpStat
	// Merged holds every operation type of every run in Runs. It is never nil.
	Merged             *hdr.Histogram
	P50, P95, P99, Max float64 // µs, from Merged
	// MeanLatency is the exact mean in µs: each run's Summary.LatencyMean
	// weighted by its Summary.Transactions, since a histogram's mean is bucketed.
	MeanLatency float64
	// LatencyStddev is the exact standard deviation in µs over every
	// successful operation of the runs, pooled from each run's
	// Summary.LatencyMean and LatencyStddev weighted by its Transactions
	// (pgbench's "latency stddev"); 0 when no run recorded one.
	LatencyStddev float64
	// ConnectTime is the mean of the runs' initial connection times in ms
	// (Summary.ConnectTimeMean, pgbench's "initial connection time") over
	// the runs that measured one; HasConnectTime says whether any did.
	ConnectTime    float64
	HasConnectTime bool
	// Errors sums, per run, the larger of the per-operation error counts and
	// Summary.Failed: native runs fill both, imported ones often only one.
	Errors       int64
	Transactions int64

	// latency is each run's percentiles, in the order of Runs (runLatencies).
	latency []runLatency
}

type groupKey struct {
	study, workload, kind, params, target string
	clients                               int
}

// GroupRuns groups runs into cells and aggregates each. Groups are ordered by
// study, workload and parameters in the order they first appear (the plan's
// order, since ids follow it), then by clients ascending, then by target in
// first-appearance order. A cell whose runs all failed still gets a group, with
// N = 0, so that a report can show the gap instead of hiding it.
func GroupRuns(runs []*result.Run) ([]*Group, error) {
	sorted := append([]*result.Run(nil), runs...)
	sort.SliceStable(sorted, func(i, j int) bool { return sorted[i].ID < sorted[j].ID })

	// Rank of first appearance, keyed by the NUL-joined path down to each level.
	first := map[string]int{}
	rank := func(k string) {
		if _, ok := first[k]; !ok {
			first[k] = len(first)
		}
	}
	key := func(parts ...string) string { return strings.Join(parts, "\x00") }

	groups := map[groupKey]*Group{}
	var order []*Group
	for _, r := range sorted {
		pv := params.Values(r.Params)
		canon := pv.Canonical()
		rank(key("s", r.StudyName))
		rank(key("w", r.StudyName, r.Workload, r.Kind))
		rank(key("p", r.StudyName, r.Workload, r.Kind, canon))
		rank(key("t", r.Target))

		k := groupKey{r.StudyName, r.Workload, r.Kind, canon, r.Target, r.Clients}
		g := groups[k]
		if g == nil {
			g = &Group{Study: r.StudyName, Target: r.Target, Workload: r.Workload, Kind: r.Kind,
				Params: canon, ParamValues: pv, Clients: r.Clients, Level: r.ClientLevel, Merged: hist.New()}
			groups[k] = g
			order = append(order, g)
		}
		if r.Status != result.StatusOK {
			g.Incomplete++
			g.IncompleteRuns = append(g.IncompleteRuns, r)
			continue
		}
		g.Runs = append(g.Runs, r)
	}

	for _, g := range order {
		if err := g.aggregate(); err != nil {
			return nil, err
		}
	}

	sort.SliceStable(order, func(i, j int) bool {
		a, b := order[i], order[j]
		for _, k := range [][2]string{
			{key("s", a.Study), key("s", b.Study)},
			{key("w", a.Study, a.Workload, a.Kind), key("w", b.Study, b.Workload, b.Kind)},
			{key("p", a.Study, a.Workload, a.Kind, a.Params), key("p", b.Study, b.Workload, b.Kind, b.Params)},
		} {
			if x, y := first[k[0]], first[k[1]]; x != y {
				return x < y
			}
		}
		if a.Clients != b.Clients {
			return a.Clients < b.Clients
		}
		return first[key("t", a.Target)] < first[key("t", b.Target)]
	})
	return order, nil
}

func (g *Group) aggregate() error {
	g.N = len(g.Runs)
	g.Headline = kinds.Headline(g.Kind)
	for i, r := range g.Runs {
		m := Headline(r)
		if i == 0 {
			g.Headline = m.Headline
		}
		g.Values = append(g.Values, m.Value)
	}
	if err := g.opStats(); err != nil {
		return err
	}
	var weighted, squares, connects float64
	nConnects, hasStddev := 0, false
	for _, r := range g.Runs {
		g.Transactions += r.Summary.Transactions
		n, m, sd := float64(r.Summary.Transactions), r.Summary.LatencyMean, r.Summary.LatencyStddev
		weighted += m * n
		squares += (sd*sd + m*m) * n
		hasStddev = hasStddev || sd > 0
		if r.Summary.ConnectTimeMean > 0 {
			connects += r.Summary.ConnectTimeMean
			nConnects++
		}
		g.Errors += max(r.TotalErrors(), r.Summary.Failed)
	}
	g.Median = hist.Median(g.Values)
	if g.Transactions > 0 {
		g.MeanLatency = weighted / float64(g.Transactions)
		// The pooled variance: every operation's squared distance from the
		// pooled mean, from each run's mean and variance.
		if hasStddev {
			g.LatencyStddev = math.Sqrt(max(squares/float64(g.Transactions)-g.MeanLatency*g.MeanLatency, 0))
		}
	}
	if nConnects > 0 {
		g.ConnectTime, g.HasConnectTime = connects/float64(nConnects), true
	}
	g.P50 = float64(g.Merged.ValueAtQuantile(50))
	g.P95 = float64(g.Merged.ValueAtQuantile(95))
	g.P99 = float64(g.Merged.ValueAtQuantile(99))
	g.Max = float64(g.Merged.Max())
	return nil
}
