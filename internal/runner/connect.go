package runner

// Connecting the clients: a session per client from the cell's client, each
// with its worker and random streams, set up in parallel and interruptible;
// a lost session replaced during the run (reconnect, with backoff.go's
// waits).

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"sync"
	"time"

	"github.com/fairbench/fairbench/internal/driver"
	"github.com/fairbench/fairbench/internal/fastpath"
	"github.com/fairbench/fairbench/internal/hist"
	"github.com/fairbench/fairbench/internal/redact"
	"github.com/fairbench/fairbench/internal/result"
	"github.com/fairbench/fairbench/internal/workload"
)

// connectClients sets up every client, in parallel, and returns how long
// that took (pgbench's "initial connection time"). The clients that were set
// up are in m.workers (nil for the others) and closed by closeWorkers.
func (m *executor) connectClients(ctx context.Context) (time.Duration, error) {
	c := m.cell
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
			m.workers[i], errs[i] = m.setUpClient(ctx, i)
		}(i)
	}
	wg.Wait()
	connectTime := time.Since(connStart)
	if ctx.Err() != nil {
		ready := 0
		for _, w := range m.workers {
			if w != nil {
				ready++
			}
		}
		fmt.Fprintf(m.out, "  client setup interrupted: %d of %d clients were set up\n", ready, c.Clients)
		return connectTime, ErrInterrupted
	}
	return connectTime, distinctErrors(errs)
}

// setUpClient connects client i and makes its worker: its operation, its
// recorder and its random streams.
func (m *executor) setUpClient(ctx context.Context, i int) (*worker, error) {
	conn, err := m.r.connect(ctx, m.client, m.cell.Target)
	if err != nil {
		return nil, err
	}
	op, err := workload.NewWorker(ctx, m.inst, conn, m.slot(i))
	if err == nil {
		err = onFastPath(ctx, conn)
	}
	if err != nil {
		conn.Close(ctx)
		return nil, fmt.Errorf("client %d: %w", i+1, err)
	}
	seed := m.r.st.Seed
	// Streams by slot: load generators of one cell draw different ones.
	stream := uint64(m.cell.Index)<<20 | uint64(m.slot(i).Index)
	pcg := rand.NewPCG(seed, stream)
	rec := hist.NewRecorder(len(m.inst.Ops()))
	return &worker{
		id: i, conn: conn, op: op, rec: rec, pcg: pcg, rng: rand.New(pcg),
		arr: rand.New(rand.NewPCG(seed^0x9e3779b97f4a7c15, stream)),
	}, nil
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
				m.reconnectErr = result.CapText(redact.Scrub(err.Error()), result.MaxErrorText)
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
