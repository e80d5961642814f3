package bulkindex_test

import (
	"bytes"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fairbench/fairbench/internal/hist"
	"github.com/fairbench/fairbench/internal/kinds"
	"github.com/fairbench/fairbench/internal/params/searchparams"
	"github.com/fairbench/fairbench/internal/result"
	"github.com/fairbench/fairbench/internal/testenv"
	"github.com/fairbench/fairbench/internal/testenv/cellrun"

	_ "github.com/fairbench/fairbench/internal/driver/opensearch"
	_ "github.com/fairbench/fairbench/internal/workload/bulkindex"
)

// cell is a one-cell study of kind on url with the workload's extra lines.
func cell(url, kind, extra string) string {
	return fmt.Sprintf(`[study]
name = "t"
warmup = "0s"
duration = "3s"
max_error_ratio = 1
[[target]]
name = "os"
url = %q
[[workload]]
kind = %q
%s
`, url, kind, extra)
}

// Bulk indexing, then searches on what it indexed, on every engine and
// release the tests have.
func TestBulkIndexOnOpenSearch(t *testing.T) {
	testenv.EachSearchNode(t, false, func(t *testing.T, _ testenv.SearchNode, url string) { bulkIndexThenSearch(t, url) })
}

func bulkIndexThenSearch(t *testing.T, url string) {
	index := testenv.OpenSearchIndex(t, url)
	run, err := cellrun.One(t, cell(url, "bulkindex", fmt.Sprintf("index = %q\ndocs = 30000\nbulk_size = 1000\nclients = 4", index)), false)
	if err != nil || run.Status != result.StatusOK {
		t.Fatalf("run: %v %s", err, run.Error)
	}
	if run.Ops[0].Items != 30000 || run.Ops[0].Count != 30 || run.Summary.Failed != 0 {
		t.Fatalf("%d bulks of %d documents, %d failed; want 30 of 30000", run.Ops[0].Count, run.Ops[0].Items, run.Summary.Failed)
	}
	if n := testenv.SearchCount(t, url, index); n != 30000 {
		t.Fatalf("the node holds %d documents", n)
	}
	if m := run.Summary.Metric; m == nil || m.Unit != "docs/s" || m.Value <= 0 {
		t.Fatalf("headline %+v", m)
	}
	if want := 30000 / run.Duration.Seconds(); run.Summary.Metric.Value < 0.99*want || run.Summary.Metric.Value > 1.01*want {
		t.Fatalf("docs/s %.0f, want %.0f (documents over the measured time)", run.Summary.Metric.Value, want)
	}
	var out bytes.Buffer
	print, ok := kinds.Summary(searchparams.Kind)
	if !ok {
		t.Fatal("bulkindex has no summary")
	}
	print(&out, run)
	for _, want := range []string{"Mean Throughput |", "| bulk |", "50th percentile latency", "90th percentile service time", "error rate"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("summary lacks %q:\n%s", want, out.String())
		}
	}

	// The searches reuse the index the bulk run left, and keep a histogram per operation.
	srun, err := cellrun.One(t, cell(url, "search", fmt.Sprintf("index = %q\ndocs = 30000\nclients = 2", index)), false)
	if err != nil || srun.Status != result.StatusOK {
		t.Fatalf("search run: %v %s", err, srun.Error)
	}
	if len(srun.Ops) != 4 {
		t.Fatalf("search ops %v", srun.Ops)
	}
	for _, op := range srun.Ops {
		if op.Count == 0 || len(op.Histogram) == 0 {
			t.Fatalf("search %s: %d requests", op.Name, op.Count)
		}
	}
}

