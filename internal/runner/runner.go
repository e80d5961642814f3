// Package runner executes a plan: for each cell it prepares the data, runs the
// warm-up, measures with a session per client (closed loop, or a fixed-rate
// schedule free of coordinated omission), prints per-second progress, and hands
// the finished run to a sink at once, so an interruption loses nothing that finished.
//
// The package is split by concern: runner.go is the study and the cell's
// lifecycle (bind the workload, open the target's client, prepare data,
// capture the environment, check); executor.go measures one cell on this load
// generator in phases and returns a partial run; connect.go connects (and
// reconnects) the clients; drive.go chooses how they are driven (a goroutine
// or a thread each, or event loops) and starts and stops them; schedule.go
// retries and records each client's operations, paced by closedloop.go or
// rate.go; selfending.go ends a run whose clients finished their work;
// tries.go runs a finite query set; summary.go turns ticks and totals into
// the series, op results and headline; merge.go merges partial runs exactly,
// as a coordinator of several load generators does. The runner knows no
// workload, driver or tool by name: it asks the workload and kinds
// registries, the workload's shape and hooks (read once, by bind) and the
// driver's capabilities.
package runner

import (
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/fairbench/fairbench/internal/driver"
	"github.com/fairbench/fairbench/internal/envinfo"
	"github.com/fairbench/fairbench/internal/kinds"
	"github.com/fairbench/fairbench/internal/params"
	"github.com/fairbench/fairbench/internal/progress"
	"github.com/fairbench/fairbench/internal/redact"
	"github.com/fairbench/fairbench/internal/result"
	"github.com/fairbench/fairbench/internal/study"
	"github.com/fairbench/fairbench/internal/version"
	"github.com/fairbench/fairbench/internal/workload"
)

// declared is what the study says about a target's machine (cores, CPU,
// price), recorded with every run of it, native or a tool's.
func declared(t *study.Target) result.Declared {
	return result.Declared{Cores: t.Cores, CPU: t.CPU, PricePerHour: t.PricePerHour, Notes: t.Notes}
}

// Sink receives each run the moment it ends.
type Sink interface {
	AppendRun(r *result.Run) (int64, error)
}

// pointSpiller is a Sink that takes a run's series points as its seconds
// complete (store.Store is one): with it, a measuring run keeps only the
// last few points and a fixed-size tally of the others (result.Run.Spilled)
// in memory, so its memory stays flat however long it measures. The run's
// SpillKey names what it spilled; the Sink's AppendRun puts the points
// first in its series. index is the point's index in the run's series.
type pointSpiller interface {
	SpillPoint(key string, index int, p result.SeriesPoint) error
}

// MemorySink keeps runs in memory: for tests and for programs that embed the runner.
type MemorySink struct{ Runs []*result.Run }

// AppendRun implements Sink.
func (m *MemorySink) AppendRun(r *result.Run) (int64, error) {
	m.Runs = append(m.Runs, r)
	return int64(len(m.Runs)), nil
}

// Options control a study execution.
type Options struct {
	Sink     Sink
	Progress io.Writer // per-second progress and phase messages; nil = quiet
	// Meter shows the progress of long phases (loads, index builds, a
	// measured phase without tick lines); nil shows none. When set, it
	// should also be Progress, so that messages do not break its line.
	Meter   *progress.Reporter
	Every   time.Duration // progress interval; 0 = 1 s
	Replace bool          // allow replacing data fairbench did not create
	Skip    map[string]bool
	// Check runs the workload's consistency check after each run; a failed check
	// marks the run failed.
	Check bool
	// ConnectTimeout bounds connecting to a target; 0 = 10 s.
	ConnectTimeout time.Duration
	// NoTickLines drops the per-tick progress lines (the series is still kept);
	// NoCellHeaders drops the "[i/n] target=…" line before each cell.
	NoTickLines, NoCellHeaders bool
	// PeerProgress prints each tick as the cell's kind prints its progress
	// (kinds.Info.Progress: sysbench's interim lines, YCSB's status lines)
	// where it has a printer; Printing are the ad-hoc run's printing flags.
	PeerProgress bool
	Printing     kinds.Printing
	// MaxErrorRatio and MaxDeadRatio override the study's outage thresholds
	// (nil: the study's, else DefaultMaxErrorRatio and DefaultMaxDeadRatio).
	MaxErrorRatio, MaxDeadRatio *float64
	// Distribution runs cells on several load generators (distributed.go);
	// nil: every cell runs in this process.
	Distribution *Distribution
	// Auto sizes a study with repetitions = "auto"; nil: every cell runs.
	Auto *AutoRounds
	// Watch is told each cell's start, ticks and end (watch.go); nil: no one.
	Watch Watcher
	// readLoad reads the kernel's contention counters; nil: envinfo.ReadLoad.
	// Tests set what the host's load reads as.
	readLoad func() envinfo.Load
}

