package ycsb_test

import (
	"context"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/fairbench/fairbench/internal/driver"
	"github.com/fairbench/fairbench/internal/params/ycsbparams"
	_ "github.com/fairbench/fairbench/internal/plugins"
	"github.com/fairbench/fairbench/internal/result"
	"github.com/fairbench/fairbench/internal/runner"
	"github.com/fairbench/fairbench/internal/study"
	"github.com/fairbench/fairbench/internal/testenv"
	"github.com/fairbench/fairbench/internal/workload"
)

// target is one engine the workload runs on in these tests, with the
// server's own counts of reads and updates where it keeps them.
type target struct {
	name string
	url  string
	// counts returns the server's reads and updates of the table so far.
	counts func(t *testing.T) (reads, updates int64)
	// prepareReads are the reads of the table a run's Prepare makes (the
	// marker document of a collection).
	prepareReads int64
	// records and ops size the test (a slow server gets fewer).
	records, ops int
}

func targets(t *testing.T, table string) []target {
	dir := t.TempDir()
	ts := []target{
		{name: "sqlite", url: "sqlite:" + filepath.Join(dir, "y.db")},
		{name: "pebble", url: "pebble:" + filepath.Join(dir, "pebble")},
		{name: "bbolt", url: "bbolt:" + filepath.Join(dir, "y.bolt")},
	}
	if os.Getenv("FAIRBENCH_TEST_PG") != "" || os.Getenv("FAIRBENCH_REQUIRE_SERVERS") == "1" {
		pg := testenv.FreshPostgres(t)
		ts = append(ts, target{name: "postgres", url: pg, counts: func(t *testing.T) (int64, int64) { return pgCounts(t, pg, table) }})
		ts = append(ts, target{name: "mysql", url: testenv.FreshMySQL(t)})
		valkey := testenv.ValkeyURL(t)
		ts = append(ts, target{name: "valkey", url: valkey, counts: func(t *testing.T) (int64, int64) { return redisCounts(t, valkey) }})
	}
	if os.Getenv("FAIRBENCH_TEST_MONGODB") != "" || os.Getenv("FAIRBENCH_REQUIRE_SERVERS") == "1" {
		u := testenv.MongoDBURLCounted(t) // its counters count every test's commands
		// FerretDB answers about a hundred reads a second here: a smaller run.
		ts = append(ts, target{name: "ferretdb", url: u, counts: func(t *testing.T) (int64, int64) { return mongoCounts(t, u) },
			prepareReads: 1, records: 500, ops: 600})
	}
	for i := range ts {
		if ts[i].records == 0 {
			ts[i].records, ts[i].ops = 2000, 3000
		}
	}
	return ts
}

// ferretCounts reads FerretDB's Prometheus metrics, which count the
// commands it answered (its serverStatus has no opcounters): find and update.
func ferretCounts(t *testing.T) (int64, int64) {
	t.Helper()
	u := os.Getenv("FAIRBENCH_TEST_FERRETDB_METRICS")
	if u == "" {
		t.Fatal("FAIRBENCH_TEST_FERRETDB_METRICS is not set: FerretDB keeps no opcounters, and its metrics are where it counts commands")
	}
	resp, err := http.Get(u)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	count := func(cmd string) int64 {
		var n int64
		prefix := `ferretdb_client_requests_total{command="` + cmd + `"`
		for _, line := range strings.Split(string(body), "\n") {
			if strings.HasPrefix(line, prefix) {
				f := strings.Fields(line)
				v, err := strconv.ParseFloat(f[len(f)-1], 64)
				if err != nil {
					t.Fatalf("metrics line %q: %v", line, err)
				}
				n += int64(v)
			}
		}
		return n
	}
	return count("find"), count("update")
}

