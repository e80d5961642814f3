package kv_test

import (
	"bytes"
	"fmt"
	"net"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/fairbench/fairbench/internal/result"
	"github.com/fairbench/fairbench/internal/testenv"
)

// inFlightProxy forwards connections to a Redis server and watches each
// one's requests in flight: commands it forwarded to the server minus
// replies it forwarded back. Replies are counted before they are forwarded
// and commands after, so what it sees in flight never exceeds what the
// client has outstanding.
type inFlightProxy struct {
	ln     net.Listener
	server string
	mu     sync.Mutex
	conns  []*connStats
}

// connStats is one connection as the proxy saw it.
type connStats struct {
	commands, replies int64
	maxInFlight       int64
	// overlaps counts reads of commands that arrived while earlier commands
	// of the connection were still unanswered: a window refilling, which a
	// batch never does.
	overlaps int64
}

func startProxy(t *testing.T, server string) *inFlightProxy {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &inFlightProxy{ln: ln, server: server}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			s, err := net.Dial("tcp", server)
			if err != nil {
				c.Close()
				continue
			}
			st := &connStats{}
			p.mu.Lock()
			p.conns = append(p.conns, st)
			p.mu.Unlock()
			go p.commands(c, s, st)
			go p.replies(s, c, st)
		}
	}()
	return p
}

// commands forwards client→server. fairbench writes every command as an
// array of bulk strings, so each '*' that starts an array is a command;
// with 'x' values and digit keys under a prefix without '*', no other byte
// is one.
func (p *inFlightProxy) commands(from, to net.Conn, st *connStats) {
	defer to.Close()
	buf := make([]byte, 64<<10)
	for {
		n, err := from.Read(buf)
		if n > 0 {
			if _, werr := to.Write(buf[:n]); werr != nil {
				return
			}
			p.mu.Lock()
			if st.commands > st.replies {
				st.overlaps++
			}
			st.commands += int64(bytes.Count(buf[:n], []byte("*")))
			st.maxInFlight = max(st.maxInFlight, st.commands-st.replies)
			p.mu.Unlock()
		}
		if err != nil {
			return
		}
	}
}

// replies forwards server→client one reply at a time, each counted before
// it is forwarded and the next a little later, as over a slower link: on
// loopback a server answers a pipeline's commands in one write, and a client
// reading them all at once refills a window as a batch would. Replies are
// simple strings, errors, integers and bulk strings (SET, GET and the
// handshake's PING answer with nothing else).
func (p *inFlightProxy) replies(from, to net.Conn, st *connStats) {
	defer to.Close()
	buf := make([]byte, 64<<10)
	var pending []byte
	for {
		n, err := from.Read(buf)
		pending = append(pending, buf[:n]...)
		for {
			i := bytes.IndexByte(pending, '\n')
			if i < 0 {
				break
			}
			size := i + 1
			if pending[0] == '$' {
				l, _ := strconv.Atoi(string(bytes.TrimSpace(pending[1:i])))
				if l >= 0 {
					size += l + 2
				}
			}
			if len(pending) < size {
				break
			}
			p.mu.Lock()
			st.replies++
			p.mu.Unlock()
			if _, werr := to.Write(pending[:size]); werr != nil {
				return
			}
			pending = pending[size:]
			time.Sleep(20 * time.Microsecond)
		}
		if err != nil {
			return
		}
	}
}

// busiest is the connection that carried the most commands: the worker's.
func (p *inFlightProxy) busiest() connStats {
	p.mu.Lock()
	defer p.mu.Unlock()
	var b connStats
	for _, c := range p.conns {
		if c.commands > b.commands {
			b = *c
		}
	}
	return b
}

// The window (pipeline_mode = window, memtier's): through a proxy that
// counts each connection's requests in flight, one connection never has more
// than pipeline outstanding, has more than one, and sends new requests while
// earlier ones are unanswered (a batch never does); every request the proxy
// saw answered is recorded, and --requests' count is exact. The batch
// (redis-benchmark's -P) never sends while replies are outstanding, nor does
// a window asked for on a rate schedule, which runs batches and says so.
func TestPipelineWindowKeepsAtMostPipelineOutstanding(t *testing.T) {
	u, err := url.Parse(testenv.ValkeyURL(t))
	if err != nil {
		t.Fatal(err)
	}
	const pipeline = 8
	for _, tc := range []struct {
		name, mode string
		requests   int64
		rate       string // the workload's rate line, if any
	}{
		{"window", "window", 4003, ""},
		{"batch", "batch", 4003, ""},
		{"paced window", "window", 403, "rate = 1000"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			mode, requests := tc.mode, tc.requests
			if tc.rate != "" {
				mode = "batch" // what a paced window runs
			}
			p := startProxy(t, u.Host)
			run := runStudy(t, fmt.Sprintf(`
[study]
name = "kv window"
warmup = "0s"
duration = "60s"
[[target]]
name = "proxied"
url = "redis://%s"
[[workload]]
kind = "kv"
clients = [1]
threads = 1
ratio = "1:0"
pipeline = %d
pipeline_mode = "%s"
requests = %d
data_size = 8
key_maximum = 1000
key_prefix = "%s"
%s
`, p.ln.Addr(), pipeline, tc.mode, requests, testenv.RedisKeyPrefix(t), tc.rate))
			st := p.busiest()
			t.Logf("%s: %d commands, up to %d in flight, %d sends while requests were outstanding", mode, st.commands, st.maxInFlight, st.overlaps)
			var recorded int64
			for _, op := range run.Ops {
				recorded += op.Count
				for _, n := range op.Errors {
					recorded += n
				}
			}
			if recorded != requests {
				t.Errorf("recorded %d requests, sent %d (requests = %d)", recorded, requests, requests)
			}
			if st.commands < requests {
				t.Errorf("the proxy saw %d commands on the busiest connection, want at least the %d requests", st.commands, requests)
			}
			if st.maxInFlight > pipeline {
				t.Errorf("%s: up to %d requests in flight, want at most the pipeline's %d", mode, st.maxInFlight, pipeline)
			}
			switch mode {
			case "window":
				if st.maxInFlight < 2 || st.overlaps < requests/(10*pipeline) {
					t.Errorf("window: at most %d in flight, %d sends while requests were outstanding (of %d commands): the window is not kept", st.maxInFlight, st.overlaps, st.commands)
				}
			case "batch":
				if st.overlaps != 0 {
					t.Errorf("batch: %d sends while requests were outstanding, want none", st.overlaps)
				}
			}
			if got, _ := run.Env.Extra["workload"].(map[string]any)["pipeline mode"].(string); len(got) < len(mode) || got[:len(mode)] != mode {
				t.Errorf("the run's pipeline mode fact is %q, want %s", got, mode)
			}
			named := false
			for _, d := range run.Deviations {
				named = named || strings.Contains(d, "pipeline_mode = window ran as batches")
			}
			if named != (tc.rate != "") {
				t.Errorf("deviations %q: want the window's batches named only on a rate schedule", run.Deviations)
			}
			if run.Status != result.StatusOK {
				t.Errorf("status %v", run.Status)
			}
		})
	}
}
