package runner

// Several load generators per cell. One machine's client saturates long
// before a large server does, so a cell can be measured by N load
// generators at once, each running the cell's executor on its share of the
// clients. They coordinate through the results store only (store/coord.go):
// the coordinator prepares the data, publishes the cell, waits until every
// generator has its clients connected, writes a start time on the store's
// clock, and merges the partial runs the generators write back
// (MergeRuns: exact histograms and series). A generator that stops
// answering fails the cell by name; what the others stored stays.

import (
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"runtime"
	"slices"
	"strings"
	"time"

	"github.com/fairbench/fairbench/internal/redact"
	"github.com/fairbench/fairbench/internal/result"
	"github.com/fairbench/fairbench/internal/store"
	"github.com/fairbench/fairbench/internal/study"
	"github.com/fairbench/fairbench/internal/workload"
)

// Distribution configures the runner for cells on several load generators.
type Distribution struct {
	// Store is the shared results store the processes coordinate through.
	Store *store.Store
	// Generators, when > 0, overrides every workload's generators (the
	// --generators flag).
	Generators int
	// Spawn starts load generator index of session sid (local processes);
	// nil: the generators start elsewhere (Kubernetes) and register.
	Spawn func(ctx context.Context, sid int64, index int) error
	// ReadyTimeout bounds the wait for every generator to register and
	// connect its clients; 0 = 5 min (pods are scheduled and pull images).
	ReadyTimeout time.Duration
	// StaleAfter is how long a generator may go without a heartbeat before
	// the cell fails naming it; 0 = 15 s.
	StaleAfter time.Duration
}

// NodeEnv names the environment variable that tells a load generator which
// machine it runs on when its hostname does not (a Kubernetes pod's is the
// pod's name; k8s render gives spec.nodeName under this name). It is
// recorded with the generator's part, so that generators sharing a machine
// are seen to.
const NodeEnv = "FAIRBENCH_NODE_NAME"

const (
	heartbeatEvery = 2 * time.Second
	pollEvery      = 200 * time.Millisecond
	// startLead is how far ahead of the store's now a cell's start is set:
	// every generator must read it before it passes.
	startLead = 1500 * time.Millisecond
	// maxClockSkew is the clock offset to the store above which a
	// generator's run carries a warning: its seconds and the others' are
	// then aligned only to that precision.
	maxClockSkew = 5 * time.Millisecond
	// coordinatorStale: a generator gives up on a session whose
	// coordinator has not beaten for this long (it may be measuring a cell
	// of its own meanwhile, but its heartbeat runs beside).
	coordinatorStale = time.Minute
)

func (d *Distribution) readyTimeout() time.Duration {
	if d.ReadyTimeout > 0 {
		return d.ReadyTimeout
	}
	return 5 * time.Minute
}

func (d *Distribution) staleAfter() time.Duration {
	if d.StaleAfter > 0 {
		return d.StaleAfter
	}
	return 15 * time.Second
}

// generatorsOf is how many load generators measure cell c.
func (r *Runner) generatorsOf(c study.Cell) int {
	if c.Workload.Tool != "" {
		return 1
	}
	if d := r.opt.Distribution; d != nil && d.Generators > 0 {
		return d.Generators
	}
	return c.Workload.Generators
}

// share is generator index's clients among clients split over n generators
// (workload.Share); base is its first client slot.
func share(clients, n, index int) (base, count int) {
	b, c := workload.Share(int64(clients), n, index)
	return int(b), int(c)
}

// coordination is the coordinator's side of a study on several generators.
type coordination struct {
	sid   int64
	seq   int
	clock store.ClockSample
	// pendingSeq is the cell whose merged run the sink is storing: once it
	// has an id, the cell's row points to it.
	pendingSeq    int
	stopHeartbeat context.CancelFunc
}

// heartbeat calls beat every heartbeatEvery until ctx ends.
func heartbeat(ctx context.Context, beat func(context.Context) error) {
	t := time.NewTicker(heartbeatEvery)
	defer t.Stop()
	for {
		select {
		case <-t.C:
			_ = beat(ctx) // a missed beat shows as a late one; the next may pass
		case <-ctx.Done():
			return
		}
	}
}

