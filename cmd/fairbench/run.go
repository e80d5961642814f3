package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/fairbench/fairbench/internal/analysis"
	"github.com/fairbench/fairbench/internal/driver"
	"github.com/fairbench/fairbench/internal/escape"
	"github.com/fairbench/fairbench/internal/kinds"
	"github.com/fairbench/fairbench/internal/numfmt"
	"github.com/fairbench/fairbench/internal/progress"
	"github.com/fairbench/fairbench/internal/redact"
	"github.com/fairbench/fairbench/internal/report"
	"github.com/fairbench/fairbench/internal/result"
	"github.com/fairbench/fairbench/internal/runner"
	"github.com/fairbench/fairbench/internal/store"
	"github.com/fairbench/fairbench/internal/study"
	"github.com/fairbench/fairbench/internal/workload"
)

const defaultResults = "fairbench.db"

// quietUsage is --quiet's help, the same on every command that takes it.
const quietUsage = "print no progress and no phase messages on stderr (the summary and errors still print)"

// runOptions are the flags of one `fairbench run` command line:
// defineRunFlags binds a fresh one to each flag set it defines (the flags
// are defined again for the workload the arguments name).
type runOptions struct {
	results                string
	resume, replace, check bool
	asJSON, quiet          bool
	a                      adhoc
	maxErr, maxDead        float64
	gens, asGenerator      int
	remoteGens             bool
	session                int64
	staleAfter             time.Duration
	serve                  serveOptions
}

func newRun() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "run [study.toml]",
		Short: "Run a study file, or one ad-hoc benchmark with its peer tool's flags",
		Long: `Run a study file: every cell (target × workload × parameters × clients × repetition)
in plan order, each run stored the moment it ends.

Or run one benchmark ad hoc, with the flags of the workload's peer tool, named and
meaning what they mean there; 'fairbench run --workload KIND --help' lists them:
  fairbench run --target postgres://bench@127.0.0.1/bench --workload KIND [flags]
Workloads: ` + strings.Join(workload.Kinds(), ", ") + ` (default ` + workload.Default() + `).`,
	}
	withWorkloadFlags(cmd, serveAddressArgs(cobra.MaximumNArgs(1)), defineRunFlags, runCommand)
	cmd.ValidArgsFunction = completeWorkloadArgs([]cobra.Completion{"toml"}, cobra.ShellCompDirectiveFilterFileExt) // a study file
	return cmd
}

// defineRunFlags defines run's flags, and those of workload kind, on f.
func defineRunFlags(f *pflag.FlagSet, kind string) (*runOptions, error) {
	o := &runOptions{}
	f.BoolVarP(&o.quiet, "quiet", "q", false, quietUsage)
	f.StringVar(&o.results, "results", defaultResults, "results file (SQLite), or a postgres:// URL of a shared results store")
	f.BoolVar(&o.resume, "resume", false, "skip cells of this study that already finished in the results file")
	f.BoolVar(&o.replace, "replace", false, "allow dropping and reloading workload tables that fairbench did not create (e.g. tables a peer tool loaded at another scale)")
	f.BoolVar(&o.check, "check", false, "run the workload's consistency check after each run")
	f.BoolVar(&o.asJSON, "json", false, "ad hoc: print the run's summary as one JSON document on standard output (the text summary goes to standard error)")
	f.IntVar(&o.gens, "generators", 0, "measure every cell with this many load generators, each with its share of the clients (default: the study's generators, else 1)")
	f.BoolVar(&o.remoteGens, "remote-generators", false, "the load generators start elsewhere ('fairbench generator', e.g. pods of 'fairbench k8s render') and register in the results store; without it they are started here as local processes")
	f.IntVar(&o.asGenerator, "as-generator", -1, "be load generator N of the coordinator's --session (the coordinator starts local generators so)")
	f.Int64Var(&o.session, "session", 0, "with --as-generator: the coordinator's session")
	f.DurationVar(&o.staleAfter, "generator-stale", 15*time.Second, "a load generator without a heartbeat for this long fails its cell")
	_ = f.MarkHidden("generator-stale")
	_ = f.MarkHidden("as-generator")
	_ = f.MarkHidden("session")
	f.Float64Var(&o.maxErr, "max-error-ratio", runner.DefaultMaxErrorRatio, "a run whose share of failed operations exceeds this is stored as failed and the command exits 1 (overrides the study's max_error_ratio)")
	f.Float64Var(&o.maxDead, "max-dead-ratio", runner.DefaultMaxDeadRatio, "a run with no completed operation in more than this share of its measured seconds (seconds without an error that its host held up aside) is stored as failed and the command exits 1 (overrides the study's max_dead_ratio)")
	f.StringVar(&o.a.target, "target", "", "ad hoc: target URL (postgres://…, mysql://…, sqlite:FILE)")
	f.StringVar(&o.a.workload, "workload", workload.Default(), "ad hoc: workload kind ("+strings.Join(workload.Kinds(), ", ")+"); the flags below are this workload's")
	f.StringVar(&o.a.warmup, "warmup", "0s", "ad hoc: warm-up before measuring, excluded from every number")
	f.StringArrayVar(&o.a.set, "set", nil, "ad hoc: any workload parameter as key=value (repeatable)")
	defineServeFlags(f, &o.serve)
	return o, o.a.defineWorkloadFlags(f, kind, true)
}

