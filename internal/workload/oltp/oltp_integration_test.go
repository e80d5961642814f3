package oltp_test

import (
	"context"
	"math/rand/v2"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/fairbench/fairbench/internal/driver"
	"github.com/fairbench/fairbench/internal/params"
	_ "github.com/fairbench/fairbench/internal/plugins"
	"github.com/fairbench/fairbench/internal/result"
	"github.com/fairbench/fairbench/internal/runner"
	"github.com/fairbench/fairbench/internal/study"
	"github.com/fairbench/fairbench/internal/testenv"
	"github.com/fairbench/fairbench/internal/workload"
)

// sysbench's default read_write transaction, per statement class.
var defaultMix = map[string]int64{"select": 14, "update": 2, "delete": 1, "insert": 1, "begin": 1, "commit": 1}

func open(t *testing.T, url, mode string) driver.SQL {
	return testenv.Connect(t, url, driver.Options{QueryMode: mode}).(driver.SQL)
}

// bound prepares the oltp data with the given parameters and returns a worker
// operation on its own connection, plus that connection.
func bound(t *testing.T, url string, set map[string]any) (workload.Op, driver.SQL, workload.Instance) {
	t.Helper()
	w, err := workload.Get("oltp")
	if err != nil {
		t.Fatal(err)
	}
	vals := params.Values{}
	for k, v := range set {
		vals[k] = v
	}
	inst, err := w.New(params.WithDefaults(w.Params(), vals))
	if err != nil {
		t.Fatal(err)
	}
	mode := inst.(workload.Shaper).Shape().ConnOptions.QueryMode
	admin := open(t, url, mode)
	ctx := context.Background()
	err = inst.Prepare(ctx, workload.PrepareEnv{Conn: admin, Logf: t.Logf,
		Open: func(ctx context.Context) (driver.Conn, error) {
			return open(t, url, mode), nil
		}})
	if err != nil {
		t.Fatal(err)
	}
	c := open(t, url, mode)
	op, err := inst.NewWorker(ctx, c)
	if err != nil {
		t.Fatal(err)
	}
	return op, c, inst
}

// One read_write transaction issues exactly sysbench's default statement mix,
// counted by MariaDB itself (the connection's Com_* status counters), in both
// the prepared and the simple query mode.
func TestReadWriteStatementMixOnMariaDB(t *testing.T) {
	url := testenv.FreshMySQL(t)
	for _, mode := range []string{"prepared", "simple"} {
		op, c, inst := bound(t, url, map[string]any{"table_size": int64(1000), "query_mode": mode})
		ctx := context.Background()
		names := []string{"select", "update", "delete", "insert", "begin", "commit"}
		snap := func() map[string]int64 {
			out := map[string]int64{}
			for _, n := range names {
				v, err := c.QueryInt64(ctx, "SELECT VARIABLE_VALUE FROM information_schema.SESSION_STATUS WHERE VARIABLE_NAME = $1", "COM_"+strings.ToUpper(n))
				if err != nil {
					t.Fatal(err)
				}
				out[n] = v
			}
			return out
		}
		// The snapshot's own SELECTs show up in Com_select: measure them first.
		a, b := snap(), snap()
		own := b["select"] - a["select"]
		rng := rand.New(rand.NewPCG(1, 2))
		before := snap()
		if _, err := op(ctx, rng, nil); err != nil {
			t.Fatal(err)
		}
		after := snap()
		for _, n := range names {
			got := after[n] - before[n]
			if n == "select" {
				got -= own
			}
			if got != defaultMix[n] {
				t.Errorf("%s mode: Com_%s grew by %d in one read_write transaction, sysbench issues %d", mode, n, got, defaultMix[n])
			}
		}
		counts := inst.(workload.Hooker).Hooks().Counts()
		if counts["queries_read"] != 14 || counts["queries_write"] != 4 || counts["queries_other"] != 2 {
			t.Errorf("%s mode: workload counted %v, want read 14 write 4 other 2", mode, counts)
		}
	}
}

