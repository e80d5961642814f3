package store

// Spilled series points: a run's per-second series carries, per op type and
// second, a lossless interval histogram (about 1.4 KiB each) besides its
// counts. A run measuring into this store hands each second's point here as
// the second completes (SpillPoint) and keeps only a fixed-size tally of it
// (result.Run.Spilled), so that its memory stays flat however long it
// measures. A spilled point is kept as the run_series row it will be, so
// appending the run copies the rows into its series in the same transaction
// as the rest of the run: a stored run reads back exactly as one that never
// spilled, and readers need not know.

import (
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/fairbench/fairbench/internal/result"
)

// Spilled points are written in batches, one transaction each: every
// spillBatch points, or once a batch is spillEvery old, whichever comes first.
const (
	spillBatch = 100
	spillEvery = 10 * time.Second
)

// seriesColumns are a series point's columns in run_series and
// spilled_points, in the order seriesRow gives and scanPoint reads them.
const seriesColumns = `second, ops, errors, rate, mean_us, p50_us, p95_us, p99_us, max_us, client_cpu,
	server_cpu, server_disk_util, server_net_rx, server_net_tx, hists`

// seriesRow is pt as the values of seriesColumns.
func seriesRow(pt result.SeriesPoint) ([]any, error) {
	var scpu, sdisk, srx, stx any // NULL without a server sample
	if sv := pt.Server; sv != nil {
		scpu, sdisk, srx, stx = finite(sv.CPU), finite(sv.DiskUtil), finite(sv.NetRx), finite(sv.NetTx)
	}
	var hists any // NULL: a point without interval histograms (imported runs)
	if pt.Hists != nil {
		b, err := json.Marshal(pt.Hists)
		if err != nil {
			return nil, fmt.Errorf("series: second %d: %w", pt.Second, err)
		}
		hists = string(b)
	}
	return []any{pt.Second, pt.Ops, pt.Errors, finite(pt.Rate), finite(pt.Mean),
		finite(pt.P50), finite(pt.P95), finite(pt.P99), finite(pt.Max), finite(pt.CPU), scpu, sdisk, srx, stx, hists}, nil
}

// badPointError is a series row whose interval histograms do not decode.
type badPointError struct {
	second int
	err    error
}

func (e *badPointError) Error() string {
	return fmt.Sprintf("series second %d: interval histograms: %v", e.second, e.err)
}

// scanPoint reads a row of seriesColumns, after the columns of lead; with
// histograms false the interval histograms are left out
// (RunsWithoutIntervals).
func scanPoint(rows *sql.Rows, histograms bool, lead ...any) (result.SeriesPoint, error) {
	var p result.SeriesPoint
	var scpu, sdisk, srx, stx sql.NullFloat64
	// The intervals' text is read in place, not copied: it is decoded
	// before the next row (a report reads every point of every run).
	var hists sql.RawBytes
	dest := append(lead, &p.Second, &p.Ops, &p.Errors, &p.Rate, &p.Mean, &p.P50, &p.P95, &p.P99, &p.Max, &p.CPU,
		&scpu, &sdisk, &srx, &stx, &hists)
	if err := rows.Scan(dest...); err != nil {
		return p, err
	}
	if hists != nil {
		var err error
		if p.Hists, err = decodeIntervals(hists, histograms); err != nil {
			return p, &badPointError{second: p.Second, err: err}
		}
	}
	if scpu.Valid {
		p.Server = &result.ServerSample{CPU: scpu.Float64, DiskUtil: sdisk.Float64, NetRx: srx.Float64, NetTx: stx.Float64}
	}
	return p, nil
}

// spilledPoint is one point of the run spilling under key: its index in
// the run's series, itself (for Unspill) and its row.
type spilledPoint struct {
	key   string
	index int
	point result.SeriesPoint
	row   []any
}

// spillBuffer holds the spilled points not yet written. A batch the store
// refuses stays here, so that nothing spilled is lost: the next flush, or
// Unspill, finds it.
type spillBuffer struct {
	mu      sync.Mutex
	pending []spilledPoint
	since   time.Time // when the oldest pending point came
	failed  error     // what refused the last batch written in the background, not yet reported
	// writing is held while a batch is written: batches are written in the
	// background, so that a results file another process holds locked does
	// not hold up the measuring run's clock; AppendRun waits for them.
	writing sync.Mutex
}

