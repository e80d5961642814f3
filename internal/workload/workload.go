// Package workload defines what a benchmark workload is and keeps the one registry
// of them. A workload describes its parameters, loads its data through a driver
// capability and hands the runner a function that performs exactly one operation;
// the runner owns concurrency, rate, timing, retries and recording.
package workload

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"sort"
	"sync"
	"time"

	"github.com/fairbench/fairbench/internal/driver"
	"github.com/fairbench/fairbench/internal/kinds"
	"github.com/fairbench/fairbench/internal/params"
	"github.com/fairbench/fairbench/internal/progress"
	"github.com/fairbench/fairbench/internal/result"
)

// Workload is a registered workload kind ("tpcb", ...).
type Workload interface {
	Kind() string
	Description() string
	// Params declares every parameter the workload accepts, with defaults.
	Params() []params.Spec
	// New binds validated parameter values (defaults filled in) to an instance.
	New(p params.Values) (Instance, error)
}

// Needer is a Workload that says which capability families its workers
// assert (any one of them will do), so that a study pairing it with a
// target whose driver offers none is refused before it runs.
type Needer interface {
	Needs() []driver.Family
}

// Instance is a workload with its parameters bound, ready to run on a target.
type Instance interface {
	// Ops names the operation types the worker reports, in index order.
	Ops() []string
	// Prepare makes sure the workload's data exists on the target: idempotent,
	// reusing data that is already there, touching only what the workload owns.
	Prepare(ctx context.Context, env PrepareEnv) error
	// NewWorker returns the operation function of one client on its own connection.
	NewWorker(ctx context.Context, conn driver.Conn) (Op, error)
}

// Op performs one operation (or transaction) and returns the index of its type in
// Ops(). All randomness comes from rng so that the runner can replay a retried
// transaction with the same choices, as pgbench does. On error the operation must
// leave the connection usable (roll back any open transaction).
//
// An operation that is one request (a pgbench transaction, a TPC-C New-Order)
// just returns: the runner times it as one request of type op, from its
// intended start. An operation that sends several requests at once (a pipeline
// of 16 GETs) or requests that carry many items (a _bulk of 5 000 documents)
// records each through req instead; the runner then records nothing more for
// it, and uses op and err only for retries and reconnects.
type Op func(ctx context.Context, rng *rand.Rand, req Requests) (op int, err error)

// ErrClientDone, returned by an Op that did nothing, says that its client has
// sent all the requests it was to send (memtier's --requests): the client
// stops, and the run ends when every client has, or at its duration.
var ErrClientDone = errors.New("the client has sent all its requests")

// Requests records the requests of one operation (see Op). Latencies are
// measured by the workload from each request's send to its reply; the runner
// adds how late the operation started against a rate schedule, so that rate
// mode stays free of coordinated omission for every request.
type Requests interface {
	// Request records one successful request of op type op.
	Request(op int, latency time.Duration, items, bytes int64)
	// Failed records one failed request of op type op.
	Failed(op int, class result.ErrorClass)
}

// ClientSlot is a client's place among a run's clients: workloads that split
// the key space between clients (memtier's parallel key pattern) need it.
type ClientSlot struct {
	Index   int // 0-based
	Clients int
}

// SlotWorkers is optional: a workload whose workers depend on their client's
// place gets it through NewSlotWorker, which the runner then calls instead of
// NewWorker.
type SlotWorkers interface {
	NewSlotWorker(ctx context.Context, conn driver.Conn, slot ClientSlot) (Op, error)
}

// NewWorker makes the worker of the client in slot, through NewSlotWorker
// where the instance has it.
func NewWorker(ctx context.Context, in Instance, conn driver.Conn, slot ClientSlot) (Op, error) {
	if s, ok := in.(SlotWorkers); ok {
		return s.NewSlotWorker(ctx, conn, slot)
	}
	return in.NewWorker(ctx, conn)
}

// PrepareEnv is what Prepare gets to work with.
type PrepareEnv struct {
	// Load is true when the user asked for the data itself (fairbench load)
	// rather than for a run, which may find data optional (a kv run without
	// prefill).
	Load bool
	Conn driver.Conn
	// Open opens another connection to the same target, for parallel loading.
	Open func(ctx context.Context) (driver.Conn, error)
	// Replace allows dropping data of the workload's shape that fairbench did not
	// create (for example tables left by pgbench -i at another scale).
	Replace bool
	// Paced: the cell runs on a rate schedule, each operation started at
	// its intended time and its requests' latencies counted from it.
	Paced bool
	// Logf reports progress to the user; safe for concurrent use (a
	// workload's loaders may log from parallel goroutines).
	Logf func(format string, args ...any)
	// Progress counts the units of a long load (rows, records, documents)
	// for the user while it works: Start a task, Add as units are done, End
	// it. It may be nil (--quiet), which its methods accept.
	Progress *progress.Reporter
}

