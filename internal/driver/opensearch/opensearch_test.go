package opensearch

import (
	"context"
	"encoding/pem"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/fairbench/fairbench/internal/driver"
	"github.com/fairbench/fairbench/internal/result"
)

const rootJSON = `{"name":"n1","cluster_name":"fake","version":{"distribution":"opensearch","number":"2.19.1"}}`

// fakeNode is an httptest server answering GET / and /_cluster/health as a
// green one-node cluster, and whatever else routes says ("POST /i/_bulk").
func fakeNode(t *testing.T, routes map[string]http.HandlerFunc) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if h, ok := routes[r.Method+" "+r.URL.Path]; ok {
			h(w, r)
			return
		}
		switch r.URL.Path {
		case "/":
			io.WriteString(w, rootJSON) //nolint:errcheck // test server
		case "/_cluster/health":
			io.WriteString(w, `{"cluster_name":"fake","status":"green","number_of_nodes":1,"number_of_data_nodes":1,"unassigned_shards":0}`) //nolint:errcheck // test server
		default:
			http.Error(w, `{"error":{"type":"no_route","reason":"not faked"},"status":400}`, http.StatusBadRequest)
		}
	}))
	t.Cleanup(srv.Close)
	return srv
}

// nodeURL is srv's address as an opensearch:// URL.
func nodeURL(srv *httptest.Server, userinfo string) string {
	return "opensearch://" + userinfo + strings.TrimPrefix(srv.URL, "http://")
}

func fakeSession(t *testing.T, srv *httptest.Server) *conn {
	t.Helper()
	clearEnv(t)
	ctx := context.Background()
	cl, err := Driver{}.Open(ctx, driver.Target{URL: nodeURL(srv, "")}, driver.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cl.Close(ctx) })
	s, err := cl.Session(ctx)
	if err != nil {
		t.Fatal(err)
	}
	return s.(*conn)
}

func jsonReply(status int, body string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body) //nolint:errcheck // test server
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		io.WriteString(w, body) //nolint:errcheck // test server
	}
}

// With "errors": false the items are not decoded: items that are no JSON
// at all pass.
func TestBulkWithoutErrorsIsNotDecoded(t *testing.T) {
	body := []byte("{\"index\":{}}\n{\"a\":1}\n{\"index\":{}}\n{\"a\":2}\n")
	var got struct{ method, ctype, body string }
	srv := fakeNode(t, map[string]http.HandlerFunc{
		"POST /logs-1/_bulk": func(w http.ResponseWriter, r *http.Request) {
			b, _ := io.ReadAll(r.Body)
			got.method, got.ctype, got.body = r.Method, r.Header.Get("Content-Type"), string(b)
			io.WriteString(w, `{"took":37,"errors":false,"items":[this is not JSON {{{ "errors":true`) //nolint:errcheck // test server
		},
	})
	s := fakeSession(t, srv)
	res, err := s.Bulk(context.Background(), "logs-1", body, 2)
	if err != nil {
		t.Fatal(err)
	}
	if res.Items != 2 || res.Bytes != int64(len(body)) || res.Took != 37*time.Millisecond || len(res.Failed) != 0 {
		t.Errorf("result %+v", res)
	}
	if got.ctype != "application/x-ndjson" || got.body != string(body) {
		t.Errorf("server got %+v", got)
	}
}

