// Package sqlwork holds the mechanisms SQL workloads share: dialect-keyed
// statements, the dataset marker that records what fairbench itself loaded (so it
// reuses or replaces only its own data), and transaction rollback on error.
package sqlwork

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/fairbench/fairbench/internal/driver"
)

// MarkerTable records datasets fairbench loaded: which workload, with which
// parameters, and whether the load finished. IdentityTable records, for each
// finished load, the identity of the tables it made (see tableIdentitySQL).
// fairbench owns a dataset only while both agree with the tables in the
// database: another tool that drops and recreates the same tables (pgbench -i,
// sysbench prepare) changes their identity, and from then on the data is that
// tool's, never dropped without the user's explicit consent.
const (
	MarkerTable   = "fairbench_datasets"
	IdentityTable = "fairbench_dataset_tables"
)

// Marker states.
const (
	Loading = "loading"
	Ready   = "ready"
)

// MarkerFound reports whether fairbench left a marker for the dataset, in any
// state. Whether the tables are still the ones it loaded is Owns's question.
func MarkerFound(ctx context.Context, c driver.SQL, dataset string) (bool, error) {
	n, err := countRows(ctx, c, MarkerTable, "dataset = $1", dataset)
	return n > 0, err
}

// MarkerParams returns the params of the dataset's ready marker, "" when
// there is none.
func MarkerParams(ctx context.Context, c driver.SQL, dataset string) (string, error) {
	ok, err := TableExists(ctx, c, MarkerTable)
	if err != nil || !ok {
		return "", err
	}
	rows, err := c.Query(ctx, "SELECT params FROM "+MarkerTable+" WHERE dataset = $1 AND state = $2", dataset, Ready)
	if err != nil {
		return "", err
	}
	defer rows.Close()
	var p string
	if rows.Next() {
		if err := rows.Scan(&p); err != nil {
			return "", err
		}
	}
	return p, rows.Err()
}

// MarkerMatches reports whether the dataset's ready marker carries exactly params.
func MarkerMatches(ctx context.Context, c driver.SQL, dataset, params string) (bool, error) {
	n, err := countRows(ctx, c, MarkerTable, "dataset = $1 AND params = $2 AND state = $3", dataset, params, Ready)
	return n > 0, err
}

// MarkerLoading reports whether fairbench's load of the dataset with exactly
// params started and did not finish: a workload whose load can resume (tpcc)
// picks it up instead of starting over.
func MarkerLoading(ctx context.Context, c driver.SQL, dataset, params string) (bool, error) {
	n, err := countRows(ctx, c, MarkerTable, "dataset = $1 AND params = $2 AND state = $3", dataset, params, Loading)
	return n > 0, err
}

// Owns reports whether the dataset's tables are fairbench's own: its marker is
// there, and either the load is unfinished (the tables are fairbench's to
// replace) or each of tables that exists now is the very table the finished
// load recorded. A marker from a fairbench that recorded no identities owns
// nothing: the tables might have been replaced since.
func Owns(ctx context.Context, c driver.SQL, dataset string, tables []string) (bool, error) {
	_, owned, err := ownership(ctx, c, dataset, tables)
	return owned, err
}

// ownership answers Owns, and also whether a marker was found at all (owned
// implies found), for NeedsLoad to forget a marker that no longer owns.
func ownership(ctx context.Context, c driver.SQL, dataset string, tables []string) (found, owned bool, err error) {
	if found, err = MarkerFound(ctx, c, dataset); err != nil || !found {
		return found, false, err
	}
	if n, err := countRows(ctx, c, MarkerTable, "dataset = $1 AND state = $2", dataset, Loading); err != nil || n > 0 {
		return true, n > 0, err
	}
	for _, t := range tables {
		id, err := tableIdentity(ctx, c, t)
		if err != nil {
			return true, false, err
		}
		if id == 0 {
			continue // absent: nothing of someone else's to protect
		}
		n, err := countRows(ctx, c, IdentityTable, "dataset = $1 AND table_name = $2 AND table_id = $3", dataset, t, id)
		if err != nil || n == 0 {
			return true, false, err
		}
	}
	return true, true, nil
}

// countRows counts the rows of one of fairbench's marker tables that match
// where; a marker table not created yet holds none, and asking creates none.
func countRows(ctx context.Context, c driver.SQL, table, where string, args ...any) (int64, error) {
	ok, err := TableExists(ctx, c, table)
	if err != nil || !ok {
		return 0, err
	}
	st, err := c.Prepare(ctx, "SELECT count(*) FROM "+table+" WHERE "+where)
	if err != nil {
		return 0, err
	}
	return st.QueryInt64(ctx, args...)
}

