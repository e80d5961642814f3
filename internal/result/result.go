// Package result is fairbench's result model: what one finished (or interrupted)
// run produced. The runner fills it, the store persists it as it is, adapters that
// import other tools' outputs produce the same shape, and analysis and reports read it.
package result

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"time"
)

// Status of a run.
type Status string

const (
	StatusOK          Status = "ok"          // measured phase completed
	StatusInterrupted Status = "interrupted" // stopped by the user (Ctrl-C) during the run
	StatusFailed      Status = "failed"      // could not run (connection, prepare, ...)
)

// ErrorClass groups database errors the way readers care about them.
type ErrorClass string

const (
	ErrSerialization ErrorClass = "serialization" // SQLSTATE 40001
	ErrDeadlock      ErrorClass = "deadlock"      // SQLSTATE 40P01, MySQL 1213
	ErrBusy          ErrorClass = "busy"          // SQLite SQLITE_BUSY / locked, MySQL lock wait timeout
	ErrTimeout       ErrorClass = "timeout"       // statement or client timeout
	ErrConnection    ErrorClass = "connection"    // connection lost or refused
	ErrConstraint    ErrorClass = "constraint"    // unique / foreign key violations
	// ErrThrottled is a request the server refused for load, not for its content:
	// HTTP 429, Redis OOM/BUSY replies, write conflicts a store asks to retry later.
	ErrThrottled ErrorClass = "throttled"
	ErrOther     ErrorClass = "other"
	// ErrNotFound is a read or update of a record that is not there (YCSB's
	// Return=NOT_FOUND): the workload expected it, the database answered.
	ErrNotFound ErrorClass = "not_found"
)

// ErrorClasses lists every class in a fixed order (hist counts by index). It
// is an array so that len(ErrorClasses) is a constant that sizes the
// counters kept per class.
var ErrorClasses = [...]ErrorClass{
	ErrSerialization, ErrDeadlock, ErrBusy, ErrTimeout, ErrConnection, ErrConstraint, ErrThrottled, ErrOther, ErrNotFound,
}

// Retryable reports whether pgbench's --max-tries would retry an error of this class.
// pgbench retries serialization failures and deadlocks; SQLite's busy/locked is the
// same kind of lock conflict and is retried as well.
func (c ErrorClass) Retryable() bool {
	return c == ErrSerialization || c == ErrDeadlock || c == ErrBusy
}

// Run is one executed cell: (target, workload, parameters, clients, repetition).
type Run struct {
	ID         int64  // assigned by the store
	Source     string // "fairbench" for native runs, the tool name for imported ones
	StudyName  string
	StudyHash  string // sha256 of the study file; "" for ad-hoc runs
	CellKey    string // identity of the cell inside the study, used by --resume
	CellIndex  int    // position in the plan
	Target     string // target name
	TargetURL  string // with the password removed
	Workload   string // workload name as given in the study
	Kind       string // workload kind ("tpcb", ...)
	Params     map[string]any
	Clients    int
	Repetition int // 1-based

	// ClientLevel is the study's clients level Clients came from when it was
	// a share of the target's hardware threads ("50%"); "" for a literal
	// count. Targets with different cores run different counts at one
	// level, and compare pairs them by it.
	ClientLevel string

	Status Status
	Error  string // why a run failed or was interrupted

	StartedAt time.Time // start of the measured phase
	EndedAt   time.Time
	Warmup    time.Duration // configured warm-up (excluded from every number)
	Duration  time.Duration // actual measured duration

	ToolVersion string
	Env         Environment // host and database facts, passwords removed
	Deviations  []string    // where the run differs from the reference definition
	// Hooks are the commands the study ran on the client host around this
	// run, in the order they ran (before_study with the study's first
	// run), and those that made its query set's first tries cold.
	Hooks []HookRecord

	Summary Summary
	// ServerView is what the target's server reported of itself while the
	// run was measured (driver.ServerViewer); nil when its driver has no
	// such view or the study turned it off.
	ServerView *ServerView   `json:"server_view,omitempty"`
	Ops        []Op          // one per operation / transaction type
	Series     []SeriesPoint // per-second samples of the measured phase
	// SpillKey, when set, names the series points the runner spilled to the
	// results store as the run measured (store.SpillPoint): Spilled folds
	// them, Series holds only the points after them, and appending the run
	// to that store puts the spilled ones first. Never serialised: a run
	// written elsewhere carries its whole series itself (store.Unspill).
	SpillKey string `json:"-"`
	// Spilled is what the checks after a run need of the points it spilled
	// (how many, the dead and missed seconds among them), so that a run's
	// memory does not grow with its seconds. Never serialised.
	Spilled SeriesTally `json:"-"`
	// Digest, when set, stands for the series a report dropped
	// (DropSeries): what its consumers read of it. Never serialised.
	Digest *SeriesDigest `json:"-"`
}

