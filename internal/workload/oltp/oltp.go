// Package oltp is fairbench's sysbench-compatible OLTP workload: sysbench
// 1.0.20's oltp_common.lua schema and data (sbtest1..N), and the transactions of
// its oltp_*.lua scripts with the same statements, the same counts per
// transaction, the same parameters and defaults, and the same random
// distributions, so that its numbers stand next to sysbench's. It runs on
// PostgreSQL, MySQL/MariaDB and SQLite through the driver's SQL capability.
package oltp

import (
	"context"
	"fmt"
	"math/rand/v2"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/fairbench/fairbench/internal/driver"
	"github.com/fairbench/fairbench/internal/kinds"
	"github.com/fairbench/fairbench/internal/params"
	"github.com/fairbench/fairbench/internal/params/oltpparams"
	"github.com/fairbench/fairbench/internal/progress"
	"github.com/fairbench/fairbench/internal/workload"
	"github.com/fairbench/fairbench/internal/workload/sqlwork"
)

func init() {
	workload.Register(workload.Plugin{Workload: Workload{}, Kind: kinds.Info{Summary: peerSummary, Progress: interimLine}})
}

// Modes (oltpparams'), named after sysbench's scripts without the oltp_ prefix.
const (
	pointSelect    = oltpparams.PointSelect
	readOnly       = oltpparams.ReadOnly
	writeOnly      = oltpparams.WriteOnly
	readWrite      = oltpparams.ReadWrite
	updateIndex    = oltpparams.UpdateIndex
	updateNonIndex = oltpparams.UpdateNonIndex
	insert         = oltpparams.Insert
	deleteOnly     = oltpparams.Delete // not "delete", the builtin
)

// Workload is the oltp kind.
type Workload struct{}

// Kind implements workload.Workload.
func (Workload) Kind() string { return "oltp" }

// Description implements workload.Workload.
func (Workload) Description() string {
	return "sysbench-compatible OLTP: sysbench 1.0's sbtest tables and oltp_*.lua transactions"
}

// Params implements workload.Workload: sysbench's option names and 1.0 defaults.
func (Workload) Params() []params.Spec { return oltpparams.Specs() }

type instance struct {
	mode, queryMode, engine                         string
	tables, tableSize, rangeSize                    int64
	pointSelects, simpleRanges, sumRanges           int64
	orderRanges, distinctRanges                     int64
	indexUpdates, nonIndexUpdates, deleteInserts    int64
	rangeSelects, skipTrx, autoInc, secondary, csec bool
	randType                                        string
	dist                                            *dist
	unique                                          *unique

	mu       sync.Mutex
	counters []*counters

	// events is sysbench's --events, the run's transactions over all
	// clients (0: none); budget the transactions left.
	events int64
	budget atomic.Int64
}

// counters of one client, by sysbench's statement classes. Only the client's
// goroutine adds; the runner reads through Counts.
type counters struct{ read, write, other atomic.Int64 }

// New implements workload.Workload.
func (Workload) New(p params.Values) (workload.Instance, error) {
	o := oltpparams.Decode(p)
	d, err := newDist(o.RandType, o.RandSpecIter, o.RandSpecPct, o.RandSpecRes, o.RandParetoH)
	if err != nil {
		return nil, err
	}
	if !isWord(o.MySQLStorageEngine) {
		return nil, fmt.Errorf("%s %q is not a storage engine name", oltpparams.MySQLStorageEngine, o.MySQLStorageEngine)
	}
	in := &instance{
		mode: o.Mode, queryMode: o.QueryMode, engine: o.MySQLStorageEngine,
		tables: o.Tables, tableSize: o.TableSize, rangeSize: o.RangeSize,
		pointSelects: o.PointSelects, simpleRanges: o.SimpleRanges, sumRanges: o.SumRanges,
		orderRanges: o.OrderRanges, distinctRanges: o.DistinctRanges,
		indexUpdates: o.IndexUpdates, nonIndexUpdates: o.NonIndexUpdates, deleteInserts: o.DeleteInserts,
		rangeSelects: o.RangeSelects, skipTrx: o.SkipTrx, autoInc: o.AutoInc,
		secondary: o.Secondary, csec: o.CreateSecondary, randType: o.RandType, dist: d,
		events: o.Events,
	}
	in.budget.Store(o.Events)
	if in.mode == pointSelect {
		in.pointSelects = 1 // oltp_point_select.lua: one query per event
	}
	seed := uint32(time.Now().UnixNano())
	in.unique = newUnique(seed, seed*2654435761)
	return in, nil
}

func isWord(s string) bool {
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_') {
			return false
		}
	}
	return s != ""
}

const dataset = "oltp"

// Ops implements workload.Instance: one transaction type, named like sysbench's script.
func (in *instance) Ops() []string { return []string{"oltp_" + in.mode} }

