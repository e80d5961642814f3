// Package queryset runs a fixed set of analytical queries the two ways
// analytical benchmarks do. In the tries mode (ClickBench's run.sh, SSB
// studies) one client runs each query a number of times in a row: the first
// try is the cold one, the best of the others the hot one, and the run's one
// number is the geometric mean of the hot times. In the concurrent mode
// (clickhouse-benchmark) clients draw queries from the set for a duration,
// and the run counts queries per second and their latency percentiles.
//
// The SSB and ClickBench workloads are built on it: they load their data and
// hand it their queries for the target's dialect; this package knows neither.
package queryset

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/fairbench/fairbench/internal/driver"
	"github.com/fairbench/fairbench/internal/params"
	"github.com/fairbench/fairbench/internal/redact"
	"github.com/fairbench/fairbench/internal/result"
	"github.com/fairbench/fairbench/internal/workload"
)

// Modes.
const (
	modeTries      = "tries"
	modeConcurrent = "concurrent"
)

// Names of the parameters every query-set workload takes, spelled here only.
const (
	paramMode    = "mode"
	paramTries   = "tries"
	paramQueries = "queries"
	paramTimeout = "timeout"
	// paramLoadWorkers is the number of sessions loading the data's parts
	// at once, each generating its own parts (a part's rows depend on the
	// seed, the size and the part only, so the data is the same for any
	// number).
	paramLoadWorkers = "load_workers"
)

// maxLoadWorkers bounds load_workers: each session holds a batch of rows in
// memory (see the driver's BulkLoad), so a typo (1e12) must not become a
// thousand batches.
const maxLoadWorkers = 1024

// Specs are the parameters every query-set workload takes, beside its own.
func Specs() []params.Spec {
	return []params.Spec{
		{Name: paramMode, Kind: params.String, Default: modeTries, Choices: []string{modeTries, modeConcurrent},
			Help: "tries: one client runs each query `tries` times in a row (ClickBench's run.sh); concurrent: the clients draw queries from the set for the duration (clickhouse-benchmark)"},
		{Name: paramTries, Kind: params.Int, Default: int64(3), Min: params.MinOf(1), Max: params.MaxOf(1000),
			Help: "times each query runs in a row in the tries mode; the first try is the cold one, the best of the others the hot one"},
		{Name: paramQueries, Kind: params.StringList, Default: []string{},
			Help: "the queries to run, by name; empty: the whole set"},
		{Name: paramTimeout, Kind: params.Duration, Default: 10 * time.Minute,
			Help: "longest a query may take; a try that times out is recorded as null with the reason, and the run goes on (0: no limit)"},
		{Name: paramLoadWorkers, Kind: params.Int, Default: int64(min(runtime.GOMAXPROCS(0), maxLoadWorkers)), Min: params.MinOf(1), Max: params.MaxOf(maxLoadWorkers),
			Help: "sessions loading the generated data at once, each generating its own parts (default: GOMAXPROCS); the rows are the same for any number; an embedded single-writer engine (SQLite) loads on one"},
	}
}

// Flags are the ad-hoc flags of the query-set parameters and of the cell
// fields a query-set run uses, spelled as clickhouse-benchmark spells them
// where it has them.
func Flags() []workload.Flag {
	return []workload.Flag{
		{Name: "tries", Param: paramTries},
		{Name: "queries", Param: paramQueries, Usage: "the queries to run, comma-separated names (Q1.1,Q2.1); default: all"},
		{Name: "timeout", Param: paramTimeout},
		{Name: "load-workers", Param: paramLoadWorkers},
		{Name: "mode", Param: paramMode},
		{Name: "concurrency", Shorthand: "c", Field: workload.FieldClients, Default: "1",
			Usage: "clients in the concurrent mode, one session each (clickhouse-benchmark -c)"},
		{Name: "duration", Field: workload.FieldDuration, Default: "60s", Usage: "measured time of the concurrent mode; the tries mode runs its set to the end"},
	}
}

// Query is one query of a set as the target runs it.
type Query struct {
	Name string
	// SQL is the text for the target's dialect; "" when the query cannot run
	// there, and Skip says why.
	SQL  string
	Skip string
}

