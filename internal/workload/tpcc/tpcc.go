// Package tpcc is fairbench's TPC-C workload, comparable with HammerDB's
// TPROC-C: the specification's nine tables and data (clause 4.3), its five
// transactions with the standard mix, run either as SQL statements sent by
// fairbench or as stored procedures fairbench installs (HammerDB's default),
// and HammerDB's metrics: NOPM from the districts' next order ids and TPM
// from the server's own commit and rollback counters, both over the measured
// phase; tpmC from fairbench's count of committed New-Orders beside them.
package tpcc

import (
	"context"
	"fmt"
	"strings"
	"sync/atomic"
	"time"

	"github.com/fairbench/fairbench/internal/driver"
	"github.com/fairbench/fairbench/internal/kinds"
	"github.com/fairbench/fairbench/internal/params"
	"github.com/fairbench/fairbench/internal/params/tpccparams"
	"github.com/fairbench/fairbench/internal/workload"
	"github.com/fairbench/fairbench/internal/workload/sqlwork"
)

func init() {
	workload.Register(workload.Plugin{
		Workload: Workload{},
		Kind: kinds.Info{
			Headline:   tpccparams.Headline,
			Summary:    peerSummary,
			WorkingSet: workingSet,
			Sections:   sections,
		},
	})
}

// Workload is the tpcc kind.
type Workload struct{}

// Kind implements workload.Workload.
func (Workload) Kind() string { return "tpcc" }

// Description implements workload.Workload.
func (Workload) Description() string {
	return "TPC-C, HammerDB-comparable: NOPM and TPM, five transactions (45/43/4/4/4), client-side SQL or stored procedures"
}

// Params implements workload.Workload.
func (Workload) Params() []params.Spec { return tpccparams.Specs() }

// rampup is HammerDB's default ramp-up (rampup = 2 minutes), the ad-hoc
// run's too: a study sets its own warm-up.
const rampup = "2m"

// Flags implements workload.Flagger: HammerDB's words (virtual users,
// ramp-up) and go-tpc's (--warehouses, -T threads, --time).
func (Workload) Flags() []workload.Flag {
	return []workload.Flag{
		{Name: "warehouses", Param: tpccparams.Warehouses},
		{Name: "vus", Field: workload.FieldClients, Usage: "virtual users, one connection each (HammerDB vu; go-tpc -T)", Default: "1"},
		{Name: "threads", Shorthand: "T", Field: workload.FieldClients, Usage: "same as --vus (go-tpc's -T)"},
		{Name: "rampup", Field: workload.FieldWarmup, Default: rampup, Usage: "ramp-up before the measured phase, excluded from every number (HammerDB rampup): " +
			"HammerDB's default 2 min, as a freshly started TPC-C runs on cold caches and its first minutes' NOPM is not the steady one; --rampup 0 measures from the first transaction, as go-tpc does"},
		{Name: "duration", Field: workload.FieldDuration, Usage: "measured duration (HammerDB duration)", Default: "60s"},
		{Name: "time", Field: workload.FieldDuration, Usage: "same as --duration (go-tpc's --time)"},
		{Name: "implementation", Param: tpccparams.Implementation},
		{Name: "stored-procedures", Param: tpccparams.Implementation, Switch: tpccparams.Procedures, Usage: "run each transaction as one stored-procedure call (HammerDB's default)"},
		{Name: "all-warehouses", Param: tpccparams.AllWarehouses, Switch: "true"},
		{Name: "keying-thinking", Param: tpccparams.KeyingThinking, Switch: "true"},
		{Name: "load-workers", Param: tpccparams.LoadWorkers},
		{Name: "seed", Param: tpccparams.Seed},
		{Name: "max-tries", Field: workload.FieldMaxTries, Usage: "tries per transaction on a serialization failure or deadlock", Default: "1"},
		{Name: "progress", Shorthand: "P", Field: workload.FieldProgress, Usage: "show progress every N seconds (0 = none)", Default: "0"},
		{Name: "rate", Shorthand: "R", Field: workload.FieldRate, Usage: "target transactions per second over all users (0 = as fast as possible)"},
	}
}

