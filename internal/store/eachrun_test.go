package store

import (
	"bytes"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/fairbench/fairbench/internal/result"
)

// Issue 41: reports read the runs one at a time (EachRunPoints), so that they
// never hold more than one run's series. eachRun hands over the runs Runs
// returns, in id order, each complete when handed (no point of it comes
// later), a run without a series included and a run whose series does not
// decode skipped with a warning; an error of fn stops the walk.
func TestEachRunHandsOverEachRunWhole(t *testing.T) { eachDialect(t, testEachRun) }

// storeWalkFixture stores runs 1–4, run 3 without a series and run 2 with a
// series point that does not decode, and returns the runs Runs reads (1, 3,
// 4) and the store's warnings, emptied of Runs' own.
func storeWalkFixture(t *testing.T, s *Store) ([]*result.Run, *bytes.Buffer) {
	t.Helper()
	for i := 1; i <= 4; i++ {
		r := sampleRun(t, i)
		if i == 3 {
			r.Series = nil
		}
		if _, err := s.AppendRun(r); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := s.db.Exec(s.q("UPDATE run_series SET hists = '[{' WHERE run_id = 2 AND second = 1")); err != nil {
		t.Fatal(err)
	}
	var warn bytes.Buffer
	s.setWarnings(&warn)
	want, err := s.Runs(Filter{})
	if err != nil {
		t.Fatal(err)
	}
	warn.Reset()
	return want, &warn
}

func testEachRun(t *testing.T, s *Store) {
	want, warn := storeWalkFixture(t, s)
	var err error

	var got []*result.Run
	handedWith := map[int64]int{} // points each run had when handed over
	err = s.eachRun(Filter{}, true, func(r *result.Run) error {
		got = append(got, r)
		handedWith[r.ID] = len(r.Series)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if g, w := ids(got), ids(want); len(g) != 3 || len(g) != len(w) || g[0] != 1 || g[1] != 3 || g[2] != 4 {
		t.Fatalf("eachRun handed over runs %v, want Runs' %v (1, 3, 4: run 2's series does not decode)", g, w)
	}
	for i, r := range got {
		if len(r.Series) != handedWith[r.ID] {
			t.Errorf("run %d got %d points after it was handed over with %d", r.ID, len(r.Series)-handedWith[r.ID], handedWith[r.ID])
		}
		if len(r.Series) != len(want[i].Series) || len(r.Ops) != len(want[i].Ops) {
			t.Errorf("run %d: %d points and %d ops, Runs reads %d and %d", r.ID, len(r.Series), len(r.Ops), len(want[i].Series), len(want[i].Ops))
		}
	}
	if !strings.Contains(warn.String(), "run 2 (") || strings.Count(warn.String(), "\n") != 1 {
		t.Errorf("want one warning naming run 2, got %q", warn.String())
	}

	stop := errors.New("enough")
	calls := 0
	if err := s.eachRun(Filter{}, false, func(*result.Run) error { calls++; return stop }); !errors.Is(err, stop) || calls != 1 {
		t.Errorf("fn's error: eachRun returned %v after %d calls, want it after 1", err, calls)
	}
}

// Issue 41: one very long run cost a report its whole series. EachRunPoints
// builds no series: it hands each point, as read, to the sink of its run,
// the runs strictly one after another (start, its points, done), every point
// of every run eachRun hands over, in order, and each run to done with no
// series; a run whose series does not decode is skipped as eachRun skips it.
func TestEachRunPointsHandsEveryPointAndBuildsNoSeries(t *testing.T) {
	eachDialect(t, testEachRunPoints)
}

func testEachRunPoints(t *testing.T, s *Store) {
	want, warn := storeWalkFixture(t, s)
	var err error

	// open is the run started and not yet handed over (run 2, skipped, is
	// never handed over).
	var started, open *result.Run
	seconds := map[int64][]int{} // the seconds of the points each run's sink took
	var done []*result.Run
	err = s.EachRunPoints(Filter{}, true, func(r *result.Run) func(result.SeriesPoint) {
		if open != nil && open.ID != 2 {
			t.Errorf("run %d started before run %d, started before it, was handed over", r.ID, open.ID)
		}
		started, open = r, r
		return func(p result.SeriesPoint) {
			if started != r {
				t.Errorf("a point of run %d came after run %d started", r.ID, started.ID)
			}
			seconds[r.ID] = append(seconds[r.ID], p.Second)
		}
	}, func(r *result.Run) error {
		if r != started {
			t.Errorf("run %d handed over, but the run last started is %d", r.ID, started.ID)
		}
		if r.Series != nil {
			t.Errorf("run %d handed over with %d series points, want none", r.ID, len(r.Series))
		}
		done, open = append(done, r), nil
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if g, w := ids(done), ids(want); len(g) != len(w) || g[0] != 1 || g[1] != 3 || g[2] != 4 {
		t.Fatalf("EachRunPoints handed over runs %v, want Runs' %v", g, w)
	}
	for i, r := range done {
		var w []int
		for _, p := range want[i].Series {
			w = append(w, p.Second)
		}
		if g := seconds[r.ID]; !slices.Equal(g, w) {
			t.Errorf("run %d's sink took the points of seconds %v, Runs reads %v", r.ID, g, w)
		}
		if len(r.Ops) != len(want[i].Ops) {
			t.Errorf("run %d: %d ops, Runs reads %d", r.ID, len(r.Ops), len(want[i].Ops))
		}
	}
	if !strings.Contains(warn.String(), "run 2 (") || strings.Count(warn.String(), "\n") != 1 {
		t.Errorf("want one warning naming run 2, got %q", warn.String())
	}
}
