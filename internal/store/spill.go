package store

// Spilled interval histograms: a run's per-second series carries, per op
// type and second, a lossless interval histogram (about 1.4 KiB each), nearly
// all of the series' memory. A run measuring into this store hands each
// second's histograms here as the second completes (SpillIntervals) and
// keeps only the counts in memory, so that its memory stays flat however
// long it measures. Appending the run moves the histograms into its series
// rows in the same transaction as the rest of the run, so a stored run reads
// back exactly as one that never spilled, and readers need not know.

import (
	"database/sql"
	"encoding/json"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/fairbench/fairbench/internal/result"
)

// Spilled histograms are written in batches, one transaction each: every
// spillBatch points, or once a batch is spillEvery old, whichever comes first.
const (
	spillBatch = 100
	spillEvery = 10 * time.Second
)

// spilledPoint is one point's histograms, per op type in the point's order,
// as the JSON of []string.
type spilledPoint struct {
	key        string
	point      int
	histograms string
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

// SpillIntervals takes the interval histograms of point (its index in the
// run's series) of the run spilling under key, one per op type in the
// point's order (result.IntervalOp.Histogram). They are written in batches
// in the background; an error is the store having refused an earlier batch,
// which stays pending in memory.
func (s *Store) SpillIntervals(key string, point int, histograms []string) error {
	b, err := json.Marshal(histograms)
	if err != nil {
		return fmt.Errorf("spilling interval histograms: %w", err)
	}
	sp := &s.spill
	sp.mu.Lock()
	defer sp.mu.Unlock()
	if len(sp.pending) == 0 {
		sp.since = time.Now()
	}
	sp.pending = append(sp.pending, spilledPoint{key: key, point: point, histograms: string(b)})
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

// FlushSpill writes the pending spilled histograms, once any batch being
// written in the background is.
func (s *Store) FlushSpill() error {
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
		return fmt.Errorf("spilling interval histograms to %s %s: %w", s.kind, s.path, err)
	}
	tx, err := s.db.Begin()
	if err != nil {
		return fail(err)
	}
	defer tx.Rollback()
	st, err := tx.Prepare(s.q(`INSERT INTO spilled_intervals (spill_key, point, histograms) VALUES (?, ?, ?)
		ON CONFLICT (spill_key, point) DO UPDATE SET histograms = excluded.histograms`))
	if err != nil {
		return fail(err)
	}
	defer st.Close()
	for _, p := range batch {
		if _, err := st.Exec(p.key, p.point, p.histograms); err != nil {
			return fail(err)
		}
	}
	if err := tx.Commit(); err != nil {
		return fail(err)
	}
	// Points came meanwhile: take off the list exactly those written.
	sp.mu.Lock()
	defer sp.mu.Unlock()
	written := map[spilledPoint]bool{}
	for _, p := range batch {
		written[p] = true
	}
	sp.pending = slices.DeleteFunc(sp.pending, func(p spilledPoint) bool { return written[p] })
	if len(sp.pending) > 0 {
		sp.since = time.Now()
	}
	return nil
}

// Unspill puts the histograms r spilled back into its series, from the store
// and from what is still pending, and clears r.SpillKey: for a run that is
// to be written somewhere else (a fallback file) after this store refused it.
func (s *Store) Unspill(r *result.Run) error {
	if r.SpillKey == "" {
		return nil
	}
	// No batch moves from the pending list to the store while they are read.
	s.spill.writing.Lock()
	defer s.spill.writing.Unlock()
	var firstErr error
	for from := 0; from < len(r.Series); from += spillChunk {
		got, err := s.spilled(s.db, r.SpillKey, from, from+spillChunk)
		if err != nil {
			firstErr = err // the pending ones may still be there
		}
		s.spill.mu.Lock()
		for _, p := range s.spill.pending {
			if p.key == r.SpillKey && p.point >= from && p.point < from+spillChunk {
				got[p.point] = p.histograms
			}
		}
		s.spill.mu.Unlock()
		for i := from; i < min(from+spillChunk, len(r.Series)); i++ {
			h, ok := got[i]
			if !ok {
				continue
			}
			filled, err := withHistograms(r.Series[i].Hists, h)
			if err != nil {
				return fmt.Errorf("run %s/%s: series point %d: %w", r.Target, r.CellKey, i, err)
			}
			r.Series[i].Hists = filled
		}
	}
	if firstErr != nil {
		return firstErr
	}
	// The run now holds them: they are not to be written to this store any more.
	s.spill.mu.Lock()
	s.spill.pending = slices.DeleteFunc(s.spill.pending, func(p spilledPoint) bool { return p.key == r.SpillKey })
	s.spill.mu.Unlock()
	r.SpillKey = ""
	return nil
}

// spillChunk is how many points' spilled histograms are read at once when a
// run is appended: the memory it takes stays bounded however long the run.
const spillChunk = 1000

type queryer interface {
	Query(query string, args ...any) (*sql.Rows, error)
}

// spilled returns the histograms spilled under key for the points in [from, to).
func (s *Store) spilled(q queryer, key string, from, to int) (map[int]string, error) {
	rows, err := q.Query(s.q("SELECT point, histograms FROM spilled_intervals WHERE spill_key = ? AND point >= ? AND point < ?"), key, from, to)
	got := map[int]string{}
	if err != nil {
		return got, fmt.Errorf("reading spilled interval histograms: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var point int
		var h string
		if err := rows.Scan(&point, &h); err != nil {
			return got, fmt.Errorf("reading spilled interval histograms: %w", err)
		}
		got[point] = h
	}
	if err := rows.Err(); err != nil {
		return got, fmt.Errorf("reading spilled interval histograms: %w", err)
	}
	return got, nil
}

// withHistograms returns a copy of a point's intervals with the spilled
// histograms (the JSON of []string, in the same op order) put back.
func withHistograms(ivs []result.IntervalOp, spilled string) ([]result.IntervalOp, error) {
	var hs []string
	if err := json.Unmarshal([]byte(spilled), &hs); err != nil {
		return nil, fmt.Errorf("spilled interval histograms: %w", err)
	}
	if len(hs) != len(ivs) {
		return nil, fmt.Errorf("%d spilled interval histograms for %d op types", len(hs), len(ivs))
	}
	out := make([]result.IntervalOp, len(ivs))
	copy(out, ivs)
	for i := range out {
		out[i].Histogram = hs[i]
	}
	return out, nil
}
