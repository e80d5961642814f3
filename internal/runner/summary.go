package runner

// Progress and summary: each tick's interval becomes a series point (with its
// interval histograms per op type), and the measured phase's totals become the
// run's op results, summary and headline metric.

import (
	"context"
	"fmt"
	"maps"
	"math"
	"syscall"
	"time"

	"github.com/fairbench/fairbench/internal/driver"
	"github.com/fairbench/fairbench/internal/envinfo"
	"github.com/fairbench/fairbench/internal/hist"
	"github.com/fairbench/fairbench/internal/kinds"
	"github.com/fairbench/fairbench/internal/numfmt"
	"github.com/fairbench/fairbench/internal/progress"
	"github.com/fairbench/fairbench/internal/result"
	"github.com/fairbench/fairbench/internal/workload"
)

// phase waits for d while printing progress every tick; it returns true when the
// context was cancelled. With series non-nil, each tick's numbers are kept as
// the point of its second (slot): a tick read a whole tick period late or more
// means fairbench itself did not run, and each second it did not read is kept
// as a missed point (result.SeriesPoint.Missed), so that every second of the
// measured phase is in the series.
func (m *executor) phase(ctx context.Context, col *hist.Collector, label string, start time.Time, d time.Duration, series *measuredSeries) bool {
	every := m.r.opt.Every
	ticker := time.NewTicker(every)
	defer ticker.Stop()
	deadline := time.NewTimer(d)
	defer deadline.Stop()
	prev := start
	cpuPrev, loadPrev := cpuSeconds(), m.r.opt.readLoad()
	slot, lastSlot := 0, int(d/every)
	prevCounts := counts(m.hooks)
	status := m.statusTask(label, d)
	defer status.End()
	for {
		select {
		case <-ctx.Done():
			return true
		case <-deadline.C:
			return false
		case <-m.allDone:
			return false
		case <-ticker.C:
			// The reading's own time, not the tick's: a tick read late
			// covers everything since the previous reading.
			if series != nil && slot >= lastSlot {
				// Every second of the phase is read and its deadline
				// passed meanwhile: the rest is the final reading's.
				return false
			}
			now := time.Now()
			clock := int(now.Sub(start) / every) // the slot the clock is in
			k := max(clock, slot+1)
			stats := col.Tick()
			window := now.Sub(prev)
			prev = now
			pt, _ := point(m.inst.Ops(), stats, window)
			cpuNow, loadNow := cpuSeconds(), m.r.opt.readLoad()
			pt.CPU = (cpuNow - cpuPrev) / window.Seconds()
			if wait, ok := loadNow.WaitSince(loadPrev); ok {
				pt.CPUWait = wait.Seconds() / window.Seconds()
			}
			cpuPrev, loadPrev = cpuNow, loadNow
			if series != nil {
				// A reading late past the phase's last whole second is
				// that second's (the deadline passed meanwhile).
				k = min(k, lastSlot)
				if m.server != nil {
					pt.Server = m.server.Take()
				}
				series.points = appendSlot(series.points, slot, k, every, pt)
				series.slot, series.read, series.cpu, series.load = k, now, cpuNow, loadNow
			}
			slot = k
			status.Detail(fmt.Sprintf("%s ops/s, %s failed", numfmt.Rate(pt.Rate), numfmt.Whole(pt.Errors)))
			reading := kinds.Tick{Now: now, Elapsed: now.Sub(start), Window: window, Warmup: series == nil, Clients: m.cell.Clients, Point: pt}
			if w := m.r.opt.Watch; w != nil {
				w.Tick(reading)
			}
			if m.onTick != nil {
				m.onTick(k, reading)
			}
			if !m.r.opt.NoTickLines {
				nowCounts := counts(m.hooks)
				reading.Counts, reading.Previous = nowCounts, prevCounts
				m.r.tickLine(m.cell.Workload.Kind, label, reading)
				prevCounts = nowCounts
			}
			if series != nil {
				m.spillSettled(series, min(clock, lastSlot))
			}
		}
	}
}

// tickLine prints one progress reading of a cell of kind: the kind's own
// line in an ad-hoc run (Options.PeerProgress) when it has one, else
// fairbench's.
func (r *Runner) tickLine(kind, label string, t kinds.Tick) {
	if r.opt.PeerProgress {
		if f, ok := kinds.ProgressOf(kind); ok {
			f(r.opt.Progress, t, r.opt.Printing)
			return
		}
	}
	prefix := "progress"
	if label != "" {
		prefix = label
	}
	pt := t.Point
	fmt.Fprintf(r.opt.Progress, "  %s: %.1f s, %.1f tps, lat %.3f ms p99 %.3f ms, %d failed\n",
		prefix, t.Elapsed.Seconds(), pt.Rate, pt.Mean/1000, pt.P99/1000, pt.Errors)
}

