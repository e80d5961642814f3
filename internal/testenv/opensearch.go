package testenv

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// SearchNode is one of the search engine nodes scripts/test-servers.sh
// starts for the search driver and workloads (scripts/opensearch.sh,
// scripts/elasticsearch.sh).
type SearchNode struct {
	Name    string // the subtest's name: "opensearch-2.19", "elasticsearch-9.1"
	Env     string // the variable that holds its URL
	Engine  string // "opensearch" or "elasticsearch", as the driver records it
	Version string // the exact release the node runs
	// Secure: security on, https with the test CA and a superuser created
	// with bin/elasticsearch-users, all in the URL
	// (elasticsearchs://bench:PASSWORD@host:port?ca=FILE).
	Secure bool
}

// searchNodes are the nodes every search test runs on: both OpenSearch
// majors, plain http without security (the runner has no security
// plugin), and both Elasticsearch majors as Elastic ships them (integ-test
// distribution: no rest-root module, so GET / answers 405), secured.
var searchNodes = []SearchNode{
	{Name: "opensearch-2.19", Env: "FAIRBENCH_TEST_OPENSEARCH", Engine: "opensearch", Version: "2.19.1"},
	{Name: "opensearch-3.3", Env: "FAIRBENCH_TEST_OPENSEARCH3", Engine: "opensearch", Version: "3.3.0"},
	{Name: "elasticsearch-8.19", Env: "FAIRBENCH_TEST_ELASTICSEARCH8", Engine: "elasticsearch", Version: "8.19.0", Secure: true},
	{Name: "elasticsearch-9.1", Env: "FAIRBENCH_TEST_ELASTICSEARCH9", Engine: "elasticsearch", Version: "9.1.0", Secure: true},
}

// EachSearchNode runs test as a subtest per node of searchNodes (of those
// with secure set, only the secured ones), with the node's URL, shared
// (openSearchShared). A node whose variable is unset is skipped, or fails
// with FAIRBENCH_REQUIRE_SERVERS=1. With -short (the race detector's pass
// of scripts/test.sh) only the first such node: the engines differ in what
// the driver learns when it opens, not in how goroutines share state.
func EachSearchNode(t *testing.T, secureOnly bool, test func(t *testing.T, n SearchNode, url string)) {
	t.Helper()
	ran := false
	for _, n := range searchNodes {
		if secureOnly && !n.Secure || testing.Short() && ran {
			continue
		}
		ran = true
		t.Run(n.Name, func(t *testing.T) {
			u := need(t, n.Env)
			openSearchShared(t, u)
			test(t, n, u)
		})
	}
}

// OpenSearch returns the URL of the test OpenSearch 2.19.1
// (FAIRBENCH_TEST_OPENSEARCH, opensearch://127.0.0.1:9201): one node, plain
// http, no security plugin (scripts/opensearch.sh).
func OpenSearch(t testing.TB) string {
	t.Helper()
	u := need(t, "FAIRBENCH_TEST_OPENSEARCH")
	openSearchShared(t, u)
	return u
}

// OpenSearchTinyQueue returns the URL of the second test OpenSearch
// (FAIRBENCH_TEST_OPENSEARCH_TINYQUEUE, opensearch://127.0.0.1:9202), whose
// write thread pool has one thread and a queue of one: concurrent bulk
// requests get items refused with status 429 (rejected_execution_exception).
func OpenSearchTinyQueue(t testing.TB) string {
	t.Helper()
	u := need(t, "FAIRBENCH_TEST_OPENSEARCH_TINYQUEUE")
	openSearchShared(t, u)
	return u
}

// OpenSearchURLOnly returns the test node's URL without taking its lock,
// for a test that takes OpenSearchExclusive.
func OpenSearchURLOnly(t testing.TB) string {
	t.Helper()
	return need(t, "FAIRBENCH_TEST_OPENSEARCH")
}

// OpenSearchIndex returns an index name of the test's own,
// "fbtest-<12 hex>", so that tests sharing a node never touch each other's
// indexes. When the test ends, the index is deleted from the node at
// rawURL (an opensearch:// URL of the test environment); an index that was
// never created is no error, a node that cannot be reached is only logged.
func OpenSearchIndex(t testing.TB, rawURL string) string {
	t.Helper()
	if _, err := OpenSearchHTTP(rawURL); err != nil {
		t.Fatal(err)
	}
	name := "fbtest-" + randomHex(6)
	t.Cleanup(func() {
		status, body, err := SearchDo(rawURL, http.MethodDelete, "/"+name, "")
		if err != nil {
			t.Logf("deleting the test index %s: %v", name, err)
		} else if status != http.StatusOK && status != http.StatusNotFound {
			t.Logf("deleting the test index %s: HTTP %d: %s", name, status, body)
		}
	})
	return name
}

