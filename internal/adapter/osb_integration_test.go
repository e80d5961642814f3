package adapter_test

import (
	"crypto/tls"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"

	_ "github.com/fairbench/fairbench/internal/plugins"
	"github.com/fairbench/fairbench/internal/result"
	"github.com/fairbench/fairbench/internal/testenv"
	"github.com/fairbench/fairbench/internal/testenv/cellrun"
)

// osbHTTP sends one request to the OpenSearch of target (opensearch:// or
// opensearchs://, first host) and decodes its JSON answer.
func osbHTTP(t *testing.T, target, method, path string) (int, map[string]any) {
	t.Helper()
	u, err := url.Parse(target)
	if err != nil {
		t.Fatal(err)
	}
	scheme := "http"
	if u.Scheme == "opensearchs" {
		scheme = "https"
	}
	host, _, _ := strings.Cut(u.Host, ",")
	req, err := http.NewRequest(method, scheme+"://"+host+path, nil)
	if err != nil {
		t.Fatal(err)
	}
	if u.User != nil {
		pw, _ := u.User.Password()
		req.SetBasicAuth(u.User.Username(), pw)
	}
	c := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true}}}
	resp, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var m map[string]any
	json.NewDecoder(resp.Body).Decode(&m)
	return resp.StatusCode, m
}

// A study cell with tool = "opensearch-benchmark" runs OSB on 20 000
// generated documents: the stored run is OSB's (documents/s from this run's
// test_run.json) and the index holds every document.
func TestOSBCellIntegration(t *testing.T) {
	if testenv.RaceDetector && testing.Short() {
		// Two minutes of OSB's Python, of which the detector sees only the
		// adapter reading its output: the parser's tests cover that under it.
		t.Skip("OpenSearch Benchmark's own run under the race detector: covered by the run without it")
	}
	testenv.OSB(t)
	target := testenv.OpenSearch(t)
	osbIndex := testenv.OpenSearchIndex(t, target)
	run, err := cellrun.One(t, fmt.Sprintf(`
[study]
name = "osb cell"
warmup = "0s"
duration = "10s"
[[target]]
name = "opensearch"
url = "%s"
[[workload]]
tool = "opensearch-benchmark"
clients = [2]
docs = 20000
bulk_size = 1000
index = "%s"
`, target, osbIndex), false)
	if err != nil {
		t.Fatalf("%v: %s", err, run.Error)
	}
	if run.Status != result.StatusOK || run.Source != "opensearch-benchmark" || run.Kind != "bulkindex" {
		t.Fatalf("run: status %s, source %s, kind %s (%s)", run.Status, run.Source, run.Kind, run.Error)
	}
	if m := run.Summary.Metric; m == nil || m.Headline.Name != "documents/s" || m.Value <= 0 {
		t.Fatalf("headline %+v", m)
	}
	if run.Summary.P50 <= 0 || run.Duration <= 0 || !strings.Contains(run.ToolVersion, "2.4.0") {
		t.Errorf("p50 %v, duration %v, version %q", run.Summary.P50, run.Duration, run.ToolVersion)
	}
	t.Logf("OSB: %.0f documents/s, p50 %.1f ms, %s", run.Summary.Metric.Value, run.Summary.P50/1000, run.Duration)
	osb, _ := run.Env.Extra["osb"].(map[string]any)
	if id, _ := osb["test-run-id"].(string); id == "" || !strings.Contains(fmt.Sprint(run.Env.Extra["command"]), "--test-run-id="+id) {
		t.Errorf("the run is not this run's test_run.json: id %q, command %v", id, run.Env.Extra["command"])
	}
	code, count := osbHTTP(t, target, "GET", "/"+osbIndex+"/_count")
	if code != 200 || count["count"] != 20000.0 {
		t.Errorf("%s/_count: %d %v, want 20000 documents", osbIndex, code, count)
	}
	// The index is fairbench's, as the native workload's: its marker.
	_, mapping := osbHTTP(t, target, "GET", "/"+osbIndex+"/_mapping")
	idx, _ := mapping[osbIndex].(map[string]any)
	m, _ := idx["mappings"].(map[string]any)
	meta, _ := m["_meta"].(map[string]any)
	if marker, _ := meta["fairbench"].(map[string]any); marker["documents"] != 20000.0 || marker["workload"] != "bulkindex" {
		t.Errorf("%s's _meta %v: no fairbench marker for 20000 documents", osbIndex, meta)
	}
}

// OSB's delete-index spares no index; the cell's native preparation refuses
// an index fairbench did not create before OSB starts.
func TestOSBCellLeavesAForeignIndexAlone(t *testing.T) {
	target := testenv.OpenSearch(t)
	index := testenv.OpenSearchIndex(t, target)
	base, err := testenv.OpenSearchHTTP(target)
	if err != nil {
		t.Fatal(err)
	}
	req, _ := http.NewRequest(http.MethodPut, base+"/"+index+"/_doc/1?refresh=true", strings.NewReader(`{"mine":true}`))
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil || resp.StatusCode/100 != 2 {
		t.Fatalf("creating a foreign index: %v %v", err, resp)
	}
	resp.Body.Close()
	run, err := cellrun.One(t, fmt.Sprintf(`
[study]
name = "osb cell"
[[target]]
name = "opensearch"
url = "%s"
[[workload]]
tool = "opensearch-benchmark"
docs = 1000
index = "%s"
`, target, index), false)
	if err == nil || !strings.Contains(run.Error, "fairbench did not create it") {
		t.Fatalf("an OSB cell on a foreign index: %v: %s", err, run.Error)
	}
	if code, count := osbHTTP(t, target, "GET", "/"+index+"/_count"); code != 200 || count["count"] != 1.0 {
		t.Fatalf("the foreign index: %d %v, want its one document", code, count)
	}
}
