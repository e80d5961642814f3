package main

// Interruptions of the commands that do not run a study: load, validate and
// import stop on SIGINT/SIGTERM with a message saying what was left behind.

import (
	"context"

	"github.com/fairbench/fairbench/internal/runner"
)

// interruptedError is a command stopped by SIGINT or SIGTERM: main prints its
// message and exits with exitInterrupted.
type interruptedError struct{ msg string }

func (e *interruptedError) Error() string        { return e.msg }
func (e *interruptedError) Is(target error) bool { return target == runner.ErrInterrupted }

// untilInterrupted runs fn and returns its error, or, when ctx ends first
// (SIGINT, SIGTERM), an interruption saying msg without waiting for fn: the
// process then exits, and whatever fn was writing to a results file is rolled
// back by SQLite's journal.
func untilInterrupted(ctx context.Context, msg string, fn func() error) error {
	done := make(chan error, 1)
	go func() { done <- fn() }()
	select {
	case err := <-done:
		return err
	case <-ctx.Done():
		select {
		case err := <-done: // finished at the same moment: its own answer
			return err
		default:
		}
		return &interruptedError{msg: msg}
	}
}
