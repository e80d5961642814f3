// Package postgres is fairbench's PostgreSQL driver, built on pgx. It maps
// pgbench's query modes onto pgx's execution modes, loads data through text COPY
// (the path pgbench -i uses), and records the server's version, non-default
// settings, the TLS version and cipher of the live connection, and the
// connection pooler it goes through, if any (pooler.go).
package postgres

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgtype"

	"github.com/fairbench/fairbench/internal/driver"
	"github.com/fairbench/fairbench/internal/fastpath"
	"github.com/fairbench/fairbench/internal/redact"
	"github.com/fairbench/fairbench/internal/result"
)

func init() { driver.Register(Driver{}, "postgres://", "postgresql://") }

// defaultConnectTimeout bounds connecting when the URL sets no connect_timeout, so an
// unreachable host fails in seconds rather than after the kernel's TCP timeout.
const defaultConnectTimeout = 5 * time.Second

// Driver opens PostgreSQL connections.
type Driver struct{}

// Name implements driver.Driver.
func (Driver) Name() string { return "postgres" }

// execModes maps pgbench's -M values onto pgx: simple substitutes parameters on the
// client like pgbench's simple mode; extended sends an unnamed statement with each
// execution in one round trip (PQexecParams); prepared uses named statements.
var execModes = map[string]pgx.QueryExecMode{
	"":         pgx.QueryExecModeSimpleProtocol,
	"simple":   pgx.QueryExecModeSimpleProtocol,
	"extended": pgx.QueryExecModeExec,
	"prepared": pgx.QueryExecModeCacheStatement,
}

// Open implements driver.Driver: the URL is parsed, and its TLS configuration
// built, once; each session is one connection. Credentials come from the URL,
// the PG* environment variables or the password file, as libpq reads them (pgx
// does this).
func (Driver) Open(ctx context.Context, t driver.Target, opts driver.Options) (driver.Client, error) {
	mode, ok := execModes[opts.QueryMode]
	if !ok {
		return nil, fmt.Errorf("query mode %q is not one of simple, extended, prepared", opts.QueryMode)
	}
	cfg, err := pgx.ParseConfig(t.URL)
	if err != nil {
		return nil, fmt.Errorf("bad PostgreSQL URL %s: %s", driver.Redacted(t.URL), scrub(err.Error(), t.URL))
	}
	if cfg.ConnectTimeout == 0 {
		cfg.ConnectTimeout = defaultConnectTimeout
	}
	cfg.DefaultQueryExecMode = mode
	return &client{driver.NewConnClient(func(ctx context.Context) (driver.Conn, error) {
		return connect(ctx, t, cfg.Copy(), opts.QueryMode)
	}, false)}, nil
}

// connect opens one connection with its own copy of the parsed configuration.
func connect(ctx context.Context, t driver.Target, cfg *pgx.ConnConfig, mode string) (driver.Conn, error) {
	// The configuration as parsed, before the dial function below: what
	// another connection to the same server (a pooler's console) starts from.
	conn := &Conn{mode: mode, blocking: fastpath.Enabled(), cfg: cfg.Copy(), url: t.URL}
	if conn.blocking {
		cfg.DialFunc = func(ctx context.Context, network, addr string) (net.Conn, error) {
			nc, err := fastpath.Dial(ctx, network, addr)
			if sc, ok := nc.(*fastpath.Conn); ok {
				conn.sock = sc // pgx may wrap it in TLS; the loop needs the socket itself
			}
			return nc, err
		}
	}
	// Statements are prepared explicitly by name in prepared mode; no hidden caching otherwise.
	cfg.StatementCacheCapacity = 512
	cfg.DescriptionCacheCapacity = 0
	// The attempt is bounded here rather than by pgx, whose timeout closes the
	// socket and reports only "unexpected EOF".
	att, cancel := driver.StartConnecting(ctx, cfg.ConnectTimeout, "connect_timeout (seconds)")
	defer cancel()
	cfg.ConnectTimeout = 0
	c, err := pgx.ConnectConfig(att.Context(), cfg)
	if err != nil {
		if e := att.Explain(err, "PostgreSQL server "+net.JoinHostPort(cfg.Host, strconv.Itoa(int(cfg.Port)))); e != nil {
			return nil, e
		}
		return nil, errors.New(scrub(connectError(err), t.URL))
	}
	conn.c, conn.password = c, cfg.Password
	return conn, nil
}