// pgCounts reads pg_stat_user_tables: every read and every update of a row
// by its key is one index scan, and each update one updated tuple. A
// backend publishes its counts when its transaction ends, within a second
// or at exit, so the counts are read until they stop moving.
func pgCounts(t *testing.T, url, table string) (int64, int64) {
	t.Helper()
	c := testenv.Connect(t, url, driver.Options{}).(driver.SQL)
	defer c.Close(context.Background())
	var last [2]int64
	for i := 0; i < 30; i++ {
		scans, err := c.QueryInt64(context.Background(), "SELECT coalesce(sum(idx_scan), 0) FROM pg_stat_user_tables WHERE relname = $1", table)
		if err != nil {
			t.Fatal(err)
		}
		upd, err := c.QueryInt64(context.Background(), "SELECT coalesce(sum(n_tup_upd), 0) FROM pg_stat_user_tables WHERE relname = $1", table)
		if err != nil {
			t.Fatal(err)
		}
		now := [2]int64{scans - upd, upd}
		if i > 0 && now == last {
			break
		}
		last = now
		time.Sleep(300 * time.Millisecond)
	}
	return last[0], last[1]
}

// redisCounts reads INFO commandstats: HGETALL is a read, HSET an update
// (the loads' HSETs come before the first reading).
func redisCounts(t *testing.T, url string) (int64, int64) {
	t.Helper()
	kv := testenv.Connect(t, url, driver.Options{}).(driver.KV)
	defer kv.Close(context.Background())
	r := make([]driver.KVReply, 1)
	if err := kv.Pipeline(context.Background(), []driver.KVCommand{{Name: "INFO", Key: []byte("commandstats")}}, r); err != nil || r[0].Err != nil {
		t.Fatalf("INFO commandstats: %v %v", err, r[0].Err)
	}
	calls := map[string]int64{}
	for _, line := range strings.Split(string(r[0].Value), "\r\n") {
		k, v, _ := strings.Cut(line, ":")
		if name, ok := strings.CutPrefix(k, "cmdstat_"); ok {
			n, _, _ := strings.Cut(strings.TrimPrefix(v, "calls="), ",")
			calls[name], _ = strconv.ParseInt(n, 10, 64)
		}
	}
	return calls["hgetall"], calls["hset"]
}

