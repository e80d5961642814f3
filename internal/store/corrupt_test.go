package store

import (
	"bytes"
	"strings"
	"testing"

	"github.com/fairbench/fairbench/internal/result"
)

// One corrupt row must not break report or compare for the whole file: Runs
// skips the run it belongs to, with a warning naming it, and returns the rest.
// Each case corrupts run 2 of three in another column or table.
func TestCorruptRowIsSkippedWithAWarningNamingTheRun(t *testing.T) {
	cases := map[string]string{
		"summary":     "UPDATE runs SET summary = '{\"transactions\": ' WHERE id = 2",
		"environment": "UPDATE runs SET env = 'not json' WHERE id = 2",
		"started_at":  "UPDATE runs SET started_at = 'yesterday' WHERE id = 2",
		"clients":     "UPDATE runs SET clients = 'many' WHERE id = 2",
		"op errors":   "UPDATE run_ops SET errors = '{' WHERE run_id = 2",
		"op count":    "UPDATE run_ops SET count = 'x' WHERE run_id = 2",
		"series":      "UPDATE run_series SET hists = '[{' WHERE run_id = 2",
	}
	for name, corrupt := range cases {
		t.Run(name, func(t *testing.T) {
			s := openTemp(t)
			for i := 1; i <= 3; i++ {
				if _, err := s.AppendRun(sampleRun(t, i)); err != nil {
					t.Fatal(err)
				}
			}
			if _, err := s.db.Exec(corrupt); err != nil {
				t.Fatal(err)
			}
			var warn bytes.Buffer
			s.setWarnings(&warn)
			runs, err := s.Runs(Filter{})
			if err != nil {
				t.Fatalf("one corrupt row broke the whole file: %v", err)
			}
			if got := ids(runs); len(got) != 2 || got[0] != 1 || got[1] != 3 {
				t.Fatalf("runs %v, want 1 and 3", got)
			}
			for _, r := range runs {
				if len(r.Ops) == 0 || len(r.Series) == 0 || r.Status != result.StatusOK {
					t.Fatalf("run %d lost its data", r.ID)
				}
			}
			w := warn.String()
			if !strings.Contains(w, "run 2 (target native, workload tpcb") || !strings.Contains(w, "skipped") {
				t.Fatalf("warning does not name run 2: %q", w)
			}
			if strings.Count(w, "\n") != 1 {
				t.Fatalf("want one warning line, got %q", w)
			}
		})
	}
}