// The same check on PostgreSQL, through pg_stat_statements (installed in the
// test server's database bench; it sees every database's statements by dbid).
func TestReadWriteStatementMixOnPostgres(t *testing.T) {
	url := testenv.FreshPostgres(t)
	op, _, _ := bound(t, url, map[string]any{"table_size": int64(1000)})
	ctx := context.Background()
	stats, err := pgx.Connect(ctx, testenv.PostgresURL(t))
	if err != nil {
		t.Fatal(err)
	}
	defer stats.Close(ctx)
	dbname := url[strings.LastIndex(url, "/")+1:]
	if i := strings.Index(dbname, "?"); i >= 0 {
		dbname = dbname[:i]
	}
	snap := func() map[string]int64 {
		rows, err := stats.Query(ctx, `SELECT lower(split_part(ltrim(query), ' ', 1)), sum(calls)::bigint
			FROM pg_stat_statements WHERE dbid = (SELECT oid FROM pg_database WHERE datname = $1)
			AND (query ILIKE '%sbtest1%' OR query ILIKE 'begin' OR query ILIKE 'commit') GROUP BY 1`, dbname)
		if err != nil {
			t.Fatalf("reading pg_stat_statements: %v", err)
		}
		defer rows.Close()
		out := map[string]int64{}
		for rows.Next() {
			var k string
			var v int64
			if err := rows.Scan(&k, &v); err != nil {
				t.Fatal(err)
			}
			out[k] = v
		}
		return out
	}
	// pg_stat_statements evicts its least used entries when full, and the
	// tests of other packages fill it with their own statements at the same
	// time: a transaction during which it evicted is measured again.
	deallocs := func() int64 {
		var n int64
		if err := stats.QueryRow(ctx, "SELECT dealloc FROM pg_stat_statements_info").Scan(&n); err != nil {
			t.Fatalf("reading pg_stat_statements_info: %v", err)
		}
		return n
	}
	// Under the race detector every package's tests run at once and
	// evictions come often: a clean transaction may take many tries.
	// A transaction is also measured again when its counts are off without
	// a recorded eviction (CI saw BEGIN and COMMIT not counted once, under
	// load, with every other statement counted): a workload that really
	// sends another mix fails every one of the tries.
	matches := func(before, after map[string]int64) bool {
		for n, want := range defaultMix {
			if after[n]-before[n] != want {
				return false
			}
		}
		return true
	}
	var before, after map[string]int64
	evicted, off := 0, 0
	for try := 0; try < 25; try++ {
		d := deallocs()
		before = snap()
		if _, err := op(ctx, rand.New(rand.NewPCG(5, 6)), nil); err != nil {
			t.Fatal(err)
		}
		after = snap()
		if deallocs() != d {
			evicted++
			continue
		}
		if matches(before, after) {
			break
		}
		off++
	}
	if evicted+off > 0 {
		t.Logf("%d transactions measured again after pg_stat_statements evicted entries, %d after counts that were off", evicted, off)
	}
	for n, want := range defaultMix {
		if got := after[n] - before[n]; got != want {
			t.Errorf("pg_stat_statements: %s grew by %d in one read_write transaction, sysbench issues %d (before %v after %v)", n, got, want, before, after)
		}
	}
}

func runStudy(t *testing.T, url string, p map[string][]any, clients int) ([]*result.Run, error) {
	t.Helper()
	st := &study.Study{Name: t.Name(), Duration: time.Second, Seed: 1,
		Targets: []*study.Target{{Name: "db", URL: url}},
		Workloads: []*study.Workload{{Name: "oltp", Kind: "oltp", Params: p,
			Clients: []study.ClientLevel{{N: clients}}, MaxTries: 10}}}
	cells, err := st.Plan(runner.Catalog{})
	if err != nil {
		t.Fatal(err)
	}
	s := &runner.MemorySink{}
	r := runner.New(st, runner.Options{Sink: s})
	if err := r.Preflight(context.Background(), cells); err != nil {
		return nil, err
	}
	err = r.Run(context.Background(), cells)
	return s.Runs, err
}

// Every mode runs on the embedded SQLite and on MariaDB; queries per class are
// stored with the run.
func TestEveryModeRuns(t *testing.T) {
	modes := []any{"point_select", "read_only", "write_only", "read_write", "update_index", "update_non_index", "insert", "delete"}
	for _, url := range []string{
		"sqlite:" + filepath.Join(t.TempDir(), "o.db") + "?journal_mode=WAL",
		testenv.FreshMySQL(t),
	} {
		runs, err := runStudy(t, url, map[string][]any{"mode": modes, "table_size": {int64(500)}, "tables": {int64(2)}}, 2)
		if err != nil {
			t.Fatal(err)
		}
		if len(runs) != len(modes) {
			t.Fatalf("%d runs for %d modes", len(runs), len(modes))
		}
		for _, r := range runs {
			if r.Status != result.StatusOK || r.Summary.Transactions == 0 {
				t.Fatalf("%s %v: %s, %d transactions: %s", r.TargetURL, r.Params["mode"], r.Status, r.Summary.Transactions, r.Error)
			}
			q := r.Summary.Extra["queries_read"] + r.Summary.Extra["queries_write"] + r.Summary.Extra["queries_other"]
			// Transactions in flight at the phase boundaries may fall on either side
			// of the counter snapshots: at most one per client.
			if q < float64(r.Summary.Transactions-2) {
				t.Fatalf("%v: %v queries for %d transactions", r.Params["mode"], r.Summary.Extra, r.Summary.Transactions)
			}
		}
	}
}