// session opens the coordinator's session on the first distributed cell,
// and starts the local generators when the runner spawns them.
func (r *Runner) session(ctx context.Context, n int) (*coordination, error) {
	d := r.opt.Distribution
	if d == nil || d.Store == nil {
		return nil, errors.New("several load generators coordinate through a results store: none was given")
	}
	if r.coord != nil {
		return r.coord, nil
	}
	clock, err := d.Store.Clock(ctx)
	if err != nil {
		return nil, err
	}
	sid, err := d.Store.OpenSession(ctx, r.st.Hash, r.st.Name, r.st.Seed, n, clock.Now())
	if err != nil {
		return nil, err
	}
	hbCtx, stopHB := context.WithCancel(context.WithoutCancel(ctx))
	r.coord = &coordination{sid: sid, clock: clock, stopHeartbeat: stopHB}
	go heartbeat(hbCtx, func(ctx context.Context) error { return d.Store.SessionHeartbeat(ctx, sid, clock.Now()) })
	fmt.Fprintf(r.opt.Progress, "coordination session %d in %s: %d load generators\n", sid, d.Store.Path(), n)
	if d.Spawn != nil {
		for i := range n {
			if err := d.Spawn(ctx, sid, i); err != nil {
				return nil, fmt.Errorf("starting load generator %d: %w", i, err)
			}
		}
	}
	return r.coord, nil
}

// endSession closes the coordinator's session, if one was opened: its
// generators see it and exit.
func (r *Runner) endSession(ctx context.Context) error {
	if r.coord == nil {
		return nil
	}
	d := r.opt.Distribution
	r.coord.stopHeartbeat()
	err := d.Store.EndSession(context.WithoutCancel(ctx), r.coord.sid, store.SessionDone, r.coord.clock.Now())
	r.coord = nil
	return err
}

// stored links the cell whose merged run the sink just stored to that run.
func (r *Runner) stored(run *result.Run) {
	if r.coord == nil || r.coord.pendingSeq == 0 {
		return
	}
	seq := r.coord.pendingSeq
	r.coord.pendingSeq = 0
	status := store.CellMerged
	if run.Status != result.StatusOK {
		status = store.CellFailed
	}
	if err := r.opt.Distribution.Store.EndCell(context.Background(), r.coord.sid, seq, status, run.ID, run.Error); err != nil {
		fmt.Fprintf(r.opt.Progress, "  %s\n", redact.Scrub(err.Error()))
	}
}

