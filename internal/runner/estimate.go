package runner

import (
	"github.com/fairbench/fairbench/internal/study"
	"github.com/fairbench/fairbench/internal/workload"
)

// ShapeOf binds cell c's workload to its parameters and returns its shape,
// for the plan's estimate (CellTime); binding refuses parameters the
// workload cannot run, as it would when the cell runs.
func ShapeOf(c study.Cell) (workload.Shape, error) {
	b, err := bind(c)
	return b.shape, err
}

// CellTime is how long cell c runs, for a workload of this shape, as
// setupCell runs it: a finite set's tries have no warm-up and are bounded by
// the set (tries.go), a self-ending run by its limit (selfending.go), and a
// run whose clients end once their work is done by the cell's duration.
// Those are bounds: the time the work takes is not known before it runs.
func CellTime(c study.Cell, shape workload.Shape) study.CellTime {
	t := study.DurationTime(c)
	if c.Workload.Tool != "" {
		return t
	}
	end := shape.End
	switch end.Kind() {
	case workload.EndWhenDone:
	case workload.EndTries:
		t.Time = end.Bound() + c.Cooldown
	case workload.EndSelf, workload.EndPerClient:
		t.Time = c.Warmup + end.Bound() + c.Cooldown
	default:
		return t
	}
	t.AtMost, t.EndsWhen = true, end.EndsWhen()
	return t
}
