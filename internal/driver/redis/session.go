package redis

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/fairbench/fairbench/internal/driver"
	"github.com/fairbench/fairbench/internal/fastpath"
	"github.com/fairbench/fairbench/internal/result"
)

// node is one connection to one server, on fairbench's RESP path: a pipeline
// is encoded into one buffer, written with one call, and its replies are read
// one by one, each timed at the read that brought its last byte.
type node struct {
	addr string
	nc   net.Conn       // the TLS connection, or the socket itself
	sock *fastpath.Conn // the socket when it blocks its thread (fastpath.Enabled)
	rd   *reader
	out  []byte
	size []int // each command's size on the wire, for the current pipeline
	// broken is the I/O or protocol error after which the stream is out of
	// step; every later call fails with it.
	broken error
	// inFlight holds the commands Send wrote whose replies Receive has not
	// read, oldest first, in a ring of a power-of-two size (reused, so a
	// window costs no allocation per request).
	inFlight        []sentCommand
	oldest, pending int
}

// sentCommand is one command in flight: when it went out and its size.
type sentCommand struct {
	at   time.Time
	size int
}

// dialNode connects to addr and authenticates: AUTH, then SELECT. It never
// returns the password in an error.
func dialNode(parent context.Context, cfg config, addr string, fast bool) (*node, error) {
	att, cancel := driver.StartConnecting(parent, cfg.Timeout, "timeout")
	defer cancel()
	ctx := att.Context()
	var (
		nc   net.Conn
		sock *fastpath.Conn
		err  error
	)
	if fast && fastpath.Enabled() {
		nc, err = fastpath.Dial(ctx, "tcp", addr)
		if err == nil {
			sock, _ = nc.(*fastpath.Conn)
		}
	} else {
		var d net.Dialer
		nc, err = d.DialContext(ctx, "tcp", addr)
	}
	if err != nil {
		if e := att.Explain(err, "Redis server "+addr); e != nil {
			return nil, e
		}
		return nil, dialError(cfg, addr, err)
	}
	if tc, err := cfg.tlsConfig(); err != nil {
		nc.Close()
		return nil, err
	} else if tc != nil {
		if h, _, err := net.SplitHostPort(addr); err == nil && tc.ServerName != h {
			// A cluster node other than the seed: verify its own name.
			tc = tc.Clone()
			tc.ServerName = h
		}
		t := tls.Client(nc, tc)
		if err := t.HandshakeContext(ctx); err != nil {
			nc.Close()
			// A plain server waits for a command: the handshake's timeout
			// says less than the hint below.
			if e := att.Interrupted(err, "Redis server "+addr); e != nil {
				return nil, e
			}
			if strings.Contains(err.Error(), "x509:") {
				return nil, fmt.Errorf("TLS handshake with %s failed: %v (give the CA with ?ca=FILE, or skip_verify=true)", addr, err)
			}
			return nil, fmt.Errorf("TLS handshake with %s failed: %v (is TLS enabled on this port? a plain server needs redis://)", addr, err)
		}
		nc = t
	}
	n := &node{addr: addr, nc: nc, sock: sock, rd: newReader(nc)}
	// The handshake's reads end when the attempt does (Ctrl-C, the timeout).
	stop := context.AfterFunc(ctx, n.interrupt)
	var hello []driver.KVCommand
	if cfg.Password != "" {
		c := driver.KVCommand{Name: "AUTH", Key: []byte(cfg.Password)}
		if cfg.User != "" {
			c.Key, c.Value = []byte(cfg.User), []byte(cfg.Password)
		}
		hello = append(hello, c)
	}
	if cfg.DB != 0 {
		hello = append(hello, driver.KVCommand{Name: "SELECT", Key: []byte(strconv.Itoa(cfg.DB))})
	}
	// PING last: whatever the handshake, the server proves it speaks RESP.
	hello = append(hello, driver.KVCommand{Name: "PING"})
	replies := make([]driver.KVReply, len(hello))
	if err := n.pipeline(hello, replies); err != nil {
		n.nc.Close()
		if e := att.Explain(err, "Redis server "+addr); e != nil {
			return nil, e
		}
		return nil, handshakeError(cfg, addr, err)
	}
	if !stop() { // the attempt ended as the replies came: the socket is closed
		return nil, att.Explain(context.Cause(ctx), "Redis server "+addr)
	}
	for i, r := range replies {
		if r.Err != nil {
			n.nc.Close()
			what := strings.ToLower(hello[i].Name)
			if what == "auth" {
				return nil, fmt.Errorf("Redis server %s refused the credentials: %v", addr, r.Err)
			}
			if what == "ping" && strings.HasPrefix(r.Err.Error(), "NOAUTH") {
				return nil, fmt.Errorf("Redis server %s requires a password: write redis://[user]:password@host or set REDISCLI_AUTH", addr)
			}
			return nil, fmt.Errorf("Redis server %s refused %s: %v", addr, what, r.Err)
		}
	}
	_ = nc.SetDeadline(time.Time{})
	return n, nil
}

