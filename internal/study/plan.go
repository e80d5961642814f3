package study

import (
	"errors"
	"fmt"
	"io"
	"maps"
	"math"
	"math/rand/v2"
	"runtime"
	"slices"
	"sort"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/fairbench/fairbench/internal/driver"
	"github.com/fairbench/fairbench/internal/escape"
	"github.com/fairbench/fairbench/internal/numfmt"
	"github.com/fairbench/fairbench/internal/params"
	"github.com/fairbench/fairbench/internal/redact"
)

// Cell is one (target, workload, parameters, clients, repetition) to run.
type Cell struct {
	Index      int // 0-based position in the plan
	Target     *Target
	Workload   *Workload
	Params     params.Values // full values: kind defaults + this combination of swept values
	Clients    int
	Repetition int // 1-based
	// Level is the clients level Clients came from when it was a share of
	// the target's hardware threads ("50%"), "" for a literal count: the
	// run records it so that targets with different cores pair by it.
	Level string
	// Data names the data set the cell needs: its kind's parameters that
	// shape the loaded data (params.Spec.Data) with their values, "" when
	// the kind has none. validate counts the loads the order makes from it.
	Data string
	// Effective timing: the workload's override, else the study's.
	Warmup, Duration, Cooldown time.Duration
}

// Key is the identity of a cell that survives re-planning: --resume matches
// stored runs against it, so it is built from names and values only, never from
// positions, which change when the order is random or the study is edited.
func (c Cell) Key() string {
	var t, w string
	if c.Target != nil {
		t = c.Target.Name
	}
	if c.Workload != nil {
		w = c.Workload.Name
	}
	return t + "|" + w + "|" + c.Params.Canonical() + "|c=" + strconv.Itoa(c.Clients) + "|r=" + strconv.Itoa(c.Repetition)
}

// Plan expands the study into its ordered cells.
//
// Studies built in code go through the same checks as parsed ones, and Plan
// fills the defaults into s and its workloads (repetitions, order, duration,
// workload names, clients, clients per thread, max tries) and normalises the
// parameter values with params.Coerce, so that whoever reads the study after
// planning — the runner, the results store — sees the values that actually ran.
func (s *Study) Plan(cat Catalog) ([]Cell, error) {
	pl := &planner{s: s, cat: cat}
	pl.defaults()
	pl.check()
	wps := make([]*workPlan, 0, len(s.Workloads))
	total := 0.0
	for _, w := range s.Workloads {
		wp := pl.workPlan(w)
		wps = append(wps, wp)
		total += wp.cells
	}
	if !pl.failed() && total > maxCells {
		pl.errorf(0, 0, "study", "the workloads make %.0f cells together, more than %d, the most a study plans (%s): sweep fewer values, or split the study", total, maxCells, whyMaxCells)
	}
	if pl.failed() {
		return nil, pl.err()
	}

	var cells []Cell
	switch s.Order {
	case orderSequential:
		cells = s.sequential(wps)
	case orderRandom:
		cells = s.interleaved(wps)
		// A fixed seed keeps a random order reproducible: the same study file
		// gives the same plan on every machine and on --resume.
		r := rand.New(rand.NewPCG(s.Seed, s.Seed))
		r.Shuffle(len(cells), func(i, j int) { cells[i], cells[j] = cells[j], cells[i] })
	default:
		cells = s.interleaved(wps)
	}
	for i := range cells {
		cells[i].Index = i
	}
	return cells, nil
}

// maxCells bounds the cells of a plan, counted before they are built.
const maxCells = 100_000

// whyMaxCells says why maxCells is where it is, in the error.
const whyMaxCells = "each cell is one measured run, at least seconds long and stored; 100 000 of them are days of measuring and a plan too large to read or hold"

// workPlan is one workload resolved against the catalog and the targets.
type workPlan struct {
	w       *Workload
	cells   float64 // how many cells the workload makes, counted before building them
	combos  []params.Values
	data    []string // the kind's parameters that shape its data (params.Spec.Data)
	targets []*Target
	levels  map[*Target][]level
	warmup  time.Duration
	measure time.Duration
	cool    time.Duration
}

