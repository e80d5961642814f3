package result

import "time"

// Hook names: the commands a study runs on the client host around its cells
// (study keys before_study, before_cell, before_run, after_run), and the
// target's commands that make a try cold (restart, drop_caches).
const (
	HookBeforeStudy = "before_study"
	HookBeforeCell  = "before_cell"
	HookBeforeRun   = "before_run"
	HookAfterRun    = "after_run"
	HookRestart     = "restart"
	HookDropCaches  = "drop_caches"
)

// HookRecord is one execution of a command around a run, stored with the
// run: which hook, what ran (its secrets removed), how it ended and what
// it said last.
type HookRecord struct {
	Hook    string `json:"hook"`
	Command string `json:"command"` // as run by sh -c, secrets replaced
	// Before names what the command ran before, when it was not the run
	// itself: the query whose first (cold) try it prepared.
	Before   string        `json:"before,omitempty"`
	Started  time.Time     `json:"started"`
	Duration time.Duration `json:"duration_ns"`
	// ExitCode is the command's exit status; -1 when it did not exit by
	// itself (a timeout, an interruption, a command that could not start).
	ExitCode int `json:"exit_code"`
	// Error says why the command failed ("" when it exited 0).
	Error string `json:"error,omitempty"`
	// Output is the end of what it wrote to stdout and stderr together
	// (HookOutputLines lines, HookOutputBytes bytes at most), secrets replaced.
	Output string `json:"output,omitempty"`
}

// OK says the command exited 0.
func (h HookRecord) OK() bool { return h.Error == "" && h.ExitCode == 0 }

// Bounds of a HookRecord's Output: the end of a command's output says why
// it failed; all of it (a restart's journal) would swell every run.
const (
	HookOutputLines = 20
	HookOutputBytes = 4 << 10
)
