// Package bulkindex holds the search-engine workloads, shaped after
// OpenSearch Benchmark's tasks so that an OSB user reads their numbers as
// OSB's: `bulkindex` indexes a corpus once with _bulk requests of bulk_size
// documents from several clients (OSB's bulk task: index-append, or
// index-update with id conflicts) and reports documents per second with the
// latency and service time of each bulk; `search` runs the http_logs track's
// kinds of queries against an index the first one made. Both speak
// driver.Search and never name an engine.
//
// Decisions where OSB leaves room or differs: a refused item (HTTP 429 from a
// full write queue, or a mapping error) is counted as one failed request of
// its class per document, so that "errors" are documents, as throughput is;
// with retries > 0 the refused items are sent again (after 100 ms, doubling)
// until indexed, each refusal counted; the run ends when the corpus is
// indexed (time_limit caps it), and a refresh and a count check follow.
package bulkindex

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/fairbench/fairbench/internal/driver"
	"github.com/fairbench/fairbench/internal/kinds"
	"github.com/fairbench/fairbench/internal/params"
	"github.com/fairbench/fairbench/internal/params/searchparams"
	"github.com/fairbench/fairbench/internal/result"
	"github.com/fairbench/fairbench/internal/workload"
)

const opBulk = "bulk"

func init() {
	workload.Register(workload.Plugin{
		Workload: Workload{},
		Kind:     kinds.Info{Headline: searchparams.Headline, WorkingSet: workingSet, Summary: printSummary, Sections: sections, DigestSeries: digestSeries},
	})
}

// Workload is the bulkindex kind.
type Workload struct{}

// Kind implements workload.Workload.
func (Workload) Kind() string { return searchparams.Kind }

// Description implements workload.Workload.
func (Workload) Description() string {
	return "OpenSearch Benchmark-style bulk indexing of an NDJSON corpus or generated http_logs documents (documents/s, bulk latency and service time)"
}

// Params implements workload.Workload: OSB's bulk parameters.
func (Workload) Params() []params.Spec { return searchparams.BulkSpecs() }

// Flags implements workload.Flagger: OSB's parameter names.
func (Workload) Flags() []workload.Flag {
	return []workload.Flag{
		{Name: "clients", Shorthand: "c", Field: workload.FieldClients, Default: "8", Usage: "clients, each sending its own _bulk requests (OSB clients)"},
		{Name: "warmup-time-period", Field: workload.FieldWarmup, Default: "0s", Usage: "indexing before the measured phase (OSB warmup-time-period)"},
		{Name: "corpus", Param: searchparams.CorpusFiles},
		{Name: "docs", Param: searchparams.Docs},
		{Name: "seed", Param: searchparams.Seed},
		{Name: "index", Param: searchparams.Index},
		{Name: "mapping", Param: searchparams.Mapping},
		{Name: "bulk-size", Param: searchparams.BulkSize},
		{Name: "shards", Param: searchparams.Shards},
		{Name: "replicas", Param: searchparams.Replicas},
		{Name: "refresh-interval", Param: searchparams.RefreshInterval},
		{Name: "codec", Param: searchparams.Codec},
		{Name: "ingest-percentage", Param: searchparams.IngestPercentage},
		{Name: "mode", Param: searchparams.Mode},
		{Name: "conflict-probability", Param: searchparams.ConflictProbability},
		{Name: "retries", Param: searchparams.Retries},
		{Name: "time-limit", Param: searchparams.TimeLimit},
	}
}

// searchTargets are the URLs of the engines that speak driver.Search.
const searchTargets = "OpenSearch and Elasticsearch: opensearch://HOST:PORT, elasticsearch://HOST:PORT " +
	"(opensearchs://, elasticsearchs:// with TLS, ?ca=FILE for a private CA)"

// CommandLine implements workload.CommandLiner: OSB's parameters as flags;
// OSB's --target-hosts is the --target URL.
func (Workload) CommandLine() workload.CommandLine {
	return workload.CommandLine{
		Targets: searchTargets,
		Examples: []string{
			"fairbench run --workload bulkindex --target opensearch://127.0.0.1:9200 --docs 1000000 -c 8 --bulk-size 5000",
			"fairbench run --workload bulkindex --target opensearch://127.0.0.1:9200 --corpus documents.json --mapping index.json --shards 1 --replicas 0",
			"fairbench run --workload bulkindex --target elasticsearch://127.0.0.1:9200 --mode index-update --conflict-probability 25 --retries 3 --time-limit 10m",
		},
	}
}

func workingSet(v params.Values) (int64, string, bool) {
	if len(v.Strings(searchparams.CorpusFiles)) > 0 {
		return 0, "", false
	}
	docs, ok := v[searchparams.Docs].(int64)
	if !ok {
		return 0, "", false
	}
	// A generated document is about 130 bytes of JSON; indexed with doc
	// values and the inverted index it takes roughly as much again.
	return docs * 260, fmt.Sprintf("%d documents × ~260 B indexed", docs), true
}

