package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/fairbench/fairbench/internal/driver"
	"github.com/fairbench/fairbench/internal/params"
	"github.com/fairbench/fairbench/internal/report"
	"github.com/fairbench/fairbench/internal/result"
	"github.com/fairbench/fairbench/internal/runner"
	"github.com/fairbench/fairbench/internal/store"
	"github.com/fairbench/fairbench/internal/study"
	"github.com/fairbench/fairbench/internal/workload"
)

const defaultResults = "fairbench.db"

// adhoc holds the pgbench-like flags of `fairbench run --target URL`.
type adhoc struct {
	target, workload, mode, queryMode, duration, warmup string
	scale, clients, threads, maxTries, progress         int
	rate                                                float64
	latencyLimit                                        float64
	noVacuum, selectOnly, simpleUpdate                  bool
	set                                                 []string
}

func newRun() *cobra.Command {
	var (
		results                string
		resume, replace, check bool
		a                      adhoc
	)
	cmd := &cobra.Command{
		Use:   "run [study.toml]",
		Short: "Run a study file, or one ad-hoc benchmark the way pgbench does",
		Long: `Run a study file: every cell (target × workload × parameters × clients × repetition)
in plan order, each run stored the moment it ends.

Or run one benchmark ad hoc with pgbench's flags:
  fairbench run --target postgres://bench@127.0.0.1/bench --workload tpcb --mode select-only --scale 10 -c 8 -T 30s -P 1`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			st, adHoc, err := studyFor(args, &a)
			if err != nil {
				return err
			}
			x := execution{results: results, resume: resume, replace: replace, check: check}
			if adHoc {
				x.adHoc, x.maxTries, x.progressEvery = true, a.maxTries, a.progress
			}
			_, err = x.run(cmd.Context(), st)
			return err
		},
	}
	f := cmd.Flags()
	f.StringVar(&results, "results", defaultResults, "results file (SQLite)")
	f.BoolVar(&resume, "resume", false, "skip cells of this study that already finished in the results file")
	f.BoolVar(&replace, "replace", false, "allow dropping and reloading workload tables that fairbench did not create (e.g. pgbench -i tables at another scale)")
	f.BoolVar(&check, "check", false, "run the workload's consistency check after each run")
	f.StringVar(&a.target, "target", "", "ad hoc: target URL (postgres://…, sqlite:FILE)")
	f.StringVar(&a.workload, "workload", "tpcb", "ad hoc: workload kind")
	f.StringVar(&a.mode, "mode", "", "ad hoc: workload mode (tpcb: tpcb-like, simple-update, select-only)")
	f.BoolVarP(&a.selectOnly, "select-only", "S", false, "ad hoc: same as --mode select-only")
	f.BoolVarP(&a.simpleUpdate, "skip-some-updates", "N", false, "ad hoc: same as --mode simple-update")
	f.IntVarP(&a.scale, "scale", "s", 0, "ad hoc: scale factor")
	f.IntVarP(&a.clients, "client", "c", 1, "ad hoc: number of clients (one connection each)")
	f.IntVarP(&a.threads, "jobs", "j", 0, "ad hoc: threads that drive the clients when there are more clients than threads, each multiplexing its share like pgbench -j (default: the CPUs)")
	f.StringVarP(&a.duration, "time", "T", "60s", "ad hoc: measured duration (\"30s\", \"2m\" or seconds)")
	f.StringVar(&a.warmup, "warmup", "0s", "ad hoc: warm-up before measuring, excluded from every number")
	f.IntVarP(&a.progress, "progress", "P", 0, "ad hoc: show progress every N seconds")
	f.StringVarP(&a.queryMode, "protocol", "M", "", "ad hoc: query mode: simple, extended or prepared")
	f.Float64VarP(&a.rate, "rate", "R", 0, "ad hoc: target rate in transactions per second over all clients (latency from the scheduled start)")
	f.Float64VarP(&a.latencyLimit, "latency-limit", "L", 0, "ad hoc: with --rate, skip transactions already later than this many ms")
	f.IntVar(&a.maxTries, "max-tries", 1, "ad hoc: tries per transaction on serialization failure or deadlock")
	f.BoolVarP(&a.noVacuum, "no-vacuum", "n", false, "ad hoc: skip pgbench's pre-run vacuum")
	f.StringArrayVar(&a.set, "set", nil, "ad hoc: any workload parameter as key=value (repeatable)")
	return cmd
}

