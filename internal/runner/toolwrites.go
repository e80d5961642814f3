package runner

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/fairbench/fairbench/internal/adapter"
	"github.com/fairbench/fairbench/internal/driver"
	"github.com/fairbench/fairbench/internal/study"
)

// A tool cell's runs write more than the data a load made and marked: keys
// under names the tool chooses (redis-benchmark's key:000000001234), data
// files (fio's clients × size bytes). fairbench overwrites none of the
// target's keys of those names unless --replace, puts files into a
// directory of the cell's own, and after the cell's last run deletes the
// keys and the directory, so that a cell leaves behind nothing it wrote.

// claimToolWrites readies what the cell's runs write, as the tool's Writes
// says: it refuses keys that exist already (unless --replace) and makes the
// cell's directory. release, to call when the cell's runs are done, deletes
// the keys and the directory and says so on the progress output.
func (r *Runner) claimToolWrites(ctx context.Context, t *adapter.Tool, c study.Cell) (workDir string, release func(), err error) {
	release = func() {}
	if t.Writes == nil {
		return "", release, nil
	}
	targetErr := func(err error) error { return &targetError{Target: c.Target.Name, URL: c.Target.URL, Err: err} }
	fp, err := t.Writes(invocation(c, c.Duration))
	if err != nil {
		return "", release, targetErr(err)
	}
	var undo []func()
	release = func() {
		for _, u := range undo {
			u()
		}
	}
	if !fp.Keys.Empty() {
		err := r.withKV(ctx, c, func(kv driver.KV) error {
			k, err := fp.Keys.FirstExisting(ctx, kv)
			if err != nil {
				return fmt.Errorf("looking for the keys %s would write (%s): %w", t.Name, fp.Keys, err)
			}
			if k != "" && !r.opt.Replace {
				return fmt.Errorf("key %s exists and fairbench did not write it: %s writes the keys %s and would overwrite it; "+
					"point the target at another database (redis://host/N), or rerun with --replace to let it (fairbench then deletes those keys after the cell)", k, t.Name, fp.Keys)
			}
			return nil
		})
		if err != nil {
			return "", release, targetErr(err)
		}
		undo = append(undo, func() {
			// Deleted even when the run was interrupted: the keys are the
			// cell's whatever happened to it.
			ctx := context.WithoutCancel(ctx)
			err := r.withKV(ctx, c, func(kv driver.KV) error {
				n, err := fp.Keys.Delete(ctx, kv)
				if err == nil {
					fmt.Fprintf(r.opt.Progress, "  %s: deleted the %d keys it wrote (%s)\n", t.Name, n, fp.Keys)
				}
				return err
			})
			if err != nil {
				fmt.Fprintf(r.opt.Progress, "  %s: the keys it wrote (%s) could not be deleted, and are left on target %q: %v\n", t.Name, fp.Keys, c.Target.Name, err)
			}
		})
	}
	if fp.Dir != "" {
		if workDir, err = os.MkdirTemp(fp.Dir, "fairbench-"+safeName(c.Key())+"-"); err != nil {
			release()
			return "", func() {}, targetErr(fmt.Errorf("making the cell's directory for %s's files in %s: %w", t.Name, fp.Dir, err))
		}
		undo = append(undo, func() {
			if fp.Keep {
				fmt.Fprintf(r.opt.Progress, "  %s: its files are kept in %s (keep_files)\n", t.Name, workDir)
				return
			}
			if err := os.RemoveAll(workDir); err != nil {
				fmt.Fprintf(r.opt.Progress, "  %s: its files in %s could not be removed: %v\n", t.Name, workDir, err)
			}
		})
	}
	return workDir, release, nil
}

// targetSession opens a client of the cell's target and one session on it, for
// the runner's own checks around a tool cell; closeAll closes both.
func (r *Runner) targetSession(ctx context.Context, c study.Cell) (conn driver.Conn, closeAll func(), err error) {
	cl, err := r.open(ctx, c.Target, driver.Options{})
	if err != nil {
		return nil, nil, err
	}
	conn, err = r.connect(ctx, cl, c.Target)
	if err != nil {
		cl.Close(context.WithoutCancel(ctx))
		return nil, nil, err
	}
	return conn, func() {
		conn.Close(context.WithoutCancel(ctx))
		cl.Close(context.WithoutCancel(ctx))
	}, nil
}

// withKV runs fn on a key-value session of the cell's target.
func (r *Runner) withKV(ctx context.Context, c study.Cell, fn func(kv driver.KV) error) error {
	conn, closeAll, err := r.targetSession(ctx, c)
	if err != nil {
		return err
	}
	defer closeAll()
	kv, ok := conn.(driver.KV)
	if !ok {
		return errors.New("the target's driver speaks no key-value commands, so fairbench cannot check the keys the tool writes")
	}
	return fn(kv)
}

// safeName keeps a cell key's letters and digits for a directory name.
func safeName(s string) string {
	s = strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_' {
			return r
		}
		return '_'
	}, s)
	return s[:min(len(s), 40)]
}
