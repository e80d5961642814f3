package ssb_test

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fairbench/fairbench/internal/driver"
	fbresult "github.com/fairbench/fairbench/internal/result"
	"github.com/fairbench/fairbench/internal/testenv"
	"github.com/fairbench/fairbench/internal/testenv/cellrun"
	"github.com/fairbench/fairbench/internal/workload"
	"github.com/fairbench/fairbench/internal/workload/queryset"
	"github.com/fairbench/fairbench/internal/workload/ssb"
)

// runSSB runs one ssb cell on url through the runner, as `fairbench run` does.
func runSSB(t *testing.T, url, extra string, replace bool) (*fbresult.Run, error) {
	t.Helper()
	return cellrun.One(t, fmt.Sprintf("[[target]]\nname = \"t\"\nurl = %q\n[[workload]]\nkind = \"ssb\"\nscale = 0.01\nseed = 136\ntries = 2\n%s\n", url, extra), replace)
}

// checkQuerySetRun checks what every tries-mode ssb run must hold.
func checkQuerySetRun(t *testing.T, r *fbresult.Run) {
	t.Helper()
	if r.Status != fbresult.StatusOK {
		t.Fatalf("run %s: %s", r.Status, r.Error)
	}
	if len(r.Summary.Queries) != 13 || r.Warmup != 0 {
		t.Fatalf("%d queries, warm-up %s: want 13 queries and no warm-up (the first try is the cold one)", len(r.Summary.Queries), r.Warmup)
	}
	var tries int64
	for _, q := range r.Summary.Queries {
		if len(q.Tries) != 2 || q.Tries[0] == nil || q.Tries[1] == nil {
			t.Errorf("%s: tries %v, error %q", q.Name, q.Tries, q.Error)
		}
		tries += int64(len(q.Tries))
	}
	if r.Summary.Transactions != tries {
		t.Errorf("%d requests recorded for %d tries", r.Summary.Transactions, tries)
	}
	mean, _ := fbresult.QueryGeoMean(r.Summary.Queries)
	if m := r.Headline(); m.Field != fbresult.FieldQueryTimes || m.Value != mean || m.HigherIsBetter {
		t.Errorf("headline %+v, want the geometric mean %v, lower is better", m, mean)
	}
	facts, _ := r.Env.Extra["workload"].(map[string]any)
	if _, ok := facts[queryset.FactDataBytes]; !ok {
		t.Errorf("no data size among the facts %v", facts)
	}
}

func TestRunOnSQLiteReusesItsData(t *testing.T) {
	skipSQLiteUnderRace(t)
	url := "sqlite:" + filepath.Join(t.TempDir(), "ssb.db")
	first, err := runSSB(t, url, "", false)
	if err != nil {
		t.Fatal(err)
	}
	checkQuerySetRun(t, first)
	again, err := runSSB(t, url, "", false)
	if err != nil {
		t.Fatal(err)
	}
	checkQuerySetRun(t, again)
	f1, f2 := first.Env.Extra["workload"].(map[string]any), again.Env.Extra["workload"].(map[string]any)
	if f1[queryset.FactLoadSeconds] == nil || f1[queryset.FactLoadSeconds] != f2[queryset.FactLoadSeconds] {
		t.Errorf("load time %v then %v: the second run must reuse the first load and report its time", f1[queryset.FactLoadSeconds], f2[queryset.FactLoadSeconds])
	}
	if first.Summary.Queries[3].Rows != again.Summary.Queries[3].Rows || first.Summary.Queries[3].Rows == 0 {
		t.Errorf("Q2.1 rows %d then %d", first.Summary.Queries[3].Rows, again.Summary.Queries[3].Rows)
	}
}

// TestForeignTableIsLeftAlone: a lineorder fairbench did not create stops
// the load unless --replace, and survives the refusal.
func TestForeignTableIsLeftAlone(t *testing.T) {
	u := testenv.FreshPostgres(t)
	c := testenv.Connect(t, u, driver.Options{}).(driver.SQL)
	ctx := context.Background()
	if err := c.Exec(ctx, "CREATE TABLE lineorder (theirs int)"); err != nil {
		t.Fatal(err)
	}
	if err := c.Exec(ctx, "INSERT INTO lineorder VALUES (42)"); err != nil {
		t.Fatal(err)
	}
	r, err := runSSB(t, u, "", false)
	if err == nil || !strings.Contains(r.Error, "--replace") {
		t.Fatalf("run over someone else's lineorder: %v / %s", err, r.Error)
	}
	if n, err := c.QueryInt64(ctx, "SELECT theirs FROM lineorder"); err != nil || n != 42 {
		t.Fatalf("their table after the refusal: %d, %v", n, err)
	}
	r, err = runSSB(t, u, "", true)
	if err != nil {
		t.Fatal(err)
	}
	checkQuerySetRun(t, r)
}

