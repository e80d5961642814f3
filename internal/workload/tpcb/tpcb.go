// Package tpcb is fairbench's pgbench-compatible workload: pgbench's schema, row
// counts per scale unit and built-in scripts (tpcb-like, simple-update,
// select-only) with the same random choices, so its numbers stand next to pgbench's.
package tpcb

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/fairbench/fairbench/internal/driver"
	"github.com/fairbench/fairbench/internal/kinds"
	"github.com/fairbench/fairbench/internal/params"
	"github.com/fairbench/fairbench/internal/params/tpcbparams"
	"github.com/fairbench/fairbench/internal/result"
	"github.com/fairbench/fairbench/internal/workload"
	"github.com/fairbench/fairbench/internal/workload/sqlwork"
)

// The one registration of tpcb: its headline (transactions per second,
// pgbench's tps), the size of the data a scale touches, pgbench's summary,
// and its place as what `fairbench run --target URL` runs when no
// --workload is given, as pgbench runs its TPC-B-like script when given no
// script.
func init() {
	workload.Register(workload.Plugin{
		Workload: Workload{},
		Kind:     kinds.Info{Headline: result.Throughput, WorkingSet: workingSet, Summary: peerSummary},
		Default:  true,
	})
}

// Rows per scale unit, as in pgbench.
const (
	branchesPerScale = 1
	tellersPerScale  = 10
	accountsPerScale = 100_000
)

// Modes (tpcbparams') and their pgbench names.
const (
	tpcbLike     = tpcbparams.TPCBLike
	simpleUpdate = tpcbparams.SimpleUpdate
	selectOnly   = tpcbparams.SelectOnly
)

var pgbenchNames = map[string]string{
	tpcbLike:     "<builtin: TPC-B (sort of)>",
	simpleUpdate: "<builtin: simple update>",
	selectOnly:   "<builtin: select only>",
}

// Workload is the tpcb kind.
type Workload struct{}

// Kind implements workload.Workload.
func (Workload) Kind() string { return "tpcb" }

// Description implements workload.Workload.
func (Workload) Description() string {
	return "pgbench-compatible TPC-B (sort of): pgbench's tables and built-in scripts"
}

// Params implements workload.Workload.
func (Workload) Params() []params.Spec { return tpcbparams.Specs() }

// New implements workload.Workload.
func (Workload) New(p params.Values) (workload.Instance, error) {
	o := tpcbparams.Decode(p)
	in := &instance{
		mode: o.Mode, scale: o.Scale, queryMode: o.QueryMode,
		fillfactor: o.Fillfactor, unlogged: o.Unlogged, vacuum: o.Vacuum,
		loadWorkers: int(o.LoadWorkers), transactions: o.Transactions,
		perStatement: o.PerStatement, stmts: &statements{},
	}
	var err error
	switch {
	case len(o.Scripts) > 0 || len(o.Builtins) > 0:
		in.custom = true
		in.scripts, err = loadScripts(o.Builtins, o.Scripts)
	case o.PerStatement:
		// -r times each statement of pgbench's own script, run as a script.
		in.scripts, err = loadScripts([]string{o.Mode}, nil)
	}
	if err != nil {
		return nil, err
	}
	if o.TransactionLog {
		if dir := filepath.Dir(o.LogPrefix); !isDir(dir) {
			return nil, fmt.Errorf("--log-prefix %s: directory %s does not exist; the per-transaction log (-l) is written there", o.LogPrefix, dir)
		}
		in.log = &txLog{prefix: o.LogPrefix}
	}
	return in, nil
}

type instance struct {
	mode, queryMode string
	scale           int64
	fillfactor      int64
	unlogged        bool
	vacuum          bool
	loadWorkers     int
	transactions    int64 // per client (-t); 0: for the duration
	// scripts run instead of the native built-in transactions: the custom
	// scripts (-f; custom true), or pgbench's built-in one when -r asks for
	// each statement's time; nil otherwise.
	scripts      *scriptSet
	custom       bool
	perStatement bool
	stmts        *statements
	log          *txLog // -l; nil without it
}

