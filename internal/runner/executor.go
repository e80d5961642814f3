package runner

// The executor: one cell measured on this load generator. It takes a session
// per client from the cell's client, chooses how the clients are driven (a
// goroutine each, a thread each, or event loops; see README, "The load
// generator waits like pgbench"), runs the warm-up and the measured phase, and
// fills a partial run: the histograms, the per-second series with their
// interval histograms, the summary and this generator's environment (host,
// client I/O, client path). With several load generators, a coordinator merges
// their partial runs with MergeRuns.

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/fairbench/fairbench/internal/driver"
	"github.com/fairbench/fairbench/internal/envinfo"
	"github.com/fairbench/fairbench/internal/fastpath"
	"github.com/fairbench/fairbench/internal/hist"
	"github.com/fairbench/fairbench/internal/nodeexp"
	"github.com/fairbench/fairbench/internal/result"
	"github.com/fairbench/fairbench/internal/study"
	"github.com/fairbench/fairbench/internal/workload"
)

// executor is one cell's warm-up and measured phase on this load generator.
type executor struct {
	r     *Runner
	cell  study.Cell
	inst  workload.Instance
	copts driver.Options
	run   *result.Run
	out   io.Writer
	// client is the cell's client; every worker takes its session from it.
	client driver.Client
	// admin is fairbench's own session beside the clients', idle while they
	// run: it reads the database's counters (workload.ServerCounter).
	admin driver.Conn

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

	// Outage accounting for the measured phase (reset when it starts).
	reconnectAttempts, reconnects atomic.Int64
	errMu                         sync.Mutex
	firstErrs                     map[result.ErrorClass]string
	// noted[i] is set once the first text of result.ErrorClasses[i] is kept:
	// a failing operation then costs one atomic load, not the shared lock.
	noted        [8]atomic.Bool
	reconnectErr string

	// Clients that finished their requests (workload.ErrClientDone): when
	// all have, allDone closes and the phase in progress ends.
	doneClients atomic.Int64
	allDone     chan struct{}

	closeOnce sync.Once

	// One load generator of several (distributed.go): its clients are
	// slots slotBase… of the cell's slots (their places in the key space,
	// warehouses and random streams); beforeStart, called once every client
	// is connected, says when the measured run starts (this machine's
	// clock); the coordinator reads the database's own counters, not each
	// generator.
	slotBase, slots int
	beforeStart     func(ctx context.Context) (time.Time, error)
	noServerCounts  bool
}

// manyClients is where connecting the clients takes long enough to say so.
const manyClients = 100

// slot is the place among the cell's clients of this generator's client i.
func (m *executor) slot(i int) workload.ClientSlot {
	n := m.slots
	if n == 0 {
		n = m.cell.Clients
	}
	return workload.ClientSlot{Index: m.slotBase + i, Clients: n}
}

// clientDone counts a client that has sent all its requests.
func (m *executor) clientDone() {
	if m.doneClients.Add(1) == int64(len(m.workers)) {
		close(m.allDone)
	}
}

// noteError keeps the first error text of each class, scrubbed of secrets and
// capped: the server's own message is what tells a reader why operations failed.
func (m *executor) noteError(class result.ErrorClass, err error) {
	if err == nil {
		return
	}
	i := slices.Index(result.ErrorClasses, class)
	if i >= 0 && i < len(m.noted) && m.noted[i].Load() {
		return
	}
	m.errMu.Lock()
	defer m.errMu.Unlock()
	if i >= 0 && i < len(m.noted) {
		m.noted[i].Store(true)
	}
	if _, ok := m.firstErrs[class]; ok {
		return
	}
	if m.firstErrs == nil {
		m.firstErrs = map[result.ErrorClass]string{}
	}
	m.firstErrs[class] = result.CapText(envinfo.Scrub(err.Error()), result.MaxErrorText)
}

