package main

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/fairbench/fairbench/internal/result"
	"github.com/fairbench/fairbench/internal/testenv"
)

// On every engine and release the tests have: the ad hoc `fairbench run
// --target URL --workload bulkindex`, then a study's searches on the index
// it filled (ad hoc, search has no duration flag: 60 s). Elasticsearch's
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
