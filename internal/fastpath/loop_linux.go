//go:build linux

package fastpath

import (
	"errors"
	"fmt"
	"iter"
	"net"
	"os"
	"time"

	"golang.org/x/sys/unix"
)

// Loop drives several clients from one goroutine, the way one pgbench -j thread
// drives its connections: each client runs as a coroutine (iter.Pull) that
// switches back to the loop when its socket would block, and the loop waits for
// the sockets of all its clients in one epoll_wait and resumes the ones whose
// socket became ready. A client's code stays plain blocking code, and a switch
// between coroutines costs far less than waking another thread: measured at 8
// clients on 2 vCPUs, ~10.5 µs of client CPU per select-only transaction on two
// loops against ~15 µs with a thread per client (bench/README.md).
//
// Code running on a loop must not block other than through its attached socket
// or Task.Sleep: a coroutine that waits on a mutex or a channel stops every
// client of its loop until it is woken.
type Loop struct {
	ep    int
	tasks []*Task
	// byFD finds the task of a ready socket by descriptor number (small
	// numbers, so a slice: a map lookup per wake-up showed in profiles).
	byFD     []*Task
	sleepers int
	events   []unix.EpollEvent
	// timer wakes sleeping tasks with the nanosecond precision that a rate
	// schedule needs (epoll_wait's own timeout counts milliseconds).
	timer   int
	armedAt time.Time
}

// Task is one client on a loop.
type Task struct {
	loop    *Loop
	conn    *Conn
	body    func(*Task)
	next    func() (struct{}, bool)
	stop    func()
	yield   func(struct{}) bool
	waiting bool      // suspended until its socket is ready
	wakeAt  time.Time // suspended until then (Sleep); zero otherwise
	done    bool
}

// NewLoop creates a loop with no clients.
func NewLoop() (*Loop, error) {
	ep, err := unix.EpollCreate1(unix.EPOLL_CLOEXEC)
	if err != nil {
		return nil, os.NewSyscallError("epoll_create1", err)
	}
	timer, err := unix.TimerfdCreate(unix.CLOCK_MONOTONIC, unix.TFD_NONBLOCK|unix.TFD_CLOEXEC)
	if err != nil {
		unix.Close(ep)
		return nil, os.NewSyscallError("timerfd_create", err)
	}
	ev := unix.EpollEvent{Events: unix.EPOLLIN, Fd: int32(timer)}
	if err := unix.EpollCtl(ep, unix.EPOLL_CTL_ADD, timer, &ev); err != nil {
		unix.Close(ep)
		unix.Close(timer)
		return nil, os.NewSyscallError("epoll_ctl", err)
	}
	return &Loop{ep: ep, timer: timer, events: make([]unix.EpollEvent, 128)}, nil
}

// Add makes body a client of the loop, started by Run. The task's socket is
// attached with Task.Attach (before Run or from body itself).
func (l *Loop) Add(body func(*Task)) *Task {
	t := &Task{loop: l, body: body}
	l.tasks = append(l.tasks, t)
	return t
}

// SetBody sets (or replaces, before Run) what the task runs.
func (t *Task) SetBody(body func(*Task)) { t.body = body }

// Attach hands c's reads and writes to the loop: the socket turns non-blocking,
// and a read or write that would block suspends the task until the socket is
// ready. A socket attached before replaces the task's previous one, which is
// detached (and its descriptor closed if the socket was closed meanwhile).
func (t *Task) Attach(c *Conn) error {
	if c.closed.Load() {
		return &net.OpError{Op: "attach", Net: "tcp", Addr: c.remote, Err: net.ErrClosed}
	}
	if !c.task.CompareAndSwap(nil, t) {
		return errors.New("sockets: socket is attached to another task already")
	}
	if err := unix.SetNonblock(c.fd, true); err != nil {
		c.task.Store(nil)
		return os.NewSyscallError("fcntl", err)
	}
	// Edge-triggered: one registration for the socket's life; a wake-up is
	// looked at only if the task is waiting, and a task waits only after a
	// read or write said EAGAIN or right after sending a request, so the edge
	// it needs (more room, or the reply arriving) is always still to come.
	ev := unix.EpollEvent{Events: unix.EPOLLIN | unix.EPOLLOUT | unix.EPOLLRDHUP | unix.EPOLLET, Fd: int32(c.fd)}
	if err := unix.EpollCtl(t.loop.ep, unix.EPOLL_CTL_ADD, c.fd, &ev); err != nil {
		c.task.Store(nil)
		_ = unix.SetNonblock(c.fd, false)
		return os.NewSyscallError("epoll_ctl", err)
	}
	t.detach()
	t.conn = c
	for len(t.loop.byFD) <= c.fd {
		t.loop.byFD = append(t.loop.byFD, nil)
	}
	t.loop.byFD[c.fd] = t
	return nil
}