const dataset = "tpcb"

var tables = []string{"pgbench_history", "pgbench_tellers", "pgbench_accounts", "pgbench_branches"}

// lastingTables are the tables whose identity marks the data as fairbench's:
// pgbench_history is truncated before each run, which MySQL may count as a new table.
var lastingTables = tables[1:]

// Ops implements workload.Instance: the built-in mode, or one op per
// custom script (pgbench's per-script statistics).
func (in *instance) Ops() []string {
	if !in.custom {
		return []string{in.mode}
	}
	ops := make([]string, len(in.scripts.scripts))
	for i, sc := range in.scripts.scripts {
		ops[i] = sc.op
		if slices.Contains(ops[:i], sc.op) {
			ops[i] = fmt.Sprintf("%s (%d)", sc.op, i+1)
		}
	}
	return ops
}

// transactionsLimit bounds a run of -t transactions per client, which
// pgbench leaves unbounded.
const transactionsLimit = 24 * time.Hour

// Shape implements workload.Shaper: sessions in the query mode asked for;
// with -t, each client runs its transactions and the run ends (at most
// transactionsLimit), on any number of load generators since the count is
// per client.
func (in *instance) Shape() workload.Shape {
	sh := workload.Shape{ConnOptions: driver.Options{QueryMode: in.queryMode}}
	if in.log != nil {
		sh.Log, sh.Close = in.log.write, in.log.close
	}
	sh.Waits = in.scripts != nil && in.scripts.sleeps()
	if in.transactions > 0 {
		sh.End = workload.PerClient(in.transactions, transactionsLimit, fmt.Sprintf("each client has run its %d transactions (-t)", in.transactions))
	}
	return sh
}

// Hooks implements workload.Hooker.
func (in *instance) Hooks() workload.Hooks {
	h := workload.Hooks{BeforeRun: in.beforeRun, Check: in.check, Cleanup: in.cleanup, Describe: in.describe}
	if in.perStatement {
		h.Counts = in.counts
	}
	return h
}

// columns are the exact columns of pgbench's tables, as pgbench -i and
// fairbench's load make them in every dialect (aid is a bigint from scale
// 20 000 on): tables with these names but other columns are someone else's.
var columns = map[string][]sqlwork.Column{
	"pgbench_accounts": sqlwork.Cols("aid int|bigint", "bid int", "abalance int", "filler char(84)"),
	"pgbench_branches": sqlwork.Cols("bid int", "bbalance int", "filler char(88)"),
	"pgbench_tellers":  sqlwork.Cols("tid int", "bid int", "tbalance int", "filler char(84)"),
	"pgbench_history":  sqlwork.Cols("tid int", "bid int", "aid int|bigint", "delta int", "mtime timestamp", "filler char(22)"),
}

// dataParams are the parameters that shape the loaded data: a dataset loaded with
// the same ones is reused.
func (in *instance) dataParams() string {
	return fmt.Sprintf("scale=%d fillfactor=%d unlogged=%t", in.scale, in.fillfactor, in.unlogged)
}

// Prepare implements workload.Instance: reuse, replace or load pgbench's tables.
func (in *instance) Prepare(ctx context.Context, env workload.PrepareEnv) error {
	c, err := workload.SQLConn("tpcb", env.Conn)
	if err != nil {
		return err
	}
	if _, ok := env.Conn.(driver.BulkLoader); !ok {
		return fmt.Errorf("tpcb needs a bulk load path on %s, which this driver lacks", c.Dialect())
	}
	load, err := sqlwork.NeedsLoad(ctx, c, sqlwork.Dataset{
		Name: dataset, Params: in.dataParams(), Tables: tables, Tool: "pgbench",
		Wanted:  fmt.Sprintf("scale %d", in.scale),
		Lasting: lastingTables,
		Columns: func(t string) ([]sqlwork.Column, bool) { c, ok := columns[t]; return c, ok },
		Inspect: func(ctx context.Context) (sqlwork.Inspection, error) {
			scale, complete, err := in.existingScale(ctx, c)
			if err != nil || !complete {
				return sqlwork.Inspection{Holds: "rows that match no scale"}, err
			}
			return sqlwork.Inspection{Usable: scale == in.scale, Holds: fmt.Sprintf("scale %d", scale),
				Ask: fmt.Sprintf("scale %d (--scale %d, or scale = %d in the study file)", scale, scale, scale)}, nil
		},
	}, env.Replace, env.Logf)
	if err != nil || !load {
		return err
	}
	return in.load(ctx, c, env)
}

