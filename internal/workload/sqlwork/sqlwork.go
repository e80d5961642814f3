// Package sqlwork holds the mechanisms SQL workloads share: dialect-keyed
// statements, the dataset marker that records what fairbench itself loaded (so it
// reuses or replaces only its own data), and transaction rollback on error.
package sqlwork

import (
	"context"
	"fmt"
	"strings"

	"github.com/fairbench/fairbench/internal/driver"
)

// MarkerTable records datasets fairbench loaded: which workload, with which
// parameters, and whether the load finished. Data without a marker row was made by
// someone else and is never dropped without the user's explicit consent.
const MarkerTable = "fairbench_datasets"

// Marker states.
const (
	Loading = "loading"
	Ready   = "ready"
)

// MarkerFound reports whether fairbench left a marker for the dataset, in any
// state: the data is then fairbench's own and may be replaced.
func MarkerFound(ctx context.Context, c driver.SQL, dataset string) (bool, error) {
	ok, err := TableExists(ctx, c, MarkerTable)
	if err != nil || !ok {
		return false, err
	}
	n, err := c.QueryInt64(ctx, "SELECT count(*) FROM "+MarkerTable+" WHERE dataset = $1", dataset)
	return n > 0, err
}

// MarkerMatches reports whether the dataset's ready marker carries exactly params.
func MarkerMatches(ctx context.Context, c driver.SQL, dataset, params string) (bool, error) {
	ok, err := TableExists(ctx, c, MarkerTable)
	if err != nil || !ok {
		return false, err
	}
	st, err := c.Prepare(ctx, "SELECT count(*) FROM "+MarkerTable+" WHERE dataset = $1 AND params = $2 AND state = $3")
	if err != nil {
		return false, err
	}
	n, err := st.QueryInt64(ctx, dataset, params, Ready)
	return n > 0, err
}

// WriteMarker records the state of a dataset, creating the marker table if needed.
func WriteMarker(ctx context.Context, c driver.SQL, dataset, params, state string) error {
	if err := c.Exec(ctx, "CREATE TABLE IF NOT EXISTS "+MarkerTable+
		" (dataset VARCHAR(64) PRIMARY KEY, params VARCHAR(1000) NOT NULL, state VARCHAR(16) NOT NULL)"); err != nil {
		return fmt.Errorf("creating %s: %w", MarkerTable, err)
	}
	del, err := c.Prepare(ctx, "DELETE FROM "+MarkerTable+" WHERE dataset = $1")
	if err != nil {
		return err
	}
	if err := del.Exec(ctx, dataset); err != nil {
		return err
	}
	ins, err := c.Prepare(ctx, "INSERT INTO "+MarkerTable+" (dataset, params, state) VALUES ($1, $2, $3)")
	if err != nil {
		return err
	}
	return ins.Exec(ctx, dataset, params, state)
}

// DeleteMarker removes a dataset's marker (after Cleanup).
func DeleteMarker(ctx context.Context, c driver.SQL, dataset string) error {
	ok, err := TableExists(ctx, c, MarkerTable)
	if err != nil || !ok {
		return err
	}
	st, err := c.Prepare(ctx, "DELETE FROM "+MarkerTable+" WHERE dataset = $1")
	if err != nil {
		return err
	}
	return st.Exec(ctx, dataset)
}

// tableExistsSQL per dialect; each takes the table name as $1 and looks in the
// connection's current schema only.
var tableExistsSQL = map[string]string{
	"postgres": "SELECT count(*) FROM pg_catalog.pg_tables WHERE schemaname = current_schema() AND tablename = $1",
	"sqlite":   "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = $1",
	"mysql":    "SELECT count(*) FROM information_schema.tables WHERE table_schema = DATABASE() AND table_name = $1",
}

// TableExists reports whether a table exists in the current schema.
func TableExists(ctx context.Context, c driver.SQL, table string) (bool, error) {
	q, ok := tableExistsSQL[c.Dialect()]
	if !ok {
		return false, fmt.Errorf("dialect %s is not supported", c.Dialect())
	}
	n, err := c.QueryInt64(ctx, q, table)
	return n > 0, err
}

// Rollback ends a failed transaction so that the connection is usable again. It
// returns the original error; a failing rollback (lost connection) adds nothing useful.
func Rollback(ctx context.Context, c driver.SQL, err error) error {
	_ = c.Exec(context.WithoutCancel(ctx), "ROLLBACK")
	return err
}

// Pick returns the statement text for the connection's dialect.
func Pick(c driver.SQL, byDialect map[string]string) (string, error) {
	if s, ok := byDialect[c.Dialect()]; ok {
		return s, nil
	}
	if s, ok := byDialect["*"]; ok {
		return s, nil
	}
	have := make([]string, 0, len(byDialect))
	for d := range byDialect {
		have = append(have, d)
	}
	return "", fmt.Errorf("no statement for dialect %s (have %s)", c.Dialect(), strings.Join(have, ", "))
}

// Dataset describes the tables a workload loads, for NeedsLoad.
type Dataset struct {
	Name   string   // the marker's name ("tpcb", "oltp")
	Params string   // the parameters that shape the data; a ready marker with the same ones is reused
	Tables []string // every table of the dataset
	Tool   string   // the standard tool that makes the same tables ("pgbench"), for messages
	Wanted string   // what the parameters ask for ("scale 3"), for messages
	// Inspect looks at a complete set of tables fairbench did not create: whether
	// they hold the wanted data, and how to name what they hold ("scale 2").
	Inspect func(ctx context.Context) (usable bool, holds string, err error)
}

// NeedsLoad decides whether a dataset must be loaded. Data fairbench loaded with
// the same parameters is reused, and so are tables made by the standard tool that
// Inspect accepts. fairbench's own data is replaced when the parameters differ or
// its load did not finish; tables someone else made are never dropped unless
// replace is set, and the error says how to set it.
func NeedsLoad(ctx context.Context, c driver.SQL, d Dataset, replace bool, logf func(string, ...any)) (bool, error) {
	present := 0
	for _, t := range d.Tables {
		ok, err := TableExists(ctx, c, t)
		if err != nil {
			return false, fmt.Errorf("looking for %s's tables: %w", d.Tool, err)
		}
		if ok {
			present++
		}
	}
	if present == 0 {
		return true, nil
	}
	ours, err := MarkerFound(ctx, c, d.Name)
	if err != nil {
		return false, err
	}
	if ours {
		same, err := MarkerMatches(ctx, c, d.Name, d.Params)
		if err != nil {
			return false, err
		}
		if same && present == len(d.Tables) {
			logf("%s: reusing the data fairbench loaded earlier (%s)", d.Name, d.Params)
			return false, nil
		}
		return true, nil
	}
	holds := "an incomplete set of " + d.Tool + " tables"
	if present == len(d.Tables) {
		usable, what, err := d.Inspect(ctx)
		if err != nil {
			return false, err
		}
		if usable {
			logf("%s: reusing existing %s tables (%s)", d.Name, d.Tool, what)
			return false, nil
		}
		holds = d.Tool + " tables with " + what
	}
	if replace {
		return true, nil
	}
	return false, fmt.Errorf("the database already holds %s that fairbench did not create (wanted %s); "+
		"rerun with --replace to drop and reload them, or point the target at another database", holds, d.Wanted)
}
