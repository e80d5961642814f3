package redis

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
)

// config is a parsed redis:// (or rediss://, valkey://, valkeys://) URL.
type config struct {
	Addr     string // host:port of the server, or of the cluster's seed node
	Host     string
	User     string // ACL user; "" for the default user
	Password string
	DB       int
	TLS      bool
	CAFile   string
	// SkipVerify accepts any server certificate (a self-signed one without its CA).
	SkipVerify bool
	Cluster    bool
	Timeout    time.Duration
	// Library runs the measured commands through go-redis instead of
	// fairbench's RESP path (see library.go).
	Library bool
}

// defaultConnectTimeout bounds a connection attempt: a wrong address must
// fail within seconds, not the kernel's two minutes.
const defaultConnectTimeout = 5 * time.Second

var urlParams = map[string]string{
	"cluster":     "true|false: cluster mode (CLUSTER SLOTS, MOVED and ASK followed), like memtier --cluster-mode",
	"ca":          "path of the CA certificate (PEM) that signed the server's (rediss://)",
	"skip_verify": "true|false: accept any server certificate (rediss://)",
	"timeout":     "connect timeout (\"5s\" or seconds)",
	"client":      "wire (default: fairbench's RESP path, each reply timed as it arrives) or go-redis (the library's pipeline)",
}

// parseURL parses redis://[user[:password]@]host[:port][/db][?params]. The
// password may also come from REDISCLI_AUTH, redis-cli's own convention for
// keeping it out of command lines.
func parseURL(raw string) (config, error) {
	bad := func(format string, args ...any) (config, error) {
		return config{}, fmt.Errorf("Redis URL %s: %s", driver.Redacted(raw), fmt.Sprintf(format, args...))
	}
	u, err := url.Parse(raw)
	if err != nil {
		return config{}, fmt.Errorf("Redis URL %s is not a valid URL (redis://[user:password@]host:port/db)", driver.Redacted(raw))
	}
	cfg := config{Timeout: defaultConnectTimeout}
	switch strings.ToLower(u.Scheme) {
	case "redis", "valkey":
	case "rediss", "valkeys":
		cfg.TLS = true
	default:
		return bad("scheme must be redis://, rediss://, valkey:// or valkeys://")
	}
	cfg.Host = u.Hostname()
	if cfg.Host == "" {
		cfg.Host = "127.0.0.1"
	}
	port := u.Port()
	if port == "" {
		port = "6379"
	}
	if p, err := strconv.Atoi(port); err != nil || p < 1 || p > 65535 {
		return bad("port %q is not a port number", port)
	}
	cfg.Addr = net.JoinHostPort(cfg.Host, port)
	if db := strings.Trim(u.Path, "/"); db != "" {
		n, err := strconv.Atoi(db)
		if err != nil || n < 0 {
			return bad("the path names the database by number (redis://host:6379/0), not %q", db)
		}
		cfg.DB = n
	}
	if u.User != nil {
		cfg.User = u.User.Username()
		cfg.Password, _ = u.User.Password()
		if _, has := u.User.Password(); !has && cfg.User != "" {
			// redis://secret@host is how redis-cli -u reads a bare password.
			cfg.Password, cfg.User = cfg.User, ""
		}
	}
	if cfg.Password == "" {
		cfg.Password = os.Getenv("REDISCLI_AUTH")
	}
	q := u.Query()
	if err := driver.CheckParams(q, urlParams); err != nil {
		return bad("%v", err)
	}
	boolParam := func(k string) (bool, error) {
		switch strings.ToLower(q.Get(k)) {
		case "", "false", "0", "no":
			return false, nil
		case "true", "1", "yes":
			return true, nil
		}
		return false, fmt.Errorf("%s=%s: use true or false", k, q.Get(k))
	}
	if cfg.Cluster, err = boolParam("cluster"); err != nil {
		return bad("%v", err)
	}
	if cfg.SkipVerify, err = boolParam("skip_verify"); err != nil {
		return bad("%v", err)
	}
	if ca := q.Get("ca"); ca != "" {
		if _, err := os.Stat(ca); err != nil {
			return bad("ca %s: the file cannot be read (%v)", ca, err)
		}
		cfg.CAFile = ca
	}
	if (cfg.CAFile != "" || cfg.SkipVerify) && !cfg.TLS {
		return bad("ca and skip_verify need TLS: write rediss://")
	}
	if cfg.Cluster && cfg.DB != 0 {
		return bad("a cluster has only database 0 (the URL names %d)", cfg.DB)
	}
	if t := q.Get("timeout"); t != "" {
		d, err := time.ParseDuration(t)
		if err != nil {
			s, err2 := strconv.ParseFloat(t, 64)
			if err2 != nil {
				return bad("timeout=%s: use a duration (\"5s\") or seconds", t)
			}
			d = time.Duration(s * float64(time.Second))
		}
		if d <= 0 {
			return bad("timeout=%s must be positive", t)
		}
		cfg.Timeout = d
	}
	switch c := q.Get("client"); c {
	case "", "wire":
	case "go-redis":
		cfg.Library = true
	default:
		return bad("client=%s: use wire or go-redis", c)
	}
	return cfg, nil
}

// tlsConfig is the client TLS configuration, nil without TLS.
func (cfg config) tlsConfig() (*tls.Config, error) {
	if !cfg.TLS {
		return nil, nil
	}
	tc := &tls.Config{ServerName: cfg.Host, MinVersion: tls.VersionTLS12, InsecureSkipVerify: cfg.SkipVerify}
	if cfg.CAFile != "" {
		pool, err := driver.CAPool("ca", cfg.CAFile)
		if err != nil {
			return nil, err
		}
		tc.RootCAs = pool
	}
	return tc, nil
}