// existingScale infers the scale of tables fairbench did not create, as pgbench
// does from the number of branches, and checks the other tables agree with it.
func (in *instance) existingScale(ctx context.Context, c driver.SQL) (int64, bool, error) {
	branches, err := c.QueryInt64(ctx, "SELECT count(*) FROM pgbench_branches")
	if err != nil {
		return 0, false, err
	}
	tellers, err := c.QueryInt64(ctx, "SELECT count(*) FROM pgbench_tellers")
	if err != nil {
		return 0, false, err
	}
	maxAid, err := c.QueryInt64(ctx, "SELECT max(aid) FROM pgbench_accounts")
	if err != nil {
		return 0, false, err
	}
	complete := branches > 0 && tellers == branches*tellersPerScale && maxAid == branches*accountsPerScale
	return branches, complete, nil
}

// ddl per dialect. PostgreSQL's matches pgbench -i; SQLite declares the primary
// keys up front because it cannot add them later, and uses INTEGER PRIMARY KEY so
// the key is the table's rowid, its natural clustered index.
func (in *instance) ddl(dialect string) ([]string, error) {
	switch dialect {
	case "postgres":
		unlogged := ""
		if in.unlogged {
			unlogged = "UNLOGGED "
		}
		ff := fmt.Sprintf(" WITH (fillfactor=%d)", in.fillfactor)
		aid := "int"
		if in.scale >= 20000 { // pgbench switches to bigint where int would overflow
			aid = "bigint"
		}
		return []string{
			"CREATE " + unlogged + "TABLE pgbench_history (tid int, bid int, aid " + aid + ", delta int, mtime timestamp, filler char(22))",
			"CREATE " + unlogged + "TABLE pgbench_tellers (tid int not null, bid int, tbalance int, filler char(84))" + ff,
			"CREATE " + unlogged + "TABLE pgbench_accounts (aid " + aid + " not null, bid int, abalance int, filler char(84))" + ff,
			"CREATE " + unlogged + "TABLE pgbench_branches (bid int not null, bbalance int, filler char(88))" + ff,
		}, nil
	case "sqlite":
		return []string{
			"CREATE TABLE pgbench_history (tid INTEGER, bid INTEGER, aid INTEGER, delta INTEGER, mtime TIMESTAMP, filler CHAR(22))",
			"CREATE TABLE pgbench_tellers (tid INTEGER PRIMARY KEY, bid INTEGER, tbalance INTEGER, filler CHAR(84))",
			"CREATE TABLE pgbench_accounts (aid INTEGER PRIMARY KEY, bid INTEGER, abalance INTEGER, filler CHAR(84))",
			"CREATE TABLE pgbench_branches (bid INTEGER PRIMARY KEY, bbalance INTEGER, filler CHAR(88))",
		}, nil
	case "mysql":
		// InnoDB clusters rows by primary key, so the keys are declared before the
		// load: adding them afterwards, as pgbench does, would rebuild each table.
		aid := "INT"
		if in.scale >= 20000 {
			aid = "BIGINT"
		}
		return []string{
			"CREATE TABLE pgbench_history (tid INT, bid INT, aid " + aid + ", delta INT, mtime TIMESTAMP NULL, filler CHAR(22)) ENGINE=InnoDB",
			"CREATE TABLE pgbench_tellers (tid INT NOT NULL PRIMARY KEY, bid INT, tbalance INT, filler CHAR(84)) ENGINE=InnoDB",
			"CREATE TABLE pgbench_accounts (aid " + aid + " NOT NULL PRIMARY KEY, bid INT, abalance INT, filler CHAR(84)) ENGINE=InnoDB",
			"CREATE TABLE pgbench_branches (bid INT NOT NULL PRIMARY KEY, bbalance INT, filler CHAR(88)) ENGINE=InnoDB",
		}, nil
	}
	return nil, fmt.Errorf("tpcb does not support the %s dialect yet", dialect)
}