// connectError keeps the part of pgx's message a user acts on.
func connectError(err error) string {
	msg := err.Error()
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) {
		return fmt.Sprintf("server refused: %s (SQLSTATE %s)", pgErr.Message, pgErr.Code)
	}
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		msg = "timed out connecting: " + msg
	}
	return oneLine(msg)
}

// oneLine folds pgx's multi-line report (one line per address and TLS attempt)
// into one line, dropping repeated attempts.
func oneLine(msg string) string {
	var parts []string
	seen := map[string]bool{}
	for _, l := range strings.Split(msg, "\n") {
		l = strings.TrimSpace(l)
		if l == "" || seen[l] {
			continue
		}
		seen[l] = true
		parts = append(parts, strings.TrimSuffix(l, ":"))
	}
	return strings.Join(parts, ": ")
}

// scrub removes the URL's password from a message, in case a library echoes it.
func scrub(msg, rawURL string) string {
	if cfg, err := pgconn.ParseConfig(rawURL); err == nil && cfg.Password != "" {
		return redact.List{cfg.Password}.Scrub(msg)
	}
	return msg
}

// Conn is one PostgreSQL connection.
type Conn struct {
	c        *pgx.Conn
	mode     string
	password string
	blocking bool
	sock     *fastpath.Conn // the socket under c, when fairbench's sockets are in use
	// wire, once set (Multiplex), runs every statement instead of pgx, which
	// no longer owns the connection.
	wire *wire
	// prepared counts the statements prepared on the connection; it numbers
	// their names.
	prepared int
	// cfg and url are what the connection was opened with (pooler.go opens
	// another with them); url only to scrub its password from messages.
	cfg *pgx.ConnConfig
	url string
}

// errMultiplexed: what a session taken over for the wire path cannot do.
var errMultiplexed = errors.New("this session runs on fairbench's wire path: use another session for COPY and environment queries")

// BlocksThread implements fastpath.ThreadPerClient.
func (c *Conn) BlocksThread() bool { return c.blocking }

// Interrupt implements driver.Interrupter: a deadline in the past wakes a read
// blocked on either kind of socket (package sockets shuts it down), as pgx's own
// context watch would.
func (c *Conn) Interrupt() {
	if c.wire != nil {
		_ = c.wire.nc.SetDeadline(time.Unix(1, 0))
		return
	}
	_ = c.c.PgConn().Conn().SetDeadline(time.Unix(1, 0))
}

// Close implements driver.Conn.
func (c *Conn) Close(ctx context.Context) error {
	if c.wire != nil {
		return c.wire.close()
	}
	return c.c.Close(ctx)
}

// Dialect implements driver.SQL.
func (c *Conn) Dialect() string { return "postgres" }

// ClientPath implements driver.Path: pgx, or the wire path once the session
// is on fairbench's fast path (Multiplex).
func (c *Conn) ClientPath() string {
	if c.wire != nil {
		return "wire (pgproto3 messages)"
	}
	return "pgx"
}

// Query implements driver.SQL.
func (c *Conn) Query(ctx context.Context, sql string, args ...any) (driver.Rows, error) {
	if c.wire != nil {
		st := &stmt{conn: c, sql: sql}
		return st.Query(ctx, args...)
	}
	return c.pgxQuery(ctx, sql, args)
}