// Shape implements workload.Shaper: sessions in the query mode asked for;
// --events shared among load generators (Split), ending the run once they
// are done (the cell's duration bounds it, as sysbench's --time does).
func (in *instance) Shape() workload.Shape {
	s := workload.Shape{ConnOptions: driver.Options{QueryMode: in.queryMode}, Split: in.split}
	if in.events > 0 {
		s.End = workload.UntilDone(fmt.Sprintf("the %d events of --events are done", in.events))
	}
	return s
}

// Hooks implements workload.Hooker.
func (in *instance) Hooks() workload.Hooks {
	return workload.Hooks{BeforeRun: in.beforeRun, Cleanup: in.cleanup, Describe: in.describe, Counts: in.counts}
}

// beforeRun is the BeforeRun hook: --events is each run's budget.
func (in *instance) beforeRun(context.Context, driver.Conn) error {
	in.budget.Store(in.events)
	return nil
}

// split is the shape's Split: --events counts the cell's transactions, so
// each load generator runs its share.
func (in *instance) split(generator, generators int) error {
	if in.events > 0 {
		_, n := workload.Share(in.events, generators, generator)
		in.budget.Store(n)
	}
	return nil
}

// counts is the Counts hook: statements executed so far, in sysbench's
// classes (reads = SELECT, writes = INSERT/UPDATE/DELETE, other = BEGIN/COMMIT).
func (in *instance) counts() map[string]int64 {
	in.mu.Lock()
	defer in.mu.Unlock()
	var r, w, o int64
	for _, c := range in.counters {
		r += c.read.Load()
		w += c.write.Load()
		o += c.other.Load()
	}
	return map[string]int64{"queries_read": r, "queries_write": w, "queries_other": o}
}

// loadedRows is what prepare puts in each table: oltp_insert.lua prepares empty
// tables when ids are client-generated, so they cannot collide with loaded ones.
func (in *instance) loadedRows() int64 {
	if in.mode == insert && !in.autoInc {
		return 0
	}
	return in.tableSize
}

func (in *instance) dataParams() string {
	return fmt.Sprintf("tables=%d rows=%d auto_inc=%t secondary=%t create_secondary=%t engine=%s",
		in.tables, in.loadedRows(), in.autoInc, in.secondary, in.csec, in.engine)
}

func tableName(i int64) string { return fmt.Sprintf("sbtest%d", i) }

// tableNames are the sbtest tables of the dataset, sbtest1 to sbtestN.
func (in *instance) tableNames() []string {
	names := make([]string, in.tables)
	for i := range names {
		names[i] = tableName(int64(i) + 1)
	}
	return names
}

// Prepare implements workload.Instance: reuse tables of the same shape (ours, or
// sysbench's own with the right row count), otherwise create and load them, one
// table per connection in parallel, like sysbench prepare with --threads.
func (in *instance) Prepare(ctx context.Context, env workload.PrepareEnv) error {
	c, err := workload.SQLConn("oltp", env.Conn)
	if err != nil {
		return err
	}
	if _, ok := env.Conn.(driver.BulkLoader); !ok {
		return fmt.Errorf("oltp needs a bulk load path on %s, which this driver lacks", c.Dialect())
	}
	if _, err := in.ddl(c.Dialect(), 1); err != nil {
		return err
	}
	names := in.tableNames()
	load, err := sqlwork.NeedsLoad(ctx, c, sqlwork.Dataset{
		Name: dataset, Params: in.dataParams(), Tables: names, Tool: "sysbench",
		Wanted: fmt.Sprintf("%d tables of %d rows", in.tables, in.loadedRows()),
		// sysbench prepare's columns, which fairbench's load makes too.
		Columns: func(string) ([]sqlwork.Column, bool) {
			return sqlwork.Cols("id int", "k int", "c char(120)", "pad char(60)"), true
		},
		Inspect: func(ctx context.Context) (sqlwork.Inspection, error) {
			counts := make([]int64, len(names))
			for i, t := range names {
				n, err := c.QueryInt64(ctx, "SELECT count(*) FROM "+t)
				if err != nil {
					return sqlwork.Inspection{}, err
				}
				counts[i] = n
			}
			for i, n := range counts {
				if n != in.loadedRows() {
					ins := sqlwork.Inspection{Holds: fmt.Sprintf("%d rows in %s", n, names[i])}
					if !slices.ContainsFunc(counts, func(m int64) bool { return m != n }) {
						ins.Ask = fmt.Sprintf("table_size = %d", n)
					}
					return ins, nil
				}
			}
			return sqlwork.Inspection{Usable: true, Holds: fmt.Sprintf("%d tables of %d rows", in.tables, in.loadedRows())}, nil
		},
	}, env.Replace, env.Logf)
	if err != nil || !load {
		return err
	}
	return in.load(ctx, c, env)
}

