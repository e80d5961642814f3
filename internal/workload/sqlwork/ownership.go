package sqlwork

import (
	"context"
	"fmt"

	"github.com/fairbench/fairbench/internal/adapter"
	"github.com/fairbench/fairbench/internal/driver"
)

// markers are this package's data-set markers as the loads of external
// tools (go-ycsb load, HammerDB's build) use them: a tool's load replaces
// only tables fairbench made. They are registered with the adapters, which
// run those loads (adapter.DataLoad), so that the runner that drives the
// loads needs no SQL knowledge of its own.
type markers struct{}

func init() { adapter.RegisterDatasetMarkers(markers{}) }

// TableExists is for tool loads.
func (markers) TableExists(ctx context.Context, c driver.SQL, table string) (bool, error) {
	return TableExists(ctx, c, table)
}

// Owns is for tool loads.
func (markers) Owns(ctx context.Context, c driver.SQL, dataset string, tables []string) (bool, error) {
	return Owns(ctx, c, dataset, tables)
}

// MarkLoading is for tool loads.
func (markers) MarkLoading(ctx context.Context, c driver.SQL, dataset, params string) error {
	return WriteMarker(ctx, c, dataset, params, Loading, nil)
}

// MarkReady is for tool loads.
func (markers) MarkReady(ctx context.Context, c driver.SQL, dataset, params string, tables []string) error {
	return WriteMarker(ctx, c, dataset, params, Ready, tables)
}

// Tables is for tool loads.
func (markers) Tables(ctx context.Context, c driver.SQL) ([]string, error) {
	all, err := listTables(ctx, c)
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

// DropMarkers is for tool loads.
func (markers) DropMarkers(ctx context.Context, c driver.SQL) error {
	for _, t := range []string{IdentityTable, MarkerTable} {
		if err := c.Exec(ctx, "DROP TABLE IF EXISTS "+t); err != nil {
			return fmt.Errorf("dropping %s: %w", t, err)
		}
	}
	return nil
}