// pgxQuery runs a query through pgx with every result column in text, the
// form the wire path reads too, so that both scan alike (rows.go).
func (c *Conn) pgxQuery(ctx context.Context, sql string, args []any) (driver.Rows, error) {
	all := make([]any, 0, len(args)+1)
	all = append(all, pgx.QueryResultFormats{pgx.TextFormatCode})
	rows, err := c.c.Query(ctx, sql, append(all, args...)...)
	if err != nil {
		return nil, err
	}
	return &pgxRows{rows: rows}, nil
}

// Exec implements driver.SQL: always the simple protocol, so that multi-statement
// maintenance commands (VACUUM, DDL) work in every query mode.
func (c *Conn) Exec(ctx context.Context, sql string) error {
	if c.wire != nil {
		return c.wire.simple(sql)
	}
	_, err := c.c.Exec(ctx, sql, pgx.QueryExecModeSimpleProtocol)
	return err
}

// QueryInt64 implements driver.SQL.
func (c *Conn) QueryInt64(ctx context.Context, sql string, args ...any) (int64, error) {
	if c.wire != nil {
		st := &stmt{conn: c, sql: sql}
		if !st.encode(args) {
			return 0, unsupportedArgs(args)
		}
		return c.wire.queryInt64("", sql, args, st.params)
	}
	var v pgtype.Int8
	err := c.c.QueryRow(ctx, sql, args...).Scan(&v)
	return v.Int64, err
}

// Prepare implements driver.SQL. In prepared mode the statement is prepared on the
// server and executed with Bind/Describe/Execute, the messages of libpq's
// PQexecPrepared. Its name is short, as pgbench's P_0, P_1…: the server hashes
// the name on every Bind (pgx's own names are 53 characters), and a statement's
// text would be cut at 63 characters, so two long statements could collide.
func (c *Conn) Prepare(ctx context.Context, sql string) (driver.Stmt, error) {
	st := &stmt{conn: c, sql: sql, textParams: c.mode == "extended" || c.mode == "prepared"}
	if c.mode != "prepared" {
		return st, nil
	}
	name := "fb_" + strconv.Itoa(c.prepared)
	c.prepared++
	if c.wire != nil {
		if err := c.wire.prepare(name, sql); err != nil {
			return nil, err
		}
		st.sd = &pgconn.StatementDescription{Name: name, SQL: sql}
	} else {
		sd, err := c.c.Prepare(ctx, name, sql)
		if err != nil {
			return nil, err
		}
		st.sd = sd
	}
	return st, nil
}

// stmt runs one statement. In the extended and prepared modes it goes to pgconn
// with text parameters and text results, as pgbench does through libpq
// (PQexecParams, PQexecPrepared): pgx's generic layer above it — type planning,
// the rows wrapper, a statement cache lookup — cost about a fifth of the client's
// CPU per select-only transaction (bench/README.md). Arguments of other types than
// the workloads pass, and the simple mode (parameters interpolated on the client),
// take pgx's path.
type stmt struct {
	conn       *Conn
	sql        string
	textParams bool                         // extended or prepared mode: the pgconn path may run it
	sd         *pgconn.StatementDescription // prepared mode

	params [][]byte // the current arguments as text, slices of buf
	buf    []byte
	ends   []int // end of each argument in buf, -1 for NULL
}

// encode renders args as text parameters; false if one has a type it does not know.
func (s *stmt) encode(args []any) bool {
	s.buf, s.ends = s.buf[:0], s.ends[:0]
	for _, a := range args {
		switch v := a.(type) {
		case int64:
			s.buf = strconv.AppendInt(s.buf, v, 10)
		case int:
			s.buf = strconv.AppendInt(s.buf, int64(v), 10)
		case int32:
			s.buf = strconv.AppendInt(s.buf, int64(v), 10)
		case string:
			s.buf = append(s.buf, v...)
		case []byte: // a text value's bytes (YCSB's fields), sent as they are
			s.buf = append(s.buf, v...)
		case float64:
			s.buf = strconv.AppendFloat(s.buf, v, 'g', -1, 64)
		case bool:
			s.buf = strconv.AppendBool(s.buf, v)
		case nil:
			s.ends = append(s.ends, -1)
			continue
		default:
			return false
		}
		s.ends = append(s.ends, len(s.buf))
	}
	s.params = s.params[:0]
	start := 0
	for _, end := range s.ends {
		if end < 0 {
			s.params = append(s.params, nil)
			continue
		}
		s.params = append(s.params, s.buf[start:end:end])
		start = end
	}
	return true
}

