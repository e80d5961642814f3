// Package mysql is fairbench's MySQL and MariaDB driver, built on
// go-sql-driver/mysql. It maps the query modes onto the two MySQL protocols
// (server-side prepared statements, as sysbench uses by default, or the text
// protocol with parameters interpolated on the client), handles TLS with version
// and cipher pinning, loads data with multi-row INSERTs, and records the server's
// version, non-default variables and the TLS version and cipher in use. On a
// plaintext connection it sends the prepared statements itself (wire.go).
package mysql

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"net"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	gomysql "github.com/go-sql-driver/mysql"

	"github.com/fairbench/fairbench/internal/driver"
	"github.com/fairbench/fairbench/internal/driver/sqldb"
	"github.com/fairbench/fairbench/internal/fastpath"
	"github.com/fairbench/fairbench/internal/redact"
	"github.com/fairbench/fairbench/internal/result"
)

func init() { driver.Register(Driver{}, "mysql://") }

// defaultConnectTimeout bounds connecting when the URL sets no timeout.
const defaultConnectTimeout = 5 * time.Second

// Driver opens MySQL/MariaDB connections.
type Driver struct{}

// Name implements driver.Driver.
func (Driver) Name() string { return "mysql" }

// Open implements driver.Driver; each session is one connection. Query modes:
// "prepared" (the default for MySQL, as sysbench's --db-ps-mode=auto) and
// "extended" use server-side prepared statements; "simple" sends text with the
// parameters interpolated by the client.
func (Driver) Open(ctx context.Context, t driver.Target, opts driver.Options) (driver.Client, error) {
	mode := opts.QueryMode
	switch mode {
	case "":
		mode = "prepared"
	case "simple", "extended", "prepared":
	default:
		return nil, fmt.Errorf("query mode %q is not one of simple, extended, prepared", opts.QueryMode)
	}
	cfg, err := ParseURL(t.URL)
	if err != nil {
		return nil, err
	}
	if _, err := cfg.driverConfig(mode == "simple"); err != nil {
		return nil, fmt.Errorf("MySQL URL %s: %w", driver.Redacted(t.URL), err)
	}
	return &client{driver.NewConnClient(func(ctx context.Context) (driver.Conn, error) {
		return connect(ctx, t, cfg, mode)
	}, false)}, nil
}

// connect opens one connection.
func connect(ctx context.Context, t driver.Target, cfg Config, mode string) (driver.Conn, error) {
	mc, err := cfg.driverConfig(mode == "simple")
	if err != nil {
		return nil, fmt.Errorf("MySQL URL %s: %w", driver.Redacted(t.URL), err)
	}
	conn := &conn{cfg: cfg, mode: mode}
	// The connection's socket is kept so that a cancelled context can close it
	// (see detach).
	conn.blocking = fastpath.Enabled()
	mc.DialFunc = func(ctx context.Context, network, addr string) (net.Conn, error) {
		var nc net.Conn
		var err error
		if conn.blocking {
			nc, err = fastpath.Dial(ctx, network, addr)
		} else {
			nc, err = (&net.Dialer{KeepAlive: 30 * time.Second}).DialContext(ctx, network, addr)
		}
		if err == nil {
			conn.nc.Store(&nc)
		}
		return nc, err
	}
	connector, err := gomysql.NewConnector(mc)
	if err != nil {
		return nil, fmt.Errorf("MySQL URL %s: %s", driver.Redacted(t.URL), scrub(err.Error(), cfg.Password))
	}
	db := sql.OpenDB(connector)
	// go-sql-driver's timeout bounds the dial only: the handshake and the
	// first statements are bounded by the attempt's context.
	server := "MySQL server " + net.JoinHostPort(cfg.Host, cfg.Port)
	att, cancel := driver.StartConnecting(ctx, cfg.Timeout, "timeout")
	defer cancel()
	pool, err := sqldb.Open(att.Context(), db)
	if err != nil {
		if e := att.Explain(err, server); e != nil {
			return nil, e
		}
		return nil, errors.New(scrub(connectError(err, cfg), cfg.Password))
	}
	conn.pool, conn.c = pool, pool.C
	if mode != "simple" && wireEnabled() {
		if err := conn.startWire(att.Context()); err != nil {
			conn.Close(ctx)
			if e := att.Explain(err, server); e != nil {
				return nil, e
			}
			return nil, fmt.Errorf("%s: %s", server, scrub(err.Error(), cfg.Password))
		}
	}
	return conn, nil
}

