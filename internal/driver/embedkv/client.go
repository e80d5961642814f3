package embedkv

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"sync"

	"github.com/fairbench/fairbench/internal/driver"
	"github.com/fairbench/fairbench/internal/envinfo"
	"github.com/fairbench/fairbench/internal/result"
)

// Registry is an engine's databases open in this process, by absolute path.
// A database has one owner (bbolt and pebble lock it against a second open,
// even from the same process), so the clients of one path share one Handle,
// with a reference count, and the last of them to close closes it. C is the
// engine's parsed URL and DB its open database.
type Registry[C comparable, DB io.Closer] struct {
	Engine *Engine
	// Path is where C holds the database's path, as the URL gave it.
	Path func(c *C) *string
	// Unit is what holds one database, for errors: "file".
	Unit string
	// Creates says what fairbench creates and what it does not, for the
	// error of a missing directory: "the file, not its directory".
	Creates string

	mu   sync.Mutex
	open map[string]*Handle[C, DB]
}

// Handle is one open database, shared by every client of its path in this
// process.
type Handle[C comparable, DB io.Closer] struct {
	// Path is the database's absolute path, its directory's symlinks
	// resolved: the registry's key.
	Path string
	DB   DB
	// Settings are the options in effect, for Environment and for the error
	// that refuses a client asking other options.
	Settings map[string]string

	opts C   // the URL's options, the path left out
	refs int // guarded by reg.mu
	reg  *Registry[C, DB]
}

// acquire returns the handle on cfg's database: this process's, with one
// more reference, when a client of it holds it already, or else one that
// open opens (under the registry's lock, so that two clients cannot both
// open it). open gets the absolute path, whose directory exists; it refuses
// a path that holds something other than the engine's database, and
// returns the options in effect. A database has one set of options at a
// time: a client asking for others than its holder's is refused.
func (r *Registry[C, DB]) acquire(cfg C, open func(abs string, cfg C) (DB, map[string]string, error)) (*Handle[C, DB], error) {
	name := *r.Path(&cfg)
	abs, err := filepath.Abs(name)
	if err != nil {
		return nil, fmt.Errorf("%s database %s: %w", r.Engine.Name, name, err)
	}
	dir := filepath.Dir(abs)
	st, err := os.Stat(dir)
	if err != nil || !st.IsDir() {
		return nil, fmt.Errorf("%s database %s: directory %s does not exist (fairbench creates %s)", r.Engine.Name, name, dir, r.Creates)
	}
	if real, err := filepath.EvalSymlinks(dir); err == nil {
		abs = filepath.Join(real, filepath.Base(abs))
	}
	opts := cfg
	*r.Path(&opts) = ""
	r.mu.Lock()
	defer r.mu.Unlock()
	if h := r.open[abs]; h != nil {
		if h.opts != opts {
			return nil, fmt.Errorf("%s database %s is already open in this process with other options (%v): one %s has one set of options at a time", r.Engine.Name, name, h.Settings, r.Unit)
		}
		h.refs++
		return h, nil
	}
	db, settings, err := open(abs, cfg)
	if err != nil {
		return nil, err
	}
	h := &Handle[C, DB]{Path: abs, DB: db, Settings: settings, opts: opts, refs: 1, reg: r}
	if r.open == nil {
		r.open = map[string]*Handle[C, DB]{}
	}
	r.open[abs] = h
	return h, nil
}

// release drops one reference and closes the database with the last.
func (h *Handle[C, DB]) release() error {
	r := h.reg
	r.mu.Lock()
	defer r.mu.Unlock()
	h.refs--
	if h.refs > 0 {
		return nil
	}
	delete(r.open, h.Path)
	return h.DB.Close()
}

// Client is one target's client of an embedded database: its sessions share
// the handle, and the handle is released once the client and every session
// it opened have closed. An engine's client embeds it and adds Session
// (through NewSession) and Environment (through Env).
type Client[C comparable, DB io.Closer] struct {
	H *Handle[C, DB]

	mu     sync.Mutex
	closed bool
	open   int // sessions not yet closed
}

// NewSession opens a session on the client's database, st its engine's side.
func (c *Client[C, DB]) NewSession(st Store) (*Session, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return nil, driver.ErrClientClosed
	}
	c.open++
	return &Session{e: c.H.reg.Engine, st: st, done: c.sessionClosed, a: Answers{e: c.H.reg.Engine, buf: make([]byte, 0, 4096)}}, nil
}

// Close implements driver.Client. The database closes once the client's last
// session has closed too (and no other client of it holds it).
func (c *Client[C, DB]) Close(context.Context) error {
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		return nil
	}
	c.closed = true
	last := c.open == 0
	c.mu.Unlock()
	if last {
		return c.H.release()
	}
	return nil
}

// sessionClosed is a session's Close: the last one after the client's
// releases the handle.
func (c *Client[C, DB]) sessionClosed() error {
	c.mu.Lock()
	c.open--
	last := c.closed && c.open == 0
	c.mu.Unlock()
	if last {
		return c.H.release()
	}
	return nil
}

// InProcess implements driver.InProcess: the engine runs in fairbench's
// process.
func (c *Client[C, DB]) InProcess() bool { return true }

// Env is what every embedded engine's environment says: the engine, its
// module's version, the driver, the options in effect, no TLS, and the file
// system under disk (a directory). The engine adds what only it knows, to
// env and to settings, a copy of the handle's.
func (c *Client[C, DB]) Env(disk string) (env result.Database, settings map[string]string) {
	e := c.H.reg.Engine
	settings = maps.Clone(c.H.Settings)
	env = result.Database{Engine: e.Name, Version: e.version(), Driver: e.Module + " (pure Go, in-process " + e.Design + ")",
		Settings: settings, Disk: envinfo.Disk(disk)}
	env.Set("tls", map[string]any{"enabled": false})
	return env, settings
}

// sqliteHeader starts every SQLite database file.
var sqliteHeader = []byte("SQLite format 3\x00")

// IsSQLite reports whether head, the first bytes of a file, starts a SQLite
// database, so that an engine refusing the file can say what it is.
func IsSQLite(head []byte) bool { return bytes.HasPrefix(head, sqliteHeader) }

// ReadHead reads the first n bytes of the file at path, or all of a shorter
// file.
func ReadHead(path string, n int) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	head := make([]byte, n)
	m, err := io.ReadFull(f, head)
	if err != nil && !errors.Is(err, io.ErrUnexpectedEOF) && !errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("reading its header: %w", err)
	}
	return head[:m], nil
}
