package driver

import (
	"context"
	"fmt"
)

// connectionLimiter is implemented by sessions whose server caps its
// connections: how many more this user may open now (the connection asking
// counts as free: it closes before the clients connect), and how that number
// was reached, for messages.
type connectionLimiter interface {
	ConnectionLimit(ctx context.Context) (available int, detail string, err error)
}

// filesPerClienter is the optional capability of drivers whose clients hold
// another number of file descriptors than the default (a socket, or for an
// engine in the process 3: SQLite's database file, journal and shared-memory
// index); embedded key-value engines share one handle: 0.
type filesPerClienter interface {
	FilesPerClient() int
}

// filesPerClient is how many file descriptors one client holds in this process.
func filesPerClient(rawURL string) int {
	if d, err := ForURL(rawURL); err == nil {
		if f, ok := d.(filesPerClienter); ok {
			return f.FilesPerClient()
		}
	}
	if EngineInProcess(rawURL) {
		return 3
	}
	return 1
}

// sessionMemorier is the optional capability of drivers whose sessions hold
// another amount of memory in this process than a network session's
// (networkSessionMemory): an embedded engine's session holds only its reply
// buffer, SQLite's its page cache.
type sessionMemorier interface {
	SessionMemory() int64
}

// networkSessionMemory is what a session over the network holds here: its
// socket's read and write buffers and the client library's state (pgx,
// go-redis and the MySQL driver keep 4–32 KB buffers each way).
const networkSessionMemory = 64 << 10

// SessionMemory is the memory in bytes one session to the target at rawURL
// holds in this process, as its driver declares it.
func SessionMemory(rawURL string) int64 {
	if d, err := ForURL(rawURL); err == nil {
		if m, ok := d.(sessionMemorier); ok {
			return m.SessionMemory()
		}
	}
	return networkSessionMemory
}

// reservedFiles are the descriptors fairbench keeps for itself beside its
// clients: the results file and its journal, standard streams, a control
// connection, the runtime's own.
const reservedFiles = 32

// CheckClients says, before anything runs, whether clients connections to
// target fit what the target allows: CheckOpenFiles, then CheckConnections.
func CheckClients(ctx context.Context, t Target, clients int) error {
	if err := CheckOpenFiles(t, clients); err != nil {
		return err
	}
	return CheckConnections(ctx, t, clients)
}

// CheckOpenFiles says whether clients connections to target fit this
// process's open-file limit, for every engine, without connecting. The error
// names the target, the number asked and the limit.
func CheckOpenFiles(t Target, clients int) error {
	if limit, ok := openFileLimit(); ok && clients > 0 {
		need := clients*filesPerClient(t.URL) + reservedFiles
		if uint64(need) > limit {
			per := ""
			if n := filesPerClient(t.URL); n > 1 {
				per = fmt.Sprintf(" (%d files per client on this engine)", n)
			}
			return fmt.Errorf("target %q: %d clients need about %d open files%s, above this process's open-file limit of %d (ulimit -n): "+
				"lower clients to at most %d, or raise the limit", t.Name, clients, need, per, limit, (int(limit)-reservedFiles)/filesPerClient(t.URL))
		}
	}
	return nil
}

// CheckConnections says whether clients connections to target fit its
// server's connection limit, where the driver can tell. The error names the
// target, the number asked and the limit. A target that cannot be reached is
// left to the caller's own connection to report.
func CheckConnections(ctx context.Context, t Target, clients int) error {
	if clients <= 0 {
		return nil
	}
	d, err := ForURL(t.URL)
	if err != nil {
		return nil
	}
	cl, err := d.Open(ctx, t, Options{})
	if err != nil {
		return nil
	}
	defer cl.Close(ctx)
	conn, err := cl.Session(ctx)
	if err != nil {
		return nil
	}
	defer conn.Close(ctx)
	lim, ok := conn.(connectionLimiter)
	if !ok {
		return nil
	}
	avail, detail, err := lim.ConnectionLimit(ctx)
	if err != nil {
		return nil // not allowed to read the settings: the run will tell
	}
	// fairbench keeps one connection of its own open beside the clients
	// (preparing data, reading the environment).
	if clients+1 > avail {
		return fmt.Errorf("target %q: %d clients (and fairbench's own connection) exceed the %d connections the server accepts now (%s): "+
			"lower clients to at most %d, or raise the server's limit", t.Name, clients, avail, detail, max(avail-1, 0))
	}
	return nil
}
