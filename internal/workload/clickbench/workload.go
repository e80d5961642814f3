package clickbench

// The clickbench workload kind: the hits table loaded from ClickBench's own
// files or made synthetic, and its 43 queries run through package queryset
// the way ClickBench's run.sh runs them.

import (
	"context"
	"fmt"
	"math"
	"net/url"
	"slices"
	"strconv"

	"github.com/fairbench/fairbench/internal/boundfile"
	"github.com/fairbench/fairbench/internal/driver"
	"github.com/fairbench/fairbench/internal/params"
	"github.com/fairbench/fairbench/internal/workload"
	"github.com/fairbench/fairbench/internal/workload/queryset"
)

func init() {
	queryset.Register(Workload{}, workingSet, whyNoRows, queryset.Report{ClickBenchScore: true})
}

// whyNoRows says why ClickBench's queries found no rows: synthetic rows,
// too few of them to match the selective filters (URL LIKE '%google%',
// the counter ids of the dashboard queries).
func whyNoRows(v params.Values) string {
	if v.String(paramSource) != "" {
		return ""
	}
	return fmt.Sprintf("%d synthetic rows match none of their filters: load ClickBench's hits file (--source) for numbers to publish", v.Int(paramRows))
}

// Kind is the clickbench workload's kind.
const Kind = "clickbench"

// Workload is the clickbench workload kind.
type Workload struct{}

// Kind implements workload.Workload.
func (Workload) Kind() string { return Kind }

// Description implements workload.Workload.
func (Workload) Description() string {
	return "ClickBench: the hits table (ClickBench's TSV/CSV/Parquet files, or synthetic rows) and its 43 queries, three tries each, cold and hot times, ClickBench's result file"
}

// maxRows bounds rows: 100 billion synthetic rows is a thousand times
// ClickBench's hits table, some 10 TB to load; a typo beyond it would
// otherwise show only as a full disk hours later.
const maxRows = 100_000_000_000

// maxChunks bounds the load's list of chunks, so that the loader's memory
// is the same for any number of rows: past it, the chunks grow instead.
const maxChunks = 10_000

// Names of clickbench's parameters (queryset's besides), spelled here only.
const (
	paramSource = "source"
	paramRows   = "rows"
	paramSeed   = "seed"
)

// Params implements workload.Workload.
func (Workload) Params() []params.Spec {
	return append([]params.Spec{
		{Name: paramSource, Kind: params.String, Default: "",
			Help: "ClickBench's dataset: a path or http(s) URL of hits.tsv, hits.csv or hits.parquet (.gz for TSV and CSV); empty: synthetic rows (not comparable with published results)"},
		{Name: paramRows, Kind: params.Int, Default: int64(1_000_000), Min: params.MinOf(1), Max: params.MaxOf(maxRows),
			Help: "rows of the synthetic hits table (without a source); ClickBench's has 99 997 497"},
		{Name: paramSeed, Kind: params.Int, Default: int64(1), Max: params.MaxOf(math.MaxInt64), Help: "seed of the synthetic rows: the same seed gives the same rows on every engine"},
	}, queryset.Specs()...)
}

// Flags implements workload.Flagger.
func (Workload) Flags() []workload.Flag {
	return append([]workload.Flag{
		{Name: "source", Param: paramSource},
		{Name: "rows", Param: paramRows},
		{Name: "seed", Param: paramSeed},
	}, queryset.Flags()...)
}

// CommandLine implements workload.CommandLiner: the engines the queries are
// written for (dialects), as --target URLs.
func (Workload) CommandLine() workload.CommandLine {
	return workload.CommandLine{
		Targets: "clickhouse:// (clickhouses:// with TLS), postgres:// (PostgreSQL), sqlite:FILE",
		Examples: []string{
			"fairbench run --workload clickbench --target clickhouse://default@127.0.0.1:9000/default --rows 10000000 --tries 3",
			"fairbench run --workload clickbench --target postgres://bench@127.0.0.1/bench --queries Q0,Q1,Q2 --timeout 5m",
			"fairbench run --workload clickbench --target sqlite:hits.db --mode concurrent -c 4 --duration 30s",
		},
	}
}

// workingSet: about 700 bytes a row in a row store (ClickBench's 99 997 497
// rows take 70–80 GB in PostgreSQL), a tenth of that compressed in a column
// store; the estimate takes the row store's.
func workingSet(v params.Values) (int64, string, bool) {
	if v.String(paramSource) != "" {
		return 100_000_000 * 700, "ClickBench's hits, ~70 GB in a row store", true
	}
	n, ok := v[paramRows].(int64)
	if !ok {
		return 0, "", false
	}
	return n * 700, fmt.Sprintf("%d synthetic rows × ~700 B", n), true
}

type instance struct {
	*queryset.Set
	source string // as given: a path or URL
	rows   int64
	seed   uint64
	dial   string
}

func queryNames() []string {
	out := make([]string, len(Queries))
	for i, q := range Queries {
		out[i] = q.Name
	}
	return out
}

