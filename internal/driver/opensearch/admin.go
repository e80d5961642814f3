package opensearch

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"runtime/debug"
	"sort"
	"strings"

	"github.com/fairbench/fairbench/internal/driver"
	"github.com/fairbench/fairbench/internal/result"
)

// rootInfo is GET /'s answer.
type rootInfo struct {
	Version struct {
		Number       string `json:"number"`
		Distribution string `json:"distribution"` // "opensearch"; Elasticsearch has none
		BuildFlavor  string `json:"build_flavor"` // Elasticsearch's "default"
		Lucene       string `json:"lucene_version"`
	} `json:"version"`
}

// identity is what the node is: the engine, its version and the cluster.
type identity struct {
	engine      string // "opensearch" or "elasticsearch"
	version     string // "" when the node would not say (versionError says why)
	buildFlavor string // Elasticsearch's; "" for OpenSearch
	lucene      string // "" where the engine does not say
	cluster     string
	// versionError is why the version is unknown: a user without the
	// monitor privilege may index and search but not read it.
	versionError string
}

// productHeader is the header every Elasticsearch answer (7.14 and later)
// carries, "X-Elastic-Product: Elasticsearch"; OpenSearch sends none.
// Elastic's own clients tell their engine apart by it.
const productHeader = "X-Elastic-Product"

// health is GET /_cluster/health's answer.
type health struct {
	ClusterName      string `json:"cluster_name"`
	Status           string `json:"status"`
	Nodes            int    `json:"number_of_nodes"`
	DataNodes        int    `json:"number_of_data_nodes"`
	ActiveShards     int    `json:"active_shards"`
	UnassignedShards int    `json:"unassigned_shards"`
}

// getJSON sends a GET and decodes a 2xx answer into v; other statuses come
// back as *Error.
func (c *client) getJSON(ctx context.Context, path string, v any) error {
	_, err := c.getJSONHeader(ctx, path, v)
	return err
}

// getJSONHeader is getJSON that returns the answer's header too.
func (c *client) getJSONHeader(ctx context.Context, path string, v any) (http.Header, error) {
	var buf bytes.Buffer
	status, hdr, err := c.send(ctx, http.MethodGet, path, nil, "", &buf)
	if err != nil {
		return nil, err
	}
	if status/100 != 2 {
		return hdr, c.httpError("GET "+path, status, buf.Bytes())
	}
	if err := json.Unmarshal(buf.Bytes(), v); err != nil {
		return hdr, fmt.Errorf("GET %s: decoding the answer: %w", path, err)
	}
	return hdr, nil
}

// check is Open's look at the cluster: GET /_cluster/health (the node
// answers, the credentials are good, the cluster is not red), then what the
// engine is (identify). Each failure is one line that says what to do.
func (c *client) check(ctx context.Context) error {
	var h health
	hdr, err := c.getJSONHeader(ctx, "/_cluster/health", &h)
	if err != nil {
		return c.openError(err)
	}
	if h.Status == "red" {
		return fmt.Errorf("cluster %q is red: a primary shard is unassigned (%d unassigned shards in all): GET _cluster/allocation/explain says why",
			h.ClusterName, h.UnassignedShards)
	}
	id, err := c.identify(ctx, hdr)
	if err != nil {
		return c.openError(err)
	}
	id.cluster = h.ClusterName
	c.id = id
	return nil
}

// identify tells the engine apart the way Elastic's clients do: an answer
// (hdr, the health check's) that says X-Elastic-Product: Elasticsearch is
// Elasticsearch's, whose version GET /_nodes/_local gives (GET / is no
// help there: a node without the rest-root module, such as Elastic's
// integration-test distribution, answers it with 405). Anything else is
// asked GET /, where OpenSearch names itself in version.distribution (and
// an Elasticsearch older than 7.14, or behind a proxy that drops the
// header, has a build_flavor).
func (c *client) identify(ctx context.Context, hdr http.Header) (identity, error) {
	if hdr.Get(productHeader) == "Elasticsearch" {
		id := identity{engine: "elasticsearch"}
		var nodes struct {
			Nodes map[string]struct {
				Version     string `json:"version"`
				BuildFlavor string `json:"build_flavor"`
			} `json:"nodes"`
		}
		err := c.getJSON(ctx, "/_nodes/_local?filter_path=nodes.*.version,nodes.*.build_flavor", &nodes)
		for _, n := range nodes.Nodes {
			id.version, id.buildFlavor = n.Version, n.BuildFlavor
		}
		switch {
		case err != nil:
			id.versionError = err.Error()
		case id.version == "":
			id.versionError = "GET /_nodes/_local named no node version"
		}
		return id, nil
	}
	var root rootInfo
	if err := c.getJSON(ctx, "/", &root); err != nil {
		return identity{}, fmt.Errorf("neither Elasticsearch (no %s header) nor OpenSearch: %w", productHeader, err)
	}
	id := identity{version: root.Version.Number, lucene: root.Version.Lucene}
	switch {
	case root.Version.Distribution != "":
		id.engine = root.Version.Distribution
	case root.Version.BuildFlavor != "":
		id.engine, id.buildFlavor = "elasticsearch", root.Version.BuildFlavor
	default:
		return identity{}, fmt.Errorf("GET / names no engine (no version.distribution, no build_flavor, no %s header): is this an OpenSearch or Elasticsearch node's HTTP port?", productHeader)
	}
	return id, nil
}

