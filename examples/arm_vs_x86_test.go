package examples_test

import (
	"context"
	"testing"
	"time"

	"github.com/fairbench/fairbench/internal/result"
	"github.com/fairbench/fairbench/internal/runner"
	"github.com/fairbench/fairbench/internal/testenv"
	_ "github.com/fairbench/fairbench/internal/workload/all"
)

// The ARM-versus-x86 example runs end to end on the test servers, shortened:
// 1 s per cell, no warm-up, small tables, one repetition.
func TestARMvsX86OLTPExampleRuns(t *testing.T) {
	st := parseExample(t, "arm-vs-x86-oltp.toml")
	if len(st.Targets) != 2 || len(st.Workloads) != 1 {
		t.Fatalf("want a PostgreSQL and a MySQL target and one workload, got %d and %d", len(st.Targets), len(st.Workloads))
	}
	urls := map[string]string{"postgres": testenv.FreshPostgres(t), "mysql": testenv.FreshMySQL(t)}
	for _, tg := range st.Targets {
		u, ok := urls[tg.Name]
		if !ok {
			t.Fatalf("unexpected target %q", tg.Name)
		}
		tg.URL = u
	}
	st.Repetitions, st.Warmup, st.Duration, st.Cooldown = 1, 0, time.Second, 0
	w := st.Workloads[0]
	w.Warmup, w.Duration, w.Cooldown = nil, nil, nil
	w.Params["table_size"] = []any{int64(1000)}
	w.Params["tables"] = []any{int64(2)}
	cells, err := st.Plan(runner.Catalog{})
	if err != nil {
		t.Fatal(err)
	}
	s := &runner.MemorySink{}
	r := runner.New(st, runner.Options{Sink: s})
	ctx := context.Background()
	if err := r.Preflight(ctx, cells); err != nil {
		t.Fatal(err)
	}
	if err := r.Run(ctx, cells); err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, run := range s.Runs {
		if run.Status != result.StatusOK || run.Summary.Transactions == 0 {
			t.Fatalf("%s %v c=%d: %s, %d transactions: %s", run.Target, run.Params["mode"], run.Clients, run.Status, run.Summary.Transactions, run.Error)
		}
		seen[run.Target+" "+run.Params["mode"].(string)] = true
	}
	for _, tg := range []string{"postgres", "mysql"} {
		for _, m := range []string{"read_only", "write_only", "read_write"} {
			if !seen[tg+" "+m] {
				t.Errorf("no run of %s on %s", m, tg)
			}
		}
	}
}