// level is one resolved clients level of a target: its client count, the
// share of hardware threads it came from ("" for a literal count), and its
// position in the workload's clients sweep, which the interleaved order
// runs the targets by: "50%" on every target together, whatever count it
// came to on each one's cores.
type level struct {
	n     int
	share string
	pos   int
}

func (s *Study) cell(wp *workPlan, t *Target, combo params.Values, l level, rep int) Cell {
	return Cell{
		Target:     t,
		Workload:   wp.w,
		Params:     maps.Clone(combo),
		Clients:    l.n,
		Level:      l.share,
		Data:       dataKey(wp.data, combo),
		Repetition: rep,
		Warmup:     wp.warmup,
		Duration:   wp.measure,
		Cooldown:   wp.cool,
	}
}

// interleaved runs every target at a level before any target runs the next one,
// so that drift over time (caches warming, neighbours on shared hardware, thermal
// throttling) spreads over all targets instead of penalising the last one.
func (s *Study) interleaved(wps []*workPlan) []Cell {
	var cells []Cell
	for rep := 1; rep <= s.Repetitions; rep++ {
		for _, wp := range wps {
			var union []int
			for _, t := range wp.targets {
				for _, l := range wp.levels[t] {
					if !slices.Contains(union, l.pos) {
						union = append(union, l.pos)
					}
				}
			}
			slices.Sort(union)
			for _, combo := range wp.combos {
				for _, pos := range union {
					for _, t := range wp.targets {
						if i := slices.IndexFunc(wp.levels[t], func(l level) bool { return l.pos == pos }); i >= 0 {
							cells = append(cells, s.cell(wp, t, combo, wp.levels[t][i], rep))
						}
					}
				}
			}
		}
	}
	return cells
}

func (s *Study) sequential(wps []*workPlan) []Cell {
	var cells []Cell
	for _, t := range s.Targets {
		for _, wp := range wps {
			if !slices.Contains(wp.targets, t) {
				continue
			}
			for _, combo := range wp.combos {
				for _, l := range wp.levels[t] {
					for rep := 1; rep <= s.Repetitions; rep++ {
						cells = append(cells, s.cell(wp, t, combo, l, rep))
					}
				}
			}
		}
	}
	return cells
}

// CellTime is how long a cell runs, as its workload says (runner.CellTime):
// the warm-up, measurement and cool-down of a cell measured for its duration,
// or only a bound on them for one that its work ends (operationcount, a
// query set's tries), which can end much sooner.
type CellTime struct {
	Time time.Duration
	// AtMost: Time is a bound; the cell ends when its work is done.
	AtMost bool
	// EndsWhen says what ends a bounded cell ("operationcount is done").
	EndsWhen string
	// FromRun, when not 0, is the stored run of the same cell whose time
	// Time is: a cell its work ends is estimated by its last run, when
	// there is one, rather than by its bound.
	FromRun int64
}

// DurationTime is the time of a cell measured for its duration.
func DurationTime(c Cell) CellTime { return CellTime{Time: c.Warmup + c.Duration + c.Cooldown} }

// estimate is the time the cells take, without preparing data or
// connecting: Exact for the cells measured for their duration, AtMost for
// the cells their work ends, whose bound is all that is known before they run.
type estimate struct {
	Exact, AtMost time.Duration
	Bounded       int      // cells whose time is a bound
	EndsWhen      []string // what ends them, each once
	FromRuns      int      // cells of Exact whose time is their last stored run's
}

// estimate adds up the cells' times; timeOf nil takes every cell as
// measured for its duration (DurationTime).
func (s *Study) estimate(cells []Cell, timeOf func(Cell) CellTime) estimate {
	if timeOf == nil {
		timeOf = DurationTime
	}
	var e estimate
	for _, c := range cells {
		t := timeOf(c)
		if !t.AtMost {
			e.Exact += t.Time
			if t.FromRun != 0 {
				e.FromRuns++
			}
			continue
		}
		e.AtMost += t.Time
		e.Bounded++
		if t.EndsWhen != "" && !slices.Contains(e.EndsWhen, t.EndsWhen) {
			e.EndsWhen = append(e.EndsWhen, t.EndsWhen)
		}
	}
	return e
}