// CountRows counts on task the rows a bulk load reads from src, as it
// reads them: a load's progress. The count goes a batch at a time (one
// shared counter per row would contend between loading sessions); the last
// partial batch is counted when src ends.
func CountRows(src driver.RowSource, task *progress.Task) driver.RowSource {
	if task == nil {
		return src
	}
	c := &countedRows{RowSource: src, task: task}
	if t, ok := src.(driver.TypedRowSource); ok {
		// Counting must not hide the typed rows from the driver.
		return countedTypedRows{c, t}
	}
	return c
}

type countedTypedRows struct {
	*countedRows
	typed driver.TypedRowSource
}

func (c countedTypedRows) Kinds() []driver.Kind { return c.typed.Kinds() }

func (c countedTypedRows) Typed() ([]int64, []string) { return c.typed.Typed() }

type countedRows struct {
	driver.RowSource
	task    *progress.Task
	pending int64
}

const countBatch = 1024

func (c *countedRows) Next() bool {
	if !c.RowSource.Next() {
		c.task.Add(c.pending)
		c.pending = 0
		return false
	}
	if c.pending++; c.pending == countBatch {
		c.task.Add(c.pending)
		c.pending = 0
	}
	return true
}

// Shaper is optional: an instance whose runs do not have the common shape
// (the zero Shape). The runner reads Shape once, when it binds the cell's
// workload, and refuses a shape that Validate (end.go) refuses.
type Shaper interface {
	Shape() Shape
}

// Shape is how a run of the instance executes, and what it reports besides
// its operations. The zero Shape is the common run: operations for the cell's
// duration after its warm-up, on sessions with the driver's default options,
// under its kind's headline.
type Shape struct {
	// ConnOptions are connection options the parameters ask for (query mode).
	ConnOptions driver.Options

	// End is how a run ends: at the cell's duration (the zero End), when
	// its work is done, by its clients, after a count per client, or with
	// its query set's tries (end.go).
	End End
	// Results, when set, are the queries' tries of the measured phase, in
	// order, for Summary.Queries (nil when the instance keeps none).
	Results func() []result.QueryResult
	// Stalls, when set, are a tries run's stretches of the measured phase
	// in which tries failed and none succeeded, each from the start of a
	// failed try to the start of the next successful one (or the end of the
	// last try): its dead time (docs/reliability.md).
	Stalls func() []Stall

	// Waits: operations wait besides their requests (pgbench's \sleep, think
	// times), which would hold up the other clients of an event loop: each
	// client then keeps a thread of its own however many -j threads are asked,
	// and a second without a completed operation is no outage. The waits go
	// through Wait, which the run's stop cuts short.
	Waits bool
	// Log, when set, is told of each operation when it ends, failed or
	// skipped ones too (pgbench's per-transaction log, -l), warm-up
	// included; it runs on the client's own goroutine and must not block
	// for long.
	Log func(Logged)
	// Close, when set, is called once the clients of a run have stopped
	// (to finish what Log wrote); its error is shown, not fatal to the run.
	Close func() error

	// Split, when set, says that the instance's work is a total for the
	// whole cell (YCSB's operationcount), not an amount per client, and so
	// must be shared when several load generators measure the cell. It is
	// called on each generator's instance, before its workers, with its
	// number among generators; an error says why the work cannot be shared.
	Split func(generator, generators int) error
	// Tallies and AddTallies, when set: the instance's check needs tallies
	// of the whole run (the documents the engine accepted), which on several
	// load generators are spread over the generators' instances. Each
	// generator's Tallies travel with its partial run; the coordinator's
	// instance, which ran no client, adds them all (AddTallies) before its
	// check.
	Tallies    func() map[string]int64
	AddTallies func(map[string]int64)

	// Headline, when set, is the instance's headline instead of its kind's
	// (a query set in a concurrent mode counts queries per second).
	Headline *result.Headline
}

// Logged is one operation as Shape.Log is told of it.
type Logged struct {
	Client int   // the client's index among the cell's clients (0-based)
	Seq    int64 // the client's operations so far, this one included
	Op     int   // index in Ops()
	// Intended is when the operation was to start (its schedule in rate
	// mode, else its start); Began when its first try began; End when its
	// last try ended. Latency counts from Intended.
	Intended, Began, End time.Time
	Tries                int
	Failed, Skipped      bool
	// Paced: the run has a rate schedule; MaxTries: the cell's tries per
	// operation (pgbench's log adds a column for each).
	Paced    bool
	MaxTries int
}

// Stall is a stretch of time in which no try of a query set succeeded.
type Stall struct{ From, To time.Time }

// Hooker is optional: an instance with work of its own around its runs. The
// runner reads Hooks once, when it binds the cell's workload.
type Hooker interface {
	Hooks() Hooks
}

