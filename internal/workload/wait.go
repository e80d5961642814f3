package workload

import (
	"context"
	"errors"
	"time"
)

// ErrStopped, returned by Wait, says that the run stopped its clients (the
// measured phase ended, or Ctrl-C) while the operation waited outside its
// requests. An Op returns it as it is: what it had not sent yet is neither
// done nor failed, and the runner records nothing for it.
var ErrStopped = errors.New("the run stopped its clients during the operation's wait")

type stopKey struct{}

// WithStop returns ctx carrying stop, closed when the run stops its clients.
// The runner gives operations a context it never cancels (drivers would
// watch each statement's), so their waits learn of the stop from this.
func WithStop(ctx context.Context, stop <-chan struct{}) context.Context {
	return context.WithValue(ctx, stopKey{}, stop)
}

// Wait waits d outside the operation's requests (a keying or think time,
// a script's \sleep, a backoff), and returns early when ctx ends (its error)
// or the run stops its clients (ErrStopped).
func Wait(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	stop, _ := ctx.Value(stopKey{}).(<-chan struct{})
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-stop:
		return ErrStopped
	case <-t.C:
		return nil
	}
}
