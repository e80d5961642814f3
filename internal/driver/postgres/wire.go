package postgres

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"strconv"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgproto3"

	"github.com/fairbench/fairbench/internal/fastpath"
)

// wire runs a worker's statements on a connection taken over from pgx
// (pgconn.Hijack), with pgproto3's message encoding and nothing else: the
// messages pgbench's libpq calls send, written in one flush, and replies read
// until ReadyForQuery. A connection on an event loop (fastpath.Loop) needs it:
// pgconn arms a timer around every write and, when a write takes longer than
// 15 ms, starts a goroutine that reads the socket in the background, which a
// coroutine-driven socket cannot allow. Every read and write here happens on
// the caller's goroutine.
type wire struct {
	nc   net.Conn           // the TLS connection, or the socket itself
	fe   *pgproto3.Frontend // encodes and sends
	in   replies            // receives
	mode string
	// standardStrings: standard_conforming_strings is on, so a quoted literal
	// needs only its quotes doubled (the simple mode's interpolation).
	standardStrings bool
	// broken is the I/O or protocol error after which the connection's state is
	// unknown; every later call fails with it.
	broken error
	sql    []byte // scratch for the simple mode's interpolated statement
}

// Multiplex implements fastpath.Multiplexer: from here on the connection's
// statements run on the wire path, and the returned socket may be attached to
// a loop.
func (c *Conn) Multiplex(ctx context.Context) (*fastpath.Conn, error) {
	if c.sock == nil {
		return nil, errors.New("this connection does not use fairbench's sockets (FAIRBENCH_NET=netpoll)")
	}
	if c.wire != nil {
		return c.sock, nil
	}
	pc := c.c.PgConn()
	if err := pc.SyncConn(ctx); err != nil {
		return nil, err
	}
	hc, err := pc.Hijack()
	if err != nil {
		return nil, err
	}
	c.wire = &wire{
		nc:              hc.Conn,
		fe:              pgproto3.NewFrontend(hc.Conn, hc.Conn),
		in:              replies{r: hc.Conn, buf: make([]byte, 8192)},
		mode:            c.mode,
		standardStrings: hc.ParameterStatuses["standard_conforming_strings"] == "on",
	}
	return c.sock, nil
}

// unsupportedArgs: the wire path renders integers, floats, booleans, strings
// and NULL only (what the workloads pass); pgx, which takes any type, no longer
// owns the connection.
func unsupportedArgs(args []any) error {
	types := make([]string, len(args))
	for i, a := range args {
		types[i] = fmt.Sprintf("%T", a) // the values may be long, or private
	}
	return fmt.Errorf("arguments of types %s are not supported on a connection on fairbench's wire path: only integers, floats, booleans, strings, byte strings (as text) and NULL are",
		strings.Join(types, ", "))
}

// reply is what a statement's replies amount to for the callers.
type reply struct {
	first   int64 // first column of the first row, as an integer (NULL → 0)
	hasRow  bool
	scanErr error // the first column was not an integer
}

// exec sends one statement in the connection's mode and reads its replies.
// name is the prepared statement's name (prepared mode); params are text.
func (w *wire) exec(name, sql string, args []any, params [][]byte, wantInt bool) (reply, error) {
	if err := w.start(name, sql, args, params); err != nil {
		return reply{}, err
	}
	return w.finish(wantInt)
}

// start sends one statement in the connection's mode, without flushing.
func (w *wire) start(name, sql string, args []any, params [][]byte) error {
	if w.broken != nil {
		return w.broken
	}
	switch {
	case w.mode == "prepared" && name != "":
		// PQsendQueryPrepared's messages: libpq describes the portal every time.
		w.fe.SendBind(&pgproto3.Bind{PreparedStatement: name, Parameters: params})
		w.fe.SendDescribe(&pgproto3.Describe{ObjectType: 'P'})
		w.fe.SendExecute(&pgproto3.Execute{})
		w.fe.SendSync(&pgproto3.Sync{})
	case w.mode == "simple" || w.mode == "":
		q, err := w.interpolate(sql, args)
		if err != nil {
			return err
		}
		w.fe.SendQuery(&pgproto3.Query{String: q})
	default: // extended, or a statement that was not prepared: PQexecParams's messages
		w.fe.SendParse(&pgproto3.Parse{Query: sql})
		w.fe.SendBind(&pgproto3.Bind{Parameters: params})
		w.fe.SendDescribe(&pgproto3.Describe{ObjectType: 'P'})
		w.fe.SendExecute(&pgproto3.Execute{})
		w.fe.SendSync(&pgproto3.Sync{})
	}
	return nil
}