// mongoCounts reads serverStatus opcounters: a find by _id is a query, an
// update one update.
func mongoCounts(t *testing.T, url string) (int64, int64) {
	t.Helper()
	c := testenv.Connect(t, url, driver.Options{})
	defer c.Close(context.Background())
	a, ok := c.(driver.DocumentAdmin)
	if !ok {
		t.Fatal("the document session has no admin capability")
	}
	m, ok, err := a.OpCounters(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if !ok {
		return ferretCounts(t)
	}
	return m["query"], m["update"]
}

func runCell(t *testing.T, url, workloadTable string, replace bool) (*result.Run, error) {
	t.Helper()
	st, err := study.Parse("ycsb.toml", []byte(workloadTable), runner.Catalog{})
	if err != nil {
		t.Fatal(err)
	}
	st.Targets = []*study.Target{{Name: "t", URL: url}}
	cells, err := st.Plan(runner.Catalog{})
	if err != nil {
		t.Fatal(err)
	}
	sink := &runner.MemorySink{}
	err = runner.New(st, runner.Options{Sink: sink, Replace: replace}).Run(context.Background(), cells)
	if len(sink.Runs) != 1 {
		t.Fatalf("%d runs", len(sink.Runs))
	}
	return sink.Runs[0], err
}

func studyText(table, preset string, records, ops int, extra ...string) string {
	props := []string{fmt.Sprintf("%q", "table="+table)}
	for _, e := range extra {
		props = append(props, fmt.Sprintf("%q", e))
	}
	return fmt.Sprintf(`
[study]
name = "ycsb"
warmup = "0s"
duration = "120s"

[[target]]
name = "t"
url = "sqlite::memory:"

[[workload]]
kind = "ycsb"
clients = [4]
workload = %q
recordcount = %d
operationcount = %d
properties = [%s]
`, preset, records, ops, strings.Join(props, ", "))
}

func opCount(r *result.Run, name string) (ok, failed int64) {
	for _, o := range r.Ops {
		if o.Name == name {
			for _, n := range o.Errors {
				failed += n
			}
			return o.Count, failed
		}
	}
	return 0, 0
}

// Workload A on every engine: operationcount bounds the run, so every
// operation fairbench counts is in the measured phase; the server's own
// counts of reads and updates agree with fairbench's exactly.
func TestWorkloadAOnEveryEngine(t *testing.T) {
	table := fmt.Sprintf("fbtest_ycsb_%x", rand.Uint32())
	for _, tg := range targets(t, table) {
		t.Run(tg.name, func(t *testing.T) {
			text := studyText(table, "a", tg.records, tg.ops)
			first, err := runCell(t, tg.url, text, false) // loads
			if err != nil || first.Status != result.StatusOK {
				t.Fatalf("first run: %v %s", err, first.Error)
			}
			var r0, u0 int64
			if tg.counts != nil {
				r0, u0 = tg.counts(t)
			}
			run, err := runCell(t, tg.url, text, false) // reuses the records
			if err != nil || run.Status != result.StatusOK {
				t.Fatalf("second run: %v %s", err, run.Error)
			}
			t.Cleanup(func() { cleanup(t, tg.url, text) })
			reads, rf := opCount(run, ycsbparams.Read)
			updates, uf := opCount(run, ycsbparams.Update)
			ops := int64(tg.ops)
			if rf+uf != 0 || reads+updates != ops || run.Summary.Extra[ycsbparams.Operations] != float64(ops) {
				t.Fatalf("reads %d (%d failed), updates %d (%d failed), operations %v: want %d operations, none failed",
					reads, rf, updates, uf, run.Summary.Extra[ycsbparams.Operations], ops)
			}
			// 50/50 within 5 standard deviations of a binomial share.
			if share, tol := float64(reads)/float64(ops), 5*math.Sqrt(0.25/float64(ops)); math.Abs(share-0.5) > tol {
				t.Fatalf("reads are %.1f %% of the operations, not 50 ± %.1f %%", 100*share, 100*tol)
			}
			m := run.Headline()
			if want := float64(ops) / run.Duration.Seconds(); m.Name != "throughput" || m.Value < want*0.999 || m.Value > want*1.001 {
				t.Fatalf("headline %+v, want %v ops/s", m, want)
			}
			if tg.counts == nil {
				return
			}
			r1, u1 := tg.counts(t)
			if r1-r0-tg.prepareReads != reads || u1-u0 != updates {
				t.Fatalf("server counted %d reads and %d updates; fairbench %d and %d", r1-r0, u1-u0, reads, updates)
			}
		})
	}
}

func cleanup(t *testing.T, url, text string) {
	st, err := study.Parse("ycsb.toml", []byte(text), runner.Catalog{})
	if err != nil {
		t.Fatal(err)
	}
	cells, err := st.Plan(runner.Catalog{})
	if err != nil {
		t.Fatal(err)
	}
	c := cells[0]
	c.Target = &study.Target{Name: "t", URL: url}
	w, _ := workload.Get("ycsb")
	in, err := w.New(c.Params)
	if err != nil {
		t.Fatal(err)
	}
	conn := testenv.Connect(t, url, driver.Options{})
	defer conn.Close(context.Background())
	if err := in.(workload.Hooker).Hooks().Cleanup(context.Background(), conn); err != nil {
		t.Errorf("cleanup: %v", err)
	}
}

// Data of YCSB's shape that fairbench did not load (a usertable made for
// Java YCSB's JDBC binding, a Redis index without fairbench's marker) is
// never dropped without --replace, and cleanup leaves it alone.
func TestForeignDataNeedsReplace(t *testing.T) {
	table := fmt.Sprintf("fbtest_ycsb_%x", rand.Uint32())
	cases := []struct {
		name, url string
		plant     func(t *testing.T, url string)
		present   func(t *testing.T, url string) bool
	}{
		{name: "postgres", url: testenv.FreshPostgres(t),
			plant: func(t *testing.T, url string) {
				c := testenv.Connect(t, url, driver.Options{}).(driver.SQL)
				defer c.Close(context.Background())
				for _, q := range []string{"CREATE TABLE " + table + " (YCSB_KEY VARCHAR(255) PRIMARY KEY, FIELD0 TEXT)",
					"INSERT INTO " + table + " VALUES ('someone', 'else')"} {
					if err := c.Exec(context.Background(), q); err != nil {
						t.Fatal(err)
					}
				}
			},
			present: func(t *testing.T, url string) bool {
				c := testenv.Connect(t, url, driver.Options{}).(driver.SQL)
				defer c.Close(context.Background())
				n, err := c.QueryInt64(context.Background(), "SELECT count(*) FROM "+table+" WHERE ycsb_key = 'someone'")
				return err == nil && n == 1
			}},
		{name: "valkey", url: testenv.ValkeyURL(t),
			plant: func(t *testing.T, url string) {
				kv := testenv.Connect(t, url, driver.Options{}).(driver.KV)
				defer kv.Close(context.Background())
				r := make([]driver.KVReply, 1)
				if err := kv.Pipeline(context.Background(), []driver.KVCommand{{Name: "ZADD", Key: []byte("fb:ycsb:" + table + ":_indices"),
					Args: [][]byte{[]byte("1"), []byte("someone")}}}, r); err != nil || r[0].Err != nil {
					t.Fatal(err, r[0].Err)
				}
			},
			present: func(t *testing.T, url string) bool {
				kv := testenv.Connect(t, url, driver.Options{}).(driver.KV)
				defer kv.Close(context.Background())
				r := make([]driver.KVReply, 1)
				err := kv.Pipeline(context.Background(), []driver.KVCommand{{Name: "ZCARD", Key: []byte("fb:ycsb:" + table + ":_indices")}}, r)
				return err == nil && string(r[0].Value) == "1"
			}},
	}
	if u := os.Getenv("FAIRBENCH_TEST_MONGODB"); u != "" {
		cases = append(cases, struct {
			name, url string
			plant     func(t *testing.T, url string)
			present   func(t *testing.T, url string) bool
		}{name: "ferretdb", url: u,
			plant: func(t *testing.T, url string) {
				d := testenv.Connect(t, url, driver.Options{}).(driver.Document)
				defer d.Close(context.Background())
				if _, err := d.Insert(context.Background(), table, []driver.Doc{{"_id": "someone", "field0": "else"}}); err != nil {
					t.Fatal(err)
				}
			},
			present: func(t *testing.T, url string) bool {
				d := testenv.Connect(t, url, driver.Options{}).(driver.Document)
				defer d.Close(context.Background())
				_, ok, err := d.Get(context.Background(), table, "someone", nil)
				return err == nil && ok
			}})
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			c.plant(t, c.url)
			text := studyText(table, "c", 100, 200)
			run, err := runCell(t, c.url, text, false)
			if err == nil || run.Status != result.StatusFailed || !strings.Contains(run.Error, "--replace") || !strings.Contains(run.Error, "fairbench did not load") {
				t.Fatalf("run on foreign data: %v, status %s, error %q", err, run.Status, run.Error)
			}
			if !c.present(t, c.url) {
				t.Fatal("the foreign data is gone")
			}
			run, err = runCell(t, c.url, text, true)
			if err != nil || run.Status != result.StatusOK {
				t.Fatalf("with --replace: %v %s", err, run.Error)
			}
			if c.present(t, c.url) {
				t.Fatal("--replace kept the foreign data")
			}
			cleanup(t, c.url, text) // now fairbench's: dropped
			if c.present(t, c.url) {
				t.Fatal("cleanup left fairbench's data")
			}
		})
	}
}

