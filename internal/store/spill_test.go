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

// spill hands the store r's interval histograms of points [from, to), as
// the runner does while r measures, and leaves those points without them.
func spill(t *testing.T, s *Store, r *result.Run, key string, from, to int) {
	t.Helper()
	r.SpillKey = key
	for i := from; i < to; i++ {
		hs := make([]string, len(r.Series[i].Hists))
		for j := range r.Series[i].Hists {
			hs[j] = r.Series[i].Hists[j].Histogram
			r.Series[i].Hists[j].Histogram = ""
		}
		if err := s.SpillIntervals(key, i, hs); err != nil {
			t.Fatal(err)
		}
	}
}

// spillThenPending spills r's points from on, the last few after the
// others are written, so that those stay pending in memory.
func spillThenPending(t *testing.T, s *Store, r *result.Run, key string, from int) {
	t.Helper()
	last := len(r.Series) - spillBatch/3
	spill(t, s, r, key, from, last)
	if err := s.FlushSpill(); err != nil {
		t.Fatal(err)
	}
	spill(t, s, r, key, last, len(r.Series))
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
	spill(t, s, spilled, "run-b", 0, seconds)
	for i, pt := range spilled.Series {
		for _, iv := range pt.Hists {
			if iv.Histogram != "" {
				t.Fatalf("point %d still holds its interval histogram in memory", i)
			}
		}
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
	if err := s.db.QueryRow("SELECT count(*) FROM spilled_intervals").Scan(&left); err != nil {
		t.Fatal(err)
	}
	if left != 0 {
		t.Errorf("%d spilled rows left once the run is stored, want 0", left)
	}
}

// An interrupted run is appended as it stands: the seconds it spilled, the
// last ones still pending in memory among them, are in it, and seconds it
// never spilled keep what the run holds.
func TestInterruptedSpilledRunKeepsItsSpilledSeconds(t *testing.T) {
	eachDialect(t, func(t *testing.T, s *Store) {
		r := longRun(250, "c")
		want := longRun(250, "c")
		spillThenPending(t, s, r, "run-c", 10) // the first ten points were never spilled
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

// A run the store then refuses gets its histograms back, from the store and
// from those still pending, to be written elsewhere whole.
func TestUnspillRestoresTheHistograms(t *testing.T) {
	s := mustOpen(t, t.TempDir()+"/r.db")
	r := longRun(1234, "d")
	spillThenPending(t, s, r, "run-d", 0)
	if err := s.Unspill(r); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(r, longRun(1234, "d")) {
		t.Fatalf("unspilled run differs from the one measured: point 0 %#v", r.Series[0])
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
	spill(t, s, r, "run-e", 0, len(r.Series))
	if err := s.FlushSpill(); err == nil || !strings.Contains(err.Error(), "spilling interval histograms to results file") {
		t.Fatalf("flush into a locked file: %v, want the refusal", err)
	}
	if n := pendingSpill(s); n != len(r.Series) {
		t.Fatalf("%d points pending after the refusal, want %d", n, len(r.Series))
	}
	if _, err := conn.ExecContext(t.Context(), "ROLLBACK"); err != nil {
		t.Fatal(err)
	}
	id, err := s.AppendRun(r)
	if err != nil {
		t.Fatal(err)
	}
	if got := readBack(t, s, id); !reflect.DeepEqual(got.Series, longRun(30, "e").Series) {
		t.Fatalf("run stored after a refused spill lacks histograms: %#v", got.Series[0])
	}
}
