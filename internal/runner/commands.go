package runner

// Commands: the one place fairbench runs a shell command for a study — its
// hooks around cells (hooks.go) and a target's restart and cache drop
// before cold tries. Each runs with sh -c in a process group of its own,
// bounded by the study's hook_timeout; a timeout or Ctrl-C kills the whole
// group (a restart script's children too). Its record keeps the end of
// what it wrote, its secrets removed.

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"sync"
	"time"

	"github.com/fairbench/fairbench/internal/redact"
	"github.com/fairbench/fairbench/internal/result"
)

// command is one execution of a shell command.
type command struct {
	hook   string // result.Hook…
	line   string // run with sh -c
	before string // the query whose first try it makes cold, if any
	env    []string
	// timeout bounds it; the group gets SIGTERM at the timeout and SIGKILL
	// killGrace later.
	timeout time.Duration
	// privilege, when set, says what the command needs when it fails
	// (drop_caches: root), for the error.
	privilege string
}

// killGrace is how long a command's process group has between SIGTERM and
// SIGKILL: Ctrl-C must end a hook within a second.
const killGrace = 500 * time.Millisecond

// commandError is a failed command, naming its hook and command line.
type commandError struct{ rec result.HookRecord }

func (e *commandError) Error() string {
	msg := fmt.Sprintf("%s command %q failed: %s", e.rec.Hook, e.rec.Command, e.rec.Error)
	if last := lastLine(e.rec.Output); last != "" {
		msg += ": " + last
	}
	return msg
}

// run runs c and returns its record; err is a *commandError when it did not
// exit 0, ErrInterrupted when ctx ended first.
func (c command) run(ctx context.Context) (result.HookRecord, error) {
	rec := result.HookRecord{Hook: c.hook, Command: redact.Scrub(c.line), Before: c.before, Started: time.Now(), ExitCode: -1}
	tctx, cancel := context.WithTimeout(ctx, c.timeout)
	defer cancel()
	cmd := exec.CommandContext(tctx, "sh", "-c", c.line)
	cmd.Env = append(os.Environ(), c.env...)
	out := &tail{}
	cmd.Stdout, cmd.Stderr = out, out
	ownGroup(cmd)
	cmd.Cancel = func() error { return killGroup(cmd, killGrace) }
	// A server the command starts may keep its output open: once sh has
	// exited, its output is read a second longer, then closed.
	cmd.WaitDelay = time.Second
	err := cmd.Run()
	rec.Duration = time.Since(rec.Started)
	rec.Output = redact.Scrub(out.String())
	if cmd.ProcessState != nil && cmd.ProcessState.Exited() {
		rec.ExitCode = cmd.ProcessState.ExitCode()
	}
	switch {
	case ctx.Err() != nil:
		rec.Error = "interrupted: its process group was killed"
		return rec, ErrInterrupted
	case errors.Is(tctx.Err(), context.DeadlineExceeded):
		rec.ExitCode = -1
		rec.Error = fmt.Sprintf("timed out after %s (hook_timeout): its process group was killed", c.timeout)
	case rec.ExitCode == 0 && (err == nil || errors.Is(err, exec.ErrWaitDelay)):
		return rec, nil
	case rec.ExitCode > 0:
		rec.Error = fmt.Sprintf("exit status %d", rec.ExitCode)
	case err != nil:
		rec.Error = redact.Scrub(err.Error())
	default:
		rec.Error = "did not exit by itself"
	}
	if c.privilege != "" {
		rec.Error += " (" + c.privilege + ")"
	}
	return rec, &commandError{rec}
}

// tail keeps the end of a command's output: its last
// result.HookOutputLines lines, at most result.HookOutputBytes bytes.
type tail struct {
	mu  sync.Mutex
	buf []byte
}

func (t *tail) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf = append(t.buf, p...)
	if len(t.buf) > 2*result.HookOutputBytes {
		t.buf = append(t.buf[:0], t.buf[len(t.buf)-result.HookOutputBytes:]...)
	}
	return len(p), nil
}

func (t *tail) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	b := bytes.TrimRight(t.buf, "\n")
	if len(b) > result.HookOutputBytes {
		b = b[len(b)-result.HookOutputBytes:]
	}
	lines := bytes.Split(b, []byte("\n"))
	if len(lines) > result.HookOutputLines {
		lines = lines[len(lines)-result.HookOutputLines:]
	}
	return strings.ToValidUTF8(string(bytes.Join(lines, []byte("\n"))), "\uFFFD")
}

// lastLine is the last line of a command's output, for its error.
func lastLine(out string) string {
	out = strings.TrimSpace(out)
	if i := strings.LastIndexByte(out, '\n'); i >= 0 {
		out = out[i+1:]
	}
	return result.CapText(out, 200)
}
