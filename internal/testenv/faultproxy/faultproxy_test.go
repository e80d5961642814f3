package faultproxy

import (
	"bufio"
	"net"
	"strings"
	"testing"
	"time"
)

// echo is an upstream that answers each line with the line.
func echo(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				sc := bufio.NewScanner(c)
				for sc.Scan() {
					c.Write([]byte(sc.Text() + "\n"))
				}
			}()
		}
	}()
	return ln.Addr().String()
}

func roundTrip(c net.Conn, line string) (string, error) {
	c.SetDeadline(time.Now().Add(3 * time.Second))
	if _, err := c.Write([]byte(line + "\n")); err != nil {
		return "", err
	}
	return bufio.NewReader(c).ReadString('\n')
}

func TestForwardResetDownLatency(t *testing.T) {
	p, err := Start(echo(t))
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	c, err := net.Dial("tcp", p.Addr())
	if err != nil {
		t.Fatal(err)
	}
	if got, err := roundTrip(c, "hello"); err != nil || got != "hello\n" {
		t.Fatalf("forwarding: %q %v", got, err)
	}
	time.Sleep(50 * time.Millisecond)
	if n := p.ResetAll(); n != 1 {
		t.Fatalf("reset %d connections, want 1", n)
	}
	if _, err := roundTrip(c, "again"); err == nil || !strings.Contains(err.Error(), "reset") && !strings.Contains(err.Error(), "EOF") && !strings.Contains(err.Error(), "broken pipe") {
		t.Fatalf("after a reset: %v", err)
	}
	c.Close()

	p.Down()
	if _, err := net.DialTimeout("tcp", p.Addr(), time.Second); err == nil || !strings.Contains(err.Error(), "refused") {
		t.Fatalf("down: dial %v, want refused", err)
	}
	if err := p.up(); err != nil {
		t.Fatal(err)
	}
	c, err = net.Dial("tcp", p.Addr())
	if err != nil {
		t.Fatalf("up again: %v", err)
	}
	defer c.Close()
	p.SetLatency(150 * time.Millisecond)
	start := time.Now()
	if got, err := roundTrip(c, "slow"); err != nil || got != "slow\n" {
		t.Fatalf("with latency: %q %v", got, err)
	}
	if el := time.Since(start); el < 300*time.Millisecond {
		t.Fatalf("round trip took %v, want ≥ 300 ms (150 ms each way)", el)
	}
}

func TestCutReplies(t *testing.T) {
	p, err := Start(echo(t))
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	c, err := net.Dial("tcp", p.Addr())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if got, err := roundTrip(c, "whole"); err != nil || got != "whole\n" {
		t.Fatalf("%q %v", got, err)
	}
	p.CutReplies(3)
	got, err := roundTrip(c, "abcdef")
	if got != "abc" || err == nil {
		t.Fatalf("cut reply: %q %v, want \"abc\" and an error", got, err)
	}
	later, err := net.Dial("tcp", p.Addr())
	if err != nil {
		t.Fatal(err)
	}
	defer later.Close()
	if got, err := roundTrip(later, "spared"); err != nil || got != "spared\n" {
		t.Fatalf("a later connection must be spared: %q %v", got, err)
	}
}