// runOnGenerators is RunCell for a cell measured by n load generators: the
// coordinator's side.
func (r *Runner) runOnGenerators(ctx context.Context, c study.Cell, n int) (*result.Run, error) {
	run := r.newRun(c)
	co, err := r.session(ctx, n)
	if err != nil {
		return failRun(ctx, run, err)
	}
	if c.Clients < n {
		return failRun(ctx, run, fmt.Errorf("clients = %d cannot be split over %d load generators: give at least one client per generator", c.Clients, n))
	}
	cs, err := r.setupCell(ctx, c, run, false)
	if err != nil {
		return failRun(ctx, run, err)
	}
	defer cs.close(ctx)
	if err := splittable(cs.shape, c, n); err != nil {
		return failRun(ctx, run, err)
	}
	if err := r.beforeRun(ctx); err != nil { // hooks.go
		return failRun(ctx, run, err)
	}
	st := r.opt.Distribution.Store
	co.seq++
	seq := co.seq
	co.pendingSeq = seq
	// A cell that ends here, before or after its generators ran, is marked
	// so: generators stop waiting for it.
	fail := func(err error) (*result.Run, error) {
		if ferr := st.EndCell(context.WithoutCancel(ctx), co.sid, seq, store.CellFailed, 0, redact.Scrub(err.Error())); ferr != nil {
			fmt.Fprintf(r.opt.Progress, "  %s\n", redact.Scrub(ferr.Error()))
		}
		return failRun(ctx, run, err)
	}
	if err := st.PublishCell(ctx, co.sid, seq, c.Key()); err != nil {
		co.pendingSeq = 0
		return failRun(ctx, run, err)
	}
	if _, err := r.awaitParts(ctx, co, seq, n, store.PartReady, time.Now().Add(r.opt.Distribution.readyTimeout()), "get ready", nil); err != nil {
		return fail(err)
	}
	// The database's own counters are the coordinator's to read: each
	// generator's window would hold every generator's work.
	sc := &serverCounts{}
	if read := cs.hooks.ServerCounts; read != nil {
		sc = &serverCounts{read: read, conn: cs.admin}
	}
	if err := sc.snapshot(ctx); err != nil {
		return fail(err)
	}
	co.clock, err = st.Clock(ctx) // the clock may have drifted since the session began
	if err != nil {
		return fail(err)
	}
	startAt := co.clock.Now().Add(startLead)
	if err := st.StartCell(ctx, co.sid, seq, startAt); err != nil {
		return fail(err)
	}
	fmt.Fprintf(r.opt.Progress, "  %d load generators start at %s (store clock)\n", n, startAt.UTC().Format("15:04:05.000"))
	totals := r.newPartTotals(c.Workload.Kind, c.Clients, n)
	if c.Warmup > 0 && sc.read != nil {
		if err := r.watchParts(ctx, co, seq, co.clock.Local(startAt).Add(c.Warmup), totals); err != nil {
			return fail(err)
		}
		if err := sc.snapshot(ctx); err != nil {
			return fail(err)
		}
		run.Deviations = append(run.Deviations, "the database's own counters were read by the coordinator at the agreed end of the warm-up, not at each generator's")
	}
	deadline := co.clock.Local(startAt).Add(c.Warmup + cs.c.Duration + r.opt.Distribution.staleAfter() + time.Minute)
	parts, err := r.awaitParts(ctx, co, seq, n, store.PartDone, deadline, "send its partial run",
		func() { totals.poll(ctx, st, co.sid, seq) })
	if err != nil {
		return fail(err)
	}
	var runs []*result.Run
	var failed []string
	gens, _ := st.Generators(ctx, co.sid)
	for _, p := range parts {
		if p.Status == store.PartFailed {
			failed = append(failed, fmt.Sprintf("load generator %d%s: %s", p.Generator, hostOf(gens, p.Generator), p.Error))
		}
		if p.Run != nil {
			runs = append(runs, p.Run)
		}
	}
	if len(runs) != n {
		return fail(errors.New(strings.Join(failed, "; ")))
	}
	merged, err := mergeRuns(runs, cs.shape.Waits)
	if err != nil {
		return fail(err)
	}
	// The merged run is the cell's, under the coordinator's identity and
	// environment; each generator's environment stays under "generators".
	genEnvs := merged.Env.Generators
	merged.ID = 0
	merged.Source, merged.StudyName, merged.StudyHash = run.Source, run.StudyName, run.StudyHash
	merged.CellKey, merged.CellIndex, merged.Target, merged.TargetURL = run.CellKey, run.CellIndex, run.Target, run.TargetURL
	merged.Workload, merged.Kind, merged.Params, merged.Clients = run.Workload, run.Kind, run.Params, c.Clients
	merged.Repetition, merged.Warmup, merged.ToolVersion = run.Repetition, run.Warmup, run.ToolVersion
	merged.Env = run.Env
	merged.Env.Generators = genEnvs
	merged.Env.LoadGenerators = generatorFacts(runs)
	merged.Deviations = append(append([]string{}, run.Deviations...), partDeviations(runs, run.Deviations)...)
	if len(failed) > 0 {
		merged.Status, merged.Error = result.StatusFailed, strings.Join(failed, "; ")
	}
	if t := cs.shape; t.AddTallies != nil {
		for _, p := range runs {
			t.AddTallies(p.Env.WorkloadTallies)
		}
	}
	if err := sc.growth(ctx, &merged.Summary.Extra); err != nil {
		merged.Deviations = append(merged.Deviations, err.Error())
	}
	var runErr error
	if merged.Status != result.StatusOK {
		runErr = errors.New(merged.Error)
	}
	return r.finishRun(ctx, cs, merged, runErr)
}

