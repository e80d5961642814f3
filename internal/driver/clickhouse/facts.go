package clickhouse

import (
	"strconv"

	"github.com/fairbench/fairbench/internal/result"
)

// What reading a recorded ClickHouse environment needs to know of the
// engine. ClickHouse reads its compressed parts through the operating
// system's page cache; its own cache of data is the uncompressed cache, and
// only queries with use_uncompressed_cache on use it. Without it the data's
// place is RAM, which the working-set check tells from the server's memory.
func init() {
	result.RegisterEngine(result.EngineFacts{Engine: "clickhouse", Cache: uncompressedCache, CacheSetting: uncompressedCacheSetting, InstallationSettings: []string{}})
}

const uncompressedCacheSetting = "uncompressed_cache_size"

// serverSettingNames are the server settings recorded with a run: the
// memory limit and the caches.
var serverSettingNames = []string{"max_server_memory_usage", "max_server_memory_usage_to_ram_ratio", uncompressedCacheSetting, "mark_cache_size"}

func uncompressedCache(d result.Database) (int64, string) {
	changed, _ := d.Extra["settings_changed"].(map[string]any)
	if on, _ := changed["use_uncompressed_cache"].(string); on != "1" {
		return 0, ""
	}
	server, _ := d.Extra["server_settings"].(map[string]any)
	s, _ := server[uncompressedCacheSetting].(string)
	b, err := strconv.ParseInt(s, 10, 64)
	if err != nil || b <= 0 {
		return 0, ""
	}
	return b, uncompressedCacheSetting
}