// instance is one bulkindex cell.
type instance struct {
	corpus   corpusDef
	bulk     int
	update   bool
	conflict float64
	retries  int
	limit    time.Duration

	src atomic.Pointer[sourceBox]
	// ids hands out index-update's new ids, shared by the clients.
	ids atomic.Int64

	counts
}

type sourceBox struct{ s source }

// New implements workload.Workload.
func (Workload) New(p params.Values) (workload.Instance, error) {
	c, err := newCorpusDef(p)
	if err != nil {
		return nil, err
	}
	b := searchparams.DecodeBulk(p)
	return &instance{corpus: c, bulk: int(b.Size), update: b.Mode == searchparams.ModeUpdate,
		conflict: b.ConflictProbability / 100, retries: int(b.Retries), limit: b.TimeLimit}, nil
}

// Ops implements workload.Instance.
func (in *instance) Ops() []string { return []string{opBulk} }

// Shape implements workload.Shaper: the clients end the run once the
// corpus is indexed, within time_limit; the corpus is shared when several
// load generators index it, and the count check adds their tallies.
func (in *instance) Shape() workload.Shape {
	limit := in.limit
	if limit <= 0 {
		limit = 30 * 24 * time.Hour
	}
	return workload.Shape{End: workload.SelfEnding(limit, ""), Split: in.split, Tallies: in.tallies, AddTallies: in.addTallies}
}

// Hooks implements workload.Hooker. The count check is part of every run, as
// OSB's refresh is part of its schedule.
func (in *instance) Hooks() workload.Hooks {
	return workload.Hooks{BeforeRun: in.beforeRun, Check: in.check, AlwaysCheck: true, Cleanup: in.cleanup, Counts: in.Counts, Describe: in.describe}
}

// Prepare implements workload.Instance: the corpus is checked whole before
// anything is indexed, and the index made afresh (BeforeRun) for each run.
func (in *instance) Prepare(ctx context.Context, env workload.PrepareEnv) error {
	if _, err := searchConn(env.Conn); err != nil {
		return err
	}
	if err := in.corpus.Check(); err != nil {
		return err
	}
	// Refused before a run rather than at it, so that a tool cell (OSB,
	// whose delete-index spares nothing) never gets to an index of another's.
	if err := in.corpus.refuseForeign(ctx, env.Conn); err != nil {
		return err
	}
	if env.Logf != nil {
		env.Logf("bulkindex: %s, %d documents to index in bulks of %d", in.corpus.Describe(), in.corpus.Count(), in.bulk)
	}
	return nil
}

// beforeRun is the BeforeRun hook: OSB's delete-index and
// create-index, on fairbench's own index only, and a fresh corpus reader.
func (in *instance) beforeRun(ctx context.Context, conn driver.Conn) error {
	if err := in.corpus.recreate(ctx, conn); err != nil {
		return err
	}
	if old := in.src.Load(); old != nil {
		closeSource(old.s)
	}
	in.src.Store(&sourceBox{in.corpus.open()})
	in.ids.Store(0)
	in.indexed.Store(0)
	return nil
}

// split is the shape's Split: each load generator indexes its
// share of the corpus, documents in corpus order, so that together they
// index it once. Index-update's ids and conflicts are drawn from one
// sequence, which generators cannot share.
func (in *instance) split(generator, generators int) error {
	if in.update {
		return fmt.Errorf("bulkindex: mode %s on %d load generators: its ids and conflicts come from one sequence the generators cannot share; run it on one generator", searchparams.ModeUpdate, generators)
	}
	first, n := workload.Share(in.corpus.Count(), generators, generator)
	if old := in.src.Load(); old != nil {
		closeSource(old.s)
	}
	in.src.Store(&sourceBox{in.corpus.openShare(first, n)})
	return nil
}

// tallies are the shape's Tallies: what this instance's clients got
// indexed and refused, over the whole run (warm-up included), which the
// count check compares with the index.
func (in *instance) tallies() map[string]int64 {
	return map[string]int64{"indexed": in.indexed.Load(), "refused": in.refusedItems.Load()}
}

// addTallies is the shape's AddTallies.
func (in *instance) addTallies(t map[string]int64) {
	in.indexed.Add(t["indexed"])
	in.refusedItems.Add(t["refused"])
}

// cleanup is the Cleanup hook.
func (in *instance) cleanup(ctx context.Context, conn driver.Conn) error {
	return in.corpus.drop(ctx, conn)
}

// Counts is the Counts hook.
func (in *instance) Counts() map[string]int64 {
	return map[string]int64{
		"refused items":            in.refusedItems.Load(),
		"bulks with refused items": in.failedBulks.Load(),
		"items sent again":         in.retried.Load(),
	}
}