// SeriesLen is the number of points of the run's series: those it spilled
// and those it holds.
func (r *Run) SeriesLen() int {
	if r.Digest != nil {
		return r.Digest.Points
	}
	return r.Spilled.Points + len(r.Series)
}

// Summary holds the headline numbers of a run. Latencies are in microseconds.
type Summary struct {
	Transactions    int64   `json:"transactions"`          // successful operations / transactions
	Failed          int64   `json:"failed"`                // operations that failed after all tries
	Retried         int64   `json:"retried"`               // operations that needed more than one try
	Retries         int64   `json:"retries"`               // total number of extra tries
	Skipped         int64   `json:"skipped"`               // rate mode: starts skipped because too late (latency limit)
	LateStarts      int64   `json:"late_starts"`           // rate mode: starts behind schedule by more than 1 ms
	Throughput      float64 `json:"throughput"`            // successful operations per second of measured time
	LatencyMean     float64 `json:"latency_mean_us"`       // over successful operations
	LatencyStddev   float64 `json:"latency_stddev_us"`     // over successful operations
	LatencyMin      float64 `json:"latency_min_us"`        // over successful operations
	P50             float64 `json:"p50_us"`                // from the histogram
	P95             float64 `json:"p95_us"`                // from the histogram
	P99             float64 `json:"p99_us"`                // from the histogram
	Max             float64 `json:"max_us"`                // from the histogram
	LagMean         float64 `json:"lag_mean_us,omitempty"` // rate mode: mean schedule lag
	LagMax          float64 `json:"lag_max_us,omitempty"`  // rate mode: max schedule lag
	ConnectTimeMean float64 `json:"connect_time_ms"`       // initial connection time, pgbench's meaning (ms)
	TargetRate      float64 `json:"target_rate,omitempty"` // rate mode: requested operations per second
	ClientCPU       float64 `json:"client_cpu_s"`          // CPU seconds fairbench used during the measured phase
	// Extra holds workload-specific counts over the measured phase, e.g. sysbench's
	// queries by class ("queries_read", "queries_write", "queries_other").
	Extra map[string]float64 `json:"extra,omitempty"`
	// Outage accounting (docs/reliability.md): connections lost during the
	// measured phase and how long the clients were without a completed
	// operation. ReconnectAttempts counts every try to replace a lost
	// connection, Reconnects the tries that succeeded. DeadSeconds counts the
	// seconds of the per-second series with no completed operation
	// (DeadSecondsOf); DeadSpans lists them as [first, last] second ranges.
	ReconnectAttempts int64    `json:"reconnect_attempts,omitempty"`
	Reconnects        int64    `json:"reconnects,omitempty"`
	DeadSeconds       int      `json:"dead_seconds,omitempty"`
	DeadSpans         [][2]int `json:"dead_spans,omitempty"`
	// MeasuredSeconds is how many points of the series cover the measured
	// phase (the points after them hold what completed while the clients
	// stopped): the dead seconds are counted among these. 0 in runs stored
	// before it was recorded, whose dead seconds were counted over the series.
	MeasuredSeconds int `json:"measured_seconds,omitempty"`
	// PilotRounds is, for a run of a study with repetitions = "auto", how
	// many pilot rounds sized the study's rounds (the final test uses the
	// pilot's scatter: docs/statistics.md, "repetitions = auto"); 0 for
	// runs of a fixed number of repetitions and runs stored before it.
	PilotRounds int `json:"pilot_rounds,omitempty"`
	// SilentSeconds are the dead seconds in which no operation failed
	// either: the operations were slow or frozen, or fairbench itself did
	// not run. StarvedSeconds are those of them in which fairbench was held
	// up by its host (DeadTime.Starved). A server that refuses or drops
	// connections causes errors; a host that starves its client does not.
	SilentSeconds  int `json:"silent_seconds,omitempty"`
	StarvedSeconds int `json:"starved_seconds,omitempty"`
	// Flags say why the numbers of a run that stands may not describe its
	// target: its host was busy, or the run stalled (docs/reliability.md).
	Flags []Flag `json:"flags,omitempty"`
	// FirstErrors keeps, per error class, the text of the first error of that
	// class (the server's message), secrets scrubbed and capped at
	// MaxErrorText bytes: what a reader needs to see why operations failed.
	FirstErrors map[ErrorClass]string `json:"first_errors,omitempty"`
	// ReconnectError is the first error of a failed reconnect attempt (a
	// refused dial, a server still starting), scrubbed and capped: often
	// clearer than the driver's error for the operation that lost its connection.
	ReconnectError string `json:"reconnect_error,omitempty"`
	// Metric is the run's headline number as its workload defines it (NOPM for
	// TPC-C, documents/s for bulk indexing, ...). Nil for runs stored before
	// headline metrics existed: Run.Headline then falls back to Throughput.
	Metric *Metric `json:"metric,omitempty"`
	// Queries holds, for a query-set run (SSB, ClickBench), each query's
	// tries in the order they ran: the first try is the cold one, and the
	// hot time is the best of the others, as ClickBench reports them. The
	// per-op histograms hold the same times, but not their order.
	Queries []QueryResult `json:"queries,omitempty"`
	// ColdBy names what ran before each query's first try of a query-set
	// run ("restart", "drop_caches"; Run.Hooks records each execution):
	// its cold tries are true cold tries. Empty: the first try is only the
	// first, after whatever the tries before it left in the caches.
	ColdBy []string `json:"cold_by,omitempty"`
	// Verified: the workload's own check of the run's results ran after it
	// and passed (its consistency check, asked with --check or belonging to
	// every run). False: nothing checked what the database answered.
	Verified bool `json:"verified,omitempty"`
}