// startWire moves the connection's prepared statements to the wire path
// (wire.go) unless TLS is in use, whose bytes only go-sql-driver can write.
func (c *conn) startWire(ctx context.Context) error {
	nc := c.nc.Load()
	if nc == nil {
		return nil
	}
	if c.cfg.TLSMode != "false" {
		var name, cipher string
		err := c.c.QueryRowContext(ctx, "SHOW SESSION STATUS LIKE 'Ssl_cipher'").Scan(&name, &cipher)
		if err != nil && !errors.Is(err, sql.ErrNoRows) {
			return fmt.Errorf("reading TLS status: %w", err)
		}
		if cipher != "" {
			return nil
		}
	}
	w, err := newWire(*nc)
	if err != nil {
		return fmt.Errorf("preparing a statement: %w", err)
	}
	c.wire = w
	return nil
}

// connectError turns the library's message into one line a user acts on.
func connectError(err error, cfg Config) string {
	addr := net.JoinHostPort(cfg.Host, cfg.Port)
	var me *gomysql.MySQLError
	switch {
	case errors.Is(err, gomysql.ErrNoTLS):
		return fmt.Sprintf("MySQL server %s does not offer TLS, but the URL requires it (tls=%s); use tls=preferred to allow plaintext", addr, cfg.TLSMode)
	case errors.As(err, &me):
		return fmt.Sprintf("MySQL server %s refused: %s (error %d)", addr, me.Message, me.Number)
	case errors.Is(err, context.DeadlineExceeded):
		return fmt.Sprintf("timed out connecting to MySQL server %s", addr)
	}
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		return fmt.Sprintf("timed out connecting to MySQL server %s: %v", addr, err)
	}
	msg := err.Error()
	if strings.Contains(msg, "tls:") || strings.Contains(msg, "x509:") {
		return fmt.Sprintf("TLS handshake with MySQL server %s failed: %s", addr, msg)
	}
	return fmt.Sprintf("connecting to MySQL server %s: %s", addr, msg)
}

// scrub keeps the password out of a message (redact.List's rule).
func scrub(msg, password string) string {
	if password == "" {
		return msg
	}
	return redact.List{password}.Scrub(msg)
}

// conn is one MySQL connection.
type conn struct {
	pool *sqldb.Conn
	c    *sql.Conn // pool.C
	cfg  Config
	mode string
	nc   atomic.Pointer[net.Conn]
	// blocking: the socket blocks an OS thread per read (package sockets).
	blocking bool
	// wire runs the prepared statements when not nil (wire.go).
	wire *wire
}

// BlocksThread implements fastpath.ThreadPerClient.
func (c *conn) BlocksThread() bool { return c.blocking }

// detach returns a context the driver cannot see being cancelled, and closes
// the socket itself if ctx is cancelled while a statement runs. go-sql-driver
// hands every statement with a cancellable context to a watcher goroutine (two
// goroutine hand-offs per statement); context.AfterFunc costs a map insert.
func (c *conn) detach(ctx context.Context) (context.Context, func() bool) {
	if ctx.Done() == nil {
		return ctx, noStop
	}
	return context.WithoutCancel(ctx), context.AfterFunc(ctx, c.Interrupt)
}

func noStop() bool { return true }

// Multiplex implements fastpath.Multiplexer. go-sql-driver reads and writes
// only on the goroutine that runs a statement (no background reader, and no
// context watcher for the runner's uncancellable contexts), so its connection
// can run on a loop as it is.
func (c *conn) Multiplex(ctx context.Context) (*fastpath.Conn, error) {
	if nc := c.nc.Load(); nc != nil {
		if sc, ok := (*nc).(*fastpath.Conn); ok {
			return sc, nil
		}
	}
	return nil, errors.New("this connection does not use fairbench's sockets (FAIRBENCH_NET=netpoll)")
}

