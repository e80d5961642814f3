package sqlwork

import (
	"context"
	"fmt"

	"github.com/fairbench/fairbench/internal/driver"
	owned "github.com/fairbench/fairbench/internal/ownership"
)

// The markers are offered, through ownership, to the loads of external tools
// (go-ycsb load), whose runner must not import a workload package.
func init() { owned.RegisterSQL(Markers{}) }

// Markers implements ownership.SQLTables with this package's marker table.
type Markers struct{}

// TableExists implements owned.SQLTables.
func (Markers) TableExists(ctx context.Context, c driver.SQL, table string) (bool, error) {
	return TableExists(ctx, c, table)
}

// Owns implements owned.SQLTables.
func (Markers) Owns(ctx context.Context, c driver.SQL, dataset string, tables []string) (bool, error) {
	return Owns(ctx, c, dataset, tables)
}

// MarkLoading implements owned.SQLTables.
func (Markers) MarkLoading(ctx context.Context, c driver.SQL, dataset, params string) error {
	return WriteMarker(ctx, c, dataset, params, Loading, nil)
}

// MarkReady implements owned.SQLTables.
func (Markers) MarkReady(ctx context.Context, c driver.SQL, dataset, params string, tables []string) error {
	return WriteMarker(ctx, c, dataset, params, Ready, tables)
}

// Tables implements owned.SQLTables.
func (Markers) Tables(ctx context.Context, c driver.SQL) ([]string, error) {
	all, err := ListTables(ctx, c)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, t := range all {
		if t != MarkerTable && t != IdentityTable {
			out = append(out, t)
		}
	}
	return out, nil
}

// DropMarkers implements owned.SQLTables.
func (Markers) DropMarkers(ctx context.Context, c driver.SQL) error {
	for _, t := range []string{IdentityTable, MarkerTable} {
		if err := c.Exec(ctx, "DROP TABLE IF EXISTS "+t); err != nil {
			return fmt.Errorf("dropping %s: %w", t, err)
		}
	}
	return nil
}
