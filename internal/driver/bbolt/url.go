package bbolt

import (
	"strconv"
	"strings"
	"time"

	"github.com/fairbench/fairbench/internal/driver/embedkv"
)

// config is a parsed bbolt: URL.
type config struct {
	Path string
	// NoSync skips the fsync of each commit (bbolt's DB.NoSync): commits are
	// then only as durable as the OS page cache.
	NoSync bool
	// NoGrowSync skips the fsync after the file grows (DB.NoGrowSync).
	NoGrowSync bool
	// NoFreelistSync keeps the freelist out of each commit (etcd sets it).
	NoFreelistSync bool
	// FreelistType is "array" (bbolt's default) or "hashmap".
	FreelistType string
	// PageSize is for a new file only; 0 is the OS page size. An existing
	// file keeps the page size it was created with.
	PageSize int
	// InitialMmapSize, in bytes, lets read transactions not block a commit
	// that grows the file until the database outgrows it.
	InitialMmapSize int
	// Timeout bounds the wait for the file lock another process holds.
	Timeout time.Duration
}

// defaultTimeout replaces bbolt's wait-forever for the file lock: a database
// another process holds should fail the preflight, not hang it.
const defaultTimeout = 2 * time.Second

// options are the URL's query keys. They keep the names of bbolt's Options
// fields, lower-cased, so bbolt's documentation explains them; matching
// ignores case, '_' and '-' (page_size is pagesize).
var options = []embedkv.Option[config]{
	{Name: "freelisttype", Wants: "array or hashmap", Set: func(c *config, v string) bool {
		v = strings.ToLower(v)
		c.FreelistType = v
		return v == "array" || v == "hashmap"
	}},
	{Name: "initialmmapsize", Wants: embedkv.SizeWords, Set: func(c *config, v string) bool {
		n, ok := embedkv.ParseSize(v)
		c.InitialMmapSize = int(n)
		return ok
	}},
	{Name: "nofreelistsync", Wants: embedkv.BoolWords, Set: func(c *config, v string) bool { return embedkv.ParseBool(v, &c.NoFreelistSync) }},
	{Name: "nogrowsync", Wants: embedkv.BoolWords, Set: func(c *config, v string) bool { return embedkv.ParseBool(v, &c.NoGrowSync) }},
	{Name: "nosync", Wants: embedkv.BoolWords, Set: func(c *config, v string) bool { return embedkv.ParseBool(v, &c.NoSync) }},
	{Name: "pagesize", Wants: "a power of two from 1024 to 65536 (bytes)", Set: func(c *config, v string) bool {
		n, err := strconv.Atoi(v)
		c.PageSize = n
		return err == nil && n >= 1024 && n <= 65536 && n&(n-1) == 0
	}},
	{Name: "timeout", Wants: "a duration such as 500ms or 10s (the wait for the file lock)", Set: func(c *config, v string) bool {
		d, err := time.ParseDuration(v)
		c.Timeout = d
		return err == nil && d > 0
	}},
}

var syntax = embedkv.URL[config]{Scheme: "bbolt", Path: "database file", Example: "bench.bbolt", Options: options}

// parseURL parses bbolt:PATH[?option=value&...] (also bbolt://PATH and
// bbolt:///abs/PATH). The path is one file, relative to the working
// directory unless absolute.
func parseURL(raw string) (config, error) {
	cfg := config{FreelistType: "array", Timeout: defaultTimeout}
	path, _, err := syntax.Parse(raw, &cfg)
	if err != nil {
		return config{}, err
	}
	cfg.Path = path
	return cfg, nil
}

// settings are the options in effect, for Environment.
func (c config) settings() map[string]string {
	return map[string]string{
		"nosync":          strconv.FormatBool(c.NoSync),
		"nogrowsync":      strconv.FormatBool(c.NoGrowSync),
		"nofreelistsync":  strconv.FormatBool(c.NoFreelistSync),
		"freelisttype":    c.FreelistType,
		"initialmmapsize": strconv.Itoa(c.InitialMmapSize),
		"timeout":         c.Timeout.String(),
		"pagesize":        strconv.Itoa(c.PageSize), // as asked; Environment reports the file's
	}
}
