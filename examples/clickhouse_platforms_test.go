package examples_test

import (
	"context"
	"testing"

	"github.com/fairbench/fairbench/internal/result"
	"github.com/fairbench/fairbench/internal/runner"
	"github.com/fairbench/fairbench/internal/testenv"
)

// The ClickHouse example runs end to end on the test ClickHouse 18.16,
// shortened: SSB at scale 0.01 and ClickBench on 20 000 synthetic rows
// instead of the real dataset (no network here), both targets in databases
// of their own, one repetition; every query of every run has its tries.
func TestClickHousePlatformsExampleRuns(t *testing.T) {
	st := parseExample(t, "clickhouse-platforms.toml")
	if len(st.Targets) != 2 || len(st.Workloads) != 2 || st.Repetitions != 3 {
		t.Fatalf("want two targets, two workloads, three repetitions; got %d, %d, %d", len(st.Targets), len(st.Workloads), st.Repetitions)
	}
	ctx := context.Background()
	for _, tg := range st.Targets {
		tg.URL = testenv.FreshClickHouse(t)
	}
	st.Repetitions, st.Cooldown = 1, 0
	for _, w := range st.Workloads {
		switch w.Kind {
		case "ssb":
			w.Params["scale"] = []any{0.01}
			w.Params["seed"] = []any{int64(136)}
		case "clickbench":
			delete(w.Params, "source")
			w.Params["rows"] = []any{int64(20000)}
		}
		w.Params["tries"] = []any{int64(2)}
	}
	cells, err := st.Plan(runner.Catalog{})
	if err != nil {
		t.Fatal(err)
	}
	s := &runner.MemorySink{}
	if err := runner.New(st, runner.Options{Sink: s}).Run(ctx, cells); err != nil {
		t.Fatal(err)
	}
	if len(s.Runs) != 4 {
		t.Fatalf("%d runs, want 2 targets × 2 workloads", len(s.Runs))
	}
	want := map[string]int{"ssb": 13, "clickbench": 43}
	for _, r := range s.Runs {
		if r.Status != result.StatusOK || len(r.Summary.Queries) != want[r.Kind] {
			t.Fatalf("%s on %s: %s, %d queries: %s", r.Kind, r.Target, r.Status, len(r.Summary.Queries), r.Error)
		}
		for _, q := range r.Summary.Queries {
			if q.Tries[0] == nil || q.Tries[1] == nil {
				t.Errorf("%s %s on %s: %v (%s)", r.Kind, q.Name, r.Target, q.Tries, q.Error)
			}
		}
	}
}
