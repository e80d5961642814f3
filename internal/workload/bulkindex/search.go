package bulkindex

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/fairbench/fairbench/internal/driver"
	"github.com/fairbench/fairbench/internal/kinds"
	"github.com/fairbench/fairbench/internal/params"
	"github.com/fairbench/fairbench/internal/params/searchparams"
	"github.com/fairbench/fairbench/internal/result"
	"github.com/fairbench/fairbench/internal/workload"
	"golang.org/x/sync/errgroup"
)

// The search workload's own parameters, beside the corpus's.
const (
	paramOperations = "operations"
	paramQuery      = "query"
)

// searchKind is the search workload's kind.
const searchKind = "search"

func init() {
	workload.Register(workload.Plugin{Workload: searchWorkload{}, Kind: kinds.Info{Sections: sections, DigestSeries: digestSeries}})
}

// searchWorkload runs the http_logs track's kinds of queries against an
// index of the corpus, which it loads first when fairbench's index of that
// corpus is not there already.
type searchWorkload struct{}

// Kind implements workload.Workload.
func (searchWorkload) Kind() string { return searchKind }

// Description implements workload.Workload.
func (searchWorkload) Description() string {
	return "OpenSearch Benchmark http_logs-style searches (match-all, term, range, date-histogram) with per-operation latency"
}

// searches are the operations, as the http_logs track words them, over the
// generated documents' fields.
var searches = []struct{ name, body string }{
	{"match-all", `{"query":{"match_all":{}}}`},
	{"term", `{"query":{"term":{"request.raw":{"value":"GET /english/index.html HTTP/1.0"}}}}`},
	{"range", `{"query":{"range":{"@timestamp":{"gte":"1998-05-01T00:00:00Z","lt":"1998-05-01T06:00:00Z"}}}}`},
	{"date-histogram", `{"size":0,"aggs":{"by_hour":{"date_histogram":{"field":"@timestamp","calendar_interval":"hour"}}}}`},
}

func searchNames() []string {
	out := make([]string, len(searches))
	for i, s := range searches {
		out[i] = s.name
	}
	return out
}

// Params implements workload.Workload.
func (searchWorkload) Params() []params.Spec {
	return append(searchparams.CorpusSpecs(),
		params.Spec{Name: paramOperations, Kind: params.StringList, Default: searchNames(),
			Help: "the searches, each client drawing one at random per request: match-all, term, range, date-histogram"},
		params.Spec{Name: paramQuery, Kind: params.String, Default: "", Help: "a file with one search body of your own, run as the operation \"query\" instead"},
	)
}

// Flags implements workload.Flagger: OSB's schedule names (time-period,
// warmup-time-period, target-throughput), and fairbench's --duration.
func (searchWorkload) Flags() []workload.Flag {
	return []workload.Flag{
		{Name: "clients", Shorthand: "c", Field: workload.FieldClients, Default: "1", Usage: "clients, each sending one search at a time (OSB clients)"},
		// The flag with the default comes before its synonym: a synonym given
		// overrides the default it sets.
		{Name: "time-period", Field: workload.FieldDuration, Default: "60s", Usage: "measured duration (\"30s\", \"2m\" or seconds; OSB time-period)"},
		{Name: "duration", Field: workload.FieldDuration, Usage: "same as --time-period (fairbench's --duration)"},
		{Name: "warmup-time-period", Field: workload.FieldWarmup, Default: "0s", Usage: "searching before the measured phase, excluded from every number (OSB warmup-time-period)"},
		{Name: "target-throughput", Field: workload.FieldRate, Usage: "searches per second over all clients, scheduled without coordinated omission (OSB target-throughput)"},
		{Name: "corpus", Param: searchparams.CorpusFiles},
		{Name: "docs", Param: searchparams.Docs},
		{Name: "seed", Param: searchparams.Seed},
		{Name: "index", Param: searchparams.Index},
		{Name: "mapping", Param: searchparams.Mapping},
		{Name: "shards", Param: searchparams.Shards},
		{Name: "replicas", Param: searchparams.Replicas},
		{Name: "operations", Param: paramOperations},
		{Name: "query", Param: paramQuery},
	}
}

// CommandLine implements workload.CommandLiner: OSB's schedule as flags;
// OSB's --target-hosts is the --target URL.
func (searchWorkload) CommandLine() workload.CommandLine {
	return workload.CommandLine{
		Targets: searchTargets,
		Examples: []string{
			"fairbench run --workload search --target opensearch://127.0.0.1:9200 --docs 1000000 -c 4 --duration 60s",
			"fairbench run --workload search --target opensearch://127.0.0.1:9200 --operations term,range -c 8 --target-throughput 200 --time-period 5m --warmup-time-period 30s",
			"fairbench run --workload search --target elasticsearch://127.0.0.1:9200 --query query.json -c 2 --duration 30s",
		},
	}
}

type searchInstance struct {
	corpus corpusDef
	names  []string
	bodies [][]byte
}