// runCommand runs what a parsed `fairbench run` command line asks for: the
// peer tool's prepare or cleanup, a load generator's share, a study file
// or an ad-hoc cell.
func runCommand(cmd *cobra.Command, o *runOptions, args []string, action workload.Action) error {
	if err := o.a.resolveTarget(); err != nil {
		return fmt.Errorf("run: %v", err)
	}
	if action == workload.ActionLoad || action == workload.ActionClean {
		// The peer tool's prepare or cleanup: what 'fairbench load' does.
		if len(args) > 0 {
			return fmt.Errorf("run: %s takes --target, not a study file (%s)", action, args[0])
		}
		return loadData(cmd, &o.a, o.replace, action == workload.ActionClean, o.check, o.quiet)
	}
	if o.asJSON && len(args) == 1 {
		return errors.New("--json prints the run of an ad-hoc benchmark (--target URL --workload KIND); for a study's runs use 'fairbench report --format json'")
	}
	if len(args) == 1 && o.a.target != "" && len(commandLineOf(o.a.workload).Words) > 0 {
		return unexpectedWords(cmd, o.a.workload, args, fmt.Errorf("%q is not a study file to run with --target", args[0]))
	}
	st, c, adHoc, err := studyFor(args, &o.a, cmd.Flags())
	if err != nil {
		return err
	}
	for format := range c.outputs {
		if _, ok := kinds.RunFormat(o.a.workload, format); !ok {
			return fmt.Errorf("workload %s declares an output in format %q, which its kind cannot write", o.a.workload, format)
		}
	}
	if o.asGenerator >= 0 {
		return runGenerator(cmd.Context(), st, o.results, o.asGenerator, o.session, time.Minute)
	}
	if o.gens < 0 {
		return fmt.Errorf("--generators %d: give 1 or more", o.gens)
	}
	x, err := o.execution(cmd.Flags())
	if err != nil {
		return err
	}
	if adHoc {
		x.adHoc, x.json = &c, o.asJSON
	}
	_, err = x.run(cmd.Context(), st)
	return err
}

// execution is how o runs a study; the outage thresholds given (in fs)
// override the study's, each a share between 0 and 1.
func (o *runOptions) execution(fs *pflag.FlagSet) (execution, error) {
	if err := o.serve.check(); err != nil {
		return execution{}, err
	}
	x := execution{results: o.results, resume: o.resume, replace: o.replace, check: o.check, quiet: o.quiet,
		generators: o.gens, remoteGenerators: o.remoteGens, staleAfter: o.staleAfter, serve: o.serve}
	for _, ratio := range []struct {
		flag  string
		value *float64
		into  **float64
	}{{"max-error-ratio", &o.maxErr, &x.maxErrorRatio}, {"max-dead-ratio", &o.maxDead, &x.maxDeadRatio}} {
		if !fs.Changed(ratio.flag) {
			continue
		}
		if v := *ratio.value; !(v >= 0 && v <= 1) {
			return execution{}, fmt.Errorf("--%s %v: give a share between 0 and 1", ratio.flag, v)
		}
		*ratio.into = ratio.value
	}
	return x, nil
}