// check is the Check hook: OSB's final refresh, and a count that
// must equal the documents the engine accepted.
func (in *instance) check(ctx context.Context, conn driver.Conn) error {
	if box := in.src.Load(); box != nil {
		closeSource(box.s)
	}
	n, err := in.corpus.count0(ctx, conn)
	if err != nil {
		return err
	}
	want := in.indexed.Load()
	if in.update {
		if in.refusedItems.Load() > 0 {
			return nil // which ids the refused items would have created is not known
		}
		want = in.ids.Load()
	}
	if n != want {
		return fmt.Errorf("index %s holds %d documents after the refresh, but the engine accepted %d", in.corpus.Index, n, want)
	}
	return nil
}

// describe is the Describe hook.
func (in *instance) describe(conn driver.Conn) ([][2]string, []string) {
	facts := [][2]string{{"corpus", in.corpus.Describe()}, {"documents", strconv.FormatInt(in.corpus.Count(), 10)}, {"bulk size", strconv.Itoa(in.bulk)}}
	return facts, nil
}

// NewWorker implements workload.Instance: each call sends one _bulk request
// of the corpus's next documents (and, with retries, its refused items again).
func (in *instance) NewWorker(ctx context.Context, conn driver.Conn) (workload.Op, error) {
	s, err := searchConn(conn)
	if err != nil {
		return nil, err
	}
	b := &batch{}
	if in.update {
		b.action = in.updateAction
	} else {
		b.action = appendAction
	}
	snd := &sender{s: s, conn: conn, index: in.corpus.Index, retries: in.retries, counts: &in.counts}
	return func(ctx context.Context, rng *rand.Rand, req workload.Requests) (int, error) {
		box := in.src.Load()
		b.reset(rng)
		n, err := box.s.next(b, in.bulk)
		if err != nil {
			return 0, err
		}
		if n == 0 {
			return 0, workload.ErrClientDone
		}
		return 0, snd.send(ctx, b, req)
	}, nil
}

// counts are what the senders of one instance count besides the histograms.
type counts struct {
	indexed, refusedItems, failedBulks, retried atomic.Int64
}

// sender sends one client's bulks to one index: the measured worker's and
// the search workload's loader's.
type sender struct {
	s       driver.Search
	conn    driver.Conn
	index   string
	retries int
	counts  *counts
	retry   batch
}

// send sends b, and then its items refused for load (429) again while
// retries allow, recording each request: its accepted items, and one failed
// request per refused item.
func (snd *sender) send(ctx context.Context, b *batch, req workload.Requests) error {
	c := snd.counts
	for try := 0; ; try++ {
		start := time.Now()
		res, err := snd.s.Bulk(ctx, snd.index, b.done(), b.items())
		latency := time.Since(start)
		if err != nil {
			class := snd.conn.Classify(err)
			for range b.items() {
				req.Failed(0, class)
			}
			if class != result.ErrThrottled || try >= snd.retries {
				c.refusedItems.Add(int64(b.items()))
				return err
			}
			c.retried.Add(int64(b.items()))
			if err := backoff(ctx, try); err != nil {
				return err
			}
			continue
		}
		accepted := b.items() - len(res.Failed)
		req.Request(0, latency, int64(accepted), res.Bytes)
		c.indexed.Add(int64(accepted))
		if len(res.Failed) == 0 {
			return nil
		}
		c.failedBulks.Add(1)
		for _, f := range res.Failed {
			req.Failed(0, f.Class)
		}
		again := 0
		if try < snd.retries {
			again = snd.retry.refill(b, res.Failed)
		}
		c.refusedItems.Add(int64(len(res.Failed) - again))
		if again == 0 {
			return nil
		}
		c.retried.Add(int64(again))
		if err := backoff(ctx, try); err != nil {
			return err
		}
		b = &snd.retry
	}
}

// backoff waits before a refused request is sent again: 100 ms, doubling
// up to 5 s, as the engines' own bulk helpers do; the run's stop ends it.
func backoff(ctx context.Context, try int) error {
	d := 100 * time.Millisecond << min(try, 6)
	return workload.Wait(ctx, min(d, 5*time.Second))
}

func searchConn(c driver.Conn) (driver.Search, error) {
	s, ok := c.(driver.Search)
	if !ok {
		return nil, errors.New("this workload needs a search engine (opensearch://, elasticsearch://); this target is not one")
	}
	return s, nil
}

func searchAdmin(c driver.Conn) (driver.SearchAdmin, error) {
	a, ok := c.(driver.SearchAdmin)
	if !ok {
		return nil, errors.New("this target cannot manage indexes")
	}
	return a, nil
}

func closeSource(s source) {
	if f, ok := s.(*fileSource); ok {
		f.close()
	}
}
