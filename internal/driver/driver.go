// Package driver defines how fairbench speaks to a database: a Driver opens
// connections for a target URL, and each connection declares what it can do through
// capability interfaces (SQL today; key-value, document, search and analytics later).
// Workloads ask for a capability and never import a concrete driver; concrete drivers
// register themselves by URL scheme in this package's registry.
package driver

import (
	"context"
	"fmt"
	"net"
	"net/url"
	"regexp"
	"sort"
	"strings"
	"sync"

	"github.com/fairbench/fairbench/internal/driver/sockets"
	"github.com/fairbench/fairbench/internal/result"
)

// Target is what a driver needs to reach one endpoint under test.
type Target struct {
	Name string
	URL  string // may carry a password: never print it, use Redacted
}

// Options are per-connection settings that a workload or the user chooses.
type Options struct {
	// QueryMode is pgbench's -M: "simple", "extended" or "prepared". Drivers
	// that have only one way to run a statement accept every mode and report
	// the difference as a deviation.
	QueryMode string
}

// Driver opens connections to targets of the URL schemes it registered.
type Driver interface {
	// Name is the engine family ("postgres", "sqlite", ...).
	Name() string
	// Connect opens one connection; the runner opens one per client.
	Connect(ctx context.Context, t Target, opts Options) (Conn, error)
}

// Conn is one open connection. What it can do beyond Close is expressed by the
// capability interfaces below.
type Conn interface {
	Close(ctx context.Context) error
	// Classify maps an error returned by this connection to an error class.
	Classify(err error) result.ErrorClass
}

// InProcess is the optional capability of drivers whose engine runs inside
// fairbench's own process (embedded SQLite). The client's CPU then includes
// the database's work, and there is no server to move to another host, so the
// load-generator and same-host checks do not apply to its runs.
type InProcess interface {
	InProcess() bool
}

// EngineInProcess reports whether the engine behind rawURL runs inside
// fairbench's process; false for an unknown scheme.
func EngineInProcess(rawURL string) bool {
	d, err := ForURL(rawURL)
	if err != nil {
		return false
	}
	ip, ok := d.(InProcess)
	return ok && ip.InProcess()
}

// Environment is the optional capability to describe the server: version,
// settings that differ from defaults, TLS in use. Values must never hold secrets.
type Environment interface {
	Environment(ctx context.Context) (map[string]any, error)
}

// ThreadPerClient is the optional capability of connections whose reads block an
// OS thread in the kernel (as pgbench's threads do) instead of parking in Go's
// netpoller. The runner then gives the Go scheduler a P per client for the run,
// so that a client blocked in a read never holds up another.
type ThreadPerClient interface {
	BlocksThread() bool
}

// Interrupter is the optional capability of connections that another goroutine
// can interrupt: a statement blocked on the connection returns an error at once,
// and the connection is unusable afterwards. The runner then runs operations
// under a context without cancellation, which spares the driver a context watch
// per statement, and interrupts the connections itself when a run is cancelled.
type Interrupter interface {
	Interrupt()
}

// Multiplexer is the optional capability of connections that an event loop can
// drive (sockets.Loop), several clients per thread, as pgbench -j drives its
// connections. Multiplex readies the connection for it and returns its socket,
// to be attached to the loop task of the client that owns the connection; from
// then on only that task uses the connection (Interrupt and Close excepted).
type Multiplexer interface {
	Multiplex(ctx context.Context) (*sockets.Conn, error)
}

// SQL is the capability of relational engines. Statements use PostgreSQL-style
// placeholders ($1, $2, ...); a driver rewrites them for its engine once, at Prepare.
type SQL interface {
	Conn
	// Dialect names the SQL dialect: "postgres", "sqlite", "mysql".
	Dialect() string
	// Exec runs a statement without parameters (DDL, maintenance).
	Exec(ctx context.Context, sql string) error
	// Prepare readies a statement for repeated execution in the connection's query mode.
	Prepare(ctx context.Context, sql string) (Stmt, error)
	// QueryInt64 runs a query returning one row with one integer column (NULL → 0).
	QueryInt64(ctx context.Context, sql string, args ...any) (int64, error)
}

// Stmt is a statement ready to run on one connection; it is not safe for concurrent use.
type Stmt interface {
	// Exec runs the statement, discarding any rows.
	Exec(ctx context.Context, args ...any) error
	// QueryInt64 runs the statement and scans the first column of the first row.
	QueryInt64(ctx context.Context, args ...any) (int64, error)
}

// RowSource yields rows for a bulk load, one at a time.
type RowSource interface {
	// Next advances to the next row; false when done.
	Next() bool
	// Values of the current row: int64, string or nil (NULL). The slice may be reused.
	Values() []any
}

// BulkLoader is the optional capability of loading rows through the engine's fast
// path (COPY for PostgreSQL, batched transactions for SQLite, ...).
type BulkLoader interface {
	// BulkLoad appends rows to table. With truncate, the table is emptied first in
	// the same transaction, which lets PostgreSQL skip later freezing work (COPY FREEZE).
	BulkLoad(ctx context.Context, table string, columns []string, rows RowSource, truncate bool) (int64, error)
}

