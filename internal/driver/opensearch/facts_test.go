package opensearch

import (
	"encoding/json"
	"testing"

	"github.com/fairbench/fairbench/internal/result"
)

// The nodes' heaps, as recorded, are the engine's memory.
func TestEngineFacts(t *testing.T) {
	var db result.Database
	recorded := `{"engine":"opensearch","node_facts":[{"name":"a","heap_max_bytes":536870912},{"name":"b","heap_max_bytes":536870912}]}`
	if err := json.Unmarshal([]byte(recorded), &db); err != nil {
		t.Fatal(err)
	}
	if b, name := db.Cache(); b != 1<<30 || name != heapSetting {
		t.Errorf("cache %d %q, want 1 GiB of heap", b, name)
	}
}
