package adapter

import (
	"context"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/fairbench/fairbench/internal/driver"
)

// A tool's load (DataLoad) on a SQL target drops and recreates its tables
// only when fairbench made them — its marker in fairbench_datasets, the SQL
// workloads' own — or when --replace allows it; a table of that name someone
// else made stops the cell with the reason. The runner opens the session and
// runs the load's command between Prepare and Loaded; what may be dropped is
// decided here, and what the markers say by DatasetMarkers.

// DatasetMarkers are fairbench's records, on a SQL target, of the data sets
// it loaded. internal/workload/sqlwork keeps them (sqlwork.Markers) and
// registers them here, so that neither this package nor the runner depends
// on a workload package.
type DatasetMarkers interface {
	TableExists(ctx context.Context, c driver.SQL, table string) (bool, error)
	// Owns reports whether the tables are the data set's, as fairbench's
	// marker of it and the tables' identity agree.
	Owns(ctx context.Context, c driver.SQL, dataset string, tables []string) (bool, error)
	// MarkLoading records a load under way, MarkReady a finished one and
	// the tables it made.
	MarkLoading(ctx context.Context, c driver.SQL, dataset, params string) error
	MarkReady(ctx context.Context, c driver.SQL, dataset, params string, tables []string) error
	// Tables lists the database's tables but the marker tables themselves,
	// which DropMarkers drops.
	Tables(ctx context.Context, c driver.SQL) ([]string, error)
	DropMarkers(ctx context.Context, c driver.SQL) error
}

var datasetMarkers DatasetMarkers

// RegisterDatasetMarkers makes the SQL data-set markers available to tool
// loads. internal/workload/sqlwork calls it from init; it panics when called
// twice.
func RegisterDatasetMarkers(m DatasetMarkers) {
	if datasetMarkers != nil {
		panic("adapter: dataset markers registered twice")
	}
	datasetMarkers = m
}

// markers returns the registered markers, or why a load cannot check them.
func markers() (DatasetMarkers, error) {
	if datasetMarkers == nil {
		return nil, fmt.Errorf("no SQL data-set markers are registered: this build lacks internal/workload/sqlwork (import internal/plugins)")
	}
	return datasetMarkers, nil
}

// Prepare readies the SQL target s for the load of tool (its name, for
// messages) before its command runs: it refuses tables fairbench did not
// make unless replace, and records the load as under way (or, for a
// WholeDatabase load, empties the database of the previous load's tables).
// progress gets a line when tables are dropped.
func (l *DataLoad) Prepare(ctx context.Context, tool string, s driver.SQL, replace bool, progress io.Writer) error {
	marks, err := markers()
	if err != nil {
		return err
	}
	if l.WholeDatabase {
		return l.clearWholeDatabase(ctx, tool, s, marks, replace, progress)
	}
	var existing []string
	for _, table := range l.Tables {
		exists, err := marks.TableExists(ctx, s, table)
		if err != nil {
			return fmt.Errorf("looking for table %s: %w", table, err)
		}
		if exists {
			existing = append(existing, table)
		}
	}
	ours, err := marks.Owns(ctx, s, l.Dataset, l.Tables)
	if err != nil {
		return fmt.Errorf("reading fairbench's dataset markers: %w", err)
	}
	if len(existing) > 0 && !ours && !replace {
		what := "a table " + existing[0]
		if len(existing) > 1 {
			what = "tables " + strings.Join(existing, ", ")
		}
		return fmt.Errorf("the database already holds %s that fairbench did not create, and %s's load would drop them; "+
			"rerun with --replace to let it, or point the target at another database", what, tool)
	}
	if err := marks.MarkLoading(ctx, s, l.Dataset, l.Params); err != nil {
		return fmt.Errorf("recording the %s load: %w", tool, err)
	}
	return nil
}

// Loaded records, after the load's command succeeded, that fairbench made
// the load's tables, so that the next cell's load may replace them.
func (l *DataLoad) Loaded(ctx context.Context, tool string, s driver.SQL) error {
	marks, err := markers()
	if err != nil {
		return err
	}
	if err := marks.MarkReady(ctx, s, l.Dataset, l.Params, l.Tables); err != nil {
		return fmt.Errorf("recording the %s load: %w", tool, err)
	}
	return nil
}

// clearWholeDatabase readies the target's database for a load that builds
// into an empty database (HammerDB's buildschema refuses any table, fairbench's
// marker tables included). A database without tables is used as it is. One
// whose tables are all the load's own, claimed by fairbench's marker of the
// data set (or, with replace, the load's own names), is emptied: Clear's
// statements, then the marker tables, which Loaded writes again after the
// load. Any other table stops the cell: fairbench drops nothing it did not
// create, and the load could not run beside it anyway. A load interrupted
// before Loaded leaves tables without a marker, which the next run refuses
// (drop the database's tables, or point the target at a new database).
func (l *DataLoad) clearWholeDatabase(ctx context.Context, tool string, s driver.SQL, marks DatasetMarkers, replace bool, progress io.Writer) error {
	tables, err := marks.Tables(ctx, s)
	if err != nil {
		return fmt.Errorf("listing the database's tables: %w", err)
	}
	var foreign []string
	for _, table := range tables {
		if !slices.Contains(l.Tables, strings.ToLower(table)) {
			foreign = append(foreign, table)
		}
	}
	if len(foreign) > 0 {
		return fmt.Errorf("%s builds into an empty database, and this one holds tables that are not %s's (%s): fairbench drops nothing it did not create; point the target at a new or empty database",
			tool, tool, strings.Join(foreign, ", "))
	}
	if len(tables) > 0 {
		ours, err := marks.Owns(ctx, s, l.Dataset, l.Tables)
		if err != nil {
			return fmt.Errorf("reading fairbench's dataset markers: %w", err)
		}
		if !ours && !replace {
			return fmt.Errorf("the database already holds %s's tables (%s), but fairbench's markers do not say that fairbench's %s load made them (another tool, or a load that did not finish); "+
				"rerun with --replace to let fairbench drop them, or point the target at a new or empty database", tool, strings.Join(tables, ", "), tool)
		}
		stmts, ok := l.Clear[s.Dialect()]
		if !ok {
			return fmt.Errorf("%s has no statements to clear a %s database", tool, s.Dialect())
		}
		fmt.Fprintf(progress, "  load: dropping the %s tables fairbench's previous load made\n", tool)
		for _, q := range stmts {
			if err := s.Exec(ctx, q); err != nil {
				return fmt.Errorf("clearing %s's previous load: %s: %w", tool, q, err)
			}
		}
	}
	if err := marks.DropMarkers(ctx, s); err != nil {
		return fmt.Errorf("dropping fairbench's marker tables before %s's load: %w", tool, err)
	}
	return nil
}
