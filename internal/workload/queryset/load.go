package queryset

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/fairbench/fairbench/internal/driver"
	"github.com/fairbench/fairbench/internal/kinds"
	"github.com/fairbench/fairbench/internal/params"
	"github.com/fairbench/fairbench/internal/progress"
	"github.com/fairbench/fairbench/internal/workload"
	"github.com/fairbench/fairbench/internal/workload/sqlwork"
)

// ClickHouse18 names the dialect of ClickHouse before 19.1, which cannot
// join more than two tables in a SELECT and keeps LowCardinality
// experimental: the test server here is 18.16, the only ClickHouse Debian has.
const ClickHouse18 = "clickhouse-18.16"

// dialect is the query dialect of an SQL session: its driver's dialect, and
// for ClickHouse the version family, which the query texts depend on.
func dialect(ctx context.Context, c driver.SQL) (string, error) {
	d := c.Dialect()
	if d != "clickhouse" {
		return d, nil
	}
	rows, err := c.Query(ctx, "SELECT version()")
	if err != nil {
		return "", fmt.Errorf("reading ClickHouse's version: %w", err)
	}
	defer rows.Close()
	var v string
	if rows.Next() {
		if err := rows.Scan(&v); err != nil {
			return "", err
		}
	}
	if err := rows.Err(); err != nil {
		return "", err
	}
	major, _ := strconv.Atoi(strings.SplitN(v, ".", 2)[0])
	if major > 0 && major < 19 {
		return ClickHouse18, nil
	}
	return d, nil
}

// Register adds a query-set workload and its kind: the geometric mean of
// the hot times as headline, the per-query report section as rep declares
// it, ClickBench's result file and run summary, and the doubt of queries
// that found no rows, which whyNoRows explains from the run's parameters
// (nil, or "": no explanation).
func Register(w workload.Workload, workingSet func(params.Values) (int64, string, bool), whyNoRows func(params.Values) string, rep Report) {
	kindsRegistered = append(kindsRegistered, w.Kind())
	workload.Register(workload.Plugin{
		Workload: w,
		Kind: kinds.Info{
			Headline:   geoMeanHeadline,
			WorkingSet: workingSet,
			Sections:   rep.sections,
			RunFormats: runFormats,
			Summary:    printSummary,
			Doubts:     noRowsDoubt(whyNoRows),
		},
	})
}

// Plan is what a query-set workload loads and runs in one dialect.
type Plan struct {
	Dataset Dataset
	Queries []Query     // one per name of the set, in order
	Facts   [][2]string // for the run's description, besides the dataset's
}

// Prepare is a query-set workload's Prepare: it finds the target's
// dialect, asks plan for the dataset and the queries there, loads the one
// (or reuses it) and binds the other. It returns the dialect.
func (s *Set) Prepare(ctx context.Context, env workload.PrepareEnv, kind string, plan func(dialect string) (Plan, error)) (string, error) {
	c, err := workload.SQLConn(kind, env.Conn)
	if err != nil {
		return "", err
	}
	d, err := dialect(ctx, c)
	if err != nil {
		return "", err
	}
	p, err := plan(d)
	if err != nil {
		return "", err
	}
	if _, err := load(ctx, env, c, p.Dataset); err != nil {
		return "", err
	}
	s.setFacts(append(facts(ctx, c, p.Dataset), p.Facts...))
	return d, s.Bind(p.Queries)
}

// Cleanup is a query-set workload's Cleanup: it drops the dataset of the
// target's dialect, when fairbench loaded it.
func Cleanup(ctx context.Context, conn driver.Conn, kind string, dataset func(dialect string) (Dataset, error)) error {
	c, err := workload.SQLConn(kind, conn)
	if err != nil {
		return err
	}
	d, err := dialect(ctx, c)
	if err != nil {
		return err
	}
	ds, err := dataset(d)
	if err != nil {
		return err
	}
	return drop(ctx, c, ds)
}

// Table is one table of an analytical dataset.
type Table struct {
	Name    string
	DDL     string
	Columns []string
	// Chunks are the table's rows in parts that load in parallel, each on
	// a session of its own; nil when Fill makes the rows. A chunk that
	// reads a file may fail to open; a source with an Err method (a file's
	// rows) is asked after the load whether it ended or broke, and one with
	// a Close method is closed.
	Chunks []func(ctx context.Context) (driver.RowSource, error)
	// Fill is a statement that fills the table from tables loaded before it
	// (lineorder_flat from the join), run after their load.
	Fill string
	// Rows is how many rows the chunks hold, for the load's progress line;
	// 0 when it is not known in advance (a file's rows).
	Rows int64
}