// execution runs a study and stores its runs: shared by run and demo.
type execution struct {
	results                string
	resume, replace, check bool
	quiet                  bool // no progress and no phase messages
	// adHoc is how the run of an ad-hoc cell is shown; nil for a study's.
	adHoc *cell
	json  bool // ad hoc: the summary as JSON on stdout, the text on stderr
	// outage thresholds from the flags; nil: the study's or the defaults
	maxErrorRatio, maxDeadRatio *float64
	// generators overrides the study's load generators per cell (0: the
	// study's); remoteGenerators: they register from elsewhere instead of
	// being started here.
	generators       int
	remoteGenerators bool
	staleAfter       time.Duration
	// deviations are recorded on every run, after the runner's own: how a
	// reproduction differs from the study it reproduces.
	deviations []string
	// noTable leaves out the study's table after its runs (reproduce
	// prints its own account instead).
	noTable bool
	serve   serveOptions // run --serve: the live page
}

// run runs st's cells, storing each run, then prints what ran and says
// where the runs are stored.
func (x execution) run(ctx context.Context, st *study.Study) ([]*result.Run, error) {
	cells, err := st.Plan(runner.Catalog{})
	if err != nil {
		return nil, err
	}
	s, err := store.Open(x.results)
	if err != nil {
		return nil, err
	}
	defer s.Close()
	removeOrphanedSpill(s)
	skip, err := x.recordStudy(s, st)
	if err != nil {
		return nil, err
	}
	sink := newCollectingSink(s, st)
	sink.deviations = x.deviations
	opt, local, err := x.options(s, st, cells, skip, sink)
	if err != nil {
		return nil, err
	}
	if local != nil {
		defer local.wait(30 * time.Second)
	}
	view, err := startLive(x.serve, s, st, cells)
	if err != nil {
		return nil, err
	}
	if view != nil {
		opt.Watch = view.board
	}
	r := runner.New(st, opt)
	if err := x.checkBeforeRun(ctx, r, cells, skip); err != nil {
		view.finish(ctx, s, st, nil, err)
		return nil, err
	}
	runErr := r.Run(ctx, cells)
	defer func() { view.finish(ctx, s, st, sink.runs, runErr) }()
	if x.adHoc != nil && len(sink.runs) == 1 {
		writeErr, err := x.printAdHoc(sink)
		if err != nil {
			return sink.runs, err
		}
		if runErr == nil {
			runErr = writeErr
		}
	}
	if x.adHoc == nil && !x.noTable && len(sink.runs) > 0 && !errors.Is(runErr, runner.ErrInterrupted) {
		if err := printStudyTable(s, st.Hash); err != nil {
			return sink.runs, err
		}
		printStudyNotes(escape.NewWriter(os.Stdout, escape.TerminalText), sink.runs)
	}
	return sink.runs, sink.sayStored(runErr)
}

// recordStudy saves a study file's study in s and returns the cells to
// skip: with --resume those already finished; without, it says how many
// there are. An ad-hoc study (no hash) is not saved and skips nothing.
func (x execution) recordStudy(s *store.Store, st *study.Study) (map[string]bool, error) {
	if st.Hash == "" {
		return nil, nil
	}
	if err := s.SaveStudy(st.Hash, st.Name, st.File, st.Source); err != nil {
		return nil, err
	}
	done, err := s.CompletedCells(st.Hash)
	if err != nil {
		return nil, err
	}
	if x.resume {
		return done, nil
	}
	if len(done) > 0 {
		fmt.Fprintf(os.Stderr, "note: %d cells of this study are already in %s; new runs are added (use --resume to skip them)\n", len(done), s.Path())
	}
	return nil, nil
}

// options are the runner's options for st's cells: progress on stderr (an
// ad-hoc cell's like its peer tool's), the sink, automatic repetitions and
// the load generators; local are those this process starts, to wait for.
func (x execution) options(s *store.Store, st *study.Study, cells []study.Cell, skip map[string]bool, sink *collectingSink) (runner.Options, *localGenerators, error) {
	meter := progress.ForFile(os.Stderr, x.quiet)
	opt := runner.Options{Progress: meter, Meter: meter, Every: time.Second, Replace: x.replace, Skip: skip, Check: x.check,
		MaxErrorRatio: x.maxErrorRatio, MaxDeadRatio: x.maxDeadRatio, Sink: sink}
	if x.adHoc != nil {
		// Like pgbench: per-second lines only with -P, and no cell headers for one cell.
		opt.NoCellHeaders, opt.PeerProgress, opt.Printing = true, true, x.adHoc.printing
		if x.adHoc.progress > 0 {
			opt.Every = time.Duration(x.adHoc.progress) * time.Second
		} else {
			opt.NoTickLines = true
		}
	}
	if st.AutoRepetitions {
		opt.Auto = autoRounds(s, st)
	}
	local, err := x.distribute(&opt, s, cells)
	return opt, local, err
}

