package ssb_test

import (
	"context"
	"crypto/sha256"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/fairbench/fairbench/internal/driver"
	_ "github.com/fairbench/fairbench/internal/plugins"
	"github.com/fairbench/fairbench/internal/testenv"
	"github.com/fairbench/fairbench/internal/workload/ssb"
)

const testSF = 0.01

// loadSF is the scale the engine tests load: testSF, or FAIRBENCH_SSB_SF for
// the acceptance run at scale 1 (FAIRBENCH_SSB_SF=1 go test -run
// 'TestQueries(Postgres|ClickHouse18)' -timeout 1h; bench/README.md).
var loadSF = func() float64 {
	if v, err := strconv.ParseFloat(os.Getenv("FAIRBENCH_SSB_SF"), 64); err == nil && v > 0 {
		return v
	}
	return testSF
}()

// load creates the five tables and lineorder_flat in c's dialect, fills them
// from the generator (two chunks per table, to go through the chunked path),
// builds lineorder_flat by the join, and loads the generator's own flat rows
// into flat_gen for comparison.
func load(t *testing.T, c driver.SQL) {
	t.Helper()
	ctx := context.Background()
	bl, ok := c.(driver.BulkLoader)
	if !ok {
		t.Fatalf("%s: no BulkLoader", c.Dialect())
	}
	g := ssb.New(loadSF, testSeed)
	for _, table := range ssb.Tables {
		ddl, err := ssb.CreateTable(c.Dialect(), table)
		if err != nil {
			t.Fatal(err)
		}
		if err := c.Exec(ctx, ddl); err != nil {
			t.Fatalf("%s: %v", ddl, err)
		}
		for _, ch := range g.Chunks(table, 2) {
			if _, err := bl.BulkLoad(ctx, table, ssb.Columns(table), g.Rows(table, ch), false); err != nil {
				t.Fatalf("loading %s: %v", table, err)
			}
		}
	}
	ddl, err := ssb.CreateTable(c.Dialect(), ssb.Flat)
	if err != nil {
		t.Fatal(err)
	}
	for _, stmt := range []string{ddl, strings.Replace(ddl, "TABLE "+ssb.Flat, "TABLE flat_gen", 1), ssb.FlatFromJoin(c.Dialect())} {
		if err := c.Exec(ctx, stmt); err != nil {
			t.Fatalf("%s: %v", stmt, err)
		}
	}
	if _, err := bl.BulkLoad(ctx, "flat_gen", ssb.FlatColumns(), g.FlatRows(ssb.Chunk{Lo: 1, Hi: g.Counts().Orders}), false); err != nil {
		t.Fatal(err)
	}
}

// result runs q and returns its rows, each rendered as text, sorted: the
// engines may order ties differently.
func result(t *testing.T, c driver.SQL, q string) []string {
	t.Helper()
	rows, err := c.Query(context.Background(), q)
	if err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var a, b, c3, d any
		dest := []any{&a, &b, &c3, &d}
		n := selectColumns(q)
		if err := rows.Scan(dest[:n]...); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		var cols []string
		for _, v := range dest[:n] {
			cols = append(cols, render(*(v.(*any))))
		}
		out = append(out, strings.Join(cols, "|"))
	}
	if err := rows.Err(); err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	sort.Strings(out)
	return out
}

// selectColumns counts the columns of q's select list: its commas outside
// parentheses (intDiv(lo_orderdate, 10000) is one column), plus one.
func selectColumns(q string) int {
	list := strings.SplitN(strings.SplitN(q, " FROM ", 2)[0], "SELECT ", 2)[1]
	n, depth := 1, 0
	for _, r := range list {
		switch r {
		case '(':
			depth++
		case ')':
			depth--
		case ',':
			if depth == 0 {
				n++
			}
		}
	}
	return n
}

