//go:build linux

// Package fastpath is fairbench's optional hand-written client fast path: the
// database sockets of its clients, kept out of Go's netpoller, the event loop
// that drives several of them from one thread, and the capabilities a driver's
// session declares to use them (ThreadPerClient, Multiplexer). Package driver
// knows nothing of it; the runner asks for these capabilities when Enabled. Go's net package waits for every reply through the netpoller, which on
// a small machine shared with the server adds thread hand-offs and wake-ups to
// each round trip (bench/README.md: select-only at 2 clients ~9k → ~15k tps on
// 2 vCPUs once reads blocked in the kernel instead).
//
// A socket starts in blocking mode: a read parks its OS thread in the kernel,
// as sysbench's threads and pgbench's one-client threads do; the runner then
// gives each client its own P (ThreadPerClient). With more clients than
// threads, pgbench -j multiplexes several connections per thread with ppoll;
// a Loop does the same here (loop_linux.go): each client runs as a coroutine
// on the loop's goroutine and yields to the loop when its socket would block.
//
// FAIRBENCH_NET=netpoll switches back to Go's net package.
package fastpath

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
	"unsafe"

	"golang.org/x/sys/unix"
)

// Supported reports whether blocking sockets are available on this platform.
const Supported = true

// Enabled reports whether drivers should dial blocking sockets: on Linux unless
// FAIRBENCH_NET=netpoll.
func Enabled() bool { return os.Getenv("FAIRBENCH_NET") != "netpoll" }

