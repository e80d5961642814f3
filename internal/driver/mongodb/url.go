package mongodb

import (
	"errors"
	"fmt"
	"net/url"
	"sort"
	"strings"
	"time"

	"go.mongodb.org/mongo-driver/v2/mongo/options"
	"go.mongodb.org/mongo-driver/v2/x/mongo/driver/connstring"

	"github.com/fairbench/fairbench/internal/driver"
	"github.com/fairbench/fairbench/internal/redact"
)

// Defaults for what the URL does not say. The Go driver's own are 30 s for
// both, so a wrong address would hang Open for half a minute; a benchmark
// wants to be told within seconds.
const (
	defaultConnectTimeout         = 5 * time.Second
	defaultServerSelectionTimeout = 10 * time.Second
)

// config is a parsed mongodb:// or mongodb+srv:// URL.
type config struct {
	redacted string // the URL without its password, for messages
	secrets  redact.List
	database string
	tls      bool
	insecure bool // tlsInsecure: any server certificate is accepted
	opts     *options.ClientOptions
}

// parseURL reads a MongoDB connection string: every option is the official
// driver's (ApplyURI), the database is the path. Options the driver does not
// know are refused rather than ignored, so that a typo never silently changes
// a benchmark. mongodb+srv:// resolves its SRV and TXT records here.
func parseURL(raw string) (config, error) {
	cfg := config{redacted: redactedURL(raw), secrets: secretsOf(raw)}
	bad := func(format string, args ...any) (config, error) {
		msg := fmt.Sprintf(format, args...)
		return config{}, fmt.Errorf("MongoDB URL %s: %s", cfg.redacted, cfg.secrets.Scrub(msg))
	}
	scheme, _, ok := strings.Cut(raw, "://")
	if !ok || (!strings.EqualFold(scheme, "mongodb") && !strings.EqualFold(scheme, "mongodb+srv")) {
		return bad("scheme must be mongodb:// or mongodb+srv://")
	}
	cs, err := connstring.ParseAndValidate(raw)
	if err != nil {
		return bad("%v (see https://www.mongodb.com/docs/manual/reference/connection-string-options/)", unwrapURIError(err))
	}
	if cs.Password != "" {
		cfg.secrets = append(cfg.secrets, cs.Password, url.QueryEscape(cs.Password), url.PathEscape(cs.Password))
	}
	if len(cs.UnknownOptions) > 0 {
		names := make([]string, 0, len(cs.UnknownOptions))
		for k := range cs.UnknownOptions {
			names = append(names, k)
		}
		sort.Strings(names)
		return bad("unknown option %s: not a MongoDB connection string option (names are case-insensitive; see https://www.mongodb.com/docs/manual/reference/connection-string-options/)",
			strings.Join(names, ", "))
	}
	if cs.Database == "" {
		return bad("no database: name it in the path (mongodb://host:27017/DATABASE)")
	}
	if strings.ContainsAny(cs.Database, `/\. "$`) {
		return bad("database name %q may not contain / \\ . space \" or $", cs.Database)
	}
	cfg.database = cs.Database
	cfg.tls = cs.SSL
	cfg.insecure = cs.SSLInsecure
	opts := options.Client().ApplyURI(raw)
	if err := opts.Validate(); err != nil {
		return bad("%v", unwrapURIError(err))
	}
	// Without maxPoolSize the driver allows 100 connections per server, and
	// sessions 101 and up would queue for one: a 128-client run would measure
	// the pool, not the server. 0 is unlimited, one connection per busy session.
	if !cs.MaxPoolSizeSet {
		opts.SetMaxPoolSize(0)
	}
	if !cs.ConnectTimeoutSet {
		opts.SetConnectTimeout(defaultConnectTimeout)
	}
	if !cs.ServerSelectionTimeoutSet {
		opts.SetServerSelectionTimeout(defaultServerSelectionTimeout)
	}
	// The server's logs and currentOp then say who sent the load.
	if cs.AppName == "" {
		opts.SetAppName("fairbench")
	}
	cfg.opts = opts
	return cfg, nil
}

// unwrapURIError drops the driver's "error parsing uri: " prefixes, which say
// nothing the message around them does not.
func unwrapURIError(err error) string {
	s := err.Error()
	for _, p := range []string{"error parsing uri: ", "error validating uri: "} {
		s = strings.TrimPrefix(s, p)
	}
	if s == "" {
		return errors.Unwrap(err).Error()
	}
	return s
}

// redactedURL hides the password of a MongoDB URL. net/url cannot parse a seed
// list (mongodb://u:p@h1:27017,h2:27017/db) when a host has a port other
// than the last, and driver.Redacted then falls back to its pattern, which
// also covers this form.
func redactedURL(raw string) string { return driver.Redacted(raw) }

// secretsOf lists what must never appear in a message about raw.
func secretsOf(raw string) redact.List {
	var out []string
	for _, s := range driver.Secrets(raw) {
		if s != "" {
			out = append(out, s)
		}
	}
	// The userinfo of a seed-list URL, which net/url may have refused.
	if _, rest, ok := strings.Cut(raw, "://"); ok {
		if at := strings.LastIndex(strings.SplitN(rest, "/", 2)[0], "@"); at >= 0 {
			if _, p, ok := strings.Cut(rest[:at], ":"); ok && p != "" {
				out = append(out, p)
				if dec, err := url.PathUnescape(p); err == nil {
					out = append(out, dec)
				}
			}
		}
	}
	return out
}