// Hooks are what the runner calls around an instance's runs; each is
// optional (nil: none).
type Hooks struct {
	// BeforeRun is work done before each measured run, outside the
	// measurement (pgbench vacuums and truncates history before every run).
	BeforeRun func(ctx context.Context, conn driver.Conn) error
	// Check is a consistency check after a run; AlwaysCheck says that it
	// belongs to every run (OSB's final refresh and document count), which
	// the runner then runs after each run whether or not the user asked for
	// checks.
	Check       func(ctx context.Context, conn driver.Conn) error
	AlwaysCheck bool
	// Cleanup removes only what the workload created.
	Cleanup func(ctx context.Context, conn driver.Conn) error
	// Describe gives facts for the run summary ("transaction type",
	// "scaling factor", ...) and deviations from the reference definition
	// on this target.
	Describe func(conn driver.Conn) (facts [][2]string, deviations []string)
	// Counts are cumulative counts the workload keeps besides its
	// operations (sysbench's queries by class). The runner stores their
	// growth over the measured phase in the run's Summary.Extra, so warm-up
	// is excluded.
	Counts func() map[string]int64
	// ServerCounts are counts the database itself keeps (TPC-C's sum of the
	// districts' next order ids, the server's commits and rollbacks). The
	// runner reads them on a session of their own right before the measured
	// phase starts and right after it ends, as HammerDB snapshots them at
	// the end of its ramp-up and of its run, and stores their growth in
	// Summary.Extra beside Counts'. final is true for the read after the
	// phase, when the clients' sessions have been closed (a server may
	// publish a session's counts only when it ends).
	ServerCounts func(ctx context.Context, conn driver.Conn, final bool) (map[string]int64, error)
}

// Share is generator i's share of total split over n as evenly as can be,
// the first ones taking one more: the first unit of its share, and how many.
func Share(total int64, n, i int) (first, count int64) {
	per, extra := total/int64(n), total%int64(n)
	first = int64(i)*per + min(int64(i), extra)
	count = per
	if int64(i) < extra {
		count++
	}
	return first, count
}

var (
	mu          sync.RWMutex
	registry    = map[string]Workload{}
	defaultKind string
)

// Plugin is everything a native workload kind declares, registered at once
// from one file of its package: the workload, what generic code needs of its
// kind, and whether it is the default.
type Plugin struct {
	Workload Workload
	// Kind is what reports and analysis need of the kind (headline, summary,
	// working set, sections, run formats). Register fills in its Kind and
	// Params from the workload.
	Kind kinds.Info
	// Default makes the workload the one ad-hoc commands run when no
	// --workload is given (tpcb, as pgbench runs its TPC-B-like script when
	// given none). One workload may be the default.
	Default bool
}

// Register adds a workload kind and registers its kind with internal/kinds,
// where reports, which do not import workloads, find it. Workload packages
// call it from init, once per kind; the all-workloads import list lives in
// internal/plugins. It panics on a kind registered twice, a Kind.Kind
// other than the workload's, or a second default.
func Register(p Plugin) {
	w := p.Workload
	info := p.Kind
	if info.Kind != "" && info.Kind != w.Kind() {
		panic(fmt.Sprintf("workload %s registers kind information for %q", w.Kind(), info.Kind))
	}
	info.Kind, info.Params = w.Kind(), w.Params
	mu.Lock()
	defer mu.Unlock()
	if _, dup := registry[w.Kind()]; dup {
		panic("workload registered twice: " + w.Kind())
	}
	if p.Default {
		if defaultKind != "" {
			panic(fmt.Sprintf("workload: default set twice (%s, then %s)", defaultKind, w.Kind()))
		}
		defaultKind = w.Kind()
	}
	registry[w.Kind()] = w
	kinds.Register(info)
}

// Default returns the default workload kind: the one registered as
// Default, else the first registered kind by name, else "".
func Default() string {
	mu.RLock()
	defer mu.RUnlock()
	if defaultKind != "" {
		return defaultKind
	}
	if ks := sortedKinds(); len(ks) > 0 {
		return ks[0]
	}
	return ""
}

// Get returns the workload of the given kind.
func Get(kind string) (Workload, error) {
	mu.RLock()
	defer mu.RUnlock()
	w, ok := registry[kind]
	if !ok {
		return nil, fmt.Errorf("unknown workload kind %q: available are %v", kind, sortedKinds())
	}
	return w, nil
}

// Kinds lists the registered workload kinds.
func Kinds() []string {
	mu.RLock()
	defer mu.RUnlock()
	return sortedKinds()
}

// sortedKinds lists the registered kinds, sorted; the caller holds mu.
func sortedKinds() []string {
	out := make([]string, 0, len(registry))
	for k := range registry {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// SQLConn asserts the SQL capability, with an error naming the workload.
func SQLConn(kind string, c driver.Conn) (driver.SQL, error) {
	s, ok := c.(driver.SQL)
	if !ok {
		return nil, fmt.Errorf("workload %s needs an SQL database; this target does not speak SQL", kind)
	}
	return s, nil
}