// afterLoad per dialect: pgbench's vacuum step, then its primary keys.
var afterLoad = map[string][]string{
	"postgres": {
		"VACUUM ANALYZE pgbench_branches", "VACUUM ANALYZE pgbench_tellers",
		"VACUUM ANALYZE pgbench_accounts", "VACUUM ANALYZE pgbench_history",
		"ALTER TABLE pgbench_branches ADD PRIMARY KEY (bid)",
		"ALTER TABLE pgbench_tellers ADD PRIMARY KEY (tid)",
		"ALTER TABLE pgbench_accounts ADD PRIMARY KEY (aid)",
	},
	"sqlite": {"ANALYZE"},
	"mysql":  {"ANALYZE TABLE pgbench_branches, pgbench_tellers, pgbench_accounts, pgbench_history"},
}

func (in *instance) load(ctx context.Context, c driver.SQL, env workload.PrepareEnv) error {
	start := time.Now()
	ddl, err := in.ddl(c.Dialect())
	if err != nil {
		return err
	}
	if err := sqlwork.WriteMarker(ctx, c, dataset, in.dataParams(), sqlwork.Loading, nil); err != nil {
		return err
	}
	for _, t := range tables {
		if err := c.Exec(ctx, "DROP TABLE IF EXISTS "+t); err != nil {
			return fmt.Errorf("dropping %s: %w", t, err)
		}
	}
	for _, q := range ddl {
		if err := c.Exec(ctx, q); err != nil {
			return fmt.Errorf("creating pgbench's tables: %w", err)
		}
	}
	loader := env.Conn.(driver.BulkLoader)
	// PostgreSQL pads char(n) itself; elsewhere the filler is padded so rows keep
	// pgbench's width and the data its size.
	pad := c.Dialect() != "postgres"
	for _, t := range []struct {
		name string
		cols []string
		rows driver.RowSource
	}{
		{"pgbench_branches", []string{"bid", "bbalance", "filler"}, newRows(1, in.scale*branchesPerScale, 1, 88, pad, false)},
		{"pgbench_tellers", []string{"tid", "bid", "tbalance", "filler"}, newRows(1, in.scale*tellersPerScale, tellersPerScale, 84, pad, true)},
	} {
		n, err := loader.BulkLoad(ctx, t.name, t.cols, t.rows, true)
		if err != nil {
			return fmt.Errorf("loading %s: %w", t.name, err)
		}
		env.Logf("tpcb: loaded %d rows into %s", n, t.name)
	}
	n, err := in.loadAccounts(ctx, env, pad)
	if err != nil {
		return fmt.Errorf("loading pgbench_accounts: %w", err)
	}
	env.Logf("tpcb: loaded %d rows into pgbench_accounts (%d connection(s))", n, in.loadWorkers)
	for _, q := range afterLoad[c.Dialect()] {
		if err := c.Exec(ctx, q); err != nil {
			return fmt.Errorf("%s: %w", q, err)
		}
	}
	if err := sqlwork.WriteMarker(ctx, c, dataset, in.dataParams(), sqlwork.Ready, lastingTables); err != nil {
		return err
	}
	env.Logf("tpcb: loaded scale %d in %.1f s", in.scale, time.Since(start).Seconds())
	return nil
}

var accountCols = []string{"aid", "bid", "abalance", "filler"}