func TestBulkItemFailures(t *testing.T) {
	items := []string{
		`{"index":{"_index":"x","status":201,"result":"created"}}`,
		`{"index":{"_index":"x","status":429,"error":{"type":"es_rejected_execution_exception","reason":"rejected execution of coordinating operation"}}}`,
		`{"delete":{"_index":"x","status":404,"result":"not_found"}}`,
		`{"create":{"_index":"x","status":400,"error":{"type":"mapper_parsing_exception","reason":"failed to parse field [n] of type [long]","caused_by":{"type":"illegal_argument_exception","reason":"For input string: \"abc\""}}}}`,
		`{"create":{"_index":"x","status":409,"error":{"type":"version_conflict_engine_exception","reason":"document already exists"}}}`,
	}
	srv := fakeNode(t, map[string]http.HandlerFunc{
		"POST /x/_bulk": jsonReply(200, `{"took":5,"errors":true,"items":[`+strings.Join(items, ",")+`]}`),
	})
	s := fakeSession(t, srv)
	res, err := s.Bulk(context.Background(), "x", []byte("…"), len(items))
	if err != nil {
		t.Fatal(err)
	}
	want := []driver.ItemError{
		{Index: 1, Status: 429, Class: result.ErrThrottled, Reason: "es_rejected_execution_exception: rejected execution of coordinating operation"},
		{Index: 3, Status: 400, Class: result.ErrOther, Reason: `mapper_parsing_exception: failed to parse field [n] of type [long] (caused by illegal_argument_exception: For input string: "abc")`},
		{Index: 4, Status: 409, Class: result.ErrConstraint, Reason: "version_conflict_engine_exception: document already exists"},
	}
	if fmt.Sprint(res.Failed) != fmt.Sprint(want) {
		t.Errorf("failed\n%+v\nwant\n%+v", res.Failed, want)
	}
}

func TestBulkKeepsFiveReasons(t *testing.T) {
	item := `{"index":{"status":400,"error":{"type":"mapper_parsing_exception","reason":"bad"}}}`
	srv := fakeNode(t, map[string]http.HandlerFunc{
		"POST /x/_bulk": jsonReply(200, `{"took":1,"errors":true,"items":[`+strings.Repeat(item+",", 7)+item+`]}`),
	})
	res, err := fakeSession(t, srv).Bulk(context.Background(), "x", nil, 8)
	if err != nil || len(res.Failed) != 8 {
		t.Fatalf("%+v %v", res, err)
	}
	for i, f := range res.Failed {
		if (f.Reason != "") != (i < maxReasons) || f.Index != i {
			t.Errorf("item %d: %+v", i, f)
		}
	}
}

func TestBulkRefusedWhole(t *testing.T) {
	srv := fakeNode(t, map[string]http.HandlerFunc{
		"POST /x/_bulk": jsonReply(429, `{"error":{"root_cause":[],"type":"es_rejected_execution_exception","reason":"rejected execution of coordinating operation [shard_detail=...]"},"status":429}`),
		"POST /y/_bulk": jsonReply(400, `{"error":{"type":"illegal_argument_exception","reason":"Malformed action/metadata line [1]"},"status":400}`),
		"POST /z/_bulk": jsonReply(503, `<html>proxy down</html>`),
	})
	s := fakeSession(t, srv)
	for index, want := range map[string]struct {
		class result.ErrorClass
		text  string
	}{
		"x": {result.ErrThrottled, "HTTP 429 es_rejected_execution_exception: rejected execution"},
		"y": {result.ErrOther, "HTTP 400 illegal_argument_exception: Malformed action/metadata line [1]"},
		"z": {result.ErrOther, "HTTP 503: <html>proxy down</html>"},
	} {
		_, err := s.Bulk(context.Background(), index, []byte("{}\n"), 1)
		if err == nil || s.Classify(err) != want.class || !strings.Contains(err.Error(), want.text) {
			t.Errorf("%s: error %v (class %s), want class %s saying %q", index, err, s.Classify(err), want.class, want.text)
		}
	}
}

func TestQuery(t *testing.T) {
	srv := fakeNode(t, map[string]http.HandlerFunc{
		"POST /x/_search": jsonReply(200, `{"took":12,"timed_out":false,"hits":{"total":{"value":10000,"relation":"gte"},"hits":[{"_id":"1"},{"_id":"2"}]}}`),
		"POST /y/_search": jsonReply(200, `{"took":3,"hits":{"hits":[{"_id":"1"},{"_id":"2"}]}}`),
	})
	s := fakeSession(t, srv)
	if r, err := s.Query(context.Background(), "x", []byte(`{"query":{"match_all":{}}}`)); err != nil || r.Hits != 10000 || r.Took != 12*time.Millisecond {
		t.Errorf("x: %+v %v", r, err)
	}
	if r, err := s.Query(context.Background(), "y", []byte(`{"track_total_hits":false}`)); err != nil || r.Hits != 2 {
		t.Errorf("y (no total): %+v %v", r, err)
	}
}