// Dataset is an analytical dataset a workload loads and owns.
type Dataset struct {
	Name   string // marker name ("ssb")
	Params string // what shapes the data; a ready load with the same is reused
	Tool   string // the standard tool that makes the same tables, for messages
	Wanted string // what the parameters ask for ("scale 10"), for messages
	Tables []Table
	// Workers is how many sessions load chunks at once.
	Workers int
}

// tableNames lists the dataset's tables.
func (d Dataset) tableNames() []string {
	out := make([]string, len(d.Tables))
	for i, t := range d.Tables {
		out[i] = t.Name
	}
	return out
}

// load makes sure the dataset is on the target: data fairbench loaded with
// the same parameters is reused; tables of the same names that fairbench did
// not create are left alone unless env.Replace. It returns the load's
// duration, 0 when the data was reused.
func load(ctx context.Context, env workload.PrepareEnv, c driver.SQL, d Dataset) (time.Duration, error) {
	if _, ok := env.Conn.(driver.BulkLoader); !ok {
		return 0, fmt.Errorf("%s needs a bulk load path on %s, which this driver lacks", d.Name, c.Dialect())
	}
	need, err := sqlwork.NeedsLoad(ctx, c, sqlwork.Dataset{
		Name: d.Name, Params: d.Params, Tables: d.tableNames(), Tool: d.Tool, Wanted: d.Wanted,
		Inspect: func(context.Context) (sqlwork.Inspection, error) {
			// Tables of these names that fairbench did not load may hold
			// anything: never take them for the benchmark's data.
			return sqlwork.Inspection{Holds: "the same names, loaded by someone else"}, nil
		},
	}, env.Replace, env.Logf)
	if err != nil || !need {
		return 0, err
	}
	start := time.Now()
	if err := sqlwork.WriteMarker(ctx, c, d.Name, d.Params, sqlwork.Loading, nil); err != nil {
		return 0, err
	}
	for _, t := range d.Tables {
		if err := c.Exec(ctx, "DROP TABLE IF EXISTS "+t.Name); err != nil {
			return 0, fmt.Errorf("dropping %s: %w", t.Name, err)
		}
		if err := c.Exec(ctx, t.DDL); err != nil {
			return 0, fmt.Errorf("creating %s: %w", t.Name, err)
		}
	}
	for _, t := range d.Tables {
		t0 := time.Now()
		var n int64
		if t.Fill != "" {
			if err := c.Exec(ctx, t.Fill); err != nil {
				return 0, fmt.Errorf("filling %s: %w", t.Name, err)
			}
		} else {
			task := env.Progress.Start(d.Name+": loading "+t.Name, t.Rows, "rows")
			n, err = loadChunks(ctx, env, t, max(1, d.Workers), task)
			task.End()
			if err != nil {
				return 0, fmt.Errorf("loading %s: %w", t.Name, err)
			}
		}
		if n > 0 {
			secs := time.Since(t0).Seconds()
			env.Logf("%s: loaded %d rows into %s in %.1f s (%.0f rows/s)", d.Name, n, t.Name, secs, float64(n)/max(secs, 1e-9))
		} else {
			env.Logf("%s: filled %s in %.1f s", d.Name, t.Name, time.Since(t0).Seconds())
		}
	}
	if err := sqlwork.WriteMarker(ctx, c, d.Name, d.Params, sqlwork.Ready, d.tableNames()); err != nil {
		return 0, err
	}
	took := time.Since(start)
	env.Logf("%s: loaded %s in %.1f s", d.Name, d.Wanted, took.Seconds())
	// The load's time outlives the load, for the runs on its data
	// (ClickBench's result file has it): a marker of its own.
	secs := strconv.FormatFloat(took.Seconds(), 'f', 3, 64)
	return took, sqlwork.WriteMarker(ctx, c, loadMarker(d.Name), secs, sqlwork.Ready, nil)
}

func loadMarker(dataset string) string { return dataset + ".load_seconds" }