// resetOutage starts the measured phase's outage accounting afresh.
func (m *executor) resetOutage() {
	m.reconnectAttempts.Store(0)
	m.reconnects.Store(0)
	m.errMu.Lock()
	m.firstErrs, m.reconnectErr = nil, ""
	for i := range m.noted {
		m.noted[i].Store(false)
	}
	m.errMu.Unlock()
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
	// done: the workload said the client has sent all its requests
	// (workload.ErrClientDone); only the worker's own goroutine touches it.
	done bool
	// reconnectWait is the wait before the next reconnect attempt (0: none);
	// unconfirmed, that the session is a replacement on which no operation
	// has succeeded yet. Only the worker's own goroutine touches them.
	reconnectWait time.Duration
	unconfirmed   bool
}

// closeWorkers closes the clients' sessions, once.
func (m *executor) closeWorkers(ctx context.Context) {
	m.closeOnce.Do(func() {
		for _, w := range m.workers {
			if w != nil {
				w.conn.Close(context.WithoutCancel(ctx))
			}
		}
	})
}

func (m *executor) execute(ctx context.Context) error {
	c := m.cell
	m.run.Env.Host = result.HostFromMap(envinfo.Host())
	nops := len(m.inst.Ops())
	m.allDone = make(chan struct{})
	// Connect all clients; pgbench's "initial connection time" is the time this takes.
	connStart := time.Now()
	if c.Clients >= manyClients {
		fmt.Fprintf(m.out, "  connecting %d clients\n", c.Clients)
	}
	m.workers = make([]*worker, c.Clients)
	errs := make([]error, c.Clients)
	var wg sync.WaitGroup
	for i := range m.workers {
		// Ctrl-C while the clients connect stops the setup: no client is
		// started after it, and one that has not connected yet does not.
		if ctx.Err() != nil {
			break
		}
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			if ctx.Err() != nil {
				return
			}
			conn, err := m.r.connect(ctx, m.client, c.Target)
			if err != nil {
				errs[i] = err
				return
			}
			op, err := workload.NewWorker(ctx, m.inst, conn, m.slot(i))
			if err == nil {
				err = onFastPath(ctx, conn)
			}
			if err != nil {
				conn.Close(ctx)
				errs[i] = fmt.Errorf("client %d: %w", i+1, err)
				return
			}
			seed := m.r.st.Seed
			// Streams by slot: load generators of one cell draw different ones.
			stream := uint64(c.Index)<<20 | uint64(m.slot(i).Index)
			pcg := rand.NewPCG(seed, stream)
			rec := hist.NewRecorder(nops)
			m.workers[i] = &worker{
				id: i, conn: conn, op: op, rec: rec, pcg: pcg, rng: rand.New(pcg),
				arr: rand.New(rand.NewPCG(seed^0x9e3779b97f4a7c15, stream)),
			}
		}(i)
	}
	wg.Wait()
	connectTime := time.Since(connStart)
	defer m.closeWorkers(ctx)
	if ctx.Err() != nil {
		ready := 0
		for _, w := range m.workers {
			if w != nil {
				ready++
			}
		}
		fmt.Fprintf(m.out, "  client setup interrupted: %d of %d clients were set up\n", ready, c.Clients)
		return ErrInterrupted
	}
	if err := distinctErrors(errs); err != nil {
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
	client := &m.run.Env.Client
	client.IO = "goroutine per client"
	if p, ok := m.workers[0].conn.(driver.Path); ok {
		client.Path = p.ClientPath()
	}
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
		client.IO = "event loops (clients multiplexed per thread, like pgbench -j)"
		clientThreads = len(m.loops)
		for _, l := range m.loops {
			defer l.Close()
		}
	} else if tp, ok := m.workers[0].conn.(fastpath.ThreadPerClient); ok && tp.BlocksThread() {
		client.IO = "thread per client"
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
		client.Threads = clientThreads
		client.LockedThreads = &lockThreads
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
	// Without a warm-up the measured phase starts with the workers: nothing
	// they do may fall between their start and the phase's (memtier's
	// --requests counts every request).
	if m.beforeStart != nil {
		at, err := m.beforeStart(ctx)
		if err != nil {
			return err
		}
		if late := time.Since(at); late > 10*time.Millisecond {
			m.run.Deviations = append(m.run.Deviations, fmt.Sprintf("this load generator started %.0f ms after the agreed start", late.Seconds()*1000))
		} else if wait := time.Until(at); wait > 0 {
			select {
			case <-time.After(wait):
			case <-ctx.Done():
				return ErrInterrupted
			}
		}
	}
	sc := &serverCounts{}
	if !m.noServerCounts {
		var err error
		if sc, err = m.openServerCounts(ctx); err != nil {
			return err
		}
	}
	defer sc.close(ctx)
	counts0, cpu0, load0 := counts(m.inst), cpuSeconds(), m.r.opt.readLoad()
	if err := sc.snapshot(ctx); err != nil {
		return err
	}
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
			// Nothing of the measured phase ran: no numbers, rather than
			// numbers over the instant between the warm-up and the stop.
			stopWorkers()
			m.run.StartedAt, m.run.EndedAt = time.Now(), time.Now()
			m.run.Status = result.StatusInterrupted
			m.run.Error = "interrupted during the warm-up: nothing was measured"
			return ErrInterrupted
		}
		select {
		case <-m.allDone:
			// A self-ending workload finished its work inside the warm-up.
			stopWorkers()
			return fmt.Errorf("every client finished its work during the %s warm-up: nothing was left to measure; shorten the warm-up or give the workload more work", c.Warmup)
		default:
		}
	}
	measureStart := runStart
	if c.Warmup > 0 {
		// The workload's own counters are read right before the histograms
		// restart, so both describe (within microseconds) the same measured phase.
		counts0 = counts(m.inst)
		if err := sc.snapshot(ctx); err != nil {
			stopWorkers()
			return err
		}
		col.Reset()
		m.resetOutage()
		if m.server != nil {
			m.server.Take() // the warm-up's share is not measured
		}
		cpu0, load0 = cpuSeconds(), m.r.opt.readLoad()
		measureStart = time.Now()
	}
	m.run.StartedAt = measureStart
	ms := &measuredSeries{read: measureStart, cpu: cpu0, load: load0}
	if !interrupted {
		interrupted = m.phase(ctx, col, "", measureStart, c.Duration, ms)
	}
	phaseEnd, load1, cpuAtPhaseEnd := time.Now(), m.r.opt.readLoad(), cpuSeconds()
	stopWorkers()
	end := time.Now()
	cpuEnd := cpuSeconds()
	series, measured := ms.finish(m.inst.Ops(), col.Tick(), cpuEnd, m.r.opt.readLoad(), measureStart, phaseEnd, end, c.Duration, m.r.opt.Every)
	cpu := cpuEnd - cpu0
	m.recordLoad(load0, load1, phaseEnd.Sub(measureStart), cpuAtPhaseEnd-cpu0)
	m.run.EndedAt = end
	m.run.Duration = end.Sub(measureStart)
	m.run.Series = series
	m.run.Summary.Extra = countsSince(m.inst, counts0)
	if sc.sc != nil {
		// Servers publish some counters when a session ends (PostgreSQL's
		// backends flush their commit counts at most once a second, and at
		// exit): the clients' sessions end before the counters are read.
		m.closeWorkers(ctx)
	}
	if err := sc.growth(ctx, &m.run.Summary.Extra); err != nil && !interrupted {
		m.run.Deviations = append(m.run.Deviations, err.Error())
	}
	m.fill(col.Total(), connectTime, cpu)
	m.run.Summary.MeasuredSeconds = measured
	m.fillOutage()
	if interrupted {
		m.run.Status = result.StatusInterrupted
		m.run.Error = fmt.Sprintf("interrupted after %.1f s of the measured phase", m.run.Duration.Seconds())
		return ErrInterrupted
	}
	m.run.Status = result.StatusOK
	return nil
}