// Flag kinds: a run flagged is stored as it is (not failed), and its flags
// print with it and in the report's methodology warnings.
const (
	// FlagHostBusy: the host held fairbench up (seconds it could not read,
	// its threads waiting for a CPU, the hypervisor's steal).
	FlagHostBusy = "host busy"
	// FlagStalled: the run took far longer than planned, an operation took
	// longer than the measured phase, or an engine inside fairbench's own
	// process completed nothing for seconds without an error.
	FlagStalled = "stalled"
)

// Flag is one reason to doubt a run that stands, with the numbers behind it.
type Flag struct {
	Kind   string `json:"kind"`
	Reason string `json:"reason"`
}

// FlagsText writes a run's flags as one line: "host busy: …; stalled: …".
func FlagsText(flags []Flag) string {
	parts := make([]string, len(flags))
	for i, f := range flags {
		parts[i] = f.Kind + ": " + f.Reason
	}
	return strings.Join(parts, "; ")
}

// QueryResult is one query of a query-set run.
type QueryResult struct {
	Name string `json:"name"`
	// Tries are the try times in seconds, in order; nil for a try that
	// failed or timed out (ClickBench's null).
	Tries []*float64 `json:"tries"`
	// Error is why the first failed try failed: its class and the
	// engine's message, secrets scrubbed.
	Error string `json:"error,omitempty"`
	// Rows is the number of result rows of the last successful try.
	Rows int64 `json:"rows,omitempty"`
	// ServerSeconds, RowsRead and BytesRead are the engine's own account of
	// the query's fastest try, where the engine gives one (ClickHouse).
	ServerSeconds float64 `json:"server_s,omitempty"`
	RowsRead      int64   `json:"rows_read,omitempty"`
	BytesRead     int64   `json:"bytes_read,omitempty"`
}

// Cold returns the first try's time, if it succeeded.
func (q QueryResult) Cold() (float64, bool) {
	if len(q.Tries) == 0 || q.Tries[0] == nil {
		return 0, false
	}
	return *q.Tries[0], true
}