// Every node the URL names takes requests in turn.
func TestHostsTakenInTurn(t *testing.T) {
	var hits [2]int
	var urls []string
	for i := range hits {
		srv := fakeNode(t, map[string]http.HandlerFunc{"POST /x/_bulk": func(w http.ResponseWriter, r *http.Request) {
			hits[i]++
			io.WriteString(w, `{"took":1,"errors":false,"items":[]}`) //nolint:errcheck // test server
		}})
		urls = append(urls, strings.TrimPrefix(srv.URL, "http://"))
	}
	clearEnv(t)
	ctx := context.Background()
	cl, err := Driver{}.Open(ctx, driver.Target{URL: "opensearch://" + strings.Join(urls, ",")}, driver.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close(ctx)
	s, _ := cl.Session(ctx)
	for range 10 {
		if _, err := s.(*conn).Bulk(ctx, "x", []byte("{}\n"), 1); err != nil {
			t.Fatal(err)
		}
	}
	if hits[0] < 4 || hits[1] < 4 {
		t.Errorf("requests per node %v, want them shared", hits)
	}
}

func TestOpenRefusedCredentials(t *testing.T) {
	srv := httptest.NewServer(jsonReply(401, `{"error":{"type":"security_exception","reason":"missing authentication credentials"},"status":401}`))
	defer srv.Close()
	clearEnv(t)
	t.Setenv("OPENSEARCH_PASSWORD", "env-s3cret")
	for userinfo, want := range map[string]string{
		"admin:url-s3cret@": `HTTP 401: user "admin" was refused: check OPENSEARCH_PASSWORD`,
		"admin@":            `HTTP 401: user "admin" was refused: check OPENSEARCH_PASSWORD`,
		"":                  "the cluster wants credentials",
	} {
		_, err := Driver{}.Open(context.Background(), driver.Target{URL: nodeURL(srv, userinfo)}, driver.Options{})
		t.Log(err)
		if err == nil || !strings.Contains(err.Error(), want) || strings.Contains(err.Error(), "s3cret") || strings.Contains(err.Error(), "\n") {
			t.Errorf("%q: error %v, want one line saying %q without the password", userinfo, err, want)
		}
	}
	t.Setenv("OPENSEARCH_API_KEY", "k3y")
	_, err := Driver{}.Open(context.Background(), driver.Target{URL: nodeURL(srv, "")}, driver.Options{})
	if err == nil || !strings.Contains(err.Error(), "API key was refused: check OPENSEARCH_API_KEY") || strings.Contains(err.Error(), "k3y") {
		t.Errorf("API key: %v", err)
	}
}

// The credentials reach the node: basic auth from the URL or the
// environment, the API key as ApiKey.
func TestOpenSendsCredentials(t *testing.T) {
	var auth string
	srv := fakeNode(t, map[string]http.HandlerFunc{"GET /": func(w http.ResponseWriter, r *http.Request) {
		auth = r.Header.Get("Authorization")
		io.WriteString(w, rootJSON) //nolint:errcheck // test server
	}})
	clearEnv(t)
	t.Setenv("OPENSEARCH_PASSWORD", "pw")
	for userinfo, want := range map[string]string{"admin@": "Basic YWRtaW46cHc=", "admin:x@": "Basic YWRtaW46eA==", "": ""} {
		cl, err := Driver{}.Open(context.Background(), driver.Target{URL: nodeURL(srv, userinfo)}, driver.Options{})
		if err != nil {
			t.Fatal(err)
		}
		cl.Close(context.Background())
		if auth != want {
			t.Errorf("%q: Authorization %q, want %q", userinfo, auth, want)
		}
	}
	cl, err := Driver{}.Open(context.Background(), driver.Target{URL: nodeURL(srv, "") + "?api_key=abc"}, driver.Options{})
	if err != nil {
		t.Fatal(err)
	}
	cl.Close(context.Background())
	if auth != "ApiKey abc" {
		t.Errorf("api_key: Authorization %q", auth)
	}
}

func TestOpenRedCluster(t *testing.T) {
	srv := fakeNode(t, map[string]http.HandlerFunc{
		"GET /_cluster/health": jsonReply(200, `{"cluster_name":"prod-logs","status":"red","number_of_nodes":3,"unassigned_shards":7}`),
	})
	clearEnv(t)
	_, err := Driver{}.Open(context.Background(), driver.Target{URL: nodeURL(srv, "")}, driver.Options{})
	t.Log(err)
	if err == nil || !strings.Contains(err.Error(), `cluster "prod-logs" is red: a primary shard is unassigned (7 unassigned shards in all)`) || !strings.Contains(err.Error(), "GET _cluster/allocation/explain") {
		t.Errorf("red cluster: %v", err)
	}
}

func TestOpenUnreachable(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	clearEnv(t)
	start := time.Now()
	_, err = Driver{}.Open(context.Background(), driver.Target{URL: "opensearch://admin:s3cret@" + addr}, driver.Options{})
	if took := time.Since(start); took > 10*time.Second+time.Second {
		t.Errorf("Open took %v", took)
	}
	t.Log(err)
	want := "cannot connect: " // the runner names the target
	if err == nil || !strings.HasPrefix(err.Error(), want) || !strings.HasSuffix(err.Error(), ": is the node up?") || strings.Contains(err.Error(), "s3cret") {
		t.Fatalf("error %v, want %q ... is the node up?", err, want)
	}
	if classify(err) != result.ErrConnection {
		t.Errorf("class %s", classify(err))
	}
}

// A node that accepts connections but never answers: Open gives up in 10 s.
func TestOpenSilentNode(t *testing.T) {
	if testing.Short() {
		t.Skip("takes 10 s")
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			defer c.Close()
		}
	}()
	clearEnv(t)
	start := time.Now()
	_, err = Driver{}.Open(context.Background(), driver.Target{URL: "opensearch://" + l.Addr().String()}, driver.Options{})
	t.Log(err)
	if took := time.Since(start); took > 11*time.Second || err == nil || !strings.Contains(err.Error(), "timed out after 10s") {
		t.Errorf("after %v: %v", took, err)
	}
	if !errors.Is(err, context.DeadlineExceeded) || classify(err) != result.ErrTimeout {
		t.Errorf("class %s of %v", classify(err), err)
	}
}