// loadAccounts loads pgbench_accounts in one COPY … FREEZE, or split into
// load_workers contiguous key ranges loaded over separate connections at once.
// The parallel load gives up FREEZE (it needs the truncate in the same
// transaction), so it pays off only where the server has cores to spare.
func (in *instance) loadAccounts(ctx context.Context, env workload.PrepareEnv, pad bool) (int64, error) {
	total := in.scale * accountsPerScale
	workers := int64(in.loadWorkers)
	task := env.Progress.Start("tpcb: loading pgbench_accounts", total, "rows")
	defer task.End()
	if workers <= 1 || env.Open == nil {
		return env.Conn.(driver.BulkLoader).BulkLoad(ctx, "pgbench_accounts", accountCols, workload.CountRows(newRows(1, total, accountsPerScale, 84, pad, true), task), true)
	}
	per := (total + workers - 1) / workers
	var (
		mu     sync.Mutex
		loaded int64
		wg     sync.WaitGroup
		errs   = make([]error, workers)
	)
	for w := int64(0); w < workers; w++ {
		first, last := w*per+1, min((w+1)*per, total)
		if first > last {
			continue
		}
		wg.Add(1)
		go func(w, first, last int64) {
			defer wg.Done()
			conn, err := env.Open(ctx)
			if err != nil {
				errs[w] = err
				return
			}
			defer conn.Close(context.WithoutCancel(ctx))
			bl, ok := conn.(driver.BulkLoader)
			if !ok {
				errs[w] = fmt.Errorf("connection lacks a bulk load path")
				return
			}
			n, err := bl.BulkLoad(ctx, "pgbench_accounts", accountCols, workload.CountRows(newRows(first, last, accountsPerScale, 84, pad, true), task), false)
			errs[w] = err
			mu.Lock()
			loaded += n
			mu.Unlock()
		}(w, first, last)
	}
	wg.Wait()
	return loaded, errors.Join(errs...)
}

// rows generates pgbench's initial rows: key, owning branch (for tellers and
// accounts), zero balance, filler.
type rows struct {
	last, perBranch, i int64
	withBranch         bool
	filler             string
	vals               []any
}

// newRows yields the rows with keys first..last (1-based, inclusive).
func newRows(first, last, perBranch int64, width int, pad, withBranch bool) *rows {
	r := &rows{i: first - 1, last: last, perBranch: perBranch, withBranch: withBranch}
	if pad {
		r.filler = strings.Repeat(" ", width)
	}
	return r
}

func (r *rows) Next() bool {
	if r.i >= r.last {
		return false
	}
	r.i++
	if r.withBranch {
		r.vals = append(r.vals[:0], r.i, (r.i-1)/r.perBranch+1, int64(0), r.filler)
	} else {
		r.vals = append(r.vals[:0], r.i, int64(0), r.filler)
	}
	return true
}

func (r *rows) Values() []any { return r.vals }

// beforeRun is the BeforeRun hook: what pgbench does before every run
// unless -n is given.
func (in *instance) beforeRun(ctx context.Context, conn driver.Conn) error {
	if !in.vacuum {
		return nil
	}
	c, err := workload.SQLConn("tpcb", conn)
	if err != nil {
		return err
	}
	steps := map[string][]string{
		"postgres": {"VACUUM pgbench_branches", "VACUUM pgbench_tellers", "TRUNCATE pgbench_history"},
		"sqlite":   {"DELETE FROM pgbench_history"},
		// InnoDB's purge does vacuum's work in the background; OPTIMIZE TABLE would
		// rebuild the tables, which pgbench's VACUUM does not. Only the truncate remains.
		"mysql": {"TRUNCATE TABLE pgbench_history"},
	}[c.Dialect()]
	for _, q := range steps {
		if err := c.Exec(ctx, q); err != nil {
			return fmt.Errorf("pre-run %s: %w", q, err)
		}
	}
	return nil
}

