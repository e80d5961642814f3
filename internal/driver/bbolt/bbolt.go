// Package bbolt is an embedded key-value target: go.etcd.io/bbolt, a
// copy-on-write B+tree in one memory-mapped file (the LMDB design, in pure
// Go), answering the KV capability with Redis's semantics so that the kv
// workload can compare it with the pebble target (an LSM tree) or with a
// Redis server, with no server to run. A URL such as
// bbolt:bench.bbolt?nosync=true names the file and bbolt's options.
//
// One file has one owner: the client opens the database once and its
// sessions share the handle (clients of the same file in this process share
// it too, with a reference count), as bbolt allows one writer process.
//
// How a pipeline maps onto transactions decides what a comparison measures.
// A pipeline is N independent commands sent together; a Redis server runs
// them one by one and answers each. Here each maximal run of consecutive
// writes (SET, INCR, DEL) is one read-write transaction, so one commit and its
// fsyncs serve the run — the way a server with group commit would amortise
// them, and the natural fast path of a B+tree whose commits cost a page write
// each — and each run of consecutive GETs is one read-only transaction, which
// runs beside the writer without waiting (MVCC). Runs execute in the
// pipeline's order, so a GET after a SET of the same pipeline sees it. Every
// write of a run is answered when its commit returns: that is when it is
// durable and visible. A command's error reply (INCR of a non-integer) does
// not abort the others in its transaction; a failed commit fails every write
// of its run.
//
// bbolt has one writer at a time, so INCR (read, add, write in one
// transaction) is atomic across sessions with no lock of ours; the price is
// that concurrent sessions' commits queue on that writer, each with its own
// fsync (bbolt's DB.Batch would coalesce them but waits up to 10 ms to fill a
// batch, so it is not used).
//
// Defaults are bbolt's, durable at each commit, but for the lock timeout
// (2 s instead of forever). Each reply's Latency runs from the pipeline's
// start to that command's completion; Bytes counts the command's key, value
// and arguments plus the reply's value ("OK", the count, the number), with no
// protocol framing since none crosses a wire. Keys live in one bucket,
// "fairbench"; bbolt refuses an empty key, so SET "" is an error reply here.
package bbolt

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"

	bolt "go.etcd.io/bbolt"
	berrors "go.etcd.io/bbolt/errors"

	"github.com/fairbench/fairbench/internal/driver"
	"github.com/fairbench/fairbench/internal/driver/embedkv"
	"github.com/fairbench/fairbench/internal/result"
)

func init() { driver.Register(Driver{}, "bbolt:") }

// bucket holds every key the driver writes.
var bucket = []byte("fairbench")

var engine = embedkv.Engine{
	Name:     "bbolt",
	Module:   "go.etcd.io/bbolt",
	Design:   "B+tree",
	Lost:     []error{berrors.ErrDatabaseNotOpen},
	Timeouts: []error{berrors.ErrTimeout},
}

// databases are the files open in this process: a second bolt.Open of the
// same file would wait on bbolt's own file lock.
var databases = embedkv.Registry[config, *bolt.DB]{
	Engine:  &engine,
	Path:    func(c *config) *string { return &c.Path },
	Unit:    "file",
	Creates: "the file, not its directory",
}

// Driver opens bbolt databases: in fairbench's process, the clients of one
// file sharing one handle (embedkv.InProcessDriver).
type Driver struct{ embedkv.InProcessDriver }

// Name implements driver.Driver.
func (Driver) Name() string { return engine.Name }

// Open implements driver.Driver: it opens the file (or shares this process's
// handle on it) and checks that it is a bbolt database.
func (Driver) Open(ctx context.Context, t driver.Target, opts driver.Options) (driver.Client, error) {
	return databases.Open(t.URL, parseURL, open, func(h *embedkv.Handle[config, *bolt.DB]) driver.Client {
		return &client{embedkv.Client[config, *bolt.DB]{H: h}}
	})
}

