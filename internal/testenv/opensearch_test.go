package testenv

import (
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"testing"
)

// The OpenSearch nodes scripts/test-servers.sh starts must be what their
// variables say, checked with plain HTTP (not through fairbench's driver).

func openSearchJSON(t *testing.T, rawURL, path string, v any) {
	t.Helper()
	status, body, err := SearchDo(rawURL, http.MethodGet, path, "")
	if err != nil {
		t.Fatalf("GET %s: %v", path, err)
	}
	if status != http.StatusOK {
		t.Fatalf("GET %s: HTTP %d: %s", path, status, body)
	}
	if err := json.Unmarshal(body, v); err != nil {
		t.Fatalf("GET %s: %v in %s", path, err, body)
	}
}

func TestOpenSearchServers(t *testing.T) {
	for _, c := range []struct {
		env, cluster      string
		url               func(testing.TB) string
		writeSize, writeQ string // "" where the defaults apply
	}{
		{"FAIRBENCH_TEST_OPENSEARCH", "fairbench-opensearch", OpenSearch, "", ""},
		{"FAIRBENCH_TEST_OPENSEARCH_TINYQUEUE", "fairbench-opensearch-tinyqueue", OpenSearchTinyQueue, "1", "1"},
	} {
		t.Run(c.env, func(t *testing.T) {
			base, err := OpenSearchHTTP(c.url(t))
			if err != nil {
				t.Fatal(err)
			}
			var root struct {
				ClusterName string `json:"cluster_name"`
				Version     struct {
					Distribution string `json:"distribution"`
					Number       string `json:"number"`
				} `json:"version"`
			}
			openSearchJSON(t, base, "/", &root)
			if root.Version.Distribution != "opensearch" || root.Version.Number != "2.19.1" || root.ClusterName != c.cluster {
				t.Errorf("%s is %s %s, cluster %q; want opensearch 2.19.1, cluster %q",
					base, root.Version.Distribution, root.Version.Number, root.ClusterName, c.cluster)
			}
			var pools []struct {
				Size      string `json:"size"`
				QueueSize string `json:"queue_size"`
			}
			openSearchJSON(t, base, "/_cat/thread_pool/write?format=json&h=size,queue_size", &pools)
			if len(pools) != 1 {
				t.Fatalf("%s has %d nodes, want 1", base, len(pools))
			}
			if c.writeSize != "" && (pools[0].Size != c.writeSize || pools[0].QueueSize != c.writeQ) {
				t.Errorf("%s: write pool size %s, queue %s; want %s and %s", base, pools[0].Size, pools[0].QueueSize, c.writeSize, c.writeQ)
			}
			if c.writeSize == "" && pools[0].QueueSize == "1" {
				t.Errorf("%s: write queue of 1, the tiny queue's", base)
			}
		})
	}
}

// Each search node runs the engine and release searchNodes says, and the
// secured ones refuse a request without credentials.
func TestSearchNodesAreWhatTheySay(t *testing.T) {
	EachSearchNode(t, false, func(t *testing.T, n SearchNode, u string) {
		var nodes struct {
			Nodes map[string]struct {
				Version     string `json:"version"`
				BuildFlavor string `json:"build_flavor"` // Elasticsearch's only
			} `json:"nodes"`
		}
		openSearchJSON(t, u, "/_nodes/_local?filter_path=nodes.*.version,nodes.*.build_flavor", &nodes)
		if len(nodes.Nodes) != 1 {
			t.Fatalf("%d local nodes: %+v", len(nodes.Nodes), nodes)
		}
		for _, node := range nodes.Nodes {
			if node.Version != n.Version || (node.BuildFlavor != "") != (n.Engine == "elasticsearch") {
				t.Errorf("the node runs %s (build flavor %q); want %s %s", node.Version, node.BuildFlavor, n.Engine, n.Version)
			}
		}
		if !n.Secure {
			return
		}
		anonymous, err := url.Parse(u)
		if err != nil {
			t.Fatal(err)
		}
		anonymous.User = nil
		if status, body, err := SearchDo(anonymous.String(), http.MethodGet, "/_cluster/health", ""); err != nil || status != http.StatusUnauthorized {
			t.Errorf("without credentials: HTTP %d, %v, want 401: %s", status, err, body)
		}
	})
}

func TestOpenSearchIndexIsDeleted(t *testing.T) {
	base, err := OpenSearchHTTP(OpenSearch(t))
	if err != nil {
		t.Fatal(err)
	}
	var name string
	t.Run("create", func(t *testing.T) {
		name = OpenSearchIndex(t, OpenSearch(t))
		if !strings.HasPrefix(name, "fbtest-") {
			t.Fatalf("index name %q", name)
		}
		if status, body, err := SearchDo(base, http.MethodPut, "/"+name, ""); err != nil || status != http.StatusOK {
			t.Fatalf("PUT %s: HTTP %d, %v: %s", name, status, err, body)
		}
	})
	if name == "" {
		return // the subtest failed before it had a name
	}
	if status, body, err := SearchDo(base, http.MethodHead, "/"+name, ""); err != nil || status != http.StatusNotFound {
		t.Errorf("HEAD %s after its test ended: HTTP %d, %v (want 404: deleted): %s", name, status, err, body)
	}
}

func TestOpenSearchHTTP(t *testing.T) {
	for in, want := range map[string]string{
		"opensearch://127.0.0.1:9201":        "http://127.0.0.1:9201",
		"opensearch://127.0.0.1:9202/?x=1":   "http://127.0.0.1:9202",
		"opensearchs://localhost:9200/index": "https://localhost:9200",
		"http://127.0.0.1:9201":              "http://127.0.0.1:9201",
		"redis://127.0.0.1:6379":             "",
		"opensearch:///no-host":              "",
	} {
		got, err := OpenSearchHTTP(in)
		if want == "" {
			if err == nil {
				t.Errorf("OpenSearchHTTP(%q) = %q, want an error", in, got)
			}
			continue
		}
		if err != nil || got != want {
			t.Errorf("OpenSearchHTTP(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
}
