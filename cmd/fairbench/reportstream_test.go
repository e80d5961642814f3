package main

import (
	"testing"

	"github.com/fairbench/fairbench/internal/report"
	"github.com/fairbench/fairbench/internal/result"
	"github.com/fairbench/fairbench/internal/store"
)

// Issue 41: a report held every selected run's series at once
// (store.RunsWithoutIntervals), then, read one run at a time, still one
// whole run's series (about 500 B a point: one very long run cost its whole
// series). It now hands each run's points, one at a time as the store reads
// them, to the run's digest (store.EachRunPoints, report.Digester): every
// point reaches it, in the second read of the runs that shift level too,
// and no run ever holds series points. The long-series goldens
// (TestReportLongSeriesGolden) show the digests report what the series did.
func TestReportHoldsOneRunsSeriesAtATime(t *testing.T) {
	s := longSeriesStore(t)
	// watch reads runs over a walk of s that counts the points it hands
	// over and the runs, and, at each point and each run handed over, how
	// many of the runs started so far hold series points.
	watch := func(read func(runWalk) []*result.Run) (most, points, handed int, runs []*result.Run) {
		var seen []*result.Run
		held := func() {
			n := 0
			for _, r := range seen {
				if len(r.Series) > 0 {
					n++
				}
			}
			most = max(most, n)
		}
		walk := func(f store.Filter, intervalHistograms bool, start func(*result.Run) func(result.SeriesPoint), done func(*result.Run) error) error {
			return s.EachRunPoints(f, intervalHistograms, func(r *result.Run) func(result.SeriesPoint) {
				seen = append(seen, r)
				sink := start(r)
				return func(p result.SeriesPoint) {
					points++
					held()
					sink(p)
				}
			}, func(r *result.Run) error {
				handed++
				held()
				return done(r)
			})
		}
		runs = read(walk)
		return most, points, handed, runs
	}

	most, points, handed, runs := watch(func(walk runWalk) []*result.Run {
		runs, err := readDigests(walk, store.Filter{})
		if err != nil {
			t.Fatal(err)
		}
		return runs
	})
	if len(runs) != 12 {
		t.Fatalf("%d runs read, want the store's 12", len(runs))
	}
	// The runs that shift level ("shifted", and not only) are read again
	// for their levels' latencies.
	shifted := 0
	for _, r := range runs {
		if r.Digest != nil && r.Digest.Rates.Shift != nil {
			shifted++
		}
	}
	if shifted < 2 || handed != 12+shifted || points != (12+shifted)*300 {
		t.Errorf("the store handed over %d runs and %d points, want %d and %d: every point of the 12 runs, then of the %d that shift level (at least the 2 \"shifted\")",
			handed, points, 12+shifted, (12+shifted)*300, shifted)
	}
	if most != 0 {
		t.Errorf("%d runs held series points at once while the report read them, want none", most)
	}
	for _, r := range runs {
		if r.Series != nil || r.Digest == nil || r.SeriesLen() != 300 {
			t.Errorf("run %d kept %d points of its series (digest %v, %d points): want none, and a digest of 300", r.ID, len(r.Series), r.Digest != nil, r.SeriesLen())
			continue
		}
		if r.Digest.Rates.Shift != nil && (r.Digest.Levels == nil || !r.Digest.Levels[0].Histograms || !r.Digest.Levels[1].Histograms) {
			t.Errorf("run %d shifts level: its digest's levels %+v, want both tallied with their interval histograms", r.ID, r.Digest.Levels)
		}
	}

	// The count sees the former ways: every point kept in its run's series,
	// each run digested once read, or every run read before any is.
	collect := func(r *result.Run) func(result.SeriesPoint) {
		return func(p result.SeriesPoint) { r.Series = append(r.Series, p) }
	}
	most, _, _, _ = watch(func(walk runWalk) []*result.Run {
		var all []*result.Run
		err := walk(store.Filter{}, false, collect, func(r *result.Run) error {
			report.DropSeries(r)
			all = append(all, r)
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		return all
	})
	if most != 1 {
		t.Errorf("digesting each run once its series was read held %d runs' series at once by the count, want 1", most)
	}
	most, _, _, _ = watch(func(walk runWalk) []*result.Run {
		var all []*result.Run
		if err := walk(store.Filter{}, false, collect, func(r *result.Run) error { all = append(all, r); return nil }); err != nil {
			t.Fatal(err)
		}
		for _, r := range all {
			report.DropSeries(r)
		}
		return all
	})
	if most != 12 {
		t.Errorf("reading every run before digesting any held %d series at once by the count, want 12", most)
	}
}