// Hot returns the best time among the tries after the first (the caches
// warm), or the first try's when it is the only one.
func (q QueryResult) Hot() (float64, bool) {
	if len(q.Tries) == 1 {
		return q.Cold()
	}
	best, ok := 0.0, false
	for _, t := range q.Tries[min(1, len(q.Tries)):] {
		if t != nil && (!ok || *t < best) {
			best, ok = *t, true
		}
	}
	return best, ok
}

// QueryGeoMean is the geometric mean of the queries' hot times in seconds,
// over the queries that have one; missing counts the queries without.
func QueryGeoMean(qs []QueryResult) (mean float64, missing int) {
	var logSum float64
	n := 0
	for _, q := range qs {
		t, ok := q.Hot()
		if !ok {
			missing++
			continue
		}
		// A query answered in under a microsecond (a cached constant) would
		// pull the mean to zero; a microsecond is the timer's resolution.
		logSum += math.Log(math.Max(t, 1e-6))
		n++
	}
	if n == 0 {
		return 0, missing
	}
	return math.Exp(logSum / float64(n)), missing
}

// Field says what a headline metric counts.
type Field string

const (
	FieldRequests Field = "requests" // successful requests of the counted op types, per Per
	FieldItems    Field = "items"    // items (documents, rows) of the counted op types, per Per
	FieldSeconds  Field = "seconds"  // total latency of the counted op types, in seconds (a time, not a rate)
	// FieldCounter is the growth of one of the run's Summary.Extra counters
	// (Headline.Counter), per Per: a figure the database itself keeps, such as
	// HammerDB's NOPM from the districts' next order ids.
	FieldCounter Field = "counter"
	// FieldQueryTimes is the geometric mean of a query-set run's hot query
	// times (Summary.Queries), in seconds: SSB's and ClickBench's one number.
	FieldQueryTimes Field = "query_times"
)

// Headline declares the one number a reader of a workload's results looks at
// first: tpcb's transactions per second, TPC-C's New-Orders per minute, bulk
// indexing's documents per second, ClickBench's query seconds.
type Headline struct {
	Name           string   `json:"name"`             // "throughput", "NOPM", "documents/s", ...
	Unit           string   `json:"unit"`             // "tps", "ops/s", "NOPM", "docs/s", "s"
	HigherIsBetter bool     `json:"higher_is_better"` // false for times
	Field          Field    `json:"field"`
	Ops            []string `json:"ops,omitempty"` // op types counted; empty: all of them
	// Per is the rate's time base in seconds (60 for per-minute figures); 0 means 1.
	Per float64 `json:"per,omitempty"`
	// Counter names the Summary.Extra counter a FieldCounter headline counts.
	Counter string `json:"counter,omitempty"`
}

// Throughput is the headline of workloads that declare none: successful
// operations of every type per second.
var Throughput = Headline{Name: "throughput", Unit: "tps", HigherIsBetter: true, Field: FieldRequests}

// Metric is a headline with its value for one run.
type Metric struct {
	Headline
	Value float64 `json:"value"`
}

// Counts reports whether op type name counts towards the headline.
func (h Headline) Counts(name string) bool {
	if len(h.Ops) == 0 {
		return true
	}
	for _, o := range h.Ops {
		if o == name {
			return true
		}
	}
	return false
}

// Measure computes the headline's value from a run's op results, its
// counters (Summary.Extra) and its measured duration. sumUs gives an op's
// exact latency sum in µs (for FieldSeconds); nil means not known, and
// FieldSeconds then yields 0. A FieldCounter headline whose counter the run
// lacks yields 0. queries are the run's query-set results, for FieldQueryTimes.
func (h Headline) Measure(ops []Op, extra map[string]float64, duration time.Duration, sumUs func(i int) float64, queries []QueryResult) float64 {
	if h.Field == FieldQueryTimes {
		m, _ := QueryGeoMean(queries)
		return m
	}
	var n float64
	if h.Field == FieldCounter {
		n = extra[h.Counter]
	}
	for i, op := range ops {
		if h.Field == FieldCounter || !h.Counts(op.Name) {
			continue
		}
		switch h.Field {
		case FieldItems:
			n += float64(op.Items)
		case FieldSeconds:
			if sumUs != nil {
				n += sumUs(i) / 1e6
			}
		default:
			n += float64(op.Count)
		}
	}
	if h.Field == FieldSeconds {
		return n
	}
	secs := duration.Seconds()
	if secs <= 0 {
		return 0
	}
	per := h.Per
	if per <= 0 {
		per = 1
	}
	return n / secs * per
}