// statusTask is the progress line of a phase that prints no tick lines
// (an ad-hoc run without -P): its time, operations per second and time
// left, redrawn on a terminal, a plain line now and then elsewhere. A finite
// query set or a self-ending run ends with its work, not at d, which only
// bounds it: its line shows no time left.
func (m *executor) statusTask(label string, d time.Duration) *progress.Task {
	if !m.r.opt.NoTickLines {
		return nil
	}
	if label == "" {
		label = "measuring"
	}
	switch m.shape.End.Kind() {
	case workload.EndTries, workload.EndSelf, workload.EndPerClient:
		d = 0
	}
	return m.r.opt.Meter.StartTimed(m.cell.Workload.Name+": "+label, d)
}

// measuredSeries is the measured phase's series as the ticks read it: its
// points, the last slot read, when, and fairbench's CPU time and the load
// counters then.
type measuredSeries struct {
	points []result.SeriesPoint
	slot   int
	read   time.Time
	cpu    float64
	load   envinfo.Load
}

// finish adds the final reading, taken once the clients stopped: it is the
// point of the last second of the measured phase when no tick read that one
// (the phase's deadline came first, or fairbench did not run), else a point
// after the measured phase, kept when something completed or failed in it. It
// returns the series and how many of its points are the measured phase's: the
// whole tick periods of the planned duration the phase lasted (phaseEnd).
func (ms *measuredSeries) finish(names []string, last []*hist.Stats, cpu float64, load envinfo.Load, start, phaseEnd, end time.Time, planned, every time.Duration) ([]result.SeriesPoint, int) {
	measured := int(min(phaseEnd.Sub(start), planned) / every)
	window := end.Sub(ms.read)
	pt, ok := point(names, last, window)
	if ok {
		pt.CPU = (cpu - ms.cpu) / window.Seconds()
		if wait, known := load.WaitSince(ms.load); known {
			pt.CPUWait = wait.Seconds() / window.Seconds()
		}
	}
	switch {
	case ms.slot < measured:
		return appendSlot(ms.points, ms.slot, measured, every, pt), measured
	case ok && pt.Ops+pt.Errors > 0:
		return appendSlot(ms.points, ms.slot, ms.slot+1, every, pt), measured
	}
	return ms.points, measured
}

// appendSlot appends pt as the point of slot k (the k-th tick period of the
// measured phase), after a missed point for each slot between the last one
// read (last) and k.
func appendSlot(series []result.SeriesPoint, last, k int, every time.Duration, pt result.SeriesPoint) []result.SeriesPoint {
	for s := last + 1; s < k; s++ {
		series = append(series, result.SeriesPoint{Second: slotSecond(s, every), Missed: true, CPUWait: pt.CPUWait, Hists: []result.IntervalOp{}})
	}
	pt.Second = slotSecond(k, every)
	return append(series, pt)
}

// slotSecond is the second (since the start of the measured phase) that ends
// slot k.
func slotSecond(k int, every time.Duration) int {
	return int(math.Round(float64(k) * every.Seconds()))
}

// point summarises one tick window; rates use the real window length. The
// window's histograms go with it per op type, so that series merge exactly.
// The caller sets its second.
func point(names []string, stats []*hist.Stats, window time.Duration) (result.SeriesPoint, bool) {
	all := hist.Combine(stats)
	pt := result.SeriesPoint{Ops: all.Count, Errors: all.ErrorCount()}
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

func (m *executor) fill(total []*hist.Stats, connectTime time.Duration, cpu float64) {
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
		op := result.Op{Name: names[i], Count: st.Count, Items: st.Items, Bytes: st.Bytes, Errors: st.ErrorMap(), Histogram: enc}
		if st.HasService() {
			op.ServiceHistogram, _ = hist.Encode(st.Service)
		}
		m.run.Ops = append(m.run.Ops, op)
	}
	if m.shape.Results != nil {
		s.Queries = m.shape.Results()
	}
	h := kinds.Headline(m.cell.Workload.Kind)
	if m.shape.Headline != nil {
		h = *m.shape.Headline
	}
	s.Metric = &result.Metric{Headline: h, Value: h.Measure(m.run.Ops, m.run.Summary.Extra, m.run.Duration, func(i int) float64 { return total[i].SumUs }, s.Queries)}
}

