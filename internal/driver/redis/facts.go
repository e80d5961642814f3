package redis

import (
	"strconv"

	"github.com/fairbench/fairbench/internal/result"
)

// What reading a recorded Redis or Valkey environment needs to know of the
// engine: its data lives in memory up to maxmemory.
func init() {
	for _, engine := range []string{"redis", "valkey"} {
		result.RegisterEngine(result.EngineFacts{Engine: engine, Cache: maxMemory, CacheSetting: "maxmemory", InstallationSettings: []string{}})
	}
}

// maxMemory is the memory the server may hold data in (0, no limit: unknown).
func maxMemory(d result.Database) (int64, string) {
	const name = "maxmemory"
	b, err := strconv.ParseInt(d.Settings[name], 10, 64)
	if err != nil || b <= 0 {
		return 0, ""
	}
	return b, name
}