// AutoRounds runs the cells of the first Pilot repetitions, then asks
// Rounds, once, how many repetitions to run in all (at most the plan's),
// and skips the cells of the repetitions past that. Every run stored
// records Pilot (Summary.PilotRounds), so that its analysis knows its
// rounds were sized from the pilot's scatter.
type AutoRounds struct {
	Pilot int
	// Rounds reads the pilot's runs from the store: a resumed study asks
	// it again and, the pilot being the same, gets the same answer.
	Rounds func() (int, error)
}

// ErrInterrupted is returned when the context was cancelled (Ctrl-C) during a study.
var ErrInterrupted = errors.New("interrupted")

// targetError is a failure that belongs to one target, printed as one line.
type targetError struct {
	Target string
	URL    string
	Err    error
}

func (e *targetError) Error() string {
	where := fmt.Sprintf("target %q (%s)", e.Target, driver.Redacted(e.URL))
	if e.Target == driver.Redacted(e.URL) {
		where = "target " + e.Target // ad-hoc targets are named by their URL
	}
	return where + ": " + redact.Scrub(e.Err.Error())
}

func (e *targetError) Unwrap() error { return e.Err }

// Runner executes cells of one study.
type Runner struct {
	st   *study.Study
	opt  Options
	envs map[string]result.Database // per target: captured environment
	// coord is the coordinator's session once a cell ran on several load
	// generators.
	coord *coordination
	// The study's commands (hooks.go): the cell running now, whether
	// before_study ran, and its record until a run takes it.
	cellHooks     *cellHooks
	studyHooksRan bool
	studyRecords  []result.HookRecord
	// loadLog serialises a load's lines (logf): a workload's loaders run
	// in parallel and may log at once.
	loadLog sync.Mutex
}

// logf is a PrepareEnv.Logf writing to the progress output, each line after
// prefix. Safe for concurrent use: parallel loaders call it.
func (r *Runner) logf(prefix string) func(format string, args ...any) {
	return func(format string, args ...any) {
		r.loadLog.Lock()
		defer r.loadLog.Unlock()
		fmt.Fprintf(r.opt.Progress, prefix+format+"\n", args...)
	}
}

// New prepares a runner for a study.
func New(st *study.Study, opt Options) *Runner {
	if opt.Every <= 0 {
		opt.Every = time.Second
	}
	if opt.ConnectTimeout <= 0 {
		opt.ConnectTimeout = 10 * time.Second
	}
	if opt.readLoad == nil {
		opt.readLoad = envinfo.ReadLoad
	}
	if opt.Progress == nil {
		opt.Progress = io.Discard
	}
	for _, t := range st.Targets {
		registerSecrets(t.URL)
	}
	registerCommandSecrets(st)
	return &Runner{st: st, opt: opt, envs: map[string]result.Database{}}
}

// registerSecrets keeps the URL's password out of every message.
func registerSecrets(raw string) {
	for _, sec := range driver.Secrets(raw) {
		redact.AddSecret(sec)
	}
}

