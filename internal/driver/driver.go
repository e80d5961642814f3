// Package driver defines how fairbench speaks to a database, in two levels.
//
// A Driver, registered by URL scheme, opens one Client per target and load
// generator (Open): what the workers share — parsed configuration, TLS, a pool
// where the engine has one, environment capture (the Environment and InProcess
// capabilities belong to the client). Each worker takes its own session from
// the client (Client.Session), a Conn; for PostgreSQL, MySQL and SQLite a
// session is one connection, the way a pgbench or sysbench client owns one
// (ConnClient is that shared mechanism).
//
// What a session can do beyond Close and Classify is expressed by capability
// families discovered by type assertion: SQL (statements, prepared statements,
// streamed result sets of typed columns through Rows), BulkLoader, Environment,
// Interrupter and Path; and, in a first shape for the engines to come
// (families.go), KV (pipelines with a latency per reply), Document, Search
// (bulk requests with per-item errors) and Analytics (streamed rows and the
// server's own elapsed time).
// Workloads ask for a capability and never import a concrete driver. The
// hand-written fast path (blocking sockets, event loops) is no part of this
// package: its capabilities live in package fastpath.
package driver

import (
	"context"
	"crypto/x509"
	"errors"
	"fmt"
	"net"
	"net/url"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/fairbench/fairbench/internal/boundfile"
	"github.com/fairbench/fairbench/internal/redact"
	"github.com/fairbench/fairbench/internal/result"
)

// Target is what a driver needs to reach one endpoint under test.
type Target struct {
	Name string
	URL  string // may carry a password: never print it, use Redacted
}

// Options are per-client settings that a workload or the user chooses; every
// session of a client has them.
type Options struct {
	// QueryMode is pgbench's -M: "simple", "extended" or "prepared". Drivers
	// that have only one way to run a statement accept every mode and report
	// the difference as a deviation.
	QueryMode string
}

// Driver opens clients for targets of the URL schemes it registered.
type Driver interface {
	// Name is the engine family ("postgres", "sqlite", ...).
	Name() string
	// Open checks the target's URL and options and returns the client the
	// workers of one cell share. It may connect to validate the target.
	Open(ctx context.Context, t Target, opts Options) (Client, error)
}

// Client is one target's shared client. Sessions are safe to take from
// several goroutines at once; each session belongs to the one worker that took
// it, which closes it. Close releases what the client shares and refuses new
// sessions; it does not close sessions still open.
type Client interface {
	Session(ctx context.Context) (Conn, error)
	Close(ctx context.Context) error
}

// Conn is one session: one worker's connection (or its share of the
// client's). What it can do beyond Close is expressed by the capability
// interfaces below.
type Conn interface {
	Close(ctx context.Context) error
	// Classify maps an error returned by this session to an error class.
	Classify(err error) result.ErrorClass
}

// ClientState is the open/closed state every shared client keeps: sessions
// are refused once the client is closed, and what it holds is released once.
// Drivers' clients embed it.
type ClientState struct {
	mu     sync.Mutex
	closed bool
}

// CheckOpen returns ErrClientClosed once the client is closed.
func (s *ClientState) CheckOpen() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return ErrClientClosed
	}
	return nil
}

// CloseOnce marks the client closed and calls release the first time only.
func (s *ClientState) CloseOnce(release func() error) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil
	}
	s.closed = true
	return release()
}

// ConnClient is the Client of drivers whose session is one connection
// (PostgreSQL, MySQL, SQLite): Session dials a new connection with what Open
// parsed once. It implements Environment by asking a fresh session, and
// InProcess as told.
type ConnClient struct {
	dial      func(ctx context.Context) (Conn, error)
	inProcess bool
	ClientState
}

// NewConnClient returns a client whose sessions are the connections dial opens.
func NewConnClient(dial func(ctx context.Context) (Conn, error), inProcess bool) *ConnClient {
	return &ConnClient{dial: dial, inProcess: inProcess}
}

// ErrClientClosed is returned for a session asked of a closed client.
var ErrClientClosed = errors.New("the client is closed")

// Session implements Client: a new connection.
func (c *ConnClient) Session(ctx context.Context) (Conn, error) {
	if err := c.CheckOpen(); err != nil {
		return nil, err
	}
	return c.dial(ctx)
}

// Close implements Client.
func (c *ConnClient) Close(context.Context) error {
	return c.CloseOnce(func() error { return nil })
}

// InProcess implements InProcess.
func (c *ConnClient) InProcess() bool { return c.inProcess }

// Environment implements Environment on a session of its own, when the
// driver's sessions can describe the server.
func (c *ConnClient) Environment(ctx context.Context) (result.Database, error) {
	s, err := c.Session(ctx)
	if err != nil {
		return result.Database{}, err
	}
	defer s.Close(context.WithoutCancel(ctx))
	e, ok := s.(Environment)
	if !ok {
		return result.Database{}, errors.New("this driver does not describe its server")
	}
	return e.Environment(ctx)
}

