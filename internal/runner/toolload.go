package runner

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"

	"github.com/fairbench/fairbench/internal/adapter"
	"github.com/fairbench/fairbench/internal/driver"
	"github.com/fairbench/fairbench/internal/study"
)

// Tools that bring their own loader (tool = "ycsb": go-ycsb load) load their
// data set before each cell's first run, warm-up included, into a fresh copy
// of their table: every cell starts from the same data, whatever the cells
// before it inserted or updated. On a SQL target the tool's DataLoad says
// which tables it may replace (DataLoad.Prepare, before the command) and
// records what it made (DataLoad.Loaded, after it).

// loadToolData runs the tool's load for the cell, if the tool has one.
func (r *Runner) loadToolData(ctx context.Context, t *adapter.Tool, c study.Cell) error {
	if t == nil || t.Load == nil {
		return nil
	}
	targetErr := func(err error) error { return &targetError{Target: c.Target.Name, URL: c.Target.URL, Err: err} }
	inv := invocation(c, c.Duration)
	// A tool with side files gets a private directory for its load too
	// (HammerDB's script, which holds the password, and its own files).
	logDir, err := toolLogDir(t)
	if err != nil {
		return targetErr(err)
	}
	defer removeLogDir(logDir)
	inv.LogDir = logDir
	l, err := t.Load(inv)
	if err != nil {
		return targetErr(err)
	}
	var sq driver.SQL
	if len(l.Tables) > 0 {
		conn, closeAll, err := r.targetSession(ctx, c)
		if err != nil {
			return err
		}
		defer closeAll()
		s, ok := conn.(driver.SQL)
		if !ok {
			return targetErr(fmt.Errorf("%s loads tables, but the target's driver speaks no SQL", t.Name))
		}
		if err := l.Prepare(ctx, t.Name, s, r.opt.Replace, r.opt.Progress); err != nil {
			return targetErr(err)
		}
		sq = s
	}
	fmt.Fprintf(r.opt.Progress, "  load: %s\n", strings.Join(l.Command.Argv, " "))
	out, err := runCommand(ctx, t.Executable(), l.Command, nil)
	if err != nil {
		return targetErr(err)
	}
	if l.Check != nil {
		if err := l.Check(out); err != nil {
			return targetErr(err)
		}
	}
	if sq != nil {
		if err := l.Loaded(ctx, t.Name, sq); err != nil {
			return targetErr(err)
		}
	}
	return nil
}

// runCommand executes a tool command and returns its stdout and stderr
// together; a failure carries the end of the output. name is for messages.
// live, when given, is told each line of the output as it comes (from the
// goroutine copying it, while this one waits: never two at once).
func runCommand(ctx context.Context, name string, cmd adapter.Command, live func(line string)) (string, error) {
	x := exec.CommandContext(ctx, cmd.Argv[0], cmd.Argv[1:]...)
	x.Env = append(os.Environ(), cmd.Env...)
	x.Dir = cmd.Dir
	var buf bytes.Buffer
	lines := &lineWriter{line: live}
	if live == nil {
		x.Stdout = &buf
	} else {
		x.Stdout = io.MultiWriter(&buf, lines)
	}
	x.Stderr = x.Stdout // one writer: exec writes to it from one goroutine at a time
	err := x.Run()
	lines.flush()
	out := buf.Bytes()
	if err == nil {
		return string(out), nil
	}
	if ctx.Err() != nil {
		return "", ErrInterrupted
	}
	tail := strings.TrimSpace(string(out))
	if len(tail) > 2000 {
		tail = "…" + tail[len(tail)-2000:]
	}
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return "", fmt.Errorf("%s exited with status %d: %s", name, ee.ExitCode(), tail)
	}
	return "", fmt.Errorf("%s: %w", name, err)
}

// lineWriter calls line with each line written to it, without its line
// break (a carriage return ends a line too: tools redraw progress lines
// with one). A line longer than maxLiveLine is cut there: what the
// callback reads is a progress line, never a whole output.
type lineWriter struct {
	line func(string)
	buf  []byte
}

const maxLiveLine = 4096

func (w *lineWriter) Write(p []byte) (int, error) {
	n := len(p)
	for len(p) > 0 {
		i := bytes.IndexAny(p, "\n\r")
		if i < 0 {
			w.keep(p)
			break
		}
		w.keep(p[:i])
		w.flush()
		p = p[i+1:]
	}
	return n, nil
}

func (w *lineWriter) keep(b []byte) {
	if room := maxLiveLine - len(w.buf); len(b) > room {
		b = b[:room]
	}
	w.buf = append(w.buf, b...)
}

// flush ends the line being written.
func (w *lineWriter) flush() {
	if len(w.buf) > 0 && w.line != nil {
		w.line(string(w.buf))
	}
	w.buf = w.buf[:0]
}
