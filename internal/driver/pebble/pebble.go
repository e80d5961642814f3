// Package pebble is an embedded key-value target: CockroachDB's pebble (v2),
// a log-structured merge tree in pure Go (the RocksDB design), answering the
// KV capability with Redis's semantics so that the kv workload can compare it
// with the bbolt target (a B+tree) or with a Redis server, with no server to
// run. A URL such as pebble:bench.pebble?sync=false names the database's
// directory and pebble's options.
//
// One directory has one owner: the client opens the database once and its
// sessions share the handle (clients of the same directory in this process
// share it too, with a reference count), as pebble locks its directory.
//
// How a pipeline maps onto the engine decides what a comparison measures, and
// it is the same as bbolt's: a pipeline is N independent commands sent
// together, and each maximal run of consecutive writes (SET, INCR, DEL) is
// one batch, committed once — one WAL write and, with sync (the default),
// one fsync, shared with other sessions' batches by pebble's group commit —
// while each GET reads the latest committed state on its own. Runs execute in
// the pipeline's order, so a GET after a SET of the same pipeline sees it.
// Every write of a run is answered when its batch is durable (or, with
// sync=false, applied); each GET when it has read. A command's error reply
// (INCR of a non-integer) leaves the rest of its batch alone.
//
// INCR is a read-modify-write, and pebble has no transactions, so the driver
// serialises writes per key: each write run locks the stripes (one mutex of
// 4096, by key hash) of every key it writes, in stripe order so that runs
// cannot deadlock, reads what INCR and DEL need through an indexed batch,
// applies the batch, and unlocks once pebble has made it visible — before
// waiting for its fsync (ApplyNoSyncWait; the WAL orders the batches, so a
// later one cannot be durable before one it read from). Locking SET and DEL
// too keeps a SET from landing between an INCR's read and write. Pebble's
// Merge operator would make INCR atomic without a lock but cannot answer the
// new value, which INCR must. The locks make INCR exact across sessions at
// the cost of serialising writers of the same stripe for a memtable insert
// each, not an fsync; a Redis server serialises every command.
//
// Defaults are pebble's, with the newest on-disk format for a new database,
// and sync=true (durable at each commit, as bbolt's default). Each reply's
// Latency runs from the pipeline's start to that command's completion; Bytes
// counts the command's key, value and arguments plus the reply's value
// ("OK", the count, the number), with no protocol framing since none crosses
// a wire. DeletePrefix counts the keys under the prefix, then deletes the
// range [prefix, its successor) with one range tombstone.
package pebble

import (
	"context"
	"errors"
	"fmt"
	"hash/maphash"
	"log"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/cockroachdb/pebble/v2"
	"github.com/cockroachdb/pebble/v2/vfs"

	"github.com/fairbench/fairbench/internal/driver"
	"github.com/fairbench/fairbench/internal/driver/embedkv"
	"github.com/fairbench/fairbench/internal/result"
)

func init() { driver.Register(Driver{}, "pebble:") }

var engine = embedkv.Engine{
	Name:   "pebble",
	Module: "github.com/cockroachdb/pebble/v2",
	Design: "LSM tree",
	Lost:   []error{pebble.ErrClosed},
}

// databases are the directories open in this process: a second pebble.Open
// of one would fail on pebble's lock.
var databases = embedkv.Registry[config, *database]{
	Engine:  &engine,
	Path:    func(c *config) *string { return &c.Dir },
	Unit:    "database",
	Creates: "the database's directory, not its parent",
}

// Driver opens pebble databases: in fairbench's process, the clients of one
// directory sharing one handle (embedkv.InProcessDriver).
type Driver struct{ embedkv.InProcessDriver }

// Name implements driver.Driver.
func (Driver) Name() string { return engine.Name }

// Open implements driver.Driver: it opens the directory's database (or
// shares this process's handle on it), creating it in a new or empty
// directory.
func (Driver) Open(ctx context.Context, t driver.Target, opts driver.Options) (driver.Client, error) {
	return databases.Open(t.URL, parseURL, open, func(h *embedkv.Handle[config, *database]) driver.Client {
		return &client{embedkv.Client[config, *database]{H: h}}
	})
}

// stripes is how many locks serialise writes by key hash: enough that
// random keys of a few hundred sessions' pipelines rarely share one.
const stripes = 4096

// database is one open database with what its sessions share beside it.
type database struct {
	db *pebble.DB
	wo *pebble.WriteOptions

	seed  maphash.Seed
	locks [stripes]sync.Mutex
}

func (d *database) stripe(key []byte) uint16 {
	return uint16(maphash.Bytes(d.seed, key) % stripes)
}

// Close implements io.Closer, for the registry.
func (d *database) Close() error { return d.db.Close() }