// CommandLine implements workload.CommandLiner: HammerDB's settings and
// go-tpc's flags as flags; the database is the --target URL. HammerDB's
// diset tpcc names are --set names too (hammerdbSettings).
func (Workload) CommandLine() workload.CommandLine {
	return workload.CommandLine{
		Settings: hammerdbSettings(),
		Targets: "SQL databases: postgres:// (PostgreSQL), mysql:// (MySQL and MariaDB), sqlite:FILE " +
			"(SQLite with --implementation client only: it has no stored procedures)",
		Examples: []string{
			"fairbench run --workload tpcc --target postgres://bench@127.0.0.1/bench --warehouses 10 --load-workers 4 --vus 8 --duration 5m",
			"fairbench run --workload tpcc --target mysql://bench@127.0.0.1/tpcc --warehouses 4 --vus 4 --stored-procedures --rampup 30s --duration 2m -P 10",
			"fairbench run --workload tpcc --target sqlite:tpcc.db -T 2 --time 1m --rampup 0",
		},
	}
}

// hammerdbSettings are HammerDB's diset tpcc names, bare or with their
// database's prefix (pg_count_ware, mysql_count_ware), as --set names:
// each the flag it is, its minutes (rampup, duration) made a duration; the
// connection's names say that the server is the --target URL.
func hammerdbSettings() map[string]workload.Setting {
	bare := map[string]workload.Setting{
		"count_ware": {Flag: "warehouses"}, "num_vu": {Flag: "vus"},
		"rampup": {Flag: "rampup", Unit: "m"}, "duration": {Flag: "duration", Unit: "m"},
		"allwarehouse": {Flag: "all-warehouses"}, "keyandthink": {Flag: "keying-thinking"},
	}
	instead := "the server is the --target URL (postgres://USER@HOST:PORT/DB, mysql://…), its password PGPASSWORD or MYSQL_PWD"
	for _, n := range []string{"host", "port", "user", "pass", "dbase", "superuser", "superuserpass", "defaultdbase", "socket"} {
		bare[n] = workload.Setting{Instead: instead}
	}
	out := map[string]workload.Setting{}
	for n, s := range bare {
		for _, prefix := range []string{"", "pg_", "mysql_", "maria_"} {
			out[prefix+n] = s
		}
	}
	return out
}

// New implements workload.Workload.
func (Workload) New(p params.Values) (workload.Instance, error) {
	o := tpccparams.Decode(p)
	return &instance{
		warehouses: o.Warehouses, impl: o.Implementation, all: o.AllWarehouses,
		keying: o.KeyingThinking, loadWorkers: int(o.LoadWorkers), seed: uint64(o.Seed),
	}, nil
}

type instance struct {
	warehouses  int64
	impl        string
	all, keying bool
	loadWorkers int
	seed        uint64

	// rollbacks counts the New-Orders rolled back as the specification asks
	// (1 %): they are completed transactions, but not committed New-Orders.
	rollbacks atomic.Int64
}

const dataset = "tpcc"

func (in *instance) Ops() []string { return tpccparams.Ops }

func (in *instance) dataParams() string {
	return fmt.Sprintf("warehouses=%d seed=%d", in.warehouses, in.seed)
}

// Hooks implements workload.Hooker.
func (in *instance) Hooks() workload.Hooks {
	return workload.Hooks{Check: in.check, Cleanup: in.cleanup, Describe: in.describe, Counts: in.counts, ServerCounts: in.serverCounts}
}

// counts is the Counts hook.
func (in *instance) counts() map[string]int64 {
	return map[string]int64{rolledBack: in.rollbacks.Load()}
}

// rolledBack is the Summary.Extra counter of New-Orders rolled back on purpose.
const rolledBack = "new_order_rollbacks"

