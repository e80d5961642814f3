package pebble

import (
	"strconv"

	"github.com/fairbench/fairbench/internal/result"
)

// What reading a recorded Pebble environment needs to know of the engine: it
// runs inside fairbench's process, and its block cache is cache_size bytes.
func init() {
	result.RegisterEngine(result.EngineFacts{Engine: engine.Name, InProcess: true, Cache: blockCache, CacheSetting: blockCacheSetting, InstallationSettings: []string{}})
}

const blockCacheSetting = "cache_size"

func blockCache(d result.Database) (int64, string) {
	b, err := strconv.ParseInt(d.Settings[blockCacheSetting], 10, 64)
	if err != nil || b <= 0 {
		return 0, ""
	}
	return b, blockCacheSetting
}