// OpenSearchHTTP returns the http:// (https:// for opensearchs://) base URL,
// scheme://host:port, of an opensearch:// URL of the test environment, for
// tests that check the node with plain HTTP requests.
func OpenSearchHTTP(rawURL string) (string, error) {
	u, err := url.Parse(rawURL)
	if err != nil {
		return "", fmt.Errorf("OpenSearch test URL %q: %v", rawURL, err)
	}
	scheme := map[string]string{"opensearch": "http", "opensearchs": "https", "elasticsearch": "http", "elasticsearchs": "https",
		"http": "http", "https": "https"}[u.Scheme]
	if scheme == "" || u.Host == "" {
		return "", fmt.Errorf("OpenSearch test URL %q: want opensearch://host:port", rawURL)
	}
	return scheme + "://" + u.Host, nil
}

// SearchDo sends one request to the test node of rawURL (an opensearch://
// or elasticsearch(s):// URL of the test environment, whose user and ca it
// uses), with body as JSON when not empty, and returns the status and (the
// first 64 KiB of) the response body: for tests that check the node with
// plain HTTP requests, not through fairbench's driver.
func SearchDo(rawURL, method, path, body string) (int, []byte, error) {
	base, err := OpenSearchHTTP(rawURL)
	if err != nil {
		return 0, nil, err
	}
	u, _ := url.Parse(rawURL) // parsed by OpenSearchHTTP
	client := http.DefaultClient
	if ca := u.Query().Get("ca"); ca != "" {
		pem, err := os.ReadFile(ca)
		if err != nil {
			return 0, nil, fmt.Errorf("the test URL's ca: %w", err)
		}
		pool := x509.NewCertPool()
		if !pool.AppendCertsFromPEM(pem) {
			return 0, nil, fmt.Errorf("the test URL's ca %s holds no PEM certificate", ca)
		}
		client = &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}}}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req, err := http.NewRequestWithContext(ctx, method, base+path, rd)
	if err != nil {
		return 0, nil, err
	}
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	if u.User != nil {
		pw, _ := u.User.Password()
		req.SetBasicAuth(u.User.Username(), pw)
	}
	resp, err := client.Do(req)
	if err != nil {
		return 0, nil, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
	return resp.StatusCode, b, err
}

// SearchCount is the number of documents the index holds, after a refresh,
// as the node at rawURL says (GET /{index}/_count).
func SearchCount(t testing.TB, rawURL, index string) int64 {
	t.Helper()
	if status, body, err := SearchDo(rawURL, http.MethodPost, "/"+index+"/_refresh", ""); err != nil || status != http.StatusOK {
		t.Fatalf("refreshing %s: HTTP %d, %v: %s", index, status, err, body)
	}
	status, body, err := SearchDo(rawURL, http.MethodGet, "/"+index+"/_count", "")
	if err != nil || status != http.StatusOK {
		t.Fatalf("counting %s: HTTP %d, %v: %s", index, status, err, body)
	}
	var r struct {
		Count *int64 `json:"count"`
	}
	if err := json.Unmarshal(body, &r); err != nil || r.Count == nil {
		t.Fatalf("counting %s: no count in %s", index, body)
	}
	return *r.Count
}

// openSearchShared and OpenSearchExclusive coordinate the tests of all
// packages on one test node (go test runs packages in parallel processes):
// a test that turns the cluster red (OpenSearchExclusive) runs while no
// other holds the node, and every other test (openSearchShared, which
// OpenSearch and OpenSearchTinyQueue are for their callers) shares it. The
// lock is a flock on a file per node, released when the test ends. A test
// must take one of the two, once.
func openSearchShared(t testing.TB, rawURL string) { lockNode(t, rawURL, syscall.LOCK_SH) }

// OpenSearchExclusive: see openSearchShared.
func OpenSearchExclusive(t testing.TB, rawURL string) { lockNode(t, rawURL, syscall.LOCK_EX) }

func lockNode(t testing.TB, rawURL string, how int) {
	t.Helper()
	u, err := url.Parse(rawURL)
	if err != nil {
		t.Fatal(err)
	}
	name := filepath.Join(os.TempDir(), "fairbench-test-opensearch-"+strings.NewReplacer(":", "_", ",", "_").Replace(u.Host)+".lock")
	f, err := os.OpenFile(name, os.O_RDWR|os.O_CREATE, 0o666)
	if err != nil {
		t.Fatal(err)
	}
	if err := syscall.Flock(int(f.Fd()), how); err != nil {
		f.Close()
		t.Fatalf("locking the test node %s: %v", u.Host, err)
	}
	t.Cleanup(func() { f.Close() }) // closing releases the lock
}