// dataSizeSQL per dialect: the bytes a table takes, $1 its name.
var dataSizeSQL = map[string]string{
	"postgres":   "SELECT coalesce(sum(pg_total_relation_size(c.oid)), 0)::bigint FROM pg_catalog.pg_class c JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = current_schema() AND c.relname = $1",
	"clickhouse": "SELECT toInt64(sum(bytes_on_disk)) FROM system.parts WHERE active AND database = currentDatabase() AND table = $1",
	"mysql":      "SELECT coalesce(sum(data_length + index_length), 0) FROM information_schema.tables WHERE table_schema = DATABASE() AND table_name = $1",
}

// facts reads what ClickBench's result file records of a dataset: how long
// its load took (when fairbench loaded it) and the bytes its tables take on
// the server (for SQLite, the whole database file). A fact it cannot read
// is left out.
func facts(ctx context.Context, c driver.SQL, d Dataset) [][2]string {
	var out [][2]string
	if p, err := sqlwork.MarkerParams(ctx, c, loadMarker(d.Name)); err == nil && p != "" {
		out = append(out, [2]string{FactLoadSeconds, p})
	}
	var total int64
	if c.Dialect() == "sqlite" {
		n, err := c.QueryInt64(ctx, "SELECT page_count * page_size FROM pragma_page_count(), pragma_page_size()")
		if err != nil {
			return out
		}
		total = n
	} else if q, ok := dataSizeSQL[c.Dialect()]; ok {
		for _, t := range d.Tables {
			n, err := c.QueryInt64(ctx, q, t.Name)
			if err != nil {
				return out
			}
			total += n
		}
	} else {
		return out
	}
	return append(out, [2]string{FactDataBytes, strconv.FormatInt(total, 10)})
}

// loadChunks loads a table's chunks on up to workers sessions at once,
// counting the rows read on task. Each session loads the chunks it takes
// through one BulkLoad (chunkChain).
func loadChunks(ctx context.Context, env workload.PrepareEnv, t Table, workers int, task *progress.Task) (int64, error) {
	var next atomic.Int64
	take := func() (func(context.Context) (driver.RowSource, error), bool) {
		i := next.Add(1) - 1
		if i >= int64(len(t.Chunks)) {
			return nil, false
		}
		return t.Chunks[i], true
	}
	if workers == 1 || len(t.Chunks) == 1 || env.Open == nil {
		return loadSession(ctx, env.Conn.(driver.BulkLoader), t, take, task)
	}
	var (
		loaded atomic.Int64
		wg     sync.WaitGroup
		errMu  sync.Mutex
		first  error
	)
	fail := func(err error) {
		errMu.Lock()
		if first == nil {
			first = err
		}
		errMu.Unlock()
	}
	for range min(workers, len(t.Chunks)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			conn, err := env.Open(ctx)
			if err != nil {
				fail(err)
				return
			}
			defer conn.Close(context.WithoutCancel(ctx))
			bl, ok := conn.(driver.BulkLoader)
			if !ok {
				fail(fmt.Errorf("the session lacks a bulk load path"))
				return
			}
			n, err := loadSession(ctx, bl, t, take, task)
			loaded.Add(n)
			if err != nil {
				fail(err)
			}
		}()
	}
	wg.Wait()
	return loaded.Load(), first
}

// loadSession loads the chunks take hands out, one after the other, through
// one BulkLoad; a chunk's open or read error wins over the load's, which it
// usually causes.
func loadSession(ctx context.Context, bl driver.BulkLoader, t Table, take func() (func(context.Context) (driver.RowSource, error), bool), task *progress.Task) (int64, error) {
	src, chain, err := newChunkChain(ctx, take)
	if src == nil {
		return 0, err
	}
	defer chain.Close()
	n, err := bl.BulkLoad(ctx, t.Name, t.Columns, workload.CountRows(src, task), false)
	if chain.Err() != nil {
		return n, chain.Err()
	}
	return n, err
}

// drop removes the dataset's tables and marker, when they are fairbench's.
func drop(ctx context.Context, c driver.SQL, d Dataset) error {
	ours, err := sqlwork.Owns(ctx, c, d.Name, d.tableNames())
	if err != nil {
		return err
	}
	if !ours {
		return sqlwork.LeftAlone(ctx, c, d.tableNames(), "")
	}
	for _, t := range d.Tables {
		if err := c.Exec(ctx, "DROP TABLE IF EXISTS "+t.Name); err != nil {
			return err
		}
	}
	if err := sqlwork.DeleteMarker(ctx, c, loadMarker(d.Name)); err != nil {
		return err
	}
	return sqlwork.DeleteMarker(ctx, c, d.Name)
}
