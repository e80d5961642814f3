package opensearch

import (
	"crypto/tls"
	"fmt"
	"net"
	"net/url"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/fairbench/fairbench/internal/driver"
	"github.com/fairbench/fairbench/internal/redact"
)

const defaultPort = "9200"

var params = map[string]string{
	"tls":      "true|false: HTTPS (opensearchs:// and elasticsearchs:// imply true)",
	"ca":       "PEM file of the CA that signed the nodes' certificates",
	"insecure": "true|false: accept any node certificate (recorded with the run)",
	"api_key":  "API key, sent as Authorization: ApiKey (or set OPENSEARCH_API_KEY / ELASTICSEARCH_API_KEY)",
	"timeout":  "how long connecting and the first checks may take (\"10s\"; default 10s)",
}

// config is a parsed opensearch:// or elasticsearch:// URL.
type config struct {
	redacted  string // the URL without its secrets, for messages
	secrets   redact.List
	engine    string   // "opensearch" or "elasticsearch": the scheme's, for the names of variables
	addresses []string // http(s)://host:port of every node the URL lists
	user      string
	password  string
	apiKey    string
	tls       bool
	insecure  bool
	tlsConfig *tls.Config   // nil without TLS
	timeout   time.Duration // bounds Open's connect and checks
}

// passwordEnv and apiKeyEnv name the variables the scheme's users know.
func (c config) passwordEnv() string { return strings.ToUpper(c.engine) + "_PASSWORD" }
func (c config) apiKeyEnv() string   { return strings.ToUpper(c.engine) + "_API_KEY" }

// parseURL reads scheme://[user[:password]@]host[:port][,host[:port]...][/][?params].
// It splits the URL itself: net/url refuses a list of hosts with ports.
func parseURL(raw string) (config, error) {
	cfg := config{redacted: driver.Redacted(raw)}
	addSecret := func(s string) {
		if s != "" {
			cfg.secrets = append(cfg.secrets, s, url.QueryEscape(s), url.PathEscape(s))
		}
	}
	for _, s := range driver.Secrets(raw) {
		addSecret(s)
	}
	title := "OpenSearch"
	bad := func(format string, args ...any) (config, error) {
		return config{}, fmt.Errorf("%s URL %s: %s", title, cfg.redacted, cfg.secrets.Scrub(fmt.Sprintf(format, args...)))
	}
	scheme, rest, ok := strings.Cut(raw, "://")
	switch s := strings.ToLower(scheme); {
	case !ok:
		return bad("not a URL; write opensearch://[user@]host[:9200][,host2:9200...]")
	case s == "opensearch" || s == "elasticsearch":
		cfg.engine = s
	case s == "opensearchs" || s == "elasticsearchs":
		cfg.engine, cfg.tls = strings.TrimSuffix(s, "s"), true
	default:
		return bad("scheme must be opensearch://, opensearchs://, elasticsearch:// or elasticsearchs://")
	}
	if cfg.engine == "elasticsearch" {
		title = "Elasticsearch"
	}
	rest, rawQuery, _ := strings.Cut(rest, "?")
	authority, path, _ := strings.Cut(rest, "/")
	if path != "" {
		return bad("unexpected path /%s: the URL names nodes, and workloads name their indexes", path)
	}
	if at := strings.LastIndex(authority, "@"); at >= 0 {
		u, p, hasPW := strings.Cut(authority[:at], ":")
		authority = authority[at+1:]
		var err error
		if cfg.user, err = url.PathUnescape(u); err != nil {
			return bad("user: %v", err)
		}
		if hasPW {
			addSecret(p)
			if cfg.password, err = url.PathUnescape(p); err != nil {
				return bad("password is not validly percent-encoded")
			}
			addSecret(cfg.password)
		}
	}
	q, err := url.ParseQuery(rawQuery)
	if err != nil {
		return bad("query: %v", err)
	}
	if err := driver.CheckParams(q, params); err != nil {
		return bad("%v", err)
	}
	boolParam := func(name string, def bool) (bool, error) { return driver.BoolParam(q, name, def) }
	cfg.timeout = openTimeout
	if v := q.Get("timeout"); v != "" {
		if cfg.timeout, err = time.ParseDuration(v); err != nil || cfg.timeout <= 0 {
			return bad("timeout=%s: use a positive duration such as 10s", v)
		}
	}
	if cfg.tls, err = boolParam("tls", cfg.tls); err != nil {
		return bad("%v", err)
	}
	if cfg.insecure, err = boolParam("insecure", false); err != nil {
		return bad("%v", err)
	}
	if (cfg.insecure || q.Get("ca") != "") && !cfg.tls {
		return bad("insecure and ca need TLS: use %ss:// or add tls=true", cfg.engine)
	}
	scheme = "http"
	if cfg.tls {
		scheme = "https"
	}
	if authority == "" {
		return bad("no host: write %s://host[:9200]", cfg.engine)
	}
	if cfg.addresses, err = nodeAddresses(scheme, authority); err != nil {
		return bad("%v", err)
	}
	// A study file names the user and leaves the password to the
	// environment, as the engines' own tools do.
	if cfg.user != "" && cfg.password == "" {
		cfg.password = os.Getenv(cfg.passwordEnv())
		addSecret(cfg.password)
	}
	cfg.apiKey = q.Get("api_key")
	if cfg.apiKey != "" && cfg.user != "" {
		return bad("both a user and api_key: use one of them")
	}
	// The environment's key applies only where the URL names no
	// credentials, so a URL with a user means that user.
	if cfg.apiKey == "" && cfg.user == "" {
		cfg.apiKey = os.Getenv(cfg.apiKeyEnv())
	}
	addSecret(cfg.apiKey)
	if cfg.tls {
		cfg.tlsConfig = &tls.Config{InsecureSkipVerify: cfg.insecure} //nolint:gosec // only when the URL asks, and recorded
		if f := q.Get("ca"); f != "" {
			pool, err := driver.CAPool("ca", f)
			if err != nil {
				return bad("%v", err)
			}
			cfg.tlsConfig.RootCAs = pool
		}
	}
	return cfg, nil
}

// nodeAddresses are the scheme://host:port of the URL's comma-separated
// nodes, the port 9200 where a node gives none.
func nodeAddresses(scheme, authority string) ([]string, error) {
	var out []string
	for _, h := range strings.Split(authority, ",") {
		host, port := h, defaultPort
		// A port follows the last colon, except inside an IPv6 literal's brackets.
		if i := strings.LastIndex(h, ":"); i >= 0 && i > strings.LastIndex(h, "]") {
			host, port = h[:i], h[i+1:]
		}
		host = strings.TrimSuffix(strings.TrimPrefix(host, "["), "]")
		if host == "" {
			return nil, fmt.Errorf("empty host in %q", authority)
		}
		if n, err := strconv.Atoi(port); err != nil || n < 1 || n > 65535 {
			return nil, fmt.Errorf("port %q of %s is not a TCP port", port, host)
		}
		out = append(out, scheme+"://"+net.JoinHostPort(host, port))
	}
	return out, nil
}