// recordLoad adds to the run's host what the kernel counted over the measured
// phase: how long fairbench's threads waited for a CPU, per second, and the
// share of the host's CPU time the hypervisor took (steal), the cores other
// processes used (own: the CPU seconds fairbench used). They say whether the
// host held fairbench up (Flags).
func (m *executor) recordLoad(before, after envinfo.Load, phase time.Duration, own float64) {
	if phase <= 0 {
		return
	}
	host := &m.run.Env.Host
	if wait, ok := after.WaitSince(before); ok {
		host.ClientCPUWait = ptr(wait.Seconds() / phase.Seconds())
	}
	if steal, ok := after.StealSince(before); ok {
		host.StealPct = ptr(steal * 100)
	}
	if used, ok := after.UsedSince(before); ok {
		host.OthersCPU = ptr(max(used-own, 0) / phase.Seconds())
	}
}

func ptr(v float64) *float64 { return &v }

// multiplex puts the clients on event loops, spread round-robin over threads
// loops, as pgbench -j spreads its clients over its threads. It fails, and the
// clients keep a thread each, when a connection cannot run on a loop.
func (m *executor) multiplex(ctx context.Context, threads int) error {
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
func (m *executor) startServerSampling(ctx context.Context, rawURL string) {
	info := &m.run.Env.Server
	info.NodeExporter = nodeexp.Redacted(rawURL)
	smp, err := nodeexp.New(rawURL)
	if err == nil {
		err = smp.Start(ctx, m.r.opt.Every)
	}
	if err != nil {
		info.Error = envinfo.Scrub(err.Error())
		fmt.Fprintf(m.out, "  node_exporter: %s (continuing without server samples)\n", info.Error)
		return
	}
	if mem := smp.Memory(); mem > 0 {
		info.MemoryBytes = int64(mem)
	}
	m.server = smp
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
// stops, each attempt after the reconnect backoff's wait (backoff.go). A
// worker on an event loop gets the new connection's socket attached. The
// replacement counts as a reconnect only once an operation succeeds on it
// (confirmReconnect): a driver whose sessions are handles on a pool opens
// one without reaching the server.
func (m *executor) reconnect(ctx context.Context, w *worker) {
	w.conn.Close(ctx)
	limit := min(maxReconnectWait, m.r.opt.Every)
	for !m.stop.Load() && ctx.Err() == nil {
		if w.reconnectWait > 0 && !m.sleep(w, jittered(w.reconnectWait)) {
			return
		}
		w.reconnectWait = reconnectWait(w.reconnectWait, limit)
		m.reconnectAttempts.Add(1)
		conn, err := m.r.connect(ctx, m.client, m.cell.Target)
		if err == nil {
			op, err := workload.NewWorker(ctx, m.inst, conn, m.slot(w.id))
			if err == nil && w.task != nil {
				err = attach(ctx, w.task, conn)
			} else if err == nil {
				err = onFastPath(ctx, conn)
			}
			if err == nil {
				w.mu.Lock()
				w.conn, w.op = conn, op
				w.mu.Unlock()
				w.unconfirmed = true
				return
			}
			conn.Close(ctx)
		}
		if err != nil && !m.stop.Load() {
			m.errMu.Lock()
			if m.reconnectErr == "" {
				m.reconnectErr = result.CapText(envinfo.Scrub(err.Error()), result.MaxErrorText)
			}
			m.errMu.Unlock()
		}
	}
}

// confirmReconnect is called after each operation: once the server answers
// on a replacement session (the operation succeeded, or failed for a reason
// of the server's own, not a lost connection or a timeout), the reconnect
// counts and the backoff starts over.
func (m *executor) confirmReconnect(w *worker, err error, class result.ErrorClass) {
	if err != nil && (class == result.ErrConnection || class == result.ErrTimeout || errors.Is(err, context.DeadlineExceeded)) {
		return
	}
	w.reconnectWait = 0
	if w.unconfirmed {
		w.unconfirmed = false
		m.reconnects.Add(1)
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

// distinctErrors joins the clients' connection errors with each distinct
// message once, counted: 10 000 clients refused for the same reason make one
// line, not 10 000 (the text is stored with the run and printed).
func distinctErrors(errs []error) error {
	var order []string
	count := map[string]int{}
	first := map[string]error{}
	for _, err := range errs {
		if err == nil {
			continue
		}
		msg := err.Error()
		if count[msg] == 0 {
			order = append(order, msg)
			first[msg] = err
		}
		count[msg]++
	}
	if len(order) == 0 {
		return nil
	}
	if len(order) == 1 && count[order[0]] == 1 {
		return first[order[0]]
	}
	out := make([]error, 0, len(order))
	for _, msg := range order {
		if n := count[msg]; n > 1 {
			out = append(out, fmt.Errorf("%d clients: %w", n, first[msg]))
		} else {
			out = append(out, first[msg])
		}
	}
	return errors.Join(out...)
}