// finish flushes what was sent and reads replies up to ReadyForQuery.
func (w *wire) finish(wantInt bool) (reply, error) {
	if err := w.fe.Flush(); err != nil {
		w.broken = err
		return reply{}, err
	}
	var (
		res   reply
		pgErr *pgconn.PgError
	)
	for {
		typ, body, err := w.in.next()
		if err != nil {
			w.broken = err
			return reply{}, err
		}
		switch typ {
		case 'D': // DataRow
			if !res.hasRow {
				res.hasRow = true
				if wantInt {
					res.first, res.scanErr = firstInt(body)
				}
			}
		case 'E': // ErrorResponse
			if pgErr == nil {
				var m pgproto3.ErrorResponse
				if err := m.Decode(body); err != nil {
					w.broken = err
					return reply{}, err
				}
				pgErr = pgconn.ErrorResponseToPgError(&m)
			}
		case 'S': // ParameterStatus
			var m pgproto3.ParameterStatus
			if err := m.Decode(body); err == nil && m.Name == "standard_conforming_strings" {
				w.standardStrings = m.Value == "on"
			}
		case 'Z': // ReadyForQuery
			if pgErr != nil {
				return reply{}, pgErr
			}
			return res, nil
		}
	}
}

// firstInt reads the first column of a DataRow's body as a text integer (NULL
// is 0).
func firstInt(body []byte) (int64, error) {
	if len(body) < 2 || binary.BigEndian.Uint16(body) == 0 {
		return 0, errors.New("the statement returned no columns")
	}
	if len(body) < 6 {
		return 0, errors.New("a DataRow message too short for its first column")
	}
	n := int32(binary.BigEndian.Uint32(body[2:]))
	switch {
	case n < 0:
		return 0, nil
	case int(n) > len(body)-6:
		return 0, errors.New("a DataRow column longer than its message")
	}
	return parseInt(body[6 : 6+n])
}

// replies reads the server's messages into one reused buffer and hands each
// out as its type and body, decoding nothing: finish looks into the few it
// needs. pgproto3's Frontend.Receive decodes every message into its struct
// (RowDescription, CommandComplete, ...) and reads through its own chunk
// reader; reading here instead took fairbench's own user CPU per select-only
// transaction at 8 clients on 2 loops from 2.85 to 2.75 µs (perf cpu-clock
// samples, 4 paired runs). pgproto3 still decodes the rare ErrorResponse and
// ParameterStatus, and encodes everything sent.
type replies struct {
	r          io.Reader
	buf        []byte
	head, tail int // the unread bytes are buf[head:tail]
}

// maxMessage bounds a message's length: PostgreSQL sends no field above
// 1 GB, so a longer length is a broken stream, not a reply.
const maxMessage = 1<<30 + 1<<20

// next returns the next message; its body is valid until the next call.
func (rs *replies) next() (byte, []byte, error) {
	for {
		need := 5 // a message's type and length
		if rs.tail-rs.head >= 5 {
			size := int(binary.BigEndian.Uint32(rs.buf[rs.head+1:]))
			if size < 4 || size > maxMessage {
				return 0, nil, fmt.Errorf("invalid message from the server: type %q, length %d", rs.buf[rs.head], size)
			}
			if end := rs.head + 1 + size; end <= rs.tail {
				typ, body := rs.buf[rs.head], rs.buf[rs.head+5:end]
				rs.head = end
				return typ, body, nil
			}
			need = 1 + size
		}
		if rs.head+need > len(rs.buf) {
			rs.tail = copy(rs.buf, rs.buf[rs.head:rs.tail])
			rs.head = 0
			// Grow only as the bytes arrive (doubling, up to the message's
			// length): a length that lies costs no more memory than what
			// was actually received.
			if need > len(rs.buf) && rs.tail == len(rs.buf) {
				rs.buf = append(rs.buf[:rs.tail], make([]byte, min(need, max(2*len(rs.buf), 64))-rs.tail)...)
			}
		}
		n, err := rs.r.Read(rs.buf[rs.tail:])
		rs.tail += n
		if n == 0 && err == nil {
			err = io.ErrNoProgress
		}
		if err != nil && n == 0 {
			return 0, nil, err
		}
	}
}

