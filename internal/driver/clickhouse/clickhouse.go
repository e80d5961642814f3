// Package clickhouse is fairbench's driver for ClickHouse, for clickhouse://
// and clickhouses:// targets, through the official Go client
// (github.com/ClickHouse/clickhouse-go/v2) and its native protocol.
//
// One connection pool per target serves every session; a session is a handle
// on it, as a ClickHouse client runs one query at a time and needs no
// connection of its own between queries. Sessions implement driver.Analytics
// (a query's rows streamed and counted, with what the server says it read),
// driver.SQL for the statements around a workload (DDL, markers), and
// driver.BulkLoader (native batch INSERT); the client describes the server
// (driver.Environment).
//
// Tests run against Debian's ClickHouse 18.16.1, the only server obtainable
// where fairbench is developed: its native protocol works with the client,
// the client's HTTP mode does not, and INSERT ... VALUES with inline values
// hangs, so rows are only ever written through batches.
package clickhouse

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"reflect"
	"strings"
	"sync"
	"syscall"

	ch "github.com/ClickHouse/clickhouse-go/v2"
	chdriver "github.com/ClickHouse/clickhouse-go/v2/lib/driver"

	"github.com/fairbench/fairbench/internal/driver"
	"github.com/fairbench/fairbench/internal/result"
)

func init() { driver.Register(Driver{}, "clickhouse://", "clickhouses://") }

const clientPath = "clickhouse-go v2 (native protocol)"

// Driver opens ClickHouse clients.
type Driver struct{}

// Name implements driver.Driver.
func (Driver) Name() string { return "clickhouse" }

// Open implements driver.Driver: it parses the URL and pings the server, so
// that a wrong address, TLS setting or credential fails here with the URL
// (redacted) in the message.
func (Driver) Open(ctx context.Context, t driver.Target, _ driver.Options) (driver.Client, error) {
	cfg, err := parseURL(t.URL)
	if err != nil {
		return nil, err
	}
	conn, err := ch.Open(cfg.opts)
	if err != nil {
		return nil, fmt.Errorf("ClickHouse URL %s: %w", cfg.redacted, cfg.secrets.ScrubErr(err))
	}
	att, cancel := driver.StartConnecting(ctx, cfg.opts.DialTimeout, "dial_timeout")
	defer cancel()
	if err := att.Await(conn.Ping, func() { _ = conn.Close() }); err != nil {
		if e := att.Explain(err, "ClickHouse server of "+cfg.redacted); e != nil {
			return nil, e
		}
		return nil, fmt.Errorf("ClickHouse server of %s does not answer: %w (is it running, and do the URL's host, native port (9000 by default, not HTTP's 8123), TLS setting and credentials match it?)",
			cfg.redacted, cfg.secrets.ScrubErr(err))
	}
	return &client{cfg: cfg, conn: conn, ids: newQueryIDs()}, nil
}

// client is one target's shared pool.
type client struct {
	cfg  config
	conn chdriver.Conn
	ids  *queryIDs // the query_id of every session statement (serverview.go)
	driver.ClientState
}

// Session implements driver.Client.
func (c *client) Session(context.Context) (driver.Conn, error) {
	if err := c.CheckOpen(); err != nil {
		return nil, err
	}
	return &conn{c: c}, nil
}

// Close implements driver.Client: it closes the pool.
func (c *client) Close(context.Context) error {
	return c.CloseOnce(func() error { return c.cfg.secrets.ScrubErr(c.conn.Close()) })
}

// conn is one worker's session on the shared pool.
type conn struct {
	c *client
}

// Close implements driver.Conn; the pool stays with the client.
func (s *conn) Close(context.Context) error { return nil }

// Classify implements driver.Conn.
func (s *conn) Classify(err error) result.ErrorClass { return classify(err) }

// ClientPath implements driver.Path.
func (s *conn) ClientPath() string { return clientPath }

// Environment implements driver.Environment (through the client).
func (s *conn) Environment(ctx context.Context) (result.Database, error) { return s.c.Environment(ctx) }