// Set is the query-set mechanism of one workload instance: its operations,
// workers and results. A workload embeds it and calls Bind in Prepare.
type Set struct {
	mode    string
	tries   int
	timeout time.Duration
	names   []string // every query of the instance, in order: its op types
	// loadWorkers is the load's number of sessions (load_workers).
	loadWorkers int

	mu      sync.Mutex
	queries []Query // bound in Prepare
	results []result.QueryResult
	// next is the tries mode's position in queries × tries. It belongs to
	// the set, not to a worker, so that a worker made again after a lost
	// connection goes on where the last one stopped.
	next atomic.Int64
	// The tries mode's dead time (Stalls): failingSince is the start of the
	// first failed try since the last success (zero when none failed since),
	// lastEnd the end of the last try.
	stalls                []workload.Stall
	failingSince, lastEnd time.Time
	// facts of the dataset (facts), for Describe.
	facts [][2]string
	// cold, when set, makes each query's first try a true cold one
	// (UseCold); coldErr is why it failed, which ends the set.
	cold     workload.Cold
	coldMost time.Duration // the longest one call of cold may take
	coldErr  error
}

// coldFailed says whether making a try cold failed, which ends the set.
func (s *Set) coldFailed() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.coldErr != nil
}

// UseCold implements workload.ColdTrier: in the tries mode, cold runs
// before each query's first try, as ClickBench's run scripts restart the
// server and drop the caches before each query's first of its tries.
func (s *Set) UseCold(cold workload.Cold, most time.Duration) bool {
	if !s.finite() {
		return false
	}
	s.cold, s.coldMost = cold, most
	return true
}

// setFacts records the dataset's facts for the run's description.
func (s *Set) setFacts(f [][2]string) { s.facts = f }

// New makes a set from the query-set parameters p and the names of the
// workload's queries in order. The queries parameter selects some of them,
// in the workload's order; an unknown name is an error that lists the set.
func New(p params.Values, all []string) (*Set, error) {
	names := all
	if want := p.Strings(paramQueries); len(want) > 0 {
		names = nil
		for _, w := range want {
			if !slices.Contains(all, w) {
				return nil, fmt.Errorf("%s: no query %q in this set; it has %s", paramQueries, w, strings.Join(all, ", "))
			}
		}
		for _, n := range all {
			if slices.Contains(want, n) {
				names = append(names, n)
			}
		}
	}
	return &Set{mode: p.String(paramMode), tries: int(p.Int(paramTries)), timeout: p.Duration(paramTimeout), names: names,
		loadWorkers: int(p.Int(paramLoadWorkers))}, nil
}

// LoadWorkers is the number of sessions that load the data at once
// (load_workers).
func (s *Set) LoadWorkers() int { return s.loadWorkers }

// Names are the instance's queries in order.
func (s *Set) Names() []string { return s.names }

// Ops implements workload.Instance: one op type per query.
func (s *Set) Ops() []string { return s.names }

