package opensearch

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/fairbench/fairbench/internal/driver"
	"github.com/fairbench/fairbench/internal/result"
	"github.com/fairbench/fairbench/internal/testenv"
)

func ctxT(t testing.TB) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	t.Cleanup(cancel)
	return ctx
}

func liveSessionOn(t testing.TB, rawURL string) (*conn, *client) {
	t.Helper()
	ctx := ctxT(t)
	cl, err := Driver{}.Open(ctx, driver.Target{URL: rawURL}, driver.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cl.Close(context.Background()) })
	s, err := cl.Session(ctx)
	if err != nil {
		t.Fatal(err)
	}
	return s.(*conn), cl.(*client)
}

// freshIndex names an index of the test's own, deleted when the test ends.
func freshIndex(t testing.TB, s *conn) string {
	b := make([]byte, 6)
	rand.Read(b) //nolint:errcheck // crypto/rand does not fail on Linux
	name := "fbtest_" + hex.EncodeToString(b)
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		if err := s.DeleteIndex(ctx, name); err != nil {
			t.Errorf("deleting %s: %v", name, err)
		}
	})
	return name
}

func bulkBody(from, n int) []byte {
	var b bytes.Buffer
	for i := from; i < from+n; i++ {
		fmt.Fprintf(&b, "{\"index\":{\"_id\":\"%d\"}}\n{\"n\":%d,\"name\":\"user%06d\"}\n", i, i, i)
	}
	return b.Bytes()
}

func TestIntegrationIndexLifecycle(t *testing.T) {
	testenv.EachSearchNode(t, false, func(t *testing.T, n testenv.SearchNode, u string) { indexLifecycle(t, n, u) })
}