// SpillPoint takes point index of the series of the run spilling under
// key. Points are written in batches in the background; an error is the
// store having refused an earlier batch, which stays pending in memory.
func (s *Store) SpillPoint(key string, index int, pt result.SeriesPoint) error {
	row, err := seriesRow(pt)
	if err != nil {
		return fmt.Errorf("spilling a series point: %w", err)
	}
	sp := &s.spill
	sp.mu.Lock()
	defer sp.mu.Unlock()
	if len(sp.pending) == 0 {
		sp.since = time.Now()
	}
	sp.pending = append(sp.pending, spilledPoint{key: key, index: index, point: pt, row: row})
	if len(sp.pending) >= spillBatch || time.Since(sp.since) >= spillEvery {
		go func() {
			if !sp.writing.TryLock() {
				return // a batch is being written; the next point starts another
			}
			defer sp.writing.Unlock()
			if err := s.writeSpill(); err != nil {
				sp.mu.Lock()
				sp.failed = err
				sp.mu.Unlock()
			}
		}()
	}
	failed := sp.failed
	sp.failed = nil
	return failed
}

// flushSpill writes the pending spilled points, once any batch being
// written in the background is.
func (s *Store) flushSpill() error {
	s.spill.writing.Lock()
	defer s.spill.writing.Unlock()
	return s.writeSpill()
}

// writeSpill writes the points pending now, in one transaction, and takes
// them off the pending list once they are stored. The caller holds
// spill.writing.
func (s *Store) writeSpill() error {
	sp := &s.spill
	sp.mu.Lock()
	batch := slices.Clone(sp.pending)
	sp.mu.Unlock()
	if len(batch) == 0 {
		return nil
	}
	fail := func(err error) error {
		return fmt.Errorf("spilling series points to %s %s: %w", s.kind, s.path, err)
	}
	tx, err := s.db.Begin()
	if err != nil {
		return fail(err)
	}
	defer tx.Rollback()
	marks := strings.Repeat(", ?", strings.Count(seriesColumns, ",")+1)
	// A batch retried after its commit was lost holds the same rows.
	st, err := tx.Prepare(s.q(`INSERT INTO spilled_points (spill_key, point, ` + seriesColumns + `) VALUES (?, ?` + marks + `)
		ON CONFLICT (spill_key, point) DO NOTHING`))
	if err != nil {
		return fail(err)
	}
	defer st.Close()
	own, err := tx.Prepare(s.q(`INSERT INTO spill_owners (spill_key, host, pid, seen_at) VALUES (?, ?, ?, ?)
		ON CONFLICT (spill_key) DO UPDATE SET seen_at = excluded.seen_at`))
	if err != nil {
		return fail(err)
	}
	defer own.Close()
	host, now := spillHost(), formatTime(time.Now())
	owned := map[string]bool{}
	for _, p := range batch {
		if _, err := st.Exec(append([]any{p.key, p.index}, p.row...)...); err != nil {
			return fail(err)
		}
		if !owned[p.key] {
			owned[p.key] = true
			if _, err := own.Exec(p.key, host, os.Getpid(), now); err != nil {
				return fail(err)
			}
		}
	}
	if err := tx.Commit(); err != nil {
		return fail(err)
	}
	// Points came meanwhile: take off the list exactly those written.
	type at struct {
		key   string
		index int
	}
	sp.mu.Lock()
	defer sp.mu.Unlock()
	written := map[at]bool{}
	for _, p := range batch {
		written[at{p.key, p.index}] = true
	}
	sp.pending = slices.DeleteFunc(sp.pending, func(p spilledPoint) bool { return written[at{p.key, p.index}] })
	if len(sp.pending) > 0 {
		sp.since = time.Now()
	}
	return nil
}

