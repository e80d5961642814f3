package runner

// The executor: one cell measured on this load generator. It takes a session
// per client from the cell's client (connect.go), chooses how the clients are
// driven (drive.go: a goroutine each, a thread each, or event loops; see
// docs/measurement.md, "The load generator waits like pgbench"), runs the warm-up and the
// measured phase, and fills a partial run: the histograms, the per-second series with their
// interval histograms, the summary and this generator's environment (host,
// client I/O, client path). With several load generators, a coordinator merges
// their partial runs with MergeRuns.

import (
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/fairbench/fairbench/internal/driver"
	"github.com/fairbench/fairbench/internal/envinfo"
	"github.com/fairbench/fairbench/internal/fastpath"
	"github.com/fairbench/fairbench/internal/hist"
	"github.com/fairbench/fairbench/internal/kinds"
	"github.com/fairbench/fairbench/internal/nodeexp"
	"github.com/fairbench/fairbench/internal/redact"
	"github.com/fairbench/fairbench/internal/result"
	"github.com/fairbench/fairbench/internal/study"
	"github.com/fairbench/fairbench/internal/workload"
)

// executor is one cell's warm-up and measured phase on this load generator.
type executor struct {
	r    *Runner
	cell study.Cell
	bound
	run *result.Run
	out io.Writer
	// client is the cell's client; every worker takes its session from it.
	client driver.Client
	// admin is fairbench's own session beside the clients', idle while they
	// run: it reads the database's counters (the ServerCounts hook).
	admin driver.Conn

	stop    atomic.Bool
	workers []*worker
	// loops: with more clients than threads, the clients run as coroutines on
	// this many event loops, one goroutine each (see multiplex); nil otherwise.
	loops []*fastpath.Loop
	// lockThreads: each client thread keeps its OS thread (chooseDriving).
	lockThreads bool
	// detached: every connection can be interrupted (driver.Interrupter), so
	// operations run under a context without cancellation and a cancelled run
	// interrupts the connections instead.
	detached bool
	server   *nodeexp.Sampler // the target's node_exporter, nil when it names none
	// spill takes the measured seconds' points as they complete
	// (spill.go); nil keeps them in the run's series.
	spill       pointSpiller
	spillWarned bool
	// onTick, when set, is told each progress reading with its slot (the
	// k-th tick period of its phase): a load generator publishes its
	// readings for the coordinator's totals (parttotals.go).
	onTick func(slot int, t kinds.Tick)

	// Outage accounting for the measured phase (reset when it starts).
	reconnectAttempts, reconnects atomic.Int64
	errMu                         sync.Mutex
	firstErrs                     map[result.ErrorClass]string
	// noted[i] is set once the first text of result.ErrorClasses[i] is kept:
	// a failing operation then costs one atomic load, not the shared lock.
	noted        [len(result.ErrorClasses)]atomic.Bool
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

// noteError keeps the first error text of each class, scrubbed of secrets and
// capped: the server's own message is what tells a reader why operations failed.
func (m *executor) noteError(class result.ErrorClass, err error) {
	if err == nil {
		return
	}
	i := slices.Index(result.ErrorClasses[:], class)
	if i >= 0 && m.noted[i].Load() {
		return
	}
	m.errMu.Lock()
	defer m.errMu.Unlock()
	if i >= 0 {
		m.noted[i].Store(true)
	}
	if _, ok := m.firstErrs[class]; ok {
		return
	}
	if m.firstErrs == nil {
		m.firstErrs = map[result.ErrorClass]string{}
	}
	m.firstErrs[class] = result.CapText(redact.Scrub(err.Error()), result.MaxErrorText)
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
	// ops counts the client's operations, retries once, skipped ones too
	// (workload.Shape's PerClient); only the worker's own goroutine touches it.
	ops int64
	// reconnectWait is the wait before the next reconnect attempt (0: none);
	// unconfirmed, that the session is a replacement on which no operation
	// has succeeded yet. Only the worker's own goroutine touches them.
	reconnectWait time.Duration
	unconfirmed   bool
}

// execute measures the cell on this load generator, in phases: connect the
// clients, choose how they are driven, wait for the agreed start (several
// load generators), take the baseline, start the clients, the warm-up, the
// measured phase, and fill the run.
func (m *executor) execute(ctx context.Context) error {
	m.run.Env.Host = envinfo.Host()
	m.allDone = make(chan struct{})
	connectTime, err := m.connectClients(ctx)
	defer m.closeWorkers(ctx)
	if m.shape.Close != nil {
		defer func() {
			if err := m.shape.Close(); err != nil {
				fmt.Fprintf(m.out, "  %s\n", redact.Scrub(err.Error()))
			}
		}()
	}
	if err != nil {
		return err
	}
	release := m.chooseDriving(ctx)
	defer release()
	recs := make([]*hist.Recorder, len(m.workers))
	for i, w := range m.workers {
		recs[i] = w.rec
	}
	col := hist.NewCollector(len(m.inst.Ops()), recs)

	// Workers run until stop; a hard cancel follows Ctrl-C only after a grace period.
	wctx, hardCancel := context.WithCancel(context.WithoutCancel(ctx))
	defer hardCancel()
	if m.detached {
		// One watch for the whole run instead of one per statement: pgx and
		// go-sql-driver each register (or hand to a goroutine) every statement
		// whose context can be cancelled.
		defer context.AfterFunc(wctx, m.interruptAll)()
	}
	// Without a warm-up the measured phase starts with the workers: nothing
	// they do may fall between their start and the phase's (memtier's
	// --requests counts every request).
	if err := m.awaitStart(ctx); err != nil {
		return err
	}
	sc := &serverCounts{}
	if !m.noServerCounts {
		if sc, err = m.openServerCounts(ctx); err != nil {
			return err
		}
	}
	defer sc.close(ctx)
	if u := m.cell.Target.NodeExporter; u != "" && m.beforeStart == nil {
		m.idleServer(ctx, u)
	}
	base := m.baseline()
	if err := sc.snapshot(ctx); err != nil {
		return err
	}
	// The sampler connects before the clients start: its connection is no
	// part of what the run measures.
	sv := m.openServerView(ctx)
	defer sv.finish(ctx, m.run, m.out) // a phase that failed still closes it
	runStart := time.Now()
	stopClients := m.startClients(wctx, runStart, hardCancel)
	if u := m.cell.Target.NodeExporter; u != "" {
		m.startServerSampling(wctx, u)
	}
	measureStart := runStart
	if m.cell.Warmup > 0 {
		if measureStart, base, err = m.warmUp(ctx, col, sc, runStart, stopClients); err != nil {
			return err
		}
	}
	return m.measure(ctx, col, sc, sv, base, measureStart, connectTime, stopClients)
}

// awaitStart waits, on one load generator of several, for the start the
// coordinator agreed (beforeStart); a generator already late says so.
func (m *executor) awaitStart(ctx context.Context) error {
	if m.beforeStart == nil {
		return nil
	}
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
	return nil
}

// baseline is what the measured phase's figures count from: the workload's
// own counters, fairbench's CPU time and the host's load counters.
type baseline struct {
	counts map[string]int64
	cpu    float64
	load   envinfo.Load
}

func (m *executor) baseline() baseline {
	return baseline{counts: counts(m.hooks), cpu: cpuSeconds(), load: m.r.opt.readLoad()}
}

// warmUp runs the warm-up from runStart, showing progress, then discards
// everything recorded and returns when the measured phase starts and its
// baseline. Interrupted, nothing was measured: the run says so, rather than
// giving numbers over the instant between the warm-up and the stop.
func (m *executor) warmUp(ctx context.Context, col *hist.Collector, sc *serverCounts, runStart time.Time, stopClients func()) (time.Time, baseline, error) {
	if m.phase(ctx, col, "warm-up", runStart, m.cell.Warmup, nil) {
		stopClients()
		m.run.StartedAt, m.run.EndedAt = time.Now(), time.Now()
		m.run.Status = result.StatusInterrupted
		m.run.Error = "interrupted during the warm-up: nothing was measured"
		return time.Time{}, baseline{}, ErrInterrupted
	}
	if err := m.endedInWarmUp(); err != nil {
		stopClients()
		return time.Time{}, baseline{}, err
	}
	// The workload's own counters are read right before the histograms
	// restart, so both describe (within microseconds) the same measured phase.
	counts0 := counts(m.hooks)
	if err := sc.snapshot(ctx); err != nil {
		stopClients()
		return time.Time{}, baseline{}, err
	}
	col.Reset()
	m.resetOutage()
	if m.server != nil {
		m.server.Take() // the warm-up's share is not measured
	}
	base := baseline{counts: counts0, cpu: cpuSeconds(), load: m.r.opt.readLoad()}
	return time.Now(), base, nil
}

// measure runs the measured phase from start, stops the clients and fills
// the run: series, totals, the workload's and the database's counters,
// outage accounting, status.
func (m *executor) measure(ctx context.Context, col *hist.Collector, sc *serverCounts, sv *serverView, base baseline, start time.Time, connectTime time.Duration, stopClients func()) error {
	c := m.cell
	m.run.StartedAt = start
	ms := &measuredSeries{read: start, cpu: base.cpu, load: base.load}
	sv.start(ctx)
	interrupted := m.phase(ctx, col, "", start, c.Duration, ms)
	phaseEnd, load1, cpuAtPhaseEnd := time.Now(), m.r.opt.readLoad(), cpuSeconds()
	sv.signal()
	stopClients()
	sv.finish(ctx, m.run, m.out)
	end := time.Now()
	cpuEnd := cpuSeconds()
	series, measured := ms.finish(m.inst.Ops(), col.Tick(), cpuEnd, m.r.opt.readLoad(), start, phaseEnd, end, c.Duration, m.r.opt.Every)
	cpu := cpuEnd - base.cpu
	m.recordLoad(base.load, load1, phaseEnd.Sub(start), cpuAtPhaseEnd-base.cpu)
	m.run.EndedAt = end
	m.run.Duration = end.Sub(start)
	m.run.Series = series
	m.run.Summary.Extra = countsSince(m.hooks, base.counts)
	if sc.read != nil {
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
	if d, ok := m.inst.(workload.Deviator); ok {
		m.run.Deviations = append(m.run.Deviations, d.Deviations(&m.run.Summary)...)
	}
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

// idleWindow is how long the server host is sampled idle before a run:
// two scrapes a second apart are the least that gives a CPU share.
var idleWindow = time.Second

// idleServer records the server host's CPU while the connected clients
// send nothing, before the run (result.Server.IdleCPU): the baseline the
// server-busy check reads. An exporter that fails here is left to
// startServerSampling to record.
func (m *executor) idleServer(ctx context.Context, rawURL string) {
	smp, err := nodeexp.New(rawURL)
	if err != nil {
		return
	}
	idle, err := smp.Idle(ctx, idleWindow)
	if err != nil || idle == nil {
		return
	}
	m.run.Env.Server.IdleCPU = ptr(idle.CPU)
	m.run.Env.Server.IdleSeconds = idleWindow.Seconds()
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
		info.Error = redact.Scrub(err.Error())
		fmt.Fprintf(m.out, "  node_exporter: %s (continuing without server samples)\n", info.Error)
		return
	}
	if mem := smp.Memory(); mem > 0 {
		info.MemoryBytes = int64(mem)
	}
	m.server = smp
}