// New implements workload.Workload.
func (searchWorkload) New(p params.Values) (workload.Instance, error) {
	c, err := newCorpusDef(p)
	if err != nil {
		return nil, err
	}
	in := &searchInstance{corpus: c}
	if q := p.String(paramQuery); q != "" {
		m, err := searchparams.ReadJSONFile(q)
		if err != nil {
			return nil, fmt.Errorf("query: %w", err)
		}
		b, err := json.Marshal(m)
		if err != nil {
			return nil, fmt.Errorf("query: %w", err)
		}
		in.names, in.bodies = []string{"query"}, [][]byte{b}
		return in, nil
	}
	for _, name := range p.Strings(paramOperations) {
		found := false
		for _, s := range searches {
			if s.name == name {
				in.names, in.bodies, found = append(in.names, name), append(in.bodies, []byte(s.body)), true
			}
		}
		if !found {
			return nil, fmt.Errorf("operations: unknown search %q: choose among %v, or give your own with query", name, searchNames())
		}
	}
	if len(in.names) == 0 {
		return nil, fmt.Errorf("operations: name at least one of %v", searchNames())
	}
	return in, nil
}

// Ops implements workload.Instance.
func (in *searchInstance) Ops() []string { return in.names }

// Prepare implements workload.Instance: fairbench's index of the corpus is
// reused when complete, and made and loaded otherwise.
func (in *searchInstance) Prepare(ctx context.Context, env workload.PrepareEnv) error {
	if _, err := searchConn(env.Conn); err != nil {
		return err
	}
	if err := in.corpus.Check(); err != nil {
		return err
	}
	ok, err := in.corpus.reusable(ctx, env.Conn)
	if err != nil {
		return err
	}
	logf := env.Logf
	if logf == nil {
		logf = func(string, ...any) {}
	}
	if ok {
		logf("search: reusing index %s (%d documents of %s)", in.corpus.Index, in.corpus.Count(), in.corpus.Describe())
		return nil
	}
	return in.corpus.load(ctx, env, logf)
}

// Hooks implements workload.Hooker.
func (in *searchInstance) Hooks() workload.Hooks { return workload.Hooks{Cleanup: in.cleanup} }

// cleanup is the Cleanup hook.
func (in *searchInstance) cleanup(ctx context.Context, conn driver.Conn) error {
	return in.corpus.drop(ctx, conn)
}

// NewWorker implements workload.Instance: one search per call; the runner
// times it.
func (in *searchInstance) NewWorker(ctx context.Context, conn driver.Conn) (workload.Op, error) {
	s, err := searchConn(conn)
	if err != nil {
		return nil, err
	}
	return func(ctx context.Context, rng *rand.Rand, _ workload.Requests) (int, error) {
		op := 0
		if len(in.bodies) > 1 {
			op = rng.IntN(len(in.bodies))
		}
		_, err := s.Query(ctx, in.corpus.Index, in.bodies[op])
		return op, err
	}, nil
}

// loaders is how many sessions load an index outside a measured run.
const loaders = 4

// load makes the index afresh and indexes the whole corpus into it on
// several sessions, sending refused items again until they are indexed.
func (c *corpusDef) load(ctx context.Context, env workload.PrepareEnv, logf func(string, ...any)) error {
	if err := c.recreate(ctx, env.Conn); err != nil {
		return err
	}
	src := c.open()
	defer closeSource(src)
	var cnt counts
	start := time.Now()
	task := env.Progress.Start("search: indexing "+c.Index, c.Count(), "documents")
	defer task.End()
	g, gctx := errgroup.WithContext(ctx)
	for range loaders {
		g.Go(func() error {
			conn, err := env.Open(gctx)
			if err != nil {
				return err
			}
			defer conn.Close(context.WithoutCancel(gctx))
			s, err := searchConn(conn)
			if err != nil {
				return err
			}
			snd := &sender{s: s, conn: conn, index: c.Index, retries: 20, counts: &cnt}
			b := &batch{action: appendAction}
			rng := rand.New(rand.NewPCG(1, 2))
			for {
				b.reset(rng)
				n, err := src.next(b, 5000)
				if err != nil || n == 0 {
					return err
				}
				if err := snd.send(gctx, b, discard{}); err != nil {
					return err
				}
				task.Add(int64(n))
			}
		})
	}
	if err := g.Wait(); err != nil {
		return fmt.Errorf("loading index %s: %w", c.Index, err)
	}
	if n := cnt.refusedItems.Load(); n > 0 {
		return fmt.Errorf("loading index %s: the engine refused %d documents (%s)", c.Index, n, "see its log; a corpus document that does not fit the mapping is refused every time")
	}
	n, err := c.count0(ctx, env.Conn)
	if err != nil {
		return err
	}
	if n != c.Count() {
		return fmt.Errorf("loading index %s: it holds %d documents, %d were sent", c.Index, n, c.Count())
	}
	logf("search: loaded %d documents into %s in %.1f s", n, c.Index, time.Since(start).Seconds())
	return nil
}

// discard records nothing: loading outside a measured run.
type discard struct{}

func (discard) Request(int, time.Duration, int64, int64) {}
func (discard) Failed(int, result.ErrorClass)            {}
