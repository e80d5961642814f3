package main

// Interruptions of the commands that do not run a study: load, validate and
// import stop on SIGINT/SIGTERM with a message saying what was left behind,
// every other command (report, compare, studies, store, env, …) at once.

import (
	"context"
	"errors"
	"strings"

	"github.com/spf13/cobra"

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
		if ctx.Err() != nil && cancelled(err) {
			// Stopped by the signal at the same moment: the command's
			// account, not its context's error.
			return &interruptedError{msg: msg}
		}
		return err
	case <-ctx.Done():
		select {
		case err := <-done: // finished at the same moment: its own answer
			if !cancelled(err) {
				return err
			}
		default:
		}
		return &interruptedError{msg: msg}
	}
}

// cancelled says whether err is only the signal's cancellation reaching
// the command.
func cancelled(err error) bool {
	return err != nil && (errors.Is(err, context.Canceled) || errors.Is(err, runner.ErrInterrupted))
}

// stopsItself names the commands that handle SIGINT and SIGTERM themselves:
// the runner stops a study or a load and stores what finished, import and
// validate say what they leave. stopOnSignal makes every other command stop
// at once, wherever it waits (a results store that never answers, a report
// over thousands of runs, a target's handshake for env).
var stopsItself = map[string]bool{"run": true, "load": true, "demo": true, "generator": true, "import": true, "validate": true}

// selfStopping is the annotation of a subcommand that handles SIGINT and
// SIGTERM itself, as the top-level ones in stopsItself do (k8s run deletes
// what it applied before it exits).
const selfStopping = "stops-itself"

// interruptedNote is the annotation a command sets to say what an
// interruption leaves; without it, nothing was written.
const interruptedNote = "interrupted"

// stopOnSignal wraps the RunE of every command under c that does not stop
// itself in untilInterrupted.
func stopOnSignal(c *cobra.Command) {
	for _, sub := range c.Commands() {
		if (stopsItself[sub.Name()] && c.Parent() == nil) || sub.Annotations[selfStopping] == "true" {
			continue
		}
		stopOnSignal(sub)
	}
	if c.RunE == nil || c.Parent() == nil {
		return
	}
	name := strings.TrimPrefix(c.CommandPath(), c.Root().Name()+" ")
	msg := name + " interrupted: nothing was written"
	if note := c.Annotations[interruptedNote]; note != "" {
		msg = name + " interrupted: " + note
	}
	run := c.RunE
	c.RunE = func(cmd *cobra.Command, args []string) error {
		return untilInterrupted(cmd.Context(), msg, func() error { return run(cmd, args) })
	}
}