// execution runs a study and stores its runs: shared by run and demo.
type execution struct {
	results                string
	resume, replace, check bool
	adHoc                  bool
	maxTries               int
	progressEvery          int // ad hoc: -P seconds; 0 = no per-second progress
}

func (x execution) run(ctx context.Context, st *study.Study) ([]*result.Run, error) {
	cells, err := st.Plan(workload.Catalog{})
	if err != nil {
		return nil, err
	}
	s, err := store.Open(x.results)
	if err != nil {
		return nil, err
	}
	defer s.Close()
	var skip map[string]bool
	if st.Hash != "" {
		if err := s.SaveStudy(st.Hash, st.Name, st.File, st.Source); err != nil {
			return nil, err
		}
		done, err := s.CompletedCells(st.Hash)
		if err != nil {
			return nil, err
		}
		if x.resume {
			skip = done
		} else if len(done) > 0 {
			fmt.Fprintf(os.Stderr, "note: %d cells of this study are already in %s; new runs are added (use --resume to skip them)\n", len(done), x.results)
		}
	}
	opt := runner.Options{Progress: os.Stderr, Every: time.Second, Replace: x.replace, Skip: skip, Check: x.check}
	if x.adHoc {
		// Like pgbench: per-second lines only with -P, and no cell headers for one cell.
		opt.NoCellHeaders = true
		if x.progressEvery > 0 {
			opt.Every = time.Duration(x.progressEvery) * time.Second
		} else {
			opt.NoTickLines = true
		}
	}
	sink := &collectingSink{store: s}
	opt.Sink = sink
	r := runner.New(st, opt)
	if err := r.Preflight(ctx, cells); err != nil {
		return nil, err
	}
	runErr := r.Run(ctx, cells)
	if x.adHoc && len(sink.runs) == 1 && sink.runs[0].Status != result.StatusFailed {
		if sink.runs[0].Kind == "oltp" {
			report.SysbenchSummary(os.Stdout, sink.runs[0])
		} else {
			report.PgbenchSummary(os.Stdout, sink.runs[0], x.maxTries)
		}
	}
	if !x.adHoc && len(sink.runs) > 0 && !errors.Is(runErr, runner.ErrInterrupted) {
		if err := printStudyTable(s, st.Hash); err != nil {
			return sink.runs, err
		}
	}
	fmt.Fprintf(os.Stderr, "%d runs stored in %s\n", len(sink.runs), x.results)
	return sink.runs, runErr
}

// studyFor loads the study file or builds a one-cell study from ad-hoc flags.
func studyFor(args []string, a *adhoc) (*study.Study, bool, error) {
	if len(args) == 1 {
		if a.target != "" {
			return nil, false, errors.New("give either a study file or --target, not both")
		}
		st, err := study.Load(args[0], workload.Catalog{})
		return st, false, err
	}
	if a.target == "" {
		return nil, false, errors.New("nothing to run: give a study file (fairbench run study.toml) or --target URL --workload KIND")
	}
	st, err := adhocStudy(a)
	return st, true, err
}

