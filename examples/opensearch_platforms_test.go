package examples_test

import (
	"context"
	"testing"
	"time"

	"github.com/fairbench/fairbench/internal/result"
	"github.com/fairbench/fairbench/internal/runner"
	"github.com/fairbench/fairbench/internal/study"
	"github.com/fairbench/fairbench/internal/testenv"
)

// The OpenSearch example runs end to end on the test OpenSearch 2.19.1,
// shortened: 20 000 generated documents instead of http_logs' 247 M, both
// targets on the one test node and one index of the test's own, one
// repetition; every bulk run indexes all its documents and every search
// run measures its four operations.
func TestOpenSearchPlatformsExampleRuns(t *testing.T) {
	st := parseExample(t, "opensearch-platforms.toml")
	if len(st.Targets) != 2 || len(st.Workloads) != 2 || st.Repetitions != 3 {
		t.Fatalf("want two targets, two workloads, three repetitions; got %d, %d, %d", len(st.Targets), len(st.Workloads), st.Repetitions)
	}
	url := testenv.OpenSearch(t)
	index := testenv.OpenSearchIndex(t, url)
	for _, tg := range st.Targets {
		tg.URL = url
	}
	st.Repetitions, st.Cooldown = 1, 0
	for _, w := range st.Workloads {
		w.Params["docs"] = []any{int64(20000)}
		w.Params["index"] = []any{index}
		zero, two := time.Duration(0), 2*time.Second
		w.Warmup = &zero
		if w.Kind == "bulkindex" {
			w.Params["bulk_size"] = []any{int64(1000)}
			w.Clients = []study.ClientLevel{{N: 2}}
		} else {
			w.Duration = &two
		}
	}
	cells, err := st.Plan(runner.Catalog{})
	if err != nil {
		t.Fatal(err)
	}
	s := &runner.MemorySink{}
	if err := runner.New(st, runner.Options{Sink: s}).Run(context.Background(), cells); err != nil {
		t.Fatal(err)
	}
	if len(s.Runs) != 4 {
		t.Fatalf("%d runs, want 2 targets × 2 workloads", len(s.Runs))
	}
	for _, r := range s.Runs {
		if r.Status != result.StatusOK {
			t.Fatalf("%s on %s: %s: %s", r.Kind, r.Target, r.Status, r.Error)
		}
		switch r.Kind {
		case "bulkindex":
			if r.Ops[0].Items != 20000 || r.Summary.Metric.Unit != "docs/s" {
				t.Errorf("bulkindex on %s: %d documents, headline %+v", r.Target, r.Ops[0].Items, r.Summary.Metric)
			}
		case "search":
			for _, op := range r.Ops {
				if op.Count == 0 {
					t.Errorf("search %s on %s: no request", op.Name, r.Target)
				}
			}
		}
	}
}
