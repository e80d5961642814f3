package mongodb

import (
	"github.com/fairbench/fairbench/internal/numfmt"
	"github.com/fairbench/fairbench/internal/result"
)

// What reading a recorded MongoDB environment needs to know of the engine:
// WiredTiger keeps data in its cache (serverStatus, "maximum bytes
// configured"). FerretDB keeps none of its own.
func init() {
	result.RegisterEngine(result.EngineFacts{Engine: "mongodb", Cache: wiredTigerCache, CacheSetting: cacheFact, InstallationSettings: []string{}})
	result.RegisterEngine(result.EngineFacts{Engine: "ferretdb", InstallationSettings: []string{}})
}

// cacheFact is the environment key the driver records the WiredTiger cache
// under, and the name the working-set check shows for it.
const cacheFact = "wiredtiger_cache_bytes"

func wiredTigerCache(d result.Database) (int64, string) {
	b := int64(numfmt.Number(d.Extra[cacheFact]))
	if b <= 0 {
		return 0, ""
	}
	return b, cacheFact
}
