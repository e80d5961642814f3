// Package runner executes a plan: for each cell it prepares the data, runs the
// warm-up, measures with one connection per client (closed loop, or a fixed-rate
// schedule free of coordinated omission), prints per-second progress, and hands
// the finished run to a sink at once, so an interruption loses nothing that finished.
package runner

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"runtime"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/fairbench/fairbench/internal/driver"
	"github.com/fairbench/fairbench/internal/envinfo"
	"github.com/fairbench/fairbench/internal/fastpath"
	"github.com/fairbench/fairbench/internal/hist"
	"github.com/fairbench/fairbench/internal/kinds"
	"github.com/fairbench/fairbench/internal/nodeexp"
	"github.com/fairbench/fairbench/internal/params"
	"github.com/fairbench/fairbench/internal/result"
	"github.com/fairbench/fairbench/internal/study"
	"github.com/fairbench/fairbench/internal/version"
	"github.com/fairbench/fairbench/internal/workload"
)

// Sink receives each run the moment it ends.
type Sink interface {
	AppendRun(r *result.Run) (int64, error)
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
	Progress io.Writer     // per-second progress and phase messages; nil = quiet
	Every    time.Duration // progress interval; 0 = 1 s
	Replace  bool          // allow replacing data fairbench did not create
	Skip     map[string]bool
	// Check runs the workload's consistency check after each run; a failed check
	// marks the run failed.
	Check bool
	// ConnectTimeout bounds connecting to a target; 0 = 10 s.
	ConnectTimeout time.Duration
	// NoTickLines drops the per-tick progress lines (the series is still kept);
	// NoCellHeaders drops the "[i/n] target=…" line before each cell.
	NoTickLines, NoCellHeaders bool
}

// ErrInterrupted is returned when the context was cancelled (Ctrl-C) during a study.
var ErrInterrupted = errors.New("interrupted")

// TargetError is a failure that belongs to one target, printed as one line.
type TargetError struct {
	Target string
	URL    string
	Err    error
}

func (e *TargetError) Error() string {
	where := fmt.Sprintf("target %q (%s)", e.Target, driver.Redacted(e.URL))
	if e.Target == driver.Redacted(e.URL) {
		where = "target " + e.Target // ad-hoc targets are named by their URL
	}
	return where + ": " + envinfo.Scrub(e.Err.Error())
}

func (e *TargetError) Unwrap() error { return e.Err }

// Runner executes cells of one study.
type Runner struct {
	st   *study.Study
	opt  Options
	envs map[string]map[string]any // per target: captured environment
}

// New prepares a runner for a study.
func New(st *study.Study, opt Options) *Runner {
	if opt.Every <= 0 {
		opt.Every = time.Second
	}
	if opt.ConnectTimeout <= 0 {
		opt.ConnectTimeout = 10 * time.Second
	}
	if opt.Progress == nil {
		opt.Progress = io.Discard
	}
	for _, t := range st.Targets {
		registerSecrets(t.URL)
	}
	return &Runner{st: st, opt: opt, envs: map[string]map[string]any{}}
}

