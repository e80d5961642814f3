package store

import (
	"reflect"
	"testing"
)

func TestRunsWithoutIntervalsKeepsEverythingButTheIntervalHistograms(t *testing.T) {
	eachDialect(t, testRunsWithoutIntervals)
}

func testRunsWithoutIntervals(t *testing.T, s *Store) {
	appendAll(t, s, sampleRun(t, 1), sampleRun(t, 2))
	full, err := s.Runs(Filter{})
	if err != nil {
		t.Fatal(err)
	}
	light, err := s.RunsWithoutIntervals(Filter{})
	if err != nil {
		t.Fatal(err)
	}
	if len(light) != len(full) || len(full) != 2 {
		t.Fatalf("read %d runs without intervals and %d in full, want 2 and 2", len(light), len(full))
	}
	for i, want := range full {
		// What the light read leaves out: each interval's histogram, and
		// nothing else.
		for k := range want.Series {
			for j := range want.Series[k].Hists {
				if want.Series[k].Hists[j].Histogram == "" {
					t.Fatalf("run %d second %d: the full read has no interval histogram to leave out", want.ID, want.Series[k].Second)
				}
				want.Series[k].Hists[j].Histogram = ""
			}
		}
		if !reflect.DeepEqual(light[i], want) {
			t.Errorf("run %d read without intervals:\n got %#v\nwant %#v", want.ID, light[i], want)
		}
	}
	if got := light[0].Series[1].Hists; got == nil || len(got) != 0 {
		t.Errorf("a second stored with no op type in it reads as %#v, want an empty, non-nil list", got)
	}
	if got := light[0].Series[2].Hists; got != nil {
		t.Errorf("a second stored without intervals (an imported run's) reads as %#v, want nil", got)
	}
}
