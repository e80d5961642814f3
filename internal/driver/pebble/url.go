package pebble

import (
	"fmt"
	"net/url"
	"sort"
	"strconv"
	"strings"

	"github.com/fairbench/fairbench/internal/driver"
)

// Config is a parsed pebble: URL. Zero sizes and counts are pebble's defaults.
type Config struct {
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

// option is one URL query key.
type option struct {
	name  string // canonical: pebble's own name in its OPTIONS file
	wants string // what it accepts, for errors
	set   func(c *Config, v string) bool
}

const sizeWords = "a size in bytes (a number, or with KiB, MiB, GiB)"

// options are the URL's query keys, with the names pebble writes in its
// OPTIONS file (sync is WriteOptions.Sync), so pebble's documentation
// explains them; matching ignores case, '_' and '-' (memtablesize is
// mem_table_size).
var options = []option{
	{"bytes_per_sync", sizeWords, func(c *Config, v string) bool {
		n, ok := parseSize(v)
		c.BytesPerSync = n
		return ok && n > 0
	}},
	{"cache_size", sizeWords, func(c *Config, v string) bool {
		n, ok := parseSize(v)
		c.CacheSize = n
		return ok && n > 0
	}},
	{"disable_wal", "true or false", func(c *Config, v string) bool { return parseBool(v, &c.DisableWAL) }},
	{"l0_compaction_threshold", "a positive integer", func(c *Config, v string) bool {
		n, err := strconv.Atoi(v)
		c.L0CompactionThreshold = n
		return err == nil && n > 0
	}},
	{"max_concurrent_compactions", "a positive integer", func(c *Config, v string) bool {
		n, err := strconv.Atoi(v)
		c.MaxConcurrentCompactions = n
		return err == nil && n > 0
	}},
	{"mem_table_size", "a size in bytes from 64KiB to 4GiB (a number, or with KiB, MiB, GiB)", func(c *Config, v string) bool {
		n, ok := parseSize(v)
		c.MemTableSize = n
		return ok && n >= 64<<10 && n < 4<<30
	}},
	{"sync", "true or false", func(c *Config, v string) bool { return parseBool(v, &c.Sync) }},
}

func optionNames() string {
	names := make([]string, len(options))
	for i, o := range options {
		names[i] = o.name
	}
	return strings.Join(names, ", ")
}

func normalize(k string) string {
	return strings.NewReplacer("_", "", "-", "").Replace(strings.ToLower(k))
}

func parseBool(v string, dst *bool) bool {
	switch strings.ToLower(v) {
	case "true", "1", "yes", "on":
		*dst = true
	case "false", "0", "no", "off":
		*dst = false
	default:
		return false
	}
	return true
}

// parseSize reads bytes: a non-negative integer, or one with a binary unit.
func parseSize(v string) (int64, bool) {
	mult := int64(1)
	lv := strings.ToLower(v)
	for _, u := range []struct {
		suffix string
		mult   int64
	}{{"kib", 1 << 10}, {"mib", 1 << 20}, {"gib", 1 << 30}} {
		if s, ok := strings.CutSuffix(lv, u.suffix); ok {
			lv, mult = s, u.mult
			break
		}
	}
	n, err := strconv.ParseInt(lv, 10, 64)
	if err != nil || n < 0 || n > (1<<40)/mult {
		return 0, false
	}
	return n * mult, true
}

// ParseURL parses pebble:DIR[?option=value&...] (also pebble://DIR and
// pebble:///abs/DIR). The directory holds the database's files; it is
// relative to the working directory unless absolute.
func ParseURL(raw string) (Config, error) {
	if i := strings.IndexByte(raw, 0); i >= 0 {
		return Config{}, fmt.Errorf("pebble URL %q has a NUL byte after it (offset %d): a file name cannot hold one", driver.Redacted(raw[:i]), i)
	}
	const scheme = "pebble:"
	if len(raw) < len(scheme) || !strings.EqualFold(raw[:len(scheme)], scheme) {
		return Config{}, fmt.Errorf("%q is not a pebble: URL", driver.Redacted(raw))
	}
	rest := strings.TrimPrefix(raw[len(scheme):], "//")
	dir, query, _ := strings.Cut(rest, "?")
	if dir == "" {
		return Config{}, fmt.Errorf("%q names no database directory: use e.g. pebble:bench.pebble", raw)
	}
	q, err := url.ParseQuery(query)
	if err != nil {
		return Config{}, fmt.Errorf("%q: bad query string: %v", raw, err)
	}
	cfg := Config{Dir: dir, Sync: true}
	keys := make([]string, 0, len(q))
	for k := range q {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	seen := map[string]string{}
	for _, k := range keys {
		var opt *option
		for i := range options {
			if normalize(options[i].name) == normalize(k) {
				opt = &options[i]
			}
		}
		if opt == nil {
			return Config{}, fmt.Errorf("pebble URL parameter %q is not an option (valid: %s)", k, optionNames())
		}
		if prev, dup := seen[opt.name]; dup || len(q[k]) > 1 {
			if !dup {
				prev = k
			}
			return Config{}, fmt.Errorf("pebble URL parameter %s is given more than once (as %s and %s): give it once", opt.name, prev, k)
		}
		seen[opt.name] = k
		if v := q.Get(k); !opt.set(&cfg, v) {
			return Config{}, fmt.Errorf("pebble URL parameter %s=%q is not a valid value: use %s", k, v, opt.wants)
		}
	}
	if cfg.DisableWAL {
		if _, asked := seen["sync"]; asked && cfg.Sync {
			return Config{}, fmt.Errorf("%q: sync=true waits for the WAL's fsync, and disable_wal=true writes no WAL: drop one", raw)
		}
		cfg.Sync = false // nothing to sync
	}
	return cfg, nil
}
