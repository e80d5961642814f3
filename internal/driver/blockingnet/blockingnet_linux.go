//go:build linux

// Package blockingnet dials database connections whose sockets block an OS thread
// in the kernel while waiting for a reply, the way pgbench's and sysbench's
// threads do. Go's net package waits for every reply through the netpoller, which
// on a small machine shared with the server adds thread hand-offs and wake-ups to
// each round trip; measured against pgbench on 2 vCPUs (bench/README.md), blocking
// sockets lifted select-only from ~9k to ~15k tps at 2 clients, next to pgbench's
// ~17.7k. The runner gives each client its own P while such connections run
// (driver.ThreadPerClient), so a client blocked in a read never holds up another.
//
// FAIRBENCH_NET=netpoll switches back to Go's net package.
package blockingnet

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/sys/unix"
)

// Supported reports whether blocking sockets are available on this platform.
const Supported = true

// Enabled reports whether drivers should dial blocking sockets: on Linux unless
// FAIRBENCH_NET=netpoll.
func Enabled() bool { return os.Getenv("FAIRBENCH_NET") != "netpoll" }

// blockingConn is a net.Conn over a socket in blocking mode.
type blockingConn struct {
	fd     int
	local  net.Addr
	remote net.Addr
	closed atomic.Bool
	mu     sync.Mutex // guards the timeout state below
	rcvSet bool
	sndSet bool
}

// Dial connects like net.Dialer.DialContext ("tcp", "tcp4", "tcp6" or "unix"):
// without blocking, so that the connect honours ctx, then switches the socket to
// blocking mode. Its signature fits pgx's and go-sql-driver's DialFunc.
func Dial(ctx context.Context, network, addr string) (net.Conn, error) {
	var (
		domain int
		sa     unix.Sockaddr
		remote net.Addr
	)
	switch network {
	case "unix":
		domain, sa, remote = unix.AF_UNIX, &unix.SockaddrUnix{Name: addr}, &net.UnixAddr{Name: addr, Net: "unix"}
	case "tcp", "tcp4", "tcp6":
		host, port, err := net.SplitHostPort(addr)
		if err != nil {
			return nil, err
		}
		ips, err := net.DefaultResolver.LookupNetIP(ctx, "ip", host)
		if err != nil || len(ips) == 0 {
			return nil, fmt.Errorf("resolving %s: %v", host, err)
		}
		p, err := net.LookupPort("tcp", port)
		if err != nil {
			return nil, err
		}
		ip := ips[0]
		remote = &net.TCPAddr{IP: ip.AsSlice(), Port: p}
		if ip.Is4() || ip.Is4In6() {
			domain, sa = unix.AF_INET, &unix.SockaddrInet4{Port: p, Addr: ip.Unmap().As4()}
		} else {
			domain, sa = unix.AF_INET6, &unix.SockaddrInet6{Port: p, Addr: ip.As16()}
		}
	default:
		return nil, fmt.Errorf("network %q is not supported", network)
	}
	fd, err := unix.Socket(domain, unix.SOCK_STREAM|unix.SOCK_NONBLOCK|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return nil, os.NewSyscallError("socket", err)
	}
	if err := connectWithin(ctx, fd, sa); err != nil {
		unix.Close(fd)
		return nil, &net.OpError{Op: "dial", Net: network, Addr: remote, Err: err}
	}
	if domain != unix.AF_UNIX {
		// libpq and pgbench disable Nagle too; without it small writes wait for ACKs.
		_ = unix.SetsockoptInt(fd, unix.IPPROTO_TCP, unix.TCP_NODELAY, 1)
		// As net.Dialer does by default: a dead peer is noticed eventually.
		_ = unix.SetsockoptInt(fd, unix.SOL_SOCKET, unix.SO_KEEPALIVE, 1)
	}
	if err := unix.SetNonblock(fd, false); err != nil {
		unix.Close(fd)
		return nil, os.NewSyscallError("fcntl", err)
	}
	c := &blockingConn{fd: fd, remote: remote}
	if la, err := unix.Getsockname(fd); err == nil {
		c.local = sockaddrToAddr(la)
	}
	return c, nil
}

