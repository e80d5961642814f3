package pebble

import (
	"fmt"
	"strconv"

	"github.com/fairbench/fairbench/internal/driver/embedkv"
)

// config is a parsed pebble: URL. Zero sizes and counts are pebble's defaults.
type config struct {
	Dir string
	// Sync makes each commit wait for the WAL's fsync (WriteOptions.Sync);
	// true by default, as bbolt's commits are durable by default.
	Sync bool
	// DisableWAL writes no write-ahead log: what the memtable holds is lost
	// in a crash. It needs Sync false.
	DisableWAL bool
	// CacheSize is the block cache, in bytes (pebble's default: 8 MiB).
	CacheSize int64
	// MemTableSize is one memtable, in bytes (pebble's default: 4 MiB).
	MemTableSize int64
	// BytesPerSync makes sstable writes sync every so many bytes (512 KiB).
	BytesPerSync int64
	// L0CompactionThreshold is how many L0 read-amplification levels start
	// a compaction (4).
	L0CompactionThreshold int
	// MaxConcurrentCompactions caps background compactions (1).
	MaxConcurrentCompactions int
}

// options are the URL's query keys, with the names pebble writes in its
// OPTIONS file (sync is WriteOptions.Sync), so pebble's documentation
// explains them; matching ignores case, '_' and '-' (memtablesize is
// mem_table_size).
var options = []embedkv.Option[config]{
	{Name: "bytes_per_sync", Wants: embedkv.SizeWords, Set: func(c *config, v string) bool {
		n, ok := embedkv.ParseSize(v)
		c.BytesPerSync = n
		return ok && n > 0
	}},
	{Name: "cache_size", Wants: embedkv.SizeWords, Set: func(c *config, v string) bool {
		n, ok := embedkv.ParseSize(v)
		c.CacheSize = n
		return ok && n > 0
	}},
	{Name: "disable_wal", Wants: embedkv.BoolWords, Set: func(c *config, v string) bool { return embedkv.ParseBool(v, &c.DisableWAL) }},
	{Name: "l0_compaction_threshold", Wants: "a positive integer", Set: func(c *config, v string) bool {
		n, err := strconv.Atoi(v)
		c.L0CompactionThreshold = n
		return err == nil && n > 0
	}},
	{Name: "max_concurrent_compactions", Wants: "a positive integer", Set: func(c *config, v string) bool {
		n, err := strconv.Atoi(v)
		c.MaxConcurrentCompactions = n
		return err == nil && n > 0
	}},
	{Name: "mem_table_size", Wants: "a size in bytes from 64KiB to 4GiB (a number, or with KiB, MiB, GiB)", Set: func(c *config, v string) bool {
		n, ok := embedkv.ParseSize(v)
		c.MemTableSize = n
		return ok && n >= 64<<10 && n < 4<<30
	}},
	{Name: "sync", Wants: embedkv.BoolWords, Set: func(c *config, v string) bool { return embedkv.ParseBool(v, &c.Sync) }},
}

var syntax = embedkv.URL[config]{Scheme: "pebble", Path: "database directory", Example: "bench.pebble", Options: options}

// parseURL parses pebble:DIR[?option=value&...] (also pebble://DIR and
// pebble:///abs/DIR). The directory holds the database's files; it is
// relative to the working directory unless absolute.
func parseURL(raw string) (config, error) {
	cfg := config{Sync: true}
	dir, given, err := syntax.Parse(raw, &cfg)
	if err != nil {
		return config{}, err
	}
	cfg.Dir = dir
	if cfg.DisableWAL {
		if _, asked := given["sync"]; asked && cfg.Sync {
			return config{}, fmt.Errorf("%q: sync=true waits for the WAL's fsync, and disable_wal=true writes no WAL: drop one", raw)
		}
		cfg.Sync = false // nothing to sync
	}
	return cfg, nil
}
