package testenv

import (
	"net"
	"sync"
	"testing"
)

// SilentServer listens on loopback, accepts every connection and never
// answers (a server hung before its greeting, a wrong port behind a proxy).
// accepted gets one value per connection accepted: a test cancels once the
// client is past its TCP connect, waiting for the event rather than a sleep.
func SilentServer(t testing.TB) (addr string, accepted <-chan struct{}) {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ch := make(chan struct{}, 64)
	var mu sync.Mutex
	var conns []net.Conn
	t.Cleanup(func() {
		l.Close()
		mu.Lock()
		defer mu.Unlock()
		for _, c := range conns {
			c.Close()
		}
	})
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			conns = append(conns, c)
			mu.Unlock()
			select {
			case ch <- struct{}{}:
			default:
			}
		}
	}()
	return l.Addr().String(), ch
}