// Interrupt implements driver.Interrupter by closing the socket.
func (c *conn) Interrupt() {
	if nc := c.nc.Load(); nc != nil {
		(*nc).Close()
	}
}

// Close implements driver.Conn.
func (c *conn) Close(ctx context.Context) error {
	return c.pool.Close()
}

// Dialect implements driver.SQL.
func (c *conn) Dialect() string { return "mysql" }

// ClientPath implements driver.Path: the path the prepared statements take.
func (c *conn) ClientPath() string {
	if c.wire != nil {
		return "wire (COM_STMT_PREPARE/EXECUTE)"
	}
	return "go-sql-driver"
}

// Query implements driver.SQL through go-sql-driver.
func (c *conn) Query(ctx context.Context, q string, args ...any) (driver.Rows, error) {
	q, err := Rewrite(q)
	if err != nil {
		return nil, err
	}
	return sqldb.NewRows(c.c.QueryContext(ctx, q, args...))
}

// Exec implements driver.SQL: the text protocol, no parameters.
func (c *conn) Exec(ctx context.Context, q string) error {
	ctx, stop := c.detach(ctx)
	defer stop()
	_, err := c.c.ExecContext(ctx, q)
	return err
}

// QueryInt64 implements driver.SQL.
func (c *conn) QueryInt64(ctx context.Context, q string, args ...any) (int64, error) {
	q, err := Rewrite(q)
	if err != nil {
		return 0, err
	}
	var v sql.NullInt64
	err = c.c.QueryRowContext(ctx, q, args...).Scan(&v)
	return v.Int64, err
}

// Rewrite turns the $1..$n placeholders fairbench's workloads write into MySQL's
// positional ?. MySQL binds by position only, so each $i must appear once and in
// order; anything else is rejected rather than silently bound to the wrong value.
// Quoted strings and identifiers are left alone.
func Rewrite(q string) (string, error) {
	if !strings.Contains(q, "$") {
		return q, nil
	}
	var b strings.Builder
	b.Grow(len(q))
	next := 1
	var quote byte
	for i := 0; i < len(q); i++ {
		ch := q[i]
		if quote != 0 {
			b.WriteByte(ch)
			if ch == '\\' && quote != '`' && i+1 < len(q) {
				i++
				b.WriteByte(q[i])
			} else if ch == quote {
				quote = 0
			}
			continue
		}
		switch {
		case ch == '\'' || ch == '"' || ch == '`':
			quote = ch
			b.WriteByte(ch)
		case ch == '$' && i+1 < len(q) && q[i+1] >= '0' && q[i+1] <= '9':
			j := i + 1
			for j < len(q) && q[j] >= '0' && q[j] <= '9' {
				j++
			}
			n, _ := strconv.Atoi(q[i+1 : j])
			if n != next {
				return "", fmt.Errorf("placeholder $%d where $%d was expected: MySQL binds parameters by position, so they must appear once each, in order: %s", n, next, q)
			}
			next++
			b.WriteByte('?')
			i = j - 1
		default:
			b.WriteByte(ch)
		}
	}
	return b.String(), nil
}

// erUnsupportedPS is ER_UNSUPPORTED_PS: the statement cannot be prepared on the
// server (BEGIN on some versions). sysbench falls back to the text protocol for
// such statements, and so do we.
const erUnsupportedPS = 1295

// Prepare implements driver.SQL.
func (c *conn) Prepare(ctx context.Context, q string) (driver.Stmt, error) {
	q, err := Rewrite(q)
	if err != nil {
		return nil, err
	}
	if c.mode == "simple" {
		return &textStmt{conn: c, q: q}, nil
	}
	var st driver.Stmt
	if c.wire != nil {
		_, stop := c.detach(ctx)
		defer stop()
		var ws *wireStmt
		if ws, err = c.wire.prepare(q); err == nil {
			st = &wirePreparedStmt{conn: c, s: ws, q: q}
		}
	} else {
		var ps *sql.Stmt
		if ps, err = c.pool.Prepare(ctx, q); err == nil {
			st = &preparedStmt{conn: c, s: ps}
		}
	}
	var me *gomysql.MySQLError
	if errors.As(err, &me) && me.Number == erUnsupportedPS {
		return &textStmt{conn: c, q: q}, nil
	}
	return st, err
}

