package runner

import (
	"crypto/rand"
	"fmt"

	"github.com/fairbench/fairbench/internal/envinfo"
	"github.com/fairbench/fairbench/internal/result"
)

// spillLast hands the interval histograms of the series' newest point to the
// spiller and keeps only its counts, so that a run's memory does not grow
// with its seconds. Nothing is lost when the store refuses them: it keeps
// them pending and AppendRun, or the Sink's fallback, writes them.
func (m *executor) spillLast(ms *measuredSeries) {
	if m.spill == nil || len(ms.points) == 0 {
		return
	}
	i := len(ms.points) - 1
	pt := &ms.points[i]
	if len(pt.Hists) == 0 {
		return
	}
	if m.run.SpillKey == "" {
		m.run.SpillKey = m.cell.Key() + "/" + rand.Text()
	}
	histograms := make([]string, len(pt.Hists))
	light := make([]result.IntervalOp, len(pt.Hists)) // a copy: the tick line's point shares pt.Hists
	for j, iv := range pt.Hists {
		histograms[j], iv.Histogram = iv.Histogram, ""
		light[j] = iv
	}
	if err := m.spill.SpillIntervals(m.run.SpillKey, i, histograms); err != nil && !m.spillWarned {
		m.spillWarned = true
		fmt.Fprintf(m.out, "  %s (they are kept in memory until the run is stored)\n", envinfo.Scrub(err.Error()))
	}
	pt.Hists = light
}