// String is the estimate as the plan says it: a bound is never shown as the
// time the cells take.
func (e estimate) String() string {
	exact, atMost := roundUp(e.Exact), roundUp(e.AtMost)
	switch {
	case e.Bounded == 0:
		return exact.String()
	case e.Exact == 0:
		return "at most " + atMost.String()
	}
	return fmt.Sprintf("%s, plus at most %s", exact, atMost)
}

// roundUp is d in whole seconds, rounded up: a stored run's time is exact
// to the nanosecond, which an estimate is not.
func roundUp(d time.Duration) time.Duration {
	if r := d.Truncate(time.Second); r != d {
		return r + time.Second
	}
	return d
}

// bounds says which cells only have a bound and what ends them, and which
// are estimated by their last stored run; "" when none.
func (e estimate) bounds() string {
	var parts []string
	if e.FromRuns > 0 {
		parts = append(parts, fmt.Sprintf("%s as long as %s last stored run", plural(e.FromRuns, "cell"), numfmt.Plural(e.FromRuns, "its", "their")))
	}
	if e.Bounded > 0 {
		parts = append(parts, fmt.Sprintf("%s %s when %s, which can be much sooner than the bound", plural(e.Bounded, "cell"),
			numfmt.Plural(e.Bounded, "ends", "end"), strings.Join(e.EndsWhen, " or ")))
	}
	return strings.Join(parts, "; ")
}

// WritePlan prints the plan the way `fairbench validate` shows it, so the user
// can see what will run, how long it takes and on what, before running it.
// timeOf is how long a cell runs (nil: its duration; estimate).
func WritePlan(w io.Writer, s *Study, cells []Cell, timeOf func(Cell) CellTime) {
	fmt.Fprintf(w, "study %s", s.Name)
	if s.File != "" {
		fmt.Fprintf(w, " (%s", s.File)
		if len(s.Hash) >= 12 {
			fmt.Fprintf(w, ", sha256 %s", s.Hash[:12])
		}
		fmt.Fprint(w, ")")
	}
	fmt.Fprintln(w)
	fmt.Fprintf(w, "%s, %s, %s, %s, order %s",
		plural(len(s.Targets), "target"), plural(len(s.Workloads), "workload"),
		plural(len(cells), "cell"), plural(s.Repetitions, "repetition"), s.Order)
	if s.Order == orderRandom {
		fmt.Fprintf(w, " (seed %d)", s.Seed)
	}
	fmt.Fprintln(w)
	e := s.estimate(cells, timeOf)
	fmt.Fprintf(w, "estimated duration %s (warm-up, measurement and cool-down; data loading not included)\n", e)
	if b := e.bounds(); b != "" {
		fmt.Fprintf(w, "  %s\n", b)
	}
	writeDataLoads(w, s, cells)

	fmt.Fprintln(w)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "target\turl\tcores")
	for _, t := range s.Targets {
		cores := "?"
		if t.Cores > 0 {
			cores = strconv.Itoa(t.Cores)
		}
		name := t.Name
		if t.Baseline {
			name += " (baseline)"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\n", name, driver.Redacted(t.URL), cores)
	}
	tw.Flush()
	writeHooks(w, s)

	fmt.Fprintln(w)
	tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "#\ttarget\tworkload\tkind\tparams\tclients\trep")
	for _, c := range cells {
		clients := strconv.Itoa(c.Clients)
		if c.Level != "" {
			clients += " (" + c.Level + " of threads)"
		}
		if n := c.Workload.Generators; n > 1 {
			clients += fmt.Sprintf(" on %d generators", n)
		}
		fmt.Fprintf(tw, "%d\t%s\t%s\t%s\t%s\t%s\t%d\n",
			c.Index+1, c.Target.Name, c.Workload.Name, c.Workload.Kind, shownParams(c), clients, c.Repetition)
	}
	tw.Flush()
}

