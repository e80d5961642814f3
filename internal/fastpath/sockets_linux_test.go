//go:build linux

package fastpath

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net"
	"os"
	"testing"
	"time"
)

// echoServer accepts connections on loopback and echoes what it reads, or, with
// silent, reads and never answers.
func echoServer(t *testing.T, silent bool) string {
	t.Helper()
	l := listen(t)
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			go func(c net.Conn) {
				defer c.Close()
				if silent {
					io.Copy(io.Discard, c)
					return
				}
				io.Copy(c, c)
			}(c)
		}
	}()
	return l.Addr().String()
}

// listen listens on a loopback port for the test's duration.
func listen(t *testing.T) net.Listener {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	return l
}

func TestBlockingConnRoundTrip(t *testing.T) {
	c, err := Dial(context.Background(), "tcp", echoServer(t, false))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	msg := bytes.Repeat([]byte("fairbench"), 10000) // larger than one segment
	go c.Write(msg)
	got := make([]byte, len(msg))
	if _, err := io.ReadFull(c, got); err != nil || !bytes.Equal(got, msg) {
		t.Fatalf("echo mismatch: %v", err)
	}
	if c.RemoteAddr().String() == "" || c.LocalAddr() == nil {
		t.Fatal("addresses missing")
	}
}

func TestBlockingConnDeadlines(t *testing.T) {
	c, err := Dial(context.Background(), "tcp", echoServer(t, true))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	// A future deadline ends a read that gets no answer with a timeout error.
	c.SetReadDeadline(time.Now().Add(50 * time.Millisecond))
	_, err = c.Read(make([]byte, 10))
	var ne net.Error
	if !errors.Is(err, os.ErrDeadlineExceeded) || !errors.As(err, &ne) || !ne.Timeout() {
		t.Fatalf("want a timeout, got %v", err)
	}
	// Clearing it, then setting a deadline in the past while a read is blocked,
	// wakes the read (pgx does this when a query's context ends).
	c.SetReadDeadline(time.Time{})
	done := make(chan error, 1)
	go func() { _, err := c.Read(make([]byte, 10)); done <- err }()
	time.Sleep(50 * time.Millisecond)
	c.SetDeadline(time.Now().Add(-time.Second))
	select {
	case err := <-done:
		if err == nil {
			t.Fatal("read returned no error after the deadline passed")
		}
	case <-time.After(5 * time.Second):
		t.Fatal("a read blocked past its deadline")
	}
}

func TestBlockingConnCloseWakesReader(t *testing.T) {
	c, err := Dial(context.Background(), "tcp", echoServer(t, true))
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { _, err := c.Read(make([]byte, 10)); done <- err }()
	time.Sleep(50 * time.Millisecond)
	c.Close()
	select {
	case err := <-done:
		if !errors.Is(err, net.ErrClosed) && !errors.Is(err, io.EOF) {
			t.Fatalf("want closed or EOF, got %v", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Close did not wake a blocked read")
	}
	if err := c.Close(); err != nil {
		t.Fatalf("second Close: %v", err)
	}
}

func TestBlockingDialErrors(t *testing.T) {
	l, _ := net.Listen("tcp", "127.0.0.1:0")
	addr := l.Addr().String()
	l.Close()
	if _, err := Dial(context.Background(), "tcp", addr); err == nil {
		t.Fatal("dialing a closed port succeeded")
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Dial(ctx, "tcp", echoServer(t, false)); err != nil && !errors.Is(err, context.Canceled) {
		// A loopback connect may finish before the context is looked at; either outcome
		// is fine, but an error must be the context's.
		t.Fatalf("want success or context.Canceled, got %v", err)
	}
	if _, err := Dial(context.Background(), "udp", addr); err == nil {
		t.Fatal("udp accepted")
	}
}

func TestDialUnixSocket(t *testing.T) {
	path := t.TempDir() + "/s.sock"
	l, err := net.Listen("unix", path)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	go func() {
		c, err := l.Accept()
		if err == nil {
			io.Copy(c, c)
			c.Close()
		}
	}()
	c, err := Dial(context.Background(), "unix", path)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.Write([]byte("ping"))
	got := make([]byte, 4)
	if _, err := io.ReadFull(c, got); err != nil || string(got) != "ping" {
		t.Fatalf("got %q, %v", got, err)
	}
}