func dialError(cfg config, addr string, err error) error {
	switch {
	case errors.Is(err, context.DeadlineExceeded):
		return fmt.Errorf("timed out connecting to Redis server %s after %v", addr, cfg.Timeout)
	case errors.Is(err, syscall.ECONNREFUSED):
		return fmt.Errorf("Redis server %s refused the connection (nothing listens there?)", addr)
	}
	return fmt.Errorf("connecting to Redis server %s: %v", addr, err)
}

// handshakeError explains a handshake that did not get RESP back.
func handshakeError(cfg config, addr string, err error) error {
	var ne net.Error
	switch {
	case errors.Is(err, errProtocol):
		return fmt.Errorf("%s does not answer like a Redis server: %v", addr, err)
	case errors.Is(err, io.EOF) || errors.Is(err, syscall.ECONNRESET):
		if !cfg.TLS {
			return fmt.Errorf("%s closed the connection without a Redis reply: not a Redis server, or a TLS-only one (then use rediss://)", addr)
		}
		return fmt.Errorf("%s closed the connection without a Redis reply: not a Redis server?", addr)
	case errors.As(err, &ne) && ne.Timeout():
		return fmt.Errorf("%s sent no Redis reply within %v (is this a Redis server?)", addr, cfg.Timeout)
	}
	return fmt.Errorf("talking to %s: %v", addr, err)
}

// pipeline sends cmds in one write and reads their replies, each timed from
// the write to the read that brought it. A returned error means the connection is broken.
func (n *node) pipeline(cmds []driver.KVCommand, replies []driver.KVReply) error {
	if n.broken != nil {
		return n.broken
	}
	if n.pending > 0 {
		return fmt.Errorf("a pipeline with %d commands in flight: their replies come first (Receive them)", n.pending)
	}
	start, err := n.send(cmds)
	if err != nil {
		return err
	}
	return n.receive(cmds, replies, start)
}

// send encodes and writes cmds.
func (n *node) send(cmds []driver.KVCommand) (time.Time, error) {
	n.out = n.out[:0]
	n.size = n.size[:0]
	for i := range cmds {
		var s int
		n.out, s = appendCommand(n.out, &cmds[i])
		n.size = append(n.size, s)
	}
	n.rd.resetArena()
	start := time.Now()
	if _, err := n.nc.Write(n.out); err != nil {
		n.broken = err
		return start, err
	}
	return start, nil
}

// receive reads the replies to the commands send wrote.
func (n *node) receive(cmds []driver.KVCommand, replies []driver.KVReply, start time.Time) error {
	for i := range cmds {
		r := &replies[i]
		*r = driver.KVReply{Elements: r.Elements[:0]} // keeps the slice's room for the next array
		m, err := n.rd.reply(r)
		if err != nil {
			n.broken = err
			return err
		}
		r.Latency = n.rd.arrived.Sub(start)
		r.Bytes = int64(m + n.size[i])
	}
	return nil
}

// stream writes cmds behind the commands in flight and remembers each one's
// send time and size, for receiveSent.
func (n *node) stream(cmds []driver.KVCommand) error {
	if n.broken != nil {
		return n.broken
	}
	n.out = n.out[:0]
	for i := range cmds {
		var s int
		n.out, s = appendCommand(n.out, &cmds[i])
		n.push(s)
	}
	// One clock read for the write that sends them all, as for a pipeline.
	at := time.Now()
	for i := range len(cmds) {
		n.inFlight[(n.oldest+n.pending-len(cmds)+i)&(len(n.inFlight)-1)].at = at
	}
	if _, err := n.nc.Write(n.out); err != nil {
		n.broken = err
		return err
	}
	return nil
}