// distribute gives opt the load generators of cells that run on several;
// local are those this process starts (nil: none, or they are remote).
func (x execution) distribute(opt *runner.Options, s *store.Store, cells []study.Cell) (*localGenerators, error) {
	if !distributed(cells, x.generators) {
		return nil, nil
	}
	opt.Distribution = &runner.Distribution{Store: s, Generators: x.generators, StaleAfter: x.staleAfter}
	if x.remoteGenerators {
		if !store.IsURL(x.results) {
			return nil, fmt.Errorf("--remote-generators: load generators on other machines share the results store: give --results postgres://… (%s is a file of this machine)", x.results)
		}
		return nil, nil
	}
	local := &localGenerators{}
	opt.Distribution.Spawn = local.spawn
	return local, nil
}

// checkBeforeRun refuses cells this machine or their targets cannot run:
// client counts against the open-file limit before anything connects, the
// memory they need, the targets (Preflight), and client counts against the
// servers' limits once Preflight has reached them.
func (x execution) checkBeforeRun(ctx context.Context, r *runner.Runner, cells []study.Cell, skip map[string]bool) error {
	if err := checkClientLimits(cells, skip, false, func(t driver.Target, n int) error { return driver.CheckOpenFiles(t, n) }); err != nil {
		return err
	}
	if err := runner.CheckMemory(cells, skip, x.remoteGenerators); err != nil {
		return err
	}
	if err := r.Preflight(ctx, cells); err != nil {
		return err
	}
	return checkClientLimits(cells, skip, true, func(t driver.Target, n int) error { return driver.CheckConnections(ctx, t, n) })
}

// printAdHoc prints the one run of an ad-hoc cell as its kind's peer tool
// would, on stdout (on stderr with --json, whose document goes to stdout),
// and writes it to the files its output flags named. writeErr is the error
// writing those files; err one that leaves the run unshown.
func (x execution) printAdHoc(sink *collectingSink) (writeErr, err error) {
	// The summary quotes the target's URL and the server's error texts.
	text := io.Writer(escape.NewWriter(os.Stdout, escape.TerminalText))
	if x.json {
		text = escape.NewWriter(os.Stderr, escape.TerminalText)
	}
	run, err := sink.whole(sink.runs[0])
	if err != nil {
		return nil, err
	}
	switch {
	case run.Status == result.StatusInterrupted && len(run.Ops) == 0:
		// Stopped before the measured phase: no numbers at all, rather
		// than numbers over no time.
		fmt.Fprintln(text, run.Error) // says that nothing was measured
	case run.Status != result.StatusFailed || len(run.Ops) > 0:
		printSummary(text, run, x.adHoc.maxTries, x.adHoc.printing)
		writeErr = writeOutputs(shownRun(run, x.adHoc.maxTries, x.adHoc.printing), x.adHoc.outputs)
	}
	if x.json {
		if err := report.RunJSON(os.Stdout, run, sink.results); err != nil {
			return writeErr, err
		}
	}
	return writeErr, nil
}

// studyFor loads the study file or builds a one-cell study from ad-hoc flags.
func studyFor(args []string, a *adhoc, fs *pflag.FlagSet) (*study.Study, cell, bool, error) {
	if len(args) == 1 {
		if a.target != "" {
			return nil, cell{}, false, errors.New("give either a study file or --target, not both")
		}
		st, err := study.Load(args[0], runner.Catalog{})
		return st, cell{}, false, err
	}
	if a.target == "" {
		return nil, cell{}, false, errors.New("nothing to run: give a study file (fairbench run study.toml) or --target URL --workload KIND")
	}
	st, c, err := adhocStudy(a, fs)
	return st, c, true, err
}

// printSummary prints an ad-hoc run's summary in its kind's peer-tool shape,
// or a generic one when the kind has no printer.
func printSummary(w io.Writer, r *result.Run, maxTries int, printing kinds.Printing) {
	defer printOutcome(w, r)
	if f, ok := kinds.Summary(r.Kind); ok {
		f(w, shownRun(r, maxTries, printing))
		return
	}
	s := r.Summary
	fmt.Fprintf(w, "workload: %s (%s)\n", r.Workload, r.Kind)
	fmt.Fprintf(w, "clients: %d\n", r.Clients)
	fmt.Fprintf(w, "duration: %.0f s\n", r.Duration.Seconds())
	fmt.Fprintf(w, "operations: %d\n", s.Transactions)
	fmt.Fprintf(w, "failed: %d\n", s.Failed)
	fmt.Fprintf(w, "throughput: %f per second\n", s.Throughput)
	fmt.Fprintf(w, "latency average = %.3f ms, p50 = %.3f ms, p95 = %.3f ms, p99 = %.3f ms, max = %.3f ms\n",
		s.LatencyMean/1000, s.P50/1000, s.P95/1000, s.P99/1000, s.Max/1000)
}