// splittable refuses cells whose work cannot yet be shared by generators.
func splittable(shape workload.Shape, c study.Cell, n int) error {
	if shape.Split != nil {
		// The coordinator's instance runs no client: splitting it only
		// asks whether the work can be shared.
		if err := shape.Split(0, n); err != nil {
			return err
		}
	}
	switch shape.End.Kind() {
	case workload.EndSelf:
		if shape.Split == nil {
			return fmt.Errorf("workload %s ends when its clients have done a fixed amount of work, which is not split over load generators yet: run it on one generator", c.Workload.Kind)
		}
	case workload.EndTries:
		return fmt.Errorf("workload %s runs a fixed query set, which is not split over load generators: run it on one generator", c.Workload.Kind)
	}
	return nil
}

func hostOf(gens []store.Generator, index int) string {
	for _, g := range gens {
		if g.Index == index && g.Host != "" {
			return fmt.Sprintf(" (%s, pid %d)", g.Host, g.PID)
		}
	}
	return ""
}

// watchParts shows the generators' per-second totals of cell seq until
// the time until.
func (r *Runner) watchParts(ctx context.Context, co *coordination, seq int, until time.Time, totals *partTotals) error {
	for time.Now().Before(until) {
		totals.poll(ctx, r.opt.Distribution.Store, co.sid, seq)
		select {
		case <-time.After(min(pollEvery, time.Until(until))):
		case <-ctx.Done():
			return ErrInterrupted
		}
	}
	return nil
}

// awaitParts waits until every one of n generators has a part of cell seq
// in state want (or failed, once want is PartDone). It fails, naming them,
// when generators stop their heartbeats, never register, or miss deadline.
// watch, when given, is called at every poll (partTotals.poll).
func (r *Runner) awaitParts(ctx context.Context, co *coordination, seq, n int, want string, deadline time.Time, what string, watch func()) ([]store.Part, error) {
	d := r.opt.Distribution
	st := d.Store
	stale := d.staleAfter()
	for {
		parts, err := st.Parts(ctx, co.sid, seq)
		if err != nil {
			return nil, err
		}
		if watch != nil {
			watch()
		}
		have := map[int]store.Part{}
		for _, p := range parts {
			have[p.Generator] = p
		}
		var missing []int
		for i := range n {
			p, ok := have[i]
			if !ok || !(p.Status == want || (want == store.PartDone && p.Status == store.PartFailed)) {
				missing = append(missing, i)
			}
		}
		if len(missing) == 0 {
			return parts, nil
		}
		if want == store.PartReady {
			for _, p := range parts {
				if p.Status == store.PartFailed {
					return nil, fmt.Errorf("load generator %d could not %s: %s", p.Generator, what, p.Error)
				}
			}
		}
		gens, err := st.Generators(ctx, co.sid)
		if err != nil {
			return nil, err
		}
		now := co.clock.Now()
		var gone []string
		for _, i := range missing {
			for _, g := range gens {
				if g.Index == i && now.Sub(g.SeenAt) > stale {
					gone = append(gone, fmt.Sprintf("load generator %d%s sent no heartbeat for %.0f s", i, hostOf(gens, i), now.Sub(g.SeenAt).Seconds()))
				}
			}
		}
		if len(gone) > 0 {
			return nil, errors.New(strings.Join(gone, "; ") + ": it stopped; the other generators' partial runs are kept in the results store")
		}
		if time.Now().After(deadline) {
			var names []string
			for _, i := range missing {
				registered := false
				for _, g := range gens {
					registered = registered || g.Index == i
				}
				if registered {
					names = append(names, fmt.Sprintf("load generator %d%s did not %s in time", i, hostOf(gens, i), what))
				} else {
					names = append(names, fmt.Sprintf("load generator %d never registered", i))
				}
			}
			return nil, errors.New(strings.Join(names, "; "))
		}
		select {
		case <-time.After(pollEvery):
		case <-ctx.Done():
			return nil, ErrInterrupted
		}
	}
}

