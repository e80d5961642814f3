// Package faultproxy is a TCP proxy on loopback that puts faults between
// fairbench and a real server, for the fault tests (docs/reliability.md):
// it resets every open connection, refuses new ones for a while (the server
// is down), stalls traffic (a partition), or delays every chunk it forwards
// (latency spikes). It is test code: it forwards to one upstream address and
// keeps no more state than its open connections.
package faultproxy

import (
	"bytes"
	"errors"
	"io"
	"net"
	"net/url"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// Proxy forwards connections made to Addr to the upstream address.
type Proxy struct {
	upstream string
	addr     string

	mu      sync.Mutex
	ln      net.Listener // nil while down
	conns   map[*pair]struct{}
	closed  bool
	stalled bool // forward nothing, like a partition

	latency  atomic.Int64 // nanoseconds added before each forwarded chunk
	cutGen   atomic.Int64 // raised by CutReplies: connections older than it cut their next reply
	cutN     atomic.Int64 // bytes of the cut reply that still arrive
	accepted atomic.Int64
	resets   atomic.Int64
	replies  atomic.Int64
	watched  atomic.Pointer[[]byte] // CountRequests' text
	matched  atomic.Int64
}

type pair struct{ client, server net.Conn }

// Start listens on a free loopback port and forwards to upstream (host:port).
func Start(upstream string) (*Proxy, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	p := &Proxy{upstream: upstream, addr: ln.Addr().String(), conns: map[*pair]struct{}{}}
	p.ln = ln
	go p.serve(ln)
	return p, nil
}

// InFront starts a proxy to the server a target URL names, closed when the
// test ends, and returns it with the same URL through it.
func InFront(t testing.TB, target string) (*Proxy, string) {
	t.Helper()
	u, err := url.Parse(target)
	if err != nil {
		t.Fatal(err)
	}
	p, err := Start(u.Host)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(p.Close)
	u.Host = p.Addr()
	return p, u.String()
}

// Addr is the proxy's host:port.
func (p *Proxy) Addr() string { return p.addr }

// Accepted counts the connections the proxy accepted so far.
func (p *Proxy) Accepted() int64 { return p.accepted.Load() }

// Replies counts the chunks forwarded from the server so far: a test waits
// on it for a number of answered requests.
func (p *Proxy) Replies() int64 { return p.replies.Load() }

// CountRequests makes the proxy count the chunks from clients that hold
// text (an SQL query's words), from now on. With one client that waits for
// each answer, the n-th such request means n-1 of them were answered: an
// event a test can wait on, unlike a count of reply chunks, which a busy
// machine merges or splits differently.
func (p *Proxy) CountRequests(text string) {
	b := []byte(text)
	p.matched.Store(0)
	p.watched.Store(&b)
}

// Requests counts the client chunks that held CountRequests' text.
func (p *Proxy) Requests() int64 { return p.matched.Load() }

// Resets counts the connections the proxy reset so far.
func (p *Proxy) Resets() int64 { return p.resets.Load() }

func (p *Proxy) serve(ln net.Listener) {
	for {
		c, err := ln.Accept()
		if err != nil {
			return
		}
		p.accepted.Add(1)
		go p.forward(c)
	}
}

func (p *Proxy) forward(c net.Conn) {
	s, err := net.DialTimeout("tcp", p.upstream, 5*time.Second)
	if err != nil {
		reset(c)
		return
	}
	pr := &pair{client: c, server: s}
	p.mu.Lock()
	if p.closed || p.ln == nil {
		p.mu.Unlock()
		reset(c)
		s.Close()
		return
	}
	p.conns[pr] = struct{}{}
	p.mu.Unlock()
	var wg sync.WaitGroup
	wg.Add(2)
	go func() { defer wg.Done(); p.copy(s, c, false) }()
	go func() { defer wg.Done(); p.copy(c, s, true) }()
	wg.Wait()
	p.mu.Lock()
	delete(p.conns, pr)
	p.mu.Unlock()
}

// copy forwards src to dst chunk by chunk, each after the current latency,
// and holds chunks while the proxy is stalled. From the server, a reply may
// be cut (CutReplies): part of it is forwarded and the connection reset.
func (p *Proxy) copy(dst, src net.Conn, fromServer bool) {
	defer dst.Close()
	defer src.Close()
	buf := make([]byte, 32<<10)
	gen := p.cutGen.Load() // a connection made after CutReplies is spared
	for {
		n, err := src.Read(buf)
		if fromServer && n > 0 && p.cutGen.Load() != gen {
			// The torn reply ends with a FIN, not a reset: the client reads
			// part of a message and then the end of the stream.
			dst.Write(buf[:min(int(p.cutN.Load()), n)]) //nolint:errcheck // closed next anyway
			dst.Close()
			src.Close()
			return
		}
		if n > 0 {
			if d := time.Duration(p.latency.Load()); d > 0 {
				time.Sleep(d)
			}
			for p.isStalled() {
				time.Sleep(10 * time.Millisecond)
			}
			if _, werr := dst.Write(buf[:n]); werr != nil {
				return
			}
			if fromServer {
				p.replies.Add(1)
			} else if w := p.watched.Load(); w != nil && bytes.Contains(buf[:n], *w) {
				p.matched.Add(1)
			}
		}
		if err != nil {
			if !errors.Is(err, io.EOF) {
				reset(dst)
			}
			return
		}
	}
}

func (p *Proxy) isStalled() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.stalled
}