// Bind gives the set its queries for the target, one per name in order,
// and starts its results afresh. A query without SQL is recorded with null
// tries and its Skip reason and never sent.
func (s *Set) Bind(queries []Query) error {
	if len(queries) != len(s.names) {
		return fmt.Errorf("query set: %d queries bound to %d names", len(queries), len(s.names))
	}
	runnable := 0
	for i, q := range queries {
		if q.Name != s.names[i] {
			return fmt.Errorf("query set: query %s bound in the place of %s", q.Name, s.names[i])
		}
		if q.SQL != "" {
			runnable++
		}
	}
	if runnable == 0 {
		return fmt.Errorf("none of the queries %s can run on this target: %s", strings.Join(s.names, ", "), queries[0].Skip)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.queries = queries
	s.reset()
	return nil
}

// reset starts the results of a run; s.mu is held.
func (s *Set) reset() {
	s.results = make([]result.QueryResult, len(s.queries))
	for i, q := range s.queries {
		s.results[i] = result.QueryResult{Name: q.Name, Tries: make([]*float64, s.tries)}
		if q.SQL == "" {
			s.results[i].Error = "not run: " + q.Skip
		}
	}
	s.next.Store(0)
	s.stalls, s.failingSince, s.lastEnd = nil, time.Time{}, time.Time{}
	s.coldErr = nil
}

// Shape implements workload.Shaper: the tries mode is a finite set, with
// its tries as results and its stalls as dead time; the concurrent mode
// loops over the queries for the cell's duration. Either has its own
// headline.
func (s *Set) Shape() workload.Shape {
	h := s.headline()
	sh := workload.Shape{Results: s.runResults, Headline: &h}
	if s.finite() {
		sh.End, sh.Stalls = workload.Tries(s.bound()), s.runStalls
	}
	return sh
}

// finite: the tries mode runs its set once.
func (s *Set) finite() bool { return s.mode == modeTries }

// bound is the finite set's bound on its run: every try may take the
// timeout, and the bound must never end a run whose queries are all within it.
func (s *Set) bound() time.Duration {
	if s.timeout <= 0 {
		return 30 * 24 * time.Hour
	}
	return time.Duration(len(s.names)*s.tries+1)*(s.timeout+time.Second) + time.Duration(len(s.names))*s.coldMost
}

// runResults are the tries of the run, in the tries mode; nil in the
// concurrent mode, whose per-query figures are the op types' histograms.
func (s *Set) runResults() []result.QueryResult {
	if !s.finite() {
		return nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	out := slices.Clone(s.results)
	for i := range out {
		out[i].Tries = slices.Clone(out[i].Tries)
	}
	return out
}

// runStalls are, in the tries mode, the stretches in which tries failed and
// none succeeded. A try that ran into the set's own
// timeout starts none: the timeout is the set's bound on a query, its null a
// result (ClickBench's), and the engine was busy with it, not gone.
func (s *Set) runStalls() []workload.Stall {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := slices.Clone(s.stalls)
	if !s.failingSince.IsZero() {
		out = append(out, workload.Stall{From: s.failingSince, To: s.lastEnd})
	}
	return out
}

// noteTry keeps the dead-time account of a try that started at start and
// ended now with err; s.mu is held.
func (s *Set) noteTry(start time.Time, err error) {
	s.lastEnd = time.Now()
	switch {
	case err == nil && !s.failingSince.IsZero():
		s.stalls = append(s.stalls, workload.Stall{From: s.failingSince, To: start})
		s.failingSince = time.Time{}
	case err != nil && s.failingSince.IsZero() && !errors.As(err, new(timedOut)):
		s.failingSince = start
	}
}

// headline: the concurrent mode's number is queries per second; the tries
// mode keeps its kind's geometric mean.
func (s *Set) headline() result.Headline {
	if s.finite() {
		return geoMeanHeadline
	}
	return result.Headline{Name: "queries/s", Unit: "qps", HigherIsBetter: true, Field: result.FieldRequests}
}

// geoMeanHeadline is the headline of query-set kinds: the geometric mean of
// the hot times, in seconds, lower is better.
var geoMeanHeadline = result.Headline{Name: "geometric mean", Unit: "s", Field: result.FieldQueryTimes}

// Describe gives the facts of the run's method for the run summary.
func (s *Set) Describe() [][2]string {
	facts := [][2]string{{"mode", s.mode}, {"queries", strconv.Itoa(len(s.names))}}
	if s.finite() {
		facts = append(facts, [2]string{"tries per query", strconv.Itoa(s.tries)})
	}
	if s.timeout > 0 {
		facts = append(facts, [2]string{"query timeout", s.timeout.String()})
	}
	return append(facts, s.facts...)
}

// NewSlotWorker implements workload.SlotWorkers.
func (s *Set) NewSlotWorker(_ context.Context, conn driver.Conn, slot workload.ClientSlot) (workload.Op, error) {
	run, err := runner(conn)
	if err != nil {
		return nil, err
	}
	s.mu.Lock()
	queries := s.queries
	s.mu.Unlock()
	if queries == nil {
		return nil, errors.New("query set: no queries bound (Prepare did not run)")
	}
	if s.finite() {
		if slot.Clients > 1 {
			return nil, fmt.Errorf("the tries mode runs one query at a time, as ClickBench does, and takes 1 client, not %d: "+
				"set mode = \"concurrent\" (--mode concurrent) for several clients", slot.Clients)
		}
		return s.triesOp(conn, run, queries), nil
	}
	var runnable []int
	for i, q := range queries {
		if q.SQL != "" {
			runnable = append(runnable, i)
		}
	}
	return func(ctx context.Context, rng *rand.Rand, req workload.Requests) (int, error) {
		i := runnable[rng.IntN(len(runnable))]
		st, elapsed, err := s.exec(ctx, run, queries[i].SQL)
		if err != nil {
			return i, err
		}
		req.Request(i, elapsed, st.Rows, st.Bytes)
		return i, nil
	}, nil
}

// NewWorker implements workload.Instance for a single client.
func (s *Set) NewWorker(ctx context.Context, conn driver.Conn) (workload.Op, error) {
	return s.NewSlotWorker(ctx, conn, workload.ClientSlot{Clients: 1})
}

// triesOp runs the next try of the set, in order: each query its tries in a
// row, then the next query, as ClickBench's run.sh does.
func (s *Set) triesOp(conn driver.Conn, run queryFunc, queries []Query) workload.Op {
	return func(ctx context.Context, _ *rand.Rand, req workload.Requests) (int, error) {
		var k int64
		for {
			if s.coldFailed() {
				return 0, workload.ErrClientDone
			}
			k = s.next.Add(1) - 1
			if k >= int64(len(queries)*s.tries) {
				return 0, workload.ErrClientDone
			}
			if queries[int(k)/s.tries].SQL != "" {
				break
			}
		}
		i, try := int(k)/s.tries, int(k)%s.tries
		if try == 0 && s.cold != nil {
			// Outside the try's time: the restart and the wait for the
			// server are not the query's.
			fresh, err := s.cold(ctx, queries[i].Name)
			if err == nil && fresh != nil {
				var r queryFunc
				if r, err = runner(fresh); err == nil {
					conn, run = fresh, r
				}
			}
			if err != nil {
				s.mu.Lock()
				s.coldErr = err
				s.results[i].Error = result.CapText("not run: making its first try cold failed: "+redact.Scrub(err.Error()), result.MaxErrorText)
				s.mu.Unlock()
				return 0, workload.ErrClientDone
			}
		}
		start := time.Now()
		st, elapsed, err := s.exec(ctx, run, queries[i].SQL)
		s.mu.Lock()
		defer s.mu.Unlock()
		s.noteTry(start, err)
		r := &s.results[i]
		if err != nil {
			if r.Error == "" {
				r.Error = fmt.Sprintf("try %d: %s: %s", try+1, conn.Classify(err), redact.Scrub(err.Error()))
				r.Error = result.CapText(r.Error, result.MaxErrorText)
			}
			return i, err
		}
		secs := elapsed.Seconds()
		r.Tries[try] = &secs
		if hot, ok := r.Hot(); ok && hot == secs {
			// The engine's account goes with the try the hot time is.
			r.ServerSeconds, r.RowsRead, r.BytesRead = st.ServerElapsed.Seconds(), st.RowsRead, st.BytesRead
		}
		r.Rows = st.Rows
		req.Request(i, elapsed, st.Rows, st.Bytes)
		return i, nil
	}
}

// exec runs one query under the set's timeout and reads its whole result.
func (s *Set) exec(ctx context.Context, run queryFunc, sql string) (driver.QueryStats, time.Duration, error) {
	if s.timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, s.timeout)
		defer cancel()
	}
	start := time.Now()
	st, err := run(ctx, sql)
	elapsed := time.Since(start)
	if err != nil && errors.Is(ctx.Err(), context.DeadlineExceeded) {
		// Drivers report a cancelled query in their own words; the try's
		// reason must say it was the timeout.
		err = timedOut{after: s.timeout, cause: err}
	}
	return st, elapsed, err
}

