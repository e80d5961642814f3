package sqlite

import (
	"strconv"

	"github.com/fairbench/fairbench/internal/result"
)

// What reading a recorded SQLite environment needs to know of the engine:
// it runs inside fairbench's process, and its page cache is cache_size.
func init() {
	result.RegisterEngine(result.EngineFacts{Engine: engineName, InProcess: true, Cache: pageCache, CacheSetting: "cache_size", InstallationSettings: []string{}})
}

const engineName = "sqlite"

// pageCache reads PRAGMA cache_size: negative, in KiB; positive, in pages
// of page_size bytes.
func pageCache(d result.Database) (int64, string) {
	const name = "cache_size"
	n, err := strconv.ParseInt(d.Settings[name], 10, 64)
	if err != nil || n == 0 {
		return 0, ""
	}
	if n < 0 {
		return -n << 10, name
	}
	page, err := strconv.ParseInt(d.Settings["page_size"], 10, 64)
	if err != nil || page <= 0 {
		return 0, ""
	}
	return n * page, name
}