// describe is the Describe hook.
func (in *instance) describe(conn driver.Conn) ([][2]string, []string) {
	kind := pgbenchNames[in.mode]
	if in.custom {
		kind = "multiple scripts"
		if len(in.scripts.scripts) == 1 {
			kind = in.scripts.scripts[0].name
		}
	}
	facts := [][2]string{
		{"transaction type", kind},
		{"scaling factor", fmt.Sprint(in.scale)},
		{"query mode", in.queryMode},
	}
	facts = append(facts, in.scriptFacts()...)
	var dev []string
	if c, ok := conn.(driver.SQL); ok && c.Dialect() == "sqlite" {
		dev = append(dev,
			"SQLite: transactions start with BEGIN IMMEDIATE so concurrent writers wait for the lock instead of failing",
			"SQLite: primary keys are declared at creation (INTEGER PRIMARY KEY) instead of added after the load",
			"SQLite: the pre-run vacuum of branches and tellers is skipped; history is emptied with DELETE",
			"SQLite: fillfactor and unlogged tables do not apply")
		if in.queryMode == "extended" {
			dev = append(dev, "SQLite: query mode extended compiles each statement like simple")
		}
	}
	if c, ok := conn.(driver.SQL); ok && c.Dialect() == "mysql" {
		dev = append(dev,
			"MySQL: primary keys are declared at creation (InnoDB clusters by them) instead of added after the load",
			"MySQL: the pre-run vacuum of branches and tellers has no InnoDB equivalent and is skipped; history is truncated",
			"MySQL: END is written COMMIT; fillfactor and unlogged tables do not apply")
		if in.queryMode == "extended" {
			dev = append(dev, "MySQL: query mode extended uses server-side prepared statements, like prepared")
		}
	}
	return facts, dev
}

// check is the Check hook: every delta went to one account, one teller,
// one branch and one history row, so all four sums must agree (tpcb-like only;
// it holds while history has not been truncated since the load).
func (in *instance) check(ctx context.Context, conn driver.Conn) error {
	if in.mode != tpcbLike || in.custom {
		return nil
	}
	c, err := workload.SQLConn("tpcb", conn)
	if err != nil {
		return err
	}
	sums := map[string]int64{}
	for _, q := range []struct{ name, sql string }{
		{"accounts", "SELECT coalesce(sum(abalance), 0) FROM pgbench_accounts"},
		{"tellers", "SELECT coalesce(sum(tbalance), 0) FROM pgbench_tellers"},
		{"branches", "SELECT coalesce(sum(bbalance), 0) FROM pgbench_branches"},
		{"history", "SELECT coalesce(sum(delta), 0) FROM pgbench_history"},
	} {
		v, err := c.QueryInt64(ctx, q.sql)
		if err != nil {
			return fmt.Errorf("summing %s: %w", q.name, err)
		}
		sums[q.name] = v
	}
	if sums["accounts"] != sums["branches"] || sums["accounts"] != sums["tellers"] || sums["accounts"] != sums["history"] {
		return fmt.Errorf("balances disagree: accounts %d, tellers %d, branches %d, history %d",
			sums["accounts"], sums["tellers"], sums["branches"], sums["history"])
	}
	return nil
}

// cleanup is the Cleanup hook: drops pgbench's tables only when fairbench loaded them.
func (in *instance) cleanup(ctx context.Context, conn driver.Conn) error {
	c, err := workload.SQLConn("tpcb", conn)
	if err != nil {
		return err
	}
	ours, err := sqlwork.Owns(ctx, c, dataset, lastingTables)
	if err != nil {
		return err
	}
	if !ours {
		return sqlwork.LeftAlone(ctx, c, lastingTables, "pgbench -i would drop them")
	}
	for _, t := range tables {
		if err := c.Exec(ctx, "DROP TABLE IF EXISTS "+t); err != nil {
			return err
		}
	}
	return sqlwork.DeleteMarker(ctx, c, dataset)
}