// detach gives the task's socket back to blocking mode (or closes its
// descriptor if the socket was closed while attached).
func (t *Task) detach() {
	c := t.conn
	if c == nil {
		return
	}
	t.conn = nil
	t.loop.byFD[c.fd] = nil
	_ = unix.EpollCtl(t.loop.ep, unix.EPOLL_CTL_DEL, c.fd, nil)
	c.task.Store(nil)
	if c.closed.Load() {
		_ = c.closeFD()
		return
	}
	_ = unix.SetNonblock(c.fd, false)
}

// wait suspends the task until its socket is ready (or hung up).
func (t *Task) wait() {
	t.waiting = true
	t.yield(struct{}{})
}

// Sleep suspends the task for d; the loop's other clients go on meanwhile.
func (t *Task) Sleep(d time.Duration) {
	if d <= 0 {
		return
	}
	t.wakeAt = time.Now().Add(d)
	t.loop.sleepers++
	t.yield(struct{}{})
}

// Run starts every client and drives them until all have returned. It runs on
// the calling goroutine.
func (l *Loop) Run() {
	live := 0
	for _, t := range l.tasks {
		t := t
		t.next, t.stop = iter.Pull(func(yield func(struct{}) bool) {
			t.yield = yield
			t.body(t)
		})
		live++
		if !l.resume(t) {
			live--
		}
	}
	lastYield := time.Now()
	for live > 0 {
		if l.sleepers > 0 {
			l.armTimer()
		}
		// The timeout only bounds how long a lost wake-up could stall a task.
		n, err := unix.EpollWait(l.ep, l.events, 100)
		if err != nil && err != unix.EINTR {
			panic(fmt.Sprintf("sockets: epoll_wait: %v", err)) // EBADF/EINVAL: a bug, not a condition
		}
		for _, ev := range l.events[:max(n, 0)] {
			if ev.Fd == int32(l.timer) {
				var buf [8]byte
				_, _ = unix.Read(l.timer, buf[:]) // clears it; the due tasks are found below
				l.armedAt = time.Time{}
				continue
			}
			var t *Task
			if int(ev.Fd) < len(l.byFD) {
				t = l.byFD[ev.Fd]
			}
			if t == nil || !t.waiting {
				continue
			}
			t.waiting = false
			if !l.resume(t) {
				live--
			}
		}
		now := time.Now()
		if l.sleepers > 0 || n <= 0 {
			for _, t := range l.tasks {
				if t.done {
					continue
				}
				wake := !t.wakeAt.IsZero() && !now.Before(t.wakeAt)
				// A socket closed by another goroutine while its task waits:
				// the hang-up normally wakes it, this makes sure.
				if t.waiting && t.conn != nil && t.conn.closed.Load() {
					wake, t.waiting = true, false
				}
				if wake && !l.resume(t) {
					live--
				}
			}
		}
		yieldIfDue(&lastYield, now)
	}
}

// armTimer sets the timer to the earliest wake-up of a sleeping task.
func (l *Loop) armTimer() {
	var first time.Time
	for _, t := range l.tasks {
		if !t.wakeAt.IsZero() && (first.IsZero() || t.wakeAt.Before(first)) {
			first = t.wakeAt
		}
	}
	if first.IsZero() || first.Equal(l.armedAt) {
		return
	}
	d := max(time.Until(first), time.Microsecond) // zero would disarm it
	spec := unix.ItimerSpec{Value: unix.NsecToTimespec(d.Nanoseconds())}
	if err := unix.TimerfdSettime(l.timer, 0, &spec, nil); err != nil {
		panic(fmt.Sprintf("sockets: timerfd_settime: %v", err))
	}
	l.armedAt = first
}

// resume runs t until it waits again; false once its body has returned.
func (l *Loop) resume(t *Task) bool {
	if !t.wakeAt.IsZero() {
		t.wakeAt = time.Time{}
		l.sleepers--
	}
	if _, ok := t.next(); ok {
		return true
	}
	t.done = true
	t.detach()
	return false
}

// Close releases the loop's epoll descriptor; call it after Run returned.
func (l *Loop) Close() error {
	for _, t := range l.tasks {
		if t.stop != nil {
			t.stop()
		}
		t.detach()
	}
	unix.Close(l.timer)
	return unix.Close(l.ep)
}