// reset closes a connection with a TCP RST rather than a FIN: the peer sees
// "connection reset by peer", as when a server process dies.
func reset(c net.Conn) {
	if tc, ok := c.(*net.TCPConn); ok {
		tc.SetLinger(0) //nolint:errcheck // best effort: a FIN is the fallback
	}
	c.Close()
}

// ResetAll resets every open connection (both sides) and returns how many.
func (p *Proxy) ResetAll() int {
	p.mu.Lock()
	pairs := make([]*pair, 0, len(p.conns))
	for pr := range p.conns {
		pairs = append(pairs, pr)
	}
	p.mu.Unlock()
	for _, pr := range pairs {
		reset(pr.client)
		reset(pr.server)
	}
	p.resets.Add(int64(len(pairs)))
	return len(pairs)
}

// Down makes the server unreachable: open connections are reset and new
// ones refused (the port stops listening) until up.
func (p *Proxy) Down() {
	p.mu.Lock()
	ln := p.ln
	p.ln = nil
	p.mu.Unlock()
	if ln != nil {
		ln.Close()
	}
	p.ResetAll()
}

// up listens again on the same port after Down.
func (p *Proxy) up() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed || p.ln != nil {
		return nil
	}
	var ln net.Listener
	var err error
	for i := 0; i < 50; i++ { // the port may linger for a moment after close
		if ln, err = net.Listen("tcp", p.addr); err == nil {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	if err != nil {
		return err
	}
	p.ln = ln
	go p.serve(ln)
	return nil
}

// DownFor takes the server down for d, in the background.
func (p *Proxy) DownFor(d time.Duration) {
	p.Down()
	time.AfterFunc(d, func() { p.up() }) //nolint:errcheck // a test notices the missing server
}

// Stall holds every byte in both directions while on, like a network
// partition: connections stay open and nothing arrives.
func (p *Proxy) Stall(on bool) {
	p.mu.Lock()
	p.stalled = on
	p.mu.Unlock()
}

// CutReplies cuts the next reply on every connection open now: n bytes of it
// arrive, then the connection is closed (FIN), as when a server process
// dies mid-reply.
// Connections made later are spared.
func (p *Proxy) CutReplies(n int) {
	p.cutN.Store(int64(n))
	p.cutGen.Add(1)
}

// SetLatency delays every forwarded chunk by d (0: none).
func (p *Proxy) SetLatency(d time.Duration) { p.latency.Store(int64(d)) }

// Close stops the proxy and closes every connection.
func (p *Proxy) Close() {
	p.mu.Lock()
	p.closed = true
	ln := p.ln
	p.ln = nil
	p.stalled = false
	p.mu.Unlock()
	if ln != nil {
		ln.Close()
	}
	p.ResetAll()
}