// shownRun is the copy of an ad-hoc run its kind's printers and output
// formats get: the run record keeps neither its cell's max tries nor the
// printing flags, so they travel in the copy's Env.
func shownRun(r *result.Run, maxTries int, printing kinds.Printing) *result.Run {
	shown := *r
	shown.Env.Extra = maps.Clone(r.Env.Extra)
	shown.Env.Set(kinds.MaxTriesKey, maxTries)
	if printing != nil {
		shown.Env.Set(kinds.PrintingKey, printing)
	}
	return &shown
}

// writeOutputs writes an ad-hoc run to the files its output flags named,
// each in its run format (memtier's --json-out-file: memtier's JSON).
func writeOutputs(r *result.Run, outputs map[string]string) error {
	for _, format := range slices.Sorted(maps.Keys(outputs)) {
		path := outputs[format]
		write, ok := kinds.RunFormat(r.Kind, format)
		if !ok {
			return fmt.Errorf("workload %s cannot write format %q", r.Kind, format)
		}
		f, err := os.Create(path)
		if err != nil {
			return fmt.Errorf("writing the run as %s: %v", format, err)
		}
		err = write(f, r)
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return fmt.Errorf("writing the run as %s to %s: %v", format, path, err)
		}
		fmt.Fprintf(os.Stderr, "run written to %s (%s)\n", path, format)
	}
	return nil
}

// printOutcome follows a summary with what the kind's printer does not say:
// the outage (reconnects, dead seconds, first errors), why a run failed,
// where it deviates from its reference and what makes its results doubtful.
func printOutcome(w io.Writer, r *result.Run) {
	defer printNotes(w, r)
	if line := runner.OutageText(r); line != "" {
		fmt.Fprintf(w, "outage: %s\n", line)
	}
	if len(r.Summary.Flags) > 0 {
		fmt.Fprintf(w, "flagged: %s\n", result.FlagsText(r.Summary.Flags))
	}
	if r.Status == result.StatusFailed && r.Error != "" {
		fmt.Fprintf(w, "run failed: %s\n", r.Error)
	} else if len(r.Summary.FirstErrors) > 0 {
		fmt.Fprintf(w, "errors:%s\n", strings.TrimPrefix(runner.FirstErrorsText(r.Summary.FirstErrors), ";"))
	}
}

// printNotes prints a run's deviations from its reference definition and
// what its kind finds doubtful in its results: stored with the run, and
// said at its end so that no one publishes its numbers unaware.
func printNotes(w io.Writer, r *result.Run) {
	for _, d := range r.Deviations {
		fmt.Fprintf(w, "deviation: %s\n", d)
	}
	for _, d := range kinds.Doubts(r) {
		fmt.Fprintf(w, "doubtful: %s\n", d)
	}
}

// printStudyNotes prints, after a study's table, each deviation and doubt
// of its runs once, with the runs it concerns.
func printStudyNotes(w io.Writer, runs []*result.Run) {
	type note struct {
		text string
		who  []string
	}
	var notes []*note
	byText := map[string]*note{}
	add := func(text, who string) {
		n, ok := byText[text]
		if !ok {
			n = &note{text: text}
			byText[text] = n
			notes = append(notes, n)
		}
		if !slices.Contains(n.who, who) {
			n.who = append(n.who, who)
		}
	}
	for _, r := range runs {
		who := r.Workload + " on " + r.Target
		for _, d := range r.Deviations {
			add("deviation: "+d, who)
		}
		for _, d := range kinds.Doubts(r) {
			add("doubtful: "+d, who)
		}
	}
	for _, n := range notes {
		fmt.Fprintf(w, "%s (%s)\n", n.text, strings.Join(n.who, "; "))
	}
}

// removeOrphanedSpill deletes what runs killed while they measured left in
// the store, and says so; a store that refuses it now is cleaned next time.
func removeOrphanedSpill(s *store.Store) {
	runs, points, err := s.RemoveOrphanedSpill()
	switch {
	case err != nil:
		fmt.Fprintf(os.Stderr, "note: %s (left for a later run)\n", redact.Scrub(err.Error()))
	case runs > 0:
		fmt.Fprintf(os.Stderr, "note: removed from %s the %d series points spilled by runs whose process was killed before storing them (%d runs)\n", s.Path(), points, runs)
	}
}