// TestClickHouse18RunsTheFlatFormAndCleansUp runs SSB on the test
// ClickHouse 18.16: the flat form, fairbench's marker in ClickHouse, and a
// cleanup that drops fairbench's tables and none other.
func TestClickHouse18RunsTheFlatFormAndCleansUp(t *testing.T) {
	ctx := context.Background()
	u := testenv.FreshClickHouse(t)
	ch := testenv.Connect(t, u, driver.Options{}).(driver.SQL)
	if err := ch.Exec(ctx, "CREATE TABLE theirs (x UInt8) ENGINE = TinyLog"); err != nil {
		t.Fatal(err)
	}
	r, err := runSSB(t, u, "", false)
	if err != nil {
		t.Fatal(err)
	}
	checkQuerySetRun(t, r)
	if facts := r.Env.Extra["workload"].(map[string]any); facts["form"] != "flat" || facts["dialect"] != queryset.ClickHouse18 {
		t.Errorf("facts %v: want the flat form on 18.16", facts)
	}
	again, err := runSSB(t, u, "", false)
	if err != nil {
		t.Fatal(err)
	}
	if again.Env.Extra["workload"].(map[string]any)[queryset.FactLoadSeconds] != r.Env.Extra["workload"].(map[string]any)[queryset.FactLoadSeconds] {
		t.Error("the second run loaded again instead of reusing fairbench's tables")
	}
	w, _ := workload.Get("ssb")
	in, err := w.New(paramsOf(t, w, map[string]any{"scale": 0.01, "seed": int64(136)}))
	if err != nil {
		t.Fatal(err)
	}
	if err := in.(workload.Hooker).Hooks().Cleanup(ctx, ch); err != nil {
		t.Fatal(err)
	}
	n, err := ch.QueryInt64(ctx, "SELECT count(*) FROM system.tables WHERE database = currentDatabase() AND name IN ('lineorder', 'lineorder_flat', 'date', 'theirs')")
	if err != nil || n != 1 {
		t.Errorf("%d of fairbench's tables and theirs left after the cleanup (want theirs only), %v", n, err)
	}
}

func paramsOf(t *testing.T, w workload.Workload, set map[string]any) map[string]any {
	t.Helper()
	v := map[string]any{}
	for _, s := range w.Params() {
		v[s.Name] = s.Default
	}
	for k, x := range set {
		v[k] = x
	}
	return v
}

// TestConcurrentModeCountsQueriesPerSecond: clients draw queries for the
// duration, as clickhouse-benchmark does; the headline is queries/s.
func TestConcurrentModeCountsQueriesPerSecond(t *testing.T) {
	url := testenv.FreshPostgres(t)
	r, err := runSSB(t, url, "mode = \"concurrent\"\nqueries = [\"Q1.1\", \"Q1.2\", \"Q3.4\"]\nclients = [2]\n[study]\nwarmup = \"0s\"\nduration = \"2s\"", false)
	if err != nil {
		t.Fatal(err)
	}
	if r.Status != fbresult.StatusOK || len(r.Summary.Queries) != 0 || len(r.Ops) != 3 || r.Clients != 2 {
		t.Fatalf("status %s, %d query results, %d op types, %d clients", r.Status, len(r.Summary.Queries), len(r.Ops), r.Clients)
	}
	var n int64
	for _, op := range r.Ops {
		if op.Count == 0 {
			t.Errorf("%s never drawn", op.Name)
		}
		n += op.Count
	}
	m := r.Headline()
	if m.Unit != "qps" || !m.HigherIsBetter || m.Value <= 0 || n != r.Summary.Transactions {
		t.Errorf("headline %+v over %d queries", m, n)
	}
}

// TestLoadWorkersLoadTheSameData loads SSB into ClickHouse on one session and
// on three: each part's rows depend on the seed, the scale and the part only,
// so both databases hold the same rows (compared by an order-independent
// checksum of every column).
func TestLoadWorkersLoadTheSameData(t *testing.T) {
	ctx := context.Background()
	sums := map[int]string{}
	for _, workers := range []int{1, 3} {
		u := testenv.FreshClickHouse(t)
		r, err := runSSB(t, u, fmt.Sprintf("queries = [\"Q1.1\"]\nload_workers = %d", workers), false)
		if err != nil {
			t.Fatalf("%d load workers: %v", workers, err)
		}
		if r.Status != fbresult.StatusOK {
			t.Fatalf("%d load workers: run %s: %s", workers, r.Status, r.Error)
		}
		ch := testenv.Connect(t, u, driver.Options{}).(driver.SQL)
		var sum strings.Builder
		for _, table := range []string{ssb.Lineorder, ssb.Flat, ssb.Customer, ssb.Part} {
			cols := ssb.Columns(table)
			if table == ssb.Flat {
				cols = ssb.FlatColumns()
			}
			rows, err := ch.Query(ctx, "SELECT toString(count()), toString(sum(cityHash64("+strings.Join(cols, ", ")+"))) FROM "+table)
			if err != nil {
				t.Fatal(err)
			}
			var n, h string
			for rows.Next() {
				if err := rows.Scan(&n, &h); err != nil {
					t.Fatal(err)
				}
			}
			if err := rows.Close(); err != nil {
				t.Fatal(err)
			}
			if n == "" || n == "0" {
				t.Fatalf("%d load workers: %s has no rows", workers, table)
			}
			fmt.Fprintf(&sum, "%s %s rows, checksum %s; ", table, n, h)
		}
		sums[workers] = sum.String()
	}
	t.Logf("both loaded %s", sums[1])
	if sums[1] != sums[3] {
		t.Errorf("one load worker loaded\n  %s\nthree loaded\n  %s", sums[1], sums[3])
	}
}
