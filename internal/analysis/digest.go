package analysis

import (
	hdr "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/fairbench/fairbench/internal/hist"
	"github.com/fairbench/fairbench/internal/result"
)

// SeriesDigester builds, point by point, what analysis reads of a run's
// series (its op latency sums, the per-second throughput checks, the
// client CPU), so that a report can drop the series (result.SeriesDigest)
// without ever holding it: the points come as the store reads them, and
// besides the columns (result.SeriesColumns, which its caller fills) only
// running sums are kept.
type SeriesDigester struct {
	run       *result.Run
	cols      *result.SeriesColumns
	opLatency map[string]result.LatencySum
}

// NewSeriesDigester digests r's series, whose columns cols holds.
func NewSeriesDigester(r *result.Run, cols *result.SeriesColumns) *SeriesDigester {
	return &SeriesDigester{run: r, cols: cols, opLatency: map[string]result.LatencySum{}}
}

// Add takes the series' next point.
func (g *SeriesDigester) Add(p result.SeriesPoint) {
	for _, io := range p.Hists {
		if io.SumUs > 0 {
			s := g.opLatency[io.Name]
			s.SumUs += io.SumUs
			s.Count += io.Count
			g.opLatency[io.Name] = s
		}
	}
}

// Finish fills in d what analysis reads of the series, every point added,
// and drops the CPU column it has read.
// A level shift's levels (d.Levels) are left out: they are tallied in a
// second pass over the points (LevelTallies), once the shift is known.
func (g *SeriesDigester) Finish(d *result.SeriesDigest) {
	d.OpLatency = g.opLatency
	d.CPUMedian, d.CPUPoints = hist.Median(g.cols.CPU), len(g.cols.CPU)
	g.cols.CPU = nil // read: the rate checks' prefix sums may take its memory
	d.Rates = rateChecks(g.run, g.cols)
}

// rateFindings are the checks of r's per-second throughput (rateChecks),
// from its digest once a report dropped its series.
func rateFindings(r *result.Run) result.RateFindings {
	if r.Digest != nil {
		return r.Digest.Rates
	}
	return rateChecks(r, result.Columns(r, r.Series))
}

// rateChecks are the checks of the per-second throughput of r, whose
// series' columns cols holds: a level shift; else a warm-up too short and a
// drift after it. A query set's per-second rate follows its queries, each
// tried in turn, not the server's state: its series says nothing of them
// (its cold and hot tries do).
func rateChecks(r *result.Run, cols *result.SeriesColumns) result.RateFindings {
	var f result.RateFindings
	if len(r.Summary.Queries) > 0 {
		return f
	}
	rates := cols.Rates[:cols.RateLen()]
	// A sustained level shift is one drift with two levels, not a warm-up
	// too short (the first seconds differ from the rest because the whole
	// first level does): neither of the other two is raised for it.
	if k, ok := levelShift(rates); ok {
		before, _ := meanSD(rates[:k])
		after, _ := meanSD(rates[k:])
		f.Shift = &result.LevelShift{Before: before, After: after, Second: int(cols.Seconds[k-1]), BeforeSeconds: k, AfterSeconds: len(rates) - k}
		return f
	}
	skip := 0
	if w, first, rest, ok := warmupShift(rates); ok {
		skip = w
		f.Warmup = &result.WarmupShift{Seconds: w, First: first, Rest: rest}
	}
	if first, last, se, ok := drift(rates[skip:]); ok {
		f.Drift = &result.Drift{First: first, Last: last, SE: se}
	}
	return f
}

// clientCPU is the median of r's per-second client CPU and the points it
// is over.
func clientCPU(r *result.Run) (median float64, points int) {
	if r.Digest != nil {
		return r.Digest.CPUMedian, r.Digest.CPUPoints
	}
	cpu := make([]float64, 0, len(r.Series))
	for _, p := range r.Series {
		cpu = append(cpu, p.CPU)
	}
	return hist.Median(cpu), len(cpu)
}

// LevelTallies tallies, point by point, what each level of a run whose
// throughput shifted level measured (result.SeriesDigest.Levels): the
// shift's first BeforeSeconds rate points, then its AfterSeconds. The
// points come in series order; those after the rate points are not
// tallied.
type LevelTallies struct {
	shift  result.LevelShift
	at     int
	levels [2]tallier
}

// NewLevelTallies tallies the levels of shift.
func NewLevelTallies(shift result.LevelShift) *LevelTallies {
	return &LevelTallies{shift: shift, levels: [2]tallier{newTallier(), newTallier()}}
}

// Add takes the series' next point.
func (l *LevelTallies) Add(p result.SeriesPoint) {
	switch i := l.at; {
	case i < l.shift.BeforeSeconds:
		l.levels[0].add(p)
	case i < l.shift.BeforeSeconds+l.shift.AfterSeconds:
		l.levels[1].add(p)
	}
	l.at++
}

// Tallies are the two levels' tallies, every point added.
func (l *LevelTallies) Tallies() *[2]result.LevelTally {
	return &[2]result.LevelTally{l.levels[0].tally(), l.levels[1].tally()}
}

// TallyLevels is what each level of shift measured over points, a run's
// series in order (LevelTallies over all of them).
func TallyLevels(shift result.LevelShift, points []result.SeriesPoint) *[2]result.LevelTally {
	l := NewLevelTallies(shift)
	for _, p := range points {
		l.Add(p)
	}
	return l.Tallies()
}

// tallier sums one level's seconds point by point, merging their
// interval histograms.
type tallier struct {
	t      result.LevelTally
	merged *hdr.Histogram
}

func newTallier() tallier {
	return tallier{t: result.LevelTally{Histograms: true}, merged: hist.New()}
}

func (a *tallier) add(p result.SeriesPoint) {
	t := &a.t
	t.Seconds++
	t.Errors += p.Errors
	if p.Ops > 0 && p.Hists == nil {
		t.Histograms = false
	}
	for _, iv := range p.Hists {
		if iv.Count == 0 {
			continue
		}
		t.Count += iv.Count
		if iv.SumUs > 0 {
			t.SumUs += iv.SumUs
			t.Summed += iv.Count
		}
		h, err := hist.Decode([]byte(iv.Histogram))
		if err != nil {
			t.Histograms = false
			continue
		}
		a.merged.Merge(h)
	}
}

func (a *tallier) tally() result.LevelTally {
	t := a.t
	if a.merged.TotalCount() > 0 {
		b, err := hist.Encode(a.merged)
		if err != nil {
			t.Histograms = false
		}
		t.Histogram = b
	}
	return t
}
