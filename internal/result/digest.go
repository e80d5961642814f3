package result

import (
	"fmt"

	"github.com/fairbench/fairbench/internal/numfmt"
)

// SeriesDigest is what reports read of a run's series, kept when a report
// drops the series itself (Run.Digest): a report reads the runs one at a
// time and holds one run's series, not the store's. Its size does not grow
// with the seconds the run measured. The report package builds it
// (report.Digest), each consumer filling the part it reads.
type SeriesDigest struct {
	// Points is how many points the series had (Run.SeriesLen).
	Points int
	// OpLatency is, per op type, the exact latency sum of the intervals that
	// stored one and the requests it is over (analysis' op latency sums).
	OpLatency map[string]LatencySum
	// Rates are the per-second throughput checks' findings.
	Rates RateFindings
	// CPUMedian is the median of the points' client CPU, over CPUPoints points.
	CPUMedian float64
	CPUPoints int
	// Levels are, for a run with a level shift read with its interval
	// histograms, what each level measured (analysis.CellLevelShift); nil
	// otherwise.
	Levels *[2]LevelTally
	// Chart is the run's per-second chart (report's HTML).
	Chart RunChart
	// Kind is what the run's kind keeps of the series for its report
	// sections (kinds.Info.DigestSeries); nil when it keeps nothing.
	Kind any
}

// LatencySum is an exact latency sum in µs and the requests it is over.
type LatencySum struct {
	SumUs float64
	Count int64
}

// RateFindings are what the checks of a run's per-second throughput found
// (analysis' run warnings); a nil field found nothing.
type RateFindings struct {
	Shift  *LevelShift
	Warmup *WarmupShift
	Drift  *Drift
}

// WarmupShift: the first Seconds of the measured phase averaged First
// requests/s against the rest's median Rest.
type WarmupShift struct {
	Seconds     int
	First, Rest float64
}

// Drift: the throughput of the first third (First) against the last
// (Last), and the run's own noise (SE, a standard error), in requests/s.
type Drift struct {
	First, Last, SE float64
}

// LevelTally is what the seconds of one level of a run measured: the
// level's share of a cell's levels (analysis.CellLevelShift merges them).
type LevelTally struct {
	Seconds int
	Errors  int64
	// Histogram is the seconds' interval histograms merged, encoded
	// (hist.Encode); empty when no request completed.
	Histogram []byte
	SumUs     float64 // latency sum of the requests whose intervals kept one
	Summed    int64   // requests SumUs is over
	Count     int64   // requests
	// Histograms: every second with requests kept its interval histograms.
	Histograms bool
}

// RunChart is a run's per-second throughput and p99 as its chart draws
// them: Points downsampled, the figures beside it over every rate point.
type RunChart struct {
	Points                       []ChartPoint
	Seconds                      int
	MinRate, MedianRate, MaxRate float64
	MaxP99                       float64 // 0 when no second had a p99
}

// ChartPoint is one point of a run's chart: the second, its requests/s
// and its p99 in µs (0: none).
type ChartPoint struct {
	Second    int
	Rate, P99 float64
}

// LevelShift is a sustained change of a run's per-second throughput.
type LevelShift struct {
	Before, After float64 // mean ops/s of the seconds up to Second, and after it
	// Second is the last second at the first level (as the series counts
	// seconds: since the start of the measured phase).
	Second int
	// BeforeSeconds and AfterSeconds are how many seconds each level held.
	BeforeSeconds, AfterSeconds int
}

// Change is the second level against the first, in %.
func (s LevelShift) Change() float64 { return (s.After/s.Before - 1) * 100 }

// Burst reports whether the first level is the higher one: burst credits
// or throttling, not a warm-up.
func (s LevelShift) Burst() bool { return s.After < s.Before }

// String says both levels and when it changed: "burst 7,500.0 ops/s until
// s 5, then steady 1,000.0 ops/s".
func (s LevelShift) String() string {
	if s.Burst() {
		return fmt.Sprintf("burst %s ops/s until s %d, then steady %s ops/s", numfmt.Rate(s.Before), s.Second, numfmt.Rate(s.After))
	}
	return fmt.Sprintf("%s ops/s until s %d, then %s ops/s", numfmt.Rate(s.Before), s.Second, numfmt.Rate(s.After))
}

// DropSeries keeps d in place of the run's series and drops the series:
// from then on the run's series facts come from d.
func (r *Run) DropSeries(d *SeriesDigest) {
	d.Points = r.SeriesLen()
	r.KeepDigest(d)
}

// KeepDigest keeps d, whose Points are already set, in place of the run's
// series (a report that never read the series whole: report.Digester).
func (r *Run) KeepDigest(d *SeriesDigest) {
	r.Digest, r.Series = d, nil
}