// writeHooks lists the commands the study runs around its cells, in the
// order they run, with their secrets removed; nothing when it runs none.
func writeHooks(w io.Writer, s *Study) {
	type hook struct{ name, when, cmd string }
	h := s.Hooks
	var hooks []hook
	for _, x := range []hook{
		{"before_study", "once, before the first cell", h.BeforeStudy},
		{"before_cell", "before each cell's load", h.BeforeCell},
		{"before_run", "after the load, before the warm-up", h.BeforeRun},
		{"after_run", "after the measured phase", h.AfterRun},
	} {
		if x.cmd != "" {
			hooks = append(hooks, x)
		}
	}
	for _, t := range s.Targets {
		const when = "before each query's first try (query sets), else before each run's setup"
		if t.Restart != "" {
			hooks = append(hooks, hook{fmt.Sprintf("target %s restart", t.Name), when, t.Restart})
		}
		if t.DropCaches {
			hooks = append(hooks, hook{fmt.Sprintf("target %s drop_caches", t.Name), when, DropCachesCommand})
		}
	}
	if len(hooks) == 0 {
		return
	}
	timeout := s.Hooks.Timeout
	if timeout == 0 {
		timeout = DefaultHookTimeout
	}
	fmt.Fprintf(w, "\ncommands around runs (sh -c on this host, each at most %s):\n", timeout)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	for _, x := range hooks {
		fmt.Fprintf(tw, "  %s\t%s\t%s\n", x.name, x.when, escape.Terminal(s.ScrubCommand(x.cmd)))
	}
	tw.Flush()
}

// ScrubCommand is a hook's command without its secrets: the targets'
// passwords and whatever any of the study's commands names as a password
// by its place (a URL's password, given again as PGPASSWORD=).
func (s *Study) ScrubCommand(cmd string) string {
	h := s.Hooks
	var secrets []string
	for _, c := range []string{h.BeforeStudy, h.BeforeCell, h.BeforeRun, h.AfterRun} {
		secrets = append(secrets, redact.ByPlaceValues(c)...)
	}
	for _, t := range s.Targets {
		secrets = append(secrets, driver.Secrets(t.URL)...)
		secrets = append(secrets, redact.ByPlaceValues(t.Restart)...)
	}
	return redact.Text(cmd, secrets)
}

// dataKey names a combination's data set: the data parameters with values.
func dataKey(names []string, combo params.Values) string {
	parts := make([]string, 0, len(names))
	for _, n := range names {
		parts = append(parts, n+"="+params.Format(combo[n]))
	}
	return strings.Join(parts, " ")
}

// writeDataLoads says how many data sets the cells need and how many times
// the order loads them, counting a load wherever a database (a target URL)
// gets a cell of a kind whose data set differs from its previous one.
func writeDataLoads(w io.Writer, s *Study, cells []Cell) {
	type db struct{ url, kind string }
	last := map[db]string{}
	sets := map[string]bool{}
	var names []string
	loads := 0
	for _, c := range cells {
		if c.Data == "" {
			continue
		}
		k := db{c.Target.URL, c.Workload.Kind}
		if prev, ok := last[k]; !ok || prev != c.Data {
			loads++
		}
		last[k] = c.Data
		if id := c.Workload.Kind + " " + c.Data; !sets[id] {
			sets[id] = true
			names = append(names, id)
		}
	}
	if len(names) < 2 && loads <= len(names) {
		return
	}
	fmt.Fprintf(w, "data: %s (%s), loaded %s in this order", plural(len(names), "data set"), strings.Join(names, "; "), plural(loads, "time"))
	switch s.Order {
	case orderInterleaved:
		fmt.Fprint(w, ": the cells of one data set run together, each data set loaded at most once per database and repetition round")
	case orderSequential:
		fmt.Fprint(w, ": the cells of one data set run together, each data set loaded at most once per target")
	}
	fmt.Fprintln(w)
}

// shownParams lists only the parameters the user wrote: the defaults are the
// same on every line and would hide what differs between cells.
func shownParams(c Cell) string {
	names := make([]string, 0, len(c.Workload.Params))
	for k := range c.Workload.Params {
		names = append(names, k)
	}
	if len(names) == 0 {
		return "-"
	}
	sort.Strings(names)
	for i, k := range names {
		names[i] = k + "=" + params.Format(c.Params[k])
	}
	return strings.Join(names, " ")
}

