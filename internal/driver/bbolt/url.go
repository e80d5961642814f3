package bbolt

import (
	"fmt"
	"net/url"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/fairbench/fairbench/internal/driver"
)

// Config is a parsed bbolt: URL.
type Config struct {
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

// option is one URL query key.
type option struct {
	name  string // canonical: bbolt's Options field, lower-cased
	wants string // what it accepts, for errors
	set   func(c *Config, v string) bool
}

// options are the URL's query keys. They keep the names of bbolt's Options
// fields, lower-cased, so bbolt's documentation explains them; matching
// ignores case, '_' and '-' (page_size is pagesize).
var options = []option{
	{"freelisttype", "array or hashmap", func(c *Config, v string) bool {
		v = strings.ToLower(v)
		c.FreelistType = v
		return v == "array" || v == "hashmap"
	}},
	{"initialmmapsize", "a size in bytes (a number, or with KiB, MiB, GiB)", func(c *Config, v string) bool {
		n, ok := parseSize(v)
		c.InitialMmapSize = int(n)
		return ok
	}},
	{"nofreelistsync", "true or false", func(c *Config, v string) bool { return parseBool(v, &c.NoFreelistSync) }},
	{"nogrowsync", "true or false", func(c *Config, v string) bool { return parseBool(v, &c.NoGrowSync) }},
	{"nosync", "true or false", func(c *Config, v string) bool { return parseBool(v, &c.NoSync) }},
	{"pagesize", "a power of two from 1024 to 65536 (bytes)", func(c *Config, v string) bool {
		n, err := strconv.Atoi(v)
		c.PageSize = n
		return err == nil && n >= 1024 && n <= 65536 && n&(n-1) == 0
	}},
	{"timeout", "a duration such as 500ms or 10s (the wait for the file lock)", func(c *Config, v string) bool {
		d, err := time.ParseDuration(v)
		c.Timeout = d
		return err == nil && d > 0
	}},
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

// ParseURL parses bbolt:PATH[?option=value&...] (also bbolt://PATH and
// bbolt:///abs/PATH). The path is one file, relative to the working
// directory unless absolute.
func ParseURL(raw string) (Config, error) {
	if i := strings.IndexByte(raw, 0); i >= 0 {
		return Config{}, fmt.Errorf("bbolt URL %q has a NUL byte after it (offset %d): a file name cannot hold one", driver.Redacted(raw[:i]), i)
	}
	const scheme = "bbolt:"
	if len(raw) < len(scheme) || !strings.EqualFold(raw[:len(scheme)], scheme) {
		return Config{}, fmt.Errorf("%q is not a bbolt: URL", driver.Redacted(raw))
	}
	rest := strings.TrimPrefix(raw[len(scheme):], "//")
	path, query, _ := strings.Cut(rest, "?")
	if path == "" {
		return Config{}, fmt.Errorf("%q names no database file: use e.g. bbolt:bench.bbolt", raw)
	}
	q, err := url.ParseQuery(query)
	if err != nil {
		return Config{}, fmt.Errorf("%q: bad query string: %v", raw, err)
	}
	cfg := Config{Path: path, FreelistType: "array", Timeout: defaultTimeout}
	keys := make([]string, 0, len(q))
	for k := range q {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	seen := map[string]string{}
	for _, k := range keys {
		var opt *option
		for i := range options {
			if options[i].name == normalize(k) {
				opt = &options[i]
			}
		}
		if opt == nil {
			return Config{}, fmt.Errorf("bbolt URL parameter %q is not an option (valid: %s)", k, optionNames())
		}
		if prev, dup := seen[opt.name]; dup || len(q[k]) > 1 {
			if !dup {
				prev = k
			}
			return Config{}, fmt.Errorf("bbolt URL parameter %s is given more than once (as %s and %s): give it once", opt.name, prev, k)
		}
		seen[opt.name] = k
		if v := q.Get(k); !opt.set(&cfg, v) {
			return Config{}, fmt.Errorf("bbolt URL parameter %s=%q is not a valid value: use %s", k, v, opt.wants)
		}
	}
	return cfg, nil
}

// settings are the options in effect, for Environment.
func (c Config) settings() map[string]string {
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