// timedOut is a try that ran into the set's own timeout.
type timedOut struct {
	after time.Duration
	cause error // the driver's error, in its own words
}

func (e timedOut) Error() string {
	if errors.Is(e.cause, context.DeadlineExceeded) {
		return fmt.Sprintf("query timed out after %s: %v", e.after, e.cause)
	}
	return fmt.Sprintf("query timed out after %s: %v (%v)", e.after, context.DeadlineExceeded, e.cause)
}

func (e timedOut) Unwrap() []error { return []error{context.DeadlineExceeded, e.cause} }

// queryFunc runs one query and reads its result.
type queryFunc func(ctx context.Context, sql string) (driver.QueryStats, error)

// runner picks how a session runs a query: through the analytics
// capability, which also gives the engine's own account, or as a plain SQL
// query whose rows are read and counted.
func runner(conn driver.Conn) (queryFunc, error) {
	if a, ok := conn.(driver.Analytics); ok {
		return func(ctx context.Context, sql string) (driver.QueryStats, error) {
			return a.Analyze(ctx, sql, nil)
		}, nil
	}
	c, ok := conn.(driver.SQL)
	if !ok {
		return nil, errors.New("this target speaks neither SQL nor analytical queries")
	}
	return func(ctx context.Context, sql string) (driver.QueryStats, error) {
		rows, err := c.Query(ctx, sql)
		if err != nil {
			return driver.QueryStats{}, err
		}
		var n int64
		for rows.Next() {
			n++
		}
		err = rows.Err()
		if cerr := rows.Close(); err == nil {
			err = cerr
		}
		return driver.QueryStats{Rows: n}, err
	}, nil
}