type textStmt struct {
	conn *conn
	q    string
}

func (s *textStmt) Exec(ctx context.Context, args ...any) error {
	ctx, stop := s.conn.detach(ctx)
	defer stop()
	_, err := s.conn.c.ExecContext(ctx, s.q, args...)
	return err
}

func (s *textStmt) QueryInt64(ctx context.Context, args ...any) (int64, error) {
	ctx, stop := s.conn.detach(ctx)
	defer stop()
	var v sql.NullInt64
	err := s.conn.c.QueryRowContext(ctx, s.q, args...).Scan(&v)
	return v.Int64, err
}

func (s *textStmt) Query(ctx context.Context, args ...any) (driver.Rows, error) {
	return sqldb.NewRows(s.conn.c.QueryContext(ctx, s.q, args...))
}

type preparedStmt struct {
	conn *conn
	s    *sql.Stmt
}

// Exec runs the statement as a query and discards the rows: go-sql-driver
// 1.10.1's Stmt.Exec skips one packet per result column even when MariaDB left
// the column definitions out (cached metadata), so a SELECT that returns fewer
// rows than it has columns waits forever for packets that never come. Its
// Query path reads the same reply right.
func (s *preparedStmt) Exec(ctx context.Context, args ...any) error {
	ctx, stop := s.conn.detach(ctx)
	defer stop()
	rows, err := s.s.QueryContext(ctx, args...)
	if err != nil {
		return err
	}
	if err := rows.Close(); err != nil {
		return err
	}
	return rows.Err()
}

func (s *preparedStmt) Query(ctx context.Context, args ...any) (driver.Rows, error) {
	return sqldb.NewRows(s.s.QueryContext(ctx, args...))
}

func (s *preparedStmt) QueryInt64(ctx context.Context, args ...any) (int64, error) {
	ctx, stop := s.conn.detach(ctx)
	defer stop()
	var v sql.NullInt64
	err := s.s.QueryRowContext(ctx, args...).Scan(&v)
	return v.Int64, err
}

// wirePreparedStmt runs on the wire path (wire.go); arguments of a type it
// does not encode go through go-sql-driver, prepared for them on first use.
type wirePreparedStmt struct {
	conn     *conn
	s        *wireStmt
	q        string
	fallback *preparedStmt
}

func (s *wirePreparedStmt) run(ctx context.Context, args []any, scan bool) (int64, error) {
	if s.fallback == nil {
		_, stop := s.conn.detach(ctx)
		r, err := s.conn.wire.execute(s.s, args, scan)
		stop()
		if !errors.Is(err, errUnsupportedArg) {
			if err == nil && scan && !r.hasRow {
				err = sql.ErrNoRows // as database/sql's Scan
			}
			return r.first, err
		}
		st, err := s.conn.pool.Prepare(ctx, s.q)
		if err != nil {
			return 0, err
		}
		s.fallback = &preparedStmt{conn: s.conn, s: st}
	}
	if scan {
		return s.fallback.QueryInt64(ctx, args...)
	}
	return 0, s.fallback.Exec(ctx, args...)
}

func (s *wirePreparedStmt) Query(ctx context.Context, args ...any) (driver.Rows, error) {
	if s.fallback == nil {
		rows, err := s.conn.wire.query(s.s, args)
		if !errors.Is(err, errUnsupportedArg) {
			return rows, err
		}
		st, err := s.conn.pool.Prepare(ctx, s.q)
		if err != nil {
			return nil, err
		}
		s.fallback = &preparedStmt{conn: s.conn, s: st}
	}
	return s.fallback.Query(ctx, args...)
}

func (s *wirePreparedStmt) Exec(ctx context.Context, args ...any) error {
	_, err := s.run(ctx, args, false)
	return err
}

func (s *wirePreparedStmt) QueryInt64(ctx context.Context, args ...any) (int64, error) {
	return s.run(ctx, args, true)
}