// fast starts the statement on pgconn when the mode and arguments allow it.
func (s *stmt) fast(ctx context.Context, args []any) *pgconn.ResultReader {
	if !s.textParams || !s.encode(args) {
		return nil
	}
	if s.sd != nil {
		// ExecPrepared, not ExecStatement: it describes the portal before
		// executing, as libpq's PQexecPrepared does for pgbench.
		return s.conn.c.PgConn().ExecPrepared(ctx, s.sd.Name, s.params, nil, nil)
	}
	return s.conn.c.PgConn().ExecParams(ctx, s.sql, s.params, nil, nil, nil)
}

// onWire runs the statement on the wire path (the connection was multiplexed).
func (s *stmt) onWire(args []any, wantInt bool) (int64, error) {
	if s.conn.wire.mode != "simple" && !s.encode(args) {
		return 0, unsupportedArgs(args)
	}
	name := ""
	if s.sd != nil {
		name = s.sd.Name
	}
	if wantInt {
		return s.conn.wire.queryInt64(name, s.sql, args, s.params)
	}
	_, err := s.conn.wire.exec(name, s.sql, args, s.params, false)
	return 0, err
}

// Query implements driver.Stmt.
func (s *stmt) Query(ctx context.Context, args ...any) (driver.Rows, error) {
	if s.conn.wire != nil {
		if s.conn.wire.mode != "simple" && !s.encode(args) {
			return nil, unsupportedArgs(args)
		}
		name := ""
		if s.sd != nil {
			name = s.sd.Name
		}
		return s.conn.wire.query(name, s.sql, args, s.params)
	}
	if s.sd != nil {
		return s.conn.pgxQuery(ctx, s.sd.Name, args) // pgx runs a statement it prepared by its name
	}
	return s.conn.pgxQuery(ctx, s.sql, args)
}

func (s *stmt) Exec(ctx context.Context, args ...any) error {
	if s.conn.wire != nil {
		_, err := s.onWire(args, false)
		return err
	}
	if rr := s.fast(ctx, args); rr != nil {
		_, err := rr.Close()
		return err
	}
	_, err := s.conn.c.Exec(ctx, s.sql, args...)
	return err
}

func (s *stmt) QueryInt64(ctx context.Context, args ...any) (int64, error) {
	if s.conn.wire != nil {
		return s.onWire(args, true)
	}
	rr := s.fast(ctx, args)
	if rr == nil {
		var v pgtype.Int8
		err := s.conn.c.QueryRow(ctx, s.sql, args...).Scan(&v)
		return v.Int64, err
	}
	var (
		v       int64
		scanErr = pgx.ErrNoRows
	)
	if rr.NextRow() {
		scanErr = nil
		if vals := rr.Values(); len(vals) == 0 {
			scanErr = fmt.Errorf("%s returned no columns", s.sql)
		} else if vals[0] != nil {
			v, scanErr = parseInt(vals[0])
		}
	}
	if _, err := rr.Close(); err != nil {
		return 0, err
	}
	return v, scanErr
}

// parseInt reads a text-format integer column without converting it to a string.
func parseInt(b []byte) (int64, error) {
	neg := len(b) > 0 && b[0] == '-'
	digits := b
	if neg {
		digits = b[1:]
	}
	if len(digits) == 0 || len(digits) > 18 {
		// Empty, or too long to be sure of no overflow: let strconv decide.
		return strconv.ParseInt(string(b), 10, 64)
	}
	var n int64
	for _, d := range digits {
		if d < '0' || d > '9' {
			return 0, fmt.Errorf("column value %q is not an integer", b)
		}
		n = n*10 + int64(d-'0')
	}
	if neg {
		n = -n
	}
	return n, nil
}