// openError turns a failed check into the line Open returns.
func (c *client) openError(err error) error {
	var e *Error
	if !errors.As(err, &e) {
		if errors.Is(err, context.DeadlineExceeded) {
			return fmt.Errorf("timed out after %v connecting: %w (timeout in the URL sets how long to wait): is the node up, and is this its HTTP port?", c.cfg.timeout, err)
		}
		return fmt.Errorf("cannot connect: %w: is the node up?", err)
	}
	if e.Status != http.StatusUnauthorized && e.Status != http.StatusForbidden {
		return err
	}
	switch {
	case c.cfg.apiKey != "":
		return fmt.Errorf("HTTP %d: the API key was refused: check %s or the URL's api_key", e.Status, c.cfg.apiKeyEnv())
	case c.cfg.user != "":
		return fmt.Errorf("HTTP %d: user %q was refused: check %s or the URL's password", e.Status, c.cfg.user, c.cfg.passwordEnv())
	}
	return fmt.Errorf("HTTP %d: the cluster wants credentials: name a user in the URL (%s://USER@host) with its password in %s, or set %s",
		e.Status, c.cfg.engine, c.cfg.passwordEnv(), c.cfg.apiKeyEnv())
}

func indexPath(index, suffix string) string { return "/" + url.PathEscape(index) + suffix }

// admin sends one request of SearchAdmin and returns its status and body;
// statuses in ok are no error.
func (s *conn) admin(ctx context.Context, op, method, path string, body []byte, ok ...int) (int, []byte, error) {
	ct := ""
	if body != nil {
		ct = "application/json"
	}
	status, err := s.c.do(ctx, method, path, body, ct, &s.buf)
	if err != nil {
		return 0, nil, fmt.Errorf("%s: %w", op, err)
	}
	if status/100 == 2 {
		return status, s.buf.Bytes(), nil
	}
	for _, o := range ok {
		if status == o {
			return status, s.buf.Bytes(), nil
		}
	}
	return status, nil, s.c.httpError(op, status, s.buf.Bytes())
}

// CreateIndex implements driver.SearchAdmin: PUT /{index}.
func (s *conn) CreateIndex(ctx context.Context, index string, body []byte) error {
	_, _, err := s.admin(ctx, "create index "+index, http.MethodPut, indexPath(index, ""), body)
	var e *Error
	if errors.As(err, &e) && e.Type == "resource_already_exists_exception" {
		return fmt.Errorf("%w: %w", driver.ErrIndexExists, err)
	}
	return err
}

// IndexMeta implements driver.SearchAdmin from GET /{index}/_mapping.
func (s *conn) IndexMeta(ctx context.Context, index string) (map[string]any, bool, error) {
	status, b, err := s.admin(ctx, "mapping of "+index, http.MethodGet, indexPath(index, "/_mapping"), nil, http.StatusNotFound)
	if err != nil || status == http.StatusNotFound {
		return nil, false, err
	}
	var r map[string]struct {
		Mappings struct {
			Meta map[string]any `json:"_meta"`
		} `json:"mappings"`
	}
	if err := json.Unmarshal(b, &r); err != nil {
		return nil, false, fmt.Errorf("mapping of %s: %w", index, err)
	}
	if m, ok := r[index]; ok {
		return m.Mappings.Meta, true, nil
	}
	// An alias answers with its index's name.
	if len(r) == 1 {
		for _, m := range r {
			return m.Mappings.Meta, true, nil
		}
	}
	return nil, false, fmt.Errorf("mapping of %s: %d indexes answered (an alias or pattern of several?)", index, len(r))
}

// DeleteIndex implements driver.SearchAdmin: DELETE /{index}; a missing
// index is no error.
func (s *conn) DeleteIndex(ctx context.Context, index string) error {
	_, _, err := s.admin(ctx, "delete index "+index, http.MethodDelete, indexPath(index, ""), nil, http.StatusNotFound)
	return err
}

// Refresh implements driver.SearchAdmin: POST /{index}/_refresh.
func (s *conn) Refresh(ctx context.Context, index string) error {
	_, _, err := s.admin(ctx, "refresh "+index, http.MethodPost, indexPath(index, "/_refresh"), nil)
	return err
}