// generatorFacts is what the report shows per load generator: its clients,
// throughput and CPU, and its clock against the store's. The parts come in
// generator order (store.Parts).
func generatorFacts(runs []*result.Run) []result.LoadGenerator {
	out := make([]result.LoadGenerator, 0, len(runs))
	for _, p := range runs {
		var f result.LoadGenerator
		if p.Env.LoadGenerator != nil {
			f = *p.Env.LoadGenerator
		}
		f.Clients = p.Clients
		f.Throughput = &p.Summary.Throughput
		if p.Summary.Metric != nil {
			f.Headline = &p.Summary.Metric.Value
		}
		f.ClientCPUSeconds = &p.Summary.ClientCPU
		out = append(out, f)
	}
	return out
}

// partDeviations carries into the merged run what a generator deviated in
// beyond the coordinator's own (the workload's, the same everywhere): a late
// start, a skewed clock, named by generator.
func partDeviations(runs []*result.Run, have []string) []string {
	var out []string
	for _, p := range runs {
		var index int
		if g := p.Env.LoadGenerator; g != nil {
			index = g.Index
		}
		for _, d := range p.Deviations {
			if !slices.Contains(have, d) {
				out = append(out, fmt.Sprintf("load generator %d: %s", index, d))
			}
		}
	}
	return out
}

// GenerateOptions says which load generator this process is.
type GenerateOptions struct {
	Index int
	// Session is the coordinator's session to join; 0: the newest open
	// session of the study (a generator started by Kubernetes).
	Session int64
	// Wait bounds the wait for that session to appear; 0 = 10 min.
	Wait time.Duration
}

// Generate runs this process as load generator opt.Index of the study: it
// joins the coordinator's session, measures its share of every cell the
// coordinator publishes, and returns when the session ends.
func (r *Runner) Generate(ctx context.Context, cells []study.Cell, opt GenerateOptions) error {
	d := r.opt.Distribution
	if d == nil || d.Store == nil {
		return errors.New("a load generator needs the coordinator's results store (--results postgres://…)")
	}
	for {
		err := r.generate(ctx, d.Store, cells, opt)
		if !errors.Is(err, errSessionReplaced) {
			return err
		}
		// A generator that found a dead coordinator's session (started
		// before the new coordinator) joins the one that replaced it.
		fmt.Fprintf(r.opt.Progress, "load generator %d: a newer coordinator replaced the session: joining it\n", opt.Index)
	}
}

var errSessionReplaced = errors.New("the session was replaced by a newer coordinator's")

