package main

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/fairbench/fairbench/internal/result"
	"github.com/fairbench/fairbench/internal/testenv"
)

// On every engine and release the tests have: the ad hoc `fairbench run
// --target URL --workload bulkindex`, then a study's searches on the index
// it filled. Elasticsearch's
// nodes answer GET / with 405 (no rest-root module); the stored runs name
// the engine and release.
func TestBulkIndexThenSearchOnEverySearchNode(t *testing.T) {
	testenv.EachSearchNode(t, false, func(t *testing.T, n testenv.SearchNode, node string) {
		index := testenv.OpenSearchIndex(t, node)
		dir := t.TempDir()
		results := filepath.Join(dir, "results.db")
		o := fairbench(t, dir, "run", "--target", node, "--workload", "bulkindex", "--index", index,
			"--docs", "5000", "--bulk-size", "500", "-c", "2", "--results", results)
		if o.code != 0 {
			t.Fatalf("bulkindex: exit %d\n%s%s", o.code, o.stdout, o.stderr)
		}
		study := filepath.Join(dir, "search.toml")
		if err := os.WriteFile(study, []byte(fmt.Sprintf(`[study]
name = "search"
warmup = "0s"
duration = "2s"
[[target]]
name = "node"
url = %q
[[workload]]
kind = "search"
index = %q
docs = 5000
clients = 2
`, node, index)), 0o600); err != nil {
			t.Fatal(err)
		}
		if o := fairbench(t, dir, "run", study, "--results", results); o.code != 0 {
			t.Fatalf("search: exit %d\n%s%s", o.code, o.stdout, o.stderr)
		}
		runs := runsIn(t, results)
		if len(runs) != 2 {
			t.Fatalf("%d runs stored, want bulkindex's and search's", len(runs))
		}
		for _, r := range runs {
			db := r.Env.Database
			if r.Status != result.StatusOK || r.Summary.Transactions == 0 || db.Engine != n.Engine || db.Version != n.Version {
				t.Errorf("run %s: %s %s, %d operations; database %s %s, want %s %s",
					r.Workload, r.Status, r.Error, r.Summary.Transactions, db.Engine, db.Version, n.Engine, n.Version)
			}
		}
		if c := testenv.SearchCount(t, node, index); c != 5000 {
			t.Errorf("index %s holds %d documents, want 5000", index, c)
		}
	})
}

// TestAdhocSearchRunsTheAskedDuration: `fairbench run --workload search
// --duration 2s` measures 2 s, not the 60 s the ad-hoc search measured
// whatever was asked.
func TestAdhocSearchRunsTheAskedDuration(t *testing.T) {
	node := testenv.OpenSearch(t)
	index := testenv.OpenSearchIndex(t, node)
	dir := t.TempDir()
	results := filepath.Join(dir, "results.db")
	asked := 2 * time.Second
	o := fairbench(t, dir, "run", "--target", node, "--workload", "search", "--index", index, "--docs", "2000",
		"-c", "2", "--duration", asked.String(), "--results", results)
	if o.code != 0 {
		t.Fatalf("search: exit %d\n%s%s", o.code, o.stdout, o.stderr)
	}
	runs := runsIn(t, results)
	if len(runs) != 1 {
		t.Fatalf("%d runs stored, want 1", len(runs))
	}
	// The measured phase ends at its planned end: at least what was asked,
	// and nowhere near the 60 s of the flagless default.
	r := runs[0]
	if r.Status != result.StatusOK || r.Summary.Transactions == 0 || r.Duration < asked || r.Duration >= 60*time.Second {
		t.Errorf("run: %s %s, %d searches in %s; want ok, searches, %s measured", r.Status, r.Error, r.Summary.Transactions, r.Duration, asked)
	}
}
