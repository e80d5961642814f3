package runner

import (
	"crypto/rand"
	"fmt"

	"github.com/fairbench/fairbench/internal/redact"
	"github.com/fairbench/fairbench/internal/result"
)

// spillSettled hands the spiller the points of the series, oldest first, of
// the first settled slots, folding each into the run's tally
// (result.Run.Spilled) and letting it go, so that a run's memory does not
// grow with its seconds. settled is a slot no later reading can leave out of
// the measured phase (the slot the clock was in at the latest reading):
// the measured phase ends at or after it, so the spilled points are all
// measured ones and the tally folds exactly the points the end-of-run
// accounting would. Nothing is lost when the store refuses a point: it keeps
// it pending, and AppendRun, or the Sink's fallback, writes it.
func (m *executor) spillSettled(ms *measuredSeries, settled int) {
	if m.spill == nil {
		return
	}
	if m.run.SpillKey == "" {
		m.run.SpillKey = m.cell.Key() + "/" + rand.Text()
	}
	for len(ms.points) > 0 && m.run.Spilled.Points < settled {
		pt := ms.points[0]
		if err := m.spill.SpillPoint(m.run.SpillKey, m.run.Spilled.Points, pt); err != nil && !m.spillWarned {
			m.spillWarned = true
			fmt.Fprintf(m.out, "  %s (they are kept in memory until the run is stored)\n", redact.Scrub(err.Error()))
		}
		m.run.Spilled.Add(pt)
		ms.points[0] = result.SeriesPoint{} // the backing array keeps nothing of it
		ms.points = ms.points[1:]
	}
}