// MySQL and MariaDB error numbers the classifier knows.
var errorClasses = map[uint16]result.ErrorClass{
	1213: result.ErrDeadlock,   // ER_LOCK_DEADLOCK
	1205: result.ErrBusy,       // ER_LOCK_WAIT_TIMEOUT
	1062: result.ErrConstraint, // ER_DUP_ENTRY
	1586: result.ErrConstraint, // ER_DUP_ENTRY_WITH_KEY_NAME
	1451: result.ErrConstraint, // ER_ROW_IS_REFERENCED_2
	1452: result.ErrConstraint, // ER_NO_REFERENCED_ROW_2
	1216: result.ErrConstraint, // ER_NO_REFERENCED_ROW
	1217: result.ErrConstraint, // ER_ROW_IS_REFERENCED
	1048: result.ErrConstraint, // ER_BAD_NULL_ERROR
	3819: result.ErrConstraint, // ER_CHECK_CONSTRAINT_VIOLATED (MySQL)
	4025: result.ErrConstraint, // ER_CONSTRAINT_FAILED (MariaDB)
	3024: result.ErrTimeout,    // ER_QUERY_TIMEOUT (MySQL max_execution_time)
	1969: result.ErrTimeout,    // ER_STATEMENT_TIMEOUT (MariaDB max_statement_time)
	1040: result.ErrThrottled,  // ER_CON_COUNT_ERROR: too many connections
	1203: result.ErrThrottled,  // ER_TOO_MANY_USER_CONNECTIONS
	1226: result.ErrThrottled,  // ER_USER_LIMIT_REACHED (max_queries_per_hour, ...)
	1053: result.ErrConnection, // ER_SERVER_SHUTDOWN
	1927: result.ErrConnection, // ER_CONNECTION_KILLED
	2006: result.ErrConnection, // CR_SERVER_GONE_ERROR
	2013: result.ErrConnection, // CR_SERVER_LOST
}

// Classify implements driver.Conn.
func (c *conn) Classify(err error) result.ErrorClass {
	var me *gomysql.MySQLError
	if errors.As(err, &me) {
		if cl, ok := errorClasses[me.Number]; ok {
			return cl
		}
		return result.ErrOther
	}
	if errors.Is(err, context.DeadlineExceeded) {
		return result.ErrTimeout
	}
	var ne net.Error
	if errors.Is(err, sqlBadConn) || errors.Is(err, gomysql.ErrInvalidConn) || errors.Is(err, sql.ErrConnDone) ||
		errors.As(err, &ne) || errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		return result.ErrConnection
	}
	return result.ErrOther
}

// ConnectionLimit implements driver.ConnectionLimiter: max_connections less
// the connections open now other than this one, and at most
// max_user_connections when that is set.
func (c *conn) ConnectionLimit(ctx context.Context) (int, string, error) {
	maxConn, err := c.QueryInt64(ctx, "SELECT @@max_connections")
	if err != nil {
		return 0, "", err
	}
	// Threads_connected counts every client, whatever this user may see of
	// the process list (MariaDB: information_schema; MySQL 8: performance_schema).
	var open int64 = -1
	for _, q := range []string{
		"SELECT variable_value FROM information_schema.global_status WHERE variable_name = 'THREADS_CONNECTED'",
		"SELECT variable_value FROM performance_schema.global_status WHERE variable_name = 'Threads_connected'",
	} {
		if n, err := c.QueryInt64(ctx, q); err == nil {
			open = n
			break
		}
	}
	if open < 0 {
		return 0, "", errors.New("Threads_connected is not readable")
	}
	avail := maxConn - (open - 1)
	detail := fmt.Sprintf("max_connections %d − %d in use", maxConn, open-1)
	if perUser, err := c.QueryInt64(ctx, "SELECT @@max_user_connections"); err == nil && perUser > 0 && perUser < avail {
		avail = perUser
		detail = fmt.Sprintf("max_user_connections %d", perUser)
	}
	return int(max(avail, 0)), detail, nil
}

// Offers says what this driver's sessions speak, for validate.
func (Driver) Offers() []driver.Family { return []driver.Family{driver.FamilySQL} }
