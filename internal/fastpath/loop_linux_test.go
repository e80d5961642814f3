//go:build linux

package fastpath

import (
	"context"
	"errors"
	"io"
	"net"
	"sync"
	"testing"
	"time"
)

// barrierServer answers every connection's one-byte requests, but a round's
// replies go out only once all n connections have sent their request of that
// round. Clients that are driven one after the other can never finish a round.
func barrierServer(t *testing.T, n int) string {
	t.Helper()
	l := listen(t)
	go func() {
		var conns []net.Conn
		for len(conns) < n {
			c, err := l.Accept()
			if err != nil {
				return
			}
			conns = append(conns, c)
		}
		defer func() {
			for _, c := range conns {
				c.Close()
			}
		}()
		buf := make([]byte, 1)
		for {
			for _, c := range conns {
				if _, err := io.ReadFull(c, buf); err != nil {
					return
				}
			}
			for i, c := range conns {
				if _, err := c.Write([]byte{byte(i)}); err != nil {
					return
				}
			}
		}
	}()
	return l.Addr().String()
}

func dialAll(t *testing.T, addr string, n int) []*Conn {
	t.Helper()
	conns := make([]*Conn, n)
	for i := range conns {
		c, err := Dial(context.Background(), "tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		conns[i] = c.(*Conn)
		t.Cleanup(func() { conns[i].Close() })
	}
	return conns
}

// runWithin runs the loop and fails the test if it has not returned after d,
// closing the sockets so that it does.
func runWithin(t *testing.T, l *Loop, conns []*Conn, d time.Duration) {
	t.Helper()
	done := make(chan struct{})
	go func() { l.Run(); close(done) }()
	select {
	case <-done:
	case <-time.After(d):
		for _, c := range conns {
			c.Close()
		}
		<-done
		t.Fatalf("loop did not finish within %v", d)
	}
}

func TestLoopInterleavesClientsOnOneGoroutine(t *testing.T) {
	const clients, rounds = 6, 50
	conns := dialAll(t, barrierServer(t, clients), clients)
	l := newLoop(t)
	got := make([][]byte, clients)
	errs := make([]error, clients)
	for i, c := range conns {
		task := l.Add(func(task *Task) {
			buf := make([]byte, 1)
			for r := 0; r < rounds; r++ {
				if _, err := c.Write([]byte{'x'}); err != nil {
					errs[i] = err
					return
				}
				if _, err := io.ReadFull(c, buf); err != nil {
					errs[i] = err
					return
				}
				got[i] = append(got[i], buf[0])
			}
		})
		if err := task.Attach(c); err != nil {
			t.Fatal(err)
		}
	}
	runWithin(t, l, conns, 20*time.Second)
	for i := range conns {
		if errs[i] != nil {
			t.Fatalf("client %d: %v", i, errs[i])
		}
		if len(got[i]) != rounds {
			t.Fatalf("client %d finished %d of %d rounds", i, len(got[i]), rounds)
		}
		for _, b := range got[i] {
			if int(b) != i {
				t.Fatalf("client %d got a reply meant for client %d", i, b)
			}
		}
	}
	// Detached again: blocking mode, usable without a loop.
	for _, c := range conns {
		if c.task.Load() != nil {
			t.Fatal("socket still attached after its task returned")
		}
	}
}

func TestLoopSleepLetsOtherClientsRun(t *testing.T) {
	conns := dialAll(t, echoServer(t, false), 1)
	l := newLoop(t)
	var mu sync.Mutex // only for the race detector: both tasks run on one goroutine
	trips, tripsAtWake := 0, -1
	stop := false
	var slept time.Duration
	l.Add(func(task *Task) {
		start := time.Now()
		task.Sleep(50 * time.Millisecond)
		slept = time.Since(start)
		mu.Lock()
		tripsAtWake, stop = trips, true
		mu.Unlock()
	})
	echo := l.Add(func(task *Task) {
		buf := make([]byte, 4)
		for {
			mu.Lock()
			s := stop
			mu.Unlock()
			if s {
				return
			}
			if _, err := conns[0].Write([]byte("ping")); err != nil {
				return
			}
			if _, err := io.ReadFull(conns[0], buf); err != nil {
				return
			}
			mu.Lock()
			trips++
			mu.Unlock()
		}
	})
	if err := echo.Attach(conns[0]); err != nil {
		t.Fatal(err)
	}
	runWithin(t, l, conns, 20*time.Second)
	if slept < 50*time.Millisecond {
		t.Fatalf("Sleep(50ms) returned after %v", slept)
	}
	if tripsAtWake < 1 {
		t.Fatalf("the other client made %d round trips while the first slept", tripsAtWake)
	}
}

func TestLoopCloseFromAnotherGoroutineWakesWaitingClient(t *testing.T) {
	conns := dialAll(t, echoServer(t, true), 1)
	c := conns[0]
	l := newLoop(t)
	var readErr error
	waiting := make(chan struct{})
	task := l.Add(func(task *Task) {
		c.Write([]byte("hello")) // never answered
		close(waiting)
		_, readErr = c.Read(make([]byte, 8))
	})
	if err := task.Attach(c); err != nil {
		t.Fatal(err)
	}
	go func() {
		<-waiting
		time.Sleep(20 * time.Millisecond)
		c.Close()
	}()
	runWithin(t, l, nil, 10*time.Second)
	if readErr == nil || !errors.Is(readErr, net.ErrClosed) && !errors.Is(readErr, io.EOF) {
		t.Fatalf("read on a socket closed meanwhile returned %v, want a closed-connection error", readErr)
	}
	if !c.fdClosed.Load() {
		t.Fatal("the descriptor of a socket closed while attached was not closed when its task ended")
	}
}

func TestAttachRefusesClosedOrTakenSocket(t *testing.T) {
	conns := dialAll(t, echoServer(t, false), 2)
	l := newLoop(t)
	a, b := l.Add(func(*Task) {}), l.Add(func(*Task) {})
	if err := a.Attach(conns[0]); err != nil {
		t.Fatal(err)
	}
	if err := b.Attach(conns[0]); err == nil {
		t.Fatal("a socket attached to one task was attached to a second")
	}
	conns[1].Close()
	if err := b.Attach(conns[1]); !errors.Is(err, net.ErrClosed) {
		t.Fatalf("attaching a closed socket: %v", err)
	}
}

// newLoop makes a loop that is closed when the test ends.
func newLoop(t *testing.T) *Loop {
	t.Helper()
	l, err := NewLoop()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	return l
}
