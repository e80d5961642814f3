package runner

import (
	"context"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"strings"
	"time"

	"github.com/fairbench/fairbench/internal/adapter"
	"github.com/fairbench/fairbench/internal/driver"
	"github.com/fairbench/fairbench/internal/envinfo"
	"github.com/fairbench/fairbench/internal/kinds"
	"github.com/fairbench/fairbench/internal/redact"
	"github.com/fairbench/fairbench/internal/result"
	"github.com/fairbench/fairbench/internal/study"
	"github.com/fairbench/fairbench/internal/version"
	"github.com/fairbench/fairbench/internal/workload"
)

// External tools: a study cell with tool = "pgbench" (or sysbench, fio,
// redis-benchmark, ycsb) runs that tool instead of fairbench's own workers,
// parses its output with the tool's adapter and stores the result like a
// native run, so one report sets the standard tool and fairbench side by
// side.

// preflightTool checks, before the study starts, that the cell's tool is
// installed and its command can be built from the cell.
func preflightTool(c study.Cell) error {
	t, ok := adapter.Lookup(c.Workload.Tool)
	if !ok || t.Build == nil {
		return fmt.Errorf("workload %q: fairbench cannot run tool %q", c.Workload.Name, c.Workload.Tool)
	}
	if _, err := exec.LookPath(t.Executable()); err != nil {
		return fmt.Errorf("workload %q: %s not found: %s", c.Workload.Name, t.Executable(), t.Install)
	}
	if _, err := t.Build(invocation(c, c.Duration)); err != nil {
		return &targetError{Target: c.Target.Name, URL: c.Target.URL, Err: fmt.Errorf("%s: %w", t.Name, err)}
	}
	return nil
}

// CheckToolCell checks, without running or finding the tool, that a tool
// cell's command can be built: the tool accepts its target's URL (fio's
// file:///dir, which no driver speaks) and its parameters. validate calls it.
func CheckToolCell(c study.Cell) error {
	t, ok := adapter.Lookup(c.Workload.Tool)
	if !ok || t.Build == nil {
		return fmt.Errorf("workload %q: fairbench cannot run tool %q", c.Workload.Name, c.Workload.Tool)
	}
	if _, err := t.Build(invocation(c, c.Duration)); err != nil {
		return fmt.Errorf("target %q: %s: %w", c.Target.Name, t.Name, err)
	}
	return nil
}

func invocation(c study.Cell, d time.Duration) adapter.Invocation {
	return adapter.Invocation{
		URL: c.Target.URL, Clients: c.Clients, Duration: d, Params: c.Params,
		Rate: c.Workload.Rate, LatencyLimit: c.Workload.LatencyLimit, MaxTries: c.Workload.MaxTries,
		Threads: c.Workload.Threads, Warmup: c.Warmup,
	}
}

