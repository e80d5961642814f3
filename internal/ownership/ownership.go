// Package ownership is where the code that keeps fairbench's data-set markers
// (internal/workload/sqlwork, for SQL targets) offers them to code that must
// not import a workload package: a tool's own data load, run by the runner,
// replaces only a table fairbench made. For key-value stores, which have no
// tables, it holds the key ranges (keys.go) that the kv and ycsb workloads
// and the tool cells check for keys fairbench did not write, and delete.
package ownership

import (
	"context"
	"sync"

	"github.com/fairbench/fairbench/internal/driver"
)

// SQLTables reads and writes fairbench's markers of the data sets it made on
// a SQL target.
type SQLTables interface {
	// TableExists reports whether the target holds table.
	TableExists(ctx context.Context, c driver.SQL, table string) (bool, error)
	// Owns reports whether fairbench's marker of dataset claims tables.
	Owns(ctx context.Context, c driver.SQL, dataset string, tables []string) (bool, error)
	// MarkLoading records that a load of dataset with params has begun.
	MarkLoading(ctx context.Context, c driver.SQL, dataset, params string) error
	// MarkReady records that the load finished and made tables.
	MarkReady(ctx context.Context, c driver.SQL, dataset, params string, tables []string) error
	// Tables lists every table of the current schema, the marker tables
	// apart.
	Tables(ctx context.Context, c driver.SQL) ([]string, error)
	// DropMarkers drops the marker tables, for a load that refuses any
	// table in its database (HammerDB's): MarkReady makes them again.
	DropMarkers(ctx context.Context, c driver.SQL) error
}

var (
	mu  sync.RWMutex
	sql SQLTables
)

// RegisterSQL sets the SQL markers; their owner calls it from init. It panics
// when called twice.
func RegisterSQL(t SQLTables) {
	mu.Lock()
	defer mu.Unlock()
	if sql != nil {
		panic("ownership: SQL markers registered twice")
	}
	sql = t
}

// SQL returns the registered SQL markers; ok is false when the program links
// none, and then nothing may drop a table.
func SQL() (t SQLTables, ok bool) {
	mu.RLock()
	defer mu.RUnlock()
	return sql, sql != nil
}