// Conn is a net.Conn over a socket that blocks its thread in the kernel, or,
// once attached to a Loop's task, yields to the loop instead.
type Conn struct {
	fd     int
	local  net.Addr
	remote net.Addr
	closed atomic.Bool
	mu     sync.Mutex // guards the timeout state below
	rcvSet bool
	sndSet bool
	// task is the loop task the socket is attached to (nil: blocking mode).
	// Only that task's coroutine reads and writes the socket then; other
	// goroutines may only Close it or set a past deadline, which shut it down.
	task atomic.Pointer[Task]
	// fdClosed: the descriptor itself is closed (see Close).
	fdClosed atomic.Bool
	// sent: the last call was a write (see Read); used on a loop only.
	sent bool
	// lastYield: when a write in blocking mode last yielded (see Write).
	lastYield time.Time
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
	c := &Conn{fd: fd, remote: remote}
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

func (c *Conn) Read(p []byte) (int, error) {
	if t := c.task.Load(); t != nil && c.sent {
		// A reply to what was just sent cannot be there yet: wait for it in
		// the loop rather than spend a read on EAGAIN (edge-triggered epoll
		// reports the reply's arrival whenever it comes). One system call and
		// a fifth of the context switches less per transaction at 8 clients
		// on 2 loops (bench/README.md).
		c.sent = false
		t.wait()
	}
	for {
		if c.closed.Load() {
			return 0, c.opError("read", net.ErrClosed)
		}
		n, err := c.read(p)
		switch {
		case err == nil && n == 0 && len(p) > 0:
			return 0, io.EOF
		case err == nil:
			return n, nil
		case c.again(err):
			continue
		}
		return 0, c.opError("read", err)
	}
}

// read and write are read(2) and write(2). On a loop the socket is
// non-blocking, so the call cannot park the thread, and it is made without the
// scheduler's entersyscall/exitsyscall bookkeeping, which only matters for a
// call that may block (so that another thread can take over the P). Measured
// at 8 clients on 2 loops (select-only, perf cpu-clock samples of fairbench's
// own code, 4 paired runs): 3.00 → 2.85 µs of client user CPU per transaction.
func (c *Conn) read(p []byte) (int, error) {
	if c.task.Load() == nil {
		return unix.Read(c.fd, p)
	}
	return rawIO(unix.SYS_READ, c.fd, p)
}

func (c *Conn) write(p []byte) (int, error) {
	if c.task.Load() == nil {
		return unix.Write(c.fd, p)
	}
	return rawIO(unix.SYS_WRITE, c.fd, p)
}

func rawIO(trap uintptr, fd int, p []byte) (int, error) {
	var buf unsafe.Pointer
	if len(p) > 0 {
		buf = unsafe.Pointer(&p[0])
	}
	n, _, errno := unix.RawSyscall(trap, uintptr(fd), uintptr(buf), uintptr(len(p)))
	if errno != 0 {
		return 0, errno
	}
	return int(n), nil
}

// again reports whether a read or write that failed with err is to be tried
// again: after a signal, or, on a loop, once the socket is ready.
func (c *Conn) again(err error) bool {
	switch err {
	case unix.EINTR:
		return true
	case unix.EAGAIN:
		if t := c.task.Load(); t != nil {
			t.wait()
			return true
		}
	}
	return false
}

func (c *Conn) Write(p []byte) (int, error) {
	written := 0
	for written < len(p) {
		if c.closed.Load() {
			return written, c.opError("write", net.ErrClosed)
		}
		n, err := c.write(p[written:])
		switch {
		case err == nil:
			written += n
			if c.task.Load() != nil {
				c.sent = true // only the task's coroutine uses an attached socket
			}
			continue
		case c.again(err):
			continue
		}
		return written, c.opError("write", err)
	}
	if c.task.Load() == nil {
		// A client with a thread of its own waits only in system calls, so it
		// yields to the Go scheduler now and then (YieldEvery), right after a
		// request went out: the thread hand-over that a yield mostly causes
		// then overlaps with the server working on the request, instead of
		// holding up the next request while the server has nothing to do
		// (measured: the machine's idle time at 2 MariaDB point-select threads
		// on 2 vCPUs, bench/README.md). A loop yields by itself, between its
		// epoll_waits.
		yieldIfDue(&c.lastYield, time.Now())
	}
	return written, nil
}

// opError maps errno to what pgx expects: timeouts as os.ErrDeadlineExceeded.
func (c *Conn) opError(op string, err error) error {
	if c.closed.Load() || err == net.ErrClosed {
		return &net.OpError{Op: op, Net: "tcp", Addr: c.remote, Err: net.ErrClosed}
	}
	if errors.Is(err, unix.EAGAIN) {
		err = os.ErrDeadlineExceeded // SO_RCVTIMEO / SO_SNDTIMEO expired
	} else {
		err = os.NewSyscallError(op, err)
	}
	return &net.OpError{Op: op, Net: "tcp", Addr: c.remote, Err: err}
}

// Close wakes any goroutine blocked in Read or Write (shutdown) and closes the
// socket. An attached socket is only shut down: its task may be waiting in the
// loop for it, and the loop must see the hang-up before the descriptor goes
// (and its number is reused); the task's detach closes it.
func (c *Conn) Close() error {
	if c.closed.Swap(true) {
		return nil
	}
	_ = unix.Shutdown(c.fd, unix.SHUT_RDWR)
	if c.task.Load() != nil {
		return nil
	}
	return c.closeFD()
}

func (c *Conn) closeFD() error {
	if c.fdClosed.Swap(true) {
		return nil
	}
	return unix.Close(c.fd)
}

func (c *Conn) LocalAddr() net.Addr  { return c.local }
func (c *Conn) RemoteAddr() net.Addr { return c.remote }

func (c *Conn) SetDeadline(t time.Time) error {
	if err := c.SetReadDeadline(t); err != nil {
		return err
	}
	return c.SetWriteDeadline(t)
}

func (c *Conn) SetReadDeadline(t time.Time) error {
	return c.setTimeout(unix.SO_RCVTIMEO, &c.rcvSet, t)
}

func (c *Conn) SetWriteDeadline(t time.Time) error {
	return c.setTimeout(unix.SO_SNDTIMEO, &c.sndSet, t)
}

// setTimeout turns a deadline into a socket timeout. A deadline already past is
// how pgx interrupts a query whose context ended: a blocked read cannot be woken
// by a timeout set after it began, so the socket is shut down instead, which is
// what pgx does with the connection afterwards anyway.
func (c *Conn) setTimeout(opt int, set *bool, t time.Time) error {
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
	if c.task.Load() != nil {
		// A loop's sockets never block; their tasks are woken by the shutdown above.
		return nil
	}
	*set = true
	tv := unix.NsecToTimeval(left.Nanoseconds())
	return unix.SetsockoptTimeval(c.fd, unix.SOL_SOCKET, opt, &tv)
}