// runExternal executes one tool cell: the native workload's data preparation
// when the kind has one (pgbench's tables are tpcb's, loaded the same way),
// a warm-up run whose output is discarded, then the measured run. A tool that
// can write side logs with the distribution its output lacks (pgbench -l)
// writes them into a temporary directory of each run, read back for the
// measured run and removed with the warm-up's.
func (r *Runner) runExternal(ctx context.Context, c study.Cell) (*result.Run, error) {
	t, _ := adapter.Lookup(c.Workload.Tool)
	run := &result.Run{
		Source: c.Workload.Tool, StudyName: r.st.Name, StudyHash: r.st.Hash,
		CellKey: c.Key(), CellIndex: c.Index,
		Target: c.Target.Name, TargetURL: driver.Redacted(c.Target.URL),
		Workload: c.Workload.Name, Kind: c.Workload.Kind,
		Params: c.Params.JSONable(), Clients: c.Clients, ClientLevel: c.Level, Repetition: c.Repetition,
		Warmup: c.Warmup, StartedAt: time.Now(),
	}
	fail := func(err error) (*result.Run, error) {
		run.EndedAt = time.Now()
		if ctx.Err() != nil {
			run.Status, run.Error = result.StatusInterrupted, "interrupted"
			return run, ErrInterrupted
		}
		run.Status, run.Error = result.StatusFailed, redact.Scrub(err.Error())
		return run, err
	}
	if t == nil || t.Build == nil {
		return fail(fmt.Errorf("fairbench cannot run tool %q", c.Workload.Tool))
	}
	if err := r.restartForTool(ctx); err != nil { // hooks.go
		return fail(err)
	}
	// A tool that brings its own loader (go-tpc prepare) loads its own
	// tables: the native workload of its kind (tpcc) does not load its own
	// beside them. Nor for a tool that writes under names of its own
	// (redis-benchmark's key:…), which would never read them.
	if _, err := workload.Get(c.Workload.Kind); err == nil && t.Load == nil && t.Writes == nil {
		if err := r.prepare(ctx, c, false); err != nil {
			return fail(err)
		}
	}
	// What the tool writes where no marker can say it is fairbench's
	// (redis-benchmark's keys, go-ycsb's on Redis, fio's files): checked
	// before its load and runs, removed after them; toolwrites.go.
	workDir, release, err := r.claimToolWrites(ctx, t, c)
	if err != nil {
		return fail(err)
	}
	defer release()
	// Tools with their own loader (go-ycsb load): toolload.go.
	if err := r.loadToolData(ctx, t, c); err != nil {
		return fail(err)
	}
	if err := r.beforeRun(ctx); err != nil { // hooks.go
		return fail(err)
	}
	// A tool with OwnWarmup (HammerDB's ramp-up) warms up inside the
	// measured run.
	if c.Warmup > 0 && !t.OwnWarmup {
		fmt.Fprintf(r.opt.Progress, "  warm-up: %s for %s (output discarded)\n", t.Name, c.Warmup)
		logDir, err := toolLogDir(t)
		if err != nil {
			return fail(err)
		}
		_, _, err = r.execTool(ctx, t, c, c.Warmup, true, logDir, workDir)
		removeLogDir(logDir)
		if err != nil {
			return fail(err)
		}
	}
	logDir, err := toolLogDir(t)
	if err != nil {
		return fail(err)
	}
	defer removeLogDir(logDir)
	out, argv, err := r.execTool(ctx, t, c, c.Duration, false, logDir, workDir)
	if err != nil {
		return fail(err)
	}
	runs, err := t.Parse(t.Name+" output", out)
	if err != nil {
		return fail(fmt.Errorf("reading %s's output: %w", t.Name, err))
	}
	if len(runs) != 1 {
		return fail(fmt.Errorf("%s printed %d results, expected 1", t.Name, len(runs)))
	}
	if logDir != "" {
		if err := t.AttachLogDir(runs, logDir); err != nil {
			return fail(fmt.Errorf("reading %s's logs: %w", t.Name, err))
		}
	}
	got := runs[0]
	run.ToolVersion = got.ToolVersion
	if run.ToolVersion == "" {
		run.ToolVersion = t.Name
	}
	run.Summary, run.Ops, run.Series, run.Deviations = got.Summary, got.Ops, got.Series, got.Deviations
	run.Duration = got.Duration
	run.EndedAt = time.Now()
	if !got.StartedAt.IsZero() {
		run.StartedAt = got.StartedAt
	} else if got.Duration > 0 {
		run.StartedAt = run.EndedAt.Add(-got.Duration)
	}
	env := got.Env // the tool's facts, then fairbench's where the tool has none
	env.Extra = maps.Clone(env.Extra)
	env.Host = envinfo.Host()
	for k, v := range map[string]any{"command": strings.Join(argv, " "), "fairbench": version.String()} {
		if _, ok := env.Extra[k]; !ok {
			env.Set(k, v)
		}
	}
	if dbEnv, ok := r.envs[c.Target.Name]; ok {
		env.Database = dbEnv
	}
	env.Declared = declared(c.Target)
	same := driver.Local(c.Target.URL)
	env.SameHost = &same
	run.Env = env
	run.Status = result.StatusOK
	return run, nil
}

// toolLogDir makes the empty directory a run of t writes its side logs into,
// or returns "" when t writes none.
func toolLogDir(t *adapter.Tool) (string, error) {
	if t.AttachLogDir == nil {
		return "", nil
	}
	dir, err := os.MkdirTemp("", "fairbench-"+t.Name+"-logs-")
	if err != nil {
		return "", fmt.Errorf("a directory for %s's logs: %w", t.Name, err)
	}
	return dir, nil
}

func removeLogDir(dir string) {
	if dir != "" {
		os.RemoveAll(dir)
	}
}

// execTool runs tool t for d (its warm-up run when warmup) and returns its
// output (stdout and stderr together, as a user would have saved them) and
// the command line. logDir, when not "", is where the tool writes its side
// logs; workDir, when not "", the cell's directory for its files. A tool
// whose progress lines can be read as they come (adapter.Tool.Live) shows
// them to the watcher (the live page's chart) while it runs.
func (r *Runner) execTool(ctx context.Context, t *adapter.Tool, c study.Cell, d time.Duration, warmup bool, logDir, workDir string) (string, []string, error) {
	inv := invocation(c, d)
	inv.LogDir, inv.WorkDir = logDir, workDir
	cmd, err := t.Build(inv)
	if err != nil {
		return "", nil, &targetError{Target: c.Target.Name, URL: c.Target.URL, Err: err}
	}
	fmt.Fprintf(r.opt.Progress, "  %s\n", strings.Join(cmd.Argv, " "))
	var live func(string)
	if w := r.opt.Watch; w != nil && t.Live != nil {
		var prev time.Duration
		live = func(line string) {
			at, pt, ok := t.Live(line)
			if !ok {
				return
			}
			w.Tick(kinds.Tick{Now: time.Now(), Elapsed: at, Window: at - prev, Warmup: warmup, Clients: c.Clients, Point: pt})
			prev = at
		}
	}
	out, err := runCommand(ctx, t.Name, cmd, live)
	return out, cmd.Argv, err
}