// open opens the database at abs, not open in this process, after check, and
// says the options in effect, pebble's defaults filled in.
func open(abs string, cfg config) (*database, map[string]string, error) {
	exists, err := check(abs, cfg.Dir)
	if err != nil {
		return nil, nil, err
	}
	opts := &pebble.Options{
		CacheSize:             cfg.CacheSize,
		MemTableSize:          uint64(cfg.MemTableSize),
		DisableWAL:            cfg.DisableWAL,
		BytesPerSync:          int(cfg.BytesPerSync),
		L0CompactionThreshold: cfg.L0CompactionThreshold,
		Logger:                quietLogger{},
	}
	if n := cfg.MaxConcurrentCompactions; n > 0 {
		opts.CompactionConcurrencyRange = func() (int, int) { return 1, n }
	}
	if !exists {
		// A new database takes the newest format; an existing one keeps its
		// own, since moving it up cannot be undone.
		opts.FormatMajorVersion = pebble.FormatNewest
	}
	eff := opts.Clone()
	eff.EnsureDefaults()
	db, err := pebble.Open(abs, opts)
	if err != nil {
		return nil, nil, fmt.Errorf("opening pebble database %s: %w", cfg.Dir, err)
	}
	d := &database{db: db, wo: pebble.NoSync, seed: maphash.MakeSeed()}
	if cfg.Sync {
		d.wo = pebble.Sync
	}
	_, maxCompactions := eff.CompactionConcurrencyRange()
	settings := map[string]string{
		"sync":                       strconv.FormatBool(cfg.Sync),
		"disable_wal":                strconv.FormatBool(cfg.DisableWAL),
		blockCacheSetting:            strconv.FormatInt(eff.CacheSize, 10),
		"mem_table_size":             strconv.FormatUint(eff.MemTableSize, 10),
		"bytes_per_sync":             strconv.Itoa(eff.BytesPerSync),
		"l0_compaction_threshold":    strconv.Itoa(eff.L0CompactionThreshold),
		"max_concurrent_compactions": strconv.Itoa(maxCompactions),
	}
	return d, settings, nil
}

// check refuses a path that exists and is not a pebble database: a file, or
// a directory holding other files. Pebble would write its own files beside
// them and delete those whose names it takes for its own obsolete ones
// (000001.log), so the tool opens only a new or empty directory or an
// existing pebble database. exists says which.
func check(abs, name string) (exists bool, err error) {
	st, err := os.Stat(abs)
	if errors.Is(err, os.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("pebble database %s: %w", name, err)
	}
	if !st.IsDir() {
		what := ""
		if head, err := embedkv.ReadHead(abs, 16); err == nil && embedkv.IsSQLite(head) { // 16: SQLite's magic
			what = " (it is a SQLite database)"
		}
		return false, fmt.Errorf("pebble database %s is a file, not a directory%s: pebble keeps a database in a directory, so name a new one (bbolt: takes a file)", name, what)
	}
	ents, err := os.ReadDir(abs)
	if err != nil {
		return false, fmt.Errorf("pebble database %s: %w", name, err)
	}
	if len(ents) == 0 {
		return false, nil
	}
	desc, err := pebble.Peek(abs, vfs.Default)
	if err == nil && desc.Exists {
		return true, nil
	}
	var found []string
	for _, e := range ents {
		if len(found) == 3 {
			found = append(found, "…")
			break
		}
		found = append(found, e.Name())
	}
	why := "it holds files and no pebble database"
	switch {
	case err != nil:
		why = "pebble cannot read it as a database: " + err.Error()
	case slices.ContainsFunc(ents, func(e os.DirEntry) bool { return e.Name() == "CURRENT" }):
		why = "it holds a pebble database in a format older than pebble v2 reads"
	}
	return false, fmt.Errorf("pebble database %s is a directory that fairbench will not use: %s (%s); name a new or empty directory", name, why, strings.Join(found, ", "))
}

// quietLogger drops pebble's informational lines, which would interleave
// with a run's progress, and keeps its errors.
type quietLogger struct{}

func (quietLogger) Infof(string, ...any)           {}
func (quietLogger) Errorf(format string, a ...any) { log.Printf("pebble: "+format, a...) }
func (quietLogger) Fatalf(format string, a ...any) { log.Fatalf("pebble: "+format, a...) }

// client is one target's client: its sessions share the handle.
type client struct {
	embedkv.Client[config, *database]
}

// Session implements driver.Client: a lightweight session on the shared handle.
func (c *client) Session(context.Context) (driver.Conn, error) {
	s, err := c.NewSession(&store{d: c.H.DB})
	if err != nil {
		return nil, err
	}
	return s, nil
}

// Environment implements driver.Environment: engine, library version, the
// options in effect, the directory and the file system it is on.
func (c *client) Environment(context.Context) (result.Database, error) {
	db := c.H.DB.db
	env, settings := c.Env(c.H.Path)
	settings["format_major_version"] = db.FormatMajorVersion().String()
	env.Set("directory", c.H.Path)
	size := db.Metrics().DiskSpaceUsage()
	env.SizeText = strconv.FormatUint(size, 10) + " bytes"
	env.SizeBytes = int64(size) // for the working-set check
	return env, nil
}

// Offers says what this driver's sessions speak, for validate.
func (Driver) Offers() []driver.Family { return []driver.Family{driver.FamilyKV} }