// Records under fairbench's key prefix that fairbench did not write (no
// marker, no index: a hash someone made, a value on an embedded engine) stop
// the load unless --replace, instead of being deleted; keys there of names
// fairbench never gives survive --replace and cleanup.
func TestForeignRecordKeysNeedReplace(t *testing.T) {
	table := fmt.Sprintf("fbtest_ycsb_%x", rand.Uint32())
	prefix := "fb:ycsb:" + table + ":"
	dir := t.TempDir()
	urls := map[string]string{"valkey": testenv.ValkeyURL(t), "pebble": "pebble:" + filepath.Join(dir, "p"), "bbolt": "bbolt:" + filepath.Join(dir, "b.db")}
	if c := os.Getenv("FAIRBENCH_TEST_REDIS_CLUSTER"); c != "" {
		urls["cluster"] = "redis://" + strings.Split(c, ",")[0] + "?cluster=true"
	}
	for name, url := range urls {
		t.Run(name, func(t *testing.T) {
			kv := testenv.Connect(t, url, driver.Options{}).(driver.KV)
			do := func(cmds ...driver.KVCommand) []driver.KVReply {
				r := make([]driver.KVReply, len(cmds))
				if err := kv.Pipeline(context.Background(), cmds, r); err != nil {
					t.Fatal(err)
				}
				return r
			}
			record := driver.KVCommand{Name: "SET", Key: []byte(prefix + "user42"), Value: []byte("theirs")}
			if name == "valkey" || name == "cluster" {
				record = driver.KVCommand{Name: "HSET", Key: []byte(prefix + "user42"), Args: [][]byte{[]byte("field0"), []byte("theirs")}}
			}
			notes := []byte(prefix + "notes")
			t.Cleanup(func() {
				do(driver.KVCommand{Name: "DEL", Key: notes}, driver.KVCommand{Name: "DEL", Key: []byte(prefix + "user42")})
			})
			do(record, driver.KVCommand{Name: "SET", Key: notes, Value: []byte("theirs")})
			text := studyText(table, "c", 100, 200)
			run, err := runCell(t, url, text, false)
			if err == nil || !strings.Contains(run.Error, "--replace") || !strings.Contains(run.Error, prefix) {
				t.Fatalf("load over a foreign record: %v, status %s, error %q", err, run.Status, run.Error)
			}
			if r := do(driver.KVCommand{Name: "EXISTS", Key: []byte(prefix + "user42")}); name != "pebble" && name != "bbolt" && string(r[0].Value) != "1" {
				t.Fatal("the foreign record is gone")
			}
			if r := do(driver.KVCommand{Name: "GET", Key: notes}); r[0].Miss {
				t.Fatal("the foreign key notes is gone")
			}
			if run, err := runCell(t, url, text, true); err != nil || run.Status != result.StatusOK {
				t.Fatalf("with --replace: %v %s", err, run.Error)
			}
			cleanup(t, url, text)
			if r := do(driver.KVCommand{Name: "GET", Key: notes}); r[0].Miss {
				t.Fatal("--replace or cleanup deleted the key notes, whose name fairbench never gives a key")
			}
			if r := do(driver.KVCommand{Name: "GET", Key: []byte(prefix + "_marker")}); !r[0].Miss {
				t.Fatal("cleanup left fairbench's marker")
			}
		})
	}
}