func indexLifecycle(t *testing.T, n testenv.SearchNode, u string) {
	s, cl := liveSessionOn(t, u)
	ctx := ctxT(t)
	index := freshIndex(t, s)

	if _, exists, err := s.IndexMeta(ctx, index); err != nil || exists {
		t.Fatalf("before creation: exists %v, %v", exists, err)
	}
	create := []byte(`{"settings":{"number_of_shards":1,"number_of_replicas":0},
		"mappings":{"_meta":{"created_by":"fairbench","workload":"test"},"properties":{"n":{"type":"long"},"name":{"type":"keyword"}}}}`)
	if err := s.CreateIndex(ctx, index, create); err != nil {
		t.Fatal(err)
	}
	if err := s.CreateIndex(ctx, index, create); !errors.Is(err, driver.ErrIndexExists) {
		t.Errorf("second CreateIndex: %v, want ErrIndexExists", err)
	}
	meta, exists, err := s.IndexMeta(ctx, index)
	if err != nil || !exists || meta["created_by"] != "fairbench" || meta["workload"] != "test" {
		t.Fatalf("IndexMeta: %v %v %v", meta, exists, err)
	}

	for from := 0; from < 1000; from += 250 {
		body := bulkBody(from, 250)
		res, err := s.Bulk(ctx, index, body, 250)
		if err != nil || len(res.Failed) != 0 || res.Items != 250 || res.Bytes != int64(len(body)) {
			t.Fatalf("bulk from %d: %+v %v", from, res, err)
		}
	}
	if err := s.Refresh(ctx, index); err != nil {
		t.Fatal(err)
	}
	if n, err := s.Count(ctx, index); err != nil || n != 1000 {
		t.Fatalf("count %d %v, want 1000", n, err)
	}

	// Item 1 does not fit the mapping and item 2 is no JSON: both are
	// refused with their positions, the others are indexed.
	bad := []byte("{\"index\":{}}\n{\"n\":1}\n{\"index\":{}}\n{\"n\":\"not a number\"}\n{\"index\":{}}\n{\"n\": }\n{\"index\":{}}\n{\"n\":4}\n")
	res, err := s.Bulk(ctx, index, bad, 4)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Failed) != 2 || res.Failed[0].Index != 1 || res.Failed[1].Index != 2 {
		t.Fatalf("failed items %+v, want positions 1 and 2", res.Failed)
	}
	for _, f := range res.Failed {
		// Elasticsearch 8 renamed the error document_parsing_exception.
		if f.Status != http.StatusBadRequest || f.Class != result.ErrOther ||
			!strings.Contains(f.Reason, "mapper_parsing_exception") && !strings.Contains(f.Reason, "document_parsing_exception") {
			t.Errorf("failed item %+v", f)
		}
	}
	t.Logf("refused items: %+v", res.Failed)
	if err := s.Refresh(ctx, index); err != nil {
		t.Fatal(err)
	}

	q, err := s.Query(ctx, index, []byte(`{"query":{"match_all":{}},"track_total_hits":true,"size":3}`))
	if err != nil || q.Hits != 1002 {
		t.Errorf("match_all: %+v %v, want 1002 hits", q, err)
	}
	if _, err := s.Query(ctx, index, []byte(`{"query":{"no_such_query":{}}}`)); err == nil || s.Classify(err) != result.ErrOther {
		t.Errorf("bad query: %v", err)
	}

	if _, ok := any(s).(driver.Search); !ok {
		t.Error("the session is no driver.Search")
	}
	if _, ok := any(s).(driver.SearchAdmin); !ok {
		t.Error("the session is no driver.SearchAdmin")
	}
	env, err := cl.Environment(ctx)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("environment: %v", env)
	if env.Engine != n.Engine || env.Version != n.Version || env.Extra["nodes"] != 1 || env.Extra["status"] == nil {
		t.Errorf("environment %v", env)
	}
	if nodes, _ := env.Extra["node_facts"].([]any); len(nodes) != 1 || nodes[0].(map[string]any)["heap_max_bytes"].(int64) <= 0 || nodes[0].(map[string]any)["available_processors"].(int) <= 0 {
		t.Errorf("node facts %v", env.Extra["node_facts"])
	}
	// The heap is the engine's cache, read from the facts as recorded.
	if b, setting := env.WithEngineFacts().Cache(); b <= 0 || setting != heapSetting {
		t.Errorf("cache %d bytes of %q from node facts %v", b, setting, env.Extra["node_facts"])
	}
	if tf, _ := env.Extra["tls"].(map[string]any); tf["enabled"] != n.Secure || n.Secure && tf["verified"] != true {
		t.Errorf("tls facts %v", env.Extra["tls"])
	}
	if s.ClientPath() != "opensearch-go" {
		t.Errorf("client path %q", s.ClientPath())
	}

	if err := s.DeleteIndex(ctx, index); err != nil {
		t.Fatal(err)
	}
	if _, exists, err := s.IndexMeta(ctx, index); err != nil || exists {
		t.Errorf("after deletion: exists %v, %v", exists, err)
	}
	if err := s.DeleteIndex(ctx, index); err != nil {
		t.Errorf("deleting a missing index: %v", err)
	}
}

// A primary that cannot be allocated makes the cluster red, and Open says
// so in one line.
func TestIntegrationRedClusterRefused(t *testing.T) {
	// The whole node turns red for a moment: no other test may use it then.
	u := testenv.OpenSearchURLOnly(t)
	testenv.OpenSearchExclusive(t, u)
	s, _ := liveSessionOn(t, u)
	ctx := ctxT(t)
	index := freshIndex(t, s) // deleted by the session opened while the cluster was well
	body := []byte(`{"settings":{"number_of_shards":1,"number_of_replicas":0,"index.routing.allocation.require._name":"nowhere"}}`)
	// wait_for_active_shards=0: the shard will never start, and the create
	// would otherwise wait 30 s for it.
	var buf bytes.Buffer
	if status, err := s.c.do(ctx, http.MethodPut, "/"+index+"?wait_for_active_shards=0", body, "application/json", &buf); err != nil || status != http.StatusOK {
		t.Fatalf("creating %s: %d %v %s", index, status, err, buf.Bytes())
	}
	var err error
	for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); time.Sleep(200 * time.Millisecond) {
		var cl driver.Client
		if cl, err = (Driver{}).Open(ctx, driver.Target{URL: u}, driver.Options{}); err == nil {
			cl.Close(ctx) // the cluster state has not turned red yet
			continue
		}
		break
	}
	t.Log(err)
	if err == nil || !strings.Contains(err.Error(), "is red: a primary shard is unassigned (1 unassigned shards in all)") || !strings.Contains(err.Error(), "_cluster/allocation/explain") {
		t.Fatalf("Open on a red cluster: %v", err)
	}
}

