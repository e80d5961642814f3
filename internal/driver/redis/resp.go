package redis

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strconv"
	"time"

	"github.com/fairbench/fairbench/internal/driver"
	"github.com/fairbench/fairbench/internal/result"
)

// RESP2, the protocol every Redis and Valkey speaks without a HELLO: commands
// go out as arrays of bulk strings, replies come back as simple strings,
// errors, integers, bulk strings or arrays. The measured path encodes and
// decodes it here, on the caller's goroutine, so that each reply of a
// pipeline is timed when it is read (go-redis and rueidis hand the replies of
// a pipeline back together, when the last one has arrived).

// appendCommand encodes one command and returns the buffer and the command's
// size on the wire.
func appendCommand(b []byte, c *driver.KVCommand) ([]byte, int) {
	start := len(b)
	n := 1 + len(c.Args)
	if c.Key != nil {
		n++
	}
	if c.Value != nil {
		n++
	}
	b = appendLen(b, '*', n)
	b = appendBulkString(b, c.Name)
	if c.Key != nil {
		b = appendBulk(b, c.Key)
	}
	if c.Value != nil {
		b = appendBulk(b, c.Value)
	}
	for _, a := range c.Args {
		b = appendBulk(b, a)
	}
	return b, len(b) - start
}

func appendBulk(b, v []byte) []byte {
	b = appendLen(b, '$', len(v))
	b = append(b, v...)
	return append(b, '\r', '\n')
}

func appendBulkString(b []byte, v string) []byte {
	b = appendLen(b, '$', len(v))
	b = append(b, v...)
	return append(b, '\r', '\n')
}

// appendLen appends an array's or a bulk string's header, "*3\r\n" or
// "$13\r\n". Commands' lengths are mostly below 100: those are written
// digit by digit, which at pipeline 16 took a tenth of the encoding's time
// off strconv (profile of kv GET P16, bench/README.md).
func appendLen(b []byte, kind byte, n int) []byte {
	switch {
	case n < 10:
		return append(b, kind, byte('0'+n), '\r', '\n')
	case n < 100:
		return append(b, kind, byte('0'+n/10), byte('0'+n%10), '\r', '\n')
	}
	b = append(b, kind)
	b = strconv.AppendInt(b, int64(n), 10)
	return append(b, '\r', '\n')
}

// errProtocol marks a reply that is not RESP: the peer is not a Redis server
// (or the stream is out of step), and the connection cannot be used.
var errProtocol = errors.New("protocol error")

// serverError is an error reply ("-ERR ...", "-OOM ...", "-MOVED 3999 host:port").
type serverError struct{ Msg string }

func (e *serverError) Error() string { return e.Msg }

// prefix is the error's first word ("ERR", "OOM", "MOVED", "WRONGPASS").
func (e *serverError) prefix() string {
	p, _, _ := bytes.Cut([]byte(e.Msg), []byte(" "))
	return string(p)
}

// classOf maps an error reply to an error class: a server out of memory
// (maxmemory with noeviction) refuses writes, which is throttling, not a
// crash; a loading or busy server is busy.
func classOf(e *serverError) result.ErrorClass {
	switch e.prefix() {
	case "OOM":
		return result.ErrThrottled
	case "BUSY", "LOADING", "TRYAGAIN", "CLUSTERDOWN", "MASTERDOWN":
		return result.ErrBusy
	}
	return result.ErrOther
}

// reader decodes replies from a connection with a buffer of its own, so that
// a pipeline's replies that arrive in one read are decoded without another
// system call.
type reader struct {
	rd   io.Reader
	buf  []byte
	r, w int
	// arrived is when the last read returned: the arrival of every byte it
	// brought, and so of each reply it completed. A pipeline's replies mostly
	// come in one read; timing each at its read rather than at its decoding
	// reads the clock once a read instead of once a reply, and leaves the
	// decoding out of the latency, as redis-benchmark does.
	arrived time.Time
	// arena holds the values of the current pipeline's replies: a reply's
	// Value stays valid until the next pipeline, whatever later reads do to
	// buf.
	arena []byte
	// limit, when set, bounds a bulk string below maxBulk (the server
	// view's INFO).
	limit int
}

func newReader(rd io.Reader) *reader { return &reader{rd: rd, buf: make([]byte, 16<<10)} }

// fill reads more bytes, keeping the unread ones.
func (r *reader) fill() error {
	if r.r > 0 {
		copy(r.buf, r.buf[r.r:r.w])
		r.w -= r.r
		r.r = 0
	}
	if r.w == len(r.buf) {
		nb := make([]byte, 2*len(r.buf))
		copy(nb, r.buf[:r.w])
		r.buf = nb
	}
	n, err := r.rd.Read(r.buf[r.w:])
	r.w += n
	if n > 0 {
		r.arrived = time.Now()
		return nil
	}
	if err == nil {
		err = io.ErrNoProgress
	}
	return err
}

