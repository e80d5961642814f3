package mysql

import (
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"net/url"
	"os"
	"strings"
	"time"

	gomysql "github.com/go-sql-driver/mysql"

	"github.com/fairbench/fairbench/internal/driver"
)

// Config is a parsed mysql:// URL.
type Config struct {
	User, Password, Host, Port, DB string
	// TLSMode is "false" (no TLS), "preferred", "skip-verify", "verify" (also "true").
	TLSMode    string
	CAFile     string
	MinVersion uint16 // pinned TLS version (min = max), 0 = library default
	// Ciphers the user pinned, by IANA name. TLS 1.2 suites are restricted in the
	// handshake; TLS 1.3 suites cannot be restricted by a Go client and are checked
	// after the handshake instead (see tlsConfig).
	Ciphers    []string
	Autocommit string // "", "0" or "1"
	Timeout    time.Duration
	// Bulk is how data loads go: "load-data" (LOAD DATA LOCAL INFILE where the
	// server allows it, the default) or "insert" (multi-row INSERTs always).
	Bulk string
}

// params are the URL query parameters the driver understands; anything else is
// an error that names the parameter, so a typo never silently changes a benchmark.
var urlParams = map[string]string{
	"tls":         "true|verify|skip-verify|preferred|false",
	"ssl-ca":      "path of the CA certificate (PEM) for tls=verify",
	"tls-version": "TLSv1.2 or TLSv1.3",
	"tls-ciphers": "comma-separated IANA cipher suite names",
	"autocommit":  "0 or 1",
	"timeout":     "connect timeout (\"5s\" or seconds)",
	"bulk":        "load-data (LOAD DATA LOCAL INFILE where the server allows it; default) or insert (multi-row INSERTs)",
}

// ParseURL parses mysql://user:pass@host:port/db?tls=...; errors name the URL
// (redacted) and the offending parameter.
func ParseURL(raw string) (Config, error) {
	bad := func(format string, args ...any) (Config, error) {
		return Config{}, fmt.Errorf("MySQL URL %s: %s", driver.Redacted(raw), fmt.Sprintf(format, args...))
	}
	u, err := url.Parse(raw)
	if err != nil {
		return Config{}, fmt.Errorf("MySQL URL %s is not a valid URL", driver.Redacted(raw))
	}
	if u.Scheme != "mysql" {
		return bad("scheme must be mysql://")
	}
	cfg := Config{Host: u.Hostname(), Port: u.Port(), DB: strings.TrimPrefix(u.Path, "/"), Timeout: defaultConnectTimeout}
	if cfg.Host == "" {
		cfg.Host = "127.0.0.1"
	}
	if cfg.Port == "" {
		cfg.Port = "3306"
	}
	if cfg.DB == "" || strings.Contains(cfg.DB, "/") {
		return bad("name one database in the path, e.g. mysql://user@host:3306/bench")
	}
	if u.User != nil {
		cfg.User = u.User.Username()
		cfg.Password, _ = u.User.Password()
	}
	if cfg.User == "" {
		return bad("no user: write mysql://user@host/db")
	}
	if _, has := u.User.Password(); !has {
		// The mysql client's own convention for a password kept out of the URL.
		cfg.Password = os.Getenv("MYSQL_PWD")
	}
	q := u.Query()
	if err := driver.CheckParams(q, urlParams); err != nil {
		return bad("%v", err)
	}
	cfg.TLSMode = "false"
	switch v := strings.ToLower(q.Get("tls")); v {
	case "", "false", "0", "disabled":
	case "true", "1", "verify", "verify-full", "verify_identity":
		cfg.TLSMode = "verify"
	case "skip-verify", "required":
		cfg.TLSMode = "skip-verify"
	case "preferred":
		cfg.TLSMode = "preferred"
	default:
		return bad("tls=%s is not supported (use %s)", q.Get("tls"), urlParams["tls"])
	}
	if ca := q.Get("ssl-ca"); ca != "" {
		if cfg.TLSMode != "verify" {
			return bad("ssl-ca needs tls=verify (it has tls=%s)", cfg.TLSMode)
		}
		if _, err := os.Stat(ca); err != nil {
			return bad("ssl-ca %s: %v", ca, errors.Unwrap(err))
		}
		cfg.CAFile = ca
	}
	if v := q.Get("tls-version"); v != "" {
		switch strings.ToUpper(strings.ReplaceAll(v, " ", "")) {
		case "TLSV1.2", "TLS1.2":
			cfg.MinVersion = tls.VersionTLS12
		case "TLSV1.3", "TLS1.3":
			cfg.MinVersion = tls.VersionTLS13
		default:
			return bad("tls-version=%s is not supported (use TLSv1.2 or TLSv1.3)", v)
		}
		if cfg.TLSMode == "false" {
			return bad("tls-version needs TLS (add tls=verify or tls=skip-verify)")
		}
	}
	if v := q.Get("tls-ciphers"); v != "" {
		if cfg.TLSMode == "false" {
			return bad("tls-ciphers needs TLS (add tls=verify or tls=skip-verify)")
		}
		for _, name := range strings.Split(v, ",") {
			name = strings.TrimSpace(name)
			id, ok := cipherByName(name)
			if !ok {
				return bad("tls-ciphers: unknown cipher suite %q (use IANA names such as TLS_AES_128_GCM_SHA256 or TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256)", name)
			}
			if tls13Suite(id) && cfg.MinVersion == tls.VersionTLS12 {
				return bad("tls-ciphers: %s is a TLS 1.3 suite but tls-version pins TLSv1.2", name)
			}
			cfg.Ciphers = append(cfg.Ciphers, tls.CipherSuiteName(id))
		}
	}
	switch v := q.Get("autocommit"); v {
	case "", "0", "1":
		cfg.Autocommit = v
	case "true", "on", "ON":
		cfg.Autocommit = "1"
	case "false", "off", "OFF":
		cfg.Autocommit = "0"
	default:
		return bad("autocommit=%s: use 0 or 1", v)
	}
	switch v := q.Get("bulk"); v {
	case "", "load-data":
		cfg.Bulk = "load-data"
	case "insert":
		cfg.Bulk = v
	default:
		return bad("bulk=%s: use load-data or insert", v)
	}
	if v := q.Get("timeout"); v != "" {
		d, err := time.ParseDuration(v)
		if err != nil {
			d, err = time.ParseDuration(v + "s")
		}
		if err != nil || d <= 0 {
			return bad("timeout=%s: use a duration such as 5s", v)
		}
		cfg.Timeout = d
	}
	return cfg, nil
}