// Prepare implements workload.Instance: reuse, resume or load the tables,
// and install the stored procedures when the run calls them.
func (in *instance) Prepare(ctx context.Context, env workload.PrepareEnv) error {
	c, err := workload.SQLConn("tpcc", env.Conn)
	if err != nil {
		return err
	}
	if _, ok := env.Conn.(driver.BulkLoader); !ok {
		return fmt.Errorf("tpcc needs a bulk load path on %s, which this driver lacks", c.Dialect())
	}
	if in.impl == tpccparams.Procedures && c.Dialect() == "sqlite" {
		return fmt.Errorf("implementation = procedures: SQLite has no stored procedures; use implementation = client")
	}
	resume, err := sqlwork.MarkerLoading(ctx, c, dataset, in.dataParams())
	if err != nil {
		return err
	}
	if resume {
		if ok, err := sqlwork.TableExists(ctx, c, progressTable); err != nil || !ok {
			resume = false
		}
	}
	if !resume {
		load, err := sqlwork.NeedsLoad(ctx, c, sqlwork.Dataset{
			Name: dataset, Params: in.dataParams(), Tables: tables, Tool: "TPC-C (HammerDB, go-tpc)",
			Wanted:  fmt.Sprintf("%d warehouse(s)", in.warehouses),
			Inspect: func(ctx context.Context) (sqlwork.Inspection, error) { return in.inspect(ctx, c) },
		}, env.Replace, env.Logf)
		if err != nil {
			return err
		}
		if !load {
			return in.installProcedures(ctx, c)
		}
	}
	return in.load(ctx, c, env, resume)
}

func (in *instance) installProcedures(ctx context.Context, c driver.SQL) error {
	if in.impl != tpccparams.Procedures {
		return nil
	}
	if err := installProcedures(ctx, c); err != nil {
		return fmt.Errorf("installing the TPC-C stored procedures: %w", err)
	}
	return nil
}

// inspect looks at TPC-C tables fairbench did not load: the number of
// warehouses, whether the other tables hold that many, and whether every
// column the transactions use is there.
func (in *instance) inspect(ctx context.Context, c driver.SQL) (sqlwork.Inspection, error) {
	for _, t := range tables {
		probe := "SELECT " + strings.Join(columnNames(t), ", ") + " FROM " + t + " WHERE 1 = 0"
		rows, err := c.Query(ctx, probe)
		if err != nil {
			return sqlwork.Inspection{Holds: fmt.Sprintf("a table %s without the specification's columns", t)}, nil
		}
		rows.Close()
	}
	n := map[string]int64{}
	for _, q := range []struct{ key, sql string }{
		{"warehouses", "SELECT count(*) FROM warehouse"},
		{"districts", "SELECT count(*) FROM district"},
		{"items", "SELECT count(*) FROM item"},
		{"stock", "SELECT count(*) FROM stock"},
	} {
		v, err := c.QueryInt64(ctx, q.sql)
		if err != nil {
			return sqlwork.Inspection{}, err
		}
		n[q.key] = v
	}
	w := n["warehouses"]
	if w == 0 || n["districts"] != w*districtsPerWarehouse || n["items"] != itemsCount || n["stock"] != w*stockPerWarehouse {
		return sqlwork.Inspection{Holds: fmt.Sprintf("%d warehouse(s) with %d districts, %d items and %d stock rows, an incomplete load",
			w, n["districts"], n["items"], n["stock"])}, nil
	}
	return sqlwork.Inspection{Usable: w == in.warehouses, Holds: fmt.Sprintf("%d warehouse(s)", w),
		Ask: fmt.Sprintf("warehouses = %d (--warehouses %d)", w, w)}, nil
}

