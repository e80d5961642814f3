package runner

// Hooks: the study's commands around its cells (study.Hooks) and a
// target's restart and cache drop (study.Target.Restart, DropCaches), run
// through commands.go and recorded with each run (result.Run.Hooks).
// before_study runs once, before the first cell that runs, and its record
// goes with that cell's run; before_cell before a cell's setup (its load);
// before_run after the setup, before the warm-up; after_run after the
// measured phase, when before_run's point was reached. A command that
// fails fails its cell (before_study: the study), naming the hook.

import (
	"context"
	"fmt"
	"strconv"
	"time"

	"github.com/fairbench/fairbench/internal/driver"
	"github.com/fairbench/fairbench/internal/redact"
	"github.com/fairbench/fairbench/internal/result"
	"github.com/fairbench/fairbench/internal/study"
	"github.com/fairbench/fairbench/internal/workload"
)

// dropCachesCommand is what drop_caches runs; tests replace it, since
// writing /proc/sys/vm/drop_caches needs root.
var dropCachesCommand = study.DropCachesCommand

// dropCachesPrivilege is what a failed drop_caches says it needs.
const dropCachesPrivilege = "writing /proc/sys/vm/drop_caches needs root (CAP_SYS_ADMIN): run fairbench as root, " +
	"or drop the caches in the target's restart command through sudo"

// answerPoll is how often a restarted server is asked whether it answers.
const answerPoll = 250 * time.Millisecond

// cellHooks are one cell's commands and their records.
type cellHooks struct {
	r *Runner
	c study.Cell
	// records are the commands run for the cell, in order.
	records []result.HookRecord
	// reachedRun: the cell's setup is done and before_run has run, so
	// after_run pairs with it.
	reachedRun bool
	// coldTries: the workload makes its cold tries with cold (UseCold).
	coldTries bool
	// failed is the first command of the workload's cold tries that
	// failed: it fails the run.
	failed error
	// opened are what waiting for a restarted server opened, which the
	// workload's tries then ran on, closed when the cell ends.
	opened []func()
}

// registerCommandSecrets registers what a study's commands name as passwords, so that no
// message, record or output quotes them.
func registerCommandSecrets(st *study.Study) {
	h := st.Hooks
	for _, line := range []string{h.BeforeStudy, h.BeforeCell, h.BeforeRun, h.AfterRun} {
		for _, s := range redact.ByPlaceValues(line) {
			redact.AddSecret(s)
		}
	}
	for _, t := range st.Targets {
		for _, s := range redact.ByPlaceValues(t.Restart) {
			redact.AddSecret(s)
		}
	}
}

// hookTimeout is the study's bound on each command.
func (r *Runner) hookTimeout() time.Duration {
	if d := r.st.Hooks.Timeout; d > 0 {
		return d
	}
	return study.DefaultHookTimeout
}

// command is a command of the study for cell c (nil: before_study).
func (r *Runner) command(hook, line string, c *study.Cell) command {
	cmd := command{hook: hook, line: line, timeout: r.hookTimeout()}
	if c != nil {
		cmd.env = []string{
			"FAIRBENCH_TARGET=" + c.Target.Name,
			"FAIRBENCH_TARGET_URL=" + driver.Redacted(c.Target.URL),
			"FAIRBENCH_WORKLOAD=" + c.Workload.Name,
			"FAIRBENCH_CELL=" + strconv.Itoa(c.Index+1),
			"FAIRBENCH_REPETITION=" + strconv.Itoa(c.Repetition),
		}
	}
	return cmd
}

// say prints a command's outcome on the progress output.
func (r *Runner) say(rec result.HookRecord) {
	what := rec.Hook
	if rec.Before != "" {
		what += " before " + rec.Before
	}
	if rec.OK() {
		fmt.Fprintf(r.opt.Progress, "  %s: ok (%.1f s)\n", what, rec.Duration.Seconds())
		return
	}
	fmt.Fprintf(r.opt.Progress, "  %s: %s\n", what, rec.Error)
}