// WriteMarker records the state of a dataset, creating the marker tables if
// needed. When the state is Ready it records the identity of tables as they
// are now, so it must come after the last statement that rebuilds them.
func WriteMarker(ctx context.Context, c driver.SQL, dataset, params, state string, tables []string) error {
	ddls := []string{
		"CREATE TABLE IF NOT EXISTS " + MarkerTable +
			" (dataset VARCHAR(64) PRIMARY KEY, params VARCHAR(1000) NOT NULL, state VARCHAR(16) NOT NULL)",
		"CREATE TABLE IF NOT EXISTS " + IdentityTable +
			" (dataset VARCHAR(64) NOT NULL, table_name VARCHAR(128) NOT NULL, table_id BIGINT NOT NULL, PRIMARY KEY (dataset, table_name))",
	}
	if c.Dialect() == clickHouse {
		// Two small tables of a few rows: TinyLog needs no key, and
		// deleteRows rewrites them whole.
		ddls = []string{
			"CREATE TABLE IF NOT EXISTS " + MarkerTable + " (dataset String, params String, state String) ENGINE = TinyLog",
			"CREATE TABLE IF NOT EXISTS " + IdentityTable + " (dataset String, table_name String, table_id Int64) ENGINE = TinyLog",
		}
	}
	for _, ddl := range ddls {
		if err := c.Exec(ctx, ddl); err != nil {
			return fmt.Errorf("creating fairbench's dataset markers: %w", err)
		}
	}
	if err := deleteRows(ctx, c, dataset, MarkerTable, IdentityTable); err != nil {
		return err
	}
	ins, err := c.Prepare(ctx, insertSQL(c, MarkerTable, "dataset, params, state"))
	if err != nil {
		return err
	}
	if err := ins.Exec(ctx, dataset, params, state); err != nil || state != Ready {
		return err
	}
	rec, err := c.Prepare(ctx, insertSQL(c, IdentityTable, "dataset, table_name, table_id"))
	if err != nil {
		return err
	}
	for _, t := range tables {
		id, err := tableIdentity(ctx, c, t)
		if err != nil {
			return err
		}
		if id == 0 {
			return fmt.Errorf("recording dataset %s: table %s is missing after its load", dataset, t)
		}
		if err := rec.Exec(ctx, dataset, t, id); err != nil {
			return err
		}
	}
	return nil
}

// DeleteMarker removes a dataset's marker (after Cleanup).
func DeleteMarker(ctx context.Context, c driver.SQL, dataset string) error {
	for _, table := range []string{MarkerTable, IdentityTable} {
		ok, err := TableExists(ctx, c, table)
		if err != nil {
			return err
		}
		if ok {
			if err := deleteRows(ctx, c, dataset, table); err != nil {
				return err
			}
		}
	}
	return nil
}

// clickHouse is ClickHouse's dialect name: an analytical engine without
// row deletes (18.16's ALTER … DELETE is an asynchronous mutation) or
// multi-row INSERT … VALUES through its Go driver.
const clickHouse = "clickhouse"

// insertSQL is an INSERT of one row of three parameters into a marker table.
// ClickHouse takes the row as a SELECT: the Go driver's INSERT … VALUES with
// bound values never returns on 18.16 (shared/peers/recipes/C-clickhouse.sh).
func insertSQL(c driver.SQL, table, columns string) string {
	if c.Dialect() == clickHouse {
		return "INSERT INTO " + table + " (" + columns + ") SELECT $1, $2, $3"
	}
	return "INSERT INTO " + table + " (" + columns + ") VALUES ($1, $2, $3)"
}

func deleteRows(ctx context.Context, c driver.SQL, dataset string, tables ...string) error {
	if c.Dialect() == clickHouse {
		return rewriteWithout(ctx, c, dataset, tables)
	}
	for _, table := range tables {
		del, err := c.Prepare(ctx, "DELETE FROM "+table+" WHERE dataset = $1")
		if err != nil {
			return err
		}
		if err := del.Exec(ctx, dataset); err != nil {
			return err
		}
	}
	return nil
}