// NewSlotWorker implements workload.SlotWorkers: a script's :client_id is
// the client's place.
func (in *instance) NewSlotWorker(ctx context.Context, conn driver.Conn, slot workload.ClientSlot) (workload.Op, error) {
	if in.scripts == nil {
		return in.NewWorker(ctx, conn)
	}
	c, err := workload.SQLConn("tpcb", conn)
	if err != nil {
		return nil, err
	}
	return in.scriptWorker(ctx, c, slot)
}

// NewWorker implements workload.Instance: pgbench's built-in script, natively.
func (in *instance) NewWorker(ctx context.Context, conn driver.Conn) (workload.Op, error) {
	c, err := workload.SQLConn("tpcb", conn)
	if err != nil {
		return nil, err
	}
	prep := func(q string) driver.Stmt {
		if err != nil {
			return nil
		}
		var s driver.Stmt
		s, err = c.Prepare(ctx, q)
		return s
	}
	naccounts := in.scale * accountsPerScale
	nbranches := in.scale * branchesPerScale
	ntellers := in.scale * tellersPerScale
	selectBalance := prep("SELECT abalance FROM pgbench_accounts WHERE aid = $1")
	if in.mode == selectOnly {
		if err != nil {
			return nil, err
		}
		return func(ctx context.Context, rng *rand.Rand, _ workload.Requests) (int, error) {
			aid := rng.Int64N(naccounts) + 1
			_, err := selectBalance.QueryInt64(ctx, aid)
			return 0, err
		}, nil
	}
	// SQLite must take the write lock at BEGIN: two deferred transactions that both
	// go on to write fail with SQLITE_BUSY at once, without waiting (deadlock avoidance).
	begin := prep(map[bool]string{true: "BEGIN IMMEDIATE", false: "BEGIN"}[c.Dialect() == "sqlite"])
	end := prep(map[bool]string{true: "COMMIT", false: "END"}[c.Dialect() == "mysql"]) // MySQL has no END
	updateAccount := prep("UPDATE pgbench_accounts SET abalance = abalance + $1 WHERE aid = $2")
	updateTeller := prep("UPDATE pgbench_tellers SET tbalance = tbalance + $1 WHERE tid = $2")
	updateBranch := prep("UPDATE pgbench_branches SET bbalance = bbalance + $1 WHERE bid = $2")
	insertHistory := prep("INSERT INTO pgbench_history (tid, bid, aid, delta, mtime) VALUES ($1, $2, $3, $4, CURRENT_TIMESTAMP)")
	if err != nil {
		return nil, err
	}
	full := in.mode == tpcbLike
	return func(ctx context.Context, rng *rand.Rand, _ workload.Requests) (int, error) {
		// The same draws in the same order as pgbench's script.
		aid := rng.Int64N(naccounts) + 1
		bid := rng.Int64N(nbranches) + 1
		tid := rng.Int64N(ntellers) + 1
		delta := rng.Int64N(10001) - 5000
		if err := begin.Exec(ctx); err != nil {
			return 0, sqlwork.Rollback(ctx, c, err)
		}
		if err := updateAccount.Exec(ctx, delta, aid); err != nil {
			return 0, sqlwork.Rollback(ctx, c, err)
		}
		if _, err := selectBalance.QueryInt64(ctx, aid); err != nil {
			return 0, sqlwork.Rollback(ctx, c, err)
		}
		if full {
			if err := updateTeller.Exec(ctx, delta, tid); err != nil {
				return 0, sqlwork.Rollback(ctx, c, err)
			}
			if err := updateBranch.Exec(ctx, delta, bid); err != nil {
				return 0, sqlwork.Rollback(ctx, c, err)
			}
		}
		if err := insertHistory.Exec(ctx, tid, bid, aid, delta); err != nil {
			return 0, sqlwork.Rollback(ctx, c, err)
		}
		if err := end.Exec(ctx); err != nil {
			return 0, sqlwork.Rollback(ctx, c, err)
		}
		return 0, nil
	}, nil
}

func isDir(path string) bool {
	st, err := os.Stat(path)
	return err == nil && st.IsDir()
}