// Headline returns the run's headline metric: the one its workload recorded,
// else (runs from before headline metrics, imports that set none) throughput.
func (r *Run) Headline() Metric {
	if r.Summary.Metric != nil {
		return *r.Summary.Metric
	}
	return Metric{Headline: Throughput, Value: r.Summary.Throughput}
}

// Op is the result of one operation type (a transaction type, a YCSB read, a
// GET inside a pipeline, a _bulk request, ...). Count counts requests: a
// pipeline of 16 GETs is 16, a _bulk of 5 000 documents is 1 with 5 000 Items.
type Op struct {
	Name      string
	Count     int64                // successful requests
	Items     int64                // items the successful requests carried (documents, rows); 0 when the op type has no notion of items
	Bytes     int64                // payload bytes of the successful requests, where the workload counts them
	Errors    map[ErrorClass]int64 // failed requests, by class (after retries)
	Histogram []byte               // lossless HdrHistogram encoding of successful latencies (µs)
	// ServiceHistogram, in rate mode, encodes the service times (from the
	// actual send, µs) apart from Histogram's latencies (from the scheduled
	// start); empty in a closed loop, where they are the same.
	ServiceHistogram []byte `json:",omitempty"`
}

// SeriesPoint is one second of the measured phase, over all operation types.
type SeriesPoint struct {
	Second int     `json:"t"` // seconds since the start of the measured phase (end of the interval)
	Ops    int64   `json:"ops"`
	Errors int64   `json:"errors"`
	Rate   float64 `json:"rate"` // ops per second over the actual interval length
	Mean   float64 `json:"mean_us"`
	P50    float64 `json:"p50_us"`
	P95    float64 `json:"p95_us"`
	P99    float64 `json:"p99_us"`
	Max    float64 `json:"max_us"`
	CPU    float64 `json:"client_cpu"` // fairbench's CPU use in this interval, in cores
	// CPUWait is how long fairbench's threads waited for a CPU in this
	// interval, in seconds per second (the kernel's run delay summed over
	// its threads); 0 where the kernel does not say.
	CPUWait float64 `json:"client_cpu_wait,omitempty"`
	// Missed marks a second fairbench did not read in time: its clock tick
	// came a whole second late or more, so fairbench itself was not running
	// (a frozen or starved host). Nothing completed is known of it; what
	// completed meanwhile is in the next point.
	Missed bool `json:"missed,omitempty"`
	// Server is the server's own view of the interval, sampled from the
	// target's node_exporter; nil when the target names none.
	Server *ServerSample `json:"server,omitempty"`
	// Hists is the interval itself per op type, losslessly: series of several
	// runs or load generators merge exactly (hist.MergeSeries). Nil in results
	// stored before schema 3, whose intervals keep only the quantiles above.
	Hists []IntervalOp `json:"hists,omitempty"`
}

// IntervalOp is one op type's share of one interval.
type IntervalOp struct {
	Name      string               `json:"name"`
	Count     int64                `json:"count"`
	Items     int64                `json:"items,omitempty"`
	Bytes     int64                `json:"bytes,omitempty"`
	Errors    map[ErrorClass]int64 `json:"errors,omitempty"`
	SumUs     float64              `json:"sum_us,omitempty"` // exact latency sum, for an exact merged mean
	Histogram string               `json:"h,omitempty"`      // HdrHistogram V2 compressed and base64'd (hist.Encode), µs
}

// ServerSample is one interval as a Prometheus node_exporter on the server saw it.
type ServerSample struct {
	CPU      float64 `json:"cpu_pct"`       // user+system (and other busy modes) share of all CPUs, %
	DiskUtil float64 `json:"disk_util_pct"` // the busiest disk's utilisation (io_time), %
	NetRx    float64 `json:"net_rx_bps"`    // bytes received per second, all interfaces but loopback
	NetTx    float64 `json:"net_tx_bps"`    // bytes sent per second
}

// TotalErrors sums the errors of every operation type.
func (r *Run) TotalErrors() int64 {
	var n int64
	for _, op := range r.Ops {
		for _, c := range op.Errors {
			n += c
		}
	}
	return n
}