// InProcess is the optional capability of drivers and clients whose engine
// runs inside fairbench's own process (embedded SQLite). The client's CPU then
// includes the database's work, and there is no server to move to another
// host, so the load-generator and same-host checks do not apply to its runs.
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

// Environment is the optional capability (of a client, and of sessions that
// are not on a fast path) to describe the server: version, settings that
// differ from defaults, TLS in use, and under Extra the engine's own facts.
// Values must never hold secrets.
type Environment interface {
	Environment(ctx context.Context) (result.Database, error)
}

// Interrupter is the optional capability of sessions that another goroutine
// can interrupt: a statement blocked on the session returns an error at once,
// and the session is unusable afterwards. The runner then runs operations
// under a context without cancellation, which spares the driver a context watch
// per statement, and interrupts the sessions itself when a run is cancelled.
type Interrupter interface {
	Interrupt()
}

// Path is the optional capability of sessions to name the client code path
// their statements take ("pgx", "wire (pgproto3 messages)", "go-sql-driver",
// "wire (COM_STMT_PREPARE/EXECUTE)", "modernc sqlite"), recorded with each run:
// one sweep, one client code path.
type Path interface {
	ClientPath() string
}

// SQL is the capability of relational engines. Statements use PostgreSQL-style
// placeholders ($1, $2, ...); a driver rewrites them for its engine once, at Prepare.
type SQL interface {
	Conn
	// Dialect names the SQL dialect: "postgres", "sqlite", "mysql".
	Dialect() string
	// Exec runs a statement without parameters (DDL, maintenance).
	Exec(ctx context.Context, sql string) error
	// Prepare readies a statement for repeated execution in the session's query mode.
	Prepare(ctx context.Context, sql string) (Stmt, error)
	// QueryInt64 runs a query returning one row with one integer column (NULL → 0).
	QueryInt64(ctx context.Context, sql string, args ...any) (int64, error)
	// Query runs a query and streams its rows. The session runs nothing else
	// until the rows are closed.
	Query(ctx context.Context, sql string, args ...any) (Rows, error)
}

// Stmt is a statement ready to run on one session; it is not safe for concurrent use.
type Stmt interface {
	// Exec runs the statement, discarding any rows.
	Exec(ctx context.Context, args ...any) error
	// QueryInt64 runs the statement and scans the first column of the first row.
	QueryInt64(ctx context.Context, args ...any) (int64, error)
	// Query runs the statement and streams its rows.
	Query(ctx context.Context, args ...any) (Rows, error)
}

// Rows is a streamed result set. Scan accepts *int64, *int, *float64,
// *string, *[]byte, *bool, *time.Time and *any (see Assign): a NUMERIC or
// DECIMAL scans into *float64 and, exactly, into *string; NULL scans into *any
// as nil and is an error, naming the column, for any other destination.
// Close reads what is left of the result; it is safe to call more than once.
type Rows interface {
	Next() bool
	Scan(dest ...any) error
	Err() error
	Close() error
}

// RowSource yields rows for a bulk load, one at a time.
type RowSource interface {
	// Next advances to the next row; false when done.
	Next() bool
	// Values of the current row: int64, string or nil (NULL). The slice may be reused.
	Values() []any
}

// TypedRowSource is the optional fast path of a RowSource whose every column
// holds one kind of value (no NULLs): the current row in typed slots, with no
// value boxed into an interface. Boxing, and the collection of the garbage it
// makes, was a third of a columnar load's CPU (bench/README.md, "What limits
// the load"). A driver that collects columns (ClickHouse) reads Typed when the
// source offers it; the others read Values, which holds the same row.
type TypedRowSource interface {
	RowSource
	// Kinds gives each column's kind; it does not change while the source is read.
	Kinds() []Kind
	// Typed returns the current row: column i's value is ints[i] when its
	// kind is KindInt, strs[i] when it is KindString. Both slices may be
	// reused by the next call of Next.
	Typed() (ints []int64, strs []string)
}

// Kind is the kind of a TypedRowSource's column.
type Kind uint8

// The kinds of a TypedRowSource's columns.
const (
	KindInt Kind = iota
	KindString
)

// TypedRow is one row in typed slots, for a generator that yields its rows
// both ways (TypedRowSource's Typed and RowSource's Values) from one fill.
type TypedRow struct {
	kinds []Kind
	Ints  []int64
	Strs  []string
	vals  []any
}

// NewTypedRow returns a row of columns of the given kinds.
func NewTypedRow(kinds []Kind) *TypedRow {
	return &TypedRow{kinds: kinds, Ints: make([]int64, len(kinds)), Strs: make([]string, len(kinds)),
		vals: make([]any, len(kinds))}
}