// A run's inserts follow the records that are there: a second run of
// workload D inserts new keys, not the first run's again.
func TestInsertsContinueAfterAnEarlierRun(t *testing.T) {
	url := "sqlite:" + filepath.Join(t.TempDir(), "d.db")
	text := studyText("usertable", "d", 1000, 2000)
	var inserted int64
	for i := 0; i < 2; i++ {
		run, err := runCell(t, url, text, false)
		if err != nil || run.Status != result.StatusOK {
			t.Fatalf("run %d: %v %s", i, err, run.Error)
		}
		n, failed := opCount(run, ycsbparams.Insert)
		if failed != 0 || n == 0 {
			t.Fatalf("run %d: %d inserts, %d failed", i, n, failed)
		}
		inserted += n
	}
	c := testenv.Connect(t, url, driver.Options{}).(driver.SQL)
	defer c.Close(context.Background())
	n, err := c.QueryInt64(context.Background(), "SELECT count(*) FROM usertable")
	if err != nil || n != 1000+inserted {
		t.Fatalf("%d records (%v), want 1000 + %d inserted", n, err, inserted)
	}
}

// Scans need an order: an embedded KV engine, which has no sorted sets, is
// refused before anything is loaded.
func TestScansNeedAnOrderedTarget(t *testing.T) {
	url := "pebble:" + filepath.Join(t.TempDir(), "p")
	run, err := runCell(t, url, studyText("usertable", "e", 100, 100), false)
	if err == nil || !strings.Contains(run.Error, "scanproportion") {
		t.Fatalf("workload E on pebble: %v %q", err, run.Error)
	}
}
