package fastpath

import "context"

// ThreadPerClient is the optional capability of sessions whose reads block an
// OS thread in the kernel (as pgbench's threads do) instead of parking in Go's
// netpoller: their socket is a Conn of this package. The runner then gives the
// Go scheduler a P per client for the run, so that a client blocked in a read
// never holds up another.
type ThreadPerClient interface {
	BlocksThread() bool
}

// Multiplexer is the optional capability of sessions that run on the fast
// path. Multiplex readies the session for it — from then on the workload's
// statements take the driver's hand-written path where it has one (PostgreSQL's
// wire path), so the code path does not depend on how many clients there are —
// and returns its socket. The runner calls it on every worker session while
// Enabled, whatever the I/O model; with more clients than threads it attaches
// the socket to the Task of the client that owns the session (Loop), several
// clients per thread, as pgbench -j drives its connections. From then on only
// that client uses the session (Interrupt and Close excepted). Multiplex may be
// called again and returns the same socket.
type Multiplexer interface {
	Multiplex(ctx context.Context) (*Conn, error)
}