func plural(n int, word string) string { return numfmt.Count(n, word, word+"s") }

// planner collects every problem of a study built in code, like the parser does
// for files.
type planner struct {
	s    *Study
	cat  Catalog
	errs []error
}

func (pl *planner) errorf(line, col int, where, format string, args ...any) {
	pl.errs = append(pl.errs, &Error{File: pl.s.File, Line: line, Col: col, Key: where, Msg: fmt.Sprintf(format, args...)})
}

func (pl *planner) failed() bool { return len(pl.errs) > 0 }

func (pl *planner) err() error {
	if len(pl.errs) == 1 {
		return pl.errs[0]
	}
	return errors.Join(pl.errs...)
}

func (pl *planner) defaults() {
	s := pl.s
	if s.Repetitions == 0 {
		s.Repetitions = 1
	}
	if s.Order == "" {
		s.Order = orderInterleaved
	}
	// A zero measurement is never meant; a zero warm-up or cool-down may be.
	if s.Duration == 0 {
		s.Duration = defaultDuration
	}
	if s.Hooks.Timeout == 0 {
		s.Hooks.Timeout = DefaultHookTimeout
	}
	for _, w := range s.Workloads {
		if w.Name == "" {
			w.Name = w.Kind
		}
		if w.ClientsPerThread == 0 {
			w.ClientsPerThread = 1
		}
		if w.MaxTries == 0 {
			w.MaxTries = 1
		}
		if len(w.Clients) == 0 {
			w.Clients = []ClientLevel{{N: 1}}
		}
	}
}

func (pl *planner) check() {
	s := pl.s
	if s.Repetitions < 1 {
		pl.errorf(0, 0, "study", "repetitions must be at least 1, got %d", s.Repetitions)
	}
	if !slices.Contains(orders, s.Order) {
		pl.errorf(0, 0, "study", "order = %q is not one of %s", s.Order, strings.Join(orders, ", "))
	}
	if s.Duration < 0 {
		pl.errorf(0, 0, "study", "duration must be more than zero")
	}
	if s.Warmup < 0 || s.Cooldown < 0 {
		pl.errorf(0, 0, "study", "warmup and cooldown must not be negative")
	}
	if s.Hooks.Timeout < 0 || s.Hooks.Timeout > maxHookTimeout {
		pl.errorf(0, 0, "study", "hook_timeout must be more than zero and at most %s, got %s", maxHookTimeout, s.Hooks.Timeout)
	}
	if len(s.Targets) == 0 {
		pl.errorf(0, 0, "", "no targets: a study needs at least one target")
	}
	if len(s.Workloads) == 0 {
		pl.errorf(0, 0, "", "no workloads: a study needs at least one workload")
	}
	names := map[string]bool{}
	for i, t := range s.Targets {
		where := targetLabel(t, i)
		switch {
		case t.Name == "":
			pl.errorf(t.Line, 0, where, "name is required")
		case names[t.Name]:
			pl.errorf(t.Line, 0, where, "name %q is used by another target: target names must be unique", t.Name)
		}
		names[t.Name] = true
		if t.URL == "" {
			pl.errorf(t.Line, 0, where, "url is required")
		}
	}
	wnames := map[string]bool{}
	for _, w := range s.Workloads {
		where := fmt.Sprintf("workload %q", w.Name)
		if w.Name == "" {
			pl.errorf(w.Line, 0, "workload", "kind is required")
		} else if wnames[w.Name] {
			pl.errorf(w.Line, 0, where, "name %q is used by another workload: workload names must be unique", w.Name)
		}
		wnames[w.Name] = true
		for _, n := range w.Targets {
			if !names[n] {
				pl.errorf(w.Line, 0, where, "targets: no target is named %q", n)
			}
		}
		for _, c := range w.Clients {
			if (c.N > 0) == (c.Percent > 0) || c.N < 0 || c.Percent > 100 {
				pl.errorf(w.Line, 0, where, "clients: %+v must set either N > 0 or 0 < Percent <= 100", c)
			}
		}
		if w.ClientsPerThread < 1 {
			pl.errorf(w.Line, 0, where, "clients_per_thread must be at least 1")
		}
		if w.Generators > 1 && w.Tool != "" {
			pl.errorf(w.Line, 0, where, "generators = %d: a tool cell runs %s once, on this machine; several load generators are for fairbench's own workloads (remove tool, or generators)", w.Generators, w.Tool)
		}
		if w.MaxTries < 1 {
			pl.errorf(w.Line, 0, where, "max_tries must be at least 1")
		}
		if w.Rate < 0 || w.LatencyLimit < 0 {
			pl.errorf(w.Line, 0, where, "rate and latency_limit must not be negative")
		}
		if w.Duration != nil && *w.Duration <= 0 {
			pl.errorf(w.Line, 0, where, "duration must be more than zero")
		}
		if (w.Warmup != nil && *w.Warmup < 0) || (w.Cooldown != nil && *w.Cooldown < 0) {
			pl.errorf(w.Line, 0, where, "warmup and cooldown must not be negative")
		}
	}
}