// registerSecrets keeps the URL's password out of every message.
func registerSecrets(raw string) {
	for _, sec := range driver.Secrets(raw) {
		envinfo.AddSecret(sec)
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
		env := map[string]any{}
		if e := environment(cl, conn); e != nil {
			if got, err := e.Environment(ctx); err == nil {
				env = got
			} else {
				env["error"] = envinfo.Scrub(err.Error())
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
		return nil, &TargetError{Target: t.Name, URL: t.URL, Err: err}
	}
	cctx, cancel := context.WithTimeout(ctx, r.opt.ConnectTimeout)
	defer cancel()
	cl, err := d.Open(cctx, driver.Target{Name: t.Name, URL: t.URL}, o)
	if err != nil {
		if ctx.Err() != nil {
			return nil, ErrInterrupted
		}
		return nil, &TargetError{Target: t.Name, URL: t.URL, Err: err}
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
		return nil, &TargetError{Target: t.Name, URL: t.URL, Err: err}
	}
	return conn, nil
}

func bind(c study.Cell) (workload.Instance, error) {
	w, err := workload.Get(c.Workload.Kind)
	if err != nil {
		return nil, err
	}
	return w.New(c.Params)
}

// Run executes the cells in order, skipping those in Options.Skip. It stops at the
// first interruption and returns ErrInterrupted; a cell that fails is stored as a
// failed run and the study goes on.
func (r *Runner) Run(ctx context.Context, cells []study.Cell) error {
	var failed []string
	for i, c := range cells {
		if r.opt.Skip[c.Key()] {
			fmt.Fprintf(r.opt.Progress, "[%d/%d] %s: already done, skipped (--resume)\n", i+1, len(cells), cellLabel(c))
			continue
		}
		if !r.opt.NoCellHeaders {
			fmt.Fprintf(r.opt.Progress, "[%d/%d] %s\n", i+1, len(cells), cellLabel(c))
		}
		run, err := r.RunCell(ctx, c)
		if run != nil {
			if _, serr := r.opt.Sink.AppendRun(run); serr != nil {
				return fmt.Errorf("storing run of cell %d: %w", c.Index, serr)
			}
		}
		if errors.Is(err, ErrInterrupted) {
			return ErrInterrupted
		}
		if err != nil {
			fmt.Fprintf(r.opt.Progress, "  failed: %s\n", envinfo.Scrub(err.Error()))
			failed = append(failed, fmt.Sprintf("cell %d (%s)", i+1, cellLabel(c)))
		}
		if cd := c.Cooldown; cd > 0 && i < len(cells)-1 {
			select {
			case <-time.After(cd):
			case <-ctx.Done():
				return ErrInterrupted
			}
		}
	}
	if len(failed) > 0 {
		return fmt.Errorf("%d of %d cells failed: %s", len(failed), len(cells), strings.Join(failed, "; "))
	}
	return nil
}

func cellLabel(c study.Cell) string {
	return fmt.Sprintf("target=%s workload=%s %s clients=%d rep=%d",
		c.Target.Name, c.Workload.Name, varyingParams(c), c.Clients, c.Repetition)
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

// RunCell executes one cell and returns its run (nil only if nothing was attempted).
func (r *Runner) RunCell(ctx context.Context, c study.Cell) (*result.Run, error) {
	if c.Workload.Tool != "" {
		return r.runExternal(ctx, c) // external.go
	}
	run := &result.Run{
		Source: "fairbench", StudyName: r.st.Name, StudyHash: r.st.Hash,
		CellKey: c.Key(), CellIndex: c.Index,
		Target: c.Target.Name, TargetURL: driver.Redacted(c.Target.URL),
		Workload: c.Workload.Name, Kind: c.Workload.Kind,
		Params: c.Params.JSONable(), Clients: c.Clients, Repetition: c.Repetition,
		Warmup: c.Warmup, ToolVersion: version.String(),
		StartedAt: time.Now(),
	}
	fail := func(err error) (*result.Run, error) {
		if errors.Is(err, ErrInterrupted) || ctx.Err() != nil {
			run.Status = result.StatusInterrupted
			run.Error = "interrupted before the measured phase"
			run.EndedAt = time.Now()
			return run, ErrInterrupted
		}
		run.Status = result.StatusFailed
		run.Error = envinfo.Scrub(err.Error())
		run.EndedAt = time.Now()
		return run, err
	}
	inst, err := bind(c)
	if err != nil {
		return fail(err)
	}
	var copts driver.Options
	if co, ok := inst.(workload.ConnOptioner); ok {
		copts = co.ConnOptions()
	}
	client, err := r.open(ctx, c.Target, copts)
	if err != nil {
		return fail(err)
	}
	defer client.Close(context.WithoutCancel(ctx))
	admin, err := r.connect(ctx, client, c.Target)
	if err != nil {
		return fail(err)
	}
	defer admin.Close(context.WithoutCancel(ctx))
	logf := func(format string, args ...any) {
		fmt.Fprintf(r.opt.Progress, "  "+format+"\n", args...)
	}
	err = inst.Prepare(ctx, workload.PrepareEnv{
		Conn:    admin,
		Open:    func(ctx context.Context) (driver.Conn, error) { return r.connect(ctx, client, c.Target) },
		Replace: r.opt.Replace,
		Logf:    logf,
	})
	if err != nil {
		return fail(&TargetError{Target: c.Target.Name, URL: c.Target.URL, Err: fmt.Errorf("preparing %s: %w", c.Workload.Kind, err)})
	}
	if br, ok := inst.(workload.BeforeRunner); ok {
		if err := br.BeforeRun(ctx, admin); err != nil {
			return fail(err)
		}
	}
	env := map[string]any{"host": envinfo.Host()}
	if dbEnv, ok := r.envs[c.Target.Name]; ok {
		env["database"] = dbEnv
	} else if e := environment(client, admin); e != nil {
		if got, err := e.Environment(ctx); err == nil {
			r.envs[c.Target.Name] = got
			env["database"] = got
		}
	}
	declared := map[string]any{}
	if c.Target.Cores > 0 {
		declared["cores"] = c.Target.Cores
	}
	if c.Target.CPU != "" {
		declared["cpu"] = c.Target.CPU
	}
	if c.Target.PricePerHour > 0 {
		declared["price_per_hour"] = c.Target.PricePerHour
	}
	if c.Target.Notes != "" {
		declared["notes"] = c.Target.Notes
	}
	if len(declared) > 0 {
		env["declared"] = declared
	}
	env["client_server_same_host"] = driver.Local(c.Target.URL)
	if driver.EngineInProcess(c.Target.URL) {
		env["engine_in_process"] = true
	}
	run.Env = env
	var facts [][2]string
	if d, ok := inst.(workload.Describer); ok {
		facts, run.Deviations = d.Describe(admin)
	}
	if len(facts) > 0 {
		f := map[string]any{}
		for _, kv := range facts {
			f[kv[0]] = kv[1]
		}
		env["workload"] = f
	}

	m := &measurement{
		r: r, cell: c, inst: inst, copts: copts, run: run, out: r.opt.Progress, client: client,
	}
	err = m.execute(ctx)
	if err != nil && run.Status == "" {
		return fail(err)
	}
	if r.opt.Check && run.Status == result.StatusOK {
		if ch, ok := inst.(workload.Checker); ok {
			if cerr := ch.Check(context.WithoutCancel(ctx), admin); cerr != nil {
				run.Status = result.StatusFailed
				run.Error = "consistency check failed: " + cerr.Error()
				return run, errors.New(run.Error)
			}
		}
	}
	return run, err
}

// measurement is one cell's warm-up and measured phase.
type measurement struct {
	r     *Runner
	cell  study.Cell
	inst  workload.Instance
	copts driver.Options
	run   *result.Run
	out   io.Writer
	// client is the cell's client; every worker takes its session from it.
	client driver.Client

	stop    atomic.Bool
	workers []*worker
	// loops: with more clients than threads, the clients run as coroutines on
	// this many event loops, one goroutine each (see multiplex); nil otherwise.
	loops []*fastpath.Loop
	// detached: every connection can be interrupted (driver.Interrupter), so
	// operations run under a context without cancellation and a cancelled run
	// interrupts the connections instead.
	detached bool
	server   *nodeexp.Sampler // the target's node_exporter, nil when it names none
}

type worker struct {
	id   int
	mu   sync.Mutex // held to replace conn, and to interrupt it from another goroutine
	conn driver.Conn
	op   workload.Op
	rec  *hist.Recorder
	pcg  *rand.PCG // operation choices; snapshotted for retries
	rng  *rand.Rand
	arr  *rand.Rand // arrival schedule in rate mode, separate so retries do not shift it
	// task is the worker's coroutine on its event loop; nil when the worker
	// has a goroutine of its own.
	task *fastpath.Task
	req  requests
}

// requests is a worker's workload.Requests. What an operation records itself
// is kept until it returns and then goes into the worker's recorder at once
// (one interval for a whole pipeline), shifted by how late the operation
// started against its schedule (zero in a closed loop).
type requests struct {
	late time.Duration
	buf  []hist.Request
}

func (q *requests) Request(op int, latency time.Duration, items, bytes int64) {
	q.buf = append(q.buf, hist.Request{Op: op, Latency: latency + q.late, Items: items, Bytes: bytes})
}

func (q *requests) Failed(op int, class result.ErrorClass) {
	q.buf = append(q.buf, hist.Request{Op: op, Failed: true, Class: class})
}

func (m *measurement) execute(ctx context.Context) error {
	c := m.cell
	nops := len(m.inst.Ops())
	// Connect all clients; pgbench's "initial connection time" is the time this takes.
	connStart := time.Now()
	m.workers = make([]*worker, c.Clients)
	errs := make([]error, c.Clients)
	var wg sync.WaitGroup
	for i := range m.workers {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			conn, err := m.r.connect(ctx, m.client, c.Target)
			if err != nil {
				errs[i] = err
				return
			}
			op, err := m.inst.NewWorker(ctx, conn)
			if err == nil {
				err = onFastPath(ctx, conn)
			}
			if err != nil {
				conn.Close(ctx)
				errs[i] = fmt.Errorf("client %d: %w", i+1, err)
				return
			}
			seed := m.r.st.Seed
			pcg := rand.NewPCG(seed, uint64(c.Index)<<20|uint64(i))
			rec := hist.NewRecorder(nops)
			m.workers[i] = &worker{
				id: i, conn: conn, op: op, rec: rec, pcg: pcg, rng: rand.New(pcg),
				arr: rand.New(rand.NewPCG(seed^0x9e3779b97f4a7c15, uint64(c.Index)<<20|uint64(i))),
			}
		}(i)
	}
	wg.Wait()
	connectTime := time.Since(connStart)
	defer func() {
		for _, w := range m.workers {
			if w != nil {
				w.conn.Close(context.WithoutCancel(ctx))
			}
		}
	}()
	if err := errors.Join(errs...); err != nil {
		return err
	}
	m.detached = true
	for _, w := range m.workers {
		if _, ok := w.conn.(driver.Interrupter); !ok {
			m.detached = false
		}
	}
	threads := c.Workload.Threads
	if threads <= 0 {
		threads = runtime.GOMAXPROCS(0)
	}
	// How the clients were driven goes with the run: it decides the client's
	// cost per operation (README, "The load generator waits like pgbench").
	client := map[string]any{"io": "goroutine per client"}
	if p, ok := m.workers[0].conn.(driver.Path); ok {
		client["path"] = p.ClientPath()
	}
	m.run.Env["client"] = client
	// Spare Ps beside the clients' threads: the ticker and the collector must
	// never wait for a P held by a thread blocked in a read.
	procs := 0
	if _, ok := m.workers[0].conn.(fastpath.Multiplexer); ok && m.detached && c.Clients > threads {
		if err := m.multiplex(ctx, threads); err != nil {
			fmt.Fprintf(m.out, "  clients not multiplexed, one thread each: %s\n", envinfo.Scrub(err.Error()))
		}
	}
	clientThreads := 0 // OS threads that wait in system calls for the clients
	if m.loops != nil {
		client["io"] = "event loops (clients multiplexed per thread, like pgbench -j)"
		clientThreads = len(m.loops)
		for _, l := range m.loops {
			defer l.Close()
		}
	} else if tp, ok := m.workers[0].conn.(fastpath.ThreadPerClient); ok && tp.BlocksThread() {
		client["io"] = "thread per client"
		clientThreads = c.Clients
	}
	// With a CPU for each client thread, each keeps its own OS thread, as
	// pgbench's and sysbench's threads do. Otherwise Go moves a goroutine to
	// another thread at most yields (fastpath.YieldEvery), and the kernel,
	// which placed the client's thread and the server's next to each other,
	// starts over: 2–4 % of the machine idle at 2 threads on 2 vCPUs, none
	// when locked (bench/README.md). With more client threads than CPUs there
	// is always a thread to run, and a locked thread's yield, a hand-over
	// through a second thread, costs more than it saves (MariaDB point
	// selects at 8 threads on 2 vCPUs: 37–45k locked against 58–61k).
	lockThreads := clientThreads > 0 && clientThreads <= runtime.GOMAXPROCS(0)
	if clientThreads > 0 {
		client["threads"] = clientThreads
		client["locked_threads"] = lockThreads
		procs = clientThreads + 2
	}
	lockThread := func() func() {
		if !lockThreads {
			return func() {}
		}
		runtime.LockOSThread()
		return runtime.UnlockOSThread
	}
	if prev := runtime.GOMAXPROCS(0); procs > prev {
		runtime.GOMAXPROCS(procs)
		defer runtime.GOMAXPROCS(prev)
	}
	recs := make([]*hist.Recorder, len(m.workers))
	for i, w := range m.workers {
		recs[i] = w.rec
	}
	col := hist.NewCollector(nops, recs)

	// Workers run until stop; a hard cancel follows Ctrl-C only after a grace period.
	wctx, hardCancel := context.WithCancel(context.WithoutCancel(ctx))
	defer hardCancel()
	if m.detached {
		// One watch for the whole run instead of one per statement: pgx and
		// go-sql-driver each register (or hand to a goroutine) every statement
		// whose context can be cancelled.
		defer context.AfterFunc(wctx, func() {
			for _, w := range m.workers {
				w.interrupt()
			}
		})()
	}
	var done sync.WaitGroup
	runStart := time.Now()
	if m.loops != nil {
		for _, w := range m.workers {
			w.task.SetBody(func(*fastpath.Task) { m.loop(wctx, w, runStart) })
		}
		for _, l := range m.loops {
			done.Add(1)
			go func() {
				defer done.Done()
				defer lockThread()()
				l.Run()
			}()
		}
	} else {
		for _, w := range m.workers {
			done.Add(1)
			go func(w *worker) {
				defer done.Done()
				defer lockThread()()
				m.loop(wctx, w, runStart)
			}(w)
		}
	}
	finished := make(chan struct{})
	go func() { done.Wait(); close(finished) }()

	interrupted := false
	stopWorkers := func() {
		m.stop.Store(true)
		select {
		case <-finished:
		case <-time.After(time.Second):
			hardCancel() // a statement hangs: cancel it rather than wait
			<-finished
		}
	}

	if u := c.Target.NodeExporter; u != "" {
		m.startServerSampling(wctx, u)
	}

	// Warm-up: run, show progress, then discard everything recorded.
	if c.Warmup > 0 {
		if m.phase(ctx, col, "warm-up", runStart, c.Warmup, nil) {
			interrupted = true
		}
	}
	// The workload's own counters are read right before the histograms restart,
	// so both describe (within microseconds) the same measured phase.
	counts0 := counts(m.inst)
	col.Reset()
	if m.server != nil {
		m.server.Take() // the warm-up's share is not measured
	}
	cpu0 := cpuSeconds()
	measureStart := time.Now()
	m.run.StartedAt = measureStart
	var series []result.SeriesPoint
	if !interrupted {
		interrupted = m.phase(ctx, col, "", measureStart, c.Duration, &series)
	}
	stopWorkers()
	end := time.Now()
	last := col.Tick()
	if pt, ok := point(m.inst.Ops(), last, end.Sub(measureStart), end.Sub(measureStart)-time.Duration(len(series))*m.r.opt.Every); ok && pt.Ops+pt.Errors > 0 {
		series = append(series, pt)
	}
	cpu := cpuSeconds() - cpu0
	m.run.EndedAt = end
	m.run.Duration = end.Sub(measureStart)
	m.run.Series = series
	m.fill(col.Total(), connectTime, cpu)
	m.run.Summary.Extra = countsSince(m.inst, counts0)
	if interrupted {
		m.run.Status = result.StatusInterrupted
		m.run.Error = fmt.Sprintf("interrupted after %.1f s of the measured phase", m.run.Duration.Seconds())
		return ErrInterrupted
	}
	m.run.Status = result.StatusOK
	return nil
}

// multiplex puts the clients on event loops, spread round-robin over threads
// loops, as pgbench -j spreads its clients over its threads. It fails, and the
// clients keep a thread each, when a connection cannot run on a loop.
func (m *measurement) multiplex(ctx context.Context, threads int) error {
	if !fastpath.Supported {
		return errors.New("event loops are implemented on Linux only")
	}
	loops := make([]*fastpath.Loop, threads)
	fail := func(err error) error {
		for _, l := range loops {
			if l != nil {
				l.Close()
			}
		}
		return err
	}
	for i := range loops {
		l, err := fastpath.NewLoop()
		if err != nil {
			return fail(err)
		}
		loops[i] = l
	}
	for i, w := range m.workers {
		t := loops[i%threads].Add(nil)
		if err := attach(ctx, t, w.conn); err != nil {
			return fail(err)
		}
		w.task = t
	}
	m.loops = loops
	return nil
}

// startServerSampling scrapes the target's node_exporter in the background for
// the rest of the cell (until ctx ends) and records what it learnt; a failing
// exporter is recorded and the run goes on without server samples.
func (m *measurement) startServerSampling(ctx context.Context, rawURL string) {
	info := map[string]any{"node_exporter": nodeexp.Redacted(rawURL)}
	if m.run.Env == nil {
		m.run.Env = map[string]any{}
	}
	m.run.Env["server"] = info
	smp, err := nodeexp.New(rawURL)
	if err == nil {
		err = smp.Start(ctx, m.r.opt.Every)
	}
	if err != nil {
		info["error"] = envinfo.Scrub(err.Error())
		fmt.Fprintf(m.out, "  node_exporter: %s (continuing without server samples)\n", info["error"])
		return
	}
	if mem := smp.Memory(); mem > 0 {
		info["memory_bytes"] = mem
	}
	m.server = smp
}

// phase waits for d while printing progress every tick; it returns true when the
// context was cancelled. With series non-nil, each tick's numbers are kept.
func (m *measurement) phase(ctx context.Context, col *hist.Collector, label string, start time.Time, d time.Duration, series *[]result.SeriesPoint) bool {
	every := m.r.opt.Every
	ticker := time.NewTicker(every)
	defer ticker.Stop()
	deadline := time.NewTimer(d)
	defer deadline.Stop()
	prev := start
	cpuPrev := cpuSeconds()
	for {
		select {
		case <-ctx.Done():
			return true
		case <-deadline.C:
			return false
		case now := <-ticker.C:
			stats := col.Tick()
			window := now.Sub(prev)
			prev = now
			pt, _ := point(m.inst.Ops(), stats, now.Sub(start), window)
			cpuNow := cpuSeconds()
			pt.CPU = (cpuNow - cpuPrev) / window.Seconds()
			cpuPrev = cpuNow
			if series != nil {
				if m.server != nil {
					pt.Server = m.server.Take()
				}
				*series = append(*series, pt)
			}
			if m.r.opt.NoTickLines {
				continue
			}
			prefix := "progress"
			if label != "" {
				prefix = label
			}
			fmt.Fprintf(m.out, "  %s: %.1f s, %.1f tps, lat %.3f ms p99 %.3f ms, %d failed\n",
				prefix, now.Sub(start).Seconds(), pt.Rate, pt.Mean/1000, pt.P99/1000, pt.Errors)
		}
	}
}

// point summarises one tick window; rates use the real window length. The
// window's histograms go with it per op type, so that series merge exactly.
func point(names []string, stats []*hist.Stats, at, window time.Duration) (result.SeriesPoint, bool) {
	all := hist.Combine(stats)
	pt := result.SeriesPoint{Second: int(math.Round(at.Seconds())), Ops: all.Count, Errors: all.ErrorCount()}
	if hs, err := hist.Interval(names, stats); err == nil {
		pt.Hists = hs
	}
	if pt.Hists == nil {
		pt.Hists = []result.IntervalOp{} // an empty interval, not a point from before schema 3
	}
	if window <= 0 {
		return pt, false
	}
	pt.Rate = float64(all.Count) / window.Seconds()
	if all.Count > 0 {
		pt.Mean = all.Mean()
		pt.P50 = float64(all.Hist.ValueAtQuantile(50))
		pt.P95 = float64(all.Hist.ValueAtQuantile(95))
		pt.P99 = float64(all.Hist.ValueAtQuantile(99))
		pt.Max = float64(all.Hist.Max())
	}
	return pt, true
}

// loop is one client: closed loop by default, or the fixed-rate schedule.
func (m *measurement) loop(ctx context.Context, w *worker, start time.Time) {
	wl := m.cell.Workload
	maxTries := wl.MaxTries
	if maxTries < 1 {
		maxTries = 1
	}
	rate := wl.Rate / float64(len(m.workers))
	next := start
	opCtx := ctx
	if m.detached {
		opCtx = context.WithoutCancel(ctx)
	}
	for !m.stop.Load() {
		var intended time.Time
		if rate > 0 {
			// Poisson arrivals like pgbench -R; latency counts from the intended start,
			// so a slow server cannot hide its delays by slowing the schedule.
			next = next.Add(time.Duration(w.arr.ExpFloat64() / rate * float64(time.Second)))
			if wait := time.Until(next); wait > 0 {
				if !m.sleep(w, wait) {
					return
				}
			}
			lag := time.Since(next)
			if wl.LatencyLimit > 0 && lag > wl.LatencyLimit {
				w.rec.RecordSkip()
				continue
			}
			w.rec.RecordLag(lag)
			w.req.late = max(0, lag)
			intended = next
		} else {
			intended = time.Now()
		}
		m.once(ctx, opCtx, w, intended, maxTries)
	}
}

// sleep waits, returning false if the run stops first. A worker on an event
// loop sleeps in the loop, so that its loop's other clients go on.
func (m *measurement) sleep(w *worker, d time.Duration) bool {
	const slice = 50 * time.Millisecond
	pause := time.Sleep
	if w.task != nil {
		pause = w.task.Sleep
	}
	for d > slice {
		if m.stop.Load() {
			return false
		}
		pause(slice)
		d -= slice
	}
	pause(d)
	return !m.stop.Load()
}

// once performs one operation with pgbench's --max-tries retry semantics: a
// serialization failure or deadlock is retried with the same random choices.
// The operation runs under opCtx; ctx is the run's, for reconnecting. An
// operation that recorded its requests itself (workload.Requests) is not
// recorded again, and not retried once it has recorded any.
func (m *measurement) once(ctx, opCtx context.Context, w *worker, start time.Time, maxTries int) {
	saved := *w.pcg
	for try := 1; ; try++ {
		w.req.buf = w.req.buf[:0]
		op, err := w.op(opCtx, w.rng, &w.req)
		recorded := len(w.req.buf) > 0
		if recorded {
			w.rec.RecordRequests(w.req.buf)
		}
		if err == nil {
			if !recorded {
				w.rec.Record(op, time.Since(start))
			}
			if try > 1 {
				w.rec.RecordRetries(op, try)
			}
			return
		}
		class := w.conn.Classify(err)
		if class.Retryable() && try < maxTries && !m.stop.Load() && !recorded {
			*w.pcg = saved
			continue
		}
		if !recorded {
			w.rec.RecordError(op, class)
		}
		if try > 1 {
			w.rec.RecordRetries(op, try)
		}
		if class == result.ErrConnection && !m.stop.Load() {
			m.reconnect(ctx, w)
		}
		return
	}
}

// interrupt wakes a statement blocked on the worker's connection.
func (w *worker) interrupt() {
	w.mu.Lock()
	defer w.mu.Unlock()
	if in, ok := w.conn.(driver.Interrupter); ok {
		in.Interrupt()
	}
}

// reconnect replaces a lost connection, retrying until it succeeds or the run
// stops. A worker on an event loop gets the new connection's socket attached.
func (m *measurement) reconnect(ctx context.Context, w *worker) {
	w.conn.Close(ctx)
	for !m.stop.Load() {
		conn, err := m.r.connect(ctx, m.client, m.cell.Target)
		if err == nil {
			op, err := m.inst.NewWorker(ctx, conn)
			if err == nil && w.task != nil {
				err = attach(ctx, w.task, conn)
			} else if err == nil {
				err = onFastPath(ctx, conn)
			}
			if err == nil {
				w.mu.Lock()
				w.conn, w.op = conn, op
				w.mu.Unlock()
				return
			}
			conn.Close(ctx)
		}
		m.sleep(w, 100*time.Millisecond)
	}
}

// onFastPath puts a worker's session on fairbench's fast path while it is
// enabled, whatever the number of clients, so that a sweep over clients keeps
// one client code path (a PostgreSQL session's statements take the wire path
// with a thread per client as on event loops).
func onFastPath(ctx context.Context, conn driver.Conn) error {
	if !fastpath.Enabled() {
		return nil
	}
	if mx, ok := conn.(fastpath.Multiplexer); ok {
		if _, err := mx.Multiplex(ctx); err != nil {
			return fmt.Errorf("putting the session on fairbench's fast path: %w", err)
		}
	}
	return nil
}

// attach readies conn for an event loop and attaches its socket to task.
func attach(ctx context.Context, task *fastpath.Task, conn driver.Conn) error {
	mx, ok := conn.(fastpath.Multiplexer)
	if !ok {
		return errors.New("this driver's connections cannot run on an event loop")
	}
	sock, err := mx.Multiplex(ctx)
	if err != nil {
		return err
	}
	return task.Attach(sock)
}

func (m *measurement) fill(total []*hist.Stats, connectTime time.Duration, cpu float64) {
	names := m.inst.Ops()
	all := hist.Combine(total)
	s := &m.run.Summary
	s.Transactions = all.Count
	s.Failed = all.ErrorCount()
	s.Retried = all.Retried
	s.Retries = all.Retries
	s.Skipped = all.Skipped
	s.LateStarts = all.Late
	if secs := m.run.Duration.Seconds(); secs > 0 {
		s.Throughput = float64(all.Count) / secs
	}
	s.LatencyMean = all.Mean()
	s.LatencyStddev = all.Stddev()
	if all.Count > 0 {
		s.LatencyMin = all.MinUs
		s.P50 = float64(all.Hist.ValueAtQuantile(50))
		s.P95 = float64(all.Hist.ValueAtQuantile(95))
		s.P99 = float64(all.Hist.ValueAtQuantile(99))
		s.Max = float64(all.Hist.Max())
	}
	if all.LagCount > 0 {
		s.LagMean = all.LagSumUs / float64(all.LagCount)
		s.LagMax = all.LagMaxUs
	}
	s.ConnectTimeMean = float64(connectTime) / float64(time.Millisecond)
	s.TargetRate = m.cell.Workload.Rate
	s.ClientCPU = cpu
	for i, st := range total {
		enc, err := hist.Encode(st.Hist)
		if err != nil {
			enc = nil
		}
		m.run.Ops = append(m.run.Ops, result.Op{Name: names[i], Count: st.Count, Items: st.Items, Bytes: st.Bytes, Errors: st.ErrorMap(), Histogram: enc})
	}
	h := kinds.Headline(m.cell.Workload.Kind)
	s.Metric = &result.Metric{Headline: h, Value: h.Measure(m.run.Ops, m.run.Duration, func(i int) float64 { return total[i].SumUs })}
}

// counts snapshots a workload's own counters (workload.Counter), if it keeps any.
func counts(inst workload.Instance) map[string]int64 {
	if c, ok := inst.(workload.Counter); ok {
		return c.Counts()
	}
	return nil
}

// countsSince is the growth of the workload's counters since a snapshot.
func countsSince(inst workload.Instance, before map[string]int64) map[string]float64 {
	now := counts(inst)
	if now == nil {
		return nil
	}
	out := make(map[string]float64, len(now))
	for k, v := range now {
		out[k] = float64(v - before[k])
	}
	return out
}

// cpuSeconds is the CPU time (user + system) this process has used.
func cpuSeconds() float64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()).Seconds()
}