// line returns the next line without its CRLF.
func (r *reader) line() ([]byte, error) {
	for {
		if i := bytes.IndexByte(r.buf[r.r:r.w], '\n'); i >= 0 {
			l := r.buf[r.r : r.r+i+1]
			r.r += i + 1
			if len(l) < 2 || l[len(l)-2] != '\r' {
				return nil, fmt.Errorf("%w: line without CRLF", errProtocol)
			}
			return l[:len(l)-2], nil
		}
		if r.w-r.r > 64<<10 {
			return nil, fmt.Errorf("%w: no line end in 64 KiB", errProtocol)
		}
		if err := r.fill(); err != nil {
			return nil, err
		}
	}
}

// take returns the next n bytes. The buffer grows as the bytes arrive, not
// by the length a reply announces, so that a peer announcing a huge bulk
// string and sending nothing costs nothing.
func (r *reader) take(n int) ([]byte, error) {
	for r.w-r.r < n {
		if r.r > 0 {
			copy(r.buf, r.buf[r.r:r.w])
			r.w -= r.r
			r.r = 0
		}
		if r.w == len(r.buf) {
			nb := make([]byte, min(2*len(r.buf), n+2))
			copy(nb, r.buf[:r.w])
			r.buf = nb
		}
		if err := r.fill(); err != nil {
			return nil, err
		}
	}
	b := r.buf[r.r : r.r+n]
	r.r += n
	return b, nil
}

// maxBulk is Redis's own limit on a bulk string (proto-max-bulk-len's
// default): a longer announced length is not a Redis reply.
const maxBulk = 512 << 20

func parseLen(b []byte) (int, error) {
	if len(b) == 1 && b[0] >= '0' && b[0] <= '9' { // most of a pipeline's lengths
		return int(b[0] - '0'), nil
	}
	if len(b) == 2 && b[0] >= '1' && b[0] <= '9' && b[1] >= '0' && b[1] <= '9' {
		return int(b[0]-'0')*10 + int(b[1]-'0'), nil
	}
	n, err := strconv.Atoi(string(b))
	if err != nil || n < -1 || n > maxBulk {
		return 0, fmt.Errorf("%w: bad length %q", errProtocol, b)
	}
	return n, nil
}

// buffered says whether bytes that arrived are still to be decoded.
func (r *reader) buffered() bool { return r.r < r.w }

// resetArena starts a new pipeline's values.
func (r *reader) resetArena() { r.arena = r.arena[:0] }

// keep copies v into the arena.
func (r *reader) keep(v []byte) []byte {
	s := len(r.arena)
	r.arena = append(r.arena, v...)
	return r.arena[s:len(r.arena):len(r.arena)]
}

// reply decodes one reply into rep (Value, Miss, Err) and returns its size on
// the wire. An error return means the stream is unusable.
func (r *reader) reply(rep *driver.KVReply) (int, error) { return r.nested(rep, 0) }

// maxDepth bounds arrays in arrays: Redis's deepest replies nest a few levels.
const maxDepth = 32

func (r *reader) nested(rep *driver.KVReply, depth int) (int, error) {
	if depth > maxDepth {
		return 0, fmt.Errorf("%w: arrays nested more than %d deep", errProtocol, maxDepth)
	}
	l, err := r.line()
	if err != nil {
		return 0, err
	}
	size := len(l) + 2
	if len(l) == 0 {
		return size, fmt.Errorf("%w: empty line", errProtocol)
	}
	switch l[0] {
	case '+', ':':
		rep.Value = r.keep(l[1:])
	case '-':
		e := &serverError{Msg: string(l[1:])}
		rep.Err, rep.Class = e, classOf(e)
	case '$', '*':
		n, err := parseLen(l[1:])
		if err != nil {
			return size, err
		}
		if n < 0 { // a nil bulk string or array
			rep.Miss = true
			return size, nil
		}
		if l[0] == '$' {
			if r.limit > 0 && n > r.limit {
				return size, fmt.Errorf("%w: a reply of %d bytes, more than the %d expected here", errProtocol, n, r.limit)
			}
			b, err := r.take(n + 2)
			if err != nil {
				return size, err
			}
			rep.Value = r.keep(b[:n])
			return size + n + 2, nil
		}
		// Elements stay in the arena, as values do: YCSB's scan reads the
		// keys ZRANGEBYSCORE answers, and its reads check what HGETALL found.
		if depth == 0 {
			rep.Elements = rep.Elements[:0] // the caller's slice, reused from reply to reply
		}
		for range n {
			var el driver.KVReply
			m, err := r.nested(&el, depth+1)
			size += m
			if err != nil {
				return size, err
			}
			if depth == 0 && el.Value != nil {
				rep.Elements = append(rep.Elements, el.Value)
			}
		}
	default:
		return size, fmt.Errorf("%w: unexpected reply type %q (is this a Redis server?)", errProtocol, l[0])
	}
	return size, nil
}
