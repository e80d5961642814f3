package clickhouse

import (
	"crypto/tls"
	"fmt"
	"net"
	"net/url"
	"os"
	"strconv"
	"strings"
	"time"

	ch "github.com/ClickHouse/clickhouse-go/v2"

	"github.com/fairbench/fairbench/internal/driver"
	"github.com/fairbench/fairbench/internal/redact"
)

// defaultPort is ClickHouse's native protocol port (not HTTP's 8123: the
// driver's HTTP mode fails against the 18.16 server tests run on).
const (
	defaultPort        = "9000"
	defaultDialTimeout = 5 * time.Second
	// maxConns bounds the shared pool. Sessions take a connection per
	// statement; a cap below the number of workers would make a run measure
	// the pool's queue, so it is far above any client count fairbench runs.
	maxConns = 1024
)

var params = map[string]string{
	"secure":       "true|false: TLS (clickhouses:// implies true)",
	"skip_verify":  "true|false: accept any server certificate",
	"ca_file":      "PEM file of the CA that signed the server's certificate",
	"dial_timeout": "Go duration, e.g. 5s",
	"read_timeout": "Go duration, e.g. 300s",
}

// config is a parsed clickhouse:// URL.
type config struct {
	redacted string
	secrets  redact.List
	database string
	tls      bool
	insecure bool
	opts     *ch.Options
}

// parseURL reads clickhouse://[user[:password]@]host[:port]/DATABASE[?...].
func parseURL(raw string) (config, error) {
	cfg := config{redacted: driver.Redacted(raw)}
	for _, s := range driver.Secrets(raw) {
		if s != "" {
			cfg.secrets = append(cfg.secrets, s)
		}
	}
	bad := func(format string, args ...any) (config, error) {
		return config{}, fmt.Errorf("ClickHouse URL %s: %s", cfg.redacted, cfg.secrets.Scrub(fmt.Sprintf(format, args...)))
	}
	u, err := url.Parse(raw)
	if err != nil {
		return bad("not a URL; write clickhouse://[user[:password]@]host[:9000]/DATABASE")
	}
	switch strings.ToLower(u.Scheme) {
	case "clickhouse":
	case "clickhouses":
		cfg.tls = true
	default:
		return bad("scheme must be clickhouse:// or clickhouses://")
	}
	q := u.Query()
	if err := driver.CheckParams(q, params); err != nil {
		return bad("%v", err)
	}
	host := u.Hostname()
	if host == "" {
		return bad("no host: write clickhouse://host[:9000]/DATABASE")
	}
	port := u.Port()
	if port == "" {
		port = defaultPort
	} else if n, err := strconv.Atoi(port); err != nil || n < 1 || n > 65535 {
		return bad("port %q is not a TCP port", port)
	}
	db := strings.TrimPrefix(u.Path, "/")
	if db == "" {
		return bad("no database: name it in the path (clickhouse://host:9000/DATABASE; the server's own is \"default\")")
	}
	if strings.ContainsAny(db, "/ `\"'\\") {
		return bad("database name %q may not contain / space quotes or backslash", db)
	}
	cfg.database = db
	boolParam := func(name string) (bool, error) { return driver.BoolParam(q, name, false) }
	durParam := func(name string, def time.Duration) (time.Duration, error) {
		v := q.Get(name)
		if v == "" {
			return def, nil
		}
		d, err := time.ParseDuration(v)
		if err != nil || d <= 0 {
			return 0, fmt.Errorf("%s=%q: use a positive Go duration such as 5s", name, v)
		}
		return d, nil
	}
	if q.Has("secure") {
		s, err := boolParam("secure")
		if err != nil {
			return bad("%v", err)
		}
		cfg.tls = s
	}
	if cfg.insecure, err = boolParam("skip_verify"); err != nil {
		return bad("%v", err)
	}
	if (cfg.insecure || q.Get("ca_file") != "") && !cfg.tls {
		return bad("skip_verify and ca_file need TLS: add secure=true or use clickhouses://")
	}
	opts := &ch.Options{
		Addr:     []string{net.JoinHostPort(host, port)},
		Protocol: ch.Native,
		Auth:     ch.Auth{Database: db, Username: "default"},
		// The server's query log then says who sent the load.
		ClientInfo:   ch.ClientInfo{Products: []struct{ Name, Version string }{{Name: "fairbench", Version: ""}}},
		MaxOpenConns: maxConns,
		MaxIdleConns: maxConns,
	}
	if u.User != nil {
		opts.Auth.Username = u.User.Username()
		opts.Auth.Password, _ = u.User.Password()
	}
	if opts.Auth.Password == "" {
		// clickhouse-client's variable: a study file names the user and
		// leaves the password to the environment.
		if pw := os.Getenv("CLICKHOUSE_PASSWORD"); pw != "" {
			opts.Auth.Password = pw
			cfg.secrets = append(cfg.secrets, pw)
		}
	}
	if opts.DialTimeout, err = durParam("dial_timeout", defaultDialTimeout); err != nil {
		return bad("%v", err)
	}
	if opts.ReadTimeout, err = durParam("read_timeout", 0); err != nil {
		return bad("%v", err)
	}
	if cfg.tls {
		tc := &tls.Config{ServerName: host, InsecureSkipVerify: cfg.insecure} //nolint:gosec // only when the URL asks
		if f := q.Get("ca_file"); f != "" {
			pool, err := driver.CAPool("ca_file", f)
			if err != nil {
				return bad("%v", err)
			}
			tc.RootCAs = pool
		}
		opts.TLS = tc
	}
	cfg.opts = opts
	return cfg, nil
}