func (r *Runner) generate(ctx context.Context, st *store.Store, cells []study.Cell, opt GenerateOptions) error {
	wait := opt.Wait
	if wait <= 0 {
		wait = 10 * time.Minute
	}
	var ss store.Session
	for until := time.Now().Add(wait); ; {
		var ok bool
		var err error
		if ss, ok, err = st.FindSession(ctx, opt.Session, r.st.Hash); err != nil {
			return err
		}
		if ok {
			break
		}
		if time.Now().After(until) {
			return fmt.Errorf("no coordinator opened a session for study %q in %s within %s: start 'fairbench run' with the same study and --results", r.st.Name, st.Path(), wait)
		}
		select {
		case <-time.After(time.Second):
		case <-ctx.Done():
			return ErrInterrupted
		}
	}
	if ss.Status != store.SessionOpen {
		return fmt.Errorf("coordination session %d is %s", ss.ID, ss.Status)
	}
	if opt.Index < 0 || opt.Index >= ss.Generators {
		return fmt.Errorf("load generator %d: the coordinator's session %d has generators 0 to %d", opt.Index, ss.ID, ss.Generators-1)
	}
	// The coordinator's seed: an ad hoc study draws its own at each start.
	r.st.Seed = ss.Seed
	clock, err := st.Clock(ctx)
	if err != nil {
		return err
	}
	host, _ := os.Hostname()
	now := clock.Now()
	if err := st.Register(ctx, ss.ID, store.Generator{Index: opt.Index, Host: host, PID: os.Getpid(), RegisteredAt: now, SeenAt: now, Clock: clock}); err != nil {
		return err
	}
	fmt.Fprintf(r.opt.Progress, "load generator %d joined session %d (clock offset to the store %+.3f ms, round trip %.3f ms)\n",
		opt.Index, ss.ID, float64(clock.Offset)/1e6, float64(clock.RTT)/1e6)
	hbCtx, stopHB := context.WithCancel(context.WithoutCancel(ctx))
	defer stopHB()
	go heartbeat(hbCtx, func(ctx context.Context) error { return st.Heartbeat(ctx, ss.ID, opt.Index, clock.Now()) })
	byKey := map[string]study.Cell{}
	for _, c := range cells {
		byKey[c.Key()] = c
	}
	g := &generator{r: r, st: st, sid: ss.ID, index: opt.Index, n: ss.Generators, clock: clock, host: host, cpus: runtime.GOMAXPROCS(0)}
	last := 0
	for {
		cur, ok, err := st.FindSession(ctx, ss.ID, "")
		if err != nil {
			return err
		}
		if ok && cur.Status == store.SessionAbandoned && opt.Session == 0 {
			return errSessionReplaced
		}
		if ok && cur.Status != store.SessionOpen {
			fmt.Fprintf(r.opt.Progress, "load generator %d: the coordinator closed session %d\n", opt.Index, ss.ID)
			return nil
		}
		if quiet := clock.Now().Sub(cur.SeenAt); ok && quiet > coordinatorStale {
			return fmt.Errorf("load generator %d: the coordinator of session %d sent no heartbeat for %.0f s: it stopped; start it again ('fairbench run … --resume') and this generator with it", opt.Index, ss.ID, quiet.Seconds())
		}
		cc, ok, err := st.NextCell(ctx, ss.ID, last)
		if err != nil {
			return err
		}
		if !ok {
			select {
			case <-time.After(pollEvery):
				continue
			case <-ctx.Done():
				return ErrInterrupted
			}
		}
		last = cc.Seq
		if cc.Status != store.CellAssigned {
			continue // over before this generator came (a restarted pod)
		}
		c, ok := byKey[cc.CellKey]
		if !ok {
			why := fmt.Sprintf("load generator %d has no cell %q in its copy of the study: give every generator the coordinator's study file", opt.Index, cc.CellKey)
			_ = st.SetPart(ctx, ss.ID, cc.Seq, opt.Index, store.PartFailed, nil, why, clock.Now())
			continue
		}
		if err := g.runCell(ctx, cc.Seq, c); errors.Is(err, ErrInterrupted) {
			return err
		}
	}
}

// generator is this process's side of a distributed study.
type generator struct {
	r        *Runner
	st       *store.Store
	sid      int64
	index, n int
	clock    store.ClockSample
	host     string
	// cpus is the CPUs this process may use: GOMAXPROCS as Go set it at
	// start, which follows a container's CPU limit (a pod's), where the
	// machine's count would not.
	cpus int
}

