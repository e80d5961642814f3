package redis

import (
	"testing"

	"github.com/fairbench/fairbench/internal/result"
)

// maxmemory bounds what Redis and Valkey hold; 0 is no limit, so no cache
// size to compare with.
func TestEngineFacts(t *testing.T) {
	for _, engine := range []string{"redis", "valkey"} {
		db := result.Database{Engine: engine, Settings: map[string]string{"maxmemory": "1073741824"}}
		if b, name := db.Cache(); b != 1<<30 || name != "maxmemory" {
			t.Errorf("%s: cache %d %q", engine, b, name)
		}
		db.Settings["maxmemory"] = "0"
		if b, _ := db.Cache(); b != 0 {
			t.Errorf("%s: maxmemory 0 gave a cache of %d", engine, b)
		}
	}
}