// Preflight checks, before anything runs, that every target used by the cells has a
// driver, accepts a connection and that every workload binds its parameters.
func (r *Runner) Preflight(ctx context.Context, cells []study.Cell) error {
	seen := map[string]bool{}
	for _, c := range cells {
		if c.Workload.Tool != "" {
			if err := preflightTool(c); err != nil {
				return err
			}
			if _, err := driver.ForURL(c.Target.URL); err != nil {
				continue // a target only the tool speaks to (fio's file:///dir)
			}
		} else if _, err := bind(c); err != nil {
			return fmt.Errorf("workload %q: %w", c.Workload.Name, err)
		}
		if seen[c.Target.Name] {
			continue
		}
		seen[c.Target.Name] = true
		cl, err := r.open(ctx, c.Target, driver.Options{})
		if err != nil {
			return err
		}
		conn, err := r.connect(ctx, cl, c.Target)
		if err != nil {
			cl.Close(ctx)
			return err
		}
		var env result.Database
		if e := environment(cl, conn); e != nil {
			if got, err := e.Environment(ctx); err == nil {
				env = got.WithEngineFacts()
			} else {
				env.Extra = map[string]any{"error": redact.Scrub(err.Error())}
			}
		}
		r.envs[c.Target.Name] = env
		conn.Close(ctx)
		cl.Close(ctx)
	}
	return nil
}

// environment is what describes the target's server: the client, or else the session.
func environment(cl driver.Client, conn driver.Conn) driver.Environment {
	if e, ok := cl.(driver.Environment); ok {
		return e
	}
	e, _ := conn.(driver.Environment)
	return e
}

// open opens the target's client, which a cell's sessions share.
func (r *Runner) open(ctx context.Context, t *study.Target, o driver.Options) (driver.Client, error) {
	d, err := driver.ForURL(t.URL)
	if err != nil {
		return nil, &targetError{Target: t.Name, URL: t.URL, Err: err}
	}
	cctx, cancel := context.WithTimeout(ctx, r.opt.ConnectTimeout)
	defer cancel()
	cl, err := d.Open(cctx, driver.Target{Name: t.Name, URL: t.URL}, o)
	if err != nil {
		if ctx.Err() != nil {
			return nil, ErrInterrupted
		}
		return nil, &targetError{Target: t.Name, URL: t.URL, Err: err}
	}
	return cl, nil
}

// connect takes a session of the target's client.
func (r *Runner) connect(ctx context.Context, cl driver.Client, t *study.Target) (driver.Conn, error) {
	cctx, cancel := context.WithTimeout(ctx, r.opt.ConnectTimeout)
	defer cancel()
	conn, err := cl.Session(cctx)
	if err != nil {
		if ctx.Err() != nil {
			return nil, ErrInterrupted
		}
		return nil, &targetError{Target: t.Name, URL: t.URL, Err: err}
	}
	return conn, nil
}

// bound is a cell's workload instance with what it declares about its runs
// (workload.Shape) and the hooks it has around them (workload.Hooks).
type bound struct {
	inst  workload.Instance
	shape workload.Shape
	hooks workload.Hooks
}

// bind binds the cell's workload to its parameters and reads its shape and
// hooks, once: the one place the runner asks an instance for an optional
// interface (workload.NewWorker asks for workload.SlotWorkers), and where
// an invalid shape is refused.
func bind(c study.Cell) (bound, error) {
	w, err := workload.Get(c.Workload.Kind)
	if err != nil {
		return bound{}, err
	}
	inst, err := w.New(c.Params)
	if err != nil {
		return bound{}, err
	}
	b := bound{inst: inst}
	if s, ok := inst.(workload.Shaper); ok {
		b.shape = s.Shape()
		if err := b.shape.Validate(); err != nil {
			return bound{}, fmt.Errorf("workload %s: %w", c.Workload.Kind, err)
		}
	}
	if h, ok := inst.(workload.Hooker); ok {
		b.hooks = h.Hooks()
	}
	return b, nil
}