// load loads the data set, or resumes a load that did not finish.
func (in *instance) load(ctx context.Context, c driver.SQL, env workload.PrepareEnv, resume bool) error {
	start := time.Now()
	d := c.Dialect()
	l := &loader{seed: in.seed, c: loadConstants(in.seed), pad: d != "postgres", logf: env.Logf, progress: markDone}
	var done map[int64]bool
	if resume {
		at, finished, err := readProgress(ctx, c)
		if err != nil {
			return err
		}
		l.at, done = loadTime(at), finished
		env.Logf("tpcc: resuming the load of %d warehouse(s): %d of its %d parts already loaded", in.warehouses, len(finished), len(partsOf(in.warehouses)))
		if err := dropIndexes(ctx, c); err != nil {
			return err
		}
		if err := in.deletePartial(ctx, c, done); err != nil {
			return err
		}
	} else {
		if err := sqlwork.WriteMarker(ctx, c, dataset, in.dataParams(), sqlwork.Loading, nil); err != nil {
			return err
		}
		for _, t := range append([]string{progressTable}, tables...) {
			if err := c.Exec(ctx, "DROP TABLE IF EXISTS "+t); err != nil {
				return fmt.Errorf("dropping %s: %w", t, err)
			}
		}
		for _, t := range tables {
			if err := c.Exec(ctx, createTable(d, t)); err != nil {
				return fmt.Errorf("creating table %s: %w", t, err)
			}
		}
		now := time.Now().Unix()
		if err := startProgress(ctx, c, now); err != nil {
			return err
		}
		l.at, done = loadTime(now), map[int64]bool{}
	}
	var todo []int64
	for _, p := range partsOf(in.warehouses) {
		if !done[p] {
			todo = append(todo, p)
		}
	}
	workers := in.loadWorkers
	if d == "sqlite" {
		workers = 1 // one writer at a time: a second connection would only wait for the lock
	}
	if err := l.loadParts(ctx, env, todo, workers); err != nil {
		return err
	}
	for _, q := range afterLoad(d) {
		if err := c.Exec(ctx, q); err != nil {
			return fmt.Errorf("%s: %w", q, err)
		}
	}
	if err := in.installProcedures(ctx, c); err != nil {
		return err
	}
	if err := sqlwork.WriteMarker(ctx, c, dataset, in.dataParams(), sqlwork.Ready, tables); err != nil {
		return err
	}
	if err := c.Exec(ctx, "DROP TABLE "+progressTable); err != nil {
		return err
	}
	env.Logf("tpcc: loaded %d warehouse(s) in %.1f s", in.warehouses, time.Since(start).Seconds())
	return nil
}

// partColumns names, per table, its warehouse and district columns, for
// deleting what a cut-short load wrote of a part it had not finished.
var partColumns = map[string][2]string{
	"warehouse": {"w_id", ""}, "stock": {"s_w_id", ""},
	"district": {"d_w_id", "d_id"}, "customer": {"c_w_id", "c_d_id"}, "history": {"h_w_id", "h_d_id"},
	"new_order": {"no_w_id", "no_d_id"}, "orders": {"o_w_id", "o_d_id"}, "order_line": {"ol_w_id", "ol_d_id"},
}

func (in *instance) deletePartial(ctx context.Context, c driver.SQL, done map[int64]bool) error {
	for _, p := range partsOf(in.warehouses) {
		if done[p] {
			continue
		}
		var stmts []string
		w, d := partOf(p)
		switch {
		case p == itemsPart:
			stmts = []string{"DELETE FROM item"}
		case d == 0:
			stmts = []string{fmt.Sprintf("DELETE FROM warehouse WHERE w_id = %d", w), fmt.Sprintf("DELETE FROM stock WHERE s_w_id = %d", w)}
		default:
			for _, t := range tables {
				if cols, ok := partColumns[t]; ok && cols[1] != "" {
					stmts = append(stmts, fmt.Sprintf("DELETE FROM %s WHERE %s = %d AND %s = %d", t, cols[0], w, cols[1], d))
				}
			}
		}
		for _, q := range stmts {
			if err := c.Exec(ctx, q); err != nil {
				return fmt.Errorf("removing what the interrupted load wrote of %s: %w", partName(p), err)
			}
		}
	}
	return nil
}

func startProgress(ctx context.Context, c driver.SQL, at int64) error {
	if err := c.Exec(ctx, "CREATE TABLE "+progressTable+" (w_id INT NOT NULL PRIMARY KEY, loaded_at BIGINT NOT NULL)"); err != nil {
		return fmt.Errorf("creating %s: %w", progressTable, err)
	}
	return c.Exec(ctx, fmt.Sprintf("INSERT INTO %s (w_id, loaded_at) VALUES (%d, %d)", progressTable, progressLoadTime, at))
}

// markDone records that warehouse w (0: the items) is loaded.
func markDone(ctx context.Context, c driver.SQL, w int64) error {
	return c.Exec(ctx, fmt.Sprintf("INSERT INTO %s (w_id, loaded_at) VALUES (%d, 0)", progressTable, w))
}