// collectingSink stores runs and keeps them for the final summary. A run the
// results file refuses (read-only, locked past the busy timeout, disk full)
// is written to a fallback file beside it instead (fallback.go): a finished
// run is never lost.
type collectingSink struct {
	store    *store.Store
	results  string
	runs     []*result.Run
	unsaved  []*result.Run // runs only in the fallback file
	fallback string
	study    *savedStudy // the study, stored with the runs of a fallback file
	// deviations are added to every run before it is stored (execution.deviations).
	deviations []string
}

// newCollectingSink is the sink of st's runs in s.
func newCollectingSink(s *store.Store, st *study.Study) *collectingSink {
	sink := &collectingSink{store: s, results: s.Path()}
	if st.Hash != "" {
		sink.study = &savedStudy{Hash: st.Hash, Name: st.Name, File: st.File, Content: st.Source}
	}
	return sink
}

// sayStored says how many runs are stored in the results store and, for
// runs it refused, which fallback file holds them; it returns runErr, or
// when there was none the error that some runs are not in the store.
func (c *collectingSink) sayStored(runErr error) error {
	fmt.Fprintf(os.Stderr, "%s stored in %s\n", numfmt.Count(len(c.runs)-len(c.unsaved), "run", "runs"), c.results)
	if len(c.unsaved) == 0 {
		return runErr
	}
	n := len(c.unsaved)
	fmt.Fprintf(os.Stderr, "%s not be stored there and %s written to %s: store %s with 'fairbench import --results %s %s'\n",
		numfmt.Count(n, "run could", "runs could"), numfmt.Plural(n, "was", "were"), c.fallback, numfmt.Plural(n, "it", "them"), c.results, c.fallback)
	if runErr == nil {
		runErr = fmt.Errorf("%s not in %s but in %s", numfmt.Count(n, "run is", "runs are"), c.results, c.fallback)
	}
	return runErr
}

// SpillPoint implements runner.PointSpiller: a run's series points go to
// the store as its seconds complete.
func (c *collectingSink) SpillPoint(key string, index int, p result.SeriesPoint) error {
	return c.store.SpillPoint(key, index, p)
}

// whole returns a copy of r with the whole series, the points it spilled
// among them, read back from the store: for the ad-hoc run's summary and
// output files, which print its per-second numbers.
func (c *collectingSink) whole(r *result.Run) (*result.Run, error) {
	if r.SpillKey == "" || r.ID == 0 {
		return r, nil
	}
	runs, err := c.store.Runs(store.Filter{IDs: []int64{r.ID}})
	if err != nil {
		return nil, err
	}
	if len(runs) != 1 {
		return nil, fmt.Errorf("results %s: run %d, just stored, does not read back", c.results, r.ID)
	}
	w := *r
	w.Series, w.Spilled = runs[0].Series, result.SeriesTally{}
	return &w, nil
}

func (c *collectingSink) AppendRun(r *result.Run) (int64, error) {
	r.Deviations = append(r.Deviations, c.deviations...)
	id, err := c.store.AppendRun(r)
	if err == nil {
		c.runs = append(c.runs, r)
		return id, nil
	}
	if uerr := c.store.Unspill(r); uerr != nil {
		fmt.Fprintf(os.Stderr, "results %s: %s; the run's fallback file lacks those of its interval histograms\n", c.results, redact.Scrub(uerr.Error()))
	}
	path, ferr := c.saveFallback(r, err)
	if ferr != nil {
		return 0, fmt.Errorf("%w; writing it to a fallback file failed too: %v", err, ferr)
	}
	fmt.Fprintf(os.Stderr, "results %s: %s; the run is written to %s instead\n", c.results, redact.Scrub(err.Error()), path)
	c.runs = append(c.runs, r)
	return 0, nil
}

// loadOptions are the flags of one `fairbench load` command line, bound
// afresh by defineLoadFlags to each flag set it defines.
type loadOptions struct {
	a                            adhoc
	replace, clean, check, quiet bool
}