// runCell measures this generator's share of cell seq and stores the part.
func (g *generator) runCell(ctx context.Context, seq int, c study.Cell) error {
	r := g.r
	fmt.Fprintf(r.opt.Progress, "[cell %d] %s\n", seq, cellLabel(c))
	base, count := share(c.Clients, g.n, g.index)
	part := c
	wl := *c.Workload
	wl.Rate = c.Workload.Rate * float64(count) / float64(c.Clients)
	part.Workload, part.Clients = &wl, count
	run := r.newRun(part)
	run.CellKey = c.Key() // the cell's, whose share this is
	failPart := func(err error) error {
		failRun(ctx, run, err)
		var body *result.Run
		if len(run.Ops) > 0 {
			body = run
		}
		if serr := g.st.SetPart(context.WithoutCancel(ctx), g.sid, seq, g.index, store.PartFailed, body, run.Error, g.clock.Now()); serr != nil {
			fmt.Fprintf(r.opt.Progress, "  %s\n", redact.Scrub(serr.Error()))
		}
		fmt.Fprintf(r.opt.Progress, "  failed: %s\n", run.Error)
		return err
	}
	cs, err := r.setupCell(ctx, part, run, true)
	if err != nil {
		return failPart(err)
	}
	defer cs.close(ctx)
	if cs.shape.Split != nil {
		if err := cs.shape.Split(g.index, g.n); err != nil {
			return failPart(err)
		}
	}
	// The coordinator may end the cell (a generator died, Ctrl-C): the
	// run then stops as an interrupted one would.
	runCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	m := &executor{
		r: r, cell: cs.c, bound: cs.bound, run: run, out: r.opt.Progress, client: cs.client, admin: cs.admin,
		slotBase: base, slots: c.Clients, noServerCounts: true,
		beforeStart: func(ctx context.Context) (time.Time, error) {
			if err := g.st.SetPart(ctx, g.sid, seq, g.index, store.PartReady, nil, "", g.clock.Now()); err != nil {
				return time.Time{}, err
			}
			for {
				cc, _, err := g.st.Cell(ctx, g.sid, seq)
				if err != nil {
					return time.Time{}, err
				}
				switch cc.Status {
				case store.CellStarted:
					go g.watch(runCtx, seq, cancel)
					return g.clock.Local(cc.StartAt), nil
				case store.CellFailed, store.CellMerged:
					return time.Time{}, fmt.Errorf("the coordinator ended the cell before it started: %s", cc.Error)
				}
				select {
				case <-time.After(pollEvery / 4):
				case <-ctx.Done():
					return time.Time{}, ErrInterrupted
				}
			}
		},
	}
	// The readings go to the part for the coordinator's per-second totals.
	pubCtx, stopPub := context.WithCancel(runCtx)
	pub := publishProgress(pubCtx, func(ctx context.Context, ticks []store.PartTick) error {
		return g.st.SetPartProgress(ctx, g.sid, seq, g.index, ticks, g.clock.Now())
	})
	m.onTick = pub.tick
	err = m.execute(runCtx)
	stopPub()
	if perr := pub.stop(); perr != nil {
		fmt.Fprintf(r.opt.Progress, "  the per-second readings did not reach the coordinator: %s\n", redact.Scrub(perr.Error()))
	}
	if t := cs.shape; t.Tallies != nil {
		run.Env.WorkloadTallies = t.Tallies()
	}
	facts := &result.LoadGenerator{
		Index: g.index, Host: g.host, Node: os.Getenv(NodeEnv), PID: os.Getpid(), CPUs: g.cpus,
		FirstSlot: base, Clients: count,
		ClockOffsetMS: float64(g.clock.Offset) / 1e6, ClockRTTMS: float64(g.clock.RTT) / 1e6,
	}
	if run.Duration > 0 {
		// ClientCPU is CPU seconds over the measured phase.
		pct := math.Round(1000*run.Summary.ClientCPU/(run.Duration.Seconds()*float64(g.cpus))) / 10
		facts.CPUPercent = &pct
	}
	run.Env.LoadGenerator = facts
	if off := g.clock.Offset; off > maxClockSkew || off < -maxClockSkew {
		run.Deviations = append(run.Deviations, fmt.Sprintf("this load generator's clock is %+.1f ms off the results store's (measured within ±%.1f ms): its seconds align with the others' to that precision", float64(off)/1e6, float64(g.clock.RTT)/2e6))
	}
	if err != nil && run.Status == "" {
		return failPart(err)
	}
	status := store.PartDone
	if run.Status != result.StatusOK {
		status = store.PartFailed
	}
	if err := g.st.SetPart(context.WithoutCancel(ctx), g.sid, seq, g.index, status, run, run.Error, g.clock.Now()); err != nil {
		return err
	}
	fmt.Fprintf(r.opt.Progress, "  part stored: %d clients, %.1f ops/s\n", count, run.Summary.Throughput)
	return nil
}

// watch cancels the running part when the coordinator fails the cell.
func (g *generator) watch(ctx context.Context, seq int, cancel context.CancelFunc) {
	t := time.NewTicker(time.Second)
	defer t.Stop()
	for {
		select {
		case <-t.C:
			cc, ok, err := g.st.Cell(ctx, g.sid, seq)
			if err == nil && ok && cc.Status == store.CellFailed {
				cancel()
				return
			}
		case <-ctx.Done():
			return
		}
	}
}