// open opens the file at abs, not open in this process, after check.
func open(abs string, cfg config) (*bolt.DB, map[string]string, error) {
	if err := check(abs, cfg.Path); err != nil {
		return nil, nil, err
	}
	db, err := bolt.Open(abs, 0o600, &bolt.Options{
		Timeout:         cfg.Timeout,
		NoGrowSync:      cfg.NoGrowSync,
		NoFreelistSync:  cfg.NoFreelistSync,
		FreelistType:    bolt.FreelistType(cfg.FreelistType),
		PageSize:        cfg.PageSize,
		InitialMmapSize: cfg.InitialMmapSize,
		NoSync:          cfg.NoSync,
	})
	switch {
	case errors.Is(err, berrors.ErrTimeout):
		return nil, nil, fmt.Errorf("bbolt database %s: another process holds its lock (waited %s; see the timeout option)", cfg.Path, cfg.Timeout)
	case errors.Is(err, berrors.ErrInvalid), errors.Is(err, berrors.ErrVersionMismatch), errors.Is(err, berrors.ErrChecksum):
		return nil, nil, fmt.Errorf("bbolt database %s is not a usable bbolt database: %w", cfg.Path, err)
	case err != nil:
		return nil, nil, fmt.Errorf("opening bbolt database %s: %w", cfg.Path, err)
	}
	if err := db.Update(func(tx *bolt.Tx) error {
		_, err := tx.CreateBucketIfNotExists(bucket)
		return err
	}); err != nil {
		db.Close()
		return nil, nil, fmt.Errorf("bbolt database %s: creating bucket %s: %w", cfg.Path, bucket, err)
	}
	return db, cfg.settings(), nil
}

// check refuses a path that exists and is not a bbolt database, before bbolt
// opens it read-write: the tool never writes into a file it did not create
// (an empty file holds nothing to lose, so it counts as new).
func check(abs, name string) error {
	st, err := os.Stat(abs)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("bbolt database %s: %w", name, err)
	}
	if st.IsDir() {
		return fmt.Errorf("bbolt database %s is a directory: bbolt keeps a database in one file, so name a file (pebble: takes a directory)", name)
	}
	if !st.Mode().IsRegular() {
		return fmt.Errorf("bbolt database %s is not a regular file (%s)", name, st.Mode().Type())
	}
	if st.Size() == 0 {
		return nil
	}
	head, err := embedkv.ReadHead(abs, 64<<10+32)
	if err != nil {
		return fmt.Errorf("bbolt database %s: %w", name, err)
	}
	if hasMagic(head) {
		return nil
	}
	what := "it has no bbolt meta page"
	if embedkv.IsSQLite(head) {
		what = "it is a SQLite database"
	}
	return fmt.Errorf("bbolt database %s exists and is not a bbolt database (%s): fairbench will not write into it; name a new file", name, what)
}

// magic marks bbolt's meta pages, right after the 16-byte page header;
// bbolt writes it in the machine's byte order.
const magic = 0xED0CDAED

// hasMagic reports whether either meta page carries bbolt's magic: the first
// at offset 0, the second one page further, at a page size bbolt may use.
func hasMagic(head []byte) bool {
	at := func(off int) bool {
		return len(head) >= off+20 && binary.NativeEndian.Uint32(head[off+16:]) == magic
	}
	if at(0) {
		return true
	}
	for ps := 1024; ps <= 64<<10; ps *= 2 {
		if at(ps) {
			return true
		}
	}
	return false
}

// client is one target's client: its sessions share the handle.
type client struct {
	embedkv.Client[config, *bolt.DB]
}

// Session implements driver.Client: a lightweight session on the shared handle.
func (c *client) Session(context.Context) (driver.Conn, error) {
	s, err := c.NewSession(&store{db: c.H.DB})
	if err != nil {
		return nil, err
	}
	return s, nil
}

// Environment implements driver.Environment: engine, library version, the
// options in effect, the file and the file system it is on.
func (c *client) Environment(context.Context) (result.Database, error) {
	env, settings := c.Env(filepath.Dir(c.H.Path))
	settings["pagesize"] = strconv.Itoa(c.H.DB.Info().PageSize) // the file's, whatever was asked
	env.Set("file", c.H.Path)
	if st, err := os.Stat(c.H.Path); err == nil {
		env.SizeText = strconv.FormatInt(st.Size(), 10) + " bytes"
		env.SizeBytes = st.Size() // for the working-set check
	}
	return env, nil
}

// Offers says what this driver's sessions speak, for validate.
func (Driver) Offers() []driver.Family { return []driver.Family{driver.FamilyKV} }
