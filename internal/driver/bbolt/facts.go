package bbolt

import "github.com/fairbench/fairbench/internal/result"

// What reading a recorded bbolt environment needs to know of the engine: it
// runs inside fairbench's process, and keeps no cache of its own (its file is
// memory-mapped: the page cache holds it).
func init() {
	result.RegisterEngine(result.EngineFacts{Engine: engine.Name, InProcess: true, InstallationSettings: []string{}})
}