func TestScanBulk(t *testing.T) {
	for in, want := range map[string]struct {
		took     int64
		errs, ok bool
	}{
		`{"took":30,"errors":false,"items":[]}`:                                          {30, false, true},
		` { "took" : 7 , "errors" : true , "items" : [ ] } `:                             {7, true, true},
		`{"items":[{"index":{"error":{"reason":"a \"}]\" b"}}}],"errors":true,"took":2}`: {2, true, true},
		`{"ingest_took":1,"x":{"errors":true},"took":4,"errors":false}`:                  {4, false, true},
		`{"took":4}`:                          {4, false, false},
		`{"error":{"type":"x"},"status":400}`: {0, false, false},
		`not json`:                            {0, false, false},
		``:                                    {0, false, false},
		`{"took":1,"errors":tr`:               {1, false, false},
	} {
		took, errs, ok := scanBulk([]byte(in))
		if took != want.took || errs != want.errs || ok != want.ok {
			t.Errorf("%s: took %d errors %v ok %v, want %+v", in, took, errs, ok, want)
		}
	}
}

func TestClassify(t *testing.T) {
	for _, c := range []struct {
		err  error
		want result.ErrorClass
	}{
		{&Error{Status: 429}, result.ErrThrottled},
		{fmt.Errorf("wrapped: %w", &Error{Status: 500, Type: "es_rejected_execution_exception"}), result.ErrThrottled},
		{&Error{Status: 409, Type: "version_conflict_engine_exception"}, result.ErrConstraint},
		{&Error{Status: 400, Type: "mapper_parsing_exception"}, result.ErrOther},
		{context.DeadlineExceeded, result.ErrTimeout},
		{&net.OpError{Op: "dial", Err: errors.New("connection refused")}, result.ErrConnection},
		{io.ErrUnexpectedEOF, result.ErrConnection},
		{driver.ErrClientClosed, result.ErrConnection},
		{errors.New("something"), result.ErrOther},
	} {
		if got := classify(c.err); got != c.want {
			t.Errorf("%v: %s, want %s", c.err, got, c.want)
		}
	}
}