// Classify implements driver.Conn.
func (c *Conn) Classify(err error) result.ErrorClass {
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) {
		switch {
		case pgErr.Code == "40001":
			return result.ErrSerialization
		case pgErr.Code == "40P01":
			return result.ErrDeadlock
		case pgErr.Code == "55P03":
			return result.ErrBusy
		case pgErr.Code == "57014":
			return result.ErrTimeout
		case pgErr.Code == "53300":
			// too_many_connections: refused for load, not for what was asked.
			return result.ErrThrottled
		case strings.HasPrefix(pgErr.Code, "23"):
			return result.ErrConstraint
		case strings.HasPrefix(pgErr.Code, "08"), strings.HasPrefix(pgErr.Code, "57P"):
			return result.ErrConnection
		}
		return result.ErrOther
	}
	if errors.Is(err, context.DeadlineExceeded) {
		return result.ErrTimeout
	}
	var ne net.Error
	closed := c.c.IsClosed()
	if c.wire != nil {
		closed = c.wire.broken != nil // pgx reports a hijacked connection as closed
	}
	if errors.As(err, &ne) || closed || errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		return result.ErrConnection
	}
	return result.ErrOther
}

// BulkLoad implements driver.BulkLoader with text COPY. With truncate, the table is
// truncated in the same transaction and loaded WITH (FREEZE), as pgbench -i does,
// so that no later vacuum has to rewrite every page to freeze it.
func (c *Conn) BulkLoad(ctx context.Context, table string, columns []string, rows driver.RowSource, truncate bool) (int64, error) {
	if c.wire != nil {
		return 0, errMultiplexed
	}
	copySQL := fmt.Sprintf("COPY %s (%s) FROM STDIN", pgx.Identifier{table}.Sanitize(), quoteIdents(columns))
	if !truncate {
		tag, err := c.c.PgConn().CopyFrom(ctx, driver.NewTextRowReader(rows), copySQL)
		return tag.RowsAffected(), err
	}
	tx, err := c.c.Begin(ctx)
	if err != nil {
		return 0, err
	}
	defer tx.Rollback(ctx) //nolint:errcheck // after Commit this is a no-op
	if _, err := tx.Exec(ctx, "TRUNCATE TABLE "+pgx.Identifier{table}.Sanitize(), pgx.QueryExecModeSimpleProtocol); err != nil {
		return 0, err
	}
	tag, err := c.c.PgConn().CopyFrom(ctx, driver.NewTextRowReader(rows), copySQL+" WITH (FREEZE ON)")
	if err != nil {
		return 0, err
	}
	return tag.RowsAffected(), tx.Commit(ctx)
}

func quoteIdents(cols []string) string {
	q := make([]string, len(cols))
	for i, col := range cols {
		q[i] = pgx.Identifier{col}.Sanitize()
	}
	return strings.Join(q, ", ")
}

// alwaysReported are settings worth showing even at their defaults, because
// they decide most comparisons.
var alwaysReported = []string{
	"shared_buffers", "effective_cache_size", "work_mem", "max_connections", "synchronous_commit",
	"fsync", "full_page_writes", "wal_level", "max_wal_size", "checkpoint_timeout", "huge_pages",
	"jit", "max_parallel_workers_per_gather", "random_page_cost", "default_transaction_isolation",
}

