package ssb

// The ssb workload kind: SSB's tables generated and loaded by fairbench,
// and its 13 queries run through package queryset.

import (
	"context"
	"fmt"
	"math"
	"slices"
	"strconv"

	"github.com/fairbench/fairbench/internal/driver"
	"github.com/fairbench/fairbench/internal/params"
	"github.com/fairbench/fairbench/internal/workload"
	"github.com/fairbench/fairbench/internal/workload/queryset"
)

func init() { queryset.Register(Workload{}, workingSet, whyNoRows, queryset.Report{}) }

// whyNoRows says why SSB's queries found no rows: below scale 1 the
// selective ones (Q1.2, Q3.3, Q3.4, …) filter the few rows away.
func whyNoRows(v params.Values) string {
	sf := v.Float(paramScale)
	if sf <= 0 || sf >= 1 {
		return ""
	}
	return fmt.Sprintf("at scale %g SSB's selective queries find nothing: use scale 1 or more for numbers to publish", sf)
}

// Kind is the ssb workload's kind.
const Kind = "ssb"

// Forms of the queries.
const (
	formAuto = "auto"
	FormJoin = "join"
	FormFlat = "flat"
)

// Workload is the ssb workload kind.
type Workload struct{}

// Kind implements workload.Workload.
func (Workload) Kind() string { return Kind }

// Description implements workload.Workload.
func (Workload) Description() string {
	return "Star Schema Benchmark: dbgen-shaped tables at a scale factor, Q1.1–Q4.3 on the star schema or on lineorder_flat, cold and hot times per query"
}

// maxScale bounds scale: SF 10 000 is 60 billion lineorder rows, some 6 TB
// to load, past what any target of fairbench's loader holds; a typo beyond
// it (1e9) would otherwise show only as a full disk hours later.
const maxScale = 10_000

// maxChunks bounds the load's list of chunks, so that the loader's memory
// is the same at every scale: past it, the chunks grow instead.
const maxChunks = 10_000

// Names of ssb's parameters (queryset's besides), spelled here only.
const (
	paramScale = "scale"
	paramForm  = "form"
	paramSeed  = "seed"
)

// Params implements workload.Workload.
func (Workload) Params() []params.Spec {
	return append([]params.Spec{
		{Name: paramScale, Kind: params.Float, Default: 1.0, Min: params.MinOf(0.001), Max: params.MaxOf(maxScale),
			Help: "scale factor, dbgen's -s: 6 000 000 lineorder rows per unit", Data: true},
		{Name: paramForm, Kind: params.String, Default: formAuto, Choices: []string{formAuto, FormJoin, FormFlat},
			Help: "join: the queries on the star schema; flat: on the denormalised lineorder_flat; auto: flat on ClickHouse (as its documentation runs SSB), join elsewhere"},
		{Name: paramSeed, Kind: params.Int, Default: int64(1), Max: params.MaxOf(math.MaxInt64), Help: "seed of the data generator: the same seed gives the same rows on every engine"},
	}, queryset.Specs()...)
}

// Flags implements workload.Flagger.
func (Workload) Flags() []workload.Flag {
	return append([]workload.Flag{
		{Name: "scale", Shorthand: "s", Param: paramScale, Usage: "scale factor (dbgen -s)"},
		{Name: "form", Param: paramForm},
		{Name: "seed", Param: paramSeed},
	}, queryset.Flags()...)
}

// CommandLine implements workload.CommandLiner: the engines the queries are
// written for (Dialects), as --target URLs.
func (Workload) CommandLine() workload.CommandLine {
	return workload.CommandLine{
		Targets: "clickhouse:// (clickhouses:// with TLS), postgres:// (PostgreSQL), sqlite:FILE",
		Examples: []string{
			"fairbench run --workload ssb --target clickhouse://default@127.0.0.1:9000/default --scale 1 --tries 3",
			"fairbench run --workload ssb --target postgres://bench@127.0.0.1/bench --scale 1 --queries Q1.1,Q2.1,Q3.1 --timeout 2m",
			"fairbench run --workload ssb --target sqlite:ssb.db --scale 0.1 --mode concurrent -c 4 --duration 30s",
		},
	}
}

func queryNames() []string {
	out := make([]string, len(Queries))
	for i, q := range Queries {
		out[i] = q.Name
	}
	return out
}

// workingSet is lineorder's size: about 100 bytes a row in the engines'
// row stores, 6 000 000 rows per scale unit.
func workingSet(v params.Values) (int64, string, bool) {
	sf, ok := v[paramScale].(float64)
	if !ok {
		return 0, "", false
	}
	return int64(sf * 6e6 * 100), fmt.Sprintf("scale %g × ~600 MB of lineorder", sf), true
}

type instance struct {
	*queryset.Set
	scale float64
	seed  uint64
	form  string // as asked
	used  string // as run, known in Prepare
	dial  string
}

// New implements workload.Workload.
func (Workload) New(p params.Values) (workload.Instance, error) {
	set, err := queryset.New(p, queryNames())
	if err != nil {
		return nil, err
	}
	return &instance{Set: set, scale: p.Float(paramScale), seed: uint64(p.Int(paramSeed)), form: p.String(paramForm)}, nil
}