func readProgress(ctx context.Context, c driver.SQL) (int64, map[int64]bool, error) {
	rows, err := c.Query(ctx, "SELECT w_id, loaded_at FROM "+progressTable)
	if err != nil {
		return 0, nil, err
	}
	defer rows.Close()
	var at int64
	done := map[int64]bool{}
	for rows.Next() {
		var w, v int64
		if err := rows.Scan(&w, &v); err != nil {
			return 0, nil, err
		}
		if w == progressLoadTime {
			at = v
		} else {
			done[w] = true
		}
	}
	if err := rows.Err(); err != nil {
		return 0, nil, err
	}
	if at == 0 {
		return 0, nil, fmt.Errorf("%s holds no load time: rerun with --replace to load from the start", progressTable)
	}
	return at, done, nil
}

// dropIndexes removes the keys and indexes a load adds at its end, so that a
// load cut short while adding them can add them again.
func dropIndexes(ctx context.Context, c driver.SQL) error {
	var stmts []string
	switch c.Dialect() {
	case "postgres":
		for _, ix := range secondaryIndexes {
			stmts = append(stmts, "DROP INDEX IF EXISTS "+ix.name)
		}
		for _, t := range tables {
			if _, ok := primaryKeys[t]; ok {
				stmts = append(stmts, fmt.Sprintf("ALTER TABLE %s DROP CONSTRAINT IF EXISTS %s_pkey", t, t))
			}
		}
	case "sqlite":
		for _, ix := range secondaryIndexes {
			stmts = append(stmts, "DROP INDEX IF EXISTS "+ix.name)
		}
	case "mysql":
		for _, ix := range secondaryIndexes {
			n, err := c.QueryInt64(ctx, "SELECT count(*) FROM information_schema.statistics WHERE table_schema = DATABASE() AND table_name = $1 AND index_name = $2", ix.table, ix.name)
			if err != nil {
				return err
			}
			if n > 0 {
				stmts = append(stmts, fmt.Sprintf("DROP INDEX %s ON %s", ix.name, ix.table))
			}
		}
	}
	for _, q := range stmts {
		if err := c.Exec(ctx, q); err != nil {
			return fmt.Errorf("%s: %w", q, err)
		}
	}
	return nil
}

// cleanup is the Cleanup hook: drops the tables and procedures only
// when fairbench loaded them.
func (in *instance) cleanup(ctx context.Context, conn driver.Conn) error {
	c, err := workload.SQLConn("tpcc", conn)
	if err != nil {
		return err
	}
	ours, err := sqlwork.Owns(ctx, c, dataset, tables)
	if err != nil {
		return err
	}
	if !ours {
		return sqlwork.LeftAlone(ctx, c, tables, "")
	}
	if err := dropProcedures(ctx, c); err != nil {
		return err
	}
	for _, t := range append([]string{progressTable}, tables...) {
		if err := c.Exec(ctx, "DROP TABLE IF EXISTS "+t); err != nil {
			return err
		}
	}
	return sqlwork.DeleteMarker(ctx, c, dataset)
}

// describe is the Describe hook.
func (in *instance) describe(conn driver.Conn) ([][2]string, []string) {
	impl := "SQL statements sent by fairbench"
	if in.impl == tpccparams.Procedures {
		impl = "stored procedures installed by fairbench"
	}
	facts := [][2]string{
		{"warehouses", fmt.Sprint(in.warehouses)},
		{"implementation", impl},
		{"all warehouses", fmt.Sprint(in.all)},
		{"keying and thinking", fmt.Sprint(in.keying)},
	}
	var dev []string
	if c, ok := conn.(driver.SQL); ok && c.Dialect() == "postgres" {
		dev = append(dev, "PostgreSQL: TPM counts this database's commits and rollbacks (pg_stat_database of current_database()); HammerDB sums every database's")
	}
	if c, ok := conn.(driver.SQL); ok && c.Dialect() == "sqlite" {
		dev = append(dev,
			"SQLite: transactions start with BEGIN IMMEDIATE (one writer at a time) and read without FOR UPDATE",
			"SQLite: TPM counts fairbench's own commits and rollbacks; SQLite keeps no server counter")
	}
	if !in.keying {
		dev = append(dev, "no keying or think time (HammerDB's timed driver): not the specification's closed model")
	}
	return facts, dev
}

// Shape implements workload.Shaper: statements are prepared
// once per session and executed by name, as HammerDB and go-tpc do. Keying
// and think times are waits outside the requests.
func (in *instance) Shape() workload.Shape {
	return workload.Shape{ConnOptions: driver.Options{QueryMode: "prepared"}, Waits: in.keying}
}