// FailuresIn counts a run's failures and what they are a share of in the
// unit headline h counts: a headline of items (a bulk's documents) counts
// its items, since a refused document is one failure however many rode in
// its request; any other counts operations. unit names what of counts.
func (r *Run) FailuresIn(h Headline) (failed, of int64, unit string) {
	failed = max(r.TotalErrors(), r.Summary.Failed)
	if h.Field != FieldItems {
		return failed, r.Summary.Transactions + failed, "operations"
	}
	of = failed
	for _, op := range r.Ops {
		if h.Counts(op.Name) {
			of += op.Items
		}
	}
	unit = strings.TrimSuffix(h.Unit, "/s")
	if unit == "" || unit == h.Unit {
		unit = "items"
	}
	return failed, of, unit
}

// MaxErrorText caps each error text a run keeps (Summary.FirstErrors, Run.Error).
const MaxErrorText = 512

// CapText shortens s to at most n bytes on a rune boundary, marking the cut.
func CapText(s string, n int) string {
	if len(s) <= n {
		return s
	}
	cut := n
	for cut > 0 && cut < len(s) && s[cut]&0xC0 == 0x80 {
		cut--
	}
	return s[:cut] + fmt.Sprintf("… (%d bytes cut)", len(s)-cut)
}

// StarvedCPUWait: a second in which fairbench's threads waited this long (in
// seconds, summed over threads) for a CPU is one in which the host, not the
// target, held the clients up. Clients waiting on a server that does not
// answer are blocked, not waiting for a CPU.
const StarvedCPUWait = 0.25

// DeadTime is the account of a measured phase's seconds without a completed
// operation.
type DeadTime struct {
	Spans   [][2]int // [first, last] series seconds
	Seconds int      // dead seconds
	Silent  int      // of them, seconds in which no operation failed either
	// Starved: of the silent ones, seconds fairbench did not read in time
	// (SeriesPoint.Missed) or in which its threads waited StarvedCPUWait
	// or more for a CPU.
	Starved int
}

// DeadSecondsOf counts the seconds of a measured phase in which no operation
// completed among the first measured points of series (the rest hold what
// completed while the clients stopped). A second fairbench did not read is
// dead. With errorsOnly, only seconds that saw errors and no completion count:
// for runs whose operations normally take longer than a second (analytic
// queries) or whose schedule leaves seconds empty (a low rate), a quiet second
// is normal.
//
// With measured 0 (runs stored before it was recorded), the final point is
// left out when it has the second of the point before it: it is the remainder
// of the measured phase after the last full tick.
func DeadSecondsOf(series []SeriesPoint, measured int, errorsOnly bool) DeadTime {
	return deadAfter(SeriesTally{}, series, measured, errorsOnly)
}

// DeadTime is the dead time of the run's measured phase (DeadSecondsOf): of
// the points it spilled (Spilled) and of those it holds.
func (r *Run) DeadTime(errorsOnly bool) DeadTime {
	return deadAfter(r.Spilled, r.Series, r.Summary.MeasuredSeconds, errorsOnly)
}

// deadAfter is DeadSecondsOf of a series whose first before.Points points
// before folded and whose others are series.
func deadAfter(before SeriesTally, series []SeriesPoint, measured int, errorsOnly bool) DeadTime {
	if held := measured - before.Points; measured > 0 && held < len(series) {
		series = series[:max(held, 0)]
	} else if k := len(series); measured == 0 && k >= 2 && series[k-1].Second == series[k-2].Second {
		series = series[:k-1]
	}
	t := before
	t.dead.Spans, t.failed.Spans = slices.Clone(t.dead.Spans), slices.Clone(t.failed.Spans) // before stays as it was
	for _, p := range series {
		t.Add(p)
	}
	return t.Dead(errorsOnly)
}

// SeriesTally folds a measured phase's points, in order, into what the checks
// after a run read of them: their dead time (DeadSecondsOf), both ways, and
// the seconds fairbench did not read. Its size does not grow with the points
// folded, only with the spans of dead seconds among them.
type SeriesTally struct {
	Points int // points folded
	Missed int // of them, seconds fairbench did not read (SeriesPoint.Missed)
	dead   DeadTime
	failed DeadTime // the dead time of the seconds that saw errors
}

