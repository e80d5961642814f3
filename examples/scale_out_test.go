package examples_test

import (
	"bytes"
	"context"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/fairbench/fairbench/internal/k8s"
	"github.com/fairbench/fairbench/internal/result"
	"github.com/fairbench/fairbench/internal/runner"
	"github.com/fairbench/fairbench/internal/store"
	"github.com/fairbench/fairbench/internal/study"
	"github.com/fairbench/fairbench/internal/testenv"
)

// The scale-out example renders its Kubernetes manifests as its comment says,
// and runs end to end on the test Valkey, shortened, with its 4 generators as
// 4 runners of this process that find the coordinator through a results file
// (the way local generator processes do): every cell's run is merged from 4
// partial runs whose requests add up to its own.
func TestScaleOutExampleRuns(t *testing.T) {
	st := parseExample(t, "scale-out-valkey.toml")
	if len(st.Workloads) != 1 || st.Workloads[0].Generators != 4 {
		t.Fatalf("want one workload on 4 generators")
	}
	var manifests bytes.Buffer
	if err := k8s.Render(&manifests, k8s.Spec{Study: st, Image: "registry.example/fairbench:v1", Results: "postgres://fairbench@stats-db/fairbench", Generators: 4, Secret: "bench-pw"}); err != nil {
		t.Fatalf("rendering the example's manifests: %v", err)
	}
	if !strings.Contains(manifests.String(), "parallelism: 4") {
		t.Errorf("the manifests do not run 4 generators")
	}

	url := testenv.ValkeyURL(t)
	prefix := testenv.RedisKeyPrefix(t)
	shorten := func(st *study.Study) []study.Cell {
		st.Targets[0].URL = url
		st.Repetitions, st.Cooldown, st.Warmup, st.Duration = 1, 0, 0, 2*time.Second
		w := st.Workloads[0]
		w.Clients = []study.ClientLevel{{N: 8}}
		w.Params["key_maximum"] = []any{int64(10000)}
		w.Params["key_prefix"] = []any{prefix}
		cells, err := st.Plan(runner.Catalog{})
		if err != nil {
			t.Fatal(err)
		}
		return cells
	}
	cells := shorten(st)
	results := filepath.Join(t.TempDir(), "results.db")
	open := func() *store.Store {
		s, err := store.Open(results)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { s.Close() })
		return s
	}
	ctx := context.Background()
	var wg sync.WaitGroup
	genErrs := make([]error, 4)
	spawn := func(ctx context.Context, sid int64, index int) error {
		gst := parseExample(t, "scale-out-valkey.toml")
		gcells := shorten(gst)
		g := runner.New(gst, runner.Options{Distribution: &runner.Distribution{Store: open()}})
		wg.Add(1)
		go func() {
			defer wg.Done()
			genErrs[index] = g.Generate(ctx, gcells, runner.GenerateOptions{Index: index, Session: sid})
		}()
		return nil
	}
	s := open()
	r := runner.New(st, runner.Options{Sink: s, Distribution: &runner.Distribution{Store: s, Spawn: spawn}})
	err := r.Run(ctx, cells)
	wg.Wait()
	if err != nil {
		t.Fatal(err)
	}
	for i, err := range genErrs {
		if err != nil {
			t.Errorf("generator %d: %v", i, err)
		}
	}
	runs, err := s.Runs(store.Filter{})
	if err != nil {
		t.Fatal(err)
	}
	if len(runs) != 2 {
		t.Fatalf("%d runs, want one per pipeline depth", len(runs))
	}
	for _, run := range runs {
		if run.Status != result.StatusOK {
			t.Fatalf("%s: %s: %s", run.CellKey, run.Status, run.Error)
		}
		parts, ok, err := s.PartsOfRun(ctx, run.ID)
		if err != nil || !ok || len(parts) != 4 {
			t.Fatalf("%s: %d partial runs (%v), want 4", run.CellKey, len(parts), err)
		}
		var sum, merged int64
		for _, p := range parts {
			if p.Run.Clients != 2 {
				t.Errorf("generator %d ran %d clients, want 2 of 8", p.Generator, p.Run.Clients)
			}
			for _, op := range p.Run.Ops {
				sum += op.Count
			}
		}
		for _, op := range run.Ops {
			merged += op.Count
		}
		if merged != sum || merged == 0 {
			t.Errorf("%s: merged %d requests, the parts %d", run.CellKey, merged, sum)
		}
	}
}
