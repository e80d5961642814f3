package runner

// Query-set tries: a finite set (workload.EndTries) runs each of its
// queries a number of times in a row, one try after another on one client
// (SSB's and ClickBench's tries). The set, not a duration, ends the run; it
// has no warm-up; a failed or timed-out try is recorded as null and the set
// goes on; its dead time is the set's own account of when no try succeeded
// (its stalls), not the ticks'; it is not split over load generators
// (splittable).

import (
	"math"
	"time"

	"github.com/fairbench/fairbench/internal/result"
	"github.com/fairbench/fairbench/internal/study"
	"github.com/fairbench/fairbench/internal/workload"
)

// triesCell makes cell c, and its run, a finite set's: the first try is the
// cold one, which a warm-up would spend, and the set's bound replaces the
// cell's duration.
func triesCell(c *study.Cell, run *result.Run, end workload.End) {
	c.Warmup, run.Warmup = 0, 0
	c.Duration = end.Bound()
}

// triesDeadTime replaces the ticks' dead-time account in s by the set's:
// one client runs one try after another, each up to minutes, so seconds
// without a finished try are its normal.
func triesDeadTime(s *result.Summary, shape workload.Shape, start time.Time) {
	var stalls []workload.Stall
	if shape.Stalls != nil {
		stalls = shape.Stalls()
	}
	s.DeadSpans, s.DeadSeconds = stallSeconds(stalls, start)
	s.SilentSeconds, s.StarvedSeconds = 0, 0
}

// stallSeconds turns a query set's stalls into dead seconds: their total
// length, rounded, and the progress seconds they touch (second s is the
// tick from s-1 to s after start), merged into spans.
func stallSeconds(stalls []workload.Stall, start time.Time) (spans [][2]int, n int) {
	var total time.Duration
	for _, st := range stalls {
		total += st.To.Sub(st.From)
		from := int(math.Floor(st.From.Sub(start).Seconds())) + 1
		to := max(from, int(math.Ceil(st.To.Sub(start).Seconds())))
		if k := len(spans); k > 0 && spans[k-1][1] >= from-1 {
			spans[k-1][1] = max(spans[k-1][1], to)
			continue
		}
		spans = append(spans, [2]int{from, to})
	}
	return spans, int(math.Round(total.Seconds()))
}