// Kinds returns the columns' kinds.
func (r *TypedRow) Kinds() []Kind { return r.kinds }

// Typed returns the row's slots.
func (r *TypedRow) Typed() ([]int64, []string) { return r.Ints, r.Strs }

// Values boxes the row for RowSource's readers; the slice is reused.
func (r *TypedRow) Values() []any {
	for i, k := range r.kinds {
		if k == KindInt {
			r.vals[i] = boxInt(r.Ints[i])
		} else if s, ok := r.vals[i].(string); !ok || s != r.Strs[i] {
			// Boxing a string allocates; a column that repeats the
			// previous row's value (a constant, a frequent pick) keeps it.
			r.vals[i] = r.Strs[i]
		}
	}
	return r.vals
}

// smallInts are 0…4095 boxed once: Go boxes only 0…255 without allocating,
// and generated rows are full of small counts, codes and flags.
var smallInts = func() (a [4096]any) {
	for i := range a {
		a[i] = int64(i)
	}
	return a
}()

func boxInt(n int64) any {
	if n >= 0 && n < int64(len(smallInts)) {
		return smallInts[n]
	}
	return n
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

// Redacted returns the URL with any password replaced, for storage and display.
// Strings that are not URLs (libpq keyword/value, unparseable hosts) are redacted too.
func Redacted(rawURL string) string {
	u, err := url.Parse(rawURL)
	if err != nil || (u.Scheme == "" && u.User == nil) {
		return redact.ByPlace(rawURL)
	}
	if u.User != nil {
		if _, has := u.User.Password(); has {
			u.User = url.UserPassword(u.User.Username(), "xxxxx")
		}
	}
	q := u.Query()
	changed := false
	for k := range q {
		if secretKey(k) {
			q.Set(k, "xxxxx")
			changed = true
		}
	}
	if changed {
		u.RawQuery = q.Encode()
	}
	return u.String()
}

// secretKey reports whether a URL query parameter holds a secret: a
// password, a token, or an API key (OpenSearch's and Elasticsearch's
// api_key).
func secretKey(k string) bool {
	lk := strings.ToLower(k)
	return strings.Contains(lk, "password") || strings.Contains(lk, "token") || strings.Contains(lk, "secret") ||
		strings.Contains(lk, "api_key") || strings.Contains(lk, "apikey")
}

// Secrets returns the secrets a target URL or connection string carries, so that
// they can be scrubbed from every message.
func Secrets(raw string) []string {
	var out []string
	if u, err := url.Parse(raw); err == nil && (u.Scheme != "" || u.User != nil) {
		if u.User != nil {
			if p, ok := u.User.Password(); ok {
				out = append(out, p, url.QueryEscape(p), url.PathEscape(p))
			}
		}
		for k, vs := range u.Query() {
			if secretKey(k) {
				out = append(out, vs...)
			}
		}
		return out
	}
	for _, m := range redact.Userinfo.FindAllStringSubmatch(raw, -1) {
		out = append(out, m[2])
		if dec, err := url.PathUnescape(m[2]); err == nil {
			out = append(out, dec)
		}
	}
	for _, m := range redact.Keyword.FindAllStringSubmatch(raw, -1) {
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

// CheckParams refuses a URL query that names a parameter not in known (name
// → what it takes) or gives one twice, so that a typo never silently changes
// a benchmark. The error lists the supported names.
func CheckParams(q url.Values, known map[string]string) error {
	for k, vs := range q {
		if _, ok := known[k]; !ok {
			names := make([]string, 0, len(known))
			for n := range known {
				names = append(names, n)
			}
			sort.Strings(names)
			return fmt.Errorf("unsupported parameter %q (supported: %s)", k, strings.Join(names, ", "))
		}
		if len(vs) != 1 {
			return fmt.Errorf("parameter %q given %d times", k, len(vs))
		}
	}
	return nil
}

// CAPool reads a PEM file of CA certificates (a URL's ca, ca_file, ssl-ca),
// the error naming the file as key says it.
func CAPool(key, file string) (*x509.CertPool, error) {
	pem, err := boundfile.Read(file, 16<<20, "a PEM file of CA certificates")
	if err != nil {
		return nil, fmt.Errorf("%s: cannot read: %w", key, err)
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(pem) {
		return nil, fmt.Errorf("%s %s holds no PEM certificate", key, file)
	}
	return pool, nil
}

// BoolParam reads a URL's true/false parameter, def when absent.
func BoolParam(q url.Values, name string, def bool) (bool, error) {
	v := q.Get(name)
	if v == "" {
		return def, nil
	}
	b, err := strconv.ParseBool(v)
	if err != nil {
		return false, fmt.Errorf("%s=%q: use true or false", name, v)
	}
	return b, nil
}