func TestRejectionsAreCountedAndRetried(t *testing.T) {
	url := testenv.OpenSearchTinyQueue(t)
	// Without retries: refused documents are throttled failures, and the
	// index holds exactly the accepted ones.
	index := testenv.OpenSearchIndex(t, url)
	run, err := cellrun.One(t, cell(url, "bulkindex", fmt.Sprintf("index = %q\ndocs = 40000\nbulk_size = 500\nclients = 8", index)), false)
	if err != nil || run.Status != result.StatusOK {
		t.Fatalf("run: %v %s", err, run.Error)
	}
	refused := run.Ops[0].Errors[result.ErrThrottled]
	if refused == 0 {
		t.Skip("the tiny write queue refused nothing this time: cannot check the accounting")
	}
	if run.Ops[0].Items+refused != 40000 || testenv.SearchCount(t, url, index) != run.Ops[0].Items {
		t.Fatalf("%d accepted + %d refused, want 40000; the node holds %d", run.Ops[0].Items, refused, testenv.SearchCount(t, url, index))
	}
	// With retries the refused documents are sent again until indexed.
	index2 := testenv.OpenSearchIndex(t, url)
	run, err = cellrun.One(t, cell(url, "bulkindex", fmt.Sprintf("index = %q\ndocs = 40000\nbulk_size = 500\nclients = 8\nretries = 50", index2)), false)
	if err != nil || run.Status != result.StatusOK {
		t.Fatalf("run with retries: %v %s", err, run.Error)
	}
	if run.Ops[0].Items != 40000 || testenv.SearchCount(t, url, index2) != 40000 {
		t.Fatalf("with retries: %d accepted, the node holds %d; want 40000", run.Ops[0].Items, testenv.SearchCount(t, url, index2))
	}
	t.Logf("throttled documents: %d without retries, %d with (%v)", refused, run.Ops[0].Errors[result.ErrThrottled], run.Summary.Extra)
}

func TestBadCorpusLineStopsBeforeIndexing(t *testing.T) {
	url := testenv.OpenSearch(t)
	index := testenv.OpenSearchIndex(t, url)
	dir := t.TempDir()
	f := filepath.Join(dir, "docs.ndjson")
	var b bytes.Buffer
	_ = searchparams.WriteCorpus(&b, 100, 1)
	lines := strings.Split(b.String(), "\n")
	lines[57] = `{"@timestamp": 893964617, "clientip":`
	os.WriteFile(f, []byte(strings.Join(lines, "\n")), 0o644)
	run, err := cellrun.One(t, cell(url, "bulkindex", fmt.Sprintf("index = %q\ncorpus = [%q]", index, f)), false)
	if err == nil || !strings.Contains(run.Error, f+":58:") {
		t.Fatalf("bad line 58: %v: %s", err, run.Error)
	}
	base, _ := testenv.OpenSearchHTTP(url)
	resp, err := http.Head(base + "/" + index)
	if err == nil && resp.StatusCode != http.StatusNotFound {
		t.Fatalf("the index was created (HTTP %d) although the corpus was bad", resp.StatusCode)
	}
}

// An index fairbench did not create (no ownership marker in its mapping)
// is refused and left as it was, on every engine and release.
func TestForeignIndexIsRefusedAndKept(t *testing.T) {
	testenv.EachSearchNode(t, false, func(t *testing.T, _ testenv.SearchNode, url string) {
		index := testenv.OpenSearchIndex(t, url)
		status, body, err := testenv.SearchDo(url, http.MethodPut, "/"+index+"/_doc/1?refresh=true", `{"mine":true}`)
		if err != nil || status/100 != 2 {
			t.Fatalf("creating a foreign index: HTTP %d %v: %s", status, err, body)
		}
		run, err := cellrun.One(t, cell(url, "bulkindex", fmt.Sprintf("index = %q\ndocs = 100", index)), true)
		if err == nil || !strings.Contains(run.Error, "fairbench did not create it") {
			t.Fatalf("run on a foreign index: %v: %s", err, run.Error)
		}
		if n := testenv.SearchCount(t, url, index); n != 1 {
			t.Fatalf("the foreign index holds %d documents, want its 1", n)
		}
	})
}

func TestRateModeKeepsServiceTimesApart(t *testing.T) {
	url := testenv.OpenSearch(t)
	index := testenv.OpenSearchIndex(t, url)
	run, err := cellrun.One(t, cell(url, "bulkindex", fmt.Sprintf("index = %q\ndocs = 6000\nbulk_size = 200\nclients = 2\nrate = 15", index)), false)
	if err != nil || run.Status != result.StatusOK {
		t.Fatalf("run: %v %s", err, run.Error)
	}
	lat, err1 := hist.Decode(run.Ops[0].Histogram)
	svc, err2 := hist.Decode(run.Ops[0].ServiceHistogram)
	if err1 != nil || err2 != nil {
		t.Fatalf("histograms: %v, %v", err1, err2)
	}
	if svc.TotalCount() != lat.TotalCount() || svc.Max() > lat.Max() || svc.Mean() > lat.Mean() {
		t.Fatalf("service times (%d, mean %.0f µs, max %d) must not exceed the latencies (%d, mean %.0f µs, max %d)",
			svc.TotalCount(), svc.Mean(), svc.Max(), lat.TotalCount(), lat.Mean(), lat.Max())
	}
}