func newLoad() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "load --target URL [--workload KIND] [--clean] [flags]",
		Short: "Load (or verify) a workload's data without running it, like its peer tool's prepare step",
		Long: `Load (or verify) a workload's data without running it. The workload's parameter
flags are those of 'fairbench run'; 'fairbench load --workload KIND --help' lists them.
Workloads: ` + strings.Join(workload.Kinds(), ", ") + ` (default ` + workload.Default() + `).`,
	}
	withWorkloadFlags(cmd, cobra.NoArgs, defineLoadFlags, func(cmd *cobra.Command, o *loadOptions, args []string, action workload.Action) error {
		if action == workload.ActionRun {
			return errors.New("load: the run command word asks for a run: use 'fairbench run' with the same arguments")
		}
		return loadData(cmd, &o.a, o.replace, o.clean || action == workload.ActionClean, o.check, o.quiet)
	})
	return cmd
}

// defineLoadFlags defines load's flags, and the parameter flags of
// workload kind, on f.
func defineLoadFlags(f *pflag.FlagSet, kind string) (*loadOptions, error) {
	o := &loadOptions{}
	f.BoolVarP(&o.quiet, "quiet", "q", false, quietUsage)
	f.StringVar(&o.a.target, "target", "", "target URL (required)")
	f.BoolVar(&o.check, "check", false, "run the workload's consistency check on the loaded data")
	f.BoolVar(&o.clean, "clean", false, "delete this workload's data from the target instead, and only what fairbench's marker says it created")
	f.StringVar(&o.a.workload, "workload", workload.Default(), "workload kind ("+strings.Join(workload.Kinds(), ", ")+"); the flags below are this workload's")
	f.BoolVar(&o.replace, "replace", false, "allow dropping and reloading tables that fairbench did not create")
	f.StringArrayVar(&o.a.set, "set", nil, "any workload parameter as key=value (repeatable)")
	return o, o.a.defineWorkloadFlags(f, kind, false)
}

// loadData loads the ad-hoc workload's data (fairbench load, the peer
// tool's prepare), or with clean deletes what fairbench's marker says it
// created (load --clean, the peer tool's cleanup).
func loadData(cmd *cobra.Command, a *adhoc, replace, clean, check, quiet bool) error {
	if err := a.resolveTarget(); err != nil {
		return fmt.Errorf("%s: %v", cmd.Name(), err)
	}
	if a.target == "" {
		return fmt.Errorf("%s: --target URL is required", cmd.Name())
	}
	a.warmup = "0s"
	st, _, err := adhocStudy(a, cmd.Flags())
	if err != nil {
		return err
	}
	cells, err := st.Plan(runner.Catalog{})
	if err != nil {
		return err
	}
	meter := progress.ForFile(os.Stderr, quiet)
	r := runner.New(st, runner.Options{Progress: meter, Meter: meter, Replace: replace, Check: check})
	start := time.Now()
	if clean {
		if err := r.Clean(cmd.Context(), cells[0]); err != nil {
			return err
		}
		fmt.Fprintf(meter, "cleaned up in %.2f s\n", time.Since(start).Seconds())
		return nil
	}
	if err := r.Prepare(cmd.Context(), cells[0]); err != nil {
		if cmd.Context().Err() != nil {
			return &interruptedError{msg: fmt.Sprintf("load interrupted after %.1f s: data it had begun to load is recorded as incomplete, and the next load or run of the same workload resumes or rebuilds it", time.Since(start).Seconds())}
		}
		return err
	}
	fmt.Fprintf(meter, "done in %.2f s\n", time.Since(start).Seconds())
	return nil
}

func newValidate() *cobra.Command {
	var results string
	cmd := &cobra.Command{
		Use:   "validate study.toml",
		Short: "Check a study file and print its plan: cells, order, estimated duration",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return untilInterrupted(cmd.Context(), "validate interrupted: nothing was checked to the end", func() error {
				return validate(args, results, cmd.Flags().Changed("results"))
			})
		},
	}
	cmd.Flags().StringVar(&results, "results", defaultResults, "results file or postgres:// store whose last run of a cell estimates a cell its work ends (a query set's tries, operationcount)")
	return cmd
}

