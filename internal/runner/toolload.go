package runner

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"

	"github.com/fairbench/fairbench/internal/adapter"
	"github.com/fairbench/fairbench/internal/driver"
	"github.com/fairbench/fairbench/internal/ownership"
	"github.com/fairbench/fairbench/internal/study"
)

// Tools that bring their own loader (tool = "ycsb": go-ycsb load) load their
// data set before each cell's first run, warm-up included, into a fresh copy
// of their table: every cell starts from the same data, whatever the cells
// before it inserted or updated. On a SQL target the load drops and recreates
// the table only when fairbench made it — its marker in fairbench_datasets —
// or when --replace allows it; a table of that name someone else made stops
// the cell with the reason.

// loadToolData runs the tool's load for the cell, if the tool has one.
func (r *Runner) loadToolData(ctx context.Context, t *adapter.Tool, c study.Cell) error {
	if t == nil || t.Load == nil {
		return nil
	}
	targetErr := func(err error) error { return &TargetError{Target: c.Target.Name, URL: c.Target.URL, Err: err} }
	l, err := t.Load(invocation(c, c.Duration))
	if err != nil {
		return targetErr(err)
	}
	var sq driver.SQL
	var marks ownership.SQLTables
	if len(l.Tables) > 0 {
		var ok bool
		if marks, ok = ownership.SQL(); !ok {
			return targetErr(fmt.Errorf("%s loads tables, but this program has no dataset markers to check who made them (internal/ownership has none registered)", t.Name))
		}
		cl, err := r.open(ctx, c.Target, driver.Options{})
		if err != nil {
			return err
		}
		defer cl.Close(context.WithoutCancel(ctx))
		conn, err := r.connect(ctx, cl, c.Target)
		if err != nil {
			return err
		}
		defer conn.Close(context.WithoutCancel(ctx))
		s, ok := conn.(driver.SQL)
		if !ok {
			return targetErr(fmt.Errorf("%s loads tables, but the target's driver speaks no SQL", t.Name))
		}
		var existing []string
		for _, table := range l.Tables {
			exists, err := marks.TableExists(ctx, s, table)
			if err != nil {
				return targetErr(fmt.Errorf("looking for table %s: %w", table, err))
			}
			if exists {
				existing = append(existing, table)
			}
		}
		ours, err := marks.Owns(ctx, s, l.Dataset, l.Tables)
		if err != nil {
			return targetErr(fmt.Errorf("reading fairbench's dataset markers: %w", err))
		}
		if len(existing) > 0 && !ours && !r.opt.Replace {
			what := "a table " + existing[0]
			if len(existing) > 1 {
				what = "tables " + strings.Join(existing, ", ")
			}
			return targetErr(fmt.Errorf("the database already holds %s that fairbench did not create, and %s's load would drop them; "+
				"rerun with --replace to let it, or point the target at another database", what, t.Name))
		}
		if err := marks.MarkLoading(ctx, s, l.Dataset, l.Params); err != nil {
			return targetErr(fmt.Errorf("recording the %s load: %w", t.Name, err))
		}
		sq = s
	}
	fmt.Fprintf(r.opt.Progress, "  load: %s\n", strings.Join(l.Command.Argv, " "))
	out, err := runCommand(ctx, t.Executable(), l.Command)
	if err != nil {
		return targetErr(err)
	}
	if l.Check != nil {
		if err := l.Check(out); err != nil {
			return targetErr(err)
		}
	}
	if sq != nil {
		if err := marks.MarkReady(ctx, sq, l.Dataset, l.Params, l.Tables); err != nil {
			return targetErr(fmt.Errorf("recording the %s load: %w", t.Name, err))
		}
	}
	return nil
}

// runCommand executes a tool command and returns its stdout and stderr
// together; a failure carries the end of the output. name is for messages.
func runCommand(ctx context.Context, name string, cmd adapter.Command) (string, error) {
	x := exec.CommandContext(ctx, cmd.Argv[0], cmd.Argv[1:]...)
	x.Env = append(os.Environ(), cmd.Env...)
	out, err := x.CombinedOutput()
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