func cipherByName(name string) (uint16, bool) {
	for _, list := range [][]*tls.CipherSuite{tls.CipherSuites(), tls.InsecureCipherSuites()} {
		for _, cs := range list {
			if strings.EqualFold(cs.Name, name) {
				return cs.ID, true
			}
		}
	}
	return 0, false
}

func tls13Suite(id uint16) bool {
	for _, cs := range tls.CipherSuites() {
		if cs.ID == id {
			return len(cs.SupportedVersions) == 1 && cs.SupportedVersions[0] == tls.VersionTLS13
		}
	}
	return false
}

// tlsConfig builds the client TLS configuration. Go's crypto/tls lets a client
// restrict TLS 1.2 suites (CipherSuites) but not TLS 1.3 ones: they are always
// offered and the server chooses. A pinned TLS 1.3 suite is therefore enforced
// after the handshake: VerifyConnection rejects a connection whose negotiated
// suite is not pinned, so a benchmark never runs on a cipher it did not ask for.
func (cfg Config) tlsConfig() (*tls.Config, error) {
	if cfg.TLSMode == "false" {
		return nil, nil
	}
	tc := &tls.Config{ServerName: cfg.Host, MinVersion: tls.VersionTLS12}
	if cfg.TLSMode != "verify" {
		tc.InsecureSkipVerify = true
	}
	if cfg.CAFile != "" {
		pool, err := driver.CAPool("ssl-ca", cfg.CAFile)
		if err != nil {
			return nil, err
		}
		tc.RootCAs = pool
	}
	if ip := net.ParseIP(cfg.Host); ip != nil && cfg.TLSMode == "verify" {
		tc.ServerName = ip.String() // verified against the certificate's IP SANs
	}
	if cfg.MinVersion != 0 {
		tc.MinVersion, tc.MaxVersion = cfg.MinVersion, cfg.MinVersion
	}
	pinned := map[uint16]bool{}
	for _, name := range cfg.Ciphers {
		id, _ := cipherByName(name)
		pinned[id] = true
		if !tls13Suite(id) {
			tc.CipherSuites = append(tc.CipherSuites, id)
		}
	}
	if len(pinned) > 0 {
		tc.VerifyConnection = func(st tls.ConnectionState) error {
			if !pinned[st.CipherSuite] {
				msg := fmt.Sprintf("the server negotiated %s %s, which tls-ciphers does not pin (%s)",
					tls.VersionName(st.Version), tls.CipherSuiteName(st.CipherSuite), strings.Join(cfg.Ciphers, ","))
				if st.Version == tls.VersionTLS13 {
					msg += "; Go's TLS client cannot restrict TLS 1.3 suites, so make the server choose it (tls_ciphersuites / ssl_cipher)"
				}
				return errors.New(msg)
			}
			return nil
		}
	}
	return tc, nil
}

// driverConfig maps the parsed URL onto go-sql-driver/mysql's configuration.
func (cfg Config) driverConfig(interpolate bool) (*gomysql.Config, error) {
	mc := gomysql.NewConfig()
	mc.User, mc.Passwd = cfg.User, cfg.Password
	mc.Net, mc.Addr, mc.DBName = "tcp", net.JoinHostPort(cfg.Host, cfg.Port), cfg.DB
	mc.Timeout = cfg.Timeout
	mc.InterpolateParams = interpolate
	mc.Logger = &gomysql.NopLogger{} // the driver's own log lines would bypass the scrubber
	mc.Params = map[string]string{}
	if cfg.Autocommit != "" {
		mc.Params["autocommit"] = cfg.Autocommit
	}
	tc, err := cfg.tlsConfig()
	if err != nil {
		return nil, err
	}
	mc.TLS = tc
	mc.AllowFallbackToPlaintext = cfg.TLSMode == "preferred"
	return mc, nil
}