// ddl returns the statements creating table i in sysbench's schema for a dialect.
func (in *instance) ddl(dialect string, i int64) ([]string, error) {
	t := tableName(i)
	cols := "k INTEGER DEFAULT '0' NOT NULL, c CHAR(120) DEFAULT '' NOT NULL, pad CHAR(60) DEFAULT '' NOT NULL"
	var stmts []string
	switch dialect {
	case "mysql":
		id := "INTEGER NOT NULL"
		if in.autoInc {
			id += " AUTO_INCREMENT"
		}
		key := "PRIMARY KEY (id)"
		if in.secondary {
			key = "KEY xid (id)"
		}
		stmts = append(stmts, fmt.Sprintf("CREATE TABLE %s(id %s, %s, %s) /*! ENGINE = %s */", t, id, cols, key, in.engine))
	case "postgres":
		id := "INTEGER NOT NULL"
		if in.autoInc {
			id = "SERIAL"
		}
		if in.secondary {
			// sysbench writes MySQL's "KEY xid (id)" here, which PostgreSQL rejects:
			// the same index is created with CREATE INDEX instead.
			stmts = append(stmts, fmt.Sprintf("CREATE TABLE %s(id %s, %s)", t, id, cols),
				fmt.Sprintf("CREATE INDEX xid_%d ON %s(id)", i, t))
		} else {
			stmts = append(stmts, fmt.Sprintf("CREATE TABLE %s(id %s, %s, PRIMARY KEY (id))", t, id, cols))
		}
	case "sqlite":
		// INTEGER PRIMARY KEY is the rowid: assigned when the insert leaves it NULL,
		// SQLite's AUTO_INCREMENT.
		if in.secondary {
			stmts = append(stmts, fmt.Sprintf("CREATE TABLE %s(id INTEGER NOT NULL, %s)", t, cols),
				fmt.Sprintf("CREATE INDEX xid_%d ON %s(id)", i, t))
		} else {
			stmts = append(stmts, fmt.Sprintf("CREATE TABLE %s(id INTEGER PRIMARY KEY, %s)", t, cols))
		}
	default:
		return nil, fmt.Errorf("oltp does not support the %s dialect", dialect)
	}
	return stmts, nil
}