// Over TLS: the node's certificate is verified against the URL's ca, refused
// without it, and accepted unverified with insecure=true, which the
// environment records.
func TestTLSVerifiesTheNode(t *testing.T) {
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/":
			io.WriteString(w, rootJSON) //nolint:errcheck // test server
		default:
			io.WriteString(w, `{"cluster_name":"fake","status":"green","number_of_nodes":1,"number_of_data_nodes":1}`) //nolint:errcheck // test server
		}
	}))
	t.Cleanup(srv.Close)
	clearEnv(t)
	ca := filepath.Join(t.TempDir(), "ca.pem")
	if err := os.WriteFile(ca, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srv.Certificate().Raw}), 0o600); err != nil {
		t.Fatal(err)
	}
	host := strings.TrimPrefix(srv.URL, "https://")
	ctx := context.Background()
	open := func(u string) (result.Database, error) {
		cl, err := Driver{}.Open(ctx, driver.Target{URL: u}, driver.Options{})
		if err != nil {
			return result.Database{}, err
		}
		defer cl.Close(ctx)
		return cl.(driver.Environment).Environment(ctx)
	}
	env, err := open("opensearchs://" + host + "?ca=" + ca)
	if err != nil {
		t.Fatalf("with the node's CA: %v", err)
	}
	if tf, _ := env.Extra["tls"].(map[string]any); tf["enabled"] != true || tf["insecure"] == true {
		t.Errorf("tls facts %v", env.Extra["tls"])
	}
	if _, err := open("opensearchs://" + host); err == nil || !strings.Contains(err.Error(), "certificate") {
		t.Fatalf("without the CA: %v, want a certificate error", err)
	}
	env, err = open("opensearch://" + host + "?tls=true&insecure=true")
	if err != nil {
		t.Fatalf("insecure: %v", err)
	}
	if tf, _ := env.Extra["tls"].(map[string]any); tf["insecure"] != true {
		t.Errorf("insecure not recorded: %v", env.Extra["tls"])
	}
}

// Elasticsearch has no version.distribution: it is told apart and recorded as such.
func TestElasticsearchToldApart(t *testing.T) {
	srv := fakeNode(t, map[string]http.HandlerFunc{"GET /": jsonReply(200,
		`{"name":"es1","cluster_name":"fake","version":{"number":"8.15.0","build_flavor":"default","lucene_version":"9.11.1"},"tagline":"You Know, for Search"}`)})
	clearEnv(t)
	ctx := context.Background()
	cl, err := Driver{}.Open(ctx, driver.Target{URL: "elasticsearch://" + strings.TrimPrefix(srv.URL, "http://")}, driver.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close(ctx)
	env, err := cl.(driver.Environment).Environment(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if env.Extra["distribution"] != "elasticsearch" || env.Version != "8.15.0" {
		t.Fatalf("distribution %v, version %v; want elasticsearch 8.15.0", env.Extra["distribution"], env.Version)
	}
}

// fakeElasticsearch answers as Elasticsearch 9.1 without the rest-root
// module (Elastic's integration-test distribution): every answer says
// X-Elastic-Product, GET / is refused with 405, and GET /_nodes/_local
// answers with nodes (or with nodesStatus and an error).
func fakeElasticsearch(t *testing.T, nodesStatus int) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("X-elastic-product", "Elasticsearch")
		w.Header().Set("Content-Type", "application/json")
		switch r.URL.Path {
		case "/":
			w.WriteHeader(http.StatusMethodNotAllowed)
			io.WriteString(w, `{"error":"Incorrect HTTP method for uri [/] and method [GET], allowed: [DELETE]","status":405}`) //nolint:errcheck // test server
		case "/_cluster/health":
			io.WriteString(w, `{"cluster_name":"es-fake","status":"yellow","number_of_nodes":1,"number_of_data_nodes":1}`) //nolint:errcheck // test server
		case "/_nodes/_local":
			if nodesStatus != http.StatusOK {
				w.WriteHeader(nodesStatus)
				io.WriteString(w, `{"error":{"type":"security_exception","reason":"action [cluster:monitor/nodes/info] is unauthorized for user [writer]"},"status":403}`) //nolint:errcheck // test server
				return
			}
			io.WriteString(w, `{"nodes":{"3FKnkvIoSsaM9SvMzUf3PA":{"version":"9.1.0","build_flavor":"default"}}}`) //nolint:errcheck // test server
		default:
			w.WriteHeader(http.StatusBadRequest)
			io.WriteString(w, `{"error":{"type":"no_route","reason":"not faked"},"status":400}`) //nolint:errcheck // test server
		}
	}))
	t.Cleanup(srv.Close)
	return srv
}

