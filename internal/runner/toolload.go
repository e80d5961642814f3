package runner

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"strings"

	"github.com/fairbench/fairbench/internal/adapter"
	"github.com/fairbench/fairbench/internal/driver"
	"github.com/fairbench/fairbench/internal/study"
	"github.com/fairbench/fairbench/internal/workload/sqlwork"
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
	var marks sqlwork.Markers
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
		if l.WholeDatabase {
			if err := r.clearWholeDatabase(ctx, t, l, marks, s); err != nil {
				return targetErr(err)
			}
		} else {
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

// clearWholeDatabase readies the target's database for a load that builds
// into an empty database (HammerDB's buildschema refuses any table, fairbench's
// marker tables included). A database without tables is used as it is. One
// whose tables are all the load's own, claimed by fairbench's marker of the
// data set (or, with --replace, the load's own names), is emptied: Clear's
// statements, then the marker tables, which MarkReady writes again after the
// load. Any other table stops the cell: fairbench drops nothing it did not
// create, and the load could not run beside it anyway. A load interrupted
// before MarkReady leaves tables without a marker, which the next run refuses
// (drop the database's tables, or point the target at a new database).
func (r *Runner) clearWholeDatabase(ctx context.Context, t *adapter.Tool, l *adapter.DataLoad, marks sqlwork.Markers, s driver.SQL) error {
	tables, err := marks.Tables(ctx, s)
	if err != nil {
		return fmt.Errorf("listing the database's tables: %w", err)
	}
	var foreign []string
	for _, table := range tables {
		if !slices.Contains(l.Tables, strings.ToLower(table)) {
			foreign = append(foreign, table)
		}
	}
	if len(foreign) > 0 {
		return fmt.Errorf("%s builds into an empty database, and this one holds tables that are not %s's (%s): fairbench drops nothing it did not create; point the target at a new or empty database",
			t.Name, t.Name, strings.Join(foreign, ", "))
	}
	if len(tables) > 0 {
		ours, err := marks.Owns(ctx, s, l.Dataset, l.Tables)
		if err != nil {
			return fmt.Errorf("reading fairbench's dataset markers: %w", err)
		}
		if !ours && !r.opt.Replace {
			return fmt.Errorf("the database already holds %s's tables (%s), but fairbench's markers do not say that fairbench's %s load made them (another tool, or a load that did not finish); "+
				"rerun with --replace to let fairbench drop them, or point the target at a new or empty database", t.Name, strings.Join(tables, ", "), t.Name)
		}
		stmts, ok := l.Clear[s.Dialect()]
		if !ok {
			return fmt.Errorf("%s has no statements to clear a %s database", t.Name, s.Dialect())
		}
		fmt.Fprintf(r.opt.Progress, "  load: dropping the %s tables fairbench's previous load made\n", t.Name)
		for _, q := range stmts {
			if err := s.Exec(ctx, q); err != nil {
				return fmt.Errorf("clearing %s's previous load: %s: %w", t.Name, q, err)
			}
		}
	}
	if err := marks.DropMarkers(ctx, s); err != nil {
		return fmt.Errorf("dropping fairbench's marker tables before %s's load: %w", t.Name, err)
	}
	return nil
}

// runCommand executes a tool command and returns its stdout and stderr
// together; a failure carries the end of the output. name is for messages.
func runCommand(ctx context.Context, name string, cmd adapter.Command) (string, error) {
	x := exec.CommandContext(ctx, cmd.Argv[0], cmd.Argv[1:]...)
	x.Env = append(os.Environ(), cmd.Env...)
	x.Dir = cmd.Dir
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