// render prints a value the same way whatever Go type the engine's driver
// chose for it (int64, a NUMERIC's text or bytes).
func render(v any) string {
	switch x := v.(type) {
	case nil:
		return "NULL"
	case []byte:
		return string(x)
	}
	return fmt.Sprint(v)
}

func checksum(rows []string) string {
	h := sha256.Sum256([]byte(strings.Join(rows, "\n")))
	return fmt.Sprintf("%x", h[:8])
}

// testSeed is the first seed whose SF 0.01 data gives every query rows. At
// SF 0.01 there are 20 suppliers: with about half the seeds none is in the
// UNITED STATES (Q3.2, Q4.3 empty), and the cities of Q3.3 and Q3.4 hold 0.16
// of one supplier on average. Which seeds qualify is fixed by the generator;
// TestSeedQualifies checks this one and, when a change to the generator
// disqualifies it, searches for the next (about a minute).
const testSeed = 136

// qualifies reads seed's flat rows and mirrors the selective queries'
// predicates (Q2.3, Q3.2, Q3.4 — which implies Q3.3 — and Q4.3).
func qualifies(seed uint64) bool {
	col := map[string]int{}
	for i, c := range ssb.FlatColumns() {
		col[c] = i
	}
	g := ssb.New(testSF, seed)
	var q23, q32, q34, q43 bool
	for src := g.FlatRows(ssb.Chunk{Lo: 1, Hi: g.Counts().Orders}); src.Next(); {
		v := src.Values()
		s := func(name string) string { return v[col[name]].(string) }
		date := v[col["lo_orderdate"]].(int64)
		uk := func(city string) bool { return city == "UNITED KI1" || city == "UNITED KI5" }
		q23 = q23 || s("p_brand1") == "MFGR#2239" && s("s_region") == "EUROPE"
		q32 = q32 || s("c_nation") == "UNITED STATES" && s("s_nation") == "UNITED STATES" && date < 19980000
		q34 = q34 || uk(s("c_city")) && uk(s("s_city")) && date/100 == 199712
		q43 = q43 || s("c_region") == "AMERICA" && s("s_nation") == "UNITED STATES" && s("p_category") == "MFGR#14" && date >= 19970000
	}
	return q23 && q32 && q34 && q43
}

func TestSeedQualifies(t *testing.T) {
	if qualifies(testSeed) {
		return
	}
	for seed := uint64(1); seed < 10000; seed++ {
		if qualifies(seed) {
			t.Fatalf("seed %d no longer gives every query rows: set testSeed to %d", testSeed, seed)
		}
	}
	t.Fatalf("seed %d no longer gives every query rows, nor does any seed below 10000", testSeed)
}

// runAll runs every query in both forms and returns each one's checksum.
func runAll(t *testing.T, c driver.SQL) map[string]string {
	t.Helper()
	sums := map[string]string{}
	for _, q := range ssb.Queries {
		join := result(t, c, q.Join[c.Dialect()])
		flat := result(t, c, q.Flat[c.Dialect()])
		if checksum(join) != checksum(flat) {
			t.Errorf("%s: join form %v, flat form %v", q.Name, join, flat)
		}
		switch {
		case strings.HasPrefix(q.Name, "Q1.") && len(join) != 1:
			t.Errorf("%s: %d rows", q.Name, len(join))
		case len(join) == 0:
			t.Errorf("%s: no rows", q.Name)
		case strings.HasPrefix(q.Name, "Q1.") && join[0] == "NULL":
			t.Errorf("%s: no lines selected", q.Name)
		}
		sums[q.Name] = checksum(join)
		t.Logf("%s: %d rows, %s (seed %d)", q.Name, len(join), sums[q.Name], testSeed)
	}
	ctx := context.Background()
	const cols = "lo_orderkey, lo_linenumber, lo_revenue, lo_ordtotalprice, c_city, c_mktsegment, s_city, s_phone, p_name, p_brand1, p_color, p_container"
	a := result(t, c, "SELECT count(*), sum(lo_revenue), sum(lo_ordtotalprice), sum(p_size) FROM "+ssb.Flat)
	b := result(t, c, "SELECT count(*), sum(lo_revenue), sum(lo_ordtotalprice), sum(p_size) FROM flat_gen")
	if checksum(a) != checksum(b) {
		t.Errorf("lineorder_flat by join %v, by FlatRows %v", a, b)
	}
	diff, err := c.QueryInt64(ctx, "SELECT count(*) FROM (SELECT "+cols+" FROM "+ssb.Flat+" EXCEPT SELECT "+cols+" FROM flat_gen) AS d")
	if err != nil || diff != 0 {
		t.Errorf("lineorder_flat by join and by FlatRows differ in %d rows (%v)", diff, err)
	}
	return sums
}

