package store

import (
	"testing"

	"github.com/fairbench/fairbench/internal/result"
)

// Studies sums each study name's runs in either dialect: the first start,
// the last end, runs, those not completed, targets and workloads, the study
// with the most recent run last.
func TestStudiesSummariseEachStudy(t *testing.T) {
	eachDialect(t, func(t *testing.T, s *Store) {
		a1, a2, b := sampleRun(t, 1), sampleRun(t, 2), sampleRun(t, 3)
		a2.Target, a2.Status = "other", result.StatusFailed
		b.StudyName = "second"
		for _, r := range []*result.Run{a1, a2, b} {
			if _, err := s.AppendRun(r); err != nil {
				t.Fatal(err)
			}
		}
		sts, err := s.Studies()
		if err != nil {
			t.Fatal(err)
		}
		if len(sts) != 2 || sts[0].Name != "cpu-gen" || sts[1].Name != "second" {
			t.Fatalf("studies %+v, want cpu-gen then second", sts)
		}
		a := sts[0]
		if a.Runs != 2 || a.Completed != 1 || a.NotCounted != 1 || a.Targets != 2 || a.Workloads != 1 ||
			!a.First.Equal(a1.StartedAt) || !a.Last.Equal(a2.EndedAt) {
			t.Errorf("cpu-gen: %+v, want 2 runs (1 completed) on 2 targets from %s to %s", a, a1.StartedAt, a2.EndedAt)
		}
	})
}