// Add folds the next point.
func (t *SeriesTally) Add(p SeriesPoint) {
	t.Points++
	if p.Missed {
		t.Missed++
	}
	if p.Ops > 0 {
		return
	}
	t.dead.add(p)
	if p.Errors > 0 {
		t.failed.add(p)
	}
}

// Dead is the dead time of the points folded; with errorsOnly, of the
// seconds that saw errors and no completion only (DeadSecondsOf).
func (t *SeriesTally) Dead(errorsOnly bool) DeadTime {
	d := t.dead
	if errorsOnly {
		d = t.failed
	}
	d.Spans = slices.Clone(d.Spans) // later points must not extend the caller's
	return d
}

// add counts p, a second without a completed operation.
func (d *DeadTime) add(p SeriesPoint) {
	d.Seconds++
	if p.Errors == 0 {
		d.Silent++
		if p.Missed || p.CPUWait >= StarvedCPUWait {
			d.Starved++
		}
	}
	if k := len(d.Spans); k > 0 && d.Spans[k-1][1] >= p.Second-1 {
		d.Spans[k-1][1] = p.Second
		return
	}
	d.Spans = append(d.Spans, [2]int{p.Second, p.Second})
}

// MeasuredPoints is how many points of the series the measured phase has: the
// dead-second share is of these (all points in runs stored before
// Summary.MeasuredSeconds was recorded).
func (r *Run) MeasuredPoints() int {
	if n := r.Summary.MeasuredSeconds; n > 0 {
		return min(n, r.SeriesLen())
	}
	return r.SeriesLen()
}

// RatePoints are the points of the series whose rates are per-second rates
// of the measured phase, for every check and table that reads a run's
// throughput second by second: the measured points (MeasuredPoints), less a
// last point whose window (its ops over its rate) lasted under half of the
// one before it. That point holds what completed in the few milliseconds
// between the last tick and the clients' stop (in runs stored before
// MeasuredSeconds was recorded, and in a tool's partial last interval); its
// rate, over so short a window, is noise (3,894 ops/s after a steady 90) and
// would count as a whole second.
//
// A run whose series a report dropped (Digest) has none: its consumers read
// the digest.
func (r *Run) RatePoints() []SeriesPoint {
	if r.Digest != nil {
		return nil
	}
	pts := r.Series[:r.MeasuredPoints()]
	if n := len(pts); n >= 2 && partialLast(pts[n-2].window(), pts[n-1].window()) {
		return pts[:n-1]
	}
	return pts
}

// partialLast reports whether the last measured point, of window last, is
// a partial interval after the one before it, of window before
// (RatePoints).
func partialLast(before, last float64) bool {
	return !math.IsInf(before, 1) && last < before/2
}

// window is how long the point's interval lasted, in seconds, as its ops
// over its rate; +Inf when they do not say (no op completed, or no rate).
func (p SeriesPoint) window() float64 {
	if p.Ops <= 0 || p.Rate <= 0 {
		return math.Inf(1)
	}
	return float64(p.Ops) / p.Rate
}

// HeldUpSeconds are the dead seconds a busy host, not the target, explains:
// none when connections were lost (an outage); else, for an engine inside
// fairbench's own process (it stalls with its client), those in which nothing
// failed either; else those in which nothing failed and fairbench itself was
// starved (DeadTime.Starved). A server that stops answering leaves its clients
// blocked, not waiting for a CPU, and its seconds count as an outage.
func (s Summary) HeldUpSeconds(engineInProcess bool) int {
	switch {
	case s.ReconnectAttempts > 0:
		return 0
	case engineInProcess:
		return s.SilentSeconds
	}
	return s.StarvedSeconds
}

// SpansText writes second spans the way messages name them: "s 3–9, s 12".
func SpansText(spans [][2]int) string {
	const shown = 8
	parts := make([]string, 0, min(len(spans), shown+1))
	for i, s := range spans {
		if i == shown {
			parts = append(parts, fmt.Sprintf("and %d more", len(spans)-shown))
			break
		}
		if s[0] == s[1] {
			parts = append(parts, fmt.Sprintf("s %d", s[0]))
		} else {
			parts = append(parts, fmt.Sprintf("s %d–%d", s[0], s[1]))
		}
	}
	return strings.Join(parts, ", ")
}