// autoRounds asks Options.Auto how many repetitions to run, capped at the
// plan's, and says so; on an error, all of the plan's run.
func (r *Runner) autoRounds(cells []study.Cell) int {
	most := 0
	for _, c := range cells {
		most = max(most, c.Repetition)
	}
	n, err := r.opt.Auto.Rounds()
	if err != nil {
		fmt.Fprintf(r.opt.Progress, "repetitions auto: %s; running all %d rounds\n", redact.Scrub(err.Error()), most)
		return most
	}
	n = min(max(n, r.opt.Auto.Pilot), most)
	switch {
	case n == most-1:
		fmt.Fprintf(r.opt.Progress, "repetitions auto: the pilot's scatter asks for %d rounds of %d; skipping round %d\n", n, most, most)
	case n < most:
		fmt.Fprintf(r.opt.Progress, "repetitions auto: the pilot's scatter asks for %d rounds of %d; skipping rounds %d–%d\n", n, most, n+1, most)
	default:
		fmt.Fprintf(r.opt.Progress, "repetitions auto: the pilot's scatter asks for all %d rounds\n", most)
	}
	return n
}

// Run executes the cells in order, skipping those in Options.Skip. It stops at the
// first interruption and returns ErrInterrupted; a cell that fails is stored as a
// failed run and the study goes on.
func (r *Runner) Run(ctx context.Context, cells []study.Cell) error {
	defer func() {
		if err := r.endSession(ctx); err != nil {
			fmt.Fprintf(r.opt.Progress, "%s\n", redact.Scrub(err.Error()))
		}
	}()
	var failed []string
	flagged := map[string]int{} // flag kind → runs
	stored := 0
	rounds := 0 // repetitions to run in all, once the pilot is done
	for i, c := range cells {
		if a := r.opt.Auto; a != nil && c.Repetition > a.Pilot {
			if rounds == 0 {
				rounds = r.autoRounds(cells)
			}
			if c.Repetition > rounds {
				r.watchSkipped(i)
				continue
			}
		}
		if r.opt.Skip[c.Key()] {
			fmt.Fprintf(r.opt.Progress, "[%d/%d] %s: already done, skipped (--resume)\n", i+1, len(cells), cellLabel(c))
			r.watchSkipped(i)
			continue
		}
		if err := r.beforeStudy(ctx); err != nil {
			if errors.Is(err, ErrInterrupted) {
				return err
			}
			return fmt.Errorf("no cell ran: %w", err)
		}
		if w := r.opt.Watch; w != nil {
			w.CellStarted(i, c)
		}
		if !r.opt.NoCellHeaders {
			fmt.Fprintf(r.opt.Progress, "[%d/%d] %s\n", i+1, len(cells), cellLabel(c))
		}
		run, err := r.runWithHooks(ctx, c) // hooks.go
		if run != nil {
			if r.opt.Auto != nil {
				run.Summary.PilotRounds = r.opt.Auto.Pilot
			}
			if _, serr := r.opt.Sink.AppendRun(run); serr != nil {
				return fmt.Errorf("storing run of cell %d: %w", c.Index, serr)
			}
			r.stored(run)
			stored++
			kinds := map[string]bool{}
			for _, f := range run.Summary.Flags {
				kinds[f.Kind] = true
			}
			for k := range kinds {
				flagged[k]++
			}
		}
		if w := r.opt.Watch; w != nil {
			w.CellEnded(i, run, err)
		}
		if errors.Is(err, ErrInterrupted) {
			if run != nil && run.Error != "" {
				fmt.Fprintf(r.opt.Progress, "  %s\n", run.Error)
			}
			return ErrInterrupted
		}
		if err != nil {
			why := redact.Scrub(err.Error())
			fmt.Fprintf(r.opt.Progress, "  failed: %s\n", why)
			// Why, not only which: the last line is often all a log keeps.
			failed = append(failed, fmt.Sprintf("cell %d (%s): %s", i+1, cellLabel(c), result.CapText(why, 240)))
		}
		if cd := c.Cooldown; cd > 0 && i < len(cells)-1 {
			select {
			case <-time.After(cd):
			case <-ctx.Done():
				return ErrInterrupted
			}
		}
	}
	if len(flagged) > 0 && len(cells) > 1 {
		kinds := slices.Sorted(maps.Keys(flagged))
		parts := make([]string, len(kinds))
		for i, k := range kinds {
			parts[i] = fmt.Sprintf("%d %s", flagged[k], k)
		}
		fmt.Fprintf(r.opt.Progress, "flagged: %s, of the %d runs stored (stored as ok: their numbers may describe this host rather than the target; the report's methodology warnings say why)\n",
			strings.Join(parts, ", "), stored)
	}
	if len(failed) > 0 {
		return fmt.Errorf("%d of %d cells failed: %s", len(failed), len(cells), strings.Join(failed, "; "))
	}
	return nil
}