func adhocStudy(a *adhoc) (*study.Study, error) {
	w, err := workload.Get(a.workload)
	if err != nil {
		return nil, err
	}
	specs := w.Params()
	raw := map[string]any{}
	for _, kv := range a.set {
		k, v, ok := strings.Cut(kv, "=")
		if !ok {
			return nil, fmt.Errorf("--set %q: use key=value", kv)
		}
		raw[k] = v
	}
	mode := a.mode
	if a.selectOnly {
		mode = "select-only"
	}
	if a.simpleUpdate {
		mode = "simple-update"
	}
	if mode != "" {
		raw["mode"] = mode
	}
	if a.scale > 0 {
		raw["scale"] = int64(a.scale)
	}
	if a.queryMode != "" {
		raw["query_mode"] = a.queryMode
	}
	if a.noVacuum {
		raw["vacuum"] = false
	}
	values := map[string][]any{}
	for k, v := range raw {
		spec, ok := params.Find(specs, k)
		if !ok {
			return nil, fmt.Errorf("workload %s has no parameter %q", a.workload, k)
		}
		cv, err := params.Coerce(spec, v)
		if err != nil {
			return nil, err
		}
		values[k] = []any{cv}
	}
	dur, err := params.ParseDuration(a.duration)
	if err != nil {
		return nil, fmt.Errorf("-T: %v", err)
	}
	warm, err := params.ParseDuration(a.warmup)
	if err != nil {
		return nil, fmt.Errorf("--warmup: %v", err)
	}
	if a.clients < 1 {
		return nil, fmt.Errorf("-c must be at least 1")
	}
	if _, err := driver.ForURL(a.target); err != nil {
		return nil, err
	}
	return &study.Study{
		Name:        "ad hoc",
		Repetitions: 1,
		Warmup:      warm,
		Duration:    dur,
		Order:       "interleaved",
		Seed:        uint64(time.Now().UnixNano()),
		Targets:     []*study.Target{{Name: targetName(a.target), URL: a.target}},
		Workloads: []*study.Workload{{
			Name: a.workload, Kind: a.workload, Params: values,
			Clients:      []study.ClientLevel{{N: a.clients}},
			Rate:         a.rate,
			MaxTries:     a.maxTries,
			Threads:      a.threads,
			LatencyLimit: time.Duration(a.latencyLimit * float64(time.Millisecond)),
		}},
	}, nil
}

// targetName is a readable name for an ad-hoc target: its redacted URL.
func targetName(raw string) string { return driver.Redacted(raw) }

// collectingSink stores runs and keeps them for the final summary.
type collectingSink struct {
	store *store.Store
	runs  []*result.Run
}

func (c *collectingSink) AppendRun(r *result.Run) (int64, error) {
	id, err := c.store.AppendRun(r)
	if err == nil {
		c.runs = append(c.runs, r)
	}
	return id, err
}

func newLoad() *cobra.Command {
	var (
		target, kind string
		scale        int
		replace      bool
		set          []string
	)
	cmd := &cobra.Command{
		Use:   "load --target URL --workload KIND [--scale N]",
		Short: "Load (or verify) a workload's data without running it, like pgbench -i",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			a := &adhoc{target: target, workload: kind, scale: scale, set: set, duration: "1s", warmup: "0s", clients: 1, maxTries: 1}
			st, err := adhocStudy(a)
			if err != nil {
				return err
			}
			cells, err := st.Plan(workload.Catalog{})
			if err != nil {
				return err
			}
			r := runner.New(st, runner.Options{Progress: os.Stderr, Replace: replace})
			start := time.Now()
			if err := r.Prepare(cmd.Context(), cells[0]); err != nil {
				return err
			}
			fmt.Fprintf(os.Stderr, "done in %.2f s\n", time.Since(start).Seconds())
			return nil
		},
	}
	f := cmd.Flags()
	f.StringVar(&target, "target", "", "target URL")
	f.StringVar(&kind, "workload", "tpcb", "workload kind")
	f.IntVarP(&scale, "scale", "s", 0, "scale factor")
	f.BoolVar(&replace, "replace", false, "allow dropping and reloading tables that fairbench did not create")
	f.StringArrayVar(&set, "set", nil, "any workload parameter as key=value (repeatable)")
	cmd.MarkFlagRequired("target") //nolint:errcheck // the flag exists
	return cmd
}

func newValidate() *cobra.Command {
	return &cobra.Command{
		Use:   "validate study.toml",
		Short: "Check a study file and print its plan: cells, order, estimated duration",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			st, err := study.Load(args[0], workload.Catalog{})
			if err != nil {
				return err
			}
			cells, err := st.Plan(workload.Catalog{})
			if err != nil {
				return err
			}
			for _, t := range st.Targets {
				if _, err := driver.ForURL(t.URL); err != nil {
					return fmt.Errorf("%s:%d: target %q: %v", st.File, t.Line, t.Name, err)
				}
			}
			for _, c := range cells {
				if w, err := workload.Get(c.Workload.Kind); err == nil {
					if _, err := w.New(c.Params); err != nil {
						return fmt.Errorf("%s:%d: workload %q: %v", st.File, c.Workload.Line, c.Workload.Name, err)
					}
				}
			}
			study.WritePlan(os.Stdout, st, cells)
			return nil
		},
	}
}