// Unspill puts the points r spilled back at the head of its series, from
// the store (as they read back from it) and from those still pending, and
// clears r.SpillKey and r.Spilled: for a run that is to be written somewhere
// else (a fallback file) after this store refused it.
func (s *Store) Unspill(r *result.Run) error {
	if r.SpillKey == "" {
		return nil
	}
	// No batch moves from the pending list to the store while they are read.
	s.spill.writing.Lock()
	defer s.spill.writing.Unlock()
	points := make([]result.SeriesPoint, r.Spilled.Points)
	have := make([]bool, r.Spilled.Points)
	readErr := s.spilled(r.SpillKey, func(i int, p result.SeriesPoint) {
		if i >= 0 && i < len(points) {
			points[i], have[i] = p, true
		}
	})
	s.spill.mu.Lock()
	for _, p := range s.spill.pending {
		if p.key == r.SpillKey && p.index < len(points) {
			points[p.index], have[p.index] = p.point, true
		}
	}
	s.spill.mu.Unlock()
	if i := slices.Index(have, false); i >= 0 {
		if readErr != nil {
			return readErr
		}
		return fmt.Errorf("run %s/%s: spilled series point %d is neither in %s %s nor pending", r.Target, r.CellKey, i, s.kind, s.path)
	}
	// The run now holds them: they are not to be written to this store any more.
	s.spill.mu.Lock()
	s.spill.pending = slices.DeleteFunc(s.spill.pending, func(p spilledPoint) bool { return p.key == r.SpillKey })
	s.spill.mu.Unlock()
	r.Series = append(points, r.Series...)
	r.SpillKey, r.Spilled = "", result.SeriesTally{}
	return nil
}

// spilled reads the points stored under key, calling got with each one's
// index.
func (s *Store) spilled(key string, got func(int, result.SeriesPoint)) error {
	rows, err := s.db.Query(s.q("SELECT point, "+seriesColumns+" FROM spilled_points WHERE spill_key = ? ORDER BY point"), key)
	if err != nil {
		return fmt.Errorf("reading spilled series points: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var i int
		p, err := scanPoint(rows, true, &i)
		if err != nil {
			return fmt.Errorf("reading spilled series points: %w", err)
		}
		got(i, p)
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("reading spilled series points: %w", err)
	}
	return nil
}

// dropSpill deletes what the run spilling under key left in the store.
func (s *Store) dropSpill(tx *sql.Tx, key string) error {
	for _, table := range []string{"spilled_points", "spill_owners"} {
		if _, err := tx.Exec(s.q("DELETE FROM "+table+" WHERE spill_key = ?"), key); err != nil {
			return fmt.Errorf("spilled series points: %w", err)
		}
	}
	return nil
}

// spillLease is how long a spilling process on another host may go without
// writing before its spilled points count as orphaned. A measuring run
// writes them every 10 s (spillEvery); a process on this host is asked
// directly whether it still runs.
const spillLease = time.Hour

// spillHost names this host in spill_owners.
func spillHost() string {
	host, err := os.Hostname()
	if err != nil {
		return "?"
	}
	return host
}

// processGone reports whether no process with pid runs on this host. A pid
// taken again by another process counts as running: its points then wait
// for the lease.
func processGone(pid int) bool {
	return pid > 0 && errors.Is(syscall.Kill(pid, 0), syscall.ESRCH)
}

// RemoveOrphanedSpill deletes the spilled points of runs that no process
// will store: their process (SIGKILLed, or its host lost power) is gone from
// this host, or, on another host, it has not written for spillLease. Points
// of runs still measuring, in this process or another sharing the store, are
// kept. It returns how many runs' and points it deleted.
func (s *Store) RemoveOrphanedSpill() (runs, points int, err error) {
	fail := func(err error) (int, int, error) {
		return 0, 0, fmt.Errorf("%s %s: removing the spilled points of killed runs: %w", s.kind, s.path, err)
	}
	type owner struct {
		key, host string
		pid       int
		seen      string
	}
	rows, err := s.db.Query(`SELECT o.spill_key, o.host, o.pid, o.seen_at FROM spill_owners o`)
	if err != nil {
		return fail(err)
	}
	var owners []owner
	for rows.Next() {
		var o owner
		if err := rows.Scan(&o.key, &o.host, &o.pid, &o.seen); err != nil {
			rows.Close()
			return fail(err)
		}
		owners = append(owners, o)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return fail(err)
	}
	host, expired := spillHost(), formatTime(time.Now().Add(-spillLease))
	for _, o := range owners {
		if o.host == host && o.pid == os.Getpid() {
			continue // this process's own runs
		}
		if !(o.host == host && processGone(o.pid)) && o.seen >= expired {
			continue
		}
		tx, err := s.db.Begin()
		if err != nil {
			return fail(err)
		}
		var n int
		err = tx.QueryRow(s.q("SELECT count(*) FROM spilled_points WHERE spill_key = ?"), o.key).Scan(&n)
		if err == nil {
			err = s.dropSpill(tx, o.key)
		}
		if err == nil {
			err = tx.Commit()
		}
		if err != nil {
			tx.Rollback()
			return fail(err)
		}
		runs, points = runs+1, points+n
	}
	return runs, points, nil
}