// rewriteWithout deletes a dataset's rows from ClickHouse marker tables by
// copying the other rows into a new table that then takes the old one's
// name: the tables hold a row per dataset and table, and a mutation would
// still show the rows when the next statement reads them.
func rewriteWithout(ctx context.Context, c driver.SQL, dataset string, tables []string) error {
	for _, table := range tables {
		next, old := table+"_next", table+"_old"
		for _, ddl := range []string{"DROP TABLE IF EXISTS " + next, "DROP TABLE IF EXISTS " + old, "CREATE TABLE " + next + " AS " + table} {
			if err := c.Exec(ctx, ddl); err != nil {
				return fmt.Errorf("rewriting %s: %w", table, err)
			}
		}
		cp, err := c.Prepare(ctx, "INSERT INTO "+next+" SELECT * FROM "+table+" WHERE dataset != $1")
		if err != nil {
			return err
		}
		if err := cp.Exec(ctx, dataset); err != nil {
			return fmt.Errorf("rewriting %s: %w", table, err)
		}
		for _, ddl := range []string{"RENAME TABLE " + table + " TO " + old + ", " + next + " TO " + table, "DROP TABLE " + old} {
			if err := c.Exec(ctx, ddl); err != nil {
				return fmt.Errorf("rewriting %s: %w", table, err)
			}
		}
	}
	return nil
}

// tableIdentitySQL per dialect: a number that a table keeps for its lifetime
// (through TRUNCATE and ANALYZE) and that a table dropped and created again
// under the same name does not share; 0 when there is no such table. It takes
// the table name as $1 and looks in the connection's current schema only.
//   - PostgreSQL: the table's OID.
//   - MySQL/MariaDB: the creation time, in seconds; InnoDB keeps it through
//     TRUNCATE, and a rebuild (ALTER) changes it, which errs on the safe side.
//     A table recreated within the second of fairbench's load would pass as
//     fairbench's, which no real tool does that fast.
//   - SQLite: the table's root page, which a recreated table may reuse; no other
//     benchmark tool writes these tables into an SQLite file.
var tableIdentitySQL = map[string]string{
	"postgres": "SELECT coalesce(max(c.oid::bigint), 0) FROM pg_catalog.pg_class c JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace " +
		"WHERE n.nspname = current_schema() AND c.relname = $1 AND c.relkind IN ('r', 'p')",
	"sqlite": "SELECT coalesce(max(rootpage), 0) FROM sqlite_master WHERE type = 'table' AND name = $1",
	"mysql":  "SELECT coalesce(max(UNIX_TIMESTAMP(create_time)), 0) FROM information_schema.tables WHERE table_schema = DATABASE() AND table_name = $1",
	// ClickHouse: when the table's metadata was last written (its CREATE or
	// an ALTER), in seconds, as MySQL's creation time; 18.16 has no table UUIDs.
	clickHouse: "SELECT toInt64(max(toUnixTimestamp(metadata_modification_time))) FROM system.tables WHERE database = currentDatabase() AND name = $1",
}

func tableIdentity(ctx context.Context, c driver.SQL, table string) (int64, error) {
	q, ok := tableIdentitySQL[c.Dialect()]
	if !ok {
		return 0, fmt.Errorf("dialect %s is not supported", c.Dialect())
	}
	id, err := c.QueryInt64(ctx, q, table)
	if err != nil {
		return 0, fmt.Errorf("reading the identity of table %s: %w", table, err)
	}
	return id, nil
}

// tableExistsSQL per dialect; each takes the table name as $1 and looks in the
// connection's current schema only.
var tableExistsSQL = map[string]string{
	"postgres": "SELECT count(*) FROM pg_catalog.pg_tables WHERE schemaname = current_schema() AND tablename = $1",
	"sqlite":   "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = $1",
	"mysql":    "SELECT count(*) FROM information_schema.tables WHERE table_schema = DATABASE() AND table_name = $1",
	clickHouse: "SELECT count(*) FROM system.tables WHERE database = currentDatabase() AND name = $1",
}