func (w *wire) queryInt64(name, sql string, args []any, params [][]byte) (int64, error) {
	res, err := w.exec(name, sql, args, params, true)
	switch {
	case err != nil:
		return 0, err
	case !res.hasRow:
		return 0, pgx.ErrNoRows
	}
	return res.first, res.scanErr
}

// simple runs SQL text with the simple protocol (maintenance, BEGIN, ROLLBACK).
func (w *wire) simple(sql string) error {
	if w.broken != nil {
		return w.broken
	}
	w.fe.SendQuery(&pgproto3.Query{String: sql})
	_, err := w.finish(false)
	return err
}

// prepare readies a named statement on the server, as pgconn.Prepare does.
func (w *wire) prepare(name, sql string) error {
	if w.broken != nil {
		return w.broken
	}
	w.fe.SendParse(&pgproto3.Parse{Name: name, Query: sql})
	w.fe.SendSync(&pgproto3.Sync{})
	_, err := w.finish(false)
	return err
}

// close ends the session politely and closes the connection.
func (w *wire) close() error {
	if w.broken == nil {
		w.fe.Send(&pgproto3.Terminate{})
		_ = w.fe.Flush()
		w.broken = net.ErrClosed
	}
	return w.nc.Close()
}

// interpolate writes args into the $n placeholders of sql as literals, the way
// pgbench's simple mode substitutes its variables: integers as digits, strings
// quoted, nil as NULL. Placeholders inside quotes are left alone.
func (w *wire) interpolate(sql string, args []any) (string, error) {
	if len(args) == 0 {
		return sql, nil
	}
	b := w.sql[:0]
	var quote byte
	for i := 0; i < len(sql); i++ {
		ch := sql[i]
		if quote != 0 {
			if ch == quote {
				quote = 0
			}
			b = append(b, ch)
			continue
		}
		if ch == '\'' || ch == '"' {
			quote = ch
			b = append(b, ch)
			continue
		}
		if ch != '$' || i+1 >= len(sql) || sql[i+1] < '0' || sql[i+1] > '9' {
			b = append(b, ch)
			continue
		}
		j := i + 1
		for j < len(sql) && sql[j] >= '0' && sql[j] <= '9' {
			j++
		}
		n, _ := strconv.Atoi(sql[i+1 : j])
		if n < 1 || n > len(args) {
			return "", fmt.Errorf("placeholder $%d but %d arguments: %s", n, len(args), sql)
		}
		var err error
		if b, err = w.appendLiteral(b, args[n-1]); err != nil {
			return "", err
		}
		i = j - 1
	}
	w.sql = b
	return string(b), nil
}

func (w *wire) appendLiteral(b []byte, v any) ([]byte, error) {
	var n int64
	switch x := v.(type) {
	case nil:
		return append(b, "NULL"...), nil
	case string:
		if !w.standardStrings && strings.Contains(x, `\`) {
			return nil, errors.New("simple query mode needs standard_conforming_strings = on for strings with backslashes")
		}
		b = append(b, '\'')
		b = append(b, strings.ReplaceAll(x, "'", "''")...)
		return append(b, '\''), nil
	case []byte:
		return w.appendLiteral(b, string(x))
	case int64:
		n = x
	case int:
		n = int64(x)
	case int32:
		n = int64(x)
	case bool:
		return strconv.AppendBool(b, x), nil
	case float64:
		if x < 0 && len(b) > 0 && b[len(b)-1] == '-' {
			b = append(b, ' ')
		}
		return strconv.AppendFloat(b, x, 'g', -1, 64), nil
	default:
		return nil, unsupportedArgs([]any{v})
	}
	if n < 0 && len(b) > 0 && b[len(b)-1] == '-' {
		b = append(b, ' ') // "x - -1", not the comment "x --1"
	}
	return strconv.AppendInt(b, n, 10), nil
}