// Local reports whether the target URL points at this machine (for percent-of-threads
// sweeps and the client/server same-host warning). Embedded engines are local.
func Local(rawURL string) bool {
	if EngineInProcess(rawURL) {
		return true
	}
	u, err := url.Parse(rawURL)
	if err != nil {
		// libpq's percent-encoded socket directory (postgresql://%2Fvar%2Frun%2Fpostgresql/db)
		// is valid for pgx but not for net/url.
		_, rest, ok := strings.Cut(rawURL, "://")
		if at := strings.LastIndex(rest, "@"); at >= 0 {
			rest = rest[at+1:]
		}
		return ok && strings.HasPrefix(strings.ToLower(rest), "%2f")
	}
	h := u.Hostname()
	if h == "" {
		// libpq defaults to a Unix socket, which is local; a host in the query string counts too.
		h = u.Query().Get("host")
		if h == "" || strings.HasPrefix(h, "/") {
			return true
		}
	}
	if strings.EqualFold(h, "localhost") {
		return true
	}
	ip := net.ParseIP(h)
	return ip != nil && ip.IsLoopback()
}

// keywordSecret finds secrets in libpq keyword/value strings ("host=x password=y").
var keywordSecret = regexp.MustCompile(`(?i)\b((?:ssl)?password|token|secret)\s*=\s*('(?:[^'\\]|\\.)*'|[^\s&]+)`)

// userinfoSecret finds user:password@ in strings net/url cannot parse.
var userinfoSecret = regexp.MustCompile(`(://[^:/@\s]*):([^@\s]*)@`)

// Redacted returns the URL with any password replaced, for storage and display.
// Strings that are not URLs (libpq keyword/value, unparseable hosts) are redacted too.
func Redacted(rawURL string) string {
	u, err := url.Parse(rawURL)
	if err != nil || u.Scheme == "" {
		s := userinfoSecret.ReplaceAllString(rawURL, "$1:xxxxx@")
		return keywordSecret.ReplaceAllString(s, "$1=xxxxx")
	}
	if u.User != nil {
		if _, has := u.User.Password(); has {
			u.User = url.UserPassword(u.User.Username(), "xxxxx")
		}
	}
	q := u.Query()
	changed := false
	for k := range q {
		lk := strings.ToLower(k)
		if strings.Contains(lk, "password") || strings.Contains(lk, "token") || strings.Contains(lk, "secret") {
			q.Set(k, "xxxxx")
			changed = true
		}
	}
	if changed {
		u.RawQuery = q.Encode()
	}
	return u.String()
}

// Secrets returns the secrets a target URL or connection string carries, so that
// they can be scrubbed from every message.
func Secrets(raw string) []string {
	var out []string
	if u, err := url.Parse(raw); err == nil && u.Scheme != "" {
		if u.User != nil {
			if p, ok := u.User.Password(); ok {
				out = append(out, p, url.QueryEscape(p), url.PathEscape(p))
			}
		}
		for k, vs := range u.Query() {
			lk := strings.ToLower(k)
			if strings.Contains(lk, "password") || strings.Contains(lk, "token") || strings.Contains(lk, "secret") {
				out = append(out, vs...)
			}
		}
		return out
	}
	for _, m := range userinfoSecret.FindAllStringSubmatch(raw, -1) {
		out = append(out, m[2])
		if dec, err := url.PathUnescape(m[2]); err == nil {
			out = append(out, dec)
		}
	}
	for _, m := range keywordSecret.FindAllStringSubmatch(raw, -1) {
		out = append(out, m[2], strings.Trim(m[2], "'"))
	}
	return out
}

var (
	mu       sync.RWMutex
	bySchema = map[string]Driver{}
	display  = map[string]string{}
)

// Register makes a driver available for URLs with the given prefixes, written as
// users write them ("postgres://", "sqlite:"). Drivers call it from init.
func Register(d Driver, prefixes ...string) {
	mu.Lock()
	defer mu.Unlock()
	for _, p := range prefixes {
		scheme, _, _ := strings.Cut(p, ":")
		bySchema[scheme] = d
		display[scheme] = p
	}
}

// ForURL returns the driver registered for the URL's scheme.
func ForURL(rawURL string) (Driver, error) {
	scheme, _, ok := strings.Cut(rawURL, ":")
	if !ok || scheme == "" {
		return nil, fmt.Errorf("%q has no scheme: use one of %s", Redacted(rawURL), strings.Join(Schemes(), ", "))
	}
	mu.RLock()
	d, found := bySchema[strings.ToLower(scheme)]
	mu.RUnlock()
	if !found {
		return nil, fmt.Errorf("no driver for %q URLs: supported are %s", scheme, strings.Join(Schemes(), ", "))
	}
	return d, nil
}

// Schemes lists the registered URL schemes.
func Schemes() []string {
	mu.RLock()
	defer mu.RUnlock()
	out := make([]string, 0, len(bySchema))
	for s := range bySchema {
		out = append(out, display[s])
	}
	sort.Strings(out)
	return out
}