// LeftAlone is a cleanup's answer when fairbench's marker does not own the
// dataset's tables: an error naming those present, which it leaves in
// place, so that load --clean says what it did not remove and why; nil when
// none is there to clean. peer, when not "", says what the peer tool's
// cleanup would have done ("sysbench's cleanup would drop them").
func LeftAlone(ctx context.Context, c driver.SQL, tables []string, peer string) error {
	var present []string
	for _, t := range tables {
		ok, err := TableExists(ctx, c, t)
		if err != nil {
			return err
		}
		if ok {
			present = append(present, t)
		}
	}
	if len(present) == 0 {
		return nil
	}
	if peer != "" {
		peer += "; "
	}
	return fmt.Errorf("%s left alone: fairbench's marker does not say it created them (%sfairbench drops only tables it loaded)", strings.Join(present, ", "), peer)
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

// listTablesSQL per dialect: the tables of the connection's current schema.
var listTablesSQL = map[string]string{
	"postgres": "SELECT tablename FROM pg_catalog.pg_tables WHERE schemaname = current_schema() ORDER BY tablename",
	"sqlite":   "SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name",
	"mysql":    "SELECT table_name FROM information_schema.tables WHERE table_schema = DATABASE() ORDER BY table_name",
	clickHouse: "SELECT name FROM system.tables WHERE database = currentDatabase() ORDER BY name",
}

// listTables lists the tables of the current schema.
func listTables(ctx context.Context, c driver.SQL) ([]string, error) {
	q, ok := listTablesSQL[c.Dialect()]
	if !ok {
		return nil, fmt.Errorf("dialect %s is not supported", c.Dialect())
	}
	rows, err := c.Query(ctx, q)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var name string
		if err := rows.Scan(&name); err != nil {
			return nil, err
		}
		out = append(out, name)
	}
	return out, rows.Err()
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
	// Lasting are the tables no run empties or rebuilds, whose identity tells
	// fairbench's tables from another tool's (tpcb truncates pgbench_history
	// before each run, and MySQL may count that as a new table); nil = Tables.
	Lasting []string
	Tool    string // the standard tool that makes the same tables ("pgbench"), for messages
	// Columns, when set, gives the exact columns a table of the dataset has
	// when fairbench or Tool made it (false: any). Tables with the dataset's
	// names but other columns (made by hand, altered since) are never reused,
	// and never modified without --replace.
	Columns func(table string) ([]Column, bool)
	Wanted  string // what the parameters ask for ("scale 3"), for messages
	// Inspect looks at a complete set of tables fairbench did not create:
	// whether they hold the wanted data, what they hold ("scale 2"), and how to
	// ask for that instead ("--scale 2"), for messages.
	Inspect func(ctx context.Context) (Inspection, error)
}

// Inspection is what Dataset.Inspect found.
type Inspection struct {
	Usable bool   // the tables hold the wanted data
	Holds  string // what they hold ("scale 2")
	Ask    string // the parameter that asks for what they hold ("scale = 2 (-s 2)"); empty if none does
}

// lasting returns the tables whose identity is recorded (Lasting, or Tables).
func (d Dataset) lasting() []string {
	if d.Lasting != nil {
		return d.Lasting
	}
	return d.Tables
}

// NeedsLoad decides whether a dataset must be loaded. Data fairbench loaded with
// the same parameters is reused, and so are tables made by the standard tool that
// Inspect accepts. fairbench's own data is replaced when the parameters differ or
// its load did not finish; tables someone else made (including tables another
// tool recreated over fairbench's) are never dropped unless replace is set, and
// the error says how to set it.
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
	found, ours, err := ownership(ctx, c, d.Name, d.lasting())
	if err != nil {
		return false, err
	}
	if err := checkShape(ctx, c, d); err != nil {
		var se *shapeError
		if replace && errors.As(err, &se) {
			logf("%s: dropping table %s (%s), as --replace asks", d.Name, se.Table, se.Diff)
			return true, nil
		}
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
	if found {
		// fairbench's record describes tables that are gone: forget it, so that
		// nothing later (cleanup, the next run) takes the new tables for its own.
		logf("%s: fairbench's record of loading these tables does not match them any more (recreated by %s or another tool, "+
			"or loaded by a fairbench that kept no record of their identity): they count as someone else's", d.Name, d.Tool)
		if err := DeleteMarker(ctx, c, d.Name); err != nil {
			return false, err
		}
	}
	holds, ask := "an incomplete set of "+d.Tool+" tables", ""
	if present == len(d.Tables) {
		in, err := d.Inspect(ctx)
		if err != nil {
			return false, err
		}
		if in.Usable {
			logf("%s: reusing existing %s tables (%s)", d.Name, d.Tool, in.Holds)
			return false, nil
		}
		holds, ask = d.Tool+" tables with "+in.Holds, in.Ask
	}
	if replace {
		return true, nil
	}
	use := ""
	if ask != "" {
		use = "ask for " + ask + " to use them as they are, "
	}
	return false, fmt.Errorf("the database already holds %s that fairbench did not create (wanted %s); "+
		"%srerun with --replace to drop and reload them, or point the target at another database", holds, d.Wanted, use)
}