// Environment implements driver.Environment.
func (c *Conn) Environment(ctx context.Context) (result.Database, error) {
	if c.wire != nil {
		return result.Database{}, errMultiplexed
	}
	var version, dbSize, uptime string
	var dbBytes int64
	err := c.c.QueryRow(ctx, `SELECT version(), pg_size_pretty(pg_database_size(current_database())),
		pg_database_size(current_database()),
		date_trunc('second', now() - pg_postmaster_start_time())::text`, pgx.QueryExecModeSimpleProtocol).Scan(&version, &dbSize, &dbBytes, &uptime)
	if err != nil {
		return result.Database{}, fmt.Errorf("reading server version: %w", err)
	}
	// The size in bytes as well as pretty, so analysis can set the working
	// set against shared_buffers and RAM without parsing the pretty form.
	env := result.Database{Engine: engineName, Version: version, ServerVersion: c.c.PgConn().ParameterStatus("server_version"),
		SizeText: dbSize, SizeBytes: dbBytes}
	env.Set("uptime", uptime)
	rows, err := c.c.Query(ctx, `SELECT name, setting || coalesce(' ' || unit, ''), source
		FROM pg_settings
		WHERE (source NOT IN ('default', 'override', 'client', 'session') OR name = ANY($1))
		  AND name NOT ILIKE '%password%' AND name NOT IN ('ssl_passphrase_command')
		ORDER BY name`, pgx.QueryExecModeSimpleProtocol, alwaysReported)
	if err != nil {
		return result.Database{}, fmt.Errorf("reading pg_settings: %w", err)
	}
	settings := map[string]string{}
	for rows.Next() {
		var name, value, source string
		if err := rows.Scan(&name, &value, &source); err != nil {
			rows.Close()
			return result.Database{}, err
		}
		settings[name] = value
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return result.Database{}, err
	}
	env.Settings = settings
	env.Set("tls", tlsState(c.c.PgConn().Conn()))
	if env.Pooler, err = c.pooler(ctx); err != nil {
		return result.Database{}, err
	}
	return env, nil
}

// tlsState describes the TLS in use on a connection ("none" without TLS).
func tlsState(nc net.Conn) map[string]any {
	tc, ok := nc.(*tls.Conn)
	if !ok {
		return map[string]any{"enabled": false}
	}
	st := tc.ConnectionState()
	return map[string]any{
		"enabled": true,
		"version": tls.VersionName(st.Version),
		"cipher":  tls.CipherSuiteName(st.CipherSuite),
	}
}

// ConnectionLimit implements driver.ConnectionLimiter: max_connections, less
// the slots reserved for superusers (and, from PostgreSQL 16, for roles with
// pg_use_reserved_connections) unless this user is one, less the client
// connections open now other than this one.
func (c *Conn) ConnectionLimit(ctx context.Context) (int, string, error) {
	var vals [4]int64
	for i, q := range []string{
		"SELECT current_setting('max_connections')::bigint",
		"SELECT CASE WHEN rolsuper THEN 0 ELSE current_setting('superuser_reserved_connections')::bigint END FROM pg_catalog.pg_roles WHERE rolname = current_user",
		"SELECT CASE WHEN pg_has_role(current_user, 'pg_use_reserved_connections', 'MEMBER') OR rolsuper THEN 0 ELSE coalesce(nullif(current_setting('reserved_connections', true), '')::bigint, 0) END " +
			"FROM pg_catalog.pg_roles WHERE rolname = current_user",
		"SELECT count(*) - 1 FROM pg_catalog.pg_stat_activity WHERE backend_type = 'client backend'",
	} {
		v, err := c.QueryInt64(ctx, q)
		if err != nil && i == 2 {
			v, err = 0, nil // before PostgreSQL 16: no pg_use_reserved_connections
		}
		if err != nil {
			return 0, "", err
		}
		vals[i] = v
	}
	avail := vals[0] - vals[1] - vals[2] - vals[3]
	detail := fmt.Sprintf("max_connections %d", vals[0])
	if r := vals[1] + vals[2]; r > 0 {
		detail += fmt.Sprintf(" − %d reserved", r)
	}
	detail += fmt.Sprintf(" − %d in use", vals[3])
	return int(max(avail, 0)), detail, nil
}

// Offers says what this driver's sessions speak, for validate.
func (Driver) Offers() []driver.Family { return []driver.Family{driver.FamilySQL} }
