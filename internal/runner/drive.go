package runner

// How the clients are driven: a goroutine each, a thread each, or event
// loops with the clients multiplexed on them (docs/measurement.md, "The load
// generator waits like pgbench"), chosen once the clients are connected; then started,
// and stopped at the end of the run.

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"slices"
	"sync"
	"time"

	"github.com/fairbench/fairbench/internal/driver"
	"github.com/fairbench/fairbench/internal/fastpath"
	"github.com/fairbench/fairbench/internal/redact"
	"github.com/fairbench/fairbench/internal/workload"
)

// chooseDriving decides how the connected clients are driven and records it
// with the run. It returns what undoes it (the event loops, GOMAXPROCS),
// for when the clients have stopped.
func (m *executor) chooseDriving(ctx context.Context) (release func()) {
	c := m.cell
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
	// cost per operation (docs/measurement.md, "The load generator waits like pgbench").
	client := &m.run.Env.Client
	client.IO = "goroutine per client"
	if p, ok := m.workers[0].conn.(driver.Path); ok {
		client.Path = p.ClientPath()
	}
	// Spare Ps beside the clients' threads: the ticker and the collector must
	// never wait for a P held by a thread blocked in a read.
	procs := 0
	if _, ok := m.workers[0].conn.(fastpath.Multiplexer); ok && m.detached && c.Clients > threads && !m.shape.Waits {
		if err := m.multiplex(ctx, threads); err != nil {
			fmt.Fprintf(m.out, "  clients not multiplexed, one thread each: %s\n", redact.Scrub(err.Error()))
		}
	}
	clientThreads := 0 // OS threads that wait in system calls for the clients
	if m.loops != nil {
		client.IO = "event loops (clients multiplexed per thread, like pgbench -j)"
		clientThreads = len(m.loops)
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
	m.lockThreads = clientThreads > 0 && clientThreads <= runtime.GOMAXPROCS(0)
	if clientThreads > 0 {
		client.Threads = clientThreads
		lock := m.lockThreads
		client.LockedThreads = &lock
		procs = clientThreads + 2
	}
	prev := runtime.GOMAXPROCS(0)
	if procs > prev {
		runtime.GOMAXPROCS(procs)
	}
	return func() {
		if procs > prev {
			runtime.GOMAXPROCS(prev)
		}
		for _, l := range slices.Backward(m.loops) {
			l.Close()
		}
	}
}

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

// lockThread keeps the calling goroutine on its OS thread when the client
// threads are locked (chooseDriving); the function it returns lets go.
func (m *executor) lockThread() func() {
	if !m.lockThreads {
		return func() {}
	}
	runtime.LockOSThread()
	return runtime.UnlockOSThread
}

// startClients starts every client's loop from start under ctx, on its
// goroutine or on the event loops. The function it returns stops them and
// waits: a statement that still hangs a second later is cancelled
// (hardCancel) rather than waited for.
func (m *executor) startClients(ctx context.Context, start time.Time, hardCancel context.CancelFunc) (stop func()) {
	// The operations' waits (workload.Wait) end when the clients are stopped,
	// though their context is never cancelled.
	stopped := make(chan struct{})
	ctx = workload.WithStop(ctx, stopped)
	var done sync.WaitGroup
	if m.loops != nil {
		for _, w := range m.workers {
			w.task.SetBody(func(*fastpath.Task) { m.loop(ctx, w, start) })
		}
		for _, l := range m.loops {
			done.Add(1)
			go func() {
				defer done.Done()
				defer m.lockThread()()
				l.Run()
			}()
		}
	} else {
		for _, w := range m.workers {
			done.Add(1)
			go func(w *worker) {
				defer done.Done()
				defer m.lockThread()()
				m.loop(ctx, w, start)
			}(w)
		}
	}
	finished := make(chan struct{})
	go func() { done.Wait(); close(finished) }()
	return func() {
		m.stop.Store(true)
		close(stopped)
		select {
		case <-finished:
		case <-time.After(time.Second):
			hardCancel() // a statement hangs: cancel it rather than wait
			<-finished
		}
	}
}

// interruptAll wakes every statement blocked on a client's connection.
func (m *executor) interruptAll() {
	for _, w := range m.workers {
		w.interrupt()
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
