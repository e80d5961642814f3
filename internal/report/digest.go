package report

import (
	"github.com/fairbench/fairbench/internal/analysis"
	"github.com/fairbench/fairbench/internal/kinds"
	"github.com/fairbench/fairbench/internal/result"
)

// DropSeries replaces r's series by its digest (result.SeriesDigest): what
// analysis, the run's charts and its kind's report sections read of it.
// Every report format then shows the same as with the series.
func DropSeries(r *result.Run) {
	series := r.Series
	g := NewDigester(r)
	for _, p := range series {
		g.Add(p)
	}
	g.Finish()
	if s := r.Digest.Rates.Shift; s != nil {
		r.Digest.Levels = analysis.TallyLevels(*s, series)
	}
}

// Digester builds a run's digest (result.SeriesDigest) from its series'
// points handed over one at a time, as the store reads them
// (store.Store.EachRunPoints): a report that reads its runs this way never
// holds a run's series, only a few columns of it (result.SeriesColumns).
// A level shift's levels need a second pass over the points with their
// interval histograms (analysis.LevelTallies); Finish leaves them out.
type Digester struct {
	run      *result.Run
	cols     *result.SeriesColumns
	analysis *analysis.SeriesDigester
	// kindSeries are the points kept whole for a kind whose report sections
	// digest the series themselves (kinds.Info.DigestSeries: bulkindex's OSB
	// tasks); nil for every other kind.
	kindSeries []result.SeriesPoint
	keepKind   bool
}

// NewDigester digests r's series, whose points Add takes.
func NewDigester(r *result.Run) *Digester {
	cols := result.NewSeriesColumns(r)
	return &Digester{run: r, cols: cols, analysis: analysis.NewSeriesDigester(r, cols), keepKind: kinds.DigestsSeries(r.Kind)}
}

// Add takes the series' next point.
func (g *Digester) Add(p result.SeriesPoint) {
	g.cols.Add(p)
	g.analysis.Add(p)
	if g.keepKind {
		g.kindSeries = append(g.kindSeries, p)
	}
}

// Finish replaces the run's series by its digest, every point added.
func (g *Digester) Finish() {
	d := &result.SeriesDigest{Points: g.cols.Points()}
	if g.keepKind {
		whole := *g.run
		whole.Series, whole.Digest = g.kindSeries, nil
		d.Kind = kinds.DigestSeries(&whole)
		g.kindSeries = nil
	}
	g.analysis.Finish(d)
	d.Chart = chartOf(g.cols)
	g.run.KeepDigest(d)
}