func TestQueriesSQLite(t *testing.T) {
	skipSQLiteUnderRace(t)
	url := "sqlite:" + filepath.Join(t.TempDir(), "ssb.db")
	c := testenv.Connect(t, url, driver.Options{}).(driver.SQL)
	load(t, c)
	runAll(t, c)
}

// TestQueriesPostgres runs the queries on PostgreSQL and checks each one's
// result equals SQLite's (issue 25's acceptance: equal checksums across
// engines).
func TestQueriesPostgres(t *testing.T) {
	skipSQLiteUnderRace(t)
	pg := testenv.Connect(t, testenv.FreshPostgres(t), driver.Options{}).(driver.SQL)
	load(t, pg)
	pgSums := runAll(t, pg)
	lite := testenv.Connect(t, "sqlite:"+filepath.Join(t.TempDir(), "ssb.db"), driver.Options{}).(driver.SQL)
	load(t, lite)
	liteSums := runAll(t, lite)
	for _, q := range ssb.Queries {
		if pgSums[q.Name] != liteSums[q.Name] {
			t.Errorf("%s: PostgreSQL %s, SQLite %s", q.Name, pgSums[q.Name], liteSums[q.Name])
		}
	}
}

// TestQueriesClickHouse18 loads lineorder_flat into the test ClickHouse
// (18.16, which runs no join of several tables: the flat form only) and
// checks each query's result equals SQLite's.
func TestQueriesClickHouse18(t *testing.T) {
	skipSQLiteUnderRace(t)
	ctx := context.Background()
	ch := testenv.Connect(t, testenv.FreshClickHouse(t), driver.Options{}).(driver.SQL)
	ddl, err := ssb.CreateTable(ssb.ClickHouse18, ssb.Flat)
	if err != nil {
		t.Fatal(err)
	}
	if err := ch.Exec(ctx, ddl); err != nil {
		t.Fatalf("%s: %v", ddl, err)
	}
	g := ssb.New(loadSF, testSeed)
	if _, err := ch.(driver.BulkLoader).BulkLoad(ctx, ssb.Flat, ssb.FlatColumns(), g.FlatRows(ssb.Chunk{Lo: 1, Hi: g.Counts().Orders}), false); err != nil {
		t.Fatal(err)
	}
	lite := testenv.Connect(t, "sqlite:"+filepath.Join(t.TempDir(), "ssb.db"), driver.Options{}).(driver.SQL)
	load(t, lite)
	for _, q := range ssb.Queries {
		got := result(t, ch, q.Flat[ssb.ClickHouse18])
		want := result(t, lite, q.Flat[ssb.SQLite])
		if checksum(got) != checksum(want) {
			t.Errorf("%s: ClickHouse 18.16 %v, SQLite %v", q.Name, got, want)
		}
	}
}

// skipSQLiteUnderRace skips a test whose time goes to SQLite's queries
// (single-threaded, no goroutines of fairbench's) in the short run under the
// race detector: the run without it covers them in a tenth of the time.
func skipSQLiteUnderRace(t *testing.T) {
	t.Helper()
	if testenv.RaceDetector && testing.Short() {
		t.Skip("SQLite's SSB queries under the race detector: covered by the run without it")
	}
}