// An unsupported TLS option is named, before anything is loaded.
func TestBadTLSOptionFailsBeforeLoad(t *testing.T) {
	url := testenv.FreshMySQL(t)
	for bad, want := range map[string]string{
		url + "?tls=true&tls-ciphers=TLS_RSA_BOGUS": "TLS_RSA_BOGUS",
		url + "?ssl-mode=REQUIRED":                  `"ssl-mode"`,
	} {
		_, err := runStudy(t, bad, map[string][]any{"table_size": {int64(100)}}, 1)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Fatalf("want an error naming %s, got %v", want, err)
		}
		if strings.Contains(err.Error(), testenv.Password(t, url)) {
			t.Fatal("error leaks the password")
		}
	}
	c := open(t, url, "")
	n, err := c.QueryInt64(context.Background(), "SELECT count(*) FROM information_schema.tables WHERE table_schema = DATABASE()")
	if err != nil || n != 0 {
		t.Fatalf("%d tables exist after the failed runs (%v): nothing may be loaded", n, err)
	}
}

// Prepare reuses fairbench's own data, refuses to drop sbtest tables it did not
// create unless told, and Cleanup drops only its own.
func TestForeignTablesAreProtected(t *testing.T) {
	url := testenv.FreshMySQL(t)
	c := open(t, url, "")
	ctx := context.Background()
	if err := c.Exec(ctx, "CREATE TABLE sbtest1 (id INT PRIMARY KEY, k INT, c CHAR(120), pad CHAR(60))"); err != nil {
		t.Fatal(err)
	}
	runs, err := runStudy(t, url, map[string][]any{"table_size": {int64(100)}}, 1)
	if err == nil || len(runs) != 1 || !strings.Contains(runs[0].Error, "--replace") {
		t.Fatalf("want a refusal naming --replace, got %v", err)
	}
	if n, _ := c.QueryInt64(ctx, "SELECT count(*) FROM information_schema.tables WHERE table_schema = DATABASE() AND table_name = 'sbtest1'"); n != 1 {
		t.Fatal("the foreign sbtest1 was dropped")
	}
}

// sysbench cleanup and prepare over fairbench's own load make the tables
// sysbench's: fairbench's leftover record of its load no longer claims them.
// They are reused at their size, protected at another, and left by cleanup.
func TestTablesRecreatedOverFairbenchsLoadAreProtected(t *testing.T) {
	url := testenv.FreshMySQL(t)
	_, _, _ = bound(t, url, map[string]any{"table_size": int64(100)})
	// The identity of a MySQL table is its creation time, in seconds.
	time.Sleep(1100 * time.Millisecond)
	c := open(t, url, "")
	ctx := context.Background()
	// What `sysbench oltp_read_write --tables=1 --table-size=50 cleanup` and then
	// `prepare` send.
	for _, q := range []string{
		"DROP TABLE IF EXISTS sbtest1",
		"CREATE TABLE sbtest1(id INTEGER NOT NULL AUTO_INCREMENT, k INTEGER DEFAULT '0' NOT NULL, " +
			"c CHAR(120) DEFAULT '' NOT NULL, pad CHAR(60) DEFAULT '' NOT NULL, PRIMARY KEY (id)) ENGINE = InnoDB",
		"INSERT INTO sbtest1 (k, c, pad) SELECT seq, 'c', 'pad' FROM seq_1_to_50",
		"CREATE INDEX k_1 ON sbtest1(k)",
	} {
		if err := c.Exec(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	rows := func() int64 {
		n, err := c.QueryInt64(ctx, "SELECT count(*) FROM sbtest1")
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	w, err := workload.Get("oltp")
	if err != nil {
		t.Fatal(err)
	}
	instance := func(size int64) workload.Instance {
		inst, err := w.New(params.WithDefaults(w.Params(), params.Values{"table_size": size}))
		if err != nil {
			t.Fatal(err)
		}
		return inst
	}
	prepare := func(size int64) error {
		return instance(size).Prepare(ctx, workload.PrepareEnv{Conn: c, Logf: t.Logf})
	}
	err = prepare(100)
	if err == nil || !strings.Contains(err.Error(), "table_size = 50") || !strings.Contains(err.Error(), "--replace") {
		t.Fatalf("table_size 100 over sysbench's 50 rows: want a refusal naming table_size = 50 and --replace, got %v", err)
	}
	if err := prepare(50); err != nil {
		t.Fatalf("sysbench's tables at the asked size must be reused: %v", err)
	}
	// Cleanup says that it left them (sysbench's cleanup would drop them).
	if err := instance(50).(workload.Hooker).Hooks().Cleanup(ctx, c); err == nil || !strings.Contains(err.Error(), "sbtest1 left alone") {
		t.Fatalf("cleanup of sysbench's tables: want a refusal naming sbtest1, got %v", err)
	}
	if n := rows(); n != 50 {
		t.Fatalf("sysbench's sbtest1 holds %d rows after fairbench's prepare and cleanup, want its 50", n)
	}
}
