package examples_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/fairbench/fairbench/internal/driver"
	"github.com/fairbench/fairbench/internal/params/ycsbparams"
	_ "github.com/fairbench/fairbench/internal/plugins"
	"github.com/fairbench/fairbench/internal/result"
	"github.com/fairbench/fairbench/internal/runner"
	"github.com/fairbench/fairbench/internal/study"
	"github.com/fairbench/fairbench/internal/testenv"
)

// The document-store example runs end to end on the test FerretDB,
// shortened: 300 records, 200 operations per run, 2 and 4 threads, one
// repetition; every run has the operation types of its YCSB workload.
func TestStoredocYCSBExampleRuns(t *testing.T) {
	st := parseExample(t, "storedoc-ycsb.toml")
	if len(st.Targets) != 1 || len(st.Workloads) != 1 {
		t.Fatalf("want one target and one workload, got %d and %d", len(st.Targets), len(st.Workloads))
	}
	url := testenv.MongoDBURL(t)
	st.Targets[0].URL = url
	st.Repetitions, st.Duration, st.Cooldown = 1, time.Minute, 0
	w := st.Workloads[0]
	w.Cooldown = nil
	table := fmt.Sprintf("fbtest_example_%x", rand.Uint32())
	w.Params["recordcount"] = []any{int64(300)}
	w.Params["operationcount"] = []any{int64(200)}
	w.Params["properties"] = []any{[]string{"table=" + table}}
	w.Clients = []study.ClientLevel{{N: 2}, {N: 4}}
	cells, err := st.Plan(runner.Catalog{})
	if err != nil {
		t.Fatal(err)
	}
	s := &runner.MemorySink{}
	ctx := context.Background()
	if err := runner.New(st, runner.Options{Sink: s}).Run(ctx, cells); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		d := testenv.Connect(t, url, driver.Options{}).(driver.DocumentAdmin)
		d.Drop(context.Background(), table)
	})
	want := map[string][]string{"a": {"READ", "UPDATE"}, "b": {"READ", "UPDATE"}, "f": {"READ", "UPDATE", "READ-MODIFY-WRITE"}}
	if len(s.Runs) != 6 {
		t.Fatalf("%d runs, want 3 workloads × 2 thread counts", len(s.Runs))
	}
	for _, run := range s.Runs {
		p := run.Params["workload"].(string)
		if run.Status != result.StatusOK || run.Summary.Extra[ycsbparams.Operations] != 200 {
			t.Fatalf("workload %s c=%d: %s, %v operations: %s", p, run.Clients, run.Status, run.Summary.Extra, run.Error)
		}
		have := map[string]bool{}
		for _, o := range run.Ops {
			if o.Count > 0 {
				have[o.Name] = true
			}
		}
		for _, op := range want[p] {
			// B's 5 % of updates in 200 operations: absent with probability 3e-5.
			if !have[op] {
				t.Errorf("workload %s c=%d has no %s", p, run.Clients, op)
			}
		}
	}
}
