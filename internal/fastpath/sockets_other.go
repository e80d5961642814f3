//go:build !linux

package fastpath

import (
	"context"
	"errors"
	"net"
	"time"
)

// Supported reports whether blocking sockets and loops are available on this platform.
const Supported = false

// Enabled is false where blocking sockets are not implemented.
func Enabled() bool { return false }

// Dial falls back to Go's net package.
func Dial(ctx context.Context, network, addr string) (net.Conn, error) {
	return (&net.Dialer{}).DialContext(ctx, network, addr)
}

var errUnsupported = errors.New("fastpath: event loops are implemented on Linux only")

// Conn is never produced on this platform.
type Conn struct{ net.Conn }

// Loop is not available on this platform.
type Loop struct{}

// Task is not available on this platform.
type Task struct{}

// NewLoop fails on this platform.
func NewLoop() (*Loop, error) { return nil, errUnsupported }

// Add is not available on this platform.
func (l *Loop) Add(body func(*Task)) *Task { return &Task{} }

// Run is not available on this platform.
func (l *Loop) Run() {}

// Close is not available on this platform.
func (l *Loop) Close() error { return nil }

// Attach fails on this platform.
func (t *Task) Attach(c *Conn) error { return errUnsupported }

// detach does nothing on this platform.
func (t *Task) detach() {}

// Sleep sleeps on this platform.
func (t *Task) Sleep(d time.Duration) { time.Sleep(d) }

// SetBody does nothing on this platform.
func (t *Task) SetBody(body func(*Task)) {}
