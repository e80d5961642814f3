package runner

// The rate schedule: Poisson arrivals like pgbench -R, fixed in advance from
// the client's own random stream (worker.arr, apart from its operations', so
// that retries do not shift it). Latency counts from the intended start, so
// a slow server cannot hide its delays by slowing the schedule (no
// coordinated omission); an operation already later than the latency limit
// is skipped, as pgbench -L does.

import "time"

type poissonSchedule struct {
	m            *executor
	perSecond    float64   // this client's share of the cell's rate
	at           time.Time // the last intended start
	latencyLimit time.Duration
}

func (p *poissonSchedule) next(w *worker) (time.Time, pace) {
	p.at = p.at.Add(time.Duration(w.arr.ExpFloat64() / p.perSecond * float64(time.Second)))
	if wait := time.Until(p.at); wait > 0 && !p.m.sleep(w, wait) {
		return time.Time{}, paceStop
	}
	lag := time.Since(p.at)
	if p.latencyLimit > 0 && lag > p.latencyLimit {
		w.rec.RecordSkip()
		return time.Time{}, paceSkip
	}
	w.rec.RecordLag(lag)
	w.req.late = max(0, lag)
	w.req.paced = true
	return p.at, paceRun
}
