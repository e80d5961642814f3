package bulkindex_test

import (
	"bytes"
	"fmt"
	"hash/fnv"
	"io"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"strings"
	"sync"
	"testing"

	"github.com/fairbench/fairbench/internal/result"
	"github.com/fairbench/fairbench/internal/testenv"
	"github.com/fairbench/fairbench/internal/testenv/cellrun"
)

// bulkCounter is a reverse proxy in front of an OpenSearch node that reads
// every _bulk request on its way: the documents each carries (its action
// lines, each followed by its document's line) and a hash of the documents'
// lines that does not depend on their order (the sum of each line's FNV-1a),
// so that two tools' requests can be compared whatever order their clients
// sent them in.
type bulkCounter struct {
	addr string
	mu   sync.Mutex
	docs []int // documents of each _bulk request, in arrival order
	sum  uint64
}

func startBulkCounter(t *testing.T, target string) *bulkCounter {
	t.Helper()
	base, err := testenv.OpenSearchHTTP(target)
	if err != nil {
		t.Fatal(err)
	}
	u, err := url.Parse(base)
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	c := &bulkCounter{addr: ln.Addr().String()}
	proxy := httputil.NewSingleHostReverseProxy(u)
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasSuffix(r.URL.Path, "/_bulk") {
			body, err := io.ReadAll(r.Body)
			r.Body.Close()
			if err != nil {
				http.Error(w, err.Error(), http.StatusBadGateway)
				return
			}
			c.count(body)
			r.Body, r.ContentLength = io.NopCloser(bytes.NewReader(body)), int64(len(body))
		}
		proxy.ServeHTTP(w, r)
	})}
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })
	return c
}

// count reads one _bulk body: index actions only (both tools send no
// other), each line a JSON object, an action line then its document's.
func (c *bulkCounter) count(body []byte) {
	var lines [][]byte
	for _, l := range bytes.Split(body, []byte("\n")) {
		if len(bytes.TrimSpace(l)) > 0 {
			lines = append(lines, l)
		}
	}
	var sum uint64
	for i := 1; i < len(lines); i += 2 {
		h := fnv.New64a()
		h.Write(lines[i])
		sum += h.Sum64()
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.docs = append(c.docs, len(lines)/2)
	c.sum += sum
}

// take returns what the proxy has counted since the last take, and starts
// over.
func (c *bulkCounter) take() (docs []int, sum uint64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	docs, sum = c.docs, c.sum
	c.docs, c.sum = nil, 0
	return docs, sum
}

// The size of the runs beside OSB: the generated corpus (searchparams'
// http_logs documents of seed 1), the bulk size and the clients. OSB gives
// each client its own part of the corpus (docs ÷ clients) and cuts bulks in
// it, the native workload's clients take bulks from one sequence: with docs
// a multiple of clients × bulk size, both send whole bulks only.
const (
	osbDocs     = 20000
	osbBulkSize = 1000
	osbClients  = 2
)

// osbPeerCell is a one-cell bulkindex study on url indexing the generated
// corpus into index: the native workload, or OSB's cell
// (tool = "opensearch-benchmark") with the same parameters.
func osbPeerCell(url, tool, index string) string {
	line := `kind = "bulkindex"`
	if tool != "" {
		line = fmt.Sprintf("tool = %q", tool)
	}
	return fmt.Sprintf(`[study]
name = "bulkindex beside OSB"
warmup = "0s"
duration = "600s"
[[target]]
name = "opensearch"
url = %q
[[workload]]
%s
index = %q
docs = %d
bulk_size = %d
clients = [%d]
`, url, line, index, osbDocs, osbBulkSize, osbClients)
}

// OpenSearch Benchmark 2.4.0 and fairbench's bulkindex, one after the other
// on the test OpenSearch, each into an index of its own, with the same
// parameters (20 000 generated documents, bulks of 1 000, 2 clients), both
// through a proxy that reads their _bulk requests: each sends 20 _bulk
// requests of exactly 1 000 documents, the same 20 000 documents (the
// order-free hash of their lines is the same), and its index counts 20 000
// documents after it (_count). OSB's reported doc count (test_run.json's
// docs_count, read by the adapter that imports it: OSB's _cat/indices count
// of the workload's index) is 20 000, and so are fairbench's items, in 20
// requests, none failed. Rates are not compared: on a shared host they vary
// from one minute to the next. OSB takes a minute or two: not under -short.
func TestBulkIndexAgreesWithOSB(t *testing.T) {
	if testing.Short() {
		t.Skip("OpenSearch Benchmark takes 1–2.5 minutes a run on a busy host: skipped under -short")
	}
	testenv.OSB(t)
	target := testenv.OpenSearch(t)
	proxy := startBulkCounter(t, target)
	sums := map[string]uint64{}
	for _, tool := range []string{"opensearch-benchmark", ""} {
		name := "fairbench"
		if tool != "" {
			name = "OSB"
		}
		index := testenv.OpenSearchIndex(t, target)
		run, err := cellrun.One(t, osbPeerCell("opensearch://"+proxy.addr, tool, index), false)
		if err != nil || run.Status != result.StatusOK {
			t.Fatalf("%s: %v (%s %s)", name, err, run.Status, run.Error)
		}
		bulks, sum := proxy.take()
		sums[name] = sum
		t.Logf("%s: %d _bulk requests, documents' hash %x", name, len(bulks), sum)
		var sent int
		whole := true
		for _, n := range bulks {
			sent += n
			whole = whole && n == osbBulkSize
		}
		if len(bulks) != osbDocs/osbBulkSize || !whole || sent != osbDocs {
			t.Errorf("%s sent %d _bulk requests of %v documents (%d in all), want %d of %d", name, len(bulks), bulks, sent, osbDocs/osbBulkSize, osbBulkSize)
		}
		if n := testenv.SearchCount(t, target, index); n != osbDocs {
			t.Errorf("%s: %s holds %d documents, want %d", name, index, n, osbDocs)
		}
		if tool != "" {
			osb, _ := run.Env.Extra["osb"].(map[string]any)
			summary, _ := osb["summary"].(map[string]any)
			if got, ok := summary["Doc count"].(float64); !ok || got != osbDocs {
				t.Errorf("OSB reported a doc count of %v, want %d (its summary %v)", summary["Doc count"], osbDocs, summary)
			}
			continue
		}
		if op := run.Ops[0]; op.Items != osbDocs || op.Count != osbDocs/osbBulkSize || run.Summary.Failed != 0 {
			t.Errorf("fairbench recorded %d documents in %d requests, %d failed; want %d in %d, none failed", op.Items, op.Count, run.Summary.Failed, osbDocs, osbDocs/osbBulkSize)
		}
	}
	if sums["OSB"] != sums["fairbench"] {
		t.Errorf("the documents' lines differ: hash %x under OSB, %x under fairbench", sums["OSB"], sums["fairbench"])
	}
}