// On the secured Elasticsearch nodes (security on, a superuser created with
// bin/elasticsearch-users): the password from the environment, a wrong one,
// none at all, an API key, and the node's certificate verified against the
// URL's CA, refused without it.
func TestIntegrationSecurity(t *testing.T) {
	testenv.EachSearchNode(t, true, func(t *testing.T, _ testenv.SearchNode, u string) {
		clearEnv(t)
		parsed, err := url.Parse(u)
		if err != nil {
			t.Fatal(err)
		}
		user, host, ca := parsed.User.Username(), parsed.Host, parsed.Query().Get("ca")
		password, _ := parsed.User.Password()
		ctx := ctxT(t)
		open := func(raw string) error {
			cl, err := Driver{}.Open(ctx, driver.Target{URL: raw}, driver.Options{})
			if err == nil {
				cl.Close(ctx)
			}
			return err
		}
		withCA := "?ca=" + url.QueryEscape(ca)

		t.Setenv("ELASTICSEARCH_PASSWORD", password)
		if err := open("elasticsearchs://" + user + "@" + host + withCA); err != nil {
			t.Fatalf("the password from ELASTICSEARCH_PASSWORD: %v", err)
		}
		t.Setenv("ELASTICSEARCH_PASSWORD", "wrong-pw-123")
		err = open("elasticsearchs://" + user + "@" + host + withCA)
		t.Log(err)
		if err == nil || !strings.Contains(err.Error(), `HTTP 401: user "`+user+`" was refused: check ELASTICSEARCH_PASSWORD`) || strings.Contains(err.Error(), "wrong-pw-123") {
			t.Errorf("a wrong password: %v", err)
		}
		t.Setenv("ELASTICSEARCH_PASSWORD", "")
		if err := open("elasticsearchs://" + host + withCA); err == nil || !strings.Contains(err.Error(), "the cluster wants credentials") {
			t.Errorf("no credentials: %v", err)
		}

		if err := open("elasticsearchs://" + user + ":" + password + "@" + host); err == nil || !strings.Contains(err.Error(), "certificate") {
			t.Errorf("without the CA: %v, want a certificate error", err)
		}
		if err := open("elasticsearchs://" + user + ":" + password + "@" + host + "?insecure=true"); err != nil {
			t.Errorf("insecure=true: %v", err)
		}

		// An API key reaches the node in Elasticsearch's format, and its
		// refusal is told as such. (A valid key cannot be made here: keys
		// live in the .security index, whose mapping needs the
		// analysis-common module that Elastic's integration-test
		// distribution lacks; a key's use is tested on a fake node.)
		t.Setenv("ELASTICSEARCH_API_KEY", base64.StdEncoding.EncodeToString([]byte("fbtest-id:fbtest-secret")))
		err = open("elasticsearchs://" + host + withCA)
		t.Log(err)
		if err == nil || !strings.Contains(err.Error(), "HTTP 401: the API key was refused: check ELASTICSEARCH_API_KEY") || strings.Contains(err.Error(), "ZmJ0ZXN0") {
			t.Errorf("an unknown API key: %v", err)
		}
	})
}