// beforeStudy runs before_study, once, and keeps its record for the next
// run stored.
func (r *Runner) beforeStudy(ctx context.Context) error {
	if r.studyHooksRan {
		return nil
	}
	r.studyHooksRan = true
	line := r.st.Hooks.BeforeStudy
	if line == "" {
		return nil
	}
	rec, err := r.command(result.HookBeforeStudy, line, nil).run(ctx)
	r.say(rec)
	r.studyRecords = append(r.studyRecords, rec)
	return err
}

// runWithHooks runs cell c between its commands and records them with its run.
func (r *Runner) runWithHooks(ctx context.Context, c study.Cell) (*result.Run, error) {
	h := &cellHooks{r: r, c: c}
	r.cellHooks = h
	defer func() {
		r.cellHooks = nil
		for _, closeIt := range h.opened {
			closeIt()
		}
	}()
	var run *result.Run
	var err error
	if err = h.run(ctx, result.HookBeforeCell, r.st.Hooks.BeforeCell, ""); err != nil {
		run = r.newRun(c)
		if c.Workload.Tool != "" {
			run.Source = c.Workload.Tool
		}
		run, err = failRun(ctx, run, err)
	} else {
		run, err = r.runCell(ctx, c)
	}
	if run == nil {
		return nil, err
	}
	if h.coldTries {
		run.Summary.ColdBy = coldBy(c.Target)
	}
	if h.failed != nil && run.Status == result.StatusOK {
		run.Status, run.Error, err = result.StatusFailed, redact.Scrub(h.failed.Error()), h.failed
	}
	if h.reachedRun && ctx.Err() == nil {
		if aerr := h.run(ctx, result.HookAfterRun, r.st.Hooks.AfterRun, ""); aerr != nil && run.Status == result.StatusOK {
			run.Status, run.Error, err = result.StatusFailed, redact.Scrub(aerr.Error()), aerr
		}
	}
	run.Hooks = append(r.studyRecords, h.records...)
	r.studyRecords = nil
	return run, err
}

// run runs one of the cell's commands ("" runs nothing).
func (h *cellHooks) run(ctx context.Context, hook, line, before string) error {
	if line == "" {
		return nil
	}
	return h.runCommand(ctx, h.r.command(hook, line, &h.c), before)
}

func (h *cellHooks) runCommand(ctx context.Context, cmd command, before string) error {
	cmd.before = before
	rec, err := cmd.run(ctx)
	h.r.say(rec)
	h.records = append(h.records, rec)
	return err
}

// beforeRun runs before_run, after the cell's setup; outside a study's cell
// (fairbench load) it does nothing.
func (r *Runner) beforeRun(ctx context.Context) error {
	h := r.cellHooks
	if h == nil {
		return nil
	}
	h.reachedRun = true
	return h.run(ctx, result.HookBeforeRun, r.st.Hooks.BeforeRun, "")
}

// coldOrRestart gives a workload with cold tries the target's way to make
// them cold; any other run gets the target restarted and its caches
// dropped once, now, before its setup. b is the cell's bound workload.
func (r *Runner) coldOrRestart(ctx context.Context, b *bound) error {
	h := r.cellHooks
	if h == nil || !h.c.Target.MakesCold() {
		return nil
	}
	if ct, ok := b.inst.(workload.ColdTrier); ok && ct.UseCold(h.cold(b.shape.ConnOptions), r.coldMost()) {
		h.coldTries = true
		if s, ok := b.inst.(workload.Shaper); ok {
			b.shape = s.Shape() // its bound now allows for the cold calls
		}
		return nil
	}
	_, err := h.makeCold(ctx, b.shape.ConnOptions, "", false)
	return err
}

// coldMost bounds one making of a cold try: the restart, the wait for the
// server after it, the cache drop, each at most the hook timeout.
func (r *Runner) coldMost() time.Duration { return 3 * r.hookTimeout() }

// restartForTool restarts a tool cell's target and drops its caches before
// the tool's setup, as for any run without cold tries.
func (r *Runner) restartForTool(ctx context.Context) error {
	h := r.cellHooks
	if h == nil || !h.c.Target.MakesCold() {
		return nil
	}
	if _, err := driver.ForURL(h.c.Target.URL); err != nil {
		// A target only the tool speaks to: nothing to wait for.
		return h.commands(ctx, "")
	}
	_, err := h.makeCold(ctx, driver.Options{}, "", false)
	return err
}