func openEnvironment(t *testing.T, rawURL string) (result.Database, error) {
	t.Helper()
	ctx := context.Background()
	cl, err := Driver{}.Open(ctx, driver.Target{URL: rawURL}, driver.Options{})
	if err != nil {
		return result.Database{}, err
	}
	defer cl.Close(ctx)
	return cl.(driver.Environment).Environment(ctx)
}

// An Elasticsearch whose GET / answers 405 is told apart by the header its
// answers carry, and its version read from GET /_nodes/_local.
func TestElasticsearchWithoutRootEndpoint(t *testing.T) {
	clearEnv(t)
	srv := fakeElasticsearch(t, http.StatusOK)
	for _, scheme := range []string{"elasticsearch://", "opensearch://"} {
		env, err := openEnvironment(t, scheme+strings.TrimPrefix(srv.URL, "http://"))
		if err != nil {
			t.Fatalf("%s: %v", scheme, err)
		}
		if env.Engine != "elasticsearch" || env.Version != "9.1.0" || env.Extra["build_flavor"] != "default" || env.Extra["cluster_name"] != "es-fake" {
			t.Errorf("%s: environment %v, want elasticsearch 9.1.0 (default), cluster es-fake", scheme, env)
		}
	}
}

// A user who may not read the nodes' info still runs: the version is
// recorded as unknown, with the reason.
func TestElasticsearchVersionNotReadable(t *testing.T) {
	clearEnv(t)
	srv := fakeElasticsearch(t, http.StatusForbidden)
	env, err := openEnvironment(t, "elasticsearch://"+strings.TrimPrefix(srv.URL, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	if env.Engine != "elasticsearch" || env.Version != "" || !strings.Contains(fmt.Sprint(env.Extra["version_error"]), "HTTP 403 security_exception") {
		t.Errorf("environment %v, want elasticsearch with version_error", env)
	}
}

// A node without the header whose GET / names no engine is refused in one line.
func TestOpenNeitherEngine(t *testing.T) {
	clearEnv(t)
	for name, root := range map[string]http.HandlerFunc{
		"405":       jsonReply(http.StatusMethodNotAllowed, `{"error":"Incorrect HTTP method","status":405}`),
		"no engine": jsonReply(http.StatusOK, `{"name":"x","version":{"number":"1.0"}}`),
	} {
		srv := fakeNode(t, map[string]http.HandlerFunc{"GET /": root})
		_, err := Driver{}.Open(context.Background(), driver.Target{URL: nodeURL(srv, "")}, driver.Options{})
		t.Log(err)
		if err == nil || !strings.Contains(err.Error(), "X-Elastic-Product") || strings.Contains(err.Error(), "\n") {
			t.Errorf("%s: %v, want one line naming the header", name, err)
		}
	}
}
