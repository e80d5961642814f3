package main

import (
	"testing"

	"github.com/fairbench/fairbench/internal/report"
	"github.com/fairbench/fairbench/internal/result"
	"github.com/fairbench/fairbench/internal/store"
)

// Issue 41: a report held every selected run's series at once
// (store.RunsWithoutIntervals), so that its memory grew with the seconds
// the whole store measured. It now reads the runs one at a time and keeps
// of each only its digest (report.DropSeries): whenever the store hands it
// a run, no run handed before still holds its series, in the second read
// of the runs that shift level too. The long-series goldens
// (TestReportLongSeriesGolden) show the digests report what the series did.
func TestReportHoldsOneRunsSeriesAtATime(t *testing.T) {
	s := longSeriesStore(t)
	// mostHeld runs read over a walk of s that counts, each time it hands a
	// run over, the runs handed so far that still hold their series.
	mostHeld := func(read func(runWalk) []*result.Run) (most, handed int, runs []*result.Run) {
		var seen []*result.Run
		walk := func(f store.Filter, intervalHistograms bool, fn func(*result.Run) error) error {
			return s.EachRun(f, intervalHistograms, func(r *result.Run) error {
				seen = append(seen, r)
				held := 0
				for _, h := range seen {
					if len(h.Series) > 0 {
						held++
					}
				}
				most = max(most, held)
				return fn(r)
			})
		}
		runs = read(walk)
		return most, len(seen), runs
	}

	most, handed, runs := mostHeld(func(walk runWalk) []*result.Run {
		runs, err := readDigests(walk, store.Filter{})
		if err != nil {
			t.Fatal(err)
		}
		return runs
	})
	if len(runs) != 12 {
		t.Fatalf("%d runs read, want the store's 12", len(runs))
	}
	if handed <= len(runs) {
		t.Errorf("the store handed over %d runs for %d: the runs that shift level were not read again with their intervals", handed, len(runs))
	}
	if most != 1 {
		t.Errorf("the report held %d runs' series at once, want 1", most)
	}
	for _, r := range runs {
		if r.Series != nil || r.Digest == nil || r.SeriesLen() != 300 {
			t.Errorf("run %d kept %d points of its series (digest %v, %d points): want none, and a digest of 300", r.ID, len(r.Series), r.Digest != nil, r.SeriesLen())
		}
	}

	// The count sees the former way: every run read with its series, then
	// each digested.
	most, _, _ = mostHeld(func(walk runWalk) []*result.Run {
		var all []*result.Run
		if err := walk(store.Filter{}, false, func(r *result.Run) error { all = append(all, r); return nil }); err != nil {
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
