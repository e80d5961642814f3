package ssb_test

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/fairbench/fairbench/internal/driver"
	"github.com/fairbench/fairbench/internal/params"
	"github.com/fairbench/fairbench/internal/testenv"
	"github.com/fairbench/fairbench/internal/testenv/querycheck"
	"github.com/fairbench/fairbench/internal/workload/queryset"
	"github.com/fairbench/fairbench/internal/workload/ssb"
)

// plan is what the ssb workload sends to a target of dialect d in form,
// at the tests' scale and seed.
func plan(t *testing.T, d, form string) queryset.Plan {
	t.Helper()
	w := ssb.Workload{}
	in, err := w.New(params.WithDefaults(w.Params(), params.Values{"scale": loadSF, "seed": int64(testSeed), "form": form}))
	if err != nil {
		t.Fatal(err)
	}
	p, err := in.(queryset.Planner).Plan(d)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// references runs every query on the engines fairbench has servers of —
// SQLite and PostgreSQL in the join form, ClickHouse 18.16 in the flat
// form — and returns each engine's checksum per query.
func references(t *testing.T) map[string]map[string]string {
	t.Helper()
	ctx := context.Background()
	sums := map[string]map[string]string{}
	run := func(engine string, c driver.SQL, text func(ssb.Query) string) {
		sums[engine] = map[string]string{}
		for _, q := range ssb.Queries {
			rows, err := querycheck.Rows(ctx, c, text(q), querycheck.Width(text(q), 0))
			if err != nil {
				t.Fatalf("%s on %s: %v", q.Name, engine, err)
			}
			sums[engine][q.Name] = querycheck.Checksum(rows)
		}
	}
	lite := testenv.Connect(t, "sqlite:"+filepath.Join(t.TempDir(), "ssb.db"), driver.Options{}).(driver.SQL)
	load(t, lite)
	run("SQLite", lite, func(q ssb.Query) string { return q.Join[ssb.SQLite] })
	pg := testenv.Connect(t, testenv.FreshPostgres(t), driver.Options{}).(driver.SQL)
	load(t, pg)
	run("PostgreSQL", pg, func(q ssb.Query) string { return q.Join[ssb.Postgres] })
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
	run("ClickHouse 18.16", ch, func(q ssb.Query) string { return q.Flat[ssb.ClickHouse18] })
	return sums
}

// TestQueriesChdb is the check of the modern ClickHouse dialect, which the
// test server (18.16) cannot run: every statement the ssb workload sends to
// a current ClickHouse — the six tables' DDL, the loads of the generated
// rows as INSERT … FORMAT TSV, lineorder_flat's fill by the join, the 13
// queries on lineorder_flat and on the star schema — runs on ClickHouse
// 26.9's engine (chdb), and each query's result must equal SQLite's,
// PostgreSQL's and ClickHouse 18.16's on the same generated data.
func TestQueriesChdb(t *testing.T) {
	skipSQLiteUnderRace(t)
	flat := plan(t, ssb.ClickHouse, ssb.FormFlat)
	var joins []queryset.Statement
	for _, s := range queryset.Statements(plan(t, ssb.ClickHouse, ssb.FormJoin), ssb.ClickHouse, false) {
		if s.Kind == queryset.StmtQuery {
			s.Name = "join " + s.Name
			joins = append(joins, s)
		}
	}
	version, outcomes := querycheck.Chdb(t, flat, ssb.ClickHouse, joins...)
	t.Logf("chdb: ClickHouse %s", version)
	refs := references(t)
	queries := 0
	for _, o := range outcomes {
		if o.Error != "" {
			t.Errorf("ClickHouse %s refuses the %s of %s: %s", version, o.Kind, o.Name, o.Error)
			continue
		}
		if o.Kind != queryset.StmtQuery {
			continue
		}
		queries++
		name := o.Name
		if len(name) > 5 && name[:5] == "join " {
			name = name[5:]
		}
		got := querycheck.Checksum(o.Rows)
		for engine, sums := range refs {
			if got != sums[name] {
				t.Errorf("%s: ClickHouse %s %s (%d rows: %v), %s %s", o.Name, version, got, len(o.Rows), o.Rows, engine, sums[name])
			}
		}
		t.Logf("%s: %d rows, %s", o.Name, len(o.Rows), got)
	}
	if want := 2 * len(ssb.Queries); queries != want {
		t.Errorf("chdb answered %d queries, want %d (13 on lineorder_flat, 13 on the star schema)", queries, want)
	}
}
