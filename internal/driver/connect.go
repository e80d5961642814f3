package driver

import (
	"context"
	"errors"
	"fmt"
	"net"
	"time"
)

// Connecting bounds one connection's connect, handshake and first request
// by its URL's timeout, and tells apart how an attempt that failed ended:
// the caller's context (Ctrl-C), the timeout, or the server's answer.
type Connecting struct {
	parent  context.Context
	ctx     context.Context
	timeout time.Duration
	setting string
}

// StartConnecting returns the attempt's context, ending at timeout
// (setting: the URL parameter that sets it, named in the timeout's
// message), and the cancel to defer.
func StartConnecting(parent context.Context, timeout time.Duration, setting string) (*Connecting, context.CancelFunc) {
	ctx, cancel := context.WithTimeout(parent, timeout)
	return &Connecting{parent: parent, ctx: ctx, timeout: timeout, setting: setting}, cancel
}

// Context is the attempt's context: pass it to every dial, handshake and
// first request.
func (c *Connecting) Context() context.Context { return c.ctx }

// Explain returns err as the attempt's end explains it: the caller's
// cancellation (wrapped, so errors.Is finds context.Canceled), or "timed out
// after D connecting to server (SETTING in the URL changes it)", wrapping
// context.DeadlineExceeded; nil when neither ended it, so the driver
// explains err itself. err's text is left out of the timeout's message:
// what a library says of a connection it closed at the deadline ("unexpected
// EOF") only misleads.
func (c *Connecting) Explain(err error, server string) error {
	if err == nil {
		return nil
	}
	if e := c.Interrupted(err, server); e != nil {
		return e
	}
	// A library's own timer at the same deadline may end the attempt an
	// instant before the context's.
	var ne net.Error
	if errors.Is(c.ctx.Err(), context.DeadlineExceeded) || errors.Is(err, context.DeadlineExceeded) || errors.As(err, &ne) && ne.Timeout() {
		return fmt.Errorf("timed out after %v connecting to %s: no answer (%s in the URL sets how long to wait): %w",
			c.timeout, server, c.setting, context.DeadlineExceeded)
	}
	return nil
}

// Interrupted is Explain for the caller's cancellation only: nil unless
// the caller's context ended the attempt.
func (c *Connecting) Interrupted(err error, server string) error {
	if cause := context.Cause(c.parent); err != nil && cause != nil {
		return fmt.Errorf("connecting to %s interrupted: %w", server, cause)
	}
	return nil
}

// Await runs call (a library's connect or ping that does not stop when its
// context ends: clickhouse-go's handshake, the MongoDB driver's disconnect
// of a handshaking monitor) and returns its error, or the attempt's end if
// that comes first. Once call failed or was left behind, release frees what
// it opened, in the background: a library's close can wait out the same
// handshake.
func (c *Connecting) Await(call func(context.Context) error, release func()) error {
	done := make(chan error, 1)
	go func() { done <- call(c.ctx) }()
	select {
	case err := <-done:
		if err != nil {
			go release()
		}
		return err
	case <-c.ctx.Done():
		go func() {
			<-done
			release()
		}()
		return context.Cause(c.ctx)
	}
}
