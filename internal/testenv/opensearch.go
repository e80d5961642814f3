package testenv

import (
	"context"
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

// OpenSearch returns the URL of the test OpenSearch 2.19.1
// (FAIRBENCH_TEST_OPENSEARCH, opensearch://127.0.0.1:9201): one node, plain
// http, no security plugin (scripts/opensearch.sh).
func OpenSearch(t testing.TB) string {
	t.Helper()
	u := need(t, "FAIRBENCH_TEST_OPENSEARCH")
	OpenSearchShared(t, u)
	return u
}

// OpenSearchTinyQueue returns the URL of the second test OpenSearch
// (FAIRBENCH_TEST_OPENSEARCH_TINYQUEUE, opensearch://127.0.0.1:9202), whose
// write thread pool has one thread and a queue of one: concurrent bulk
// requests get items refused with status 429 (rejected_execution_exception).
func OpenSearchTinyQueue(t testing.TB) string {
	t.Helper()
	u := need(t, "FAIRBENCH_TEST_OPENSEARCH_TINYQUEUE")
	OpenSearchShared(t, u)
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
	base, err := OpenSearchHTTP(rawURL)
	if err != nil {
		t.Fatal(err)
	}
	name := "fbtest-" + randomHex(6)
	t.Cleanup(func() {
		status, body, err := openSearchDo(http.MethodDelete, base+"/"+name)
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
	scheme := map[string]string{"opensearch": "http", "opensearchs": "https", "http": "http", "https": "https"}[u.Scheme]
	if scheme == "" || u.Host == "" {
		return "", fmt.Errorf("OpenSearch test URL %q: want opensearch://host:port", rawURL)
	}
	return scheme + "://" + u.Host, nil
}

// openSearchDo sends one request without a body and returns the status and
// (the first 64 KiB of) the response body.
func openSearchDo(method, target string) (int, []byte, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, method, target, nil)
	if err != nil {
		return 0, nil, err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0, nil, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
	return resp.StatusCode, body, err
}

// OpenSearchShared and OpenSearchExclusive coordinate the tests of all
// packages on one test node (go test runs packages in parallel processes):
// a test that turns the cluster red (OpenSearchExclusive) runs while no
// other holds the node, and every other test (OpenSearchShared, which
// OpenSearch and OpenSearchTinyQueue are for their callers) shares it. The
// lock is a flock on a file per node, released when the test ends. A test
// must take one of the two, once.
func OpenSearchShared(t testing.TB, rawURL string) { lockNode(t, rawURL, syscall.LOCK_SH) }

// OpenSearchExclusive: see OpenSearchShared.
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