func (in *instance) load(ctx context.Context, c driver.SQL, env workload.PrepareEnv) error {
	start := time.Now()
	if err := sqlwork.WriteMarker(ctx, c, dataset, in.dataParams(), sqlwork.Loading, nil); err != nil {
		return err
	}
	// SQLite has one writer at a time: parallel connections would only queue.
	par := int64(runtime.GOMAXPROCS(0))
	if c.Dialect() == "sqlite" || env.Open == nil {
		par = 1
	}
	par = min(par, in.tables)
	next := atomic.Int64{}
	errs := make([]error, par)
	var wg sync.WaitGroup
	task := env.Progress.Start(fmt.Sprintf("oltp: loading %d table(s)", in.tables), in.tables*in.loadedRows(), "rows")
	defer task.End()
	for w := int64(0); w < par; w++ {
		wg.Add(1)
		go func(w int64) {
			defer wg.Done()
			conn := env.Conn
			if w > 0 {
				var err error
				if conn, err = env.Open(ctx); err != nil {
					errs[w] = err
					return
				}
				defer conn.Close(context.WithoutCancel(ctx))
			}
			for {
				i := next.Add(1)
				if i > in.tables {
					return
				}
				if err := in.loadTable(ctx, conn, i, env.Logf, task); err != nil {
					errs[w] = fmt.Errorf("%s: %w", tableName(i), err)
					return
				}
			}
		}(w)
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	if err := sqlwork.WriteMarker(ctx, c, dataset, in.dataParams(), sqlwork.Ready, in.tableNames()); err != nil {
		return err
	}
	env.Logf("oltp: loaded %d tables of %d rows in %.1f s", in.tables, in.loadedRows(), time.Since(start).Seconds())
	return nil
}

// postLoad per dialect, after the rows are in: PostgreSQL's SERIAL sequence must
// continue after the loaded ids (sysbench lets the sequence assign them; fairbench
// loads ids explicitly, so it moves the sequence instead), then statistics.
func (in *instance) postLoad(dialect string, i int64) []string {
	t := tableName(i)
	var out []string
	if dialect == "postgres" && in.autoInc {
		out = append(out, fmt.Sprintf("SELECT setval(pg_get_serial_sequence('%s', 'id'), greatest(coalesce(max(id), 0), 1), max(id) IS NOT NULL) FROM %s", t, t))
	}
	if in.csec {
		out = append(out, fmt.Sprintf("CREATE INDEX k_%d ON %s(k)", i, t))
	}
	switch dialect {
	case "postgres":
		out = append(out, "VACUUM ANALYZE "+t)
	case "mysql":
		out = append(out, "ANALYZE TABLE "+t)
	case "sqlite":
		out = append(out, "ANALYZE "+t)
	}
	return out
}

func (in *instance) loadTable(ctx context.Context, conn driver.Conn, i int64, logf func(string, ...any), task *progress.Task) error {
	c, err := workload.SQLConn("oltp", conn)
	if err != nil {
		return err
	}
	ddl, err := in.ddl(c.Dialect(), i)
	if err != nil {
		return err
	}
	if err := c.Exec(ctx, "DROP TABLE IF EXISTS "+tableName(i)); err != nil {
		return err
	}
	for _, q := range ddl {
		if err := c.Exec(ctx, q); err != nil {
			return fmt.Errorf("creating: %w", err)
		}
	}
	rows := &rowGen{n: in.loadedRows(), dist: in.dist, rng: rand.New(rand.NewPCG(uint64(i), 0x5b7c))}
	n, err := conn.(driver.BulkLoader).BulkLoad(ctx, tableName(i), []string{"id", "k", "c", "pad"}, workload.CountRows(rows, task), false)
	if err != nil {
		return fmt.Errorf("loading: %w", err)
	}
	for _, q := range in.postLoad(c.Dialect(), i) {
		if err := c.Exec(ctx, q); err != nil {
			return fmt.Errorf("%s: %w", q, err)
		}
	}
	logf("oltp: loaded %d rows into %s", n, tableName(i))
	return nil
}

// rowGen produces sysbench's initial rows: id 1..n in order, k from the default
// distribution over [1, table_size], c and pad from their templates. It is
// deterministic per table, so a reload produces the same data.
type rowGen struct {
	n, i int64
	dist *dist
	rng  *rand.Rand
	buf  []byte
	vals []any
}

func (r *rowGen) Next() bool {
	if r.i >= r.n {
		return false
	}
	r.i++
	// sysbench draws c, then pad, then k for each row.
	c := string(randString(r.rng, cTemplate, r.buf))
	pad := string(randString(r.rng, padTemplate, r.buf))
	k := r.dist.next(r.rng, 1, r.n)
	r.vals = append(r.vals[:0], r.i, k, c, pad)
	return true
}

func (r *rowGen) Values() []any { return r.vals }

// cleanup is the Cleanup hook: drops the sbtest tables only when
// fairbench loaded them (sysbench cleanup drops them unconditionally).
func (in *instance) cleanup(ctx context.Context, conn driver.Conn) error {
	c, err := workload.SQLConn("oltp", conn)
	if err != nil {
		return err
	}
	ours, err := sqlwork.Owns(ctx, c, dataset, in.tableNames())
	if err != nil {
		return err
	}
	if !ours {
		return sqlwork.LeftAlone(ctx, c, in.tableNames(), "sysbench's cleanup would drop them")
	}
	for i := int64(1); i <= in.tables; i++ {
		if err := c.Exec(ctx, "DROP TABLE IF EXISTS "+tableName(i)); err != nil {
			return err
		}
	}
	return sqlwork.DeleteMarker(ctx, c, dataset)
}

// describe is the Describe hook.
func (in *instance) describe(conn driver.Conn) ([][2]string, []string) {
	facts := [][2]string{
		{"script", "oltp_" + in.mode},
		{"tables", fmt.Sprint(in.tables)},
		{"table size", fmt.Sprint(in.tableSize)},
		{"random distribution", in.randType},
		{"query mode", in.queryMode},
	}
	var dev []string
	c, ok := conn.(driver.SQL)
	if !ok {
		return facts, dev
	}
	switch c.Dialect() {
	case "sqlite":
		dev = append(dev, "SQLite (sysbench has no SQLite driver): INTEGER PRIMARY KEY stands for AUTO_INCREMENT")
		if in.writes() && !in.skipTrx {
			dev = append(dev, "SQLite: write transactions start with BEGIN IMMEDIATE so concurrent writers wait for the lock instead of failing")
		}
	case "postgres":
		if in.secondary {
			dev = append(dev, "PostgreSQL: secondary=true creates the id index with CREATE INDEX (sysbench's MySQL-only KEY syntax fails there)")
		}
	case "mysql":
		if in.queryMode == "extended" {
			dev = append(dev, "MySQL: query mode extended uses server-side prepared statements, like prepared")
		}
	}
	dev = append(dev, "errors sysbench ignores and restarts (deadlocks, lock wait timeouts, duplicate keys on PostgreSQL) are retried only with max_tries > 1, and counted")
	return facts, dev
}

func (in *instance) writes() bool {
	switch in.mode {
	case pointSelect, readOnly:
		return false
	}
	return true
}