// Count implements driver.SearchAdmin: GET /{index}/_count.
func (s *conn) Count(ctx context.Context, index string) (int64, error) {
	_, b, err := s.admin(ctx, "count "+index, http.MethodGet, indexPath(index, "/_count"), nil)
	if err != nil {
		return 0, err
	}
	var r struct {
		Count *int64 `json:"count"`
	}
	if err := json.Unmarshal(b, &r); err != nil || r.Count == nil {
		return 0, fmt.Errorf("count %s: no count in %.200s", index, b)
	}
	return *r.Count, nil
}

// Environment implements driver.Environment: what the cluster is (as Open found it,
// /_cluster/health), its nodes (/_nodes/jvm,os: heap, processors, OS) and
// the cluster settings set explicitly; TLS as the URL asks for it. A part
// the user may not read (managed services) is noted, not fatal.
func (c *client) Environment(ctx context.Context) (result.Database, error) {
	env := result.Database{Engine: c.id.engine, Driver: libraryVersion(), Version: c.id.version}
	env.Set("cluster_name", c.id.cluster)
	env.Set("distribution", c.id.engine)
	for k, v := range map[string]string{"lucene": c.id.lucene, "build_flavor": c.id.buildFlavor, "version_error": c.id.versionError} {
		if v != "" {
			env.Set(k, v)
		}
	}
	var h health
	if err := c.getJSON(ctx, "/_cluster/health", &h); err == nil {
		env.Set("status", h.Status)
		env.Set("nodes", h.Nodes)
		env.Set("data_nodes", h.DataNodes)
	} else {
		env.Set("health_error", err.Error())
	}
	var nodes struct {
		Nodes map[string]struct {
			Name  string   `json:"name"`
			Roles []string `json:"roles"`
			JVM   struct {
				Version string `json:"version"`
				Mem     struct {
					HeapMax int64 `json:"heap_max_in_bytes"`
				} `json:"mem"`
			} `json:"jvm"`
			OS struct {
				Name       string `json:"name"`
				Version    string `json:"version"`
				Arch       string `json:"arch"`
				Available  int    `json:"available_processors"`
				Allocated  int    `json:"allocated_processors"`
				PrettyName string `json:"pretty_name"`
			} `json:"os"`
		} `json:"nodes"`
	}
	if err := c.getJSON(ctx, "/_nodes/jvm,os", &nodes); err == nil {
		var list []map[string]any
		for _, n := range nodes.Nodes {
			list = append(list, map[string]any{
				"name":                 n.Name,
				"roles":                n.Roles,
				"jvm":                  n.JVM.Version,
				"heap_max_bytes":       n.JVM.Mem.HeapMax,
				"available_processors": n.OS.Available,
				"allocated_processors": n.OS.Allocated,
				"os":                   fmt.Sprintf("%s %s (%s)", n.OS.Name, n.OS.Version, n.OS.Arch),
			})
		}
		sort.Slice(list, func(i, j int) bool { return list[i]["name"].(string) < list[j]["name"].(string) })
		recorded := make([]any, len(list)) // as a results file reads it back, for heap
		for i, n := range list {
			recorded[i] = n
		}
		env.Set("node_facts", recorded)
	} else {
		env.Set("nodes_error", err.Error())
	}
	var settings struct {
		Persistent map[string]any `json:"persistent"`
		Transient  map[string]any `json:"transient"`
	}
	if err := c.getJSON(ctx, "/_cluster/settings?flat_settings=true", &settings); err == nil {
		set := map[string]string{}
		for k, v := range settings.Persistent {
			set["persistent."+k] = c.cfg.secrets.Scrub(fmt.Sprint(v))
		}
		for k, v := range settings.Transient {
			set["transient."+k] = c.cfg.secrets.Scrub(fmt.Sprint(v))
		}
		env.Set("cluster_settings", set)
	} else {
		env.SettingsError = err.Error()
	}
	tlsFacts := map[string]any{"enabled": c.cfg.tls}
	if c.cfg.tls {
		tlsFacts["verified"] = !c.cfg.insecure
		tlsFacts["insecure"] = c.cfg.insecure
	}
	env.Set("tls", tlsFacts)
	env.Set("addresses", len(c.cfg.addresses))
	// opensearch-go reads tuning from OPENSEARCH_GO_* variables (a router,
	// request timeouts, node stats polling): a run records those it ran with.
	lib := map[string]string{}
	for _, kv := range os.Environ() {
		if k, v, _ := strings.Cut(kv, "="); strings.HasPrefix(k, "OPENSEARCH_GO_") {
			lib[k] = c.cfg.secrets.Scrub(v)
		}
	}
	if len(lib) > 0 {
		env.Set("library_env", lib)
	}
	return env, nil
}

// libraryVersion names opensearch-go with the version the binary carries.
func libraryVersion() string {
	if bi, ok := debug.ReadBuildInfo(); ok {
		for _, d := range bi.Deps {
			if d.Path == "github.com/opensearch-project/opensearch-go/v4" {
				return clientPath + " " + d.Version
			}
		}
	}
	return clientPath
}
