package store

import (
	"database/sql"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

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
	if err := s.flushSpill(); err != nil {
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
	if err := s.flushSpill(); err == nil || !strings.Contains(err.Error(), "spilling series points to results file") {
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

const spillHelperEnv = "FAIRBENCH_SPILL_HELPER_DB"

// TestSpillHelperProcess is the child of TestKilledRunsSpillIsRemoved, not a
// test: a run that spilled its seconds and is killed before it is stored.
func TestSpillHelperProcess(t *testing.T) {
	path := os.Getenv(spillHelperEnv)
	if path == "" {
		t.Skip("runs only as the child of TestKilledRunsSpillIsRemoved")
	}
	s, err := Open(path)
	if err != nil {
		fmt.Println("open:", err)
		os.Exit(2)
	}
	r := longRun(150, "killed")
	for i, pt := range r.Series {
		if err := s.SpillPoint("killed", i, pt); err != nil {
			fmt.Println("spill:", err)
			os.Exit(2)
		}
	}
	if err := s.flushSpill(); err != nil {
		fmt.Println("flush:", err)
		os.Exit(2)
	}
	fmt.Println("ready")
	time.Sleep(time.Minute) // killed long before this ends
	os.Exit(3)
}

// The spilled seconds of a run whose process was killed are removed by the
// next process that cleans the store; those of runs still measuring stay:
// this process's, and another host's that wrote within the lease.
func TestKilledRunsSpillIsRemoved(t *testing.T) {
	path := filepath.Join(t.TempDir(), "fairbench.db")
	measuring := mustOpen(t, path)
	alive := longRun(30, "alive")
	spill(t, measuring, alive, "alive", 30)
	for _, key := range []string{"elsewhere-fresh", "elsewhere-stale"} {
		if err := measuring.SpillPoint(key, 0, longRun(1, key).Series[0]); err != nil {
			t.Fatal(err)
		}
	}
	if err := measuring.flushSpill(); err != nil {
		t.Fatal(err)
	}
	// Two runs on another host: one wrote just now, one two hours ago.
	for key, seen := range map[string]time.Time{"elsewhere-fresh": time.Now(), "elsewhere-stale": time.Now().Add(-2 * time.Hour)} {
		if _, err := measuring.db.Exec("UPDATE spill_owners SET host = 'another-host', pid = 1, seen_at = ? WHERE spill_key = ?", formatTime(seen), key); err != nil {
			t.Fatal(err)
		}
	}
	killChild(t, startHelper(t, "TestSpillHelperProcess", spillHelperEnv+"="+path))

	later := mustOpen(t, path) // as the next `fairbench run` opens it
	runs, points, err := later.RemoveOrphanedSpill()
	if err != nil {
		t.Fatal(err)
	}
	if runs != 2 || points != 151 {
		t.Errorf("removed %d runs' %d points, want the killed run's 150 and the stale one's 1", runs, points)
	}
	left := map[string]int{}
	rows, err := later.db.Query("SELECT spill_key, count(*) FROM spilled_points GROUP BY spill_key")
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var key string
		var n int
		if err := rows.Scan(&key, &n); err != nil {
			t.Fatal(err)
		}
		left[key] = n
	}
	rows.Close()
	if want := map[string]int{"alive": 30, "elsewhere-fresh": 1}; !reflect.DeepEqual(left, want) {
		t.Errorf("spilled points left %v, want %v", left, want)
	}
	var owners int
	if err := later.db.QueryRow("SELECT count(*) FROM spill_owners").Scan(&owners); err != nil {
		t.Fatal(err)
	}
	if owners != 2 {
		t.Errorf("%d spill owners left, want the two live runs'", owners)
	}
	// The run still measuring is stored whole.
	id, err := measuring.AppendRun(alive)
	if err != nil {
		t.Fatal(err)
	}
	if got := readBack(t, later, id); !reflect.DeepEqual(got.Series, longRun(30, "alive").Series) {
		t.Errorf("the live run stored %d points, want its 30", len(got.Series))
	}
}

// The lease and the process check on both dialects: a run on another host
// that wrote within spillLease keeps its points, one that did not loses
// them, and so does one on this host whose process has exited.
func TestOrphanedSpillOnBothDialects(t *testing.T) {
	eachDialect(t, func(t *testing.T, s *Store) {
		exited := exec.Command("true")
		if err := exited.Run(); err != nil {
			t.Fatal(err)
		}
		owners := map[string]struct {
			host string
			pid  int
			seen time.Time
		}{
			"o-fresh":  {"another-host", 1, time.Now()},
			"o-stale":  {"another-host", 1, time.Now().Add(-spillLease - time.Minute)},
			"o-exited": {spillHost(), exited.Process.Pid, time.Now()},
		}
		for key := range owners {
			r := longRun(3, key)
			spill(t, s, r, key, 3)
		}
		if err := s.flushSpill(); err != nil {
			t.Fatal(err)
		}
		for key, o := range owners {
			if _, err := s.db.Exec(s.q("UPDATE spill_owners SET host = ?, pid = ?, seen_at = ? WHERE spill_key = ?"), o.host, o.pid, formatTime(o.seen), key); err != nil {
				t.Fatal(err)
			}
		}
		runs, points, err := s.RemoveOrphanedSpill()
		if err != nil || runs != 2 || points != 6 {
			t.Fatalf("removed %d runs' %d points (%v), want the stale and the exited runs' 3 each", runs, points, err)
		}
		var left []string
		rows, err := s.db.Query("SELECT DISTINCT spill_key FROM spilled_points")
		if err != nil {
			t.Fatal(err)
		}
		defer rows.Close()
		for rows.Next() {
			var k string
			if err := rows.Scan(&k); err != nil {
				t.Fatal(err)
			}
			left = append(left, k)
		}
		if !reflect.DeepEqual(left, []string{"o-fresh"}) {
			t.Errorf("spilled points left of %v, want o-fresh's only", left)
		}
	})
}
