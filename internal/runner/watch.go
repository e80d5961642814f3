package runner

import (
	"github.com/fairbench/fairbench/internal/kinds"
	"github.com/fairbench/fairbench/internal/result"
	"github.com/fairbench/fairbench/internal/study"
)

// Watcher is told what a study is doing as it goes, for a live view of it
// (run --serve). Its methods are called one at a time, from the runner's
// own goroutine (or, for a peer tool's progress lines, from the goroutine
// reading the tool's output while the runner's waits for the tool): at
// each cell's start and end and once per progress tick, never from the
// clients' operations. They must return at once (copy what
// they keep and publish it; never wait for a reader).
type Watcher interface {
	// CellStarted: cells[index] begins (its data, warm-up and measured phase).
	CellStarted(index int, c study.Cell)
	// CellSkipped: cells[index] does not run (--resume, or past the rounds
	// repetitions = "auto" asked for).
	CellSkipped(index int)
	// Tick is one progress reading of the running cell, the same the
	// per-second progress line shows (kinds.Tick.Warmup in the warm-up).
	Tick(t kinds.Tick)
	// CellEnded: cells[index] ended with run, stored (nil when nothing was
	// attempted); err is how it failed or was interrupted, nil otherwise.
	CellEnded(index int, run *result.Run, err error)
}