// connectWithin connects a non-blocking socket, waiting at most until ctx ends.
func connectWithin(ctx context.Context, fd int, sa unix.Sockaddr) error {
	err := unix.Connect(fd, sa)
	if err == nil {
		return nil
	}
	if !errors.Is(err, unix.EINPROGRESS) && !errors.Is(err, unix.EINTR) {
		return os.NewSyscallError("connect", err)
	}
	for {
		wait := 100 // ms: short enough to notice a cancelled context promptly
		if dl, ok := ctx.Deadline(); ok {
			left := time.Until(dl)
			if left <= 0 {
				return os.ErrDeadlineExceeded
			}
			wait = min(wait, int(left/time.Millisecond)+1)
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		pfd := []unix.PollFd{{Fd: int32(fd), Events: unix.POLLOUT}}
		n, err := unix.Poll(pfd, wait)
		if err != nil && !errors.Is(err, unix.EINTR) {
			return os.NewSyscallError("poll", err)
		}
		if n > 0 {
			soErr, err := unix.GetsockoptInt(fd, unix.SOL_SOCKET, unix.SO_ERROR)
			if err != nil {
				return os.NewSyscallError("getsockopt", err)
			}
			if soErr != 0 {
				return os.NewSyscallError("connect", unix.Errno(soErr))
			}
			return nil
		}
	}
}

func sockaddrToAddr(sa unix.Sockaddr) net.Addr {
	switch a := sa.(type) {
	case *unix.SockaddrInet4:
		return &net.TCPAddr{IP: net.IP(a.Addr[:]), Port: a.Port}
	case *unix.SockaddrInet6:
		return &net.TCPAddr{IP: net.IP(a.Addr[:]), Port: a.Port}
	case *unix.SockaddrUnix:
		return &net.UnixAddr{Name: a.Name, Net: "unix"}
	}
	return nil
}

func (c *blockingConn) Read(p []byte) (int, error) {
	for {
		n, err := unix.Read(c.fd, p)
		switch {
		case err == nil && n == 0 && len(p) > 0:
			return 0, io.EOF
		case err == nil:
			return n, nil
		case errors.Is(err, unix.EINTR):
			continue
		}
		return 0, c.opError("read", err)
	}
}

func (c *blockingConn) Write(p []byte) (int, error) {
	written := 0
	for written < len(p) {
		n, err := unix.Write(c.fd, p[written:])
		if errors.Is(err, unix.EINTR) {
			continue
		}
		if err != nil {
			return written, c.opError("write", err)
		}
		written += n
	}
	return written, nil
}

// opError maps errno to what pgx expects: timeouts as os.ErrDeadlineExceeded.
func (c *blockingConn) opError(op string, err error) error {
	if c.closed.Load() {
		return &net.OpError{Op: op, Net: "tcp", Addr: c.remote, Err: net.ErrClosed}
	}
	if errors.Is(err, unix.EAGAIN) {
		err = os.ErrDeadlineExceeded // SO_RCVTIMEO / SO_SNDTIMEO expired
	} else {
		err = os.NewSyscallError(op, err)
	}
	return &net.OpError{Op: op, Net: "tcp", Addr: c.remote, Err: err}
}

// Close wakes any goroutine blocked in Read or Write (shutdown) and closes the socket.
func (c *blockingConn) Close() error {
	if c.closed.Swap(true) {
		return nil
	}
	_ = unix.Shutdown(c.fd, unix.SHUT_RDWR)
	return unix.Close(c.fd)
}

func (c *blockingConn) LocalAddr() net.Addr  { return c.local }
func (c *blockingConn) RemoteAddr() net.Addr { return c.remote }

func (c *blockingConn) SetDeadline(t time.Time) error {
	if err := c.SetReadDeadline(t); err != nil {
		return err
	}
	return c.SetWriteDeadline(t)
}

func (c *blockingConn) SetReadDeadline(t time.Time) error {
	return c.setTimeout(unix.SO_RCVTIMEO, &c.rcvSet, t)
}

func (c *blockingConn) SetWriteDeadline(t time.Time) error {
	return c.setTimeout(unix.SO_SNDTIMEO, &c.sndSet, t)
}

// setTimeout turns a deadline into a socket timeout. A deadline already past is
// how pgx interrupts a query whose context ended: a blocked read cannot be woken
// by a timeout set after it began, so the socket is shut down instead, which is
// what pgx does with the connection afterwards anyway.
func (c *blockingConn) setTimeout(opt int, set *bool, t time.Time) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if t.IsZero() {
		if !*set {
			return nil // the common case costs no system call
		}
		*set = false
		return unix.SetsockoptTimeval(c.fd, unix.SOL_SOCKET, opt, &unix.Timeval{})
	}
	left := time.Until(t)
	if left <= 0 {
		return unix.Shutdown(c.fd, unix.SHUT_RDWR)
	}
	*set = true
	tv := unix.NsecToTimeval(left.Nanoseconds())
	return unix.SetsockoptTimeval(c.fd, unix.SOL_SOCKET, opt, &tv)
}