// dataset is what the instance loads on dialect d in form f.
func (in *instance) dataset(d, f string) (queryset.Dataset, error) {
	g := New(in.scale, in.seed)
	workers := in.LoadWorkers()
	if d == SQLite {
		workers = 1 // one writer at a time
	}
	ds := queryset.Dataset{
		Name:    Kind,
		Params:  "scale=" + strconv.FormatFloat(in.scale, 'g', -1, 64) + " seed=" + strconv.FormatUint(in.seed, 10) + " form=" + f,
		Tool:    "ssb-dbgen",
		Wanted:  "scale " + strconv.FormatFloat(in.scale, 'g', -1, 64),
		Workers: workers,
	}
	chunks := func(table string, rows func(Chunk) driver.RowSource) []func(context.Context) (driver.RowSource, error) {
		n := 1
		if table == Lineorder || table == Flat {
			// Chunks of ~100 000 orders: enough to keep every session busy
			// to the end, few enough that each is one large insert.
			n = max(workers, int(min(g.Keys(Lineorder)/100_000, maxChunks)))
		}
		var out []func(context.Context) (driver.RowSource, error)
		for _, c := range g.Chunks(table, n) {
			out = append(out, func(context.Context) (driver.RowSource, error) { return rows(c), nil })
		}
		return out
	}
	for _, t := range Tables {
		ddl, err := CreateTable(d, t)
		if err != nil {
			return ds, err
		}
		ds.Tables = append(ds.Tables, queryset.Table{Name: t, DDL: ddl, Columns: Columns(t),
			Chunks: chunks(t, func(c Chunk) driver.RowSource { return g.Rows(t, c) }), Rows: expectedRows(g, t)})
	}
	if f == FormFlat {
		ddl, err := CreateTable(d, Flat)
		if err != nil {
			return ds, err
		}
		t := queryset.Table{Name: Flat, DDL: ddl, Columns: FlatColumns(), Fill: FlatFromJoin(d)}
		if t.Fill == "" {
			// The engine cannot make it by the join: the generator makes
			// the same rows (TestQueriesSQLite compares both).
			t.Chunks, t.Rows = chunks(Flat, g.FlatRows), expectedRows(g, Flat)
		}
		ds.Tables = append(ds.Tables, t)
	}
	return ds, nil
}

// resolve picks the form the target runs.
func (in *instance) resolve(d string) (string, error) {
	if !slices.Contains(Dialects, d) {
		return "", fmt.Errorf("ssb has no schema for the %s dialect; it runs on %v", d, Dialects)
	}
	switch {
	case in.form == FormJoin && d == ClickHouse18:
		return "", fmt.Errorf("ClickHouse before 19.1 cannot join more than two tables in a query: run SSB's flat form there (form = \"flat\")")
	case in.form != formAuto:
		return in.form, nil
	case d == ClickHouse || d == ClickHouse18:
		return FormFlat, nil
	}
	return FormJoin, nil
}

// Plan implements queryset.Planner: the tables the form resolved for
// dialect d loads, and the queries in d in that form.
func (in *instance) Plan(d string) (queryset.Plan, error) {
	f, err := in.resolve(d)
	if err != nil {
		return queryset.Plan{}, err
	}
	ds, err := in.dataset(d, f)
	if err != nil {
		return queryset.Plan{}, err
	}
	p := queryset.Plan{Dataset: ds}
	for _, name := range in.Names() {
		q, _ := queryNamed(name)
		text := q.Join[d]
		if f == FormFlat {
			text = q.Flat[d]
		}
		p.Queries = append(p.Queries, queryset.Query{Name: name, SQL: text, Skip: "no text in the " + d + " dialect"})
	}
	return p, nil
}

// Prepare implements workload.Instance: it loads the tables the form needs
// and binds the queries in the target's dialect.
func (in *instance) Prepare(ctx context.Context, env workload.PrepareEnv) error {
	d, err := in.Set.Prepare(ctx, env, Kind, func(d string) (queryset.Plan, error) {
		p, err := in.Plan(d)
		if err == nil {
			in.used, _ = in.resolve(d)
		}
		return p, err
	})
	in.dial = d
	return err
}

// Hooks implements workload.Hooker; the query set gives the shape
// (queryset.Set.Shape).
func (in *instance) Hooks() workload.Hooks {
	return workload.Hooks{Describe: in.Describe, Cleanup: in.cleanup}
}

// expectedRows is how many rows the generator makes of table, for the
// load's progress: an order has 1–7 lines, 4 on average.
func expectedRows(g *Generator, table string) int64 {
	if table == Lineorder || table == Flat {
		return 4 * g.Keys(table)
	}
	return g.Keys(table)
}

// Describe is the Describe hook.
func (in *instance) Describe(driver.Conn) ([][2]string, []string) {
	facts := append([][2]string{{"scale factor", strconv.FormatFloat(in.scale, 'g', -1, 64)}, {"form", in.used}, {"dialect", in.dial}}, in.Set.Describe()...)
	devs := []string{"rows come from fairbench's generator, with ssb-dbgen's row counts and value domains but not its random streams"}
	if in.dial == ClickHouse18 {
		devs = append(devs, "ClickHouse 18.16 joins at most two tables per query: the queries run on lineorder_flat, which the generator fills")
	}
	return facts, devs
}

// cleanup is the Cleanup hook: only tables fairbench loaded (the
// flat form's dataset names every table either form loads).
func (in *instance) cleanup(ctx context.Context, conn driver.Conn) error {
	return queryset.Cleanup(ctx, conn, Kind, func(d string) (queryset.Dataset, error) { return in.dataset(d, FormFlat) })
}
