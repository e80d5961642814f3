package opensearch

import (
	"github.com/fairbench/fairbench/internal/numfmt"
	"github.com/fairbench/fairbench/internal/result"
)

// What reading a recorded OpenSearch or Elasticsearch environment needs to
// know of the engine: its own memory is the JVM heap of its nodes.
func init() {
	for _, engine := range []string{"opensearch", "elasticsearch"} {
		result.RegisterEngine(result.EngineFacts{Engine: engine, Cache: heap, CacheSetting: heapSetting, InstallationSettings: []string{}})
	}
}

// heapSetting names the cache in the working-set check: the nodes' JVM heap
// (-Xmx), as /_nodes/jvm reports it.
const heapSetting = "JVM heap"

// heap sums the heap of the recorded nodes ("node_facts").
func heap(d result.Database) (int64, string) {
	nodes, _ := d.Extra["node_facts"].([]any)
	var sum float64
	for _, n := range nodes {
		if m, ok := n.(map[string]any); ok {
			sum += numfmt.Number(m["heap_max_bytes"])
		}
	}
	if sum <= 0 {
		return 0, ""
	}
	return int64(sum), heapSetting
}