// quietSeconds reports whether seconds without a completed operation are
// normal for a run: when its operations take a second or more, when they wait
// outside their requests (waits: keying and think times, a script's \sleep),
// or when a rate schedule below 5 per second leaves seconds without an arrival
// (e^-5 < 1 %). Only seconds with errors and no completion are dead then.
func quietSeconds(s result.Summary, waits bool) bool {
	if waits {
		return true
	}
	// A query set's queries (SSB, ClickBench) range from milliseconds to
	// minutes: a second without a finished query is their normal.
	// A bulk request of thousands of documents may take more than a second
	// on its own, and an engine's merges stall them all for seconds.
	return s.P50 >= 1e6 || (s.TargetRate > 0 && s.TargetRate < 5) || len(s.Queries) > 0 ||
		s.Metric != nil && (s.Metric.Field == result.FieldQueryTimes || s.Metric.Field == result.FieldItems)
}

// counts snapshots a workload's own counters (its Counts hook), if it keeps any.
func counts(hooks workload.Hooks) map[string]int64 {
	if hooks.Counts != nil {
		return hooks.Counts()
	}
	return nil
}

// countsSince is the growth of the workload's counters since a snapshot.
func countsSince(hooks workload.Hooks, before map[string]int64) map[string]float64 {
	now := counts(hooks)
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

// fillOutage adds the measured phase's outage accounting to the summary:
// reconnects, dead seconds from the series, the first error text per class.
func (m *executor) fillOutage() {
	s := &m.run.Summary
	s.ReconnectAttempts = m.reconnectAttempts.Load()
	s.Reconnects = m.reconnects.Load()
	setDead(s, m.run.DeadTime(quietSeconds(*s, m.shape.Waits)))
	if m.shape.End.Kind() == workload.EndTries {
		triesDeadTime(s, m.shape, m.run.StartedAt) // tries.go
	}
	m.errMu.Lock()
	if len(m.firstErrs) > 0 {
		s.FirstErrors = maps.Clone(m.firstErrs)
	}
	s.ReconnectError = m.reconnectErr
	m.errMu.Unlock()
}

// setDead stores a dead-time account in a summary.
func setDead(s *result.Summary, d result.DeadTime) {
	s.DeadSpans, s.DeadSeconds, s.SilentSeconds, s.StarvedSeconds = d.Spans, d.Seconds, d.Silent, d.Starved
}

// serverCounts reads a workload's server-side counters (its ServerCounts hook)
// on fairbench's own session, not a client's, so that reading them never waits
// behind a client's transaction and needs no connection beyond those the
// client limit check counts. The zero value, for workloads without such
// counters, does nothing.
type serverCounts struct {
	read   func(ctx context.Context, conn driver.Conn, final bool) (map[string]int64, error)
	conn   driver.Conn
	owned  bool // conn was opened for the counters and is closed with them
	before map[string]int64
}

func (m *executor) openServerCounts(ctx context.Context) (*serverCounts, error) {
	read := m.hooks.ServerCounts
	if read == nil {
		return &serverCounts{}, nil
	}
	if m.admin != nil {
		return &serverCounts{read: read, conn: m.admin}, nil
	}
	conn, err := m.r.connect(ctx, m.client, m.cell.Target)
	if err != nil {
		return nil, fmt.Errorf("the session that reads the database's own counters: %w", err)
	}
	return &serverCounts{read: read, conn: conn, owned: true}, nil
}

// snapshot takes the counters at the start of the measured phase.
func (s *serverCounts) snapshot(ctx context.Context) error {
	if s.read == nil {
		return nil
	}
	v, err := s.read(ctx, s.conn, false)
	if err != nil {
		return fmt.Errorf("reading the database's own counters before the measured phase: %w", err)
	}
	s.before = v
	return nil
}

// growth adds the counters' growth since the snapshot to extra.
func (s *serverCounts) growth(ctx context.Context, extra *map[string]float64) error {
	if s.read == nil || s.before == nil {
		return nil
	}
	now, err := s.read(context.WithoutCancel(ctx), s.conn, true)
	if err != nil {
		return fmt.Errorf("the database's own counters could not be read after the measured phase (%v): the figures built on them are missing", err)
	}
	if *extra == nil {
		*extra = make(map[string]float64, len(now))
	}
	for k, v := range now {
		(*extra)[k] = float64(v - s.before[k])
	}
	return nil
}

func (s *serverCounts) close(ctx context.Context) {
	if s.owned {
		s.conn.Close(context.WithoutCancel(ctx))
	}
}