func (pl *planner) workPlan(w *Workload) *workPlan {
	s := pl.s
	where := fmt.Sprintf("workload %q", w.Name)
	wp := &workPlan{w: w, levels: map[*Target][]level{}, warmup: s.Warmup, measure: s.Duration, cool: s.Cooldown}
	if w.Warmup != nil {
		wp.warmup = *w.Warmup
	}
	if w.Duration != nil {
		wp.measure = *w.Duration
	}
	if w.Cooldown != nil {
		wp.cool = *w.Cooldown
	}

	specs, ok := pl.cat.Params(w.Kind)
	if !ok {
		kinds := slices.Clone(pl.cat.Kinds())
		sort.Strings(kinds)
		pl.errorf(w.Line, 0, where, "unknown kind %q (known kinds: %s)", w.Kind, strings.Join(kinds, ", "))
		return wp
	}
	pl.coerceParams(w, specs, where)
	for _, t := range s.Targets {
		if len(w.Targets) > 0 && !slices.Contains(w.Targets, t.Name) {
			continue
		}
		if w.Tool == "" {
			if err := pl.cat.Fits(w.Kind, t.URL); err != nil {
				pl.errorf(w.Line, 0, where, "target %q: %v", t.Name, err)
				continue
			}
		}
		levels, ok := pl.levels(w, t, where)
		if !ok {
			continue
		}
		wp.targets = append(wp.targets, t)
		wp.levels[t] = levels
	}
	// Count the cells before building them: a sweep of a few hundred
	// values over a few keys makes millions, which are refused here with
	// their count rather than found out of memory.
	combos := 1.0
	var axes []string
	for _, spec := range specs {
		if vals, swept := w.Params[spec.Name]; swept && len(vals) > 1 {
			combos *= float64(len(vals))
			axes = append(axes, fmt.Sprintf("%s %d values", spec.Name, len(vals)))
		}
	}
	levels := 0
	for _, t := range wp.targets {
		levels += len(wp.levels[t])
	}
	wp.cells = combos * float64(levels) * float64(max(s.Repetitions, 1))
	if wp.cells > maxCells {
		axes = append(axes, fmt.Sprintf("%s over %s", plural(levels, "client level"), plural(len(wp.targets), "target")), plural(s.Repetitions, "repetition"))
		pl.errorf(w.Line, 0, where, "%.0f cells (%s) are more than %d, the most a study plans (%s): sweep fewer values, or split the study",
			wp.cells, strings.Join(axes, " × "), maxCells, whyMaxCells)
		return wp
	}
	if pl.failed() {
		return wp
	}
	wp.cross(specs)
	return wp
}

// coerceParams replaces each value of the workload's parameters by its
// spec's type, reporting a parameter the kind does not have and a value that
// does not fit.
func (pl *planner) coerceParams(w *Workload, specs []params.Spec, where string) {
	for k, vals := range w.Params {
		spec, ok := params.Find(specs, k)
		if !ok {
			pl.errorf(w.Line, 0, where, "%q is not a parameter of kind %q (%s)", k, w.Kind, strings.Join(specNames(specs), ", "))
			continue
		}
		if len(vals) == 0 {
			pl.errorf(w.Line, 0, where, "%s has no values", k)
			continue
		}
		for i, v := range vals {
			c, err := params.Coerce(spec, v)
			if err != nil {
				pl.errorf(w.Line, 0, where, "%v", err)
				continue
			}
			vals[i] = c
		}
	}
}

