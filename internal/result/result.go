// Package result is fairbench's result model: what one finished (or interrupted)
// run produced. The runner fills it, the store persists it as it is, adapters that
// import other tools' outputs produce the same shape, and analysis and reports read it.
package result

import "time"

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
	ErrOther         ErrorClass = "other"
)

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

	Status Status
	Error  string // why a run failed or was interrupted

	StartedAt time.Time // start of the measured phase
	EndedAt   time.Time
	Warmup    time.Duration // configured warm-up (excluded from every number)
	Duration  time.Duration // actual measured duration

	ToolVersion string
	Env         map[string]any // host and database facts, passwords removed
	Deviations  []string       // where the run differs from the reference definition

	Summary Summary
	Ops     []Op          // one per operation / transaction type
	Series  []SeriesPoint // per-second samples of the measured phase
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
}

// Op is the result of one operation type (a transaction type, or a YCSB read, ...).
type Op struct {
	Name      string
	Count     int64                // successful
	Errors    map[ErrorClass]int64 // failed, by class (after retries)
	Histogram []byte               // lossless HdrHistogram encoding of successful latencies (µs)
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
	// Server is the server's own view of the interval, sampled from the
	// target's node_exporter; nil when the target names none.
	Server *ServerSample `json:"server,omitempty"`
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