func (r *Runner) watchSkipped(i int) {
	if w := r.opt.Watch; w != nil {
		w.CellSkipped(i)
	}
}

func cellLabel(c study.Cell) string {
	return fmt.Sprintf("%s rep=%d", ScenarioLabel(c), c.Repetition)
}

// ScenarioLabel names what a cell measures, whatever its repetition: its
// target, workload, the parameters the study set and its clients.
func ScenarioLabel(c study.Cell) string {
	return fmt.Sprintf("target=%s workload=%s %s clients=%d", c.Target.Name, c.Workload.Name, varyingParams(c), c.Clients)
}

// varyingParams shows the parameters the user set for the workload.
func varyingParams(c study.Cell) string {
	keys := make([]string, 0, len(c.Workload.Params))
	for k := range c.Workload.Params {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	parts := make([]string, 0, len(keys))
	for _, k := range keys {
		parts = append(parts, k+"="+params.Format(c.Params[k]))
	}
	return strings.Join(parts, " ")
}

// runCell executes one cell and returns its run (nil only if nothing was attempted).
func (r *Runner) runCell(ctx context.Context, c study.Cell) (*result.Run, error) {
	if c.Workload.Tool != "" {
		return r.runExternal(ctx, c) // external.go
	}
	if n := r.generatorsOf(c); n > 1 {
		return r.runOnGenerators(ctx, c, n) // distributed.go
	}
	run := r.newRun(c)
	cs, err := r.setupCell(ctx, c, run, false)
	if err != nil {
		return failRun(ctx, run, err)
	}
	defer cs.close(ctx)
	if err := r.beforeRun(ctx); err != nil {
		return failRun(ctx, run, err)
	}
	m := &executor{
		r: r, cell: cs.c, bound: cs.bound, run: run, out: r.opt.Progress, client: cs.client, admin: cs.admin,
	}
	// Only a run that goes to the Sink whole spills: a load generator's
	// partial run is published with its histograms, for the merge.
	m.spill, _ = r.opt.Sink.(pointSpiller)
	err = m.execute(ctx)
	if err != nil && run.Status == "" {
		return failRun(ctx, run, err)
	}
	return r.finishRun(ctx, cs, run, err)
}

// newRun is the record of cell c before anything ran.
func (r *Runner) newRun(c study.Cell) *result.Run {
	return &result.Run{
		Source: "fairbench", StudyName: r.st.Name, StudyHash: r.st.Hash,
		CellKey: c.Key(), CellIndex: c.Index,
		Target: c.Target.Name, TargetURL: driver.Redacted(c.Target.URL),
		Workload: c.Workload.Name, Kind: c.Workload.Kind,
		Params: c.Params.JSONable(), Clients: c.Clients, ClientLevel: c.Level, Repetition: c.Repetition,
		Warmup: c.Warmup, ToolVersion: version.String(),
		StartedAt: time.Now(),
	}
}

// failRun marks run failed by err, or interrupted when the context was
// cancelled, and returns it with the error RunCell returns.
func failRun(ctx context.Context, run *result.Run, err error) (*result.Run, error) {
	if errors.Is(err, ErrInterrupted) || ctx.Err() != nil {
		run.Status = result.StatusInterrupted
		run.Error = "interrupted before the measured phase: nothing was measured"
		run.EndedAt = time.Now()
		return run, ErrInterrupted
	}
	run.Status = result.StatusFailed
	run.Error = redact.Scrub(err.Error())
	run.EndedAt = time.Now()
	return run, err
}

// cellSetup is a cell made ready to measure: its workload bound and its data
// prepared, its target's client and fairbench's own session open.
type cellSetup struct {
	c study.Cell // with the workload's own duration where it sets one
	bound
	client driver.Client
	admin  driver.Conn
}

func (cs *cellSetup) close(ctx context.Context) {
	if cs.admin != nil {
		cs.admin.Close(context.WithoutCancel(ctx))
	}
	if cs.client != nil {
		cs.client.Close(context.WithoutCancel(ctx))
	}
}

// setupCell binds the cell's workload, opens its target, prepares the data
// and fills run's environment. A load generator of several (generator) finds
// the data its coordinator prepared: the workload's Prepare verifies it and
// learns what its workers need, and nothing runs before the run
// (its BeforeRun hook), which is the coordinator's to do once.
func (r *Runner) setupCell(ctx context.Context, c study.Cell, run *result.Run, generator bool) (cs *cellSetup, err error) {
	cs = &cellSetup{c: c}
	defer func() {
		if err != nil {
			cs.close(ctx)
		}
	}()
	if cs.bound, err = bind(c); err != nil {
		return cs, err
	}
	if !generator {
		if err = r.coldOrRestart(ctx, &cs.bound); err != nil { // hooks.go
			return cs, err
		}
	}
	switch cs.shape.End.Kind() {
	case workload.EndTries:
		triesCell(&cs.c, run, cs.shape.End) // tries.go
	case workload.EndSelf, workload.EndPerClient:
		cs.c.Duration = cs.shape.End.Bound() // selfending.go
	}
	if cs.client, err = r.open(ctx, c.Target, cs.shape.ConnOptions); err != nil {
		return cs, err
	}
	if cs.admin, err = r.connect(ctx, cs.client, c.Target); err != nil {
		return cs, err
	}
	err = cs.inst.Prepare(ctx, workload.PrepareEnv{
		Conn:     cs.admin,
		Open:     func(ctx context.Context) (driver.Conn, error) { return r.connect(ctx, cs.client, c.Target) },
		Replace:  r.opt.Replace,
		Paced:    c.Workload.Rate > 0,
		Logf:     r.logf("  "),
		Progress: r.opt.Meter,
	})
	if err != nil {
		return cs, &targetError{Target: c.Target.Name, URL: c.Target.URL, Err: fmt.Errorf("preparing %s: %w", c.Workload.Kind, err)}
	}
	if cs.hooks.BeforeRun != nil && !generator {
		if err := cs.hooks.BeforeRun(ctx, cs.admin); err != nil {
			return cs, err
		}
	}
	var env result.Environment // the executor adds its load generator's host and client
	if dbEnv, ok := r.envs[c.Target.Name]; ok {
		env.Database = dbEnv
	} else if e := environment(cs.client, cs.admin); e != nil {
		if got, err := e.Environment(ctx); err == nil {
			r.envs[c.Target.Name] = got.WithEngineFacts()
			env.Database = r.envs[c.Target.Name]
		}
	}
	env.Declared = declared(c.Target)
	same := driver.Local(c.Target.URL)
	env.SameHost = &same
	if driver.EngineInProcess(c.Target.URL) {
		inProcess := true
		env.InProcess = &inProcess
	}
	run.Env = env
	var facts [][2]string
	if cs.hooks.Describe != nil {
		facts, run.Deviations = cs.hooks.Describe(cs.admin)
	}
	if len(facts) > 0 {
		f := map[string]any{}
		for _, kv := range facts {
			f[kv[0]] = kv[1]
		}
		run.Env.Set("workload", f)
	}
	return cs, nil
}

// finishRun judges a measured run: the outage line, the outage limits, the
// flags of a run that stands, and the workload's consistency check.
func (r *Runner) finishRun(ctx context.Context, cs *cellSetup, run *result.Run, err error) (*result.Run, error) {
	if line := OutageText(run); line != "" {
		fmt.Fprintf(r.opt.Progress, "  outage: %s\n", line)
	}
	if run.Status == result.StatusOK {
		if why := r.limits().judge(run); why != "" {
			if s := run.Summary; cs.shape.Waits && s.Transactions+s.Failed == 0 {
				why += " (its clients wait outside their requests: keying or think times, \\sleep; measure longer than those waits)"
			}
			run.Status = result.StatusFailed
			run.Error = result.CapText(why, 4*result.MaxErrorText)
			return run, errors.New(run.Error)
		}
		run.Summary.Flags = flags(run, cs.c.Duration)
		if len(run.Summary.Flags) > 0 {
			fmt.Fprintf(r.opt.Progress, "  flagged: %s\n", result.FlagsText(run.Summary.Flags))
		}
	}
	if (r.opt.Check || cs.hooks.AlwaysCheck) && run.Status == result.StatusOK {
		switch {
		case cs.hooks.Check != nil:
			if cerr := cs.hooks.Check(context.WithoutCancel(ctx), cs.admin); cerr != nil {
				run.Status = result.StatusFailed
				run.Error = "consistency check failed: " + cerr.Error()
				return run, errors.New(run.Error)
			}
			run.Summary.Verified = true
			if r.opt.Check {
				fmt.Fprintf(r.opt.Progress, "  consistency check passed\n")
			}
		case r.opt.Check:
			fmt.Fprintf(r.opt.Progress, "  --check: workload %s has no consistency check\n", cs.c.Workload.Kind)
		}
	}
	return run, err
}

// Prepare loads (or verifies) the data of one cell without running it: `fairbench load`.
func (r *Runner) Prepare(ctx context.Context, c study.Cell) error { return r.prepare(ctx, c, true) }

// prepare readies a cell's data; load says the user asked for the data
// itself (PrepareEnv.Load), not a run (a tool cell's).
func (r *Runner) prepare(ctx context.Context, c study.Cell, load bool) error {
	return r.withSession(ctx, c, func(b bound, client driver.Client, conn driver.Conn) error {
		err := b.inst.Prepare(ctx, workload.PrepareEnv{
			Load:     load,
			Conn:     conn,
			Open:     func(ctx context.Context) (driver.Conn, error) { return r.connect(ctx, client, c.Target) },
			Replace:  r.opt.Replace,
			Logf:     r.logf(""),
			Progress: r.opt.Meter,
		})
		// fairbench load --check: the data as loaded must pass the workload's own check.
		if b.hooks.Check != nil && err == nil && load && r.opt.Check {
			if err = b.hooks.Check(ctx, conn); err != nil {
				return fmt.Errorf("consistency check after the load failed: %w", err)
			}
			fmt.Fprintf(r.opt.Progress, "consistency check passed\n")
		}
		return err
	})
}

// Clean deletes the data of one cell's workload from its target, only what
// the workload's own marker says fairbench created (its Cleanup hook):
// `fairbench load --clean`.
func (r *Runner) Clean(ctx context.Context, c study.Cell) error {
	return r.withSession(ctx, c, func(b bound, _ driver.Client, conn driver.Conn) error {
		if b.hooks.Cleanup == nil {
			return fmt.Errorf("workload %s keeps no data of its own to clean up", c.Workload.Kind)
		}
		return b.hooks.Cleanup(ctx, conn)
	})
}

// withSession binds the cell's workload, opens its target's client and one
// session with the workload's connection options, and runs f on them; f's
// error is the target's.
func (r *Runner) withSession(ctx context.Context, c study.Cell, f func(bound, driver.Client, driver.Conn) error) error {
	b, err := bind(c)
	if err != nil {
		return err
	}
	client, err := r.open(ctx, c.Target, b.shape.ConnOptions)
	if err != nil {
		return err
	}
	defer client.Close(context.WithoutCancel(ctx))
	conn, err := r.connect(ctx, client, c.Target)
	if err != nil {
		return err
	}
	defer conn.Close(context.WithoutCancel(ctx))
	if err := f(b, client, conn); err != nil {
		return &targetError{Target: c.Target.Name, URL: c.Target.URL, Err: err}
	}
	return nil
}

// Environments returns the database facts Preflight captured, per target name.
func (r *Runner) Environments() map[string]result.Database { return r.envs }