// Prepare loads (or verifies) the data of one cell without running it: `fairbench load`.
func (r *Runner) Prepare(ctx context.Context, c study.Cell) error {
	inst, err := bind(c)
	if err != nil {
		return err
	}
	var copts driver.Options
	if co, ok := inst.(workload.ConnOptioner); ok {
		copts = co.ConnOptions()
	}
	client, err := r.open(ctx, c.Target, copts)
	if err != nil {
		return err
	}
	defer client.Close(context.WithoutCancel(ctx))
	conn, err := r.connect(ctx, client, c.Target)
	if err != nil {
		return err
	}
	defer conn.Close(context.WithoutCancel(ctx))
	err = inst.Prepare(ctx, workload.PrepareEnv{
		Conn:    conn,
		Open:    func(ctx context.Context) (driver.Conn, error) { return r.connect(ctx, client, c.Target) },
		Replace: r.opt.Replace,
		Logf:    func(format string, args ...any) { fmt.Fprintf(r.opt.Progress, format+"\n", args...) },
	})
	if err != nil {
		return &TargetError{Target: c.Target.Name, URL: c.Target.URL, Err: err}
	}
	return nil
}

// Environments returns the database facts Preflight captured, per target name.
func (r *Runner) Environments() map[string]map[string]any { return r.envs }