// Analyze implements driver.Analytics.
//
// What the server reports depends on its version. Progress packets carry
// rows and bytes read as increments, summed here into RowsRead and
// BytesRead; 18.16 (protocol revision 54412) sends them but without the
// elapsed time, which servers of revision 54460 (22.x) and later add:
// ServerElapsed stays 0 against 18.16. Rows read count whole blocks
// (numbers(3000000) reads 3014656). Profile info packets
// carry the result's rows and bytes as the server produced them; 18.16
// sends one per query, and its bytes are the result's Bytes (the client's
// decoded columns have no wire size). Profile events packets (per-query
// counters) came with revision 54451 (21.x): 18.16 sends none, so they are
// not asked for.
func (s *conn) Analyze(ctx context.Context, query string, each func(values []any) error) (driver.QueryStats, error) {
	var st driver.QueryStats
	var mu sync.Mutex // the client calls the callbacks from its reading goroutine
	qctx := ch.Context(s.c.ids.tag(ctx),
		ch.WithProgress(func(p *ch.Progress) {
			mu.Lock()
			st.RowsRead += int64(p.Rows)
			st.BytesRead += int64(p.Bytes)
			if p.Elapsed > st.ServerElapsed {
				st.ServerElapsed = p.Elapsed
			}
			mu.Unlock()
		}),
		ch.WithProfileInfo(func(p *ch.ProfileInfo) {
			mu.Lock()
			st.Bytes += int64(p.Bytes)
			mu.Unlock()
		}),
	)
	rows, err := s.c.conn.Query(qctx, query)
	if err != nil {
		return driver.QueryStats{}, s.c.cfg.secrets.ScrubErr(err)
	}
	defer rows.Close()
	var dest, values []any
	if each != nil {
		dest = scanDest(rows.ColumnTypes())
		values = make([]any, len(dest))
	}
	var n int64
	for rows.Next() {
		n++
		if each == nil {
			continue
		}
		if err := rows.Scan(dest...); err != nil {
			return driver.QueryStats{}, s.c.cfg.secrets.ScrubErr(err)
		}
		for i, d := range dest {
			values[i] = reflect.ValueOf(d).Elem().Interface()
		}
		if err := each(values); err != nil {
			return driver.QueryStats{}, err
		}
	}
	if err := rows.Err(); err != nil {
		return driver.QueryStats{}, s.c.cfg.secrets.ScrubErr(err)
	}
	if err := rows.Close(); err != nil {
		return driver.QueryStats{}, s.c.cfg.secrets.ScrubErr(err)
	}
	mu.Lock()
	defer mu.Unlock()
	st.Rows = n
	return st, nil
}

// scanDest returns a pointer per column of the column's Go type.
func scanDest(types []chdriver.ColumnType) []any {
	dest := make([]any, len(types))
	for i, t := range types {
		dest[i] = reflect.New(t.ScanType()).Interface()
	}
	return dest
}

// ClickHouse server error codes that have a class of their own.
const (
	codeTimeoutExceeded     = 159
	codeSocketTimeout       = 209
	codeMemoryLimitExceeded = 241
	codeTooManyQueries      = 202
	codeNetworkError        = 210
	codeUnknownTable        = 60
)

// classify maps a session's error to an error class.
func classify(err error) result.ErrorClass {
	if err == nil {
		return ""
	}
	var ex *ch.Exception
	if errors.As(err, &ex) {
		switch ex.Code {
		case codeTimeoutExceeded, codeSocketTimeout:
			return result.ErrTimeout
		case codeMemoryLimitExceeded, codeTooManyQueries:
			return result.ErrThrottled
		case codeNetworkError:
			return result.ErrConnection
		}
		return result.ErrOther
	}
	if errors.Is(err, context.DeadlineExceeded) || errors.Is(err, ch.ErrAcquireConnTimeout) {
		return result.ErrTimeout
	}
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		return result.ErrTimeout
	}
	if errors.Is(err, driver.ErrClientClosed) || errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) ||
		errors.Is(err, syscall.ECONNREFUSED) || errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.EPIPE) ||
		errors.Is(err, net.ErrClosed) || errors.Is(err, ch.ErrAcquireConnNoAddress) || errors.As(err, &ne) {
		return result.ErrConnection
	}
	if strings.Contains(err.Error(), "connection refused") {
		return result.ErrConnection
	}
	return result.ErrOther
}

// Offers says what this driver's sessions speak, for validate.
func (Driver) Offers() []driver.Family {
	return []driver.Family{driver.FamilySQL, driver.FamilyAnalytics}
}