// push appends a command of size bytes to the ring, growing it when full.
func (n *node) push(size int) {
	if n.pending == len(n.inFlight) {
		grown := make([]sentCommand, max(16, 2*len(n.inFlight)))
		for i := range n.pending {
			grown[i] = n.inFlight[(n.oldest+i)&(len(n.inFlight)-1)]
		}
		n.inFlight, n.oldest = grown, 0
	}
	n.inFlight[(n.oldest+n.pending)&(len(n.inFlight)-1)] = sentCommand{size: size}
	n.pending++
}

// receiveSent reads the oldest command's reply, then every further one the
// reader already holds, as memtier's process_response handles whatever a
// read brought before fill_pipeline refills the window.
func (n *node) receiveSent(replies []driver.KVReply) (int, error) {
	if n.broken != nil {
		return 0, n.broken
	}
	n.rd.resetArena()
	k := 0
	for k < len(replies) && n.pending > 0 && (k == 0 || n.rd.buffered()) {
		r := &replies[k]
		*r = driver.KVReply{Elements: r.Elements[:0]}
		m, err := n.rd.reply(r)
		if err != nil {
			n.broken = err
			return k, err
		}
		sent := n.inFlight[n.oldest]
		n.oldest = (n.oldest + 1) & (len(n.inFlight) - 1)
		n.pending--
		r.Latency = n.rd.arrived.Sub(sent.at)
		r.Bytes = int64(m + sent.size)
		k++
	}
	return k, nil
}

func (n *node) close() error { return n.nc.Close() }

// interrupt makes a read blocked on the connection return at once.
func (n *node) interrupt() {
	if n.sock != nil {
		_ = n.sock.SetDeadline(time.Unix(1, 0))
	}
	_ = n.nc.Close()
}

// classify maps a session's error to an error class.
func classify(err error) result.ErrorClass {
	var se *serverError
	if errors.As(err, &se) {
		return classOf(se)
	}
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		return result.ErrTimeout
	}
	if errors.Is(err, context.DeadlineExceeded) {
		return result.ErrTimeout
	}
	return result.ErrConnection
}

// session is one worker's connection to a standalone server.
type session struct {
	n    *node
	c    *client
	path string
}

// DeletePrefix implements driver.KVPrefixDeleter.
func (s *session) DeletePrefix(ctx context.Context, prefix string) (int64, error) {
	return s.c.DeletePrefix(ctx, prefix)
}

// ScanPrefix implements driver.KVPrefixScanner.
func (s *session) ScanPrefix(ctx context.Context, prefix string, fn func(keys []string) bool) error {
	return s.c.ScanPrefix(ctx, prefix, fn)
}

// KeyCount implements driver.KVKeyCounter.
func (s *session) KeyCount(ctx context.Context) (int64, error) { return s.c.KeyCount(ctx) }

// Pipeline implements driver.KV.
func (s *session) Pipeline(_ context.Context, cmds []driver.KVCommand, replies []driver.KVReply) error {
	return s.n.pipeline(cmds, replies)
}

// Send implements driver.KVStream.
func (s *session) Send(_ context.Context, cmds []driver.KVCommand) error { return s.n.stream(cmds) }

// Receive implements driver.KVStream.
func (s *session) Receive(_ context.Context, replies []driver.KVReply) (int, error) {
	return s.n.receiveSent(replies)
}

// InFlight implements driver.KVStream.
func (s *session) InFlight() int { return s.n.pending }

// Close implements driver.Conn.
func (s *session) Close(context.Context) error { return s.n.close() }

// Classify implements driver.Conn.
func (s *session) Classify(err error) result.ErrorClass { return classify(err) }

// Interrupt implements driver.Interrupter.
func (s *session) Interrupt() { s.n.interrupt() }

// ClientPath implements driver.Path.
func (s *session) ClientPath() string { return s.path }

// BlocksThread implements fastpath.ThreadPerClient.
func (s *session) BlocksThread() bool { return s.n.sock != nil }

// Multiplex implements fastpath.Multiplexer: the RESP path reads and writes
// only on the caller's goroutine (TLS included: crypto/tls reads the socket on
// the caller's goroutine too), so the socket can go on a loop as it is,
// several connections per thread, as memtier's threads drive theirs.
func (s *session) Multiplex(context.Context) (*fastpath.Conn, error) {
	if s.n.sock == nil {
		return nil, errors.New("this connection does not use fairbench's sockets (FAIRBENCH_NET=netpoll)")
	}
	return s.n.sock, nil
}
