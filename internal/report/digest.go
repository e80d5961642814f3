package report

import (
	"github.com/fairbench/fairbench/internal/analysis"
	"github.com/fairbench/fairbench/internal/kinds"
	"github.com/fairbench/fairbench/internal/result"
)

// DropSeries replaces r's series by its digest (result.SeriesDigest): what
// analysis, the run's charts and its kind's report sections read of it.
// Every report format then shows the same as with the series, and a report
// that reads its runs one at a time (store.EachRun) and drops each run's
// series holds one run's series, not the store's.
func DropSeries(r *result.Run) {
	d := &result.SeriesDigest{Chart: runChart(r), Kind: kinds.DigestSeries(r)}
	analysis.DigestSeries(r, d)
	r.DropSeries(d)
}