// validate checks a study file and prints its plan; the runs in the
// results store estimate the cells that only have a bound.
func validate(args []string, results string, resultsGiven bool) error {
	st, err := study.Load(args[0], runner.Catalog{})
	if err != nil {
		return err
	}
	cells, err := st.Plan(runner.Catalog{})
	if err != nil {
		return err
	}
	// A target only tool cells use needs no driver: the tool speaks to it
	// (fio's file:///dir), and the tool's command is checked instead.
	native, tooled := map[*study.Target]bool{}, map[*study.Target]bool{}
	for _, c := range cells {
		tooled[c.Target] = tooled[c.Target] || c.Workload.Tool != ""
		if c.Workload.Tool == "" {
			native[c.Target] = true
		} else if err := runner.CheckToolCell(c); err != nil {
			return fmt.Errorf("%s:%d: workload %q: %v", st.File, c.Workload.Line, c.Workload.Name, err)
		}
	}
	for _, t := range st.Targets {
		if _, err := driver.ForURL(t.URL); err != nil && (native[t] || !tooled[t]) {
			return fmt.Errorf("%s:%d: target %q: %v", st.File, t.Line, t.Name, err)
		}
	}
	// The memory a cell needs is checked against this machine (the one
	// that validates is usually the one that runs), before binding: a
	// workload may allocate what its parameters size.
	if err := runner.CheckMemory(cells, nil, false); err != nil {
		return fmt.Errorf("%s: %v (checked against this machine)", st.File, err)
	}
	shapes := map[string]workload.Shape{} // a sweep over clients binds its parameters once
	shapeKey := func(c study.Cell) string { return c.Workload.Name + "|" + c.Params.Canonical() }
	for _, c := range cells {
		key := shapeKey(c)
		if _, ok := shapes[key]; ok || c.Workload.Tool != "" {
			continue
		}
		shape, err := runner.ShapeOf(c)
		if err != nil {
			return fmt.Errorf("%s:%d: workload %q: %v", st.File, c.Workload.Line, c.Workload.Name, err)
		}
		shapes[key] = shape
	}
	stored, err := completedRuns(results, resultsGiven)
	if err != nil {
		return fmt.Errorf("--results %s: %v", results, err)
	}
	// The plan shows the targets' URLs, which a study may spell with any character.
	out := escape.NewWriter(os.Stdout, escape.TerminalText)
	study.WritePlan(out, st, cells, cellTimer(shapes, shapeKey, lastRuns(stored)))
	writePower(out, st, cells, stored, results)
	if st.AutoRepetitions {
		fmt.Fprintf(out, "repetitions auto: %d pilot rounds, then as many as the widest scenario needs for ±%g %%, at most %d (the estimate above is that worst case)\n",
			analysis.AutoPilotRounds, st.Interval, st.MaxRepetitions)
	}
	return nil
}

// autoRounds sizes a study with repetitions = "auto" from its pilot: the
// runs of this study (its name and file's hash) in the store s, compared
// against the study's baseline as the report will (analysis.AutoRounds).
func autoRounds(s *store.Store, st *study.Study) *runner.AutoRounds {
	return &runner.AutoRounds{Pilot: analysis.AutoPilotRounds, Rounds: func() (int, error) {
		runs, err := s.RunsWithoutIntervals(store.Filter{StudyName: st.Name, StudyHash: st.Hash, Status: []result.Status{result.StatusOK}})
		if err != nil {
			return 0, err
		}
		groups, err := analysis.GroupRuns(runs)
		if err != nil {
			return 0, err
		}
		baseline, err := baselineOf(s, runs, groups, "")
		if err != nil {
			return 0, err
		}
		return analysis.AutoRounds(groups, baseline, st.Interval, st.MaxRepetitions, analysis.DefaultAlpha)
	}}
}

// checkClientLimits refuses, before anything runs, a study whose client
// counts a target cannot take (driver.CheckOpenFiles, CheckConnections).
// Each target is checked once, for the most clients a cell gives it; tool
// cells count with tools (the server's connection limit binds a peer tool's
// connections too, while this process's open files do not).
func checkClientLimits(cells []study.Cell, skip map[string]bool, tools bool, check func(driver.Target, int) error) error {
	most := map[string]int{}
	var order []*study.Target
	for _, c := range cells {
		if (c.Workload.Tool != "" && !tools) || skip[c.Key()] {
			continue
		}
		if _, ok := most[c.Target.Name]; !ok {
			order = append(order, c.Target)
		}
		most[c.Target.Name] = max(most[c.Target.Name], c.Clients)
	}
	for _, t := range order {
		if err := check(driver.Target{Name: t.Name, URL: t.URL}, most[t.Name]); err != nil {
			return err
		}
	}
	return nil
}

// distributed reports whether any cell runs on several load generators.
func distributed(cells []study.Cell, override int) bool {
	if override > 1 {
		return true
	}
	for _, c := range cells {
		if c.Workload.Tool == "" && c.Workload.Generators > 1 {
			return true
		}
	}
	return false
}