// cold is the workload.Cold of the cell: its failure fails the run.
func (h *cellHooks) cold(o driver.Options) workload.Cold {
	return func(ctx context.Context, before string) (driver.Conn, error) {
		conn, err := h.makeCold(ctx, o, before, true)
		if err != nil && h.failed == nil {
			h.failed = err
		}
		return conn, err
	}
}

// commands runs the target's restart, then its cache drop: a restart may
// itself read data back in.
func (h *cellHooks) commands(ctx context.Context, before string) error {
	t := h.c.Target
	if t.Restart != "" {
		if err := h.run(ctx, result.HookRestart, t.Restart, before); err != nil {
			return err
		}
	}
	if t.DropCaches {
		cmd := h.r.command(result.HookDropCaches, dropCachesCommand, &h.c)
		cmd.privilege = dropCachesPrivilege
		if err := h.runCommand(ctx, cmd, before); err != nil {
			return err
		}
	}
	return nil
}

// makeCold runs the target's commands and, after a restart, waits for the
// server to answer; keep returns the session that answered (the tries run
// on it), else it is closed.
func (h *cellHooks) makeCold(ctx context.Context, o driver.Options, before string, keep bool) (driver.Conn, error) {
	if err := h.commands(ctx, before); err != nil {
		return nil, err
	}
	if h.c.Target.Restart == "" {
		return nil, nil
	}
	cl, conn, err := h.r.awaitAnswer(ctx, h.c.Target, o)
	if err != nil {
		return nil, err
	}
	closeBoth := func() {
		conn.Close(context.WithoutCancel(ctx))
		cl.Close(context.WithoutCancel(ctx))
	}
	if !keep {
		closeBoth()
		return nil, nil
	}
	h.opened = append(h.opened, closeBoth)
	return conn, nil
}

// awaitAnswer waits, after a restart, for the target's server to take a
// session and answer on it (its environment, where its driver reads one),
// for at most the hook timeout.
func (r *Runner) awaitAnswer(ctx context.Context, t *study.Target, o driver.Options) (driver.Client, driver.Conn, error) {
	limit := r.hookTimeout()
	deadline := time.Now().Add(limit)
	for {
		cl, conn, err := r.answer(ctx, t, o)
		if err == nil {
			return cl, conn, nil
		}
		if ctx.Err() != nil {
			return nil, nil, ErrInterrupted
		}
		if time.Now().After(deadline) {
			return nil, nil, &targetError{Target: t.Name, URL: t.URL,
				Err: fmt.Errorf("the server did not answer within %s (hook_timeout) after its restart: %w", limit, err)}
		}
		select {
		case <-time.After(answerPoll):
		case <-ctx.Done():
			return nil, nil, ErrInterrupted
		}
	}
}

// answer opens a client and session of t and asks the server something.
func (r *Runner) answer(ctx context.Context, t *study.Target, o driver.Options) (driver.Client, driver.Conn, error) {
	cl, err := r.open(ctx, t, o)
	if err != nil {
		return nil, nil, err
	}
	conn, err := r.connect(ctx, cl, t)
	if err != nil {
		cl.Close(context.WithoutCancel(ctx))
		return nil, nil, err
	}
	if e := describer(cl, conn); e != nil {
		actx, cancel := context.WithTimeout(ctx, r.opt.ConnectTimeout)
		_, err = e.Environment(actx)
		cancel()
		if err != nil {
			conn.Close(context.WithoutCancel(ctx))
			cl.Close(context.WithoutCancel(ctx))
			return nil, nil, err
		}
	}
	return cl, conn, nil
}

// describer is what asks the server something: the session, else the
// client's own account (a ConnClient's is only a session's).
func describer(cl driver.Client, conn driver.Conn) driver.Environment {
	if e, ok := conn.(driver.Environment); ok {
		return e
	}
	if _, sessionsOnly := cl.(*driver.ConnClient); sessionsOnly {
		return nil
	}
	e, _ := cl.(driver.Environment)
	return e
}

// coldBy names what makes the target's tries cold.
func coldBy(t *study.Target) []string {
	var by []string
	if t.Restart != "" {
		by = append(by, result.HookRestart)
	}
	if t.DropCaches {
		by = append(by, result.HookDropCaches)
	}
	return by
}