// New implements workload.Workload. A local source that is not there is an
// error now, before any connection.
func (Workload) New(p params.Values) (workload.Instance, error) {
	set, err := queryset.New(p, queryNames())
	if err != nil {
		return nil, err
	}
	in := &instance{Set: set, source: p.String(paramSource), rows: p.Int(paramRows), seed: uint64(p.Int(paramSeed))}
	if in.source != "" && !remote(in.source) {
		f, err := boundfile.Open(in.source) // streamed when loaded: its size is its own
		if err != nil {
			return nil, fmt.Errorf("source: %w: give the path of ClickBench's hits.tsv, hits.csv or hits.parquet, or an http(s) URL", err)
		}
		f.Close()
	}
	return in, nil
}

func remote(s string) bool {
	u, err := url.Parse(s)
	return err == nil && (u.Scheme == "http" || u.Scheme == "https")
}

// sourceName is the source without credentials or query, for the marker
// and the facts.
func (in *instance) sourceName() string {
	if !remote(in.source) {
		return in.source
	}
	u, _ := url.Parse(in.source)
	u.User, u.RawQuery, u.Fragment = nil, "", ""
	return u.String()
}

// dataset is the hits table in dialect d.
func (in *instance) dataset(d string) (queryset.Dataset, error) {
	if !slices.Contains(dialects, d) {
		return queryset.Dataset{}, fmt.Errorf("clickbench has no queries for the %s dialect; it runs on %v", d, dialects)
	}
	ddl, err := CreateTable(d)
	if err != nil {
		return queryset.Dataset{}, err
	}
	workers := in.LoadWorkers()
	if d == SQLite {
		workers = 1 // one writer at a time
	}
	ds := queryset.Dataset{Name: Kind, Tool: "ClickBench's load script", Workers: workers}
	t := queryset.Table{Name: Table, DDL: ddl, Columns: LoadColumns(d)}
	if in.source != "" {
		ds.Params, ds.Wanted = "source="+in.sourceName(), in.sourceName()
		// One stream: a file is read in order, on one session.
		t.Chunks = []func(context.Context) (driver.RowSource, error){func(ctx context.Context) (driver.RowSource, error) {
			return OpenSource(ctx, in.source)
		}}
	} else {
		ds.Params = "synthetic rows=" + strconv.FormatInt(in.rows, 10) + " seed=" + strconv.FormatUint(in.seed, 10)
		ds.Wanted = fmt.Sprintf("%d synthetic rows", in.rows)
		g := NewSynthetic(in.rows, in.seed)
		t.Rows = in.rows
		// Chunks of ~200 000 rows keep every session busy to the end.
		for _, c := range g.Chunks(max(workers, int(min(in.rows/200_000, maxChunks)))) {
			t.Chunks = append(t.Chunks, func(context.Context) (driver.RowSource, error) { return g.Rows(c), nil })
		}
	}
	ds.Tables = []queryset.Table{t}
	return ds, nil
}

// Plan implements queryset.Planner: hits and the queries in dialect d.
func (in *instance) Plan(d string) (queryset.Plan, error) {
	ds, err := in.dataset(d)
	if err != nil {
		return queryset.Plan{}, err
	}
	p := queryset.Plan{Dataset: ds}
	if in.source == "" {
		p.Facts = [][2]string{{queryset.FactSynthetic, fmt.Sprintf("%d rows, seed %d", in.rows, in.seed)}}
	} else {
		p.Facts = [][2]string{{"source", in.sourceName()}}
	}
	for _, name := range in.Names() {
		q, _ := queryNamed(name)
		p.Queries = append(p.Queries, queryset.Query{Name: name, SQL: q.SQL[d], Skip: "no text for the " + d + " dialect"})
	}
	return p, nil
}

// Prepare implements workload.Instance: it loads hits and binds the
// queries in the target's dialect.
func (in *instance) Prepare(ctx context.Context, env workload.PrepareEnv) error {
	d, err := in.Set.Prepare(ctx, env, Kind, in.Plan)
	in.dial = d
	return err
}

// Hooks implements workload.Hooker; the query set gives the shape
// (queryset.Set.Shape).
func (in *instance) Hooks() workload.Hooks {
	return workload.Hooks{Describe: in.Describe, Cleanup: in.cleanup}
}

// Describe is the Describe hook.
func (in *instance) Describe(driver.Conn) ([][2]string, []string) {
	facts := append([][2]string{{"dialect", in.dial}}, in.Set.Describe()...)
	var devs []string
	if in.source == "" {
		devs = append(devs, fmt.Sprintf("synthetic hits (%d rows, seed %d), not ClickBench's dataset: the times are not comparable with ClickBench's published results", in.rows, in.seed))
	}
	if d := tableDeviations[in.dial]; d != "" {
		devs = append(devs, "hits: "+d)
	}
	for _, name := range in.Names() {
		q, _ := queryNamed(name)
		if d := q.Deviations[in.dial]; d != "" {
			devs = append(devs, name+": "+d)
		}
	}
	return facts, devs
}

// cleanup is the Cleanup hook: only a hits table fairbench loaded.
func (in *instance) cleanup(ctx context.Context, conn driver.Conn) error {
	return queryset.Cleanup(ctx, conn, Kind, in.dataset)
}
