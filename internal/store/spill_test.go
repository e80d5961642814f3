package store

import (
	"database/sql"
	"fmt"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/fairbench/fairbench/internal/result"
)

// longRun is a run of n seconds with two op types, each second's interval
// histograms distinct, as a long run's series is.
func longRun(n int, cell string) *result.Run {
	r := run("long", "h", cell, "x", result.StatusOK)
	for i := range n {
		pt := result.SeriesPoint{Second: i + 1, Ops: int64(3 * i), Rate: float64(3 * i), Hists: []result.IntervalOp{
			{Name: "read", Count: int64(2 * i), SumUs: float64(i) * 1.5, Histogram: fmt.Sprintf("HISTr%06d", i)},
			{Name: "write", Count: int64(i), Errors: map[result.ErrorClass]int64{result.ErrConnection: 1}, Histogram: fmt.Sprintf("HISTw%06d", i)},
		}}
		if i%7 == 3 {
			pt.Hists = []result.IntervalOp{} // a second without an op type in it
		}
		r.Series = append(r.Series, pt)
	}
	return r
}

// spill hands the store the next n points of r's series, as the runner
// does while r measures: r keeps only their tally.
func spill(t *testing.T, s *Store, r *result.Run, key string, n int) {
	t.Helper()
	r.SpillKey = key
	for _, pt := range r.Series[:n] {
		if err := s.SpillPoint(key, r.Spilled.Points, pt); err != nil {
			t.Fatal(err)
		}
		r.Spilled.Add(pt)
	}
	r.Series = r.Series[n:]
}

// spillThenPending spills r's first n points, the last few after the others
// are written, so that those stay pending in memory.
func spillThenPending(t *testing.T, s *Store, r *result.Run, key string, n int) {
	t.Helper()
	spill(t, s, r, key, n-spillBatch/3)
	if err := s.FlushSpill(); err != nil {
		t.Fatal(err)
	}
	spill(t, s, r, key, spillBatch/3)
	if pendingSpill(s) == 0 {
		t.Fatal("test setup: no spilled point left pending")
	}
}

func pendingSpill(s *Store) int {
	s.spill.mu.Lock()
	defer s.spill.mu.Unlock()
	return len(s.spill.pending)
}

// readBack returns the stored run with id, read in full.
func readBack(t *testing.T, s *Store, id int64) *result.Run {
	t.Helper()
	got, err := s.Runs(Filter{IDs: []int64{id}})
	if err != nil || len(got) != 1 {
		t.Fatalf("reading run %d back: %d runs, %v", id, len(got), err)
	}
	got[0].ID = 0
	return got[0]
}

func TestSpilledRunStoresAsOneThatNeverSpilled(t *testing.T) {
	eachDialect(t, testSpilledRunStoresAsOneThatNeverSpilled)
}

func testSpilledRunStoresAsOneThatNeverSpilled(t *testing.T, s *Store) {
	const seconds = 2345 // more than one batch and more than one read chunk, and not a multiple of either
	whole := longRun(seconds, "a")
	wholeID, err := s.AppendRun(whole)
	if err != nil {
		t.Fatal(err)
	}
	spilled := longRun(seconds, "a")
	spill(t, s, spilled, "run-b", seconds)
	if len(spilled.Series) != 0 || spilled.SeriesLen() != seconds {
		t.Fatalf("the spilling run holds %d points of %d", len(spilled.Series), spilled.SeriesLen())
	}
	spilledID, err := s.AppendRun(spilled)
	if err != nil {
		t.Fatal(err)
	}
	want, got := readBack(t, s, wholeID), readBack(t, s, spilledID)
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("the spilled run reads back unlike the one that never spilled:\n got %#v\nwant %#v", got.Series[:3], want.Series[:3])
	}
	if got.Series[seconds-1].Hists[1].Histogram != fmt.Sprintf("HISTw%06d", seconds-1) {
		t.Errorf("last point's histogram: %q", got.Series[seconds-1].Hists[1].Histogram)
	}
	var left int
	if err := s.db.QueryRow("SELECT count(*) FROM spilled_points").Scan(&left); err != nil {
		t.Fatal(err)
	}
	if left != 0 {
		t.Errorf("%d spilled rows left once the run is stored, want 0", left)
	}
}

// An interrupted run is appended as it stands: the seconds it spilled, the
// last ones still pending in memory among them, are in it, then the seconds
// it holds.
func TestInterruptedSpilledRunKeepsItsSpilledSeconds(t *testing.T) {
	eachDialect(t, func(t *testing.T, s *Store) {
		r := longRun(250, "c")
		want := longRun(250, "c")
		spillThenPending(t, s, r, "run-c", 240) // the last ten points were never spilled
		r.Status, r.Error = result.StatusInterrupted, "interrupted"
		want.Status, want.Error = r.Status, r.Error
		id, err := s.AppendRun(r)
		if err != nil {
			t.Fatal(err)
		}
		wantID, err := s.AppendRun(want)
		if err != nil {
			t.Fatal(err)
		}
		if got, want := readBack(t, s, id), readBack(t, s, wantID); !reflect.DeepEqual(got, want) {
			t.Fatalf("interrupted spilled run reads back unlike the whole one:\n got %#v\nwant %#v", got.Series[len(got.Series)-1], want.Series[len(want.Series)-1])
		}
	})
}

// A run the store then refuses gets its points back, from the store and
// from those still pending, to be written elsewhere whole.
func TestUnspillRestoresThePoints(t *testing.T) {
	s := mustOpen(t, t.TempDir()+"/r.db")
	r := longRun(1234, "d")
	spillThenPending(t, s, r, "run-d", 1200)
	if err := s.Unspill(r); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(r, longRun(1234, "d")) {
		t.Fatalf("unspilled run differs from the one measured: %d points, point 0 %#v", len(r.Series), r.Series[0])
	}
	if n := pendingSpill(s); n != 0 {
		t.Errorf("%d points of the unspilled run still pending for the store", n)
	}
}

// A batch the results file refuses (locked past the busy timeout by another
// process) stays pending: once the file takes writes again, the run is
// stored with every second's histograms.
func TestRefusedSpillStaysPendingUntilTheRunIsStored(t *testing.T) {
	path := filepath.Join(t.TempDir(), "r.db")
	s := mustOpen(t, path)
	lock, err := sql.Open("sqlite", "file:"+path)
	if err != nil {
		t.Fatal(err)
	}
	defer lock.Close()
	conn, err := lock.Conn(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if _, err := conn.ExecContext(t.Context(), "BEGIN EXCLUSIVE"); err != nil {
		t.Fatal(err)
	}
	r := longRun(30, "e")
	spill(t, s, r, "run-e", len(r.Series))
	if err := s.FlushSpill(); err == nil || !strings.Contains(err.Error(), "spilling series points to results file") {
		t.Fatalf("flush into a locked file: %v, want the refusal", err)
	}
	if n := pendingSpill(s); n != r.SeriesLen() {
		t.Fatalf("%d points pending after the refusal, want %d", n, r.SeriesLen())
	}
	if _, err := conn.ExecContext(t.Context(), "ROLLBACK"); err != nil {
		t.Fatal(err)
	}
	id, err := s.AppendRun(r)
	if err != nil {
		t.Fatal(err)
	}
	if got := readBack(t, s, id); !reflect.DeepEqual(got.Series, longRun(30, "e").Series) {
		t.Fatalf("run stored after a refused spill lacks points: %d, %#v", len(got.Series), got.Series[0])
	}
}