// cross sets the plan's combinations of parameter values, each with the
// kind's defaults, and the parameters that shape the loaded data.
func (wp *workPlan) cross(specs []params.Spec) {
	// The cartesian product nests in the kind's spec order, first parameter
	// outermost, so the plan reads the way the kind documents its parameters;
	// except that the parameters that shape the loaded data come first, so
	// that the cells of one data set run together and each is loaded once
	// per repetition round, not at every switch (two scales on one database).
	cs := []params.Values{{}}
	ordered := slices.Clone(specs)
	slices.SortStableFunc(ordered, func(a, b params.Spec) int {
		switch {
		case a.Data && !b.Data:
			return -1
		case b.Data && !a.Data:
			return 1
		}
		return 0
	})
	for _, spec := range ordered {
		if spec.Data {
			wp.data = append(wp.data, spec.Name)
		}
		vals, swept := wp.w.Params[spec.Name]
		if !swept {
			continue
		}
		next := make([]params.Values, 0, len(cs)*len(vals))
		for _, c := range cs {
			for _, v := range vals {
				n := maps.Clone(c)
				n[spec.Name] = v
				next = append(next, n)
			}
		}
		cs = next
	}
	for _, c := range cs {
		wp.combos = append(wp.combos, params.WithDefaults(specs, c))
	}
}

// levels resolves a workload's clients sweep on one target. Percentages are of
// the target's hardware threads, so that "half the cores" means the same load
// factor on a 4-core and a 64-core machine; clients_per_thread scales only those,
// since a literal count already says exactly how many clients to run.
//
// A share that comes to a count the target already runs is that cell: one
// count runs once per target, under the level that named it first.
func (pl *planner) levels(w *Workload, t *Target, where string) ([]level, bool) {
	threads := t.Cores
	if threads <= 0 && driver.Local(t.URL) {
		threads = runtime.NumCPU()
	}
	var out []level
	for pos, c := range w.Clients {
		n, share := c.N, ""
		if c.Percent > 0 {
			share = c.String()
			if threads <= 0 {
				line, col := w.clientsLine, w.clientsCol
				if line == 0 {
					line, col = w.Line, 0
				}
				at := ""
				if t.Line > 0 {
					at = fmt.Sprintf(" (line %d)", t.Line)
				}
				pl.errorf(line, col, where,
					"clients: target %q has no cores: set cores = N in its [[target]] table%s to use percentages", t.Name, at)
				return nil, false
			}
			// The epsilon keeps exact products such as 70% of 10 from flooring
			// to 6 through float rounding.
			k := int(math.Floor(c.Percent*float64(threads)/100 + 1e-9))
			n = max(1, k) * w.ClientsPerThread
			if n > params.MaxClients {
				pl.errorf(w.Line, 0, where, "clients: %v%% of target %q's %d threads × clients_per_thread %d is %d clients, more than %d, the most a cell runs",
					c.Percent, t.Name, threads, w.ClientsPerThread, n, params.MaxClients)
				return nil, false
			}
		}
		if w.Generators > 1 && n < w.Generators {
			line, col := w.clientsLine, w.clientsCol
			if line == 0 {
				line, col = w.Line, 0
			}
			pl.errorf(line, col, where, "clients: %d on target %q cannot be split over generators = %d: give at least one client per load generator", n, t.Name, w.Generators)
			return nil, false
		}
		if !slices.ContainsFunc(out, func(l level) bool { return l.n == n }) {
			out = append(out, level{n, share, pos})
		}
	}
	return out, true
}

func targetLabel(t *Target, i int) string {
	if t.Name != "" {
		return fmt.Sprintf("target %q", t.Name)
	}
	return fmt.Sprintf("target #%d", i+1)
}
