package runner

// Schedule and retries: each client's loop paces its operations (a pacer:
// the closed loop of closedloop.go, or rate.go's Poisson schedule fixed in
// advance, whose latency counts from the intended start), retries them with
// pgbench's --max-tries meaning, and records the requests an operation
// reports itself.

import (
	"context"
	"errors"
	"time"

	"github.com/fairbench/fairbench/internal/hist"
	"github.com/fairbench/fairbench/internal/result"
	"github.com/fairbench/fairbench/internal/workload"
)

// requests is a worker's workload.Requests. What an operation records itself
// is kept until it returns and then goes into the worker's recorder at once
// (one interval for a whole pipeline), shifted by how late the operation
// started against its schedule (zero in a closed loop).
type requests struct {
	late  time.Duration
	paced bool // rate mode: service times are kept apart
	buf   []hist.Request
}

func (q *requests) Request(op int, latency time.Duration, items, bytes int64) {
	r := hist.Request{Op: op, Latency: latency + q.late, Items: items, Bytes: bytes}
	if q.paced {
		r.Service = max(latency, 1)
	}
	q.buf = append(q.buf, r)
}

func (q *requests) Failed(op int, class result.ErrorClass) {
	q.buf = append(q.buf, hist.Request{Op: op, Failed: true, Class: class})
}

// loop is one client: its operations paced by the cell's schedule (pacer),
// each performed with retries (once).
func (m *executor) loop(ctx context.Context, w *worker, start time.Time) {
	maxTries := max(m.cell.Workload.MaxTries, 1)
	opCtx := ctx
	if m.detached {
		opCtx = context.WithoutCancel(ctx)
	}
	pacer := m.pacer(start)
	perClient, log := m.shape.End.PerClientOps(), m.shape.Log
	for !m.stop.Load() && !w.done {
		if perClient > 0 && w.ops >= perClient {
			w.done = true
			m.clientDone()
			return
		}
		intended, step := pacer.next(w)
		switch step {
		case paceStop:
			return
		case paceSkip:
			w.ops++
			if log != nil {
				log(workload.Logged{Client: m.slot(w.id).Index, Seq: w.ops, Intended: intended, Began: intended, End: intended, Skipped: true,
					Paced: w.req.paced, MaxTries: maxTries})
			}
			continue
		}
		var began time.Time // only -l's log reads it: no clock read per operation otherwise
		if log != nil {
			began = time.Now()
		}
		op, tries, failed := m.once(ctx, opCtx, w, intended, maxTries)
		if tries == 0 { // the client is done, or stopped before it sent anything
			return
		}
		w.ops++
		if log != nil {
			log(workload.Logged{Client: m.slot(w.id).Index, Seq: w.ops, Op: op, Intended: intended, Began: began, End: time.Now(),
				Tries: tries, Failed: failed, Paced: w.req.paced, MaxTries: maxTries})
		}
	}
}

// pacer says when a client's next operation is intended to start: its
// latency counts from then. Each client has its own.
type pacer interface {
	// next waits for the next operation's intended start and returns it,
	// with paceRun; paceSkip when that operation is not to run at all,
	// paceStop when the run stopped meanwhile.
	next(w *worker) (time.Time, pace)
}

type pace int

const (
	paceRun pace = iota
	paceSkip
	paceStop
)

// pacer is the schedule of a client whose run starts at start: the closed
// loop (closedloop.go), or with a rate its share of the Poisson schedule
// (rate.go).
func (m *executor) pacer(start time.Time) pacer {
	wl := m.cell.Workload
	if rate := wl.Rate / float64(len(m.workers)); rate > 0 {
		return &poissonSchedule{m: m, perSecond: rate, at: start, latencyLimit: wl.LatencyLimit}
	}
	return closedLoop{}
}

// sleep waits, returning false if the run stops first. A worker on an event
// loop sleeps in the loop, so that its loop's other clients go on.
func (m *executor) sleep(w *worker, d time.Duration) bool {
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
// recorded again, and not retried once it has recorded any. It returns the
// operation's type, its tries (0 when the client said it is done, or was
// stopped before the operation sent anything: no operation) and
// whether it failed.
func (m *executor) once(ctx, opCtx context.Context, w *worker, start time.Time, maxTries int) (op, tries int, failed bool) {
	saved := *w.pcg
	for try := 1; ; try++ {
		w.req.buf = w.req.buf[:0]
		sent := time.Now()
		op, err := w.op(opCtx, w.rng, &w.req)
		if errors.Is(err, workload.ErrClientDone) {
			w.done = true
			m.clientDone()
			return op, 0, false
		}
		recorded := len(w.req.buf) > 0
		if recorded {
			w.rec.RecordRequests(w.req.buf)
		}
		if errors.Is(err, workload.ErrStopped) {
			// The run stopped the client in a wait outside the requests: what
			// was sent is recorded, what was not is neither done nor failed.
			if !recorded {
				return op, 0, false
			}
			return op, try, false
		}
		var class result.ErrorClass
		if err != nil {
			class = w.conn.Classify(err)
		}
		m.confirmReconnect(w, err, class)
		if err == nil {
			if !recorded {
				if w.req.paced {
					now := time.Now()
					w.rec.RecordPaced(op, now.Sub(start), now.Sub(sent))
				} else {
					w.rec.Record(op, time.Since(start))
				}
			}
			if try > 1 {
				w.rec.RecordRetries(op, try)
			}
			return op, try, false
		}
		if class.Retryable() && try < maxTries && !m.stop.Load() && !recorded {
			*w.pcg = saved
			continue
		}
		if !recorded {
			w.rec.RecordError(op, class)
		}
		if !m.stop.Load() {
			m.noteError(class, err)
		}
		if try > 1 {
			w.rec.RecordRetries(op, try)
		}
		// A statement abandoned at a client-side deadline leaves its session
		// in a state the driver may not recover (pgx closes it): the next
		// operation gets a fresh one.
		if (class == result.ErrConnection || errors.Is(err, context.DeadlineExceeded)) && !m.stop.Load() {
			m.reconnect(ctx, w)
		}
		return op, try, true
	}
}
